#!/usr/bin/env bash
# Runs every test of the project that needs nothing but the repository: the Rust
# workspace (unit, snapshot, corpus and end-to-end tests), the tree-sitter grammar's own
# tests and the editor clients' tests. The tools those need are installed by the scripts
# in tools/ when they are missing (tree-sitter CLI into ~/.cargo/bin; NVIDIA's ptxas,
# nvdisasm and cuobjdump from PyPI, Neovim, nvim-dap (a git clone) and
# code-server into ~/.cache; Debian's chromium, emacs and elpa-eglot with apt-get).
# The tests that compare the project with a copy of the PTX ISA document are not part of
# this run: tests/spec-tests.sh runs them, given the document's folder in PTX_ISA_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."

tree_sitter=$(bash tools/install-tree-sitter.sh)
echo "== grammar: tree-sitter test"
(cd grammar && "$tree_sitter" test)

echo "== NVIDIA's ptxas, nvdisasm and cuobjdump from PyPI (into ~/.cache), for the compiler view's tests"
for tool in ptxas nvdisasm cuobjdump; do
  bash tools/install-cuda-tool.sh "$tool" >/dev/null
done

echo "== cargo test --workspace"
cargo test --workspace

# The editor clients, against the server binary that `cargo test` built.
server="${CARGO_TARGET_DIR:-target}/debug/ptx-lsp"
cargo build -q -p ptx-lsp

echo "== inline asm of real CUDA headers (downloaded from PyPI into ~/.cache)"
bash tests/real-headers.sh "$server"

echo "== editors/nvim: tree-sitter parser, headless client test and the debug adapter from Neovim and nvim-dap"
# No skip: a missing Neovim or C compiler fails the run.
nvim_bin=$(bash tools/install-nvim.sh)
bash editors/nvim/build-parser.sh >/dev/null
PTX_LSP_PATH="$server" "$nvim_bin" --headless -u NONE -l editors/nvim/test/test.lua
PTX_LSP_PATH="$server" "$nvim_bin" --headless -u NONE -l editors/nvim/test/dap.lua
nvim_dap=$(bash tools/install-nvim-dap.sh)
PTX_LSP_PATH="$server" NVIM_DAP="$nvim_dap" "$nvim_bin" --headless -u NONE -l editors/nvim/test/nvim_dap.lua

echo "== editors/emacs: Eglot client test (Debian's emacs and elpa-eglot)"
bash tools/install-debian.sh emacs-nox elpa-eglot
PTX_LSP_PATH="$(realpath "$server")" emacs --batch -Q -l editors/emacs/test/test.el

echo "== editors/vscode: type-check, bundle, unit and TextMate grammar tests"
command -v npm >/dev/null 2>&1 || { echo "npm is missing: install Node.js 18+ (see editors/vscode/README.md)" >&2; exit 1; }
(cd editors/vscode && npm ci --no-audit --no-fund --prefer-offline >/dev/null)
(cd editors/vscode && npm run -s check && npm run -s build >/dev/null && npm test -s)

echo "== editors/vscode: end-to-end test in a real VS Code (code-server, headless Chromium)"
PTX_LSP_BINARY="$server" bash editors/vscode/scripts/e2e.sh

echo "== tests/run-all.sh: every test passed in ${SECONDS} s"
