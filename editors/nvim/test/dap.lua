-- Headless test of `ptx-lsp dap` from Neovim's process model:
--   PTX_LSP_PATH=target/debug/ptx-lsp nvim --headless -u NONE -l editors/nvim/test/dap.lua
-- It takes the nvim-dap configuration documented in editors/nvim/README.md
-- (the adapter and the launch configurations, read from the README's code
-- block with a `dap` module that only records them), starts the adapter as
-- nvim-dap starts an `executable` adapter (vim.system with pipes), and
-- drives a whole session with a small DAP client written here
-- (Content-Length framing, requests nvim-dap sends): initialize, launch,
-- setBreakpoints, configurationDone, stopped, threads, stackTrace, scopes,
-- variables, evaluate, next, continue, terminated, disconnect.
-- nvim-dap itself is not part of this test.

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

local server = vim.env.PTX_LSP_PATH
check(server ~= nil and vim.fn.executable(server) == 1, 'PTX_LSP_PATH names the server binary')

-- The README's nvim-dap block, run against a `dap` module that records what
-- it is given.
local readme = table.concat(vim.fn.readfile(root .. '/README.md'), '\n')
local block = readme:match('## Debugging with nvim%-dap.-```lua\n(.-)```')
check(block ~= nil, 'the README has an nvim-dap configuration block')
local recorded = { adapters = {}, configurations = {} }
package.preload['dap'] = function()
  return recorded
