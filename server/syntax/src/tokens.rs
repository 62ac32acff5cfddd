//! The flat token stream of a parse, each token classified by its syntactic role.
//!
//! Editors need tokens rather than trees for several features: semantic
//! highlighting colours each token, the formatter re-emits them with new
//! whitespace (and its round-trip test compares token streams), and navigation
//! looks for every occurrence of a name. [`Parse::tokens`] yields every leaf of
//! the tree in source order, comments included, with a [`TokenKind`] that says
//! what the token is *syntactically*. Semantic questions (is `%tid` a special
//! register? which declaration does `%r1` refer to?) belong to the analyses.
//!
//! [`Parse::enclosing_ranges`] lists the ranges of the nodes around an offset,
//! innermost first, for selection ranges.

use tree_sitter::{Node, TreeCursor};

use crate::kinds::{self as k, NodeExt as _};
use crate::parse::Parse;
use crate::TextRange;

/// What a name (an identifier or a register) does where it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NameRole {
    /// A use: an operand, a guard, an address, an initializer, `.alias` ...
    Reference,
    /// The name of an `.entry` or `.func` being declared or defined.
    Function,
    /// `name:` defines a label.
    Label,
    /// A declarator of a variable or register declaration.
    Variable,
    /// A declarator of a function parameter (or return parameter).
    Parameter,
    /// An architecture name after `.target`.
    Target,
    /// A field of a sampler initializer (`filter_mode = nearest`).
    Field,
}

/// The syntactic class of one token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// `// ...` or `/* ... */`.
    Comment,
    /// A C preprocessor line (`#include ...`).
    Preprocessor,
    /// A directive keyword or modifier: `.version`, `.entry`, `.visible`,
    /// `.align`, `.maxntid`, `.ptr`, `function_name`, `@@DWARF` ...
    Keyword,
    /// `.reg`, `.global`, `.param` ...
    StateSpace,
    /// `.b32`, `.f16x2`, `.pred`, and vector types `.v4`.
    Type,
    /// The first word of an instruction's opcode (`ld` in `ld.global.f32`).
    Mnemonic,
    /// One `.qualifier` of an opcode (or the `.unified` suffix of an address).
    Qualifier,
    /// `.x` of `%tid.x`, `.b0` of `r2.b0`.
    Component,
    /// A `%name`: a register or a special register.
    Register(NameRole),
    /// A plain name: label, function, variable, parameter ...
    Identifier(NameRole),
    Integer,
    Float,
    String,
    /// `.debug_info` and other section names.
    SectionName,
    /// Arithmetic, logical and comparison operators, `@` and `!` of guards.
    Operator,
    /// Brackets, braces, parentheses, `,`, `;`, `:`, `=`, `<`/`>` of `%r<4>`.
    Punctuation,
    /// `_`
    Sink,
    /// Anything else (the raw text of a `@@DWARF` line, unknown text in an error).
    Other,
}

/// A token: its class and byte range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxToken {
    pub kind: TokenKind,
    pub range: TextRange,
}

/// Named nodes that are single tokens even though tree-sitter gives some of
/// them an anonymous child (`type` → `.b32`).
fn is_atomic(kind: &str) -> bool {
    matches!(
        kind,
        k::TYPE
            | k::VECTOR_TYPE
            | k::STATE_SPACE
            | k::LINKAGE
            | k::QUALIFIER
            | k::COMPONENT
            | k::REGISTER
            | k::IDENTIFIER
            | k::INTEGER_LITERAL
            | k::FLOAT_LITERAL
            | k::STRING_LITERAL
            | k::COMMENT
            | k::PREPROCESSOR_DIRECTIVE
            | k::SECTION_NAME
            | k::SECTION_REFERENCE
            | k::PTR_ATTRIBUTE
            | k::SINK
            | k::DWARF_DIRECTIVE
    )
}

impl Parse {
    /// Every token of the text in source order, comments included. Missing
    /// (zero-width) tokens that error recovery invented are left out.
    pub fn tokens(&self) -> Vec<SyntaxToken> {
        self.tokens_in(0..self.text().len())
    }

    /// The tokens that overlap `range` (an empty range selects the tokens
    /// touching that offset), in source order. Only the parts of the tree
    /// that intersect the range are visited.
    pub fn tokens_in(&self, range: TextRange) -> Vec<SyntaxToken> {
        let mut out = Vec::new();
        let mut cursor = self.tree().walk();
        let mut ancestors: Vec<&'static str> = Vec::new();
        walk(&mut cursor, &range, &mut ancestors, self.text(), &mut out);
        out
    }

