; extends
; PTX inside the template strings of asm statements, highlighted with this plugin's ptx
; parser. Each string piece is injected on its own: the pieces of one template may split an
; instruction anywhere, and combining them would join every template of the file into one
; document. The same query serves the cpp parser (queries/cpp/injections.scm).
(gnu_asm_expression
  assembly_code: (string_literal
    (string_content) @injection.content)
  (#set! injection.language "ptx"))

(gnu_asm_expression
  assembly_code: (concatenated_string
    (string_literal
      (string_content) @injection.content))
  (#set! injection.language "ptx"))

(gnu_asm_expression
  assembly_code: (raw_string_literal
    (raw_string_content) @injection.content)
  (#set! injection.language "ptx"))
