#!/usr/bin/env bash
# Prints the path of nvim-dap (mfussenegger/nvim-dap) at a pinned commit, cloning it into
# ${NVIM_DAP_HOME:-~/.cache/nvim-dap}/<commit> when it is not cached. The clone comes from
# GitHub unless NVIM_DAP_REPO names another git repository (a local mirror, for machines
# without network).
# Usage:  DAP=$(tools/install-nvim-dap.sh); nvim --headless -u NONE --cmd "set rtp+=$DAP" ...
set -euo pipefail
commit=9e848e09a697ee95302a3ef2dd43fd6eb709e570
repo=${NVIM_DAP_REPO:-https://github.com/mfussenegger/nvim-dap}
home=${NVIM_DAP_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/nvim-dap}
dir="$home/$commit"
if [ ! -f "$dir/lua/dap.lua" ]; then
  echo "installing nvim-dap $commit from $repo into $dir" >&2
  rm -rf "$dir.tmp"
  mkdir -p "$home"
  git init --quiet "$dir.tmp"
  git -C "$dir.tmp" fetch --quiet --depth 1 "$repo" "$commit" >&2 \
    || git -C "$dir.tmp" fetch --quiet "$repo" >&2
  git -C "$dir.tmp" -c advice.detachedHead=false checkout --quiet "$commit" >&2
  rm -rf "$dir"
  mv "$dir.tmp" "$dir"
fi
[ "$(git -C "$dir" rev-parse HEAD)" = "$commit" ] \
  || { echo "install-nvim-dap: $dir is not at $commit" >&2; exit 1; }
echo "$dir"
