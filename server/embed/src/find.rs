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

use crate::literal::StringMacros;
use crate::literal::{decode_literal, Decoded};
use crate::macros::GuardMacros;

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
    /// Why the template cannot be read, if it cannot (a macro name between its literals, a
    /// `"C"` operand spliced into it, ...): then nothing in it is checked.
    pub opaque: Option<Unread>,
    /// Extended asm (with `:` sections): `%` introduces operands and `%%` is a percent sign.
    pub extended: bool,
    pub operands: Vec<AsmOperand>,
    pub clobbers: Vec<String>,
    /// The first item of the operand lists that is not `"constraint"(expression)` (a
    /// macro): the number and constraints of the operands are not known.
    pub operands_opaque: Option<String>,
    /// Inside a `#define` body.
    pub in_macro: bool,
    /// What the enclosing `#if` guards require of the target.
    pub guard: Option<crate::ArchReq>,
    /// Inside an `#if` branch only a host compiler takes (host assembly, not PTX).
    pub host_only: bool,
    /// Inside an `#if __cccl_ptx_isa >= N` branch for a PTX ISA newer than the one this
    /// checker knows: its instructions cannot be judged.
    pub newer_ptx: Option<ptx_isa::PtxVersion>,
    /// Inside a template, an inline or static function, or a macro body: code that nvcc
    /// compiles only where it is used, so it may never be compiled for a given target.
    pub compiled_on_use: bool,
    /// Inside an `#if` whose condition is not a target this layer reads (a macro another
    /// header defines per architecture): it may never be compiled for a given target either.
    pub opaque_condition: bool,
    /// Preprocessor conditionals inside the statement: the first branch of each is read here,
    /// and [`read_for_target`] reads those a compilation for a given target takes.
    pub conditional: bool,
}

/// Why the text of an asm statement's template is not known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unread {
    /// Something other than a string literal between the template's literals (a macro).
    MacroInTemplate(String),
    /// Text between the template and the first `:` that is neither a literal nor a comment.
    TextAfterTemplate(String),
    /// A `"C"` operand splices a string constant into the template (operand number).
    StringOperand(usize),
    /// The statement opens or closes a `{ }` block that other asm statements of the same
    /// function share: nvcc emits them into one body, so it is not checked on its own.
    SharedBlock,
}

impl std::fmt::Display for Unread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unread::MacroInTemplate(m) => write!(
                f,
                "the template includes `{m}`, whose text is known only after preprocessing"
            ),
            Unread::TextAfterTemplate(m) => write!(
                f,
                "`{m}` follows the template's literals, so its text is known only after preprocessing"
            ),
            Unread::StringOperand(n) => write!(
                f,
                "operand %{n} is a `\"C\"` string constant spliced into the template, whose text is known only where it is used"
            ),
            Unread::SharedBlock => f.write_str(
                "it shares a `{ }` block with the asm statements around it (nvcc emits them into one body), so it is not checked alone",
            ),
        }
    }
}

/// An `asm` keyword whose statement could not be read at all, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    pub keyword: TextRange,
    pub why: String,
}

/// A fresh parser for CUDA C++.
pub fn cuda_parser() -> Parser {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_cuda::LANGUAGE.into())
        .expect("the bundled CUDA grammar matches the linked tree-sitter ABI");
    parser
}

/// Parses `text` and returns the tree, every asm statement in it in source order, and the
/// `asm` keywords whose statement could not be read.
pub fn find(text: &str) -> (Tree, Vec<RawAsm>, Vec<Unreadable>) {
    find_incremental(text, None, &[])
}

/// Like [`find`], re-parsing incrementally from the tree of an earlier version of the text
/// (`previous`: that text and its tree). The edit between the two versions is taken as the
/// span between their common prefix and suffix.
/// `inline_macros` are macros of other files (the headers this one includes) that expand to
/// `inline` and the like; this file's own are found here.
pub fn find_incremental(
    text: &str,
    previous: Option<(&str, &Tree)>,
    inline_macros: &[String],
) -> (Tree, Vec<RawAsm>, Vec<Unreadable>) {
    // A text without asm keywords was not parsed: its tree is not one to start from.
    // Nor is that of a text whose statements are all plain (read without the parser).
    let old = previous.and_then(|(old_text, tree)| {
        let keywords = asm_keywords(old_text);
        let outline = Outline::new(old_text, &keywords);
        let parsed = outline.parser_input(old_text).0;
        (!keywords.is_empty() && !outline.all_plain(&keywords)).then_some((parsed, tree))
    });
    let found = find_with_macros(
        text,
        old.as_ref().map(|(parsed, tree)| (parsed.as_str(), *tree)),
        inline_macros,
        &GuardMacros::default(),
    );
    let tree = found
        .tree
        .unwrap_or_else(|| cuda_parser().parse("", None).expect("empty text parses"));
    (tree, found.statements, found.unreadable)
}

/// What [`find_with_macros`] found in a host text.
#[derive(Debug)]
pub struct Found {
    /// The tree of the text (parsed in part: see [`Outline`]); `None` when the text was not
    /// parsed: it has no asm keyword, and so nothing to find, or every statement in it is
    /// plain and read from the text, where it stands too ([`crate::context`]).
    pub tree: Option<Tree>,
    /// The text the parser read (the host text with what it skips blanked, see
    /// [`Outline`]): an incremental update takes the edit between two of these.
    pub parsed: String,
    pub statements: Vec<RawAsm>,
    pub unreadable: Vec<Unreadable>,
}

/// What the C++ parser reads of a host text, and the statements read without it.
///
/// Most asm statements are a plain run of string literals followed by the operand lists,
/// which this layer reads as text anyway ([`parse_sections`]); what the tree adds is only
/// where the statement stands (function, template, `#if` branches). Such a statement is read
/// here from the text, and the parser skips what lies inside its parentheses but the
/// opening quote of its first literal and the closing quote of its last one: it sees `asm
/// volatile("")` in the same place, at a fraction of the cost (the operand lists of
/// tensor-core templates are a large part of such headers). Parameter lists of function
/// definitions are skipped too ([`parameter_lists`]). Every other statement is parsed as
/// written and read from the tree as before. When every statement of a text is plain, the
/// parser is not run at all: the tree would only say where the statements stand, which
/// [`crate::context`] reads from the text.
struct Outline {
    /// The statements read from the text, by keyword offset.
    read: Vec<RawAsm>,
    /// What the parser skips, in text order, not overlapping.
    skipped: Vec<TextRange>,
}

impl Outline {
    fn new(text: &str, keywords: &[usize]) -> Outline {
        let mut read: Vec<RawAsm> = Vec::new();
        let mut skipped = Vec::new();
        for &keyword in keywords {
            if read.last().is_some_and(|a| keyword < a.range.end) {
                continue;
            }
            if let Some((raw, first, last)) = read_plain(text, keyword) {
                // `(` … first `"` … last `"` … `)`: the parser reads `("")`.
                let open = raw.keyword.end + text[raw.keyword.end..].find('(').unwrap_or(0);
                skipped.push(open + 1..first);
                skipped.push(first + 1..last);
                skipped.push(last + 1..raw.range.end - 1);
                read.push(raw);
            }
        }
        skipped.extend(parameter_lists(text));
        skipped.retain(|r| r.start < r.end);
        skipped.sort_by_key(|r| r.start);
        Outline { read, skipped }
    }

