/**
 * @file Tree-sitter grammar for NVIDIA PTX (Parallel Thread Execution), ISA 9.x.
 * @license MIT
 *
 * The grammar is purely syntactic: any identifier parses as an opcode and any
 * `.word` directly after it parses as a qualifier. Whether an instruction, a
 * qualifier or an operand is valid is decided later by the rule checker.
 */

// @ts-check
/// <reference types="tree-sitter-cli/dsl" />

// Binary operator precedences of PTX constant expressions (C's, see ISA 4.5.4).
const PREC = {
  conditional: 1,
  logical_or: 2,
  logical_and: 3,
  bitwise_or: 4,
  bitwise_xor: 5,
  bitwise_and: 6,
  equality: 7,
  relational: 8,
  shift: 9,
  additive: 10,
  multiplicative: 11,
  unary: 12,
  // A `%p|%q` destination pair binds tighter than a `|` expression.
  pair: 13,
};

const STATE_SPACES = [
  '.reg', '.sreg', '.const', '.global', '.local', '.param', '.shared', '.tex',
];

// Fundamental, packed and alternate floating-point types (ISA 5.2).
const TYPES = [
  '.s8', '.s16', '.s32', '.s64',
  '.u8', '.u16', '.u32', '.u64',
  '.b8', '.b16', '.b32', '.b64', '.b128',
  '.f16', '.f16x2', '.f32', '.f64',
  '.bf16', '.bf16x2', '.tf32',
  '.e4m3', '.e5m2', '.e4m3x2', '.e5m2x2', '.e2m3', '.e3m2', '.e2m3x2', '.e3m2x2',
  '.e2m1', '.e2m1x2', '.ue8m0', '.ue8m0x2', '.ue4m3',
  '.e4m3x4', '.e5m2x4', '.e2m3x4', '.e3m2x4', '.e2m1x4',
  '.u16x2', '.s16x2', '.s2f6x2',
  '.pred',
  '.texref', '.samplerref', '.surfref',
];

// Integer literals: hexadecimal, binary, octal, decimal, each with an optional
// `U` (ISA 4.5.1).
const INTEGER = choice(
  /0[xX][0-9a-fA-F]+U?/,
  /0[bB][01]+U?/,
  /0[0-7]*U?/,
  /[1-9][0-9]*U?/,
);

const LINKAGE = ['.extern', '.visible', '.weak', '.common'];

// Directives allowed between a function's signature and its body (ISA 11.4, 11.7, 11.8).
const FUNCTION_ATTRIBUTES = [
  '.maxnreg', '.maxntid', '.reqntid', '.minnctapersm', '.maxnctapersm', '.noreturn',
  '.reqnctapercluster', '.explicitcluster', '.maxclusterrank', '.blocksareclusters',
  '.abi_preserve', '.abi_preserve_control',
  // Not in the PTX ISA 9.1 spec; ptxas 13.5 takes it on kernels and device functions from
  // `.version 8.8`.
  '.local_maxnreg',
];

