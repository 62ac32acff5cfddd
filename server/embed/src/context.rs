//! Where an asm statement stands, read from the host text without the C++ parser: the
//! `#if`/`#elif`/`#ifdef` branches around it, whether it is in a `#define` body, and the heads
//! of the `{` blocks around it (function, class, lambda, namespace, control statement).
//!
//! [`crate::find`] uses it for a file whose asm statements are all plain (string literals and
//! operand lists, read from the text anyway): then the tree-sitter parse, most of the cost of
//! reading a large header, has nothing left to tell. The frames and heads are the ones the
//! walk up the tree meets, so the statements' guards and inline-ness are the same either way.

use crate::find::{line_comment_end, skip_literal};
use crate::target::{PpFrame, PpKind};

/// A branch head of a conditional: its kind, where its condition (or macro name) is, and
/// whether it is `#ifndef`.
type Branch = (PpKind, Option<(usize, usize)>, bool);

/// One preprocessor conditional still open at a position: its branches so far.
#[derive(Debug, Clone)]
struct Conditional {
    /// Each branch head: `None` for `#else`, `#elifdef` and `#elifndef`, which are no frames.
    branches: Vec<Option<Branch>>,
}

/// What the text says about the positions asked for.
#[derive(Debug, Default)]
pub(crate) struct Contexts {
    /// Per position asked for (in the order given): the conditionals around it (innermost
    /// last) as branch lists, the `{` blocks around it (innermost last, `(head start, open)`),
    /// and whether it is in a `#define`.
    at: Vec<Context>,
}

#[derive(Debug, Default, Clone)]
struct Context {
    position: usize,
    conditionals: Vec<Conditional>,
    blocks: Vec<(usize, usize)>,
    in_define: bool,
}

/// Is `b[i..]` the start of an identifier-continuing byte?
fn ident(c: u8) -> bool {
    c == b'_' || c.is_ascii_alphanumeric()
}

/// The end of the preprocessor line starting at `i` (continued lines included), at its line
/// break; comments that run past a line break are followed.
fn directive_end(text: &str, mut i: usize) -> usize {
    let b = text.as_bytes();
    while i < b.len() && b[i] != b'\n' {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
            i += 2;
        } else if b[i] == b'\\' && b.get(i + 1) == Some(&b'\r') && b.get(i + 2) == Some(&b'\n') {
            i += 3;
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            i = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            // A line comment runs to the line's end (continuations included).
            i = line_comment_end(b, i);
        } else if b[i] == b'"' || b[i] == b'\'' {
            i = skip_literal(b, i);
        } else {
            i += 1;
        }
    }
    i
}

/// The condition of a directive whose name ends at `at` and whose line ends at `end`: the
/// text between, trimmed, without a comment at its end (as the parser's condition node).
fn condition_span(text: &str, at: usize, end: usize) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let mut start = at;
    while start < end && matches!(b[start], b' ' | b'\t') {
        start += 1;
    }
    // Cut at the first comment that is not followed by more of the condition.
    let mut stop = end;
    let mut i = start;
    let mut last_significant = start;
    while i < end {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                stop = i;
                break;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let close = text[i + 2..end].find("*/").map_or(end, |e| i + 2 + e + 2);
                // A comment with more condition after it is part of the condition.
                let rest = text[close..end].trim();
                if rest.is_empty() || rest.starts_with("//") {
                    stop = i;
                    break;
                }
                i = close;
                continue;
            }
            b'"' | b'\'' => {
                i = skip_literal(b, i).min(end);
                last_significant = i;
                continue;
            }
            b' ' | b'\t' | b'\r' | b'\n' | b'\\' => {}
            _ => last_significant = i + 1,
        }
        i += 1;
    }
    let stop = stop.min(end);
    let mut finish = last_significant.min(stop);
    while finish > start && b[finish - 1].is_ascii_whitespace() {
        finish -= 1;
    }
    (finish > start).then_some((start, finish))
}

