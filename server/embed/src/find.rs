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
    /// The operand list has items that are not `"constraint"(expression)` (macros): the
    /// number and constraints of the operands are not known.
    pub operands_opaque: bool,
    /// Inside a `#define` body.
    pub in_macro: bool,
    /// What the enclosing `#if` guards require of the target.
    pub guard: Option<crate::ArchReq>,
    /// Inside an `#if` branch only a host compiler takes (host assembly, not PTX).
    pub host_only: bool,
    /// Inside an `#if __cccl_ptx_isa >= N` branch for a PTX ISA newer than the one this
    /// checker knows: its instructions cannot be judged.
    pub newer_ptx: bool,
    /// Inside a template, an inline or static function, or a macro body: code that nvcc
    /// compiles only where it is used, so it may never be compiled for a given target.
    pub compiled_on_use: bool,
    /// Inside an `#if` whose condition is not a target this layer reads (a macro another
    /// header defines per architecture): it may never be compiled for a given target either.
    pub opaque_condition: bool,
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
    find_incremental(text, None)
}

/// Like [`find`], re-parsing incrementally from the tree of an earlier version of the text
/// (`previous`: that text and its tree). The edit between the two versions is taken as the
/// span between their common prefix and suffix.
pub fn find_incremental(text: &str, previous: Option<(&str, &Tree)>) -> (Tree, Vec<RawAsm>) {
    let mut parser = cuda_parser();
    let old = previous.map(|(old_text, old_tree)| {
        let mut tree = old_tree.clone();
        tree.edit(&input_edit(old_text, text));
        tree
    });
    let tree = parser
        .parse(text, old.as_ref())
        .or_else(|| parser.parse(text, None))
        .unwrap_or_else(|| parser.parse("", None).expect("empty text parses"));
    // Every keyword outside comments and literals; each is either part of an asm node of the
    // tree (found by walking up from the keyword, not by walking the whole tree) or
    // re-parsed on its own.
    let mut found: Vec<RawAsm> = Vec::new();
    for keyword in asm_keywords(text) {
        if found
            .last()
            .is_some_and(|a| a.range.start <= keyword && keyword < a.range.end)
        {
            continue;
        }
        let innermost = tree
            .root_node()
            .descendant_for_byte_range(keyword, keyword + 1);
        let mut node = innermost;
        let mut statement = None;
        while let Some(n) = node {
            if n.kind() == "gnu_asm_expression" {
                if n.start_byte() == keyword {
                    statement = read_asm(n, text, text, 0, false);
                }
                break;
            }
            node = n.parent();
        }
        if statement.is_none() {
            statement = reparse_at(&mut parser, text, keyword, &tree);
        }
        if let Some(mut s) = statement.filter(|s| s.extended || !is_asm_label(text, keyword)) {
            // The guards, walked up once from the node found above.
            s.guard = crate::target::statement_guard(innermost, text, keyword);
            s.host_only = crate::target::host_only_from(innermost, text);
            s.newer_ptx = crate::target::needs_newer_ptx_from(innermost, text);
            s.compiled_on_use = s.in_macro || compiled_on_use(innermost, text);
            s.opaque_condition = crate::target::under_opaque_condition(innermost, text);
            found.push(s);
        }
    }
    (tree, found)
}

/// Is the code at `start` compiled only where it is used: inside a template, or in a function
/// declared `inline` (`__forceinline__`, `_CCCL_FORCEINLINE` …) or `static`, or a member
/// function defined in its class? Header code is
/// almost always one of these, and nvcc emits PTX for it only when a kernel calls it.
fn compiled_on_use(start: Option<tree_sitter::Node>, text: &str) -> bool {
    let mut node = start;
    while let Some(n) = node {
        match n.kind() {
            // A member function defined in its class body is inline.
            "template_declaration" | "lambda_expression" | "field_declaration_list" => return true,
            "function_definition" => {
                let head_end = n
                    .child_by_field_name("body")
                    .map_or(n.end_byte(), |b| b.start_byte());
                let head = &text[n.start_byte()..head_end];
                if head
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .map(str::to_ascii_lowercase)
                    // Also the qualifier macros headers define for these (`_CCCL_FORCEINLINE`,
                    // `_CUDA_AWBARRIER_STATIC_QUALIFIER`).
                    .any(|word| word.contains("static") || word.contains("inline"))
                {
                    return true;
                }
            }
            _ => {}
        }
        node = n.parent();
    }
    false
}

