#!/usr/bin/env bash
# Inline asm of real CUDA headers: NVIDIA's CUDA 12.9 runtime and CCCL headers, taken from
# their PyPI wheels (downloaded once into ~/.cache; nothing of them is kept in the project),
# checked with `ptx-lsp check` with no target and for sm_90a and sm_100a. nvcc compiles
# these headers, so every error is a false error, except in one file whose templates nvcc
# never instantiates and ptxas rejects too (`ld….b128 [a], r` with its operands swapped in
# cuda/std/__atomic/functions/cuda_ptx_generated.h). Fails on any other error.
# Usage: tests/real-headers.sh PTX_LSP_BINARY
set -euo pipefail
bin="$(realpath "$1")"
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
mapfile -t files < <(grep -rlE '\basm\b|__asm__' "$cache/include" --include='*.h' --include='*.hpp' --include='*.cuh' | sort)
echo "real headers: ${#files[@]} files with inline asm"
[ "${#files[@]}" -gt 50 ] || { echo "expected more than 50 headers with asm"; exit 1; }
status=0
for target in none sm_90a sm_100a; do
  args=()
  [ "$target" = none ] || args=(--target "$target")
  "$bin" check --format json "${args[@]}" "${files[@]}" > "$cache/report-$target.json" || true
  python3 - "$cache/report-$target.json" "$target" <<'PY' || status=1
import json, sys
from collections import Counter
report = json.load(open(sys.argv[1]))
errors = [d for d in report if d["severity"] == "error"]
allowed = "cuda/std/__atomic/functions/cuda_ptx_generated.h"
unexpected = [d for d in errors if not d["file"].endswith(allowed)]
by_file = Counter(d["file"].split("/include/", 1)[-1] for d in errors)
print(f"target {sys.argv[2]}: {len(errors)} errors, "
      f"{len(errors) - len(unexpected)} in {allowed}, {len(unexpected)} elsewhere")
for d in unexpected[:40]:
    print(f"  {d['file']}:{d['line']}:{d['column']}: {d['code']} {d['message']}")
sys.exit(1 if unexpected else 0)
PY
done
exit "$status"
