//! Formatting in the layout nvcc writes: one statement per line, bodies
//! indented, `opcode \toperands;`, `.reg .b32 \t%r<4>;`, labels at column 0,
//! parameters one per line.
//!
//! The formatter never changes meaning: it only rewrites the whitespace
//! between tokens, never the tokens themselves (a test checks that the token
//! stream of every corpus file is unchanged), and it refuses to format a file
//! with syntax errors. Comments stay where they are: a comment on its own
//! line is re-indented, a comment after code stays after it. Debug sections,
//! `@@DWARF` lines and preprocessor lines are kept verbatim.
//!
//! The output is built as segments, each replacing one stretch of the
//! original text (a statement with the blank before it); document formatting
//! returns the segments that changed and range formatting those that overlap
//! the range.

use ptx_syntax::{
    Block, DirectiveKind, Function, Item, Parse, Statement, SyntaxToken, TextRange, TokenKind,
};

/// How to indent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatOptions {
    /// One level of indentation (nvcc uses a tab).
    pub indent: String,
}

impl Default for FormatOptions {
    fn default() -> Self {
        FormatOptions {
            indent: "\t".into(),
        }
    }
}

/// Replace `range` of the original text by `new_text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatEdit {
    pub range: TextRange,
    pub new_text: String,
}

/// The whole formatted text, or `None` when the file has syntax errors.
pub fn format_text(parse: &Parse, options: &FormatOptions) -> Option<String> {
    Some(
        segments(parse, options)?
            .into_iter()
            .map(|s| s.text)
            .collect(),
    )
}

/// The edits that format the document (empty when it is already formatted),
/// or `None` when it has syntax errors.
pub fn format_document(parse: &Parse, options: &FormatOptions) -> Option<Vec<FormatEdit>> {
    Some(edits(parse.text(), segments(parse, options)?, |_| true))
}

/// The edits that format the statements overlapping `range`.
pub fn format_range(
    parse: &Parse,
    range: TextRange,
    options: &FormatOptions,
) -> Option<Vec<FormatEdit>> {
    Some(edits(
        parse.text(),
        segments_around(parse, options, &range)?,
        |s| s.content_start <= range.end && range.start < s.orig.end.max(s.content_start + 1),
    ))
}

/// A piece of output and the stretch of original text it replaces.
#[derive(Debug)]
struct Segment {
    orig: TextRange,
    /// Where the statement itself starts (after the blank before it).
    content_start: usize,
    text: String,
}

fn edits(src: &str, segments: Vec<Segment>, wanted: impl Fn(&Segment) -> bool) -> Vec<FormatEdit> {
    let mut out: Vec<FormatEdit> = Vec::new();
    for segment in segments {
        if !wanted(&segment) || src[segment.orig.clone()] == segment.text {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.range.end == segment.orig.start => {
                last.range.end = segment.orig.end;
                last.new_text.push_str(&segment.text);
            }
            _ => out.push(FormatEdit {
                range: segment.orig,
                new_text: segment.text,
            }),
        }
    }
    out
}

fn segments(parse: &Parse, options: &FormatOptions) -> Option<Vec<Segment>> {
    segments_where(parse, options, |_| true)
}

/// The segments of the top-level items around `range` (each item with the blank and the
/// comments before it), and of the end of the text when the range reaches it: every segment
/// that overlaps the range is one [`segments`] makes, and only those items are read.
fn segments_around(
    parse: &Parse,
    options: &FormatOptions,
    range: &TextRange,
) -> Option<Vec<Segment>> {
    segments_where(parse, options, |span| {
        span.start <= range.end && range.start <= span.end
    })
}

/// The segments of the top-level items whose span (from the end of the item before, or the
/// start of the text, to its own end) `wanted` selects, and of what follows the last item
/// when `wanted` selects that span. Each item is formatted on its own, from its span's text
/// (through [`ItemMemo`]): a segment starts where the previous item's output ended, and the
/// first unit of the text has no blank before it, so the span and whether it is the first
/// decide the item's output.
fn segments_where(
    parse: &Parse,
    options: &FormatOptions,
    wanted: impl Fn(&TextRange) -> bool,
) -> Option<Vec<Segment>> {
    if parse.tree().root_node().has_error() {
        return None;
    }
    let mut out = Vec::new();
    let mut span_start = 0;
    let mut started = false;
    for item in parse.module().items() {
        if ptx_syntax::cancel::cancelled() {
            return None;
        }
        let span = span_start..item.range().end;
        if wanted(&span) {
            let segments = item_segments(parse, options, &span, item, started)?;
            out.extend(segments.iter().map(|s| Segment {
                orig: s.orig.start + span.start..s.orig.end + span.start,
                content_start: s.content_start + span.start,
                text: s.text.clone(),
            }));
        }
        // Every item emits at least one unit.
        started = true;
        span_start = span.end;
    }
    let tail = span_start..parse.text().len();
    if wanted(&tail) {
        let mut f = Formatter::new(parse, options, tail.clone(), started);
        f.comments_before(tail.end, 0)?;
        let text = if f.started || !f.segments.is_empty() {
            "\n"
        } else {
            ""
        };
        f.segments.push(Segment {
            content_start: f.last_end,
            orig: f.last_end..tail.end,
            text: text.into(),
        });
        out.extend(f.segments);
    }
    Some(out)
}