module.exports = grammar({
  name: 'ptx',

  // Blanks as ptxas reads them: a vertical tab is none ("Parsing error"), a form feed is.
  extras: $ => [/[ \t\n\r\f]/, $.comment, $.preprocessor_directive],

  conflicts: $ => [
    // Linkage directives start both functions and variables: `.visible .entry` / `.visible .global`.
    [$._function_header, $._declaration_specifier],
    // `(x)` is a call's argument list or a parenthesized constant expression.
    [$.argument_list, $.parenthesized_expression],
  ],

  supertypes: $ => [],

  // Hidden rules inlined into their users: fewer reductions per token (the
  // opcode's mnemonic and qualifiers are direct children of the instruction).
  // There is no `word` token: its keyword pass cost a second lexer run on
  // every identifier for the two keywords of `.loc`.
  inline: $ => [$._opcode, $._expression, $._operand, $._statement, $._module_item, $._initializer, $._data_expression],

  rules: {
    module: $ => repeat($._module_item),

    _module_item: $ => choice(
      $.version_directive,
      $.target_directive,
      $.address_size_directive,
      $.file_directive,
      $.section_directive,
      $.dwarf_directive,
      $.alias_directive,
      $.pragma_directive,
      $.function_definition,
      $.function_declaration,
      $.variable_declaration,
      $.loc_directive,
      // Snippets: statements outside any function (the interpreter runs them,
      // and inline `asm()` bodies look like this).
      $.instruction,
      $.label_declaration,
      $.block,
      $.callprototype_directive,
      $.branchtargets_directive,
      $.calltargets_directive,
    ),

    // ---------------------------------------------------------------- module

    version_directive: $ => seq('.version', field('version', $.float_literal)),

    target_directive: $ => seq('.target', sepBy1(',', field('target', $.identifier))),

    address_size_directive: $ => seq('.address_size', field('size', $.integer_literal)),

    file_directive: $ => seq(
      '.file',
      field('index', $.integer_literal),
      field('path', $.string_literal),
      // ptxas 13.5 also takes the time stamp alone (`.file 1 "a.cu", 1700000000`).
      optional(seq(',', field('timestamp', $.integer_literal), optional(seq(',', field('file_size', $.integer_literal))))),
    ),

    loc_directive: $ => seq(
      '.loc',
      field('file', $.integer_literal),
      field('line', $.integer_literal),
      field('column', $.integer_literal),
      optional(seq(
        ',', 'function_name', field('function_name', $._expression),
        ',', 'inlined_at',
        field('inlined_file', $.integer_literal),
        field('inlined_line', $.integer_literal),
        field('inlined_column', $.integer_literal),
      )),
    ),

    section_directive: $ => seq(
      '.section',
      field('name', $.section_name),
      '{',
      repeat(choice($.data_line, $.label_declaration, $.data_block)),
      '}',
    ),

    section_name: _ => /\.[A-Za-z_][A-Za-z0-9_.$]*/,

    data_line: $ => seq(
      // One token for the four types: a section body's states then hold one
      // entry for them rather than four, which keeps these states (shared
      // with the expression states of instructions) small.
      field('type', alias(/\.b(8|16|32|64)/, $.type)),
      sepBy1(',', $._data_expression),
    ),

    _data_expression: $ => choice(
      $._expression,
      alias($.section_name, $.section_reference),
      alias($.section_offset, $.binary_expression),
    ),

    // `.debug_loc+63`: an offset into another debug section.
    section_offset: $ => seq(
      field('left', alias($.section_name, $.section_reference)),
      field('operator', choice('+', '-')),
      field('right', $._expression),
    ),

    // `@@DWARF` lines, the pre-2.0 spelling of debug sections.
    dwarf_directive: _ => seq('@@DWARF', token.immediate(/[^\r\n]*/)),

    alias_directive: $ => seq('.alias', field('alias', $.identifier), ',', field('aliasee', $.identifier), ';'),

    pragma_directive: $ => seq('.pragma', sepBy1(',', $.string_literal), ';'),

    // ------------------------------------------------------------- functions

    // ptxas also takes a prototype with no `;` after it (nvcc 2.x/3.x wrote them so).
    function_declaration: $ => seq($._function_header, optional(';')),

    // A `{` after a header always opens its body, even where a prototype without `;` could end.
    function_definition: $ => prec(1, seq($._function_header, field('body', $.block))),

    // Attributes and pragmas after a header belong to it (greedy where no `;` ends a prototype).
    _function_header: $ => prec.right(seq(
      repeat(field('linkage', $.linkage)),
      field('kind', choice('.entry', '.func')),
      optional(field('return_parameters', $.parameter_list)),
      field('name', choice($.identifier, $.register)),
      optional(field('parameters', $.parameter_list)),
      repeat(choice($.function_attribute, $.pragma_directive)),
    )),

    linkage: _ => choice(...LINKAGE),

    parameter_list: $ => seq('(', sepBy(',', $.parameter_declaration), ')'),

    parameter_declaration: $ => seq(
      repeat1($._declaration_specifier),
      field('declarator', $.declarator),
    ),

    function_attribute: $ => prec.right(seq(
      field('name', choice(...FUNCTION_ATTRIBUTES)),
      sepBy(',', field('value', $.integer_literal)),
    )),

    block: $ => seq('{', repeat($._statement), '}'),

    _statement: $ => choice(
      $.instruction,
      $.label_declaration,
      $.variable_declaration,
      $.block,
      $.loc_directive,
      $.pragma_directive,
      $.callprototype_directive,
      $.branchtargets_directive,
      $.calltargets_directive,
      $.dwarf_directive,
    ),

    label_declaration: $ => seq(field('name', choice($.identifier, $.register)), ':'),

    callprototype_directive: $ => seq(
      '.callprototype',
      optional(field('return_parameters', $.parameter_list)),
      '_',
      optional(field('parameters', $.parameter_list)),
      repeat($.function_attribute),
      ';',
    ),

    // `L<3>` stands for `L0, L1, L2` (parameterized names, ISA 5.4.6 and 11.3.1).
    branchtargets_directive: $ => seq(
      '.branchtargets',
      sepBy1(',', seq($.identifier, optional(seq('<', $.integer_literal, '>')))),
      ';',
    ),

    calltargets_directive: $ => seq('.calltargets', sepBy1(',', $.identifier), ';'),

    // ----------------------------------------------------------- variables

    variable_declaration: $ => seq(
      repeat1($._declaration_specifier),
      sepBy1(',', field('declarator', $.declarator)),
      ';',
    ),

    _declaration_specifier: $ => choice(
      $.linkage,
      $.state_space,
      $.alignment,
      $.vector_type,
      $.type,
      $.ptr_attribute,
      $.attribute_directive,
    ),

    state_space: _ => choice(...STATE_SPACES),

    type: _ => choice(...TYPES),

    vector_type: _ => choice('.v2', '.v4', '.v8', '.v16'),

    alignment: $ => seq('.align', field('bytes', $.integer_literal)),

    ptr_attribute: _ => '.ptr',

    attribute_directive: $ => seq(
      '.attribute',
      token.immediate('('),
      sepBy1(',', $.attribute),
      ')',
    ),

    attribute: $ => seq(
      field('name', choice('.managed', '.unified')),
      optional(seq('(', sepBy1(',', $.integer_literal), ')')),
    ),

    declarator: $ => seq(
      field('name', choice($.identifier, $.register, $.sink)),
      // ptxas takes blanks around the count too (`%r < 4 >`).
      optional(seq('<', field('count', $.integer_literal), '>')),
      repeat(field('dimension', $.array_dimension)),
      optional(seq('=', field('value', $._initializer))),
    ),

    array_dimension: $ => seq('[', optional(field('size', $._expression)), ']'),

    _initializer: $ => choice($._expression, $.initializer_list, $.sampler_initializer),

    // A run of integers, each followed by its comma, is one `integer_run` token (below); the
    // other values are written one by one, each but the last followed by a comma.
    initializer_list: $ => seq(
      '{',
      repeat(choice($.integer_run, seq($._initializer, ','))),
      optional($._initializer),
      '}',
    ),

    // Sixteen or more integers, each with the comma after it (`202, 29, 180, ...`), as in the
    // lookup tables that nvcc writes for curand and other constant arrays (hundreds of
    // thousands of values): one token, so that such a table costs the parser a lexer pass
    // rather than a leaf and a reduction per number. The comma after each number keeps an
    // operator from following one (`1, 2 + 3` leaves `2 + 3` an expression); fewer numbers
    // stay `integer_literal`s.
    integer_run: _ => {
      const item = seq(INTEGER, /[ \t\r\n]*,[ \t\r\n]*/);
      return token(seq(...Array(16).fill(item), repeat(item)));
    },

    // `{ filter_mode = nearest, addr_mode_0 = clamp_to_border }` for `.samplerref`.
    sampler_initializer: $ => seq('{', sepBy1(',', $.sampler_field), '}'),

    sampler_field: $ => seq(field('name', $.identifier), '=', field('value', $._expression)),

    // ---------------------------------------------------------- instructions

    instruction: $ => seq(
      optional(field('guard', $.predicate_guard)),
      $._opcode,
      optional(field('operands', $.operand_list)),
      ';',
    ),

    predicate_guard: $ => seq(
      '@',
      optional(field('negated', '!')),
      field('predicate', choice($.register, $.identifier)),
    ),

    // `ld.global.v4.f32`: the mnemonic and one `qualifier` node per `.word`.
    // The first repetitions are spelled out (see `unrolledRepeat`).
    _opcode: $ => seq(field('mnemonic', $.identifier), unrolledRepeat(field('qualifier', $.qualifier), 3)),

    // `.global`, `.v4`, `.shared::cta`, `.L2::cache_hint`, `.16x32bx2` ...
    // Blanks may stand before a qualifier, as ptxas takes them (`mov .s32 d, a;`,
    // `prmt .b32 …`, `ld.global .v2 .u32 …`); never inside one (`mov. s32`, `.L2 ::64B`).
    qualifier: _ => token(/\.[A-Za-z0-9_]+(::[A-Za-z0-9_]+)*/),

    // The first repetitions are spelled out: most instructions have one to three
    // operands. (Spelling out more makes the parse table explode.)
    operand_list: $ => unrolledSepBy1(',', $._operand, 2),

    _operand: $ => choice(
      $._expression,
      $.register_pair,
      $.negated_operand,
      $.vector_operand,
      $.address_operand,
      $.argument_list,
      $.sink,
    ),

    // `%p|%q` (setp, shfl and friends write a second, predicate, result).
    register_pair: $ => prec(PREC.pair, seq(
      field('first', choice($.register, $.identifier, $.sink, $.vector_operand)),
      '|',
      field('second', choice($.register, $.identifier, $.sink)),
    )),

    negated_operand: $ => prec(PREC.pair, seq('!', field('operand', choice($.register, $.identifier)))),

    vector_operand: $ => seq('{', sepBy1(',', choice($._expression, $.sink)), '}'),

    // `[%rd1+8]`, `[var]`, `[tex, {%f1, %f2}]`, `[a].unified`.
    address_operand: $ => seq(
      '[',
      sepBy1(',', choice($._expression, $.vector_operand)),
      ']',
      optional(field('suffix', alias(token.immediate('.unified'), $.qualifier))),
    ),

    // `(retval0)` and `(param0, param1)` of `call`.
    argument_list: $ => prec.dynamic(1, seq('(', sepBy(',', choice($._expression, $.sink)), ')')),

    sink: _ => '_',

    // ------------------------------------------------------------ expressions

    _expression: $ => choice(
      $.register,
      $.register_component,
      $.subscript_expression,
      $.identifier,
      $.integer_literal,
      $.float_literal,
      $.unary_expression,
      $.cast_expression,
      $.binary_expression,
      $.conditional_expression,
      $.parenthesized_expression,
      $.generic_expression,
      $.mask_expression,
    ),

    // `%tid.x`, `%v1.y`: a component of a vector or special register; `r2.b0`,
    // `r3.h1`, `r2.b3210`: byte and half-word selectors of video instructions.
    register_component: $ => seq(
      field('register', choice($.register, $.identifier)),
      // A blank may stand before the component too (ptxas takes `%tid .x`).
      field('component', alias(token(/\.([xyzwrgba]|[bh][0-9]+)/), $.component)),
    ),

    // `A[5]`: an element of an array variable (ISA 6.4.2).
    subscript_expression: $ => prec(PREC.unary + 1, seq(
      field('array', $.identifier),
      token.immediate('['),
      field('index', $._expression),
      ']',
    )),

    unary_expression: $ => prec(PREC.unary, seq(
      field('operator', choice('-', '+', '!', '~')),
      field('operand', $._expression),
    )),

    // `(.u64)-1`, `( .s64 ) x`: the casts of ISA 4.5.4 (any type parses; the checker says
    // which ptxas takes).
    cast_expression: $ => prec(PREC.unary, seq(
      '(', field('type', $.type), ')',
      field('operand', $._expression),
    )),

    binary_expression: $ => {
      const table = [
        ['||', PREC.logical_or],
        ['&&', PREC.logical_and],
        ['|', PREC.bitwise_or],
        ['^', PREC.bitwise_xor],
        ['&', PREC.bitwise_and],
        ['==', PREC.equality], ['!=', PREC.equality],
        ['<', PREC.relational], ['<=', PREC.relational], ['>', PREC.relational], ['>=', PREC.relational],
        ['<<', PREC.shift], ['>>', PREC.shift],
        ['+', PREC.additive], ['-', PREC.additive],
        ['*', PREC.multiplicative], ['/', PREC.multiplicative],
        // Modulo needs a blank after it: `%r2 %r3` is two registers, not `%r2 % r3`.
        [alias(token(/%[ \t]/), '%'), PREC.multiplicative],
      ];
      return choice(...table.map(([operator, precedence]) => prec.left(/** @type {number} */ (precedence), seq(
        field('left', $._expression),
        // @ts-ignore
        field('operator', operator),
        field('right', $._expression),
      ))),
      // `7%-3`, `7%(3)`: without a blank, only an operand that starts with an operator or a
      // parenthesis may follow (ptxas reads `7%3` as `7` and the name `%3`).
      prec.left(PREC.multiplicative, seq(
        field('left', $._expression),
        field('operator', '%'),
        field('right', choice(
          $.unary_expression, $.cast_expression, $.parenthesized_expression,
        )),
      )));
    },

    conditional_expression: $ => prec.right(PREC.conditional, seq(
      field('condition', $._expression), '?', field('consequence', $._expression), ':', field('alternative', $._expression),
    )),

    parenthesized_expression: $ => seq('(', $._expression, ')'),

    // `generic(var)` in initializers of pointers.
    // The keyword and its parenthesis are one token, so `generic` stays usable
    // as an ordinary name.
    generic_expression: $ => seq(token(seq('generic', '(')), field('operand', $._expression), ')'),

    // `0xff00(var)`: the byte of an address or constant that a mask selects (ISA 5.4.4).
    mask_expression: $ => seq(
      field('mask', $.integer_literal),
      token.immediate('('),
      field('operand', $._expression),
      ')',
    ),

    // ---------------------------------------------------------------- tokens

    // `%r1`, `%tid`, `%rd<4>`-style names; the `%` names registers and special registers.
    register: _ => /%[A-Za-z0-9_$]+/,

    identifier: _ => /[A-Za-z][A-Za-z0-9_$]*|[_$][A-Za-z0-9_$]+/,

    integer_literal: _ => token(INTEGER),

    float_literal: _ => token(choice(
      /0[fF][0-9a-fA-F]{8}/,
      /0[dD][0-9a-fA-F]{16}/,
      /[0-9]+\.[0-9]*([eE][+-]?[0-9]+)?/,
      // `.5`: no digit before the point (ptxas takes it).
      /\.[0-9]+([eE][+-]?[0-9]+)?/,
      /[0-9]+[eE][+-]?[0-9]+/,
    )),

    string_literal: _ => token(seq('"', repeat(choice(/[^"\\\n]/, /\\./)), '"')),

    // PTX sources may go through the C preprocessor (ISA 4.1): `#include`,
    // `#define`, `#if` ... lines are kept whole.
    preprocessor_directive: _ => token(seq('#', /[^\r\n]*/)),

    comment: _ => token(choice(
      seq('//', /[^\r\n]*/),
      seq('/*', /[^*]*\*+([^/*][^*]*\*+)*/, '/'),
    )),

    // (Defined last: its symbol id then sorts after every other token, and a
    // parse-table lookup scans a state's symbols in id order.)
    //
    // A run of whole lines that hold nothing but integers, such as the
    // `.b8 95,90,78,54` and `.b32 10415 // DW_AT_type` lines that make up most
    // of nvcc's DWARF sections: one token, so that tens of thousands of such
    // lines cost the parser a lexer pass rather than a reduction per number.
    // Each line must end in a line break, which the token includes: the lexer
    // keeps its last complete line when a later one turns out to hold anything
    // else (a label, a section name, an expression), and that line then
    // parses as a `data_line` with its full structure. The token is valid in
    // section bodies only.
    data_block: _ => {
      const line = seq(
        /\.b(8|16|32|64)[ \t]+/,
        INTEGER,
        repeat(seq(/[ \t]*,[ \t]*/, INTEGER)),
        /[ \t]*/,
        optional(seq('//', /[^\r\n]*/)),
      );
      return token(seq(line, repeat(seq(/\r?\n[ \t]*/, line)), /\r?\n/));
    },
  },
});

/**
 * One or more `rule`s separated by `separator`.
 * @param {RuleOrLiteral} separator
 * @param {RuleOrLiteral} rule
 * @returns {SeqRule}
 */
function sepBy1(separator, rule) {
  return seq(rule, repeat(seq(separator, rule)));
}

/**
 * Zero or more `rule`s separated by `separator`.
 * @param {RuleOrLiteral} separator
 * @param {RuleOrLiteral} rule
 * @returns {ChoiceRule}
 */
function sepBy(separator, rule) {
  return optional(sepBy1(separator, rule));
}

/**
 * `repeat(rule)` with its first `count` repetitions spelled out: the parser
 * then builds no hidden repetition nodes for short sequences (fewer
 * reductions per token on the common instruction shapes); the tree is the same.
 * @param {RuleOrLiteral} rule
 * @param {number} count
 * @returns {Rule}
 */
function unrolledRepeat(rule, count) {
  /** @type {Rule} */
  let tail = repeat(rule);
  for (let i = 0; i < count; i++) {
    tail = optional(seq(rule, tail));
  }
  return tail;
}

/**
 * `sepBy1(separator, rule)` with the first `count` repetitions spelled out
 * (see `unrolledRepeat`).
 * @param {RuleOrLiteral} separator
 * @param {RuleOrLiteral} rule
 * @param {number} count
 * @returns {SeqRule}
 */
function unrolledSepBy1(separator, rule, count) {
  return seq(rule, unrolledRepeat(seq(separator, rule), count));
}