impl Contexts {
    /// Reads the text once and records the context of each of `positions` (ascending).
    pub(crate) fn new(text: &str, positions: &[usize]) -> Contexts {
        let b = text.as_bytes();
        let mut out = Vec::with_capacity(positions.len());
        let mut next = positions.iter().copied().peekable();
        let mut conditionals: Vec<Conditional> = Vec::new();
        // Open braces: (head start, open).
        let mut blocks: Vec<(usize, usize)> = Vec::new();
        // Where the head of a `{` starts: past the last `;`, `{` or `}`.
        let mut head_start = 0usize;
        let mut line_start = true;
        let mut i = 0usize;
        let record = |out: &mut Vec<Context>,
                      position: usize,
                      conditionals: &Vec<Conditional>,
                      blocks: &Vec<(usize, usize)>,
                      in_define: bool| {
            out.push(Context {
                position,
                conditionals: conditionals.clone(),
                blocks: blocks.clone(),
                in_define,
            });
        };
        while i < b.len() {
            // Positions passed (every position asked for is at a token start).
            while let Some(p) = next.next_if(|&p| p <= i) {
                record(&mut out, p, &conditionals, &blocks, false);
            }
            let c = b[i];
            match c {
                b'\n' => {
                    line_start = true;
                    i += 1;
                    continue;
                }
                b' ' | b'\t' | b'\r' | b'\x0c' | b'\x0b' => {
                    i += 1;
                    continue;
                }
                b'\\' if matches!(&b[i + 1..], [b'\n', ..] | [b'\r', b'\n', ..]) => {
                    i += 1;
                    continue;
                }
                b'#' if line_start => {
                    let end = directive_end(text, i);
                    // Positions inside the directive (a `#define` body).
                    let define = {
                        let mut j = i + 1;
                        while j < end && matches!(b[j], b' ' | b'\t') {
                            j += 1;
                        }
                        let name_end = j + b[j..end].iter().take_while(|&&c| ident(c)).count();
                        let name = &text[j..name_end];
                        self::directive(text, name, i, name_end, end, &mut conditionals);
                        name == "define"
                    };
                    while let Some(p) = next.next_if(|&p| p < end) {
                        record(&mut out, p, &conditionals, &blocks, define);
                    }
                    i = end;
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
                }
                c if ident(c) => {
                    let start = i;
                    while i < b.len() && ident(b[i]) {
                        i += 1;
                    }
                    if i < b.len() && b[i] == b'"' && text[start..i].ends_with('R') {
                        i = raw_end(text, i);
                    }
                }
                b'{' => {
                    blocks.push((head_start, i));
                    i += 1;
                    head_start = i;
                }
                b'}' => {
                    blocks.pop();
                    i += 1;
                    head_start = i;
                }
                b';' => {
                    i += 1;
                    head_start = i;
                }
                _ => i += 1,
            }
        }
        for p in next {
            record(&mut out, p, &conditionals, &blocks, false);
        }
        Contexts { at: out }
    }

    /// The conditionals around the `n`th position, innermost first, as the walk up the C++
    /// tree meets them.
    pub(crate) fn frames<'a>(&self, text: &'a str, n: usize) -> Vec<PpFrame<'a>> {
        let mut frames = Vec::new();
        for c in self.at[n].conditionals.iter().rev() {
            let (current, earlier) = c.branches.split_last().expect("a conditional has a branch");
            if let Some((kind, condition, negated)) = current {
                frames.push(PpFrame {
                    kind: *kind,
                    condition: condition.map(|(s, e)| &text[s..e]),
                    negated: *negated,
                    in_alternative: false,
                    in_condition: false,
                });
            }
            for (kind, condition, negated) in earlier.iter().rev().flatten() {
                frames.push(PpFrame {
                    kind: *kind,
                    condition: condition.map(|(s, e)| &text[s..e]),
                    negated: *negated,
                    in_alternative: true,
                    in_condition: false,
                });
            }
        }
        frames
    }

    /// The `n`th position.
    pub(crate) fn position(&self, n: usize) -> usize {
        self.at[n].position
    }

    /// Is the `n`th position inside a `#define` body?
    pub(crate) fn in_define(&self, n: usize) -> bool {
        self.at[n].in_define
    }

    /// The heads of the `{` blocks around the `n`th position, innermost first: the text from
    /// the last `;`, `{` or `}` before each `{` to it.
    pub(crate) fn heads<'s, 'a: 's>(
        &'s self,
        text: &'a str,
        n: usize,
    ) -> impl Iterator<Item = Head<'a>> + 's {
        self.at[n]
            .blocks
            .iter()
            .rev()
            .map(move |&(start, open)| Head::new(text, start, open))
    }
}

