#!/usr/bin/env bash
# The figures of server/check/BENCHMARKS.md for every corpus file over 1 MB (tests/corpus and the
# real-code subset, server/check/fixtures/realcode/ptx, unpacked into a temporary folder):
#  1. wall time (best of N) and peak memory of `ptx-lsp check` against ptxas's parse-only
#     run (`ptxas -arch=compute_XX FILE -o /dev/null`, XX from the file's `.target`);
#  2. with valgrind installed, instructions executed (callgrind) by the parse and by the
#     checker pass, on one core (the sequential path, whose instruction counts are the work
#     done; the parallel path does the same work split between threads).
# Usage: server/check/bench.sh [RUNS]   (RUNS defaults to 7; note the machine's load)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
runs="${1:-7}"
cargo build -q --release -p ptx-lsp
bin="${CARGO_TARGET_DIR:-target}/release/ptx-lsp"
ptxas="$("$root/tools/install-ptxas.sh")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/realcode"
for gz in server/check/fixtures/realcode/ptx/*.ptx.gz; do
  gzip -dc "$gz" > "$tmp/realcode/$(basename "$gz" .gz)"
done
files=$( (find tests/corpus -name '*.ptx' -size +1M; find "$tmp/realcode" -name '*.ptx' -size +1M) | sort)
echo "cores: $(nproc); load: $(uptime | sed 's/.*load average: //')"
echo
echo "| file | size | \`ptx-lsp check\` best / median of $runs | peak RSS | \`ptxas -arch=compute_XX\` best / median | peak RSS |"
echo "| --- | --- | --- | --- | --- | --- |"
# best and median seconds, and the largest RSS, of `runs` runs of a command.
measure() {
  local times=() rss=0 out
  for _ in $(seq "$runs"); do
    /usr/bin/time -o "$tmp/time" -f "%e %M" "$@" > /dev/null 2>&1 || true
    out=$(tail -n 1 "$tmp/time")
    times+=("${out% *}")
    [ "${out#* }" -gt "$rss" ] && rss="${out#* }"
  done
  local sorted
  sorted=$(printf '%s\n' "${times[@]}" | sort -n)
  echo "$(echo "$sorted" | head -n 1) / $(echo "$sorted" | sed -n "$(( (runs + 1) / 2 ))p") s|$(( rss / 1024 )) MB"
}
for f in $files; do
  size=$(awk "BEGIN { printf \"%.2f MB\", $(stat -c %s "$f") / 1e6 }")
  ours=$(measure "$bin" check "$f")
  arch=$(sed -n 's/^\.target \(sm_[0-9a-z]*\).*/\1/p' "$f" | head -n 1)
  theirs=$(measure "$ptxas" -arch="compute_${arch#sm_}" "$f" -o /dev/null)
  echo "| ${f#"$tmp/"} | $size | ${ours%|*} | ${ours#*|} | ${theirs%|*} | ${theirs#*|} |"
done
if ! command -v valgrind > /dev/null; then
  echo
  echo "valgrind is not installed: no instruction counts"
  exit 0
fi
echo
echo "| file | \`ptx-lsp check\` total | parse (tree-sitter) | checker pass | of which loading the ISA knowledge base | checker / parse |"
echo "| --- | --- | --- | --- | --- | --- |"
inclusive() { # the inclusive count of the first function matching $2 in profile $1
  callgrind_annotate --inclusive=yes "$1" 2>/dev/null | grep -m1 -E "$2" | awk '{ gsub(",", "", $1); print $1 }' || true
}
for f in $files; do
  taskset -c 0 valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$bin" check "$f" > /dev/null 2>&1 || true
  total=$(inclusive "$tmp/cg" 'PROGRAM TOTALS')
  parse=$(inclusive "$tmp/cg" 'ts_parser_parse_with_options')
  check=$(inclusive "$tmp/cg" 'ptx_check::check \[')
  isa=$(inclusive "$tmp/cg" 'ptx_isa::Isa::load \[')
  isa=${isa:-0} # inlined into its caller in some builds
  m() { awk "BEGIN { printf \"%.0f M\", $1 / 1e6 }"; }
  ratio=$(awk "BEGIN { printf \"%.1f %% (%.1f %% without the knowledge base)\", 100 * $check / $parse, 100 * ($check - $isa) / $parse }")
  echo "| ${f#"$tmp/"} | $(m "$total") | $(m "$parse") | $(m "$check") | $(m "$isa") | $ratio |"
done
