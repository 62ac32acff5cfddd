#!/usr/bin/env bash
# Runs the VS Code end-to-end test (test/e2e/vscode.e2e.js): installs what it
# needs — Debian's chromium, the headers code-server's native modules build
# against (libkrb5-dev, libxkbfile-dev), code-server itself through
# tools/install-code-server.sh (cached under ~/.cache), the npm
# packages — packages the linux-x64 .vsix with a ptx-lsp binary inside, and
# runs the test. Anything that cannot be installed is an error, never a skip.
#   PTX_LSP_BINARY=target/debug/ptx-lsp bash editors/vscode/scripts/e2e.sh
# Without PTX_LSP_BINARY the .vsix gets a release build. Screenshots and the
# code-server log go to target/vscode-e2e (E2E_ARTIFACTS).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(cd ../.. && pwd)

# Debian's chromium; the headers code-server's native modules build against when
# code-server is not installed yet.
bash "$repo/tools/install-debian.sh" chromium libkrb5-dev libxkbfile-dev
code_server=$(bash "$repo/tools/install-code-server.sh")
[ -d node_modules ] || npm ci --no-audit --no-fund >/dev/null
if [ -n "${PTX_LSP_BINARY:-}" ]; then
  case "$PTX_LSP_BINARY" in /*) ;; *) PTX_LSP_BINARY="$repo/$PTX_LSP_BINARY" ;; esac
  export PTX_LSP_BINARY
fi
vsix=$(bash scripts/package-platform.sh linux-x64)
PTX_VSIX="$vsix" CODE_SERVER="$code_server" CHROMIUM="$(command -v chromium)" node test/e2e/vscode.e2e.js