/// The index after the raw string literal whose opening quote is at `i`.
fn raw_end(text: &str, i: usize) -> usize {
    let rest = &text[i + 1..];
    let Some(open) = rest.find('(') else {
        return text.len();
    };
    let closing = format!("){}\"", &rest[..open]);
    rest.find(&closing)
        .map_or(text.len(), |e| i + 1 + e + closing.len())
}

/// Updates the open conditionals for a directive `name` (`#` at `hash`, name ending at
/// `name_end`, line ending at `end`).
fn directive(
    text: &str,
    name: &str,
    hash: usize,
    name_end: usize,
    end: usize,
    conditionals: &mut Vec<Conditional>,
) {
    let name_span = || {
        let b = text.as_bytes();
        let mut s = name_end;
        while s < end && matches!(b[s], b' ' | b'\t') {
            s += 1;
        }
        let e = s + b[s..end].iter().take_while(|&&c| ident(c)).count();
        (e > s).then_some((s, e))
    };
    match name {
        "if" => conditionals.push(Conditional {
            branches: vec![Some((
                PpKind::If,
                condition_span(text, name_end, end),
                false,
            ))],
        }),
        "ifdef" | "ifndef" => conditionals.push(Conditional {
            branches: vec![Some((
                PpKind::Ifdef,
                name_span(),
                text[hash..].starts_with("#ifndef"),
            ))],
        }),
        "elif" => {
            let branch = Some((PpKind::Elif, condition_span(text, name_end, end), false));
            if let Some(c) = conditionals.last_mut() {
                c.branches.push(branch);
            }
        }
        "else" | "elifdef" | "elifndef" => {
            if let Some(c) = conditionals.last_mut() {
                c.branches.push(None);
            }
        }
        "endif" => {
            conditionals.pop();
        }
        _ => {}
    }
}

/// What a `{` block's head says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HeadKind {
    /// A function body: `... name(...) ... {`.
    Function,
    /// A class, struct or union body (its member functions are inline).
    Class,
    /// A lambda's body.
    Lambda,
    /// A namespace or `extern "C"` block.
    Namespace,
    /// Anything else: a control statement's block, a plain block, an initializer.
    Other,
}

/// The head of a `{` block.
#[derive(Debug, Clone)]
pub(crate) struct Head<'a> {
    /// Where its first token starts.
    pub start: usize,
    /// The head from its first token on, as written.
    pub from_first: &'a str,
    pub kind: HeadKind,
}

impl<'a> Head<'a> {
    fn new(text: &'a str, start: usize, open: usize) -> Head<'a> {
        let (clean, first) = clean_head(text, start, open);
        let kind = classify(&clean);
        Head {
            start: first,
            from_first: &text[first..open],
            kind,
        }
    }
}

/// `text[start..open]` without comments and preprocessor lines (each replaced by a blank),
/// and the offset of its first token.
fn clean_head(text: &str, start: usize, open: usize) -> (String, usize) {
    let b = text.as_bytes();
    let mut out = String::with_capacity(open - start);
    let mut first = None;
    let mut i = start;
    let mut line_start = text[..start]
        .bytes()
        .rev()
        .find(|c| !matches!(c, b' ' | b'\t'))
        .is_none_or(|c| c == b'\n');
    while i < open {
        match b[i] {
            b'\n' => {
                line_start = true;
                out.push(' ');
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                out.push(' ');
                i += 1;
                continue;
            }
            b'#' if line_start => {
                i = directive_end(text, i).min(open);
                out.push(' ');
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = line_comment_end(b, i).min(open);
                out.push(' ');
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..]
                    .find("*/")
                    .map_or(open, |e| i + 2 + e + 2)
                    .min(open);
                out.push(' ');
                continue;
            }
            b'"' | b'\'' => {
                let e = skip_literal(b, i).min(open);
                first.get_or_insert(i);
                // Literals count as one blank-free token.
                out.push_str("\"\"");
                i = e;
                line_start = false;
                continue;
            }
            _ => {}
        }
        first.get_or_insert(i);
        line_start = false;
        let ch_len = text[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&text[i..i + ch_len]);
        i += ch_len;
    }
    (out, first.unwrap_or(open))
}

