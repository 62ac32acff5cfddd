#!/usr/bin/env bash
# Installs the Debian packages named on the command line that are not installed yet
# (chromium for the VS Code end-to-end test, emacs + elpa-eglot for the Emacs client test,
# the -dev headers code-server builds against), with apt-get as root or through sudo.
# Usage:  tools/install-debian.sh chromium libkrb5-dev
set -euo pipefail
missing=()
for pkg in "$@"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ]; then
  apt_get=(apt-get)
elif command -v sudo >/dev/null 2>&1; then
  apt_get=(sudo apt-get)
else
  echo "install-debian: ${missing[*]} missing and no root to install them" >&2
  exit 1
fi
echo "installing Debian packages: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${apt_get[@]}" install -y -q --no-install-recommends "${missing[@]}" >&2 ||
  { "${apt_get[@]}" update -q >&2 && "${apt_get[@]}" install -y -q --no-install-recommends "${missing[@]}" >&2; }
