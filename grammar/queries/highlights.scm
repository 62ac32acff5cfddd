; Syntax highlighting for PTX.

(comment) @comment
(preprocessor_directive) @keyword.directive
(dwarf_directive) @keyword.directive

(string_literal) @string
(integer_literal) @number
; Lines of a debug section that hold only integers are one node.
(data_block) @number
; Long runs of integers in an initializer are one node.
(integer_run) @number
(float_literal) @number.float

[
  ".version" ".target" ".address_size" ".file" ".loc" ".section" ".alias" ".pragma"
  ".callprototype" ".branchtargets" ".calltargets" ".attribute" ".align"
  "function_name" "inlined_at"
] @keyword.directive

[".entry" ".func"] @keyword.function

(linkage) @keyword.modifier
(ptr_attribute) @keyword.modifier
(function_attribute name: _ @keyword.directive)
(state_space) @keyword.storage
(type) @type.builtin
(vector_type) @type.builtin
(attribute name: _ @attribute)

(instruction mnemonic: (identifier) @function.builtin)
(qualifier) @function.macro

(predicate_guard "@" @operator)
(predicate_guard predicate: (identifier) @variable)

((register) @variable.builtin
  (#match? @variable.builtin "^%(tid|ntid|laneid|warpid|nwarpid|ctaid|nctaid|smid|nsmid|gridid|clusterid|nclusterid|cluster_ctaid|cluster_nctaid|cluster_ctarank|cluster_nctarank|is_explicit_cluster|lanemask_(eq|le|lt|ge|gt)|clock|clock64|clock_hi|pm[0-7]|pm[0-7]_64|envreg[0-9]+|globaltimer|globaltimer_lo|globaltimer_hi|reserved_smem_offset_begin|reserved_smem_offset_end|reserved_smem_offset_cap|reserved_smem_offset_[0-9]+|total_smem_size|aggr_smem_size|dynamic_smem_size|current_graph_exec)$"))
((register) @variable
  (#not-match? @variable "^%(tid|ntid|laneid|warpid|nwarpid|ctaid|nctaid|smid|nsmid|gridid|clusterid|nclusterid|cluster_ctaid|cluster_nctaid|cluster_ctarank|cluster_nctarank|is_explicit_cluster|lanemask_(eq|le|lt|ge|gt)|clock|clock64|clock_hi|pm[0-7]|pm[0-7]_64|envreg[0-9]+|globaltimer|globaltimer_lo|globaltimer_hi|reserved_smem_offset_begin|reserved_smem_offset_end|reserved_smem_offset_cap|reserved_smem_offset_[0-9]+|total_smem_size|aggr_smem_size|dynamic_smem_size|current_graph_exec)$"))
(component) @property

(label_declaration name: (identifier) @label)
(function_definition name: (identifier) @function)
(function_declaration name: (identifier) @function)
(section_name) @module
(section_reference) @module

(sink) @variable.builtin
(target_directive target: (identifier) @constant.builtin)
(operand_list (identifier) @variable)
(address_operand (identifier) @variable)
(vector_operand (identifier) @variable)
(argument_list (identifier) @variable)
(register_pair (identifier) @variable)
(binary_expression (identifier) @variable)
(unary_expression (identifier) @variable)
(negated_operand (identifier) @variable)
(register_component register: (identifier) @variable)
(subscript_expression array: (identifier) @variable)
(generic_expression (identifier) @variable)
(mask_expression (identifier) @variable)
(declarator name: (identifier) @variable)
(branchtargets_directive (identifier) @label)
(calltargets_directive (identifier) @function)
(alias_directive (identifier) @function)

[
  "+" "-" "*" "/" "%" "<<" ">>" "&" "|" "^" "~" "!" "&&" "||" "==" "!=" "<" "<=" ">" ">=" "?" "="
] @operator

["(" ")" "[" "]" "{" "}"] @punctuation.bracket
["," ";" ":"] @punctuation.delimiter