    /// Is every keyword of `keywords` (ascending) the start of, or inside, a statement read
    /// from the text? Then the parser has nothing to add.
    fn all_plain(&self, keywords: &[usize]) -> bool {
        let mut read = self.read.iter().peekable();
        keywords.iter().all(|&k| {
            while read.peek().is_some_and(|r| r.range.end <= k) {
                read.next();
            }
            read.peek()
                .is_some_and(|r| r.keyword.start <= k && k < r.range.end)
        })
    }

    /// What the parser gets: the text with the skipped ranges blanked (every byte but line
    /// breaks and line continuations becomes a blank), and the ranges it reads, which leave
    /// out the long skipped ranges. The parser still lexes blanks one by one, so a long run
    /// is better left out; but it looks a position up among the ranges from the first one,
    /// so they are kept few.
    fn parser_input(&self, text: &str) -> (String, Vec<tree_sitter::Range>) {
        /// Skipped ranges at least this long are left out of the ranges read.
        const LEFT_OUT: usize = 1024;
        let b = text.as_bytes();
        let mut bytes = b.to_vec();
        let mut bounds = Vec::new();
        let mut at = 0;
        for r in &self.skipped {
            for i in r.clone() {
                let keep = match b[i] {
                    b'\n' | b'\r' => true,
                    b'\\' => matches!(&b[i + 1..], [b'\n', ..] | [b'\r', b'\n', ..]),
                    _ => false,
                };
                if !keep {
                    bytes[i] = b' ';
                }
            }
            if r.len() >= LEFT_OUT {
                bounds.push((at, r.start));
                at = r.end;
            }
        }
        bounds.push((at, text.len()));
        // Only whole characters between two ASCII bytes were replaced by ASCII: still UTF-8.
        let parsed = String::from_utf8(bytes).unwrap_or_else(|_| text.to_string());
        // Rows and columns of every bound, in one pass.
        let (mut row, mut line_start, mut i) = (0usize, 0usize, 0usize);
        let mut point = |offset: usize| {
            while i < offset {
                if b[i] == b'\n' {
                    row += 1;
                    line_start = i + 1;
                }
                i += 1;
            }
            tree_sitter::Point {
                row,
                column: offset - line_start,
            }
        };
        let ranges = bounds
            .into_iter()
            .map(|(start, end)| {
                let start_point = point(start);
                let end_point = point(end);
                tree_sitter::Range {
                    start_byte: start,
                    end_byte: end,
                    start_point,
                    end_point,
                }
            })
            .collect();
        (parsed, ranges)
    }
}

/// The parameter lists of function definitions that the parser need not read (ranges inside
/// the parentheses): a name, `(`, text without braces, `;`, preprocessor lines or asm
/// keywords, `)`, and then (past blanks and comments) the `{` of the body. Which function a
/// statement is in, and its head's words, are read from the host text; the parameters'
/// types and names never matter, and tensor-core wrappers take a hundred and more.
fn parameter_lists(text: &str) -> Vec<TextRange> {
    /// Words before a `(` that is not a parameter list.
    const NOT_FUNCTIONS: &[&str] = &[
        "if",
        "for",
        "while",
        "switch",
        "catch",
        "return",
        "sizeof",
        "alignof",
        "alignas",
        "decltype",
        "noexcept",
        "requires",
        "constexpr",
        "consteval",
        "__attribute__",
        "__declspec",
        "asm",
        "__asm",
        "__asm__",
        "volatile",
        "__volatile__",
        "throw",
        "typeid",
        "static_assert",
        "case",
        "else",
        "do",
        "operator",
        "new",
        "delete",
        "defined",
        "__launch_bounds__",
        "_Pragma",
        "__pragma",
        "co_await",
        "co_return",
        "co_yield",
    ];
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    // The identifier just before (past blanks and comments).
    let mut word: Option<TextRange> = None;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b'#' if line_start => {
                i = directive_end(b, i);
                word = None;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = line_comment_end(b, i);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                continue;
            }
            _ => {}
        }
        line_start = false;
        match c {
            b'"' | b'\'' => {
                i = skip_literal(b, i);
                word = None;
            }
            c if c == b'_' || c.is_ascii_alphanumeric() => {
                let start = i;
                while i < b.len() && (b[i] == b'_' || b[i].is_ascii_alphanumeric()) {
                    i += 1;
                    // Digit separators: `1'000`.
                    if c.is_ascii_digit()
                        && b.get(i) == Some(&b'\'')
                        && b.get(i + 1).is_some_and(u8::is_ascii_alphanumeric)
                    {
                        i += 1;
                    }
                }
                word = None;
                if i < b.len() && b[i] == b'"' && text[start..i].ends_with('R') {
                    i = skip_raw(text, i);
                } else if !c.is_ascii_digit() {
                    word = Some(start..i);
                }
            }
            b'(' => {
                let named = word
                    .take()
                    .is_some_and(|w| !NOT_FUNCTIONS.contains(&&text[w]));
                match plain_group_end(text, i).filter(|_| named) {
                    Some(close) if close > i + 1 && body_follows(text, close + 1) => {
                        out.push(i + 1..close);
                        i = close + 1;
                    }
                    _ => i += 1,
                }
            }
            _ => {
                word = None;
                i += 1;
            }
        }
    }
    out
}

/// The end of the preprocessor line starting at `i` (continued lines included), at its line
/// break.
fn directive_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i] != b'\n' {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
            i += 2;
        } else if b[i] == b'\\' && b.get(i + 1) == Some(&b'\r') && b.get(i + 2) == Some(&b'\n') {
            i += 3;
        } else {
            i += 1;
        }
    }
    i
}

