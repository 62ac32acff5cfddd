//! The plain data of the index: sections as [`Entry`] values made of [`Block`]s, and the
//! markdown rendering used by editor hovers.
//!
//! An entry's text comes only from the document the user imported; nothing here carries text of
//! the PTX ISA itself.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Base URL of the official PTX ISA document; an anchor is appended after `#`.
pub const SPEC_URL: &str = "https://docs.nvidia.com/cuda/parallel-thread-execution/";

/// The official URL of an anchor of the PTX ISA document.
pub fn anchor_url(anchor: &str) -> String {
    format!("{SPEC_URL}#{anchor}")
}

/// One block of a section's body, as markdown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "t", content = "v")]
pub enum Block {
    /// A paragraph of markdown text (one line, links made absolute).
    #[serde(rename = "p")]
    Paragraph(String),
    /// A code block, without fences, indentation removed.
    #[serde(rename = "c")]
    Code(String),
    /// A list, as markdown (`- item`, nested by two spaces).
    #[serde(rename = "l")]
    List(String),
    /// A table.
    #[serde(rename = "t")]
    Table(Table),
}

impl Block {
    /// The text of a paragraph or list, `None` for code and tables.
    pub fn prose(&self) -> Option<&str> {
        match self {
            Block::Paragraph(s) | Block::List(s) => Some(s),
            _ => None,
        }
    }

    /// Appends this block as markdown to `out`, followed by a blank line.
    pub fn write_markdown(&self, out: &mut String) {
        match self {
            Block::Paragraph(s) | Block::List(s) => {
                out.push_str(s);
                out.push_str("\n\n");
            }
            Block::Code(s) => {
                out.push_str("```ptx\n");
                out.push_str(s);
                out.push_str("\n```\n\n");
            }
            Block::Table(t) => {
                out.push_str(&t.markdown());
                out.push('\n');
            }
        }
    }
}

/// A table of the document, with its number ("Table 49") where it has one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Table {
    /// The number of the table in the document, if it is captioned "Table N".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<u32>,
    /// The caption after "Table N" (in the 9.1 markdown export the caption and the first
    /// header cell are run together, and both stay in the caption and the cell).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub caption: String,
    /// The anchor of the table, if the document links to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
    /// Rows of cells (markdown); the first row is the header.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The table as a markdown pipe table, preceded by its caption line when it has one.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        if let Some(n) = self.number {
            let _ = write!(out, "**Table {n}**");
            if !self.caption.is_empty() {
                let _ = write!(out, " {}", self.caption);
            }
            out.push_str("\n\n");
        }
        let width = self.rows.iter().map(Vec::len).max().unwrap_or(0).max(1);
        for (i, row) in self.rows.iter().enumerate() {
            out.push('|');
            for c in 0..width {
                let cell = row.get(c).map(String::as_str).unwrap_or("");
                out.push(' ');
                out.push_str(&cell.replace('|', "\\|"));
                out.push_str(" |");
            }
            out.push('\n');
            if i == 0 {
                out.push('|');
                for _ in 0..width {
                    out.push_str(" --- |");
                }
                out.push('\n');
            }
        }
        out
    }

    /// Whether any cell mentions `word` as a whole token.
    pub fn mentions(&self, word: &str) -> bool {
        self.rows.iter().flatten().any(|c| contains_token(c, word))
            || contains_token(&self.caption, word)
    }
}

/// What an entry documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// An instruction of section 9.7 (names like `tcgen05.ld`).
    Instruction,
    /// A directive (chapter 11 and a few elsewhere; names like `.maxnreg`).
    Directive,
    /// A special register of chapter 10 (names like `%tid`).
    SpecialRegister,
    /// Any other section.
    Section,
}

/// Which part of a section's body; the rubrics of an instruction description.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rubric {
    /// Text before the first rubric (the opcode line and its one-line summary).
    Summary,
    /// "Syntax".
    Syntax,
    /// "Description".
    Description,
    /// "Semantics".
    Semantics,
    /// "Notes".
    Notes,
    /// "PTX ISA Notes": the version that introduced a feature.
    PtxIsaNotes,
    /// "Target ISA Notes": the targets that support it.
    TargetIsaNotes,
    /// "Examples".
    Examples,
}

impl Rubric {
    /// All rubrics in document order.
    pub const ALL: [Rubric; 8] = [
        Rubric::Summary,
        Rubric::Syntax,
        Rubric::Description,
        Rubric::Semantics,
        Rubric::Notes,
        Rubric::PtxIsaNotes,
        Rubric::TargetIsaNotes,
        Rubric::Examples,
    ];