    /// The ranges of the comment tokens of the text, in source order: the same
    /// as the [`TokenKind::Comment`] tokens of [`tokens`](Self::tokens), found
    /// without walking every token. The text is scanned for `//` and `/*`
    /// outside string literals and preprocessor lines, and each candidate is
    /// confirmed by the tree (a comment node of exactly that range, or a line
    /// comment inside a data block), so a look-up per comment replaces a walk
    /// over the whole tree.
    pub fn comments(&self) -> Vec<TextRange> {
        let src = self.text();
        let bytes = src.as_bytes();
        let root = self.tree().root_node();
        let line_end = |from: usize| {
            bytes[from..]
                .iter()
                .position(|&b| b == b'\n' || b == b'\r')
                .map_or(bytes.len(), |n| from + n)
        };
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            let (candidate, next) = match bytes[i] {
                b'"' => {
                    let mut j = i + 1;
                    while j < bytes.len() && !matches!(bytes[j], b'"' | b'\n') {
                        j += if bytes[j] == b'\\' { 2 } else { 1 };
                    }
                    (None, j + 1)
                }
                b'#' => (None, line_end(i)),
                b'/' if bytes.get(i + 1) == Some(&b'/') => {
                    let end = line_end(i);
                    (Some(i..end), end)
                }
                b'/' if bytes.get(i + 1) == Some(&b'*') => match src[i + 2..].find("*/") {
                    Some(n) => (Some(i..i + 2 + n + 2), i + 2 + n + 2),
                    None => (None, i + 2),
                },
                _ => (None, i + 1),
            };
            if let Some(range) = candidate {
                let confirmed = root
                    .descendant_for_byte_range(range.start, range.end)
                    .is_some_and(|node| match kind_name(node) {
                        k::COMMENT => node.byte_range() == range,
                        k::DATA_BLOCK => bytes[range.start + 1] == b'/',
                        _ => false,
                    });
                if confirmed {
                    out.push(range);
                } else {
                    // Not a comment to the tree (inside a token it reads otherwise):
                    // look again from the next character.
                    i += 1;
                    continue;
                }
            }
            i = next;
        }
        out
    }

    /// The ranges of the token at `offset` and of every node around it,
    /// innermost first and without repeats; the last one is the whole text.
    pub fn enclosing_ranges(&self, offset: usize) -> Vec<TextRange> {
        let root = self.tree().root_node();
        let mut node = root
            .descendant_for_byte_range(offset, offset)
            .unwrap_or(root);
        // In blank space at the end of the text, select what comes before it.
        if node == root && offset > 0 {
            if let Some(before) = root.descendant_for_byte_range(offset - 1, offset - 1) {
                node = before;
            }
        }
        let mut out: Vec<TextRange> = Vec::new();
        // A data block is one leaf: its innermost range is the token of one
        // of its lines at the offset.
        if matches!(kind_name(node), k::DATA_BLOCK | k::INTEGER_RUN) {
            let mut inside = Vec::new();
            let text = &self.text()[node.byte_range()];
            data_block_tokens(node.start_byte(), text, &(offset..offset), &mut inside);
            out.extend(inside.into_iter().map(|t| t.range).take(1));
        }
        let mut current = Some(node);
        while let Some(n) = current {
            let range = n.byte_range();
            if out.last() != Some(&range) {
                out.push(range);
            }
            current = n.parent();
        }
        let whole = 0..self.text().len();
        if out.last() != Some(&whole) {
            out.push(whole);
        }
        out
    }
}

