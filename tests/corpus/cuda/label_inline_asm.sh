#!/usr/bin/env bash
# Labels inline_asm_cases.cu with nvcc's verdicts: each case (the prelude plus one kernel) is
# compiled alone to a cubin for sm_80, sm_90a and sm_100a.
# usage: label_inline_asm.sh CASES.cu OUT.tsv   (needs nvcc; runs the compiles in parallel)
# Output columns: case, then `ok` or `error` per target.
set -u
cases=$1 out=$2
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
work=$(mktemp -d)
awk -v dir="$work" '
  /^\/\/ case / { name = $3; file = dir "/" name ".cu"; print prelude > file; next }
  name == "" { prelude = prelude $0 "\n"; next }
  { print >> file }
' "$cases"
compile() { # case
  local c=$1 line="$1"
  for a in sm_80 sm_90a sm_100a; do
    if "$nvcc" -arch=$a -cubin -o /dev/null "$c.cu" >"$c.$a.log" 2>&1; then line="$line	ok"; else line="$line	error"; fi
  done
  echo "$line"
}
export -f compile; export nvcc
(cd "$work" && ls *.cu | sed 's/\.cu$//' | xargs -P "$(nproc)" -I{} bash -c 'compile {}') | LC_ALL=C sort > "$out"
# The first error message of each failing compile, for reading mismatches.
(cd "$work" && grep -m1 -h -i "error" *.log /dev/null | cut -c1-200 | sort | uniq -c | sort -rn | head -50) > "${out%.tsv}.errors.txt"
(cd "$work" && for f in *.log; do m=$(grep -m1 -i "error" "$f" | cut -c1-160); [ -n "$m" ] && echo "${f%.log}	$m"; done) | LC_ALL=C sort > "${out%.tsv}.messages.tsv"