/// The segments of one top-level item and what precedes it in `span`, relative to the
/// span's start; `None` when the formatter does not understand it.
fn item_segments(
    parse: &Parse,
    options: &FormatOptions,
    span: &TextRange,
    item: Item<'_>,
    started: bool,
) -> Option<std::sync::Arc<Vec<Segment>>> {
    let text = &parse.text()[span.clone()];
    if let Some(hit) = ItemMemo::get(text, &options.indent, started) {
        return Some(hit);
    }
    let mut f = Formatter::new(parse, options, span.clone(), started);
    match item {
        Item::Function(function) => f.function(function)?,
        Item::Variable(decl) => f.statement(Statement::Variable(decl), 0)?,
        Item::Directive(directive) => f.statement(Statement::Directive(directive), 0)?,
        Item::Statement(statement) => f.statement(statement, 0)?,
    }
    // A cancelled walk may have left tokens out: nothing of it is kept.
    if ptx_syntax::cancel::cancelled() {
        return None;
    }
    let relative: Vec<Segment> = f
        .segments
        .into_iter()
        .map(|s| Segment {
            orig: s.orig.start - span.start..s.orig.end - span.start,
            content_start: s.content_start - span.start,
            text: s.text,
        })
        .collect();
    Some(ItemMemo::put(text, &options.indent, started, relative))
}

/// Formatted top-level items of every document formatted so far, by their text (with the
/// blank and comments before them), the indentation and whether output came before them:
/// the same text formats the same way wherever it stands, so formatting an edited document
/// again formats only the items whose text changed. Bounded: emptied when the texts it holds
/// pass [`ItemMemo::MAX_BYTES`].
struct ItemMemo {
    items: std::collections::HashMap<u64, MemoEntry>,
    bytes: usize,
}

/// What an [`ItemMemo`] key stands for, and the result.
struct MemoEntry {
    text: Box<str>,
    indent: Box<str>,
    started: bool,
    segments: std::sync::Arc<Vec<Segment>>,
}

static ITEM_MEMO: std::sync::Mutex<Option<ItemMemo>> = std::sync::Mutex::new(None);

impl ItemMemo {
    const MAX_BYTES: usize = 64 << 20;

    fn key(text: &str, indent: &str, started: bool) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = rustc_hash::FxHasher::default();
        text.hash(&mut hasher);
        indent.hash(&mut hasher);
        started.hash(&mut hasher);
        hasher.finish()
    }

    fn get(text: &str, indent: &str, started: bool) -> Option<std::sync::Arc<Vec<Segment>>> {
        #[cfg(test)]
        if tests::MEMO_OFF.with(std::cell::Cell::get) {
            return None;
        }
        let key = Self::key(text, indent, started);
        let memo = ITEM_MEMO.lock().unwrap_or_else(|e| e.into_inner());
        let entry = memo.as_ref()?.items.get(&key)?;
        // The key is a hash: the text itself decides.
        (*entry.text == *text && *entry.indent == *indent && entry.started == started)
            .then(|| entry.segments.clone())
    }

    fn put(
        text: &str,
        indent: &str,
        started: bool,
        segments: Vec<Segment>,
    ) -> std::sync::Arc<Vec<Segment>> {
        let segments = std::sync::Arc::new(segments);
        let mut memo = ITEM_MEMO.lock().unwrap_or_else(|e| e.into_inner());
        let memo = memo.get_or_insert_with(|| ItemMemo {
            items: std::collections::HashMap::new(),
            bytes: 0,
        });
        let size = text.len() + segments.iter().map(|s| s.text.len()).sum::<usize>();
        if memo.bytes + size > Self::MAX_BYTES {
            memo.items.clear();
            memo.bytes = 0;
        }
        if size <= Self::MAX_BYTES {
            memo.bytes += size;
            memo.items.insert(
                Self::key(text, indent, started),
                MemoEntry {
                    text: text.into(),
                    indent: indent.into(),
                    started,
                    segments: segments.clone(),
                },
            );
        }
        segments
    }
}

/// How a unit of output is placed on its line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placement {
    /// At the indentation of its depth.
    Indented,
    /// At column 0 (labels, preprocessor lines, debug sections).
    Column0,
    /// A comment: after the previous code when it was on the same line.
    Comment,
}