fn kind_name(node: Node<'_>) -> &'static str {
    node.kind_name()
}

fn overlaps(node: Node<'_>, range: &TextRange) -> bool {
    spans_overlap(&node.byte_range(), range)
}

/// Whether `span` overlaps `range`; an empty `range` selects the spans that
/// touch its offset.
fn spans_overlap(span: &TextRange, range: &TextRange) -> bool {
    if range.start == range.end {
        span.start <= range.start && range.start <= span.end
    } else {
        span.start < range.end && range.start < span.end
    }
}

/// The tokens of a `data_block`, which the grammar lexes as one token: runs of
/// lines such as `.b8 95,90,78,54` or `.b32 10415 // DW_AT_type`, nothing but a
/// type, integers, commas and a trailing comment. Its text is scanned here so
/// that the stream holds the same tokens those lines would have as
/// `data_line`s (`.b8` a type, each integer, each comma, the comment), and only
/// when tokens are asked for. An `integer_run` of an initializer (integers, each
/// followed by a comma) is split the same way. `start` is the block's offset in
/// the document.
fn data_block_tokens(start: usize, text: &str, range: &TextRange, out: &mut Vec<SyntaxToken>) {
    let bytes = text.as_bytes();
    let word_end = |from: usize| {
        bytes[from..]
            .iter()
            .position(|b| !b.is_ascii_alphanumeric())
            .map_or(bytes.len(), |n| from + n)
    };
    let mut i = 0;
    while i < bytes.len() {
        let (kind, end) = match bytes[i] {
            b if b.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            b'/' => {
                let end = bytes[i..]
                    .iter()
                    .position(|&b| b == b'\n' || b == b'\r')
                    .map_or(bytes.len(), |n| i + n);
                (TokenKind::Comment, end)
            }
            b',' => (TokenKind::Punctuation, i + 1),
            b'.' => (TokenKind::Type, word_end(i + 1)),
            _ => (TokenKind::Integer, word_end(i + 1)),
        };
        let span = start + i..start + end;
        if span.start > range.end {
            break;
        }
        if spans_overlap(&span, range) {
            out.push(SyntaxToken { kind, range: span });
        }
        i = end;
    }
}

/// Depth-first walk with a cursor, keeping the kinds of the ancestors so that
/// each token can be classified by its parent without `Node::parent` calls.
fn walk(
    cursor: &mut TreeCursor<'_>,
    range: &TextRange,
    ancestors: &mut Vec<&'static str>,
    src: &str,
    out: &mut Vec<SyntaxToken>,
) {
    let node = cursor.node();
    if !overlaps(node, range) {
        return;
    }
    // Between top-level items: a cancelled analysis stops here (its result is thrown away).
    if ancestors.len() == 1 && crate::cancel::cancelled() {
        return;
    }
    if node.is_missing() {
        return;
    }
    if matches!(kind_name(node), k::DATA_BLOCK | k::INTEGER_RUN) {
        data_block_tokens(node.start_byte(), &src[node.byte_range()], range, out);
        return;
    }
    if is_atomic(kind_name(node)) || node.child_count() == 0 {
        if node.start_byte() < node.end_byte() {
            // Only names are classified by their field; asking the cursor costs a walk up
            // through hidden repetition nodes (long in a million-element initializer).
            let field = if matches!(kind_name(node), k::REGISTER | k::IDENTIFIER) {
                cursor.field_name()
            } else {
                None
            };
            out.push(SyntaxToken {
                kind: classify(node, field, ancestors, src),
                range: node.byte_range(),
            });
        }
        return;
    }
    if !cursor.goto_first_child() {
        return;
    }
    ancestors.push(kind_name(node));
    loop {
        let child = cursor.node();
        // Children are ordered: once one starts after the range, stop.
        if child.start_byte() > range.end {
            break;
        }
        walk(cursor, range, ancestors, src, out);
        if !cursor.goto_next_sibling() {
            break;
        }
    }
    ancestors.pop();
    cursor.goto_parent();
}

fn classify(node: Node<'_>, field: Option<&str>, ancestors: &[&str], src: &str) -> TokenKind {
    let parent = ancestors.last().copied().unwrap_or(k::MODULE);
    let grandparent = ancestors
        .len()
        .checked_sub(2)
        .map(|i| ancestors[i])
        .unwrap_or(k::MODULE);
    match kind_name(node) {
        k::COMMENT => TokenKind::Comment,
        k::PREPROCESSOR_DIRECTIVE => TokenKind::Preprocessor,
        k::TYPE | k::VECTOR_TYPE => TokenKind::Type,
        k::STATE_SPACE => TokenKind::StateSpace,
        // A `@@DWARF` line is one token: its text is opaque to the grammar.
        k::LINKAGE | k::PTR_ATTRIBUTE | k::DWARF_DIRECTIVE => TokenKind::Keyword,
        k::QUALIFIER => TokenKind::Qualifier,
        k::COMPONENT => TokenKind::Component,
        k::INTEGER_LITERAL => TokenKind::Integer,
        k::FLOAT_LITERAL => TokenKind::Float,
        k::STRING_LITERAL => TokenKind::String,
        k::SECTION_NAME | k::SECTION_REFERENCE => TokenKind::SectionName,
        k::SINK => TokenKind::Sink,
        k::REGISTER => TokenKind::Register(name_role(parent, grandparent, field)),
        k::IDENTIFIER => {
            if parent == k::INSTRUCTION && field == Some(k::FIELD_MNEMONIC) {
                TokenKind::Mnemonic
            } else {
                TokenKind::Identifier(name_role(parent, grandparent, field))
            }
        }
        _ if node.is_error() => TokenKind::Other,
        _ if node.is_named() => TokenKind::Other,
        kind => classify_anonymous(kind, parent, &src[node.byte_range()]),
    }
}

fn name_role(parent: &str, grandparent: &str, field: Option<&str>) -> NameRole {
    match (parent, field) {
        (k::LABEL_DECLARATION, Some(k::FIELD_NAME)) => NameRole::Label,
        (k::FUNCTION_DEFINITION | k::FUNCTION_DECLARATION, Some(k::FIELD_NAME)) => {
            NameRole::Function
        }
        (k::DECLARATOR, Some(k::FIELD_NAME)) if grandparent == k::PARAMETER_DECLARATION => {
            NameRole::Parameter
        }
        (k::DECLARATOR, Some(k::FIELD_NAME)) => NameRole::Variable,
        (k::TARGET_DIRECTIVE, _) => NameRole::Target,
        (k::SAMPLER_FIELD, Some(k::FIELD_NAME)) => NameRole::Field,
        _ => NameRole::Reference,
    }
}

fn classify_anonymous(kind: &str, parent: &str, text: &str) -> TokenKind {
    if text.starts_with('.') || text.starts_with("@@") {
        return TokenKind::Keyword;
    }
    if text.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
        // `function_name`, `inlined_at`, `generic(`.
        return TokenKind::Keyword;
    }
    match kind {
        "(" | ")" | "[" | "]" | "{" | "}" | "," | ";" => TokenKind::Punctuation,
        ":" if parent == k::CONDITIONAL_EXPRESSION => TokenKind::Operator,
        ":" => TokenKind::Punctuation,
        "<" | ">" if parent == k::DECLARATOR => TokenKind::Punctuation,
        "=" => TokenKind::Punctuation,
        "@" | "!" | "|" | "?" | "+" | "-" | "*" | "/" | "%" | "<<" | ">>" | "&" | "^" | "~"
        | "&&" | "||" | "==" | "!=" | "<" | "<=" | ">" | ">=" => TokenKind::Operator,
        _ if parent == k::PREDICATE_GUARD || parent == k::BINARY_EXPRESSION => TokenKind::Operator,
        _ => TokenKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    fn render(parse: &Parse, tokens: &[SyntaxToken]) -> String {
        tokens
            .iter()
            .map(|t| format!("{:?} {:?}\n", t.kind, &parse.text()[t.range.clone()]))
            .collect()
    }

    #[test]
    fn every_token_is_classified() {
        let parse = Parse::new(
            ".version 9.1 // v\n.visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<2>;\n\
             @!%p1 ld.global.v2.f32 {%f1, _}, [p+8];\nL1: mov.u32 %r1, %tid.x;\nbra L1;\n}\n",
        );
        expect![[r#"
            Keyword ".version"
            Float "9.1"
            Comment "// v"
            Keyword ".visible"
            Keyword ".entry"
            Identifier(Function) "k"
            Punctuation "("
            StateSpace ".param"
            Type ".u64"
            Identifier(Parameter) "p"
            Punctuation ")"
            Punctuation "{"
            StateSpace ".reg"
            Type ".b32"
            Register(Variable) "%r"
            Punctuation "<"
            Integer "2"
            Punctuation ">"
            Punctuation ";"
            Operator "@"
            Operator "!"
            Register(Reference) "%p1"
            Mnemonic "ld"
            Qualifier ".global"
            Qualifier ".v2"
            Qualifier ".f32"
            Punctuation "{"
            Register(Reference) "%f1"
            Punctuation ","
            Sink "_"
            Punctuation "}"
            Punctuation ","
            Punctuation "["
            Identifier(Reference) "p"
            Operator "+"
            Integer "8"
            Punctuation "]"
            Punctuation ";"
            Identifier(Label) "L1"
            Punctuation ":"
            Mnemonic "mov"
            Qualifier ".u32"
            Register(Reference) "%r1"
            Punctuation ","
            Register(Reference) "%tid"
            Component ".x"
            Punctuation ";"
            Mnemonic "bra"
            Identifier(Reference) "L1"
            Punctuation ";"
            Punctuation "}"
        "#]]
        .assert_eq(&render(&parse, &parse.tokens()));
    }

    /// Lines of integers parse as one `data_block`; its tokens are those the
    /// lines have as `data_line`s. With bare `\r` line breaks (whitespace to
    /// the grammar, but no line end to the block) the same lines parse as
    /// `data_line`s at the same offsets, so the two streams must be equal.
    #[test]
    fn data_block_tokens_are_those_of_its_lines() {
        let text = ".section .debug_info\n{\n.b32 10415 // DW_AT_type\n\t.b8 95,90 ,0x4e,\t017U\n\
                    .b64 $L__func_begin0\n$L__info0:\n.b16 0b101 //\n.b8 1\n}\n";
        let parse = Parse::new(text);
        let sexp = parse.tree().root_node().to_sexp();
        assert_eq!(sexp.matches("(data_block)").count(), 2, "{sexp}");
        let lines = Parse::new(text.replace('\n', "\r"));
        let sexp = lines.tree().root_node().to_sexp();
        assert!(
            !sexp.contains("data_block") && !sexp.contains("ERROR"),
            "{sexp}"
        );
        assert_eq!(parse.tokens(), lines.tokens());
        expect![[r#"
            Keyword ".section"
            SectionName ".debug_info"
            Punctuation "{"
            Type ".b32"
            Integer "10415"
            Comment "// DW_AT_type"
            Type ".b8"
            Integer "95"
            Punctuation ","
            Integer "90"
            Punctuation ","
            Integer "0x4e"
            Punctuation ","
            Integer "017U"
            Type ".b64"
            Identifier(Reference) "$L__func_begin0"
            Identifier(Label) "$L__info0"
            Punctuation ":"
            Type ".b16"
            Integer "0b101"
            Comment "//"
            Type ".b8"
            Integer "1"
            Punctuation "}"
        "#]]
        .assert_eq(&render(&parse, &parse.tokens()));
        // A range inside a block selects a slice of the block's tokens.
        let all = parse.tokens();
        for (start, end) in [
            (text.find("90").unwrap(), text.find("017").unwrap() + 1),
            (
                text.find("0x4e").unwrap() + 1,
                text.find("0x4e").unwrap() + 1,
            ),
        ] {
            let some = parse.tokens_in(start..end);
            let first = all.iter().position(|t| t == &some[0]).unwrap();
            assert_eq!(some, all[first..first + some.len()]);
        }
    }

    /// Sixteen or more integers of an initializer, each followed by a comma, parse as one
    /// `integer_run`; its tokens are those the numbers have one by one (fewer numbers, or a
    /// number followed by an operator, stay separate leaves).
    #[test]
    fn integer_run_tokens_are_those_of_its_numbers() {
        let numbers: Vec<String> = (0..18).map(|i| format!("{i}")).collect();
        let run = format!(
            ".global .u32 t[20] = {{{}, 0x1f + 1}};\n.global .u32 s[3] = {{1, 2, 3}};\n",
            numbers.join(",\n ")
        );
        let parse = Parse::new(run.as_str());
        let sexp = parse.tree().root_node().to_sexp();
        assert_eq!(sexp.matches("(integer_run)").count(), 1, "{sexp}");
        assert!(!sexp.contains("ERROR"), "{sexp}");
        // The same values one to a declaration's list of three parse as leaves: the token
        // stream of the run is that of its numbers and commas.
        let tokens: Vec<String> = parse
            .tokens()
            .iter()
            .map(|t| format!("{:?} {}", t.kind, &run[t.range.clone()]))
            .collect();
        let numbers_and_commas: Vec<String> = tokens
            .iter()
            .skip_while(|t| t.as_str() != "Punctuation {")
            .skip(1)
            .take(2 * 17)
            .cloned()
            .collect();
        let expected: Vec<String> = (0..17)
            .flat_map(|i| [format!("Integer {i}"), "Punctuation ,".to_owned()])
            .collect();
        assert_eq!(numbers_and_commas, expected);
        // A range inside the run selects a slice of its tokens.
        let all = parse.tokens();
        let (start, end) = (run.find("5,").unwrap(), run.find("9,").unwrap() + 1);
        let some = parse.tokens_in(start..end);
        let first = all.iter().position(|t| t == &some[0]).unwrap();
        assert_eq!(some, all[first..first + some.len()]);
        assert_eq!(&run[some[0].range.clone()], "5");
    }

    #[test]
    fn enclosing_ranges_in_a_data_block_start_at_its_token() {
        let text = ".section .debug_info\n{\n.b8 95,90\n.b32 10415\n}\n";
        let parse = Parse::new(text);
        let offset = text.find("10415").unwrap() + 2;
        let ranges: Vec<&str> = parse
            .enclosing_ranges(offset)
            .into_iter()
            .map(|r| &text[r])
            .collect();
        expect![[r#"
            [
                "10415",
                ".b8 95,90\n.b32 10415\n",
                ".section .debug_info\n{\n.b8 95,90\n.b32 10415\n}",
                ".section .debug_info\n{\n.b8 95,90\n.b32 10415\n}\n",
            ]
        "#]]
        .assert_debug_eq(&ranges);
    }

    #[test]
    fn tokens_cover_the_text_except_whitespace() {
        for text in [
            ".version 9.1\n.target sm_90\n.global .align 4 .b8 a[4] = {1, 2, 3, 4};\n",
            ".entry k() { add.s32 %r1, %r2, (1 << 4) % 3; }",
            "mov.u32 %r1 %r2\n}}} garbage ;;",
            "#include <x.h>\n.section .debug_info { .b8 1, 2 }\n@@DWARF .byte 1\n",
        ] {
            let parse = Parse::new(text);
            let mut covered = vec![false; text.len()];
            let mut last_end = 0;
            for token in parse.tokens() {
                assert!(token.range.start >= last_end, "tokens overlap in {text:?}");
                last_end = token.range.end;
                covered[token.range.clone()].fill(true);
            }
            for (i, byte) in text.bytes().enumerate() {
                assert!(
                    covered[i] || byte.is_ascii_whitespace(),
                    "byte {i} ({:?}) of {text:?} is in no token",
                    byte as char
                );
            }
        }
    }

    /// Every corpus file: tokens are ordered, disjoint, and cover every
    /// non-blank byte.
    #[test]
    fn tokens_cover_every_corpus_file() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
        let mut files = 0;
        for dir in ["nvcc", "triton"] {
            for entry in std::fs::read_dir(root.join(dir)).expect("corpus folder") {
                let path = entry.expect("corpus entry").path();
                let text = std::fs::read_to_string(&path).expect("corpus file");
                let parse = Parse::new(text.as_str());
                let mut next = 0;
                for token in parse.tokens() {
                    let gap = &text[next..token.range.start];
                    assert!(
                        gap.bytes().all(|b| b.is_ascii_whitespace()),
                        "{}: {gap:?} before byte {} is in no token",
                        path.display(),
                        token.range.start
                    );
                    next = token.range.end;
                }
                assert!(text[next..].trim().is_empty());
                files += 1;
            }
        }
        assert!(files > 10);
    }

    #[test]
    fn tokens_in_a_range_are_a_slice_of_all_tokens() {
        let text = ".entry k() { mov.u32 %r1, 1;\n add.s32 %r1, %r1, 2; }\n";
        let parse = Parse::new(text);
        let all = parse.tokens();
        let start = text.find("add").unwrap();
        let some = parse.tokens_in(start..start + 11);
        let first = all.iter().position(|t| t.range.start == start).unwrap();
        assert_eq!(some, all[first..first + some.len()]);
        assert_eq!(&text[some.last().unwrap().range.clone()], "%r1");
    }

    #[test]
    fn enclosing_ranges_go_from_token_to_file() {
        let text = ".entry k() { add.s32 %r1, %r2, 3; }";
        let parse = Parse::new(text);
        let offset = text.find("%r2").unwrap() + 1;
        let ranges: Vec<&str> = parse
            .enclosing_ranges(offset)
            .into_iter()
            .map(|r| &text[r])
            .collect();
        expect![[r#"
            [
                "%r2",
                "%r1, %r2, 3",
                "add.s32 %r1, %r2, 3;",
                "{ add.s32 %r1, %r2, 3; }",
                ".entry k() { add.s32 %r1, %r2, 3; }",
            ]
        "#]]
        .assert_debug_eq(&ranges);
    }
}