/// Words of control statements that open blocks.
const CONTROL: &[&str] = &["if", "for", "while", "switch", "catch", "else", "do", "try"];

/// Classifies a head (without comments).
fn classify(head: &str) -> HeadKind {
    let h = head.trim();
    if h.is_empty() {
        return HeadKind::Other;
    }
    let b = h.as_bytes();
    // A lambda: `[` that is not a subscript (after `(`, `,`, `=`, `return`, or first).
    let mut i = 0;
    while let Some(p) = h[i..].find('[').map(|p| p + i) {
        let before = h[..p].trim_end();
        let prev = before.bytes().last();
        let subscript = prev.is_some_and(|c| ident(c) || c == b']' || c == b')')
            && !before.ends_with("return")
            || before.ends_with("operator")
            || h[p..].starts_with("[[");
        if !subscript {
            return HeadKind::Lambda;
        }
        i = p + if h[p..].starts_with("[[") { 2 } else { 1 };
    }
    // Words before the first top-level `(`.
    let paren = top_level_paren(b);
    let words_before = &h[..paren.unwrap_or(h.len())];
    let words = || words_before.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
    if words().any(|w| CONTROL.contains(&w)) {
        return HeadKind::Other;
    }
    if h.ends_with(':') && words().any(|w| w == "case" || w == "default") {
        return HeadKind::Other;
    }
    if words().any(|w| matches!(w, "struct" | "class" | "union" | "enum")) {
        // `template <class T> void f(T)`: `class` inside the template head.
        let after_template = strip_template_heads(words_before);
        let inner = || after_template.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
        if inner().any(|w| matches!(w, "struct" | "class" | "union" | "enum")) {
            return HeadKind::Class;
        }
    }
    if paren.is_none() && words().any(|w| w == "namespace" || w == "extern") {
        return HeadKind::Namespace;
    }
    if paren.is_some() && !top_level_assignment(strip_template_heads(words_before)) {
        return HeadKind::Function;
    }
    HeadKind::Other
}

/// The offset of the first `(` outside `<...>`-free brackets (every `(` counts).
fn top_level_paren(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'(')
}

/// `head` without the `template <...>` heads at its start (angle brackets counted).
fn strip_template_heads(head: &str) -> &str {
    let mut h = head.trim_start();
    loop {
        let Some(rest) = h.strip_prefix("template") else {
            return h;
        };
        let rest = rest.trim_start();
        if !rest.starts_with('<') {
            return h;
        }
        let mut depth = 0i32;
        let mut end = None;
        for (i, c) in rest.char_indices() {
            match c {
                '<' => depth += 1,
                '>' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(i + 1);
                        break;
                    }
                }
                _ => {}
            }
        }
        match end {
            Some(e) => h = rest[e..].trim_start(),
            None => return h,
        }
    }
}

/// Does `head` hold a top-level `=` (an initializer, not `==`/`<=`/`>=`/`!=` or `operator=`)?
fn top_level_assignment(head: &str) -> bool {
    let b = head.as_bytes();
    (0..b.len()).any(|i| {
        let compared = matches!(b.get(i + 1), Some(b'='))
            || (i > 0 && matches!(b[i - 1], b'=' | b'<' | b'>' | b'!'));
        b[i] == b'=' && !compared && !head[..i].trim_end().ends_with("operator")
    })
}