struct Formatter<'a> {
    src: &'a str,
    tokens: Vec<SyntaxToken>,
    /// The next token not yet emitted.
    pos: usize,
    /// The end of the last unit emitted.
    last_end: usize,
    /// Output came before the first of `segments` (so the first unit needs a blank).
    started: bool,
    segments: Vec<Segment>,
    indent: &'a str,
}

impl<'a> Formatter<'a> {
    /// A formatter of the text in `span`: only the tokens inside it are read.
    fn new(parse: &'a Parse, options: &'a FormatOptions, span: TextRange, started: bool) -> Self {
        let mut tokens = parse.tokens_in(span.clone());
        tokens.retain(|t| t.range.start >= span.start && t.range.end <= span.end);
        Formatter {
            src: parse.text(),
            tokens,
            pos: 0,
            last_end: span.start,
            started,
            segments: Vec::new(),
            indent: &options.indent,
        }
    }

    fn indentation(&self, depth: usize) -> String {
        self.indent.repeat(depth)
    }

    /// Emits one unit of output that replaces the original `start..end`.
    fn unit(&mut self, start: usize, end: usize, depth: usize, placement: Placement, body: String) {
        let gap = &self.src[self.last_end..start];
        let separator = if !self.started && self.segments.is_empty() {
            String::new()
        } else if placement == Placement::Comment && !gap.contains('\n') {
            gap.to_owned()
        } else {
            let blank = if gap.matches('\n').count() >= 2 {
                "\n"
            } else {
                ""
            };
            let indentation = match placement {
                Placement::Column0 => String::new(),
                _ => self.indentation(depth),
            };
            format!("\n{blank}{indentation}")
        };
        self.segments.push(Segment {
            orig: self.last_end..end,
            content_start: start,
            text: separator + &body,
        });
        self.last_end = end;
    }

    /// Emits the comments and preprocessor lines before `offset`. Any other
    /// token there means the views missed a construct: give up rather than
    /// drop it.
    fn comments_before(&mut self, offset: usize, depth: usize) -> Option<()> {
        while let Some(token) = self.tokens.get(self.pos) {
            if token.range.start >= offset {
                break;
            }
            let range = token.range.clone();
            let text = self.src[range.clone()].to_owned();
            let placement = match token.kind {
                TokenKind::Comment => Placement::Comment,
                TokenKind::Preprocessor => Placement::Column0,
                _ => return None,
            };
            self.pos += 1;
            self.unit(range.start, range.end, depth, placement, text);
        }
        Some(())
    }

    /// The tokens inside `range`, consumed.
    fn take(&mut self, range: &TextRange) -> Vec<SyntaxToken> {
        let start = self.pos;
        while self
            .tokens
            .get(self.pos)
            .is_some_and(|t| t.range.end <= range.end)
        {
            self.pos += 1;
        }
        self.tokens[start..self.pos].to_vec()
    }

    /// Emits `range` as it is written.
    fn verbatim(&mut self, range: TextRange, depth: usize, placement: Placement) -> Option<()> {
        self.comments_before(range.start, depth)?;
        self.take(&range);
        let text = self.src[range.clone()].to_owned();
        self.unit(range.start, range.end, depth, placement, text);
        Some(())
    }

    fn statement(&mut self, statement: Statement<'_>, depth: usize) -> Option<()> {
        let range = statement.range();
        match statement {
            Statement::Block(block) => return self.block(block, depth),
            Statement::Directive(d)
                if matches!(d.kind(), DirectiveKind::Section | DirectiveKind::Dwarf) =>
            {
                return self.verbatim(range, depth, Placement::Column0);
            }
            _ => {}
        }
        self.comments_before(range.start, depth)?;
        let tokens = self.take(&range);
        let mut breaks: Vec<(usize, String)> = Vec::new();
        let mut placement = Placement::Indented;
        match statement {
            Statement::Instruction(instruction) => {
                if let Some(guard) = instruction.guard() {
                    breaks.push((guard.range.end, " ".into()));
                }
                if let Some(opcode) = instruction.opcode() {
                    breaks.push((opcode.end, " \t".into()));
                }
            }
            Statement::Variable(decl) => {
                if let Some(first) = decl.declarators().first() {
                    let is_reg = decl.state_space().is_some_and(|s| s.text == ".reg");
                    let blank = if is_reg { " \t" } else { " " };
                    breaks.push((previous_end(&tokens, first.range().start), blank.into()));
                }
            }
            Statement::Directive(d)
                if matches!(d.kind(), DirectiveKind::Loc | DirectiveKind::File) =>
            {
                breaks.push((d.keyword().end, "\t".into()));
            }
            Statement::Label(_) => placement = Placement::Column0,
            _ => {}
        }
        let body = self.join(&tokens, &breaks, depth);
        self.unit(range.start, range.end, depth, placement, body);
        Some(())
    }

