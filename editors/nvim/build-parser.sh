#!/usr/bin/env bash
# Compiles the tree-sitter grammar (grammar/src) into a Neovim parser,
# editors/nvim/parser/ptx.so, beside the queries in queries/ptx: with this
# folder on 'runtimepath', Neovim finds both (`vim.treesitter.start()` in a
# ptx buffer, or `vim.treesitter.language.add('ptx')`).
#   bash editors/nvim/build-parser.sh [OUTPUT.so]
# Needs a C compiler (`cc`, or $CC). Prints the path of the parser.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src="$here/../../grammar/src"
out=${1:-$here/parser/ptx.so}
mkdir -p "$(dirname "$out")"
sources=("$src/parser.c")
[ -f "$src/scanner.c" ] && sources+=("$src/scanner.c")
case "$(uname -s)" in
  Darwin) shared=(-dynamiclib -undefined dynamic_lookup) ;;
  *) shared=(-shared) ;;
esac
"${CC:-cc}" -O2 -fPIC -std=c11 -I "$src" "${shared[@]}" -o "$out" "${sources[@]}"
echo "$out"
