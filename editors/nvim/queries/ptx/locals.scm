; Scopes, definitions and references of registers, labels, functions and variables.

(module) @local.scope
(block) @local.scope
(function_definition) @local.scope

(declarator name: _ @local.definition.var)
(label_declaration name: (identifier) @local.definition.label)
(function_definition name: (identifier) @local.definition.function)
(function_declaration name: (identifier) @local.definition.function)

(register) @local.reference
(identifier) @local.reference
