#!/usr/bin/env bash
# Runs every test of the project: the Rust workspace (unit, snapshot,
# corpus and end-to-end tests) and the tree-sitter grammar's own tests.
# Installs the tree-sitter CLI (into ~/.cargo/bin) when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

TS_VERSION=0.27.1
if ! command -v tree-sitter >/dev/null 2>&1 || ! tree-sitter --version | grep -q "$TS_VERSION"; then
  echo "installing tree-sitter-cli $TS_VERSION"
  cargo install tree-sitter-cli --locked --version "$TS_VERSION"
fi

echo "== grammar: tree-sitter test"
(cd grammar && tree-sitter test)

echo "== cargo test --workspace"
cargo test --workspace

# The editor clients, against the server binary that `cargo test` built.
server="${CARGO_TARGET_DIR:-target}/debug/ptx-lsp"
cargo build -q -p ptx-lsp

echo "== inline asm of real CUDA headers (downloaded from PyPI into ~/.cache)"
bash tests/real-headers.sh "$server"

echo "== editors/nvim: tree-sitter parser and headless client test"
# No skip: a missing Neovim or C compiler fails the run.
nvim_bin=$(../shared/tools/install-nvim.sh)
bash editors/nvim/build-parser.sh >/dev/null
PTX_LSP_PATH="$server" "$nvim_bin" --headless -u NONE -l editors/nvim/test/test.lua

echo "== editors/vscode: type-check, bundle, unit and TextMate grammar tests"
command -v npm >/dev/null 2>&1 || { echo "npm is missing: install Node.js 18+ (see editors/vscode/README.md)" >&2; exit 1; }
(cd editors/vscode && npm ci --no-audit --no-fund --prefer-offline >/dev/null)
(cd editors/vscode && npm run -s check && npm run -s build >/dev/null && npm test -s)

echo "== editors/vscode: end-to-end test in a real VS Code (code-server, headless Chromium)"
PTX_LSP_BINARY="$server" bash editors/vscode/scripts/e2e.sh