/// Is the basic asm at `keyword` an asm label of a declaration (`int f(void) asm("name");`,
/// `register int x asm("r1");`), which names a symbol rather than holding instructions?
/// It is one when the token before it (past comments and preprocessor lines) is an
/// identifier other than a statement keyword, or the `)` of a parameter list (a `)` whose
/// `(` follows a name that is not `if`/`while`/`for`/`switch`).
fn is_asm_label(text: &str, keyword: usize) -> bool {
    const STATEMENT_WORDS: &[&str] = &[
        "if",
        "while",
        "for",
        "switch",
        "else",
        "do",
        "return",
        "case",
        "default",
        "constexpr",
        "consteval",
    ];
    let b = text.as_bytes();
    let before = |mut i: usize| -> Option<usize> {
        // The index just past the previous significant byte before `i`.
        loop {
            while i > 0 && b[i - 1].is_ascii_whitespace() {
                i -= 1;
            }
            if i == 0 {
                return None;
            }
            let line_start = text[..i].rfind('\n').map_or(0, |p| p + 1);
            // The start of the logical line (lines continued with a backslash).
            let mut logical = line_start;
            while logical > 0 && text[..logical - 1].trim_end_matches('\r').ends_with('\\') {
                logical = text[..logical - 1].rfind('\n').map_or(0, |p| p + 1);
            }
            if text[logical..i].trim_start().starts_with('#') {
                i = logical;
                continue;
            }
            let line = &text[line_start..i];
            if let Some(c) = line.find("//") {
                if !line[..c].contains('"') {
                    i = line_start + c;
                    continue;
                }
            }
            if text[..i].ends_with("*/") {
                i = text[..i - 2].rfind("/*").unwrap_or(0);
                continue;
            }
            return Some(i);
        }
    };
    let word_before = |end: usize| {
        let start = text[..end]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |p| p + 1);
        &text[start..end]
    };
    let Some(end) = before(keyword) else {
        return false;
    };
    match b[end - 1] {
        b')' => {
            // The matching `(`.
            let mut depth = 0usize;
            let mut i = end;
            while i > 0 {
                i -= 1;
                match b[i] {
                    b')' => depth += 1,
                    b'(' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
            }
            if depth != 0 {
                return false;
            }
            let Some(name_end) = before(i) else {
                return false;
            };
            let name = word_before(name_end);
            !name.is_empty() && !STATEMENT_WORDS.contains(&name)
        }
        c if c.is_ascii_alphanumeric() || c == b'_' => {
            let word = word_before(end);
            !STATEMENT_WORDS.contains(&word)
                && !word.chars().next().is_some_and(|c| c.is_ascii_digit())
        }
        _ => false,
    }
}

/// The edit that turns `old` into `new`: what lies between their common prefix and suffix.
fn input_edit(old: &str, new: &str) -> tree_sitter::InputEdit {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while !new.is_char_boundary(prefix) || !old.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let max_suffix = a.len().min(b.len()) - prefix;
    let mut suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(max_suffix)
        .take_while(|(x, y)| x == y)
        .count();
    while !new.is_char_boundary(b.len() - suffix) || !old.is_char_boundary(a.len() - suffix) {
        suffix -= 1;
    }
    let point = |text: &str, offset: usize| {
        let before = &text.as_bytes()[..offset];
        let row = before.iter().filter(|&&c| c == b'\n').count();
        let column = offset
            - before
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(0, |p| p + 1);
        tree_sitter::Point { row, column }
    };
    tree_sitter::InputEdit {
        start_byte: prefix,
        old_end_byte: a.len() - suffix,
        new_end_byte: b.len() - suffix,
        start_position: point(old, prefix),
        old_end_position: point(old, a.len() - suffix),
        new_end_position: point(new, b.len() - suffix),
    }
}

/// Every asm statement under `node`, in text order, with an explicit stack (C++ nests as
/// deep as its author likes).
fn collect(
    node: Node,
    text: &str,
    host: &str,
    shift: isize,
    in_macro: bool,
    out: &mut Vec<RawAsm>,
) {
    let mut stack = vec![node];
    let mut children = Vec::new();
    while let Some(node) = stack.pop() {
        if node.kind() == "gnu_asm_expression" {
            if let Some(a) = read_asm(node, text, host, shift, in_macro) {
                out.push(a);
            }
            continue;
        }
        let mut cursor = node.walk();
        children.extend(node.children(&mut cursor));
        stack.extend(children.drain(..).rev());
    }
}

fn span(node: Node, shift: isize) -> TextRange {
    let s = |v: usize| (v as isize + shift) as usize;
    s(node.start_byte())..s(node.end_byte())
}

/// Reads an asm node of a tree over `text`, whose offsets are host offsets minus `shift`.
fn read_asm(node: Node, text: &str, host: &str, shift: isize, in_macro: bool) -> Option<RawAsm> {
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
    let keyword = span(keyword, shift);
    let after_template = span(code, shift).end;
    let close = closing_paren(host, after_template)?;
    let sections = parse_sections(host, after_template..close);
    // Text between the literals and the first `:` (a macro such as `STRINGIFY(name)` that the
    // grammar could not join to the literals) leaves the template unknown.
    let between = &host[after_template..close];
    let head = between.split(':').next().unwrap_or("");
    // A `"C"` operand splices a string constant into the template text: that text is unknown.
    let opaque = opaque
        || !head.trim().trim_matches('\\').trim().is_empty()
        || sections.operands.iter().any(|o| o.letter() == 'C');
    Some(RawAsm {
        keyword: keyword.clone(),
        range: keyword.start..close + 1,
        template,
        opaque,
        extended: sections.extended,
        operands: sections.operands,
        clobbers: sections.clobbers,
        operands_opaque: sections.opaque,
        in_macro,
        guard: None,
        host_only: false,
        newer_ptx: false,
        compiled_on_use: false,
        opaque_condition: false,
    })
}

