#!/usr/bin/env bash
# Copies the grammar's queries (grammar/queries/*.scm) into queries/ptx/ for
# Neovim. One change is made on the way: `#match?` regexes are Rust regexes
# for the tree-sitter CLI but Vim regexes in Neovim, where `(a|b)` is not a
# group and `%(` starts one. The special-register regexes ("^%(tid|...)$")
# become very-magic Vim regexes ("\v^\%(tid|...)$") with the same meaning.
# test/test.lua fails when the copies are out of date.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
for file in "$here"/../../grammar/queries/*.scm; do
  sed 's/"^%(/"\\\\v^\\\\%(/g' "$file" > "$here/queries/ptx/$(basename "$file")"
done
