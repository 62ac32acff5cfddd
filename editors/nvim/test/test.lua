-- Headless test of the Neovim client against the real server:
--   bash editors/nvim/build-parser.sh
--   PTX_LSP_PATH=target/debug/ptx-lsp nvim --headless -u NONE -l editors/nvim/test/test.lua
-- Opens a PTX file with a misspelled opcode, waits for the server's
-- diagnostics, and checks them, the filetype, hover, completion, a code
-- action applied through vim.lsp.buf.code_action, document symbols, a Run
-- code lens, the inline PTX of a CUDA buffer (a diagnostic inside an asm
-- string, hovers on a qualifier and a placeholder, a quick fix of the
-- literal), that the bundled
-- queries are the grammar's own, and that the tree-sitter parser built by
-- build-parser.sh loads from 'runtimepath' and highlights with them.

local root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h')
local repo = vim.fn.fnamemodify(root, ':h:h')
vim.opt.runtimepath:prepend(root)
vim.cmd('filetype plugin on')
vim.cmd('runtime! ftdetect/*.lua')
vim.cmd('runtime! plugin/*.lua')

-- One line per message on stdout (`print` in `nvim -l` leaves the last line
-- unterminated on stderr).
local function say(text)
  io.stdout:write(text .. '\n')
end

local failures = 0
local function check(ok, what)
  if ok then
    say('ok   ' .. what)
  else
    failures = failures + 1
    say('FAIL ' .. what)
  end
end

local server = vim.env.PTX_LSP_PATH
check(server ~= nil and vim.fn.executable(server) == 1, 'PTX_LSP_PATH names the server binary')

-- The queries shipped here are copies of grammar/queries, with the regexes
-- of `#match?` turned into Vim's very-magic syntax (sync-queries.sh).
for _, name in ipairs({ 'highlights', 'folds', 'indents', 'locals' }) do
  local ours = table.concat(vim.fn.readfile(root .. '/queries/ptx/' .. name .. '.scm'), '\n')
  local grammar = table.concat(vim.fn.readfile(repo .. '/grammar/queries/' .. name .. '.scm'), '\n')
  grammar = grammar:gsub('"%^%%%(', '"\\\\v^\\\\%%(')
  check(ours == grammar, 'queries/ptx/' .. name .. '.scm matches grammar/queries (run sync-queries.sh)')
end

-- The tree-sitter parser: parser/ptx.so on 'runtimepath' (built by
-- build-parser.sh) with queries/ptx beside it.
local loaded, parser_ok = pcall(vim.treesitter.language.add, 'ptx')
parser_ok = loaded and parser_ok == true
check(parser_ok, 'the ptx parser loads from parser/ptx.so on runtimepath')

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

if parser_ok then
  check(vim.treesitter.highlighter.active[buf] ~= nil, 'ftplugin/ptx.lua starts tree-sitter highlighting')
  local root = vim.treesitter.get_parser(buf, 'ptx'):parse()[1]:root()
  check(root:type() == 'module' and not root:has_error(), 'the buffer parses into a tree without errors')
  -- `mov` on line 7 (0-based row 6, column 1 after the tab).
  local captures = vim.tbl_map(function(c)
    return c.capture
  end, vim.treesitter.get_captures_at_pos(buf, 6, 1))
  check(vim.tbl_contains(captures, 'function.builtin'), 'the opcode `mov` is captured as @function.builtin')
  local regs = vim.tbl_map(function(c)
    return c.capture
  end, vim.treesitter.get_captures_at_pos(buf, 6, 15))
  check(vim.tbl_contains(regs, 'variable.builtin') and not vim.tbl_contains(regs, 'variable'),
    'the special register `%tid` of `%tid.x` is @variable.builtin')
  local plain = vim.tbl_map(function(c)
    return c.capture
  end, vim.treesitter.get_captures_at_pos(buf, 6, 10))
  check(vim.tbl_contains(plain, 'variable') and not vim.tbl_contains(plain, 'variable.builtin'),
    'the register `%r0` is @variable')
end

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

-- What the client configuration turns on by itself: inlay hints in PTX buffers and code
-- lenses (a lens above the kernel arrives without any request from the test).
check(vim.lsp.inlay_hint.is_enabled({ bufnr = buf }), 'inlay hints are on in the PTX buffer')
local lensed = vim.wait(20000, function()
  return #vim.lsp.codelens.get(buf) > 0
end, 50)
check(lensed, 'code lenses arrive by themselves: ' .. vim.inspect(vim.tbl_map(function(l)
  return l.command and l.command.title
end, vim.lsp.codelens.get(buf))))

-- Semantic tokens: the opcode, its type, a register and a special register of
-- `mov.u32 %r0, %tid.x;` (row 6) get their own groups, which the default colour scheme
-- colours differently.
local function semantic_group(col)
  -- The group shown: of the token's groups (type, then type+modifier) that have colours, the
  -- one of highest priority.
  local best, priority
  for _, token in ipairs(vim.inspect_pos(buf, 6, col).semantic_tokens or {}) do
    local opts = token.opts or {}
    local defined = opts.hl_group and next(vim.api.nvim_get_hl(0, { name = opts.hl_group, link = false })) ~= nil
    if defined and opts.hl_group:find('^@lsp%.') and (priority == nil or (opts.priority or 0) > priority) then
      best, priority = opts.hl_group, opts.priority or 0
    end
  end
  return best
