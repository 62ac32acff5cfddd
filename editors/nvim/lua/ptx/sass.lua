-- The SASS view: `ptx/sass` in a scratch buffer beside the PTX buffer, linked both ways.
--   :PtxSass [KERNEL]   the machine code of the buffer (or of one kernel)
--   <CR> in the view    jump to the PTX line of the instruction under the cursor
--   :PtxSassLine        in the PTX buffer: select the instructions of the cursor's line
-- A resource code lens above a kernel runs `ptx.showSass` for that kernel.
local M = {}

--- The view buffers: view bufnr -> { source = bufnr, lines = { PTX line or vim.NIL } }.
M.views = {}

local function client_of(bufnr)
  return vim.lsp.get_clients({ bufnr = bufnr, name = 'ptx_lsp' })[1]
end

--- Opens (or refreshes) the view of `kernel` (nil: the whole file) of PTX buffer `source`.
function M.show(source, kernel)
  local client = client_of(source)
  if not client then
    vim.notify('PTX: no ptx_lsp client for this buffer', vim.log.levels.WARN)
    return
  end
  local params = { textDocument = { uri = vim.uri_from_bufnr(source) }, kernel = kernel }
  client:request('ptx/sass', params, function(err, result)
    if err or not result or result.error then
      local message = err and err.message or (result and result.error) or 'no answer'
      vim.notify('PTX SASS: ' .. message, vim.log.levels.WARN)
      return
    end
    local name = 'ptx-sass://' .. (kernel or vim.fn.fnamemodify(vim.api.nvim_buf_get_name(source), ':t'))
    local view = vim.fn.bufnr(name)
    if view == -1 then
      view = vim.api.nvim_create_buf(false, true)
      vim.api.nvim_buf_set_name(view, name)
      vim.bo[view].buftype = 'nofile'
      vim.bo[view].bufhidden = 'hide'
      vim.keymap.set('n', '<CR>', function()
        M.to_ptx(view)
      end, { buffer = view, desc = 'PTX line of this SASS instruction' })
    end
    vim.bo[view].modifiable = true
    vim.api.nvim_buf_set_lines(view, 0, -1, false, vim.split(result.text, '\n', { trimempty = true }))
    vim.bo[view].modifiable = false
    M.views[view] = { source = source, lines = result.lines }
    if vim.fn.bufwinid(view) == -1 then
      local from = vim.api.nvim_get_current_win()
      vim.cmd('vsplit')
      vim.api.nvim_win_set_buf(0, view)
      vim.api.nvim_set_current_win(from)
    end
  end, source)
end

--- From a view: the PTX line of the instruction under the cursor.
function M.to_ptx(view)
  local v = M.views[view]
  if not v then
    return
  end
  local row = vim.api.nvim_win_get_cursor(0)[1]
  local line = v.lines[row]
  if type(line) ~= 'number' then
    return
  end
  local win = vim.fn.bufwinid(v.source)
  if win == -1 then
    vim.cmd('vsplit')
    vim.api.nvim_win_set_buf(0, v.source)
    win = vim.api.nvim_get_current_win()
  end
  vim.api.nvim_set_current_win(win)
  vim.api.nvim_win_set_cursor(win, { line, 0 })
end

--- From a PTX buffer: the view lines made from the cursor's line (1-based rows).
function M.rows_of(source, line)
  for view, v in pairs(M.views) do
    if v.source == source and vim.api.nvim_buf_is_valid(view) then
      local rows = {}
      for i, l in ipairs(v.lines) do
        if l == line then
          table.insert(rows, i)
        end
      end
      if #rows > 0 then
        return view, rows
      end
    end
  end
end

--- Moves to the first SASS instruction of the cursor's PTX line and marks the others.
function M.to_sass()
  local source = vim.api.nvim_get_current_buf()
  local view, rows = M.rows_of(source, vim.api.nvim_win_get_cursor(0)[1])
  if not view then
    vim.notify('PTX: no SASS for this line (run :PtxSass first)', vim.log.levels.INFO)
    return
  end
  local ns = vim.api.nvim_create_namespace('ptx_sass_line')
  vim.api.nvim_buf_clear_namespace(view, ns, 0, -1)
  for _, row in ipairs(rows) do
    vim.api.nvim_buf_set_extmark(view, ns, row - 1, 0, { line_hl_group = 'Visual' })
  end
  local win = vim.fn.bufwinid(view)
  if win ~= -1 then
    vim.api.nvim_win_set_cursor(win, { rows[1], 0 })
  end
end

--- `ptx.showSass` from a code lens: `{ textDocument = { uri }, kernel }`.
function M.from_lens(command, ctx)
  local args = command.arguments and command.arguments[1] or {}
  M.show(ctx.bufnr, args.kernel)
end

return M