/// What follows the template: `: outputs : inputs : clobbers : labels`.
#[derive(Debug, Default)]
struct Sections {
    extended: bool,
    operands: Vec<AsmOperand>,
    clobbers: Vec<String>,
    opaque: bool,
}

/// Reads the operand sections from the host text between the template and the closing
/// parenthesis. Items that are not `[name] "constraint" (expression)` (a macro that expands
/// to operands) make the operand list opaque: their number and constraints are unknown.
fn parse_sections(host: &str, range: TextRange) -> Sections {
    let mut out = Sections::default();
    let text = &host[range.clone()];
    let sections = split_top(text, b':');
    if sections.len() <= 1 {
        out.opaque = !text.trim().is_empty() && !text.trim().starts_with(')');
        return out;
    }
    out.extended = true;
    for (n, section) in sections.iter().enumerate().skip(1) {
        for item in split_top(&text[section.clone()], b',') {
            let item_range =
                range.start + section.start + item.start..range.start + section.start + item.end;
            let raw = &host[item_range.clone()];
            if raw.trim().trim_matches('\\').trim().is_empty() {
                continue;
            }
            match n {
                1 | 2 => match parse_operand(host, item_range, n == 1) {
                    Some(op) => out.operands.push(op),
                    None => out.opaque = true,
                },
                3 => {
                    let mut d = Decoded::default();
                    let t = raw.trim();
                    let at = item_range.start + raw.find(t).unwrap_or(0);
                    decode_literal(host, at..at + t.len(), &mut d);
                    out.clobbers.push(d.text);
                }
                _ => {}
            }
        }
    }
    // Outputs come first in the numbering.
    out.operands.sort_by_key(|o| !o.is_output);
    for (i, o) in out.operands.iter_mut().enumerate() {
        o.index = i;
    }
    out
}

fn parse_operand(host: &str, range: TextRange, is_output: bool) -> Option<AsmOperand> {
    let b = host.as_bytes();
    let mut i = range.start;
    let skip_ws = |mut i: usize| {
        while i < range.end && (b[i].is_ascii_whitespace() || b[i] == b'\\') {
            i += 1;
        }
        i
    };
    i = skip_ws(i);
    let mut symbol = None;
    if b.get(i) == Some(&b'[') {
        let close = host[i..range.end].find(']')? + i;
        symbol = Some(host[i + 1..close].trim().to_string());
        i = skip_ws(close + 1);
    }
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let lit_end = skip_literal(b, i);
    let constraint_range = i..lit_end;
    let mut constraint = Decoded::default();
    decode_literal(host, constraint_range.clone(), &mut constraint);
    i = skip_ws(lit_end);
    if b.get(i) != Some(&b'(') {
        return None;
    }
    let close = matching_paren(host, i)?;
    if close >= range.end {
        return None;
    }
    let expression_range = i + 1..close;
    Some(AsmOperand {
        index: 0,
        symbol,
        constraint: constraint.text,
        constraint_range,
        expression: host[expression_range.clone()].trim().to_string(),
        expression_range,
        is_output,
    })
}

/// Splits `text` at `sep` outside parentheses, brackets, literals and comments; ranges into
/// `text`.
fn split_top(text: &str, sep: u8) -> Vec<TextRange> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut last = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
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
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            c if c == sep && depth == 0 => {
                out.push(last..i);
                last = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(last..b.len());
    out
}

/// The offset of the `)` that closes the first `(` at or after `from`.
fn matching_paren(host: &str, from: usize) -> Option<usize> {
    let b = host.as_bytes();
    let mut i = from;
    while i < b.len() && b[i] != b'(' {
        if b[i] == b';' || b[i] == b'{' || b[i] == b'}' {
            return None;
        }
        i += 1;
    }
    closing_paren_at(host, i + 1, 1)
}

/// The offset of the `)` that closes a `(` already open at `from`.
fn closing_paren(host: &str, from: usize) -> Option<usize> {
    closing_paren_at(host, from, 1)
}

fn closing_paren_at(host: &str, from: usize, mut depth: usize) -> Option<usize> {
    let b = host.as_bytes();
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'"' if i > 0 && b[i - 1] == b'R' => {
                i = skip_raw(host, i);
                continue;
            }
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
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
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = host[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
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
                    i = skip_raw(text, i);
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// The index after the raw string literal whose opening quote is at `i`.
fn skip_raw(text: &str, i: usize) -> usize {
    let rest = &text[i + 1..];
    let Some(open) = rest.find('(') else {
        return text.len();
    };
    let closing = format!("){}\"", &rest[..open]);
    rest.find(&closing)
        .map_or(text.len(), |e| i + 1 + e + closing.len())
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
    let end = matching_paren(text, keyword)? + 1;
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
    collect(sub.root_node(), &snippet, text, shift, in_macro, &mut found);
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
