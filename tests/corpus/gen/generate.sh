#!/usr/bin/env bash
# Regenerates the real-world PTX corpus with a CUDA 13 toolkit and Triton.
# usage: tests/corpus/gen/generate.sh OUTDIR
# Each source is compiled independently; a failure is logged and skipped.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: generate.sh OUTDIR}
mkdir -p "$out/nvcc" "$out/triton" "$out/logs"
nvcc --version | tail -2
compile() { # name src arch extra...
  local name=$1 src=$2 arch=$3; shift 3
  if nvcc -std=c++17 -ptx -arch="$arch" "$@" "$here/$src" -o "$out/nvcc/$name.ptx" >"$out/logs/$name.log" 2>&1; then
    echo "ok   $name ($(wc -c <"$out/nvcc/$name.ptx") bytes)"
  else
    echo "FAIL $name"; head -20 "$out/logs/$name.log"
  fi
}
for arch in sm_80 sm_90a sm_100a; do
  compile "thrust_more_$arch" thrust_more.cu "$arch" &
  compile "cub_algorithms_$arch" cub_algorithms.cu "$arch" &
  compile "device_intrinsics_$arch" device_intrinsics.cu "$arch" -rdc=true &
done
compile device_intrinsics_sm_80_debug device_intrinsics.cu sm_80 -G -rdc=true &
compile device_intrinsics_sm_90a_lineinfo device_intrinsics.cu sm_90a -lineinfo -O3 -rdc=true &
compile hopper_asm_sm_90a hopper_asm.cu sm_90a &
compile hopper_asm_sm_90a_debug hopper_asm.cu sm_90a -G &
compile blackwell_asm_sm_100a blackwell_asm.cu sm_100a &
compile cccl_ptx_mbarrier_sm_90a cccl_ptx_mbarrier.cu sm_90a &
compile cccl_ptx_mbarrier_sm_100a cccl_ptx_mbarrier.cu sm_100a -lineinfo &
compile cccl_ptx_tcgen05_sm_100a cccl_ptx_tcgen05.cu sm_100a &
wait
python3 "$here/triton_kernels.py" "$out/triton" >"$out/logs/triton.log" 2>&1; tail -30 "$out/logs/triton.log"
python3 "$here/triton_more.py" "$out/triton" >"$out/logs/triton_more.log" 2>&1; tail -30 "$out/logs/triton_more.log"
ls -la "$out/nvcc" "$out/triton"
