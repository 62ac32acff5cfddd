#!/usr/bin/env bash
# A second, held-back set of real-world PTX: sources and architectures the
# committed corpus does not use. usage: tests/corpus/gen/validate_more.sh OUTDIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: validate_more.sh OUTDIR}
mkdir -p "$out/nvcc" "$out/triton" "$out/logs"
compile() { # name src arch extra...
  local name=$1 src=$2 arch=$3; shift 3
  if nvcc -std=c++17 -ptx -arch="$arch" "$@" "$here/$src" -o "$out/nvcc/$name.ptx" >"$out/logs/$name.log" 2>&1; then
    echo "ok   $name ($(wc -c <"$out/nvcc/$name.ptx") bytes)"
  else
    echo "FAIL $name"; head -20 "$out/logs/$name.log"
  fi
}
for arch in sm_75 sm_86 sm_89 sm_90 sm_90a sm_100a sm_120a; do
  compile "cuda_features_$arch" cuda_features.cu "$arch" -rdc=true &
done
compile cuda_features_sm_90_G cuda_features.cu sm_90 -G -rdc=true &
compile cub_algorithms_sm_89_lineinfo cub_algorithms.cu sm_89 -lineinfo &
compile cub_algorithms_sm_120a cub_algorithms.cu sm_120a &
compile thrust_more_sm_86 thrust_more.cu sm_86 &
compile blackwell_asm_sm_100f blackwell_asm.cu sm_100f &
compile cccl_ptx_tcgen05_sm_103a cccl_ptx_tcgen05.cu sm_103a &
compile hopper_asm_sm_90a_lineinfo hopper_asm.cu sm_90a -lineinfo &
wait
python3 "$here/triton_validate.py" "$out/triton" >"$out/logs/triton.log" 2>&1; tail -30 "$out/logs/triton.log"
ls -la "$out/nvcc" "$out/triton"
