-- Colours for PTX. The server's semantic tokens use the standard LSP types
-- and modifiers, and the tree-sitter queries (queries/ptx/highlights.scm)
-- give the same tokens the same roles; both are linked here, for PTX
-- buffers only, to groups that Neovim's default colour scheme colours
-- differently, so that the opcode, its state space, its type and its other
-- qualifiers, registers, special registers and numbers are told apart.
-- `default = true`: a colour scheme that sets these groups wins.
-- In the default colour scheme: opcodes cyan, state spaces bold, types green, other
-- qualifiers plain, registers blue, special registers yellow, numbers pink, labels bold.
local roles = {
  opcode = 'Function',
  qualifier = 'Delimiter',
  state_space = 'Statement',
  type = 'String',
  register = 'Identifier',
  special_register = 'DiagnosticWarn',
  number = 'Removed',
  label = 'Label',
}
local links = {
  -- semantic tokens
  ['@lsp.typemod.function.defaultLibrary.ptx'] = roles.opcode,
  ['@lsp.type.enumMember.ptx'] = roles.qualifier,
  ['@lsp.type.modifier.ptx'] = roles.state_space,
  ['@lsp.type.type.ptx'] = roles.type,
  ['@lsp.type.variable.ptx'] = roles.register,
  ['@lsp.typemod.variable.defaultLibrary.ptx'] = roles.special_register,
  ['@lsp.type.number.ptx'] = roles.number,
  ['@lsp.type.label.ptx'] = roles.label,
  -- tree-sitter captures of queries/ptx/highlights.scm
  ['@function.builtin.ptx'] = roles.opcode,
  ['@function.macro.ptx'] = roles.qualifier,
  ['@keyword.storage.ptx'] = roles.state_space,
  ['@type.builtin.ptx'] = roles.type,
  ['@variable.ptx'] = roles.register,
  ['@variable.builtin.ptx'] = roles.special_register,
  ['@property.ptx'] = roles.special_register,
  ['@number.ptx'] = roles.number,
  ['@number.float.ptx'] = roles.number,
}
for group, target in pairs(links) do
  vim.api.nvim_set_hl(0, group, { link = target, default = true })
end
