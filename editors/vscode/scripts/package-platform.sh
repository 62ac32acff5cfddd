#!/usr/bin/env bash
# Builds a platform-specific .vsix with the release ptx-lsp binary inside
# (server/ptx-lsp), which the extension uses when neither PTX_LSP_PATH nor
# ptx.server.path is set.
#   bash scripts/package-platform.sh [VSCODE-TARGET]   (default: linux-x64)
# PTX_LSP_BINARY=path uses a binary built elsewhere instead of
# `cargo build --release -p ptx-lsp`. Prints the path of the .vsix.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:-linux-x64}
case "$target" in
  win32-*) exe=ptx-lsp.exe ;;
  *) exe=ptx-lsp ;;
esac
binary=${PTX_LSP_BINARY:-}
if [ -z "$binary" ]; then
  (cd ../.. && cargo build --release -q -p ptx-lsp >&2)
  binary="${CARGO_TARGET_DIR:-../../target}/release/$exe"
fi
[ -x "$binary" ] || { echo "no ptx-lsp binary at $binary" >&2; exit 1; }
rm -rf server && mkdir server
cp "$binary" "server/$exe"
strip "server/$exe" 2>/dev/null || true
[ -d node_modules ] || npm ci --no-audit --no-fund >&2
version=$(node -p 'require("./package.json").version')
out="ptx-lsp-$target-$version.vsix"
npx vsce package --target "$target" --out "$out" >&2
echo "$PWD/$out"
