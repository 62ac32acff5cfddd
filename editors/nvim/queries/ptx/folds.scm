; Folding ranges: function bodies, nested blocks, parameter lists, debug sections.

[
  (block)
  (parameter_list)
  (section_directive)
  (initializer_list)
] @fold
