; Indentation: the contents of braces are indented one level.

[
  (block)
  (section_directive)
  (parameter_list)
  (initializer_list)
] @indent.begin

["}" ")"] @indent.end @indent.branch