    fn block(&mut self, block: Block<'_>, depth: usize) -> Option<()> {
        let range = block.range();
        self.comments_before(range.start, depth)?;
        let open = self.tokens.get(self.pos)?.clone();
        if &self.src[open.range.clone()] != "{" {
            return None;
        }
        self.pos += 1;
        self.unit(
            open.range.start,
            open.range.end,
            depth,
            Placement::Indented,
            "{".into(),
        );
        for statement in block.statements() {
            self.statement(statement, depth + 1)?;
        }
        let close_start = range.end - 1;
        self.comments_before(close_start, depth + 1)?;
        let close = self.tokens.get(self.pos)?.clone();
        if close.range.start != close_start {
            return None;
        }
        self.pos += 1;
        self.unit(
            close_start,
            range.end,
            depth,
            Placement::Indented,
            "}".into(),
        );
        Some(())
    }

    fn function(&mut self, function: Function<'_>) -> Option<()> {
        let range = function.range();
        self.comments_before(range.start, 0)?;
        let header_end = function.body().map_or(range.end, |b| b.range().start);
        let header_range = range.start..header_end;
        let tokens = self.take(&header_range);
        let header_end = tokens.last().map_or(range.start, |t| t.range.end);
        let body = if tokens.iter().any(|t| t.kind == TokenKind::Comment) {
            // Comments inside a header are rare; keep such a header as written.
            self.src[range.start..header_end].to_owned()
        } else {
            self.join(&tokens, &self.header_breaks(function, &tokens), 0)
        };
        self.unit(range.start, header_end, 0, Placement::Indented, body);
        match function.body() {
            Some(block) => self.block(block, 0),
            None => Some(()),
        }
    }

    /// Line breaks of a function header: one parameter per line, each
    /// attribute on its own line.
    fn header_breaks(
        &self,
        function: Function<'_>,
        tokens: &[SyntaxToken],
    ) -> Vec<(usize, String)> {
        let mut breaks = Vec::new();
        let Some(name) = function.name() else {
            return breaks;
        };
        let inner = format!("\n{}", self.indentation(1));
        let params = function.parameters();
        let open = tokens
            .iter()
            .position(|t| t.range.start >= name.end && &self.src[t.range.clone()] == "(");
        if let Some(open) = open {
            breaks.push((name.end, String::new()));
            if let (Some(first), Some(last)) = (params.first(), params.last()) {
                breaks.push((tokens[open].range.end, inner.clone()));
                for param in &params[1..] {
                    breaks.push((previous_end(tokens, param.range().start), inner.clone()));
                }
                breaks.push((last.range().end, "\n".into()));
                let _ = first;
            }
        }
        let after_params = params.last().map_or(name.end, |p| p.range().end);
        for token in tokens {
            let starts_attribute = token.range.start > after_params
                && token.kind == TokenKind::Keyword
                && self.src[token.range.clone()].starts_with('.');
            if starts_attribute {
                breaks.push((previous_end(tokens, token.range.start), "\n".into()));
            }
        }
        breaks
    }

    /// Joins the tokens of one statement with normalized blanks. `breaks`
    /// forces the blank after the token ending at the given offset.
    fn join(&self, tokens: &[SyntaxToken], breaks: &[(usize, String)], depth: usize) -> String {
        let continuation = format!("\n{}", self.indentation(depth + 1));
        let mut out = String::new();
        let mut previous: Option<&SyntaxToken> = None;
        for token in tokens {
            let text = &self.src[token.range.clone()];
            if let Some(prev) = previous {
                let prev_text = &self.src[prev.range.clone()];
                let gap = &self.src[prev.range.end..token.range.start];
                let forced = breaks
                    .iter()
                    .find(|(end, _)| *end == prev.range.end)
                    .map(|(_, s)| s.as_str());
                let blank = if prev.kind == TokenKind::Comment && prev_text.starts_with("//") {
                    continuation.as_str()
                } else if token.kind == TokenKind::Comment {
                    if gap.contains('\n') {
                        continuation.as_str()
                    } else {
                        " "
                    }
                } else if text == "," || text == ";" {
                    ""
                } else if let Some(forced) = forced {
                    forced
                } else if prev_text == "," {
                    " "
                } else if gap.is_empty() {
                    ""
                } else {
                    " "
                };
                out.push_str(blank);
            }
            out.push_str(text);
            previous = Some(token);
        }
        out
    }
}

/// The end of the token before the one starting at `start`.
fn previous_end(tokens: &[SyntaxToken], start: usize) -> usize {
    tokens
        .iter()
        .take_while(|t| t.range.start < start)
        .last()
        .map_or(start, |t| t.range.end)
}

#[cfg(test)]
#[path = "formatting_tests.rs"]
mod tests;
