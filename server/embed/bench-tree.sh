#!/usr/bin/env bash
# The figures of "check of a CUDA C++ tree" in server/embed/BENCHMARKS.md: `ptx-lsp check` (release
# build, every core) over the files of a tree that hold inline asm, e.g. a checkout of a CUDA
# library (CUTLASS's `include/`, CCCL). Prints the files and bytes checked, the wall time, the CPU
# time (user + system) and the peak RSS of each run (best / median / worst), and the files that
# take longest when checked alone (CPU time, one run each).
# CPU time is printed beside the wall time: on a machine shared with other jobs the wall time
# measures the load as much as the program, and CPU time / cores is the wall time the program
# would take alone if its threads kept every core busy.
# Usage: nice -n 10 server/embed/bench-tree.sh TREE [RUNS] [TOP]   (RUNS defaults to 5, TOP to 8;
# PTX_LSP=BINARY measures that binary instead of building the release one)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
tree="$(realpath "$1")"
runs="${2:-5}"
top="${3:-8}"
cd "$root"
if [ -n "${PTX_LSP:-}" ]; then
  bin="$(realpath "$PTX_LSP")"
else
  cargo build -q --release -p ptx-lsp
  bin="$(realpath "${CARGO_TARGET_DIR:-target}/release/ptx-lsp")"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(grep -rlE '\basm\b|__asm__' "$tree" --include='*.h' --include='*.hpp' --include='*.cuh' \
  --include='*.cu' --include='*.cpp' --include='*.cc' --include='*.inl' --include='*.inc' \
  --include='*.impl' || true) | LC_ALL=C sort > "$tmp/files"
files=$(wc -l < "$tmp/files")
[ "$files" -gt 0 ] || { echo "no file with inline asm under $tree"; exit 1; }
bytes=$(xargs cat < "$tmp/files" | wc -c)
echo "tree: $tree: $files files with inline asm, $(awk "BEGIN { printf \"%.2f MB\", $bytes / 1e6 }")"
echo "cores: $(nproc); load before: $(uptime | sed 's/.*load average: //')"
"$bin" check $(cat "$tmp/files") > "$tmp/report.txt" 2>&1 || true
echo "report: $(tail -n 1 "$tmp/report.txt")"
walls=()
cpus=()
rss=0
for _ in $(seq "$runs"); do
  /usr/bin/time -o "$tmp/time" -f "%e %U %S %M" "$bin" check $(cat "$tmp/files") > /dev/null 2>&1 || true
  read -r wall user sys mem < <(tail -n 1 "$tmp/time")
  walls+=("$wall")
  cpus+=("$(awk "BEGIN { printf \"%.2f\", $user + $sys }")")
  [ "$mem" -gt "$rss" ] && rss="$mem"
done
summary() { # best, median and worst of the numbers given
  printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { printf "%.2f / %.2f / %.2f s", v[1], v[int((NR + 1) / 2)], v[NR] }'
}
echo "wall (best / median / worst): $(summary "${walls[@]}")"
echo "CPU, user + system (best / median / worst): $(summary "${cpus[@]}")"
echo "peak RSS: $((rss / 1024)) MB"
echo "load after: $(uptime | sed 's/.*load average: //')"
echo "slowest files alone (CPU s, MB, file):"
while IFS= read -r f; do
  /usr/bin/time -o "$tmp/time" -f "%U %S" "$bin" check "$f" > /dev/null 2>&1 || true
  read -r user sys < <(tail -n 1 "$tmp/time")
  printf '%.2f %.2f %s\n' "$(awk "BEGIN { print $user + $sys }")" "$(awk "BEGIN { print $(stat -c %s "$f") / 1e6 }")" "${f#"$tree"/}"
done < "$tmp/files" | sort -rn | head -n "$top" | sed 's/^/  /'
echo "load at the end: $(uptime | sed 's/.*load average: //')"