/// The `)` that closes the `(` at `open` when what lies between holds no braces, no `;`, no
/// preprocessor line and no asm keyword (literals and comments skipped).
fn plain_group_end(text: &str, open: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    let mut line_start = false;
    while i < b.len() {
        match b[i] {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b'#' if line_start => return None,
            _ => {}
        }
        line_start = false;
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = line_comment_end(b, i);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..].find("*/").map(|e| i + 2 + e + 2)?;
                continue;
            }
            b'"' | b'\'' => {
                if i > 0 && (b[i - 1] == b'_' || b[i - 1].is_ascii_alphanumeric()) {
                    // A raw or prefixed literal.
                    return None;
                }
                let end = skip_literal(b, i);
                if b.get(end - 1) != Some(&b[i]) || end - i < 2 {
                    return None;
                }
                i = end;
                continue;
            }
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            b'{' | b'}' | b';' | b'\\' => return None,
            c if c == b'_' || c.is_ascii_alphabetic() => {
                let start = i;
                while i < b.len() && (b[i] == b'_' || b[i].is_ascii_alphanumeric()) {
                    i += 1;
                }
                if matches!(&text[start..i], "asm" | "__asm" | "__asm__") {
                    return None;
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Does a `{` follow `at`, past blanks and comments?
fn body_follows(text: &str, mut at: usize) -> bool {
    let b = text.as_bytes();
    loop {
        while at < b.len() && b[at].is_ascii_whitespace() {
            at += 1;
        }
        if text[at..].starts_with("//") {
            at += text[at..].find('\n').unwrap_or(text.len() - at);
        } else if text[at..].starts_with("/*") {
            match text[at + 2..].find("*/") {
                Some(e) => at += 2 + e + 2,
                None => return false,
            }
        } else {
            return b.get(at) == Some(&b'{');
        }
    }
}

/// Reads the statement at `keyword` from the text when it has the plain form: `asm` or
/// `__asm__`, `volatile` at most, `(`, ordinary string literals (comments and blanks between
/// them) and then `:` or `)`, with no preprocessor line and no line continuation inside a
/// literal. Exactly what the parser would read for it ([`read_asm`]), with the offsets of
/// the first literal's opening quote and of the last one's closing quote; `None` for
/// anything else, which is left to the parser.
fn read_plain(text: &str, keyword: usize) -> Option<(RawAsm, usize, usize)> {
    let b = text.as_bytes();
    let word_end = keyword
        + text[keyword..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(text.len() - keyword);
    if !matches!(&text[keyword..word_end], "asm" | "__asm__") {
        return None;
    }
    // Blanks, and backslashes that continue a line (in a `#define` body).
    let blanks = |mut i: usize| {
        while i < b.len() {
            match b[i] {
                b' ' | b'\t' | b'\n' | b'\r' => i += 1,
                b'\\' if matches!(&b[i + 1..], [b'\n', ..] | [b'\r', b'\n', ..]) => i += 1,
                _ => break,
            }
        }
        i
    };
    let mut i = blanks(word_end);
    for qualifier in ["volatile", "__volatile__"] {
        if text[i..].starts_with(qualifier)
            && !b
                .get(i + qualifier.len())
                .is_some_and(|&c| c == b'_' || c.is_ascii_alphanumeric())
        {
            i = blanks(i + qualifier.len());
            break;
        }
    }
    if b.get(i) != Some(&b'(') {
        return None;
    }
    let open = i;
    let blanks_and_comments = |mut i: usize| loop {
        i = blanks(i);
        if text[i..].starts_with("//") {
            i += text[i..].find('\n').unwrap_or(text.len() - i);
        } else if text[i..].starts_with("/*") {
            i = i + 2 + text[i + 2..].find("*/")? + 2;
        } else {
            return Some(i);
        }
    };
    i = blanks_and_comments(open + 1)?;
    let mut template = Decoded::default();
    let first = i;
    let mut after_template = None;
    while b.get(i) == Some(&b'"') {
        let end = skip_literal(b, i);
        let literal = &text[i..end];
        if end - i < 2
            || !literal.ends_with('"')
            || literal.contains("\\\n")
            || literal.contains("\\\r")
        {
            return None;
        }
        let mut piece = Decoded::default();
        decode_literal(text, i..end, &mut piece);
        let at = template.text.len();
        template.text.push_str(&piece.text);
        template
            .map
            .push_slice(&piece.map, 0..piece.text.len(), at as isize);
        after_template = Some(end);
        i = blanks_and_comments(end)?;
    }
    let after_template = after_template?;
    if !matches!(b.get(i), Some(b':' | b')')) {
        return None;
    }
    let close = closing_paren(text, after_template)?;
    if text[open..close]
        .lines()
        .any(|l| l.trim_start().starts_with('#'))
    {
        return None;
    }
    let raw = finish_asm(
        text,
        keyword..word_end,
        template,
        None,
        after_template,
        close,
        false,
    )?;
    Some((raw, first, after_template - 1))
}

/// Like [`find_incremental`], reading `#if` guards with the target macros of the headers and
/// the build (`guard_macros`) and those this file defines. `previous` is what an earlier
/// call parsed ([`Found::parsed`]) and its tree.
pub fn find_with_macros(
    text: &str,
    previous: Option<(&str, &Tree)>,
    inline_macros: &[String],
    guard_macros: &GuardMacros,
) -> Found {
    find_as(text, previous, inline_macros, guard_macros, true)
}

/// Like [`find_with_macros`], always with the C++ parser, also where every statement is
/// plain: for comparing the two readings of where statements stand.
#[doc(hidden)]
pub fn find_with_parser(text: &str, inline_macros: &[String], guard_macros: &GuardMacros) -> Found {
    find_as(text, None, inline_macros, guard_macros, false)
}

fn find_as(
    text: &str,
    previous: Option<(&str, &Tree)>,
    inline_macros: &[String],
    guard_macros: &GuardMacros,
    without_parser: bool,
) -> Found {
    let keywords = asm_keywords(text);
    if keywords.is_empty() {
        // Nothing to find: the text is not parsed at all.
        return Found {
            tree: None,
            parsed: String::new(),
            statements: Vec::new(),
            unreadable: Vec::new(),
        };
    }
    let guard_macros = guard_macros.with_text(text);
    let mut macros = self::inline_macros(text);
    macros.extend(inline_macros.iter().cloned());
    macros.extend(WELL_KNOWN_INLINE_MACROS.iter().map(|m| m.to_string()));
    let outline = Outline::new(text, &keywords);
    if without_parser && outline.all_plain(&keywords) {
        return Found {
            tree: None,
            parsed: String::new(),
            statements: place_plain(text, outline.read, &macros, &guard_macros),
            unreadable: Vec::new(),
        };
    }
    let (parsed, included) = outline.parser_input(text);
    let mut parser = cuda_parser();
    let old = previous.map(|(old_parsed, old_tree)| {
        let mut tree = old_tree.clone();
        tree.edit(&input_edit(old_parsed, &parsed));
        tree
    });
    let tree = parser
        .set_included_ranges(&included)
        .ok()
        .and_then(|()| parser.parse(&parsed, old.as_ref()))
        .or_else(|| {
            // Ranges the parser refused (none are expected): the whole text.
            let _ = parser.set_included_ranges(&[]);
            parser.parse(&parsed, None)
        })
        .unwrap_or_else(|| parser.parse("", None).expect("empty text parses"));
    // The statements re-parsed alone below are parsed whole.
    let _ = parser.set_included_ranges(&[]);
    let mut plain = outline.read.into_iter().peekable();
    let nv_calls = crate::target::has_nv_target_calls(text);
    // Every keyword outside comments and literals; each is either read from the text above,
    // or part of an asm node of the tree (found by walking up from the keyword, not by
    // walking the whole tree), or re-parsed on its own.
    let mut found: Vec<RawAsm> = Vec::new();
    let mut unreadable = Vec::new();
    for keyword in keywords {
        if found
            .last()
            .is_some_and(|a| a.range.start <= keyword && keyword < a.range.end)
        {
            continue;
        }
        let innermost = tree
            .root_node()
            .descendant_for_byte_range(keyword, keyword + 1);
        let mut statement = None;
        while plain.peek().is_some_and(|p| p.keyword.start < keyword) {
            plain.next();
        }
        if plain.peek().is_some_and(|p| p.keyword.start == keyword) {
            statement = plain.next().map(|mut s| {
                // The parser reads a statement in a `#define` body by re-parsing it alone.
                s.in_macro = in_define(&tree, keyword);
                s
            });
        }
        let mut node = innermost.filter(|_| statement.is_none());
        while let Some(n) = node {
            if n.kind() == "gnu_asm_expression" {
                // A statement with an `#if` inside, or one the parser could not make sense
                // of, is read on its own below.
                if n.start_byte() == keyword
                    && !n.has_error()
                    && !has_directive(&text[n.start_byte()..n.end_byte()])
                {
                    statement = read_asm(n, text, text, 0, false);
                }
                break;
            }
            node = n.parent();
        }
        if statement.is_none() {
            statement = match reparse_at(&mut parser, text, keyword, &tree) {
                Ok(s) => Some(s),
                Err(why) => {
                    if !is_asm_label(text, keyword)
                        && !in_host_only_code(innermost, text, &guard_macros)
                    {
                        let end = keyword
                            + text[keyword..]
                                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                                .unwrap_or(text.len() - keyword);
                        unreadable.push(Unreadable {
                            keyword: keyword..end,
                            why,
                        });
                    }
                    None
                }
            };
        }
        if let Some(mut s) = statement.filter(|s| s.extended || !is_asm_label(text, keyword)) {
            // The guards, walked up once from the node found above.
            let frames = crate::target::pp_frames(innermost, text);
            s.guard =
                crate::target::statement_guard_in(&frames, text, keyword, &guard_macros, nv_calls);
            s.host_only = crate::target::host_only_in(&frames, &guard_macros)
                || (nv_calls && crate::target::nv_host_branch(text, keyword));
            s.newer_ptx = crate::target::needs_newer_ptx_in(&frames);
            s.compiled_on_use = s.in_macro || compiled_on_use(innermost, text, &macros);
            s.opaque_condition = crate::target::under_opaque_condition_in(&frames, &guard_macros);
            found.push(s);
        }
    }
    Found {
        tree: Some(tree),
        parsed,
        statements: found,
        unreadable,
    }
}

/// The plain statements of a text (every statement of it, see [`Outline::all_plain`]) with
/// where they stand read from the text ([`crate::context`]) instead of the tree: the same
/// guards, branches and inline-ness as [`find_with_macros`] reads from the tree.
fn place_plain(
    text: &str,
    read: Vec<RawAsm>,
    inline_macros: &[String],
    guard_macros: &GuardMacros,
) -> Vec<RawAsm> {
    let positions: Vec<usize> = read.iter().map(|r| r.keyword.start).collect();
    let contexts = crate::context::Contexts::new(text, &positions);
    let nv_calls = crate::target::has_nv_target_calls(text);
    let mut found = Vec::with_capacity(read.len());
    for (n, mut s) in read.into_iter().enumerate() {
        let keyword = s.keyword.start;
        if !s.extended && is_asm_label(text, keyword) {
            continue;
        }
        let frames = contexts.frames(text, n);
        s.in_macro = contexts.in_define(n);
        s.guard = crate::target::statement_guard_in(&frames, text, keyword, guard_macros, nv_calls);
        s.host_only = crate::target::host_only_in(&frames, guard_macros)
            || (nv_calls && crate::target::nv_host_branch(text, keyword));
        s.newer_ptx = crate::target::needs_newer_ptx_in(&frames);
        s.compiled_on_use = s.in_macro || compiled_on_use_in(&contexts, n, text, inline_macros);
        s.opaque_condition = crate::target::under_opaque_condition_in(&frames, guard_macros);
        found.push(s);
    }
    found
}

/// [`compiled_on_use`] from the heads of the blocks around the `n`th statement of `contexts`.
fn compiled_on_use_in(
    contexts: &crate::context::Contexts,
    n: usize,
    text: &str,
    inline_macros: &[String],
) -> bool {
    use crate::context::HeadKind;
    let mut saw_function = false;
    for head in contexts.heads(text, n) {
        match head.kind {
            HeadKind::Class | HeadKind::Lambda => return true,
            HeadKind::Function => {
                let words = || {
                    head.from_first
                        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                };
                // A macro named for a template head (`_CCCL_TEMPLATE(class T)`) is one.
                if words().map(str::to_ascii_lowercase).any(|word| {
                    word.contains("static") || word.contains("inline") || word.contains("template")
                }) || words().any(|w| inline_macros.iter().any(|m| m == w))
                    || template_before(text, head.start)
                    || inline_words_before(text, head.start, inline_macros)
                {
                    return true;
                }
                saw_function = true;
            }
            HeadKind::Namespace | HeadKind::Other => {}
        }
    }
    !saw_function && heads_say_inline(enclosing_heads(text, contexts.position(n)), inline_macros)
}

/// Does `text` hold a preprocessor line (`#if` inside a statement)?
fn has_directive(text: &str) -> bool {
    text.lines()
        .skip(1)
        .any(|l| l.trim_start().starts_with('#'))
}

fn in_host_only_code(node: Option<Node>, text: &str, macros: &GuardMacros) -> bool {
    crate::target::host_only_from(node, text, macros)
}

/// Is the code at `start` compiled only where it is used: inside a template, or in a function
/// declared `inline` (`__forceinline__`, `_CCCL_FORCEINLINE` …) or `static`, directly or
/// through a macro of `inline_macros` (`#define CUTLASS_DEVICE __forceinline__ __device__`),
/// or a member function defined in its class? Header code is almost always one of these,
/// and nvcc emits PTX for it only when a kernel calls it.
fn compiled_on_use(start: Option<tree_sitter::Node>, text: &str, inline_macros: &[String]) -> bool {
    let mut node = start;
    let mut saw_function = false;
    while let Some(n) = node {
        match n.kind() {
            // A member function defined in its class body is inline.
            "template_declaration" | "lambda_expression" | "field_declaration_list" => return true,
            "function_definition" => {
                let head_end = n
                    .child_by_field_name("body")
                    .map_or(n.end_byte(), |b| b.start_byte());
                let head = &text[n.start_byte()..head_end];
                let words = || head.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
                // Also the qualifier macros headers define for these (`_CCCL_FORCEINLINE`,
                // `_CUDA_AWBARRIER_STATIC_QUALIFIER`).
                if words()
                    .map(str::to_ascii_lowercase)
                    .any(|word| word.contains("static") || word.contains("inline"))
                    || words().any(|w| inline_macros.iter().any(|m| m == w))
                    || template_before(text, n.start_byte())
                    || inline_words_before(text, n.start_byte(), inline_macros)
                {
                    return true;
                }
                saw_function = true;
            }
            _ => {}
        }
        node = n.parent();
    }
    // No function around the statement that the parser could make out (a class or function
    // head it could not parse): read the heads before the open `{`s around it as text, from
    // the innermost (`if (x) {` inside the function) outwards. A class body makes its
    // member functions inline; a namespace (`inline namespace v2 {` too) says nothing.
    !saw_function
        && start
            .is_some_and(|s| heads_say_inline(enclosing_heads(text, s.start_byte()), inline_macros))
}

/// Do the heads of the `{`s around a statement (no function head among them made out) say
/// that it is compiled only where used: a class body makes its member functions inline; a
/// namespace (`inline namespace v2 {` too) says nothing.
fn heads_say_inline(heads: Vec<&str>, inline_macros: &[String]) -> bool {
    heads.into_iter().any(|head| {
        let words = || head.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
        if words().any(|w| w == "namespace" || w == "extern") {
            return false;
        }
        words().map(str::to_ascii_lowercase).any(|w| {
            w.contains("static")
                || w.contains("inline")
                || matches!(w.as_str(), "template" | "struct" | "class" | "union")
        }) || words().any(|w| inline_macros.iter().any(|m| m == w))
    })
}

/// Do inline qualifiers or macros stand just before `at` (since the last `;`, `{` or `}`)?
/// The parser may leave unknown macros before a function head out of the definition
/// (`_CCCL_DEVICE _CCCL_FORCEINLINE void f()`).
fn inline_words_before(text: &str, at: usize, inline_macros: &[String]) -> bool {
    let mut from = at.saturating_sub(256);
    while !text.is_char_boundary(from) {
        from -= 1;
    }
    let before = &text[from..at];
    let start = before.rfind([';', '}', '{']).map_or(0, |i| i + 1);
    let words = || before[start..].split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
    words()
        .map(str::to_ascii_lowercase)
        .any(|w| w.contains("static") || w.contains("inline"))
        || words().any(|w| inline_macros.iter().any(|m| m == w))
}

/// The heads of the `{`s still open at `at`, innermost first: for each, the text between
/// the statement or declaration end before it and the `{` (a function head when the `{`
/// opens a function body). At most 16 levels, within 256 KiB before `at`.
fn enclosing_heads(text: &str, at: usize) -> Vec<&str> {
    const LEVELS: usize = 16;
    const WINDOW: usize = 256 * 1024;
    let b = text.as_bytes();
    let floor = at.saturating_sub(WINDOW);
    let mut heads = Vec::new();
    let mut depth = 0usize;
    let mut i = at.min(b.len());
    while i > floor && heads.len() < LEVELS {
        i -= 1;
        match b[i] {
            b'}' => depth += 1,
            b'{' if depth == 0 => {
                let start = text[..i].rfind([';', '}', '{']).map_or(0, |p| p + 1);
                heads.push(&text[start..i]);
            }
            b'{' => depth -= 1,
            _ => {}
        }
    }
    heads
}

/// Does a `template <...>` head end just before `at`? After a top-level macro invocation
/// without `;` (`CUTLASS_NAMESPACE_BEGIN(x)`) the parser may take the template head for part
/// of something else and start the function after it.
fn template_before(text: &str, at: usize) -> bool {
    // The 512 bytes before `at`, starting on a character boundary.
    let mut from = at.saturating_sub(512);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let before = blank_comments(&text[from..at]);
    let before = before.trim_end();
    // The text since the last statement or declaration end.
    let start = before.rfind([';', '}', '{']).map_or(0, |i| i + 1);
    let head = &before[start..];
    head.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|w| w == "template")
        && head.contains('<')
}

/// Function qualifier macros of CUTLASS and CuTe, which expand to `__forceinline__`
/// (`#define CUTLASS_DEVICE __forceinline__ __device__`). Projects built on CUTLASS use them
/// while CUTLASS itself is a dependency outside the workspace (a submodule not checked out,
/// an installed package), where the headers that define them are not found.
const WELL_KNOWN_INLINE_MACROS: &[&str] = &[
    "CUTLASS_DEVICE",
    "CUTLASS_HOST_DEVICE",
    "CUTE_DEVICE",
    "CUTE_HOST_DEVICE",
];

/// The object-like macros of `text` that expand to `inline`, `__forceinline__`, `static` or
/// a `template` head, or to another such macro (`#define CUTLASS_DEVICE __forceinline__
/// __device__`, `#define TL_DEVICE static inline __device__`).
pub fn inline_macros(text: &str) -> Vec<String> {
    let mut definitions: Vec<(String, String)> = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("define") else {
            continue;
        };
        let rest = rest.trim_start();
        let name_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let (name, mut body) = (rest[..name_end].to_string(), rest[name_end..].to_string());
        if body.starts_with('(') || name.is_empty() {
            continue;
        }
        while body.trim_end().ends_with('\\') {
            body = body.trim_end().trim_end_matches('\\').to_string();
            match lines.next() {
                Some(next) => body.push_str(next),
                None => break,
            }
        }
        definitions.push((name, body));
    }
    let mut found: Vec<String> = Vec::new();
    // A macro may expand to another one defined earlier or later: a few rounds.
    for _ in 0..3 {
        for (name, body) in &definitions {
            if found.contains(name) {
                continue;
            }
            let inline = body
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .any(|w| {
                    matches!(
                        w,
                        "inline" | "__inline__" | "__forceinline__" | "static" | "template"
                    ) || found.iter().any(|f| f == w)
                });
            if inline {
                found.push(name.clone());
            }
        }
    }
    found
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
        // Past the last character that is not part of a name (which may be several bytes).
        let start = text[..end]
            .char_indices()
            .rev()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |(p, c)| p + c.len_utf8());
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
    let mut opaque = None;
    let mut literals = Vec::new();
    if code.kind() == "concatenated_string" {
        let mut cursor = code.walk();
        for part in code.named_children(&mut cursor) {
            match part.kind() {
                "string_literal" | "raw_string_literal" => literals.push(part),
                // Comments between the pieces are not part of the template.
                "comment" => {}
                _ => {
                    opaque.get_or_insert_with(|| {
                        Unread::MacroInTemplate(
                            text[part.start_byte()..part.end_byte()].to_string(),
                        )
                    });
                }
            }
        }
    } else {
        literals.push(code);
    }
    // Text between two pieces that the grammar left out of them (`"min." #ty " %0"` in a
    // macro body, where the stringizing `#` is read as an error or a directive) is part of
    // the template as nvcc sees it: unknown here.
    for pair in literals.windows(2) {
        let gap = blank_comments(&text[pair[0].end_byte()..pair[1].start_byte()]);
        let gap = gap.trim_matches(|c: char| c.is_whitespace() || c == '\\');
        if !gap.is_empty() {
            opaque.get_or_insert_with(|| Unread::MacroInTemplate(gap.to_string()));
        }
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
    let mut after_template = span(code, shift).end;
    let close = closing_paren(host, after_template)?;
    // Macros between the literals, or after them, that the file defines as string literals
    // (`#define LD_NC "ld.global.nc.u32"`, `#define CACHE_HINT(n) ".L2::" #n "B"`): their
    // text is known, so the template is.
    let next = blank_comments(&host[after_template..close]);
    let next = next.trim_start_matches(|c: char| c.is_whitespace() || c == '\\');
    if opaque.is_some() || !(next.is_empty() || next.starts_with(':')) {
        let start = span(code, shift).start;
        if let Some((expanded, end)) =
            crate::literal::expand_string_macros(host, start..close, &StringMacros::of(host))
        {
            template = expanded;
            opaque = None;
            after_template = end;
        }
    }
    finish_asm(
        host,
        keyword,
        template,
        opaque,
        after_template,
        close,
        in_macro,
    )
}

/// The statement from its keyword, template and the host offsets of the template's end and
/// of the closing parenthesis: the operand sections are read from the host text.
fn finish_asm(
    host: &str,
    keyword: TextRange,
    template: Decoded,
    mut opaque: Option<Unread>,
    after_template: usize,
    close: usize,
    in_macro: bool,
) -> Option<RawAsm> {
    let sections = parse_sections(host, after_template..close);
    // Text between the literals and the first `:` (a macro such as `STRINGIFY(name)` that the
    // grammar could not join to the literals) leaves the template unknown.
    let head = sections.head.trim().trim_matches('\\').trim();
    if !head.is_empty() {
        opaque.get_or_insert_with(|| Unread::TextAfterTemplate(head.to_string()));
    }
    // A `"C"` operand splices a string constant into the template text: that text is unknown.
    if let Some(op) = sections.operands.iter().find(|o| o.letter() == 'C') {
        opaque.get_or_insert(Unread::StringOperand(op.index));
    }
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
        newer_ptx: None,
        compiled_on_use: false,
        opaque_condition: false,
        conditional: false,
    })
}

