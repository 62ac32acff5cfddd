#!/usr/bin/env bash
# Prints the path of the tree-sitter CLI at the version the committed parser was generated
# with, installing it from crates.io (cargo install, into ~/.cargo/bin) when it is missing.
# Usage:  TS=$(tools/install-tree-sitter.sh); (cd grammar && "$TS" test)
set -euo pipefail
version=0.27.1
bin=$(command -v tree-sitter || true)
[ -n "$bin" ] || bin="${CARGO_HOME:-$HOME/.cargo}/bin/tree-sitter"
if [ ! -x "$bin" ] || ! "$bin" --version | grep -q " $version"; then
  echo "installing tree-sitter-cli $version (cargo install)" >&2
  cargo install --quiet --locked tree-sitter-cli --version "$version" >&2
  bin="${CARGO_HOME:-$HOME/.cargo}/bin/tree-sitter"
fi
echo "$bin"
