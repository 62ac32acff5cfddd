-- Headless test of `ptx-lsp dap` through nvim-dap itself:
--   NVIM_DAP=$(tools/install-nvim-dap.sh)
--   PTX_LSP_PATH=target/debug/ptx-lsp NVIM_DAP="$NVIM_DAP" \
--     nvim --headless -u NONE -l editors/nvim/test/nvim_dap.lua
-- It loads nvim-dap from NVIM_DAP, runs the configuration block of
-- editors/nvim/README.md against it, and debugs tests/fixtures/dap/kernel.ptx
-- the way a person does: a breakpoint toggled on line 21, `continue` (which
-- picks "Debug PTX kernel" and asks for the kernel's name), the stop that
-- nvim-dap shows (its threads, the current frame, the scopes and variables it
-- fetched), an evaluation, `step_over`, and `continue` to the end.

local root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h')
local repo = vim.fn.fnamemodify(root, ':h:h')

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

local function finish()
  if failures > 0 then
    say(failures .. ' check(s) failed')
    os.exit(1)
  end
  say('all checks passed')
  os.exit(0)
end

local server = vim.env.PTX_LSP_PATH
check(server ~= nil and vim.fn.executable(server) == 1, 'PTX_LSP_PATH names the server binary')
local plugin = vim.env.NVIM_DAP
check(plugin ~= nil and vim.fn.filereadable(plugin .. '/lua/dap.lua') == 1, 'NVIM_DAP is an nvim-dap checkout')
if failures > 0 then
  finish()
end
vim.opt.runtimepath:prepend(plugin)
local dap = require('dap')

-- The README's nvim-dap block, run as a person's init.lua runs it.
local readme = table.concat(vim.fn.readfile(root .. '/README.md'), '\n')
local block = readme:match('## Debugging with nvim%-dap.-```lua\n(.-)```')
check(block ~= nil, 'the README has an nvim-dap configuration block')
local chunk, err = load(block or '', 'README nvim-dap block')
check(chunk ~= nil, 'the nvim-dap block is valid Lua' .. (err and (': ' .. err) or ''))
if not chunk then
  finish()
end
chunk()
check(dap.adapters.ptx ~= nil and dap.adapters.ptx.command == server, 'the adapter runs PTX_LSP_PATH')

-- What a person types: the configuration's name in the picker and the
-- kernel's name at the `entry` prompt.
local picked
vim.ui.select = function(items, opts, on_choice)
  for i, item in ipairs(items) do
    local label = opts.format_item and opts.format_item(item) or tostring(item)
    if label:find('Debug PTX kernel', 1, true) then
      picked = label
      return on_choice(item, i)
    end
  end
  return on_choice(nil, nil)
end
vim.fn.input = function()
  return 'k'
end

-- What nvim-dap reports, through its listeners.
local seen = { stopped = 0, exited = nil, terminated = false, output = {} }
dap.listeners.after.event_stopped['ptx-test'] = function(_, body)
  seen.stopped = seen.stopped + 1
  seen.reason = body.reason
end
dap.listeners.after.event_exited['ptx-test'] = function(_, body)
  seen.exited = body.exitCode
end
dap.listeners.after.event_terminated['ptx-test'] = function()
  seen.terminated = true
end

local function wait(what, pred)
  local ok = vim.wait(20000, pred, 10)
  check(ok, what)
  if not ok then
    -- Nothing after this can pass: stop rather than wait for each of the rest.
    finish()
  end
end

local fixture = repo .. '/tests/fixtures/dap/kernel.ptx'
vim.cmd.edit(vim.fn.fnameescape(fixture))
vim.bo.filetype = 'ptx'
vim.api.nvim_win_set_cursor(0, { 21, 4 })
dap.toggle_breakpoint()
local placed = require('dap.breakpoints').get()[vim.api.nvim_get_current_buf()] or {}
check(#placed == 1 and placed[1].line == 21, 'a breakpoint on line 21')

dap.continue()
wait('nvim-dap stops at the breakpoint', function()
  local s = dap.session()
  return s ~= nil and s.current_frame ~= nil and seen.stopped == 1
end)
check(picked ~= nil, 'the picker offered "Debug PTX kernel"')
local session = dap.session()
check(session.config.entry == 'k' and session.config.program == fixture, 'the configuration was resolved (entry k, ${file})')
check(seen.reason == 'breakpoint', 'the stop is a breakpoint stop')
local frame = session.current_frame
check(frame.line == 21 and frame.source and frame.source.path == fixture, 'the current frame is line 21 of kernel.ptx')
check(vim.api.nvim_win_get_cursor(0)[1] == 21, 'nvim-dap moved the cursor to line 21')
local names = {}
for _, thread in pairs(session.threads) do
  table.insert(names, thread.name)
end
table.sort(names)
check(#names == 4 and names[1] == 'cta (0,0,0) warp 0', 'the threads are the 4 warps of the CTA')

-- The scopes and their variables, as nvim-dap fetched them for its views.
wait('nvim-dap fetched the scopes and the registers', function()
  local scopes = session.current_frame.scopes
  return scopes ~= nil and scopes[1] ~= nil and scopes[1].variables ~= nil
end)
local scopes = session.current_frame.scopes
check(scopes[1].name == 'Registers (lane 0)', 'the first scope is the registers of lane 0')
local scope_names = {}
for _, scope in ipairs(scopes) do
  scope_names[scope.name] = true
end
check(scope_names['Predicates'] == true, 'a Predicates scope')
local values = {}
for _, v in ipairs(scopes[1].variables) do
  values[v.name] = v.value
end
check(values['%r1'] == '0x00000000', '%r1 of lane 0 is 0')
check(values['%rd3'] ~= nil and values['%rd3']:match('^0x') ~= nil, '%rd3 is listed')

-- The REPL's evaluation.
local result
session:evaluate('%r2@lane 7', function(e, r)
  result = e and ('error: ' .. tostring(e)) or r.result
end)
wait('the evaluation answers', function()
  return result ~= nil
end)
check(result == '0x0000000e', 'evaluate %r2@lane 7 = 14 (got ' .. tostring(result) .. ')')

-- A step.
dap.step_over()
wait('the step stops', function()
  return seen.stopped == 2 and dap.session().current_frame ~= nil and dap.session().current_frame.line ~= 21
end)
check(seen.reason == 'step', 'the stop is a step')
check(dap.session().current_frame.line == 22, 'step_over went to line 22')

-- Without the breakpoint, `continue` runs the kernel to its end.
dap.clear_breakpoints()
dap.continue()
wait('the session ends', function()
  return seen.terminated
end)
check(seen.exited == 0, 'the launch exited with code 0')
wait('nvim-dap closed the session', function()
  return dap.session() == nil
end)

finish()