/// What follows the template: `: outputs : inputs : clobbers : labels`.
#[derive(Debug, Default)]
struct Sections {
    /// The text before the first `:` (comments blanked).
    head: String,
    extended: bool,
    operands: Vec<AsmOperand>,
    clobbers: Vec<String>,
    /// The first item of the operand lists that is not `[name] "constraint" (expression)`.
    opaque: Option<String>,
}

/// `text` with every comment replaced by spaces (newlines kept), so offsets stay the same.
pub(crate) fn blank_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' if i > 0 && b[i - 1] == b'R' => i = skip_raw(text, i),
            b'"' | b'\'' => i = skip_literal(b, i),
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = line_comment_end(b, i);
                for c in &mut out[i..end] {
                    if *c != b'\n' {
                        *c = b' ';
                    }
                }
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                for c in &mut out[i..end] {
                    if *c != b'\n' {
                        *c = b' ';
                    }
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    // Only ASCII bytes were replaced, and whole comments: still UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// Reads the operand sections from the host text between the template and the closing
/// parenthesis. Items that are not `[name] "constraint" (expression)` (a macro that expands
/// to operands) make the operand list opaque: their number and constraints are unknown.
/// Operands written one after the other without a comma (`"r"(a) "l"(b)`) are two operands,
/// as nvcc reads them.
fn parse_sections(host: &str, range: TextRange) -> Sections {
    let mut out = Sections::default();
    // The slice starts in the middle of a line (after the template): a `#` there is not a
    // directive (`"min." #ty " %0"` in a macro body stringizes `ty`).
    let mid_line = !host[..range.start]
        .rsplit('\n')
        .next()
        .unwrap_or("")
        .trim()
        .is_empty();
    let text = first_branches(&blank_comments(&host[range.clone()]), mid_line);
    let sections = split_top(&text, b':');
    out.head = text[sections[0].clone()].to_string();
    if sections.len() <= 1 {
        let rest = text.trim().trim_matches('\\').trim();
        if !rest.is_empty() && !rest.starts_with(')') {
            out.opaque = Some(rest.to_string());
        }
        return out;
    }
    out.extended = true;
    for (n, section) in sections.iter().enumerate().skip(1) {
        for item in split_top(&text[section.clone()], b',') {
            let item = section.start + item.start..section.start + item.end;
            let raw = &text[item.clone()];
            if raw.trim().trim_matches('\\').trim().is_empty() {
                continue;
            }
            match n {
                1 | 2 => match parse_operands(&text, range.start, item, n == 1) {
                    Some(ops) => out.operands.extend(ops),
                    None => {
                        out.opaque.get_or_insert_with(|| raw.trim().to_string());
                    }
                },
                3 => {
                    let mut d = Decoded::default();
                    let t = raw.trim();
                    let at = item.start + raw.find(t).unwrap_or(0);
                    decode_literal(&text, at..at + t.len(), &mut d);
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

/// The operands of one comma-separated item of `text` (the statement's text after its
/// template, comments blanked, starting at host offset `base`): one, or several written
/// without commas between them. `None` when the item is not made of operands.
fn parse_operands(
    text: &str,
    base: usize,
    range: TextRange,
    is_output: bool,
) -> Option<Vec<AsmOperand>> {
    let b = text.as_bytes();
    let skip_ws = |mut i: usize| {
        while i < range.end && (b[i].is_ascii_whitespace() || b[i] == b'\\') {
            i += 1;
        }
        i
    };
    let mut out = Vec::new();
    let mut i = skip_ws(range.start);
    while i < range.end {
        let mut symbol = None;
        if b.get(i) == Some(&b'[') {
            let close = text[i..range.end].find(']')? + i;
            symbol = Some(text[i + 1..close].trim().to_string());
            i = skip_ws(close + 1);
        }
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let lit_end = skip_literal(b, i);
        let constraint_range = i..lit_end;
        let mut constraint = Decoded::default();
        decode_literal(text, constraint_range.clone(), &mut constraint);
        i = skip_ws(lit_end);
        if b.get(i) != Some(&b'(') {
            return None;
        }
        let close = matching_paren(text, i)?;
        if close >= range.end {
            return None;
        }
        let expression_range = i + 1..close;
        out.push(AsmOperand {
            index: 0,
            symbol,
            constraint: constraint.text,
            constraint_range: base + constraint_range.start..base + constraint_range.end,
            expression: text[expression_range.clone()].trim().to_string(),
            expression_range: base + expression_range.start..base + expression_range.end,
            is_output,
        });
        i = skip_ws(close + 1);
    }
    Some(out)
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
                i = line_comment_end(b, i);
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
                i = line_comment_end(b, i);
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
pub(crate) fn asm_keywords(text: &str) -> Vec<usize> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = line_comment_end(b, i);
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

/// The index of the line break that ends the `//` comment starting at `i` (or the text's
/// end). A backslash right before a line break joins the next line to the comment, as the
/// C preprocessor splices lines before it looks for comments.
pub(crate) fn line_comment_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i] != b'\n' {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
            i += 1;
        } else if b[i] == b'\\' && b.get(i + 1) == Some(&b'\r') && b.get(i + 2) == Some(&b'\n') {
            i += 2;
        }
        i += 1;
    }
    i
}

/// The index after the literal starting with the quote at `i`.
pub(crate) fn skip_literal(b: &[u8], i: usize) -> usize {
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
/// of a function body; `Err` says why it cannot be read.
fn reparse_at(
    parser: &mut Parser,
    text: &str,
    keyword: usize,
    tree: &Tree,
) -> Result<RawAsm, String> {
    let Some(end) = matching_paren(text, keyword).map(|e| e + 1) else {
        let opens = text[keyword..]
            .find(['(', ';', '{', '}'])
            .is_some_and(|i| text[keyword + i..].starts_with('('));
        return Err(if opens {
            "its parentheses are not closed".to_string()
        } else {
            "no `(` follows the keyword".to_string()
        });
    };
    // Line continuations become blanks of the same length so offsets do not move, and so do
    // the preprocessor lines inside the statement with the branches nvcc would not take.
    let body = text[keyword..end]
        .replace("\\\r\n", "   ")
        .replace("\\\n", "  ");
    let conditional = body.contains('#') && has_directive(&body);
    let body = first_branches(&body, true);
    let in_macro = in_define(tree, keyword);
    let mut raw = read_alone(parser, text, keyword, &body, in_macro)?;
    raw.conditional = conditional;
    Ok(raw)
}

/// Reads the statement at `keyword` from `body` (its text with what the parser must not see
/// blanked, offsets kept) as the only statement of a function body.
fn read_alone(
    parser: &mut Parser,
    text: &str,
    keyword: usize,
    body: &str,
    in_macro: bool,
) -> Result<RawAsm, String> {
    const PREFIX: &str = "void __ptx_embed(){";
    let snippet = format!("{PREFIX}{body};}}");
    let sub = parser
        .parse(&snippet, None)
        .ok_or_else(|| "the C++ parser gave up on it".to_string())?;
    let mut found = Vec::new();
    let shift = keyword as isize - PREFIX.len() as isize;
    collect(sub.root_node(), &snippet, text, shift, in_macro, &mut found);
    found.into_iter().next().ok_or_else(|| {
        "it is not a well-formed `asm(\"template\" : outputs : inputs : clobbers)` statement"
            .to_string()
    })
}

/// The statement `raw` (one with preprocessor conditionals inside, read with the first branch
/// of each) read again with the branches that a compilation for `target` takes, where every
/// condition on the way can be told for that target ([`crate::target::evaluate`]); a
/// conditional with a condition that cannot (a compiler version, a project setting) keeps its
/// first branch. `None` when nothing changes or the statement cannot be read that way.
pub(crate) fn read_for_target(
    text: &str,
    raw: &RawAsm,
    target: &str,
    macros: &GuardMacros,
) -> Option<RawAsm> {
    let keyword = raw.keyword.start;
    let end = matching_paren(text, keyword)? + 1;
    let body = text[keyword..end]
        .replace("\\\r\n", "   ")
        .replace("\\\n", "  ");
    let select = |condition: &str| crate::target::evaluate(condition, target, macros);
    let chosen = chosen_branches(&body, true, &select);
    if chosen == first_branches(&body, true) {
        return None;
    }
    let mut parser = cuda_parser();
    let mut read = read_alone(&mut parser, text, keyword, &chosen, raw.in_macro).ok()?;
    read.guard = raw.guard;
    read.host_only = raw.host_only;
    read.newer_ptx = raw.newer_ptx;
    read.compiled_on_use = raw.compiled_on_use;
    read.opaque_condition = raw.opaque_condition;
    read.conditional = true;
    Some(read)
}

/// Like [`first_branches`], taking in each conditional the branch whose condition `select`
/// says holds (`#ifdef NAME` asks for `defined(NAME)`), or `#else` when none does; a
/// conditional with a condition `select` cannot tell (`None`) before the branch it takes
/// keeps the first branch, as [`first_branches`] does.
fn chosen_branches(text: &str, mid_line: bool, select: &dyn Fn(&str) -> Option<bool>) -> String {
    /// An open conditional: is the current branch taken, and has a branch been taken?
    struct Open {
        live: bool,
        taken: bool,
    }
    let mut out = String::with_capacity(text.len());
    let mut stack: Vec<Open> = Vec::new();
    // The value of a directive's condition: `#if COND`, `#ifdef NAME`, `#ifndef NAME`.
    let value = |directive: &str, rest: &str| -> Option<bool> {
        let rest = rest.split("//").next().unwrap_or("").trim();
        match directive {
            "if" | "elif" => select(rest),
            "ifdef" | "elifdef" => select(&format!("defined({rest})")),
            "ifndef" | "elifndef" => select(&format!("defined({rest})")).map(|v| !v),
            _ => None,
        }
    };
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let t = line.trim_start();
        let t = if n == 0 && mid_line { "" } else { t };
        let directive = t.strip_prefix('#').map(|d| {
            let d = d.trim_start();
            let name_len = d
                .find(|c: char| !c.is_ascii_alphabetic())
                .unwrap_or(d.len());
            (&d[..name_len], &d[name_len..])
        });
        let blank = match directive {
            Some((name @ ("if" | "ifdef" | "ifndef"), rest)) => {
                // A conditional inside a branch not taken is not taken at all.
                let outer = stack.iter().all(|o| o.live);
                let v = if outer {
                    value(name, rest)
                } else {
                    Some(false)
                };
                let live = v.unwrap_or(true);
                stack.push(Open {
                    live: outer && live,
                    // Unknown: the first branch is taken, as `first_branches` does.
                    taken: !outer || live,
                });
                true
            }
            Some((name @ ("elif" | "elifdef" | "elifndef"), rest)) => {
                match stack.last_mut() {
                    Some(top) if !top.taken => {
                        let v = value(name, rest);
                        // Unknown after branches known not to hold: this one is the guess.
                        top.live = v.unwrap_or(true);
                        top.taken = top.live;
                    }
                    Some(top) => top.live = false,
                    // A conditional opened before `text` starts.
                    None => stack.push(Open {
                        live: false,
                        taken: true,
                    }),
                }
                true
            }
            Some(("else", _)) => {
                match stack.last_mut() {
                    Some(top) => {
                        top.live = !top.taken;
                        top.taken = true;
                    }
                    None => stack.push(Open {
                        live: false,
                        taken: true,
                    }),
                }
                true
            }
            Some(("endif", _)) => {
                stack.pop();
                true
            }
            Some(_) => true,
            None => !stack.iter().all(|o| o.live),
        };
        if blank {
            out.extend(line.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
            // Keep byte lengths: non-ASCII characters become as many spaces as their bytes.
            out.extend(std::iter::repeat_n(' ', line.len() - line.chars().count()));
        } else {
            out.push_str(line);
        }
    }
    out
}

/// `text` with its preprocessor lines blanked, and every line of an `#elif`/`#else` branch
/// too: inside an asm statement the first branch of each conditional is read first (which
/// one nvcc takes depends on the target and macros of the build; [`read_for_target`] reads
/// the branches of a target). Offsets do not move. `mid_line`: `text`
/// starts in the middle of a line, so its first line is no directive.
fn first_branches(text: &str, mid_line: bool) -> String {
    if !text.contains('#') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    // Per open conditional: is the current branch the first one?
    let mut stack: Vec<bool> = Vec::new();
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let t = line.trim_start();
        let t = if n == 0 && mid_line { "" } else { t };
        let directive = t.strip_prefix('#').map(|d| {
            d.trim_start()
                .split(|c: char| !c.is_ascii_alphabetic())
                .next()
                .unwrap_or("")
        });
        let blank = match directive {
            Some("if" | "ifdef" | "ifndef") => {
                stack.push(true);
                true
            }
            Some("elif" | "else" | "elifdef" | "elifndef") => {
                match stack.last_mut() {
                    Some(top) => *top = false,
                    // A conditional opened before `text` starts.
                    None => stack.push(false),
                }
                true
            }
            Some("endif") => {
                stack.pop();
                true
            }
            Some(_) => true,
            None => stack.iter().any(|first| !first),
        };
        if blank {
            out.extend(line.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
            // Keep byte lengths: non-ASCII characters become as many spaces as their bytes.
            out.extend(std::iter::repeat_n(' ', line.len() - line.chars().count()));
        } else {
            out.push_str(line);
        }
    }
    out
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

#[cfg(test)]
mod boundary_tests {
    use super::*;

    /// A multi-byte character 512 bytes before a function once split a slice in the middle
    /// of the character (found by the `embed` fuzz target).
    #[test]
    fn template_heads_are_looked_for_on_character_boundaries() {
        for pad in 0..4 {
            let text = format!(
                "{}{}template <int N> {}void f() {{}}",
                "x".repeat(pad),
                "é".repeat(300),
                " ".repeat(pad)
            );
            let at = text.find("void").unwrap();
            assert!(template_before(&text, at));
            let plain = format!("{}{}void f() {{}}", "x".repeat(pad), "é".repeat(300));
            assert!(!template_before(&plain, plain.find("void").unwrap()));
        }
    }
}

#[cfg(test)]
mod comment_tests {
    use super::*;

    /// A backslash at the end of a `//` comment joins the next line to it (the preprocessor
    /// splices lines first), with `\n` and with `\r\n` line ends.
    #[test]
    fn a_line_comment_ending_in_a_backslash_runs_on() {
        for eol in ["\n", "\r\n"] {
            let text = format!("a // one \\{eol}two{eol}b // three{eol}c");
            let blanked = blank_comments(&text);
            assert_eq!(blanked.len(), text.len());
            let words: Vec<&str> = blanked.split_whitespace().collect();
            assert_eq!(words, ["a", "b", "c"], "{text:?}");
        }
        assert_eq!(line_comment_end(b"// x", 0), 4);
    }
}

#[cfg(test)]
mod outline_tests {
    use super::*;

    /// What the parser reads of each statement in the whole, unskipped text (the tree's node,
    /// or the statement re-parsed alone), as before statements were read from the text.
    fn read_by_parser(text: &str, tree: &Tree, keyword: usize) -> Option<RawAsm> {
        let mut parser = cuda_parser();
        let mut node = tree
            .root_node()
            .descendant_for_byte_range(keyword, keyword + 1);
        while let Some(n) = node {
            if n.kind() == "gnu_asm_expression" {
                if n.start_byte() == keyword
                    && !n.has_error()
                    && !has_directive(&text[n.start_byte()..n.end_byte()])
                {
                    return read_asm(n, text, text, 0, false);
                }
                break;
            }
            node = n.parent();
        }
        reparse_at(&mut parser, text, keyword, tree).ok()
    }

    /// A basic asm after a name that ends in a multi-byte character (found by the embed fuzz
    /// target): the name's start is found on a character boundary.
    #[test]
    fn asm_label_after_a_multi_byte_character() {
        for text in [
            "\u{FFFD}counter3(void)\n#if defined(SOME_OS)\nasm(\"my_counter\");\n#endif\n",
            "int äf(void) asm(\"name\");",
            "é asm(\"nop;\");",
        ] {
            let _ = find(text);
            let _ = is_asm_label(text, text.find("asm").unwrap());
        }
    }

    /// A text whose statements are all plain is not parsed: where each statement stands
    /// (guards and `#if` branches, `#define` bodies, inline-ness) is read from the text, and
    /// it is what the tree says.
    #[test]
    fn plain_statements_are_placed_as_the_tree_places_them() {
        let texts = [
            // Branches: `#if`/`#elif`/`#else`, nested, `#ifdef`/`#ifndef`, comments after
            // conditions, continued conditions.
            "#ifndef H\n#define H\n__global__ void k(int* p) {\n#if __CUDA_ARCH__ >= 900 // Hopper\n  asm volatile(\"a;\");\n#elif __CUDA_ARCH__ >= 800 /* Ampere */\n  asm volatile(\"b;\");\n#elif defined(X)\n#if (SOME_FLAG) && \\\n    __CUDA_ARCH__ >= 700\n  asm volatile(\"c;\");\n#endif\n#else\n  asm volatile(\"d;\");\n#endif\n#ifdef __CUDA_ARCH_FEAT_SM90_ALL\n  asm(\"e;\");\n#elifdef Y\n  asm(\"f;\");\n#else\n  asm(\"g;\");\n#endif\n}\n#endif\n",
            // Host and AMD branches, newer PTX, `#define` bodies.
            "void h() {\n#ifdef __CUDA_ARCH__\n  asm(\"a;\");\n#else\n  asm(\"mov %eax, %ebx\");\n#endif\n#if !defined(USE_ROCM)\n  asm(\"b;\");\n#else\n  asm(\"v_add;\");\n#endif\n#if defined(__x86_64__)\n  asm(\"nop\");\n#endif\n#if __cccl_ptx_isa >= 920\n  asm(\"c;\");\n#endif\n}\n#define M(x) \\\n  asm volatile(\"mov.b32 %0, 1;\" : \"=r\"(x))\n#if __CUDA_ARCH__ >= 800\n#define N(x) asm(\"d;\")\n#endif\n",
            // Inline-ness: templates, inline and static functions, macros, members, lambdas,
            // namespaces, `extern \"C\"` kernels, control blocks.
            "#define MY_DEVICE __forceinline__ __device__\nnamespace a { inline namespace v2 {\ntemplate <class T, int N = 3>\n__device__ void t(T x) { if (x) { asm(\"a;\"); } }\n__device__ void plain(int x) {\n  for (int i = 0; i < x; ++i) {\n    asm(\"b;\");\n  }\n  auto f = [&](int y) { asm(\"c;\"); };\n}\nMY_DEVICE void m() { asm(\"d;\"); }\n// a comment that says static\n__device__ void n() { asm(\"e;\"); }\nstatic __device__ void s() { asm(\"f;\"); }\nstruct S {\n  __device__ void member() const { asm(\"g;\"); }\n};\n} }\nextern \"C\" __global__ void k() { do { asm(\"h;\"); } while (0); }\n__global__ void l() {\n  NV_IF_TARGET(NV_PROVIDES_SM_90, (asm(\"i;\");), (asm(\"j;\");))\n}\n",
        ];
        for text in texts {
            let found = find_with_macros(text, None, &[], &GuardMacros::default());
            assert!(found.tree.is_none(), "all plain: {text}");
            let parsed = find_with_parser(text, &[], &GuardMacros::default());
            assert!(parsed.tree.is_some());
            assert_eq!(found.statements.len(), parsed.statements.len(), "{text}");
            for (a, b) in found.statements.iter().zip(&parsed.statements) {
                assert_eq!(a, b, "statement at {:?} of {text}", a.keyword);
            }
        }
    }

    /// Every statement read from the text is read exactly as the parser reads it, and the
    /// statements found are the same with and without the skipped ranges.
    #[test]
    fn plain_statements_read_as_the_parser_reads_them() {
        let corpus = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/corpus/cuda/inline_asm_cases.cu"
        );
        let corpus = std::fs::read_to_string(corpus).expect("the CUDA corpus file");
        let snippets = [
            "__device__ void f(int a, int b) { int x; asm volatile(\"add.s32 %0, %1, %2;\" : \"=r\"(x) : \"r\"(a), \"r\"(b)); }",
            "#define ADD(x, a) \\\n  asm(\"add.s32 %0, %1, 1;\" \\\n      : \"=r\"(x) : \"r\"(a))\n",
            "void g() { asm(/* c */ \"mov.b32 %0, 1;\" // c\n \"\\n\" : \"=r\"(x)); }",
            "void h() { __asm__ __volatile__(\"bar.sync 0;\"); asm(\"x\" \"y\" MACRO : ); }",
            "template <int N> struct S { static void f(uint32_t& d0, uint32_t& d1) {\n#if defined(X)\n asm volatile(\"mov.b32 %0, %1;\" : \"=r\"(d0) : \"r\"(d1));\n#endif\n } };",
            "int f(void) asm(\"name\"); void k() { asm(\"a\" : \"=r\"(x) \"r\"(y)); }",
        ];
        for text in std::iter::once(corpus.as_str()).chain(snippets) {
            let keywords = asm_keywords(text);
            let outline = Outline::new(text, &keywords);
            assert!(!outline.read.is_empty());
            let tree = cuda_parser().parse(text, None).expect("a tree");
            for raw in &outline.read {
                let mut by_parser =
                    read_by_parser(text, &tree, raw.keyword.start).unwrap_or_else(|| {
                        panic!("the parser reads the statement at {:?}", raw.keyword)
                    });
                by_parser.in_macro = false;
                assert_eq!(*raw, by_parser, "statement at {:?}", raw.keyword);
            }
            // Found with the skipped ranges, and the parse of the whole text.
            let found = find(text).1;
            let unskipped: Vec<RawAsm> = keywords
                .iter()
                .filter(|&&k| found.iter().any(|f| f.keyword.start == k))
                .filter_map(|&k| read_by_parser(text, &tree, k))
                .collect();
            assert_eq!(found.len(), unskipped.len());
            for (a, b) in found.iter().zip(&unskipped) {
                assert_eq!(a.template, b.template);
                assert_eq!(a.operands, b.operands);
                assert_eq!(a.range, b.range);
            }
        }
    }
}
