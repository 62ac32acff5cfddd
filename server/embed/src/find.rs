//! Finding `asm(...)` statements in CUDA C++ with the tree-sitter CUDA grammar.
//!
//! The grammar (crate `tree-sitter-cuda`, a superset of tree-sitter-cpp that also knows
//! `__global__`/`__device__` and `<<<...>>>` launches) parses GNU asm statements into
//! `gnu_asm_expression` nodes. Two places hide asm from it: `#define` bodies (kept as one
//! `preproc_arg` token) and regions the parser could not make sense of (macro calls such as
//! `NV_IF_TARGET(NV_PROVIDES_SM_90, (asm(...);))`). A token scan over the whole file finds
//! every `asm`/`__asm__` keyword outside comments and literals that no node covers, and
//! re-parses just that statement (line continuations blanked, offsets kept), so unparseable
//! C++ never hides an asm statement that can be found.

use ptx_syntax::TextRange;
use tree_sitter::{Node, Parser, Tree};

use crate::literal::{decode_literal, Decoded};

/// One operand of an asm statement, `[symbol] "constraint" (expression)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsmOperand {
    /// Its number in the template (`%0` ...): outputs first, then inputs.
    pub index: usize,
    /// `[name]` for `%[name]`, if given.
    pub symbol: Option<String>,
    /// The constraint with its modifiers, e.g. `=r`, `+l`, `n`.
    pub constraint: String,
    pub constraint_range: TextRange,
    /// The C++ expression, as written.
    pub expression: String,
    pub expression_range: TextRange,
    /// In the output list.
    pub is_output: bool,
}

impl AsmOperand {
    /// The constraint letter without its `=`/`+`/`&` modifiers.
    pub fn letter(&self) -> char {
        self.constraint
            .chars()
            .find(|c| !matches!(c, '=' | '+' | '&' | '%' | '?' | '!' | '*' | '#' | '^'))
            .unwrap_or('r')
    }

    /// `+` constraints are read and written.
    pub fn is_read(&self) -> bool {
        !self.is_output || self.constraint.contains('+')
    }
}

/// An asm statement as found in the host text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawAsm {
    /// The `asm` / `__asm__` keyword.
    pub keyword: TextRange,
    /// The whole statement, keyword to closing parenthesis.
    pub range: TextRange,
    /// The decoded template with its map into the host text.
    pub template: Decoded,
    /// The template has a part the parser cannot see through (a macro name between literals).
    pub opaque: bool,
    /// Extended asm (with `:` sections): `%` introduces operands and `%%` is a percent sign.
    pub extended: bool,
    pub operands: Vec<AsmOperand>,
    pub clobbers: Vec<String>,
    /// Inside a `#define` body.
    pub in_macro: bool,
}

/// A fresh parser for CUDA C++.
pub fn cuda_parser() -> Parser {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_cuda::LANGUAGE.into())
        .expect("the bundled CUDA grammar matches the linked tree-sitter ABI");
    parser
}

/// Parses `text` and returns the tree and every asm statement in it, in source order.
pub fn find(text: &str) -> (Tree, Vec<RawAsm>) {
    let mut parser = cuda_parser();
    let tree = parser
        .parse(text, None)
        .unwrap_or_else(|| parser.parse("", None).expect("empty text parses"));
    let mut found = Vec::new();
    collect(tree.root_node(), text, 0, false, &mut found);
    let mut covered: Vec<TextRange> = found.iter().map(|a| a.range.clone()).collect();
    for keyword in asm_keywords(text) {
        if covered
            .iter()
            .any(|r| r.start <= keyword && keyword < r.end)
        {
            continue;
        }
        if let Some(stmt) = reparse_at(&mut parser, text, keyword, &tree) {
            covered.push(stmt.range.clone());
            found.push(stmt);
        }
    }
    found.sort_by_key(|a| a.range.start);
    (tree, found)
}

fn collect(node: Node, text: &str, shift: isize, in_macro: bool, out: &mut Vec<RawAsm>) {
    if node.kind() == "gnu_asm_expression" {
        if let Some(a) = read_asm(node, text, shift, in_macro) {
            out.push(a);
        }
        return;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        collect(child, text, shift, in_macro, out);
    }
}

fn span(node: Node, shift: isize) -> TextRange {
    let s = |v: usize| (v as isize + shift) as usize;
    s(node.start_byte())..s(node.end_byte())
}

