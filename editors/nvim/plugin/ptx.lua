-- Colours for the semantic token types that are PTX's own (the standard
-- ones already have default links): they fall back to the tree-sitter
-- captures of queries/ptx/highlights.scm.
local links = {
  ['@lsp.type.opcode.ptx'] = '@function.builtin',
  ['@lsp.type.qualifier.ptx'] = '@function.macro',
  ['@lsp.type.stateSpace.ptx'] = '@keyword.storage',
  ['@lsp.type.specialRegister.ptx'] = '@variable.builtin',
  ['@lsp.type.label.ptx'] = '@label',
}
for group, target in pairs(links) do
  vim.api.nvim_set_hl(0, group, { link = target, default = true })
end
