-- The ptx-lsp language server for Neovim 0.11+ (`vim.lsp.config`).
--
-- Put this folder (editors/nvim) on 'runtimepath' and call
--   vim.lsp.enable('ptx_lsp')
-- The binary is `ptx-lsp` on PATH, or the one named by $PTX_LSP_PATH.
-- Settings (all optional) go in `settings.ptx` / `init_options`:
--   target = 'sm_100a', version = '8.7',
--   diagnostics = { enable = true, disabled = { 'qualifier-order' } },
--   docs = { indexPath = '~/.cache/ptx-lsp' }, inlayHints = { registerCounts = true }
---@type vim.lsp.Config
return {
  cmd = { vim.env.PTX_LSP_PATH or 'ptx-lsp', 'serve' },
  filetypes = { 'ptx' },
  root_markers = { '.git' },
  init_options = {},
  settings = { ptx = {} },
}
