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
