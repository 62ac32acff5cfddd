#!/usr/bin/env bash
# The ptxas verdicts on the mutations that `asm_stats --mutate --emit DIR` wrote: per kind of
# mutation, how many of the missed ones ptxas rejects (true misses) or accepts (no mistake:
# a legal form), and how many of the sampled caught ones it rejects (right) or accepts (a
# false alarm of this tool). Each module is assembled for the target on its `.target` line.
# A mutation whose unchanged statement (original-N.ptx) ptxas rejects is not judged.
# Usage: server/embed/mutation-oracle.sh DIR [PTXAS]   (PTXAS defaults to $PTXAS, then
# `ptxas` on the PATH). Lists the true misses and false alarms after the table.
set -euo pipefail
dir="$1"
ptxas="${2:-${PTXAS:-ptxas}}"
command -v "$ptxas" > /dev/null || { echo "no ptxas: give its path as the second argument"; exit 1; }
printf '%-28s %8s %8s %8s %8s %8s\n' kind missed-rej missed-acc caught-rej caught-acc unjudged
notes=$(mktemp)
trap 'rm -f "$notes"' EXIT
for kind in "$dir"/*/; do
  name=$(basename "$kind")
  mr=0 ma=0 cr=0 ca=0 un=0
  for f in "$kind"missed-*.ptx "$kind"caught-*.ptx; do
    [ -e "$f" ] || continue
    arch=$(grep -m1 -oE '^\.target[[:space:]]+[a-z0-9_]+' "$f" | awk '{ print $2 }')
    original="$kind/original-$(basename "$f" | sed 's/^[a-z]*-//')"
    if [ -e "$original" ] && ! "$ptxas" -arch="${arch:-sm_90a}" "$original" -o /dev/null > /dev/null 2>&1; then
      un=$((un + 1))
      continue
    fi
    if "$ptxas" -arch="${arch:-sm_90a}" "$f" -o /dev/null > /dev/null 2>&1; then ok=1; else ok=0; fi
    case "$(basename "$f")" in
      missed-*) if [ $ok = 0 ]; then mr=$((mr + 1)); echo "miss ($name): $(head -n 1 "$f") $f" >> "$notes"; else ma=$((ma + 1)); fi ;;
      caught-*) if [ $ok = 0 ]; then cr=$((cr + 1)); else ca=$((ca + 1)); echo "false alarm ($name): $(head -n 1 "$f") $f" >> "$notes"; fi ;;
    esac
  done
  printf '%-28s %8d %8d %8d %8d %8d\n' "$name" "$mr" "$ma" "$cr" "$ca" "$un"
done
cat "$notes"
