-- Headless test of the Neovim client against the real server:
--   PTX_LSP_PATH=target/debug/ptx-lsp nvim --headless -u NONE -l editors/nvim/test/test.lua
-- Opens a PTX file with a misspelled opcode, waits for the server's
-- diagnostics, and checks them, the filetype, hover, document symbols and
-- that the bundled queries are the grammar's own.

local root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h')
local repo = vim.fn.fnamemodify(root, ':h:h')
vim.opt.runtimepath:prepend(root)
vim.cmd('filetype on')
vim.cmd('runtime! ftdetect/*.lua')
vim.cmd('runtime! plugin/*.lua')

local failures = 0
local function check(ok, what)
  if ok then
    print('ok   ' .. what)
  else
    failures = failures + 1
    print('FAIL ' .. what)
  end
end

local server = vim.env.PTX_LSP_PATH
check(server ~= nil and vim.fn.executable(server) == 1, 'PTX_LSP_PATH names the server binary')

-- The queries shipped here are copies of grammar/queries.
for _, name in ipairs({ 'highlights', 'folds', 'indents', 'locals' }) do
  local ours = table.concat(vim.fn.readfile(root .. '/queries/ptx/' .. name .. '.scm'), '\n')
  local grammar = table.concat(vim.fn.readfile(repo .. '/grammar/queries/' .. name .. '.scm'), '\n')
  check(ours == grammar, 'queries/ptx/' .. name .. '.scm matches grammar/queries')
end

local dir = vim.fn.tempname()
vim.fn.mkdir(dir, 'p')
local file = dir .. '/kernel.ptx'
vim.fn.writefile({
  '.version 9.0',
  '.target sm_90',
  '.address_size 64',
  '.visible .entry k()',
  '{',
  '\t.reg .b32 \t%r<2>;',
  '\tmov.u32 \t%r0, %tid.x;',
  '\tad.s32 \t%r1, %r0, 1;',
  '\tret;',
  '}',
}, file)

vim.lsp.enable('ptx_lsp')
vim.cmd.edit(file)
local buf = vim.api.nvim_get_current_buf()
check(vim.bo[buf].filetype == 'ptx', 'a .ptx file gets the ptx filetype')

local attached = vim.wait(20000, function()
  return #vim.lsp.get_clients({ bufnr = buf, name = 'ptx_lsp' }) > 0
end, 50)
check(attached, 'the ptx_lsp client attaches')

local got = vim.wait(30000, function()
  return #vim.diagnostic.get(buf) > 0
end, 50)
check(got, 'diagnostics arrive from the server')
local found = false
for _, d in ipairs(vim.diagnostic.get(buf)) do
  if d.code == 'unknown-opcode' and d.lnum == 7 and d.severity == vim.diagnostic.severity.ERROR then
    found = true
  end
end
check(found, 'the misspelled `ad.s32` on line 8 is an unknown-opcode error')

local client = vim.lsp.get_clients({ bufnr = buf, name = 'ptx_lsp' })[1]
if client then
  local params = { textDocument = { uri = vim.uri_from_bufnr(buf) } }
  local symbols = client:request_sync('textDocument/documentSymbol', params, 10000, buf)
  check(symbols and symbols.result and symbols.result[1] and symbols.result[1].name == 'k',
    'document symbols name the kernel')
  local hover = client:request_sync('textDocument/hover', {
    textDocument = params.textDocument,
    position = { line = 6, character = 2 },
  }, 10000, buf)
  local text = hover and hover.result and hover.result.contents and hover.result.contents.value or ''
  check(text:find('mov') ~= nil, 'hover on `mov` describes it')
end

-- A `// @run` region: the code lens runs it and the values appear as virtual text.
local snippet = dir .. '/snippet.ptx'
vim.fn.writefile({ '// @run %r1=5', '.reg .b32 %r<3>;', 'add.s32 %r2, %r1, 2;' }, snippet)
vim.cmd.edit(snippet)
local sbuf = vim.api.nvim_get_current_buf()
vim.wait(20000, function()
  return #vim.lsp.get_clients({ bufnr = sbuf, name = 'ptx_lsp' }) > 0
end, 50)
local sclient = vim.lsp.get_clients({ bufnr = sbuf, name = 'ptx_lsp' })[1]
if sclient then
  local lenses = sclient:request_sync('textDocument/codeLens',
    { textDocument = { uri = vim.uri_from_bufnr(sbuf) } }, 10000, sbuf)
  local lens = lenses and lenses.result and lenses.result[1]
  check(lens and lens.command and lens.command.command == 'ptx.run', 'a Run code lens on the @run region')
  if lens then
    sclient:exec_cmd(lens.command, { bufnr = sbuf })
    local ns = vim.api.nvim_get_namespaces()['ptx_run']
    local shown = vim.wait(20000, function()
      return ns and #vim.api.nvim_buf_get_extmarks(sbuf, ns, 0, -1, { details = true }) > 0
    end, 50)
    local marks = ns and vim.api.nvim_buf_get_extmarks(sbuf, ns, 0, -1, { details = true }) or {}
    local text = marks[1] and marks[1][4].virt_text[1][1] or ''
    check(shown and text:find('%%r2 = 0x00000007') ~= nil, 'running it shows %r2 = 7 next to the code')
  end
end

vim.fn.delete(dir, 'rf')
if failures > 0 then
  print(failures .. ' check(s) failed')
  os.exit(1)
end
print('all nvim checks passed')
os.exit(0)
