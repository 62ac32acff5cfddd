#!/usr/bin/env bash
# Prints the path of NVIDIA's ptxas, installing it first when it is not cached.
# ptxas comes out of the PyPI wheel nvidia-cuda-nvcc (no GPU, no CUDA toolkit needed):
# the wheel is downloaded with pip, only bin/ptxas is taken out of it, and it is kept in
#   ${PTXAS_HOME:-~/.cache/ptxas/VERSION}
# Usage:  PTXAS=$(tools/install-ptxas.sh)        (PTXAS_VERSION picks another release)
set -euo pipefail
version=${PTXAS_VERSION:-13.5.37}
home=${PTXAS_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/ptxas/$version}
find_bin() { find "$home" -type f -name ptxas -perm -u+x 2>/dev/null | head -n 1; }
bin=$(find_bin)
if [ -z "$bin" ]; then
  echo "installing ptxas $version (PyPI: nvidia-cuda-nvcc) into $home" >&2
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  python3 -m pip download --quiet --no-deps --only-binary=:all: \
    --dest "$tmp" "nvidia-cuda-nvcc==$version" >&2
  mkdir -p "$home"
  python3 - "$home" "$tmp"/*.whl <<'PY'
import os, sys, zipfile
home, wheels = sys.argv[1], sys.argv[2:]
found = False
for wheel in wheels:
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.endswith("/bin/ptxas"):
                path = z.extract(name, home)
                os.chmod(path, 0o755)
                found = True
if not found:
    sys.exit("no bin/ptxas in " + " ".join(wheels))
PY
  bin=$(find_bin)
fi
[ -n "$bin" ] || { echo "install-ptxas: ptxas not found under $home" >&2; exit 1; }
echo "$bin"
