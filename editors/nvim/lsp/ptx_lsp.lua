-- The ptx-lsp language server for Neovim 0.11+ (`vim.lsp.config`).
--
-- Put this folder (editors/nvim) on 'runtimepath' and call
--   vim.lsp.enable('ptx_lsp')
-- The binary is `ptx-lsp` on PATH, or the one named by $PTX_LSP_PATH.
-- Besides PTX files, the server is started for CUDA, C++ and C buffers
-- (filetypes cuda, cpp, c), alongside clangd, for the PTX inside `asm()`
-- statements; set `vim.g.ptx_inline_asm_enable = false` before
-- `vim.lsp.enable` to keep it to PTX files.
-- Settings (all optional) go in `settings.ptx` / `init_options`:
--   target = 'sm_100a', version = '8.7',
--   diagnostics = { enable = true, disabled = { 'qualifier-order' } },
--   docs = { indexPath = '~/.cache/ptx-lsp' }, inlayHints = { registerCounts = true },
--   compiler = { enable = true, path = '/usr/local/cuda', diagnostics = false,
--                blockSize = 256, dynamicSharedBytes = 0, sassCounts = false,
--                jobs = 0 }
-- With a ptxas installed, a lens above each kernel shows its registers, spills and
-- occupancy; :PtxSass shows the machine code (see lua/ptx/sass.lua).
local run_ns = vim.api.nvim_create_namespace('ptx_run')

--- Runs `ptx/run` with a code lens's parameters and shows the selected
--- thread's values at the end of each line (cleared on the next edit).
local function run(command, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local bufnr = ctx.bufnr
  if not client then
    return
  end
  client:request('ptx/run', command.arguments[1], function(err, result)
    if err then
      vim.notify('PTX run: ' .. err.message, vim.log.levels.ERROR)
      return
    end
    vim.api.nvim_buf_clear_namespace(bufnr, run_ns, 0, -1)
    for _, line in ipairs(result.lines or {}) do
      vim.api.nvim_buf_set_extmark(bufnr, run_ns, line.range.start.line, 0, {
        virt_text = { { '⇒ ' .. line.text, 'Comment' } },
        virt_text_pos = 'eol',
      })
    end
    if result.error ~= vim.NIL and result.error then
      vim.notify('PTX run: ' .. result.error.message, vim.log.levels.ERROR)
    end
    vim.api.nvim_buf_attach(bufnr, false, {
      on_lines = function()
        vim.api.nvim_buf_clear_namespace(bufnr, run_ns, 0, -1)
        return true
      end,
    })
  end, bufnr)
end

--- Shows what the server offers without further setup: code lenses (Run, resources, SASS),
--- refreshed as the buffer changes, and, in PTX buffers, the register-count inlay hints.
--- `vim.g.ptx_lsp_lenses_and_hints = false` (before `vim.lsp.enable`) leaves both to you.
local function on_attach(client, bufnr)
  if vim.g.ptx_lsp_lenses_and_hints == false then
    return
  end
  if vim.bo[bufnr].filetype == 'ptx' and client:supports_method('textDocument/inlayHint') then
    vim.lsp.inlay_hint.enable(true, { bufnr = bufnr })
  end
  if client:supports_method('textDocument/codeLens') then
    local group = vim.api.nvim_create_augroup('ptx_lsp_codelens_' .. bufnr, { clear = true })
    vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'BufWritePost', 'CursorHold' }, {
      group = group,
      buffer = bufnr,
      callback = function()
        vim.lsp.codelens.refresh({ bufnr = bufnr })
      end,
    })
    vim.lsp.codelens.refresh({ bufnr = bufnr })
  end
end

---@type vim.lsp.Config
return {
  on_attach = on_attach,
  commands = {
    ['ptx.run'] = run,
    ['ptx.showSass'] = function(command, ctx)
      require('ptx.sass').from_lens(command, ctx)
    end,
  },
  cmd = { vim.env.PTX_LSP_PATH or 'ptx-lsp', 'serve' },
  filetypes = vim.g.ptx_inline_asm_enable == false and { 'ptx' } or { 'ptx', 'cuda', 'cpp', 'c' },
  root_markers = { '.git' },
  init_options = {},
  settings = { ptx = {} },
}