end
vim.env.PTX_LSP_PATH = server
local chunk, err = load(block, 'README nvim-dap block')
check(chunk ~= nil, 'the nvim-dap block is valid Lua: ' .. tostring(err))
chunk()
local adapter = recorded.adapters.ptx
check(adapter ~= nil and adapter.type == 'executable', 'adapter `ptx` is an executable adapter')
check(adapter.command == server, 'the adapter command is PTX_LSP_PATH')
check(vim.deep_equal(adapter.args, { 'dap' }), 'the adapter runs `ptx-lsp dap`')
local configs = recorded.configurations.ptx or {}
check(#configs == 2, 'two launch configurations for filetype ptx')

-- The kernel configuration, resolved as nvim-dap resolves one: functions
-- are called, `${file}` is the current file.
local fixture = repo .. '/tests/fixtures/dap/kernel.ptx'
local kernel
for _, c in ipairs(configs) do
  if c.name == 'Debug PTX kernel' then
    kernel = c
  end
end
check(kernel ~= nil and kernel.type == 'ptx' and kernel.request == 'launch', 'the kernel configuration launches')
local input = vim.fn.input
vim.fn.input = function()
  return 'k'
end
local launch = {}
for key, value in pairs(kernel) do
  if type(value) == 'function' then
    value = value()
  end
  if value == '${file}' then
    value = fixture
  end
  launch[key] = value
end
vim.fn.input = input

-- The adapter, started as nvim-dap starts one, with a DAP client on its pipes.
local pending = ''
local messages = {}
local process = vim.system({ adapter.command, unpack(adapter.args) }, {
  stdin = true,
  stdout = function(_, data)
    if not data then
      return
    end
    pending = pending .. data
    while true do
      local header_end = pending:find('\r\n\r\n', 1, true)
      if not header_end then
        return
      end
      local length = tonumber(pending:sub(1, header_end):match('Content%-Length: (%d+)'))
      if #pending < header_end + 3 + length then
        return
      end
      local body = pending:sub(header_end + 4, header_end + 3 + length)
      pending = pending:sub(header_end + 4 + length)
      table.insert(messages, body)
    end
  end,
})

local seq = 0
local inbox = {}
local function pump()
  while #messages > 0 do
    table.insert(inbox, vim.json.decode(table.remove(messages, 1)))
  end
end

local function send(command, arguments)
  seq = seq + 1
  local body = vim.json.encode({ seq = seq, type = 'request', command = command, arguments = arguments or vim.empty_dict() })
  process:write('Content-Length: ' .. #body .. '\r\n\r\n' .. body)
  return seq
end

-- Waits (at most 20 s) for a message matching `pred` and takes it.
local function take(pred, what)
  local found
  vim.wait(20000, function()
    pump()
    for i, m in ipairs(inbox) do
      if pred(m) then
        found = table.remove(inbox, i)
        return true
      end
    end
    return false
  end, 10)
  check(found ~= nil, 'received ' .. what)
  if not found then
    -- Nothing after this can pass: stop rather than wait for every message.
    say(failures .. ' check(s) failed')
    os.exit(1)
  end
  return found
end

local function request(command, arguments)
  local s = send(command, arguments)
  local response = take(function(m)
    return m.type == 'response' and m.request_seq == s
  end, 'the response to ' .. command)
  check(response.success == true, command .. ' succeeds' .. (response.message and (': ' .. response.message) or ''))
  return response.body or {}
end

local function event(name)
  return take(function(m)
    return m.type == 'event' and m.event == name
  end, 'event ' .. name).body or {}
end

-- What nvim-dap sends to initialize.
local caps = request('initialize', {
  clientID = 'neovim',
  clientName = 'neovim',
  adapterID = 'nvim-dap',
  pathFormat = 'path',
  linesStartAt1 = true,
  columnsStartAt1 = true,
  supportsRunInTerminalRequest = true,
  supportsVariableType = true,
  supportsProgressReporting = true,
  supportsStartDebuggingRequest = true,
  locale = 'en_US',
})
check(caps.supportsConfigurationDoneRequest == true, 'the adapter wants configurationDone')
request('launch', launch)
event('initialized')
local set = request('setBreakpoints', {
  source = { path = fixture, name = 'kernel.ptx' },
  breakpoints = { { line = 21 } },
  sourceModified = false,
})
check(set.breakpoints and set.breakpoints[1] and set.breakpoints[1].verified == true, 'the breakpoint on line 21 is verified')
request('configurationDone')

local stopped = event('stopped')
check(stopped.reason == 'breakpoint' and stopped.threadId == 1, 'stopped at the breakpoint in thread 1')
local threads = request('threads').threads or {}
check(#threads == 4 and threads[1].name == 'cta (0,0,0) warp 0', 'threads are the 4 warps of the CTA')
local trace = request('stackTrace', { threadId = 1, startFrame = 0, levels = 20 })
local top = (trace.stackFrames or {})[1] or {}
check(top.line == 21 and top.source and top.source.path == fixture, 'the top frame is line 21 of kernel.ptx')
local scopes = request('scopes', { frameId = top.id }).scopes or {}
check(#scopes > 0 and scopes[1].name == 'Registers (lane 0)', 'the first scope is the registers of lane 0')
local vars = request('variables', { variablesReference = scopes[1].variablesReference }).variables or {}
local r1
for _, v in ipairs(vars) do
  if v.name == '%r1' then
    r1 = v.value
  end
end
check(r1 == '0x00000000', '%r1 of lane 0 is 0')
local evaluated = request('evaluate', { expression = '%r2@lane 7', frameId = top.id, context = 'repl' })
check(evaluated.result == '0x0000000e', 'the REPL evaluates %r2@lane 7 = 14')
request('next', { threadId = 1 })
check(event('stopped').reason == 'step', 'next stops with reason step')
trace = request('stackTrace', { threadId = 1 })
check(((trace.stackFrames or {})[1] or {}).line == 22, 'next went to line 22')
request('setBreakpoints', { source = { path = fixture }, breakpoints = {} })
request('continue', { threadId = 1 })
check(event('exited').exitCode == 0, 'the launch exits with code 0')
event('terminated')
request('disconnect', { restart = false, terminateDebuggee = true })
local done = process:wait(10000)
check(done.code == 0, 'the adapter exits with code 0')

if failures > 0 then
  say(failures .. ' check(s) failed')
  os.exit(1)
end
say('all checks passed')
os.exit(0)
