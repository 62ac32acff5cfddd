#!/usr/bin/env bash
# The figures of "check of a repository" in server/ptx-lsp/BENCHMARKS.md: the wall time and
# peak memory of `ptx-lsp check .` (release build, every core) in a 10 MB tree of mixed PTX
# and CUDA/C++ files:
#  - every PTX and CUDA file of tests/corpus (about 5.6 MB), in their folders;
#  - NVIDIA's CUDA runtime and CCCL headers from their PyPI wheels (fetched and cached as
#    tests/real-headers.sh does), in path order, until the tree holds 10 MB.
# The tree is a plain folder (no .git); it has no .gitignore, so every file is walked.
# CPU time (user + system) is printed beside the wall time: on a machine shared with other
# jobs the wall time measures the load as much as the program, and CPU time / cores is the wall
# time the program would take alone if its threads kept every core busy.
# Usage: nice -n 10 server/ptx-lsp/bench-repo.sh [RUNS]   (RUNS defaults to 10; the runs take
# the niceness of the script; note the machine's load)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
runs="${1:-10}"
target_bytes=$((10 * 1000 * 1000))
cargo build -q --release -p ptx-lsp
bin="$(realpath "${CARGO_TARGET_DIR:-target}/release/ptx-lsp")"

cache="${XDG_CACHE_HOME:-$HOME/.cache}/ptx-lsp/real-headers"
mkdir -p "$cache/wheels"
for spec in nvidia-cuda-cccl-cu12==12.9.27 nvidia-cuda-runtime-cu12==12.9.79; do
  name="${spec%%==*}"
  if ! ls "$cache/wheels/${name//-/_}-"*.whl > /dev/null 2>&1; then
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.11 \
      --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
      -d "$cache/wheels" "$spec"
  fi
done
if [ ! -d "$cache/include" ]; then
  rm -rf "$cache/unpacked"
  mkdir -p "$cache/unpacked"
  for w in "$cache"/wheels/*.whl; do
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$w" "$cache/unpacked"
  done
  mv "$cache/unpacked" "$cache/include"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tree="$tmp/repo"
mkdir -p "$tree"
total=0
add() { # add FILE DEST: copy a file into the tree and count its bytes
  mkdir -p "$(dirname "$2")"
  cp "$1" "$2"
  total=$((total + $(stat -c %s "$1")))
}
while IFS= read -r f; do
  add "$f" "$tree/corpus/${f#tests/corpus/}"
done < <(find tests/corpus -type f \( -name '*.ptx' -o -name '*.cu' \) | sort)
ptx_bytes=$total
headers=0
while IFS= read -r f; do
  [ "$total" -ge "$target_bytes" ] && break
  add "$f" "$tree/include/${f#"$cache/include/"}"
  headers=$((headers + 1))
done < <(find "$cache/include" -type f \( -name '*.h' -o -name '*.hpp' -o -name '*.cuh' -o -name '*.inl' \) | LC_ALL=C sort)
with_asm=$( (grep -rlE '\basm\b|__asm__' "$tree/include" || true) | wc -l)
files=$(find "$tree" -type f | wc -l)

echo "tree: $files files, $(awk "BEGIN { printf \"%.2f MB\", $total / 1e6 }") ($(awk "BEGIN { printf \"%.2f MB\", $ptx_bytes / 1e6 }") of corpus PTX and CUDA files; $headers CUDA headers, $with_asm of them with inline asm)"
echo "cores: $(nproc); load before: $(uptime | sed 's/.*load average: //')"
(cd "$tree" && "$bin" check . > "$tmp/report.txt" 2>&1) || true
echo "report: $(tail -n 1 "$tmp/report.txt")"

times=()
cpus=()
rss=0
for _ in $(seq "$runs"); do
  (cd "$tree" && /usr/bin/time -o "$tmp/time" -f "%e %U %S %M" "$bin" check . > /dev/null 2>&1) || true
  read -r wall user sys mem < <(tail -n 1 "$tmp/time")
  times+=("$wall")
  cpus+=("$(awk "BEGIN { printf \"%.2f\", $user + $sys }")")
  [ "$mem" -gt "$rss" ] && rss="$mem"
done
summary() { # best, median and worst of the numbers given
  local sorted
  sorted=$(printf '%s\n' "$@" | sort -n)
  echo "best $(echo "$sorted" | head -n 1) s, median $(echo "$sorted" | sed -n "$(( ($# + 1) / 2 ))p") s, worst $(echo "$sorted" | tail -n 1) s"
}
echo "\`ptx-lsp check .\`, $runs runs: wall $(summary "${times[@]}"); CPU (user + system) $(summary "${cpus[@]}"); peak RSS $((rss / 1024)) MB"
echo "load after: $(uptime | sed 's/.*load average: //')"