    /// The heading of the rubric in the document.
    pub fn label(self) -> &'static str {
        match self {
            Rubric::Summary => "Summary",
            Rubric::Syntax => "Syntax",
            Rubric::Description => "Description",
            Rubric::Semantics => "Semantics",
            Rubric::Notes => "Notes",
            Rubric::PtxIsaNotes => "PTX ISA Notes",
            Rubric::TargetIsaNotes => "Target ISA Notes",
            Rubric::Examples => "Examples",
        }
    }

    /// The rubric a line of the document names, if it is one.
    pub fn from_label(line: &str) -> Option<Rubric> {
        Some(match line.trim() {
            "Syntax" | "Syntax (predefined)" => Rubric::Syntax,
            "Description" => Rubric::Description,
            "Semantics" => Rubric::Semantics,
            "Notes" | "Note" => Rubric::Notes,
            "PTX ISA Notes" | "PTX ISA Note" => Rubric::PtxIsaNotes,
            "Target ISA Notes" | "Target ISA Note" => Rubric::TargetIsaNotes,
            "Examples" | "Example" => Rubric::Examples,
            _ => return None,
        })
    }

    /// Whether the body of this rubric is code in the document (Syntax, Semantics, Examples).
    pub fn is_code(self) -> bool {
        matches!(self, Rubric::Syntax | Rubric::Semantics | Rubric::Examples)
    }
}

/// A sentence inside an entry: which rubric, which block of it, and the byte range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span(pub Rubric, pub u32, pub u32, pub u32);

/// One section of the document, and what it documents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// What the section documents.
    pub kind: EntryKind,
    /// Names it documents: opcodes (`tcgen05.ld`), directives (`.maxnreg`), registers (`%tid`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
    /// Section number, like `9.7.16.8.3`.
    pub number: String,
    /// Section title, without markup.
    pub title: String,
    /// Anchor of the section in the official document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
    /// Whether the anchor was derived from the title rather than read from the document.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub anchor_guessed: bool,
    /// The body, by rubric, in document order.
    pub parts: BTreeMap<Rubric, Vec<Block>>,
    /// For each qualifier (`.pack::16b`), the sentences of this section that mention it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub qualifiers: BTreeMap<String, Vec<Span>>,
}

/// What a hover shows of an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part<'a> {
    /// An opcode, directive or register: summary, syntax, the start of the description, and the
    /// PTX ISA and Target ISA notes.
    Opcode,
    /// A qualifier: the sentences that mention it and the tables that list it.
    Qualifier(&'a str),
    /// A numbered table of this section.
    Table(u32),
    /// Everything in the section.
    Full,
}

/// Description text beyond this many bytes is cut from an opcode hover.
const DESCRIPTION_BUDGET: usize = 1800;

