#!/usr/bin/env bash
# Prints the path of a code-server launcher (a real VS Code in the browser), installing
# it first when it is not cached. code-server 4.139.1 and the Node.js 24 it runs on both
# come from the npm registry and live in ${CODE_SERVER_HOME:-~/.cache/code-server}; the
# launcher puts that Node.js first on PATH. Its native modules build against Debian's
# libkrb5-dev and libxkbfile-dev (tools/install-debian.sh installs them).
# Usage:  CS=$(tools/install-code-server.sh); "$CS" --auth none --bind-addr 127.0.0.1:PORT DIR
set -euo pipefail
version=${CODE_SERVER_VERSION:-4.139.1}
home=${CODE_SERVER_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/code-server}
launcher="$home/code-server"
if [ ! -x "$launcher" ]; then
  echo "installing code-server $version and Node.js 24 (npm) into $home" >&2
  mkdir -p "$home/node24" "$home/app"
  (cd "$home/node24" && npm install --silent --no-audit --no-fund node@24 >&2)
  node_bin="$home/node24/node_modules/node/bin"
  [ -x "$node_bin/node" ] || { echo "install-code-server: no node in $node_bin" >&2; exit 1; }
  (cd "$home/app" && PATH="$node_bin:$PATH" npm install --silent --no-audit --no-fund "code-server@$version" >&2)
  printf '#!/usr/bin/env bash\nexport PATH="%s:$PATH"\nexec "%s" "$@"\n' \
    "$node_bin" "$home/app/node_modules/.bin/code-server" > "$launcher.tmp"
  chmod +x "$launcher.tmp"
  mv "$launcher.tmp" "$launcher"
fi
echo "$launcher"