end
local coloured = vim.wait(20000, function()
  return semantic_group(1) ~= nil and semantic_group(15) ~= nil
end, 50)
check(coloured, 'semantic tokens arrive')
local groups = { semantic_group(1), semantic_group(4), semantic_group(10), semantic_group(15) }
check(groups[1] == '@lsp.typemod.function.defaultLibrary.ptx' and groups[2] == '@lsp.type.type.ptx'
  and groups[3] == '@lsp.type.variable.ptx' and groups[4] == '@lsp.typemod.variable.defaultLibrary.ptx',
  'mov, .u32, %r0 and %tid are opcode, type, register and special register: ' .. vim.inspect(groups))
local colours = {}
for _, group in ipairs(groups) do
  local hl = vim.api.nvim_get_hl(0, { name = group, link = false })
  colours[tostring(hl.fg)] = true
end
check(vim.tbl_count(colours) == 4, 'the four have four colours in the default colour scheme')

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

  -- Completion after `ld.global.` offers the qualifiers of sm_90.
  vim.api.nvim_buf_set_lines(buf, 8, 8, false, { '\tld.global.' })
  local completion = client:request_sync('textDocument/completion', {
    textDocument = params.textDocument,
    position = { line = 8, character = 11 },
  }, 10000, buf)
  local items = completion and completion.result or {}
  items = items.items or items
  local labels = vim.tbl_map(function(item)
    return item.label
  end, items)
  check(vim.tbl_contains(labels, 'L2::cache_hint') and vim.tbl_contains(labels, 'v4'),
    'completion after `ld.global.` offers L2::cache_hint and v4 on sm_90')
  vim.api.nvim_buf_set_lines(buf, 8, 9, false, {})

  -- A quick fix, applied the way a user does (`vim.lsp.buf.code_action`).
  vim.wait(30000, function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.code == 'unknown-opcode' and d.lnum == 7 then
        return true
      end
    end
    return false
  end, 50)
  vim.api.nvim_win_set_cursor(0, { 8, 2 })
  vim.lsp.buf.code_action({
    apply = true,
    filter = function(action)
      return action.kind == 'quickfix' and action.isPreferred == true
    end,
  })
  local fixed = vim.wait(20000, function()
    return vim.api.nvim_buf_get_lines(buf, 7, 8, false)[1]:find('^\tadd%.s32') ~= nil
  end, 50)
  check(fixed, 'the quick fix turns `ad.s32` into `add.s32`: ' .. vim.api.nvim_buf_get_lines(buf, 7, 8, false)[1])
end

-- CUDA, C++ and C buffers get the server too, for the PTX inside their asm
-- statements: line 8 misspells the qualifier `.bfly` inside the string.
local host = dir .. '/host.cu'
vim.fn.writefile({
  '__device__ int f(int x) {',
  '  int y;',
  '  asm("add.s32 %0, %1, 1;" : "=r"(y) : "r"(x));',
  '  return y;',
  '}',
  '__device__ unsigned g(unsigned v) {',
  '  unsigned r;',
  '  asm volatile("shfl.sync.bflly.b32 %0, %1, 1, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v));',
  '  return r;',
  '}',
}, host)
vim.cmd.edit(host)
local hbuf = vim.api.nvim_get_current_buf()
check(vim.bo[hbuf].filetype == 'cuda', 'a .cu file gets the cuda filetype')
check(vim.wait(20000, function()
  return #vim.lsp.get_clients({ bufnr = hbuf, name = 'ptx_lsp' }) > 0
end, 50), 'the ptx_lsp client attaches to the CUDA buffer')
check(vim.wait(30000, function()
  return #vim.diagnostic.get(hbuf) > 0
end, 50), 'diagnostics arrive for the CUDA buffer')
-- Exactly one: on `.bflly` (0-based row 7, columns 25..31) inside the
-- literal, and nothing on the C++ around it.
local hdiags = vim.tbl_map(function(d)
  return string.format('%s %d:%d-%d:%d', d.code, d.lnum, d.col, d.end_lnum, d.end_col)
end, vim.diagnostic.get(hbuf))
check(#hdiags == 1 and hdiags[1] == 'unknown-qualifier 7:25-7:31',
  'the one diagnostic of the CUDA buffer is on `.bflly` inside the asm string: ' .. table.concat(hdiags, ', '))
