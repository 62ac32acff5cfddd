-- Neovim has no `ptx` filetype of its own.
vim.filetype.add({ extension = { ptx = 'ptx' } })
