-- :PtxSass [KERNEL] and :PtxSassLine (see lua/ptx/sass.lua).
vim.api.nvim_create_user_command('PtxSass', function(opts)
  require('ptx.sass').show(vim.api.nvim_get_current_buf(), opts.args ~= '' and opts.args or nil)
end, { nargs = '?', desc = 'Show the SASS (machine code) of this PTX buffer or of one kernel' })
vim.api.nvim_create_user_command('PtxSassLine', function()
  require('ptx.sass').to_sass()
end, { desc = 'Show the SASS instructions of the cursor line' })