/// Reads an asm node of a tree over `text`, whose offsets are host offsets minus `shift`.
fn read_asm(node: Node, text: &str, shift: isize, in_macro: bool) -> Option<RawAsm> {
    let keyword = node.child(0)?;
    let code = node.child_by_field_name("assembly_code")?;
    let mut template = Decoded::default();
    let mut opaque = false;
    let mut literals = Vec::new();
    if code.kind() == "concatenated_string" {
        let mut cursor = code.walk();
        for part in code.named_children(&mut cursor) {
            match part.kind() {
                "string_literal" | "raw_string_literal" => literals.push(part),
                _ => opaque = true,
            }
        }
    } else {
        literals.push(code);
    }
    for lit in literals {
        let mut piece = Decoded::default();
        decode_literal(text, lit.start_byte()..lit.end_byte(), &mut piece);
        let at = template.text.len();
        template.text.push_str(&piece.text);
        let host_map = piece.map.with_host_shift(shift);
        template
            .map
            .push_slice(&host_map, 0..piece.text.len(), at as isize);
    }
    let mut extended = false;
    let mut operands = Vec::new();
    let mut clobbers = Vec::new();
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        match child.kind() {
            "gnu_asm_output_operand_list" | "gnu_asm_input_operand_list" => {
                extended = true;
                let is_output = child.kind() == "gnu_asm_output_operand_list";
                let mut c2 = child.walk();
                for op in child.named_children(&mut c2) {
                    if !op.kind().starts_with("gnu_asm_") {
                        continue;
                    }
                    let constraint = op.child_by_field_name("constraint");
                    let value = op.child_by_field_name("value");
                    let symbol = op.child_by_field_name("symbol");
                    let mut cdec = Decoded::default();
                    if let Some(c) = constraint {
                        decode_literal(text, c.start_byte()..c.end_byte(), &mut cdec);
                    }
                    operands.push(AsmOperand {
                        index: 0,
                        symbol: symbol.map(|s| text[s.start_byte()..s.end_byte()].to_string()),
                        constraint: cdec.text,
                        constraint_range: constraint.map(|c| span(c, shift)).unwrap_or(0..0),
                        expression: value
                            .map(|v| text[v.start_byte()..v.end_byte()].to_string())
                            .unwrap_or_default(),
                        expression_range: value.map(|v| span(v, shift)).unwrap_or(0..0),
                        is_output,
                    });
                }
            }
            "gnu_asm_clobber_list" | "gnu_asm_goto_list" => {
                extended = true;
                let mut c2 = child.walk();
                for reg in child.named_children(&mut c2) {
                    let mut d = Decoded::default();
                    decode_literal(text, reg.start_byte()..reg.end_byte(), &mut d);
                    clobbers.push(d.text);
                }
            }
            _ => {}
        }
    }
    // Outputs come first in the numbering whatever order the lists were read in.
    operands.sort_by_key(|o| !o.is_output);
    for (i, o) in operands.iter_mut().enumerate() {
        o.index = i;
    }
    Some(RawAsm {
        keyword: span(keyword, shift),
        range: span(node, shift),
        template,
        opaque,
        extended,
        operands,
        clobbers,
        in_macro,
    })
}

/// Offsets of `asm`, `__asm` and `__asm__` keywords outside comments, string and character
/// literals.
fn asm_keywords(text: &str) -> Vec<usize> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            }
            b'"' | b'\'' => i = skip_literal(b, i),
            c if c == b'_' || c.is_ascii_alphabetic() => {
                let start = i;
                while i < b.len() && (b[i] == b'_' || b[i].is_ascii_alphanumeric()) {
                    i += 1;
                }
                if matches!(&text[start..i], "asm" | "__asm" | "__asm__") {
                    out.push(start);
                }
                // A raw string `R"(...)"` right after an identifier-like prefix.
                if i < b.len() && b[i] == b'"' && text[start..i].ends_with('R') {
                    i = text[i..].find(")\"").map_or(b.len(), |e| i + e + 2);
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// The index after the literal starting with the quote at `i`.
fn skip_literal(b: &[u8], i: usize) -> usize {
    let quote = b[i];
    let mut j = i + 1;
    while j < b.len() && b[j] != quote && b[j] != b'\n' {
        if b[j] == b'\\' {
            j += 1;
        }
        j += 1;
    }
    (j + 1).min(b.len())
}

/// Re-parses the statement that starts with the keyword at `keyword`, as the only statement
/// of a function body.
fn reparse_at(parser: &mut Parser, text: &str, keyword: usize, tree: &Tree) -> Option<RawAsm> {
    let b = text.as_bytes();
    let mut i = keyword;
    while i < b.len() && b[i] != b'(' {
        if b[i] == b';' || b[i] == b'{' || b[i] == b'}' {
            return None;
        }
        i += 1;
    }
    let mut depth = 0usize;
    let mut end = None;
    while i < b.len() {
        match b[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    end = Some(i + 1);
                    break;
                }
            }
            b'"' | b'\'' => {
                i = skip_literal(b, i);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    let end = end?;
    // Line continuations become blanks of the same length so offsets do not move.
    let body = text[keyword..end]
        .replace("\\\r\n", "   ")
        .replace("\\\n", "  ");
    const PREFIX: &str = "void __ptx_embed(){";
    let snippet = format!("{PREFIX}{body};}}");
    let sub = parser.parse(&snippet, None)?;
    let in_macro = in_define(tree, keyword);
    let mut found = Vec::new();
    let shift = keyword as isize - PREFIX.len() as isize;
    collect(sub.root_node(), &snippet, shift, in_macro, &mut found);
    found.into_iter().next()
}

fn in_define(tree: &Tree, offset: usize) -> bool {
    let mut node = tree
        .root_node()
        .descendant_for_byte_range(offset, offset + 1);
    while let Some(n) = node {
        if matches!(n.kind(), "preproc_def" | "preproc_function_def") {
            return true;
        }
        node = n.parent();
    }
    false
}