local hclient = vim.lsp.get_clients({ bufnr = hbuf, name = 'ptx_lsp' })[1]
if hclient then
  local function hover_text(line, character)
    local hover = hclient:request_sync('textDocument/hover', {
      textDocument = { uri = vim.uri_from_bufnr(hbuf) },
      position = { line = line, character = character },
    }, 10000, hbuf)
    local result = hover and hover.result
    return type(result) == 'table' and result.contents and result.contents.value or ''
  end
  local sync = hover_text(7, 21)
  check(sync:find('`.sync` on `shfl.sync`', 1, true) ~= nil, 'hover on `.sync` inside the asm string is the PTX hover')
  local placeholder = hover_text(2, 16)
  check(placeholder:find('asm operand 0', 1, true) ~= nil and placeholder:find('"=r"(y)', 1, true) ~= nil,
    'hover on `%0` shows the C++ operand and its constraint: ' .. placeholder)
  local outside = hover_text(3, 4)
  check(outside == '', 'no hover on C++ code outside the asm strings')
  -- The quick fix edits the string literal.
  vim.api.nvim_win_set_cursor(0, { 8, 26 })
  vim.lsp.buf.code_action({
    apply = true,
    filter = function(action)
      return action.kind == 'quickfix' and action.isPreferred == true
    end,
  })
  local fixed = vim.wait(20000, function()
    return vim.api.nvim_buf_get_lines(hbuf, 7, 8, false)[1]:find('asm volatile("shfl.sync.bfly.b32 %0', 1, true) ~= nil
  end, 50)
  check(fixed, 'the quick fix turns `.bflly` into `.bfly` inside the literal: '
    .. vim.api.nvim_buf_get_lines(hbuf, 7, 8, false)[1])
  check(vim.wait(20000, function()
    return #vim.diagnostic.get(hbuf) == 0
  end, 50), 'the fixed CUDA buffer has no diagnostics')
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

-- The compiler view (ptxas and nvdisasm from tools/install-cuda-tool.sh): a resource lens
-- above the kernel, :PtxSass beside the buffer, and jumps both ways.
local kfile = dir .. '/resources.ptx'
vim.fn.writefile({
  '.version 8.0',
  '.target sm_90',
  '.address_size 64',
  '.visible .entry scale(.param .u64 p)',
  '{',
  '\t.reg .b32 %r<4>;',
  '\t.reg .b64 %rd<4>;',
  '\tld.param.u64 %rd1, [p];',
  '\tcvta.to.global.u64 %rd2, %rd1;',
  '\tmov.u32 %r1, %tid.x;',
  '\tmul.wide.u32 %rd3, %r1, 4;',
  '\tadd.s64 %rd2, %rd2, %rd3;',
  '\tst.global.u32 [%rd2], %r1;',
  '\tret;',
  '}',
}, kfile)
vim.cmd.edit(kfile)
local kbuf = vim.api.nvim_get_current_buf()
vim.wait(20000, function()
  return #vim.lsp.get_clients({ bufnr = kbuf, name = 'ptx_lsp' }) > 0
end, 50)
local kclient = vim.lsp.get_clients({ bufnr = kbuf, name = 'ptx_lsp' })[1]
local resource_lens
if kclient then
  vim.wait(60000, function()
    local lenses = kclient:request_sync('textDocument/codeLens',
      { textDocument = { uri = vim.uri_from_bufnr(kbuf) } }, 10000, kbuf)
    for _, lens in ipairs(lenses and lenses.result or {}) do
      if lens.command and lens.command.title:find('registers', 1, true) then
        resource_lens = lens
        return true
      end
    end
    return false
  end, 200)
end
check(resource_lens ~= nil and resource_lens.command.command == 'ptx.showSass',
  'a resource lens above the kernel: ' .. (resource_lens and resource_lens.command.title or 'none'))
if resource_lens then
  kclient:exec_cmd(resource_lens.command, { bufnr = kbuf })
  local sass = require('ptx.sass')
  local view
  vim.wait(60000, function()
    for v, info in pairs(sass.views) do
      if info.source == kbuf then
        view = v
        return true
      end
    end
    return false
  end, 100)
  local text = view and table.concat(vim.api.nvim_buf_get_lines(view, 0, -1, false), '\n') or ''
  check(text:find('EXIT', 1, true) ~= nil and vim.fn.bufwinid(view) ~= -1,
    'the lens opens the SASS of the kernel beside the buffer')
  -- The store of line 13 is an STG instruction.
  local row
  for i, line in ipairs(view and sass.views[view].lines or {}) do
    if line == 13 then
      row = i
    end
  end
  check(row ~= nil and vim.api.nvim_buf_get_lines(view, row - 1, row, false)[1]:find('STG', 1, true) ~= nil,
    'line 13 (st.global) became an STG instruction')
  if row then
    vim.api.nvim_set_current_win(vim.fn.bufwinid(view))
    vim.api.nvim_win_set_cursor(0, { row, 0 })
    sass.to_ptx(view)
    check(vim.api.nvim_get_current_buf() == kbuf and vim.api.nvim_win_get_cursor(0)[1] == 13,
      'Enter on it goes to line 13 of the PTX buffer')
    vim.cmd('PtxSassLine')
    check(vim.api.nvim_win_get_cursor(vim.fn.bufwinid(view))[1] == row,
      ':PtxSassLine goes back to its instruction')
  end
end

vim.fn.delete(dir, 'rf')
if failures > 0 then
  say(failures .. ' check(s) failed')
  os.exit(1)
end
say('all nvim checks passed')
os.exit(0)