impl Entry {
    /// The blocks of one rubric (empty when the section has none).
    pub fn part(&self, rubric: Rubric) -> &[Block] {
        self.parts.get(&rubric).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The official URL of the section (the document's base URL when its anchor is unknown).
    pub fn url(&self) -> String {
        match &self.anchor {
            Some(a) => anchor_url(a),
            None => SPEC_URL.to_string(),
        }
    }

    /// The Syntax code blocks joined by blank lines.
    pub fn syntax(&self) -> String {
        let code: Vec<&str> = self
            .part(Rubric::Syntax)
            .iter()
            .filter_map(|b| match b {
                Block::Code(c) => Some(c.as_str()),
                _ => None,
            })
            .collect();
        code.join("\n\n")
    }

    /// The tables of the section, in document order.
    pub fn tables(&self) -> impl Iterator<Item = &Table> {
        self.parts.values().flatten().filter_map(|b| match b {
            Block::Table(t) => Some(t),
            _ => None,
        })
    }

    /// The sentences of this section that mention `qualifier` (with or without its leading dot).
    pub fn qualifier_sentences(&self, qualifier: &str) -> Vec<&str> {
        let key = normalize_qualifier(qualifier);
        let Some(spans) = self.qualifiers.get(&key) else {
            return Vec::new();
        };
        spans.iter().filter_map(|s| self.span_text(*s)).collect()
    }

    /// The Syntax placeholder whose value set lists `qualifier`: `.level::prefetch_size` for
    /// `.L2::64B` when the Syntax says `.level::prefetch_size = { .L2::64B, … }`.
    pub fn qualifier_group(&self, qualifier: &str) -> Option<String> {
        let key = normalize_qualifier(qualifier);
        self.group_of(&key).or_else(|| {
            // `.shared::cta` is written `.shared{::cta, ::cluster}` in value sets.
            let (base, _) = key.split_once("::")?;
            self.group_of(base)
        })
    }

    fn group_of(&self, key: &str) -> Option<String> {
        let syntax = self.syntax();
        let mut rest = syntax.as_str();
        while let Some(eq) = rest.find('=') {
            let line_start = rest[..eq].rfind('\n').map_or(0, |p| p + 1);
            let name = rest[line_start..eq].trim();
            let after = rest[eq + 1..].trim_start();
            let offset = rest.len() - after.len();
            if name.starts_with('.')
                && !name.contains(char::is_whitespace)
                && after.starts_with('{')
            {
                let mut depth = 0usize;
                let mut end = after.len();
                for (i, c) in after.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                end = i + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                if name != key && contains_token(&after[..end], key) {
                    return Some(name.to_string());
                }
                rest = &rest[offset + end..];
            } else {
                rest = &rest[eq + 1..];
            }
        }
        None
    }

    /// The text of a sentence span, if it is valid for this entry.
    pub fn span_text(&self, Span(rubric, block, start, end): Span) -> Option<&str> {
        let text = self.part(rubric).get(block as usize)?.prose()?;
        text.get(start as usize..end as usize)
    }

    /// A markdown hover for this entry, always ending with a link to the section.
    pub fn hover_markdown(&self, part: Part<'_>) -> String {
        let mut out = String::new();
        match part {
            Part::Opcode => {
                let _ = writeln!(out, "**{}** {}\n", self.number, self.title);
                for b in self.part(Rubric::Summary) {
                    if let Block::Paragraph(p) = b {
                        if !self.names.iter().any(|n| p.trim_matches('`') == n) {
                            b.write_markdown(&mut out);
                        }
                    }
                }
                if let Some(Block::Code(first)) = self.part(Rubric::Syntax).first() {
                    Block::Code(first.clone()).write_markdown(&mut out);
                }
                let mut used = 0;
                for b in self.part(Rubric::Description) {
                    if used > DESCRIPTION_BUDGET {
                        out.push_str("…\n\n");
                        break;
                    }
                    let len = match b {
                        Block::Paragraph(s) | Block::List(s) | Block::Code(s) => s.len(),
                        // Large tables (matrix layouts) would swamp a hover.
                        Block::Table(t) if t.rows.len() <= 12 => t.markdown().len(),
                        Block::Table(_) => continue,
                    };
                    used += len;
                    b.write_markdown(&mut out);
                }
                for r in [Rubric::PtxIsaNotes, Rubric::TargetIsaNotes] {
                    let blocks = self.part(r);
                    if !blocks.is_empty() {
                        let _ = writeln!(out, "*{}*\n", r.label());
                        blocks.iter().for_each(|b| b.write_markdown(&mut out));
                    }
                }
            }
            Part::Qualifier(q) => {
                let key = normalize_qualifier(q);
                let name = self
                    .names
                    .first()
                    .map(String::as_str)
                    .unwrap_or(&self.title);
                let _ = writeln!(out, "**`{name}`** `{key}`\n");
                // The Syntax lines that define or use it (`.cop = { .ca, .cg, … }`).
                let syntax = self.syntax();
                let mut lines: Vec<&str> = syntax
                    .lines()
                    .map(str::trim_end)
                    .filter(|l| contains_token(l, &key) && !l.trim_start().starts_with("//"))
                    .collect();
                lines.dedup();
                if !lines.is_empty() {
                    lines.truncate(4);
                    Block::Code(lines.join("\n")).write_markdown(&mut out);
                }
                let mut sentences = self.qualifier_sentences(&key);
                if sentences.is_empty() {
                    // `.L2::64B` is described through its group `.level::prefetch_size`.
                    if let Some(group) = self.qualifier_group(&key) {
                        sentences = self.qualifier_sentences(&group);
                    }
                }
                for s in sentences {
                    let _ = writeln!(out, "- {}", s.trim());
                }
                out.push('\n');
                for t in self.tables().filter(|t| t.mentions(&key)).take(2) {
                    out.push_str(&t.markdown());
                    out.push('\n');
                }
            }
            Part::Table(n) => {
                if let Some(t) = self.tables().find(|t| t.number == Some(n)) {
                    out.push_str(&t.markdown());
                    out.push('\n');
                    if let Some(a) = &t.anchor {
                        let _ = writeln!(out, "[Table {n}]({})\n", anchor_url(a));
                    }
                }
            }
            Part::Full => {
                let _ = writeln!(out, "**{}** {}\n", self.number, self.title);
                for (r, blocks) in &self.parts {
                    if *r != Rubric::Summary {
                        let _ = writeln!(out, "*{}*\n", r.label());
                    }
                    blocks.iter().for_each(|b| b.write_markdown(&mut out));
                }
            }
        }
        let _ = write!(
            out,
            "[PTX ISA §{} {}]({})",
            self.number,
            self.title,
            self.url()
        );
        out
    }
}

/// `pack::16b` and `.pack::16b` both become `.pack::16b`.
pub fn normalize_qualifier(q: &str) -> String {
    let q = q.trim().trim_matches('`');
    if q.starts_with('.') {
        q.to_string()
    } else {
        format!(".{q}")
    }
}

/// Whether a byte may continue a qualifier or opcode token.
pub(crate) fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b':'
}

/// Whether `text` contains `word` not followed by a token character (and, when `word` starts
/// with a letter, not preceded by one).
pub fn contains_token(text: &str, word: &str) -> bool {
    if word.is_empty() {
        return false;
    }
    let bytes = text.as_bytes();
    let first_is_word = word.as_bytes()[0].is_ascii_alphanumeric();
    let mut from = 0;
    while let Some(pos) = text[from..].find(word) {
        let start = from + pos;
        let end = start + word.len();
        let after_ok = bytes.get(end).is_none_or(|&b| !is_token_byte(b));
        let before_ok = !first_is_word
            || start == 0
            || !(is_token_byte(bytes[start - 1]) || bytes[start - 1] == b'.');
        if after_ok && before_ok {
            return true;
        }
        from = start + 1;
        while !text.is_char_boundary(from) {
            from += 1;
        }
    }
    false
}
