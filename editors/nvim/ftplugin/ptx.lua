-- PTX buffers: comments, and tree-sitter highlighting when the parser is
-- installed (parser/ptx.so on 'runtimepath', built by build-parser.sh).
vim.bo.commentstring = '// %s'
local ok, added = pcall(vim.treesitter.language.add, 'ptx')
if ok and added then
  pcall(vim.treesitter.start)
end
