#!/usr/bin/env bash
# Prints the path of NVIDIA's ptxas, installing it first when it is not cached (see
# install-cuda-tool.sh: ptxas comes out of the PyPI wheel nvidia-cuda-nvcc).
#   ${PTXAS_HOME:-~/.cache/ptxas/VERSION}
# Usage:  PTXAS=$(tools/install-ptxas.sh)        (PTXAS_VERSION picks another release)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version=${PTXAS_VERSION:-13.5.37}
CUDA_TOOL_VERSION=$version \
  CUDA_TOOL_HOME=${PTXAS_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/ptxas/$version} \
  exec "$here/install-cuda-tool.sh" ptxas
