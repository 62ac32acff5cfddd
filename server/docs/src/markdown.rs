//! Reads the markdown exports of the PTX ISA into numbered sections made of blocks.
//!
//! Two exports are read:
//! - front matter, `#####  9.7.16.8.1. [Title](<#anchor>)` headings, plain `#### 9.7.1.1. Title`
//!   headings, indented code (sometimes with the first line's indent lost), pipe tables whose
//!   header row starts with the table's caption;
//! - `##### 9.7.16.8.3. [Title](https://…#anchor)[](… "Permalink to this headline")` headings,
//!   fenced code followed by "Copy to clipboard", hard-wrapped paragraphs, `| a | b |` tables
//!   with a separate caption line.

use crate::model::{anchor_url, Block, Rubric, Table, SPEC_URL};
use std::collections::BTreeMap;

/// A numbered section read from a file, before it is classified.
#[derive(Debug, Clone, Default)]
pub(crate) struct RawSection {
    pub number: String,
    pub title: String,
    pub anchor: Option<String>,
    pub parts: BTreeMap<Rubric, Vec<Block>>,
}

impl RawSection {
    pub fn body_len(&self) -> usize {
        self.parts.values().flatten().map(block_len).sum()
    }
}

fn block_len(b: &Block) -> usize {
    match b {
        Block::Paragraph(s) | Block::Code(s) | Block::List(s) => s.len(),
        Block::Table(t) => t.rows.iter().flatten().map(String::len).sum(),
    }
}

/// What one file yields.
#[derive(Debug, Default)]
pub(crate) struct ParsedFile {
    pub sections: Vec<RawSection>,
    /// Link texts and the spec anchors they point at (to find anchors of unlinked headings).
    pub links: Vec<(String, String)>,
    /// "PTX ISA 9.1" from an HTML title, when the source was HTML.
    pub version: Option<String>,
}

/// Why a file could not be read as markdown.
#[derive(Debug)]
pub(crate) enum MdError {
    Truncated(String),
}

/// Parses one markdown file.
pub(crate) fn parse(text: &str) -> Result<ParsedFile, MdError> {
    let text = strip_front_matter(text)?;
    let lines: Vec<&str> = text.lines().collect();
    let mut out = ParsedFile::default();
    let mut current: Option<(RawSection, usize)> = None;
    let mut i = 0;
    let mut in_fence = false;
    while i < lines.len() {
        let line = lines[i];
        if is_fence(line) {
            in_fence = !in_fence;
        }
        if !in_fence {
            if let Some((number, title_md)) = heading(line) {
                if let Some((sec, start)) = current.take() {
                    out.sections
                        .push(finish(sec, &lines[start..i], &mut out.links)?);
                }
                let (title, anchor) = heading_title(title_md);
                let sec = RawSection {
                    number,
                    title,
                    anchor,
                    ..Default::default()
                };
                current = Some((sec, i + 1));
            } else if line.starts_with("# ") && current.is_none() {
                // A document title before any section: nothing to keep.
            }
        }
        i += 1;
    }
    if in_fence {
        return Err(MdError::Truncated(
            "a fenced code block is not closed".into(),
        ));
    }
    if let Some((sec, start)) = current.take() {
        out.sections
            .push(finish(sec, &lines[start..], &mut out.links)?);
    }
    Ok(out)
}

fn strip_front_matter(text: &str) -> Result<&str, MdError> {
    let t = text.trim_start_matches('\u{feff}');
    let Some(rest) = t.strip_prefix("---\n") else {
        return Ok(t);
    };
    match rest
        .find("\n---\n")
        .map(|p| p + 5)
        .or_else(|| rest.strip_suffix("\n---").map(str::len))
    {
        Some(end) => Ok(&rest[end.min(rest.len())..]),
        None if rest.starts_with("---\n") => Ok(&rest[4..]),
        None => Err(MdError::Truncated("the front matter is not closed".into())),
    }
}

fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    line.len() - t.len() < 4 && (t.starts_with("```") || t.starts_with("~~~"))
}

/// `#### 9.7.1.1. Title` → ("9.7.1.1", "Title").
fn heading(line: &str) -> Option<(String, &str)> {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    if hashes == 0 || hashes > 8 {
        return None;
    }
    let rest = line[hashes..].strip_prefix(' ')?.trim_start();
    let num_len = rest
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b'.')
        .count();
    let num = rest[..num_len].trim_end_matches('.');
    if num.is_empty() || !num.bytes().next()?.is_ascii_digit() || num.contains("..") {
        return None;
    }
    let title = rest[num_len..].trim();
    if title.is_empty() || !rest[num_len..].starts_with(' ') {
        return None;
    }
    Some((num.to_string(), title))
}

/// The clean title and anchor of a heading's text.
fn heading_title(md: &str) -> (String, Option<String>) {
    let mut links = Vec::new();
    let cleaned = clean_inline(md, &mut links);
    let cleaned = cleaned.trim();
    // `[Title](url#anchor)` spanning the whole heading.
    let (text, anchor) = match links.last() {
        Some((text, anchor)) if cleaned.starts_with('[') && cleaned.ends_with(')') => {
            (text.clone(), Some(anchor.clone()))
        }
        _ => (cleaned.to_string(), None),
    };
    (plain_title(&text), anchor)
}

/// Removes backticks and emphasis, puts a space after `Instructions:`.
pub(crate) fn plain_title(s: &str) -> String {
    let s: String = s
        .chars()
        .filter(|&c| c != '`' && c != '*' && !is_icon(c))
        .collect();
    let mut out = String::with_capacity(s.len() + 2);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == ':' && out.len() > 1 {
            if let Some(&n) = chars.peek() {
                if n != ' ' && n != ':' && !out.ends_with("::") {
                    out.push(' ');
                }
            }
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Link icons of the exports (private-use glyphs, pilcrows) that carry no text.
pub(crate) fn is_icon(c: char) -> bool {
    ('\u{e000}'..='\u{f8ff}').contains(&c) || c == '¶'
}

/// Rewrites links: drops permalinks, makes spec anchors absolute, turns images into links, and
/// records (text, anchor) of links into the spec.
pub(crate) fn clean_inline(s: &str, links: &mut Vec<(String, String)>) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(pos) = rest.find('[') {
        let image = pos > 0 && rest.as_bytes()[pos - 1] == b'!';
        out.push_str(&rest[..if image { pos - 1 } else { pos }]);
        let after = &rest[pos..];
        match parse_link(after) {
            Some((text, target, title, len)) => {
                rest = &after[len..];
                if title.starts_with("Permalink") {
                    continue;
                }
                let url = absolute(target);
                if let Some(anchor) = spec_anchor(&url) {
                    if !text.is_empty() {
                        links.push((text.to_string(), anchor.to_string()));
                    }
                }
                if image {
                    out.push_str(&format!(
                        "[image: {}]({url})",
                        text.rsplit('/').next().unwrap_or(text)
                    ));
                } else {
                    out.push_str(&format!("[{text}]({url})"));
                }
            }
            None => {
                if image {
                    out.push('!');
                }
                out.push('[');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    if out.contains(is_icon) {
        out.retain(|c| !is_icon(c));
    }
    out
}

/// `[text](target "title")` at the start of `s` → (text, target, title, length).
fn parse_link(s: &str) -> Option<(&str, &str, &str, usize)> {
    let bytes = s.as_bytes();
    let mut depth = 0usize;
    let mut close = None;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(i);
                    break;
                }
            }
            b'\n' => return None,
            _ => {}
        }
    }
    let close = close?;
    if bytes.get(close + 1) != Some(&b'(') {
        return None;
    }
    let inner_start = close + 2;
    let inner = &s[inner_start..];
    let (target, after_target) = if let Some(r) = inner.strip_prefix('<') {
        let end = r.find('>')?;
        (&r[..end], inner_start + 1 + end + 1)
    } else {
        let end = inner.find([' ', ')'])?;
        (&inner[..end], inner_start + end)
    };
    let tail = &s[after_target..];
    let tail_trim = tail.trim_start();
    let skipped = tail.len() - tail_trim.len();
    let (title, end) = if let Some(r) = tail_trim.strip_prefix('"') {
        let q = r.find('"')?;
        let r2 = &r[q + 1..];
        let p = r2.find(')')?;
        (&r[..q], after_target + skipped + 1 + q + 1 + p + 1)
    } else if tail_trim.starts_with(')') {
        ("", after_target + skipped + 1)
    } else {
        return None;
    };
    Some((&s[1..close], target, title, end))
}

/// The anchor of a `[…](url#anchor "Permalink to this table")` link in `s`.
fn permalink_anchor(s: &str) -> Option<String> {
    let mut rest = s;
    while let Some(pos) = rest.find('[') {
        let after = &rest[pos..];
        if let Some((_, target, title, len)) = parse_link(after) {
            if title.starts_with("Permalink") {
                return spec_anchor(&absolute(target)).map(str::to_string);
            }
            rest = &after[len..];
        } else {
            rest = &after[1..];
        }
    }
    None
}

fn absolute(target: &str) -> String {
    if let Some(a) = target.strip_prefix('#') {
        return anchor_url(a);
    }
    for base in [
        "https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#",
        "index.html#",
    ] {
        if let Some(a) = target.strip_prefix(base) {
            return anchor_url(a);
        }
    }
    // Relative links of the HTML page (`_images/x.png`) resolve against the document's URL.
    let relative = !target.is_empty()
        && !target.contains("://")
        && !target.starts_with("mailto:")
        && !target.starts_with('/');
    if relative {
        return format!("{SPEC_URL}{target}");
    }
    target.to_string()
}

fn spec_anchor(url: &str) -> Option<&str> {
    url.strip_prefix(SPEC_URL)?
        .strip_prefix('#')
        .filter(|a| !a.is_empty())
}

/// Splits a section's lines into rubric parts of blocks.
fn finish(
    mut sec: RawSection,
    lines: &[&str],
    links: &mut Vec<(String, String)>,
) -> Result<RawSection, MdError> {
    let mut p = BlockParser {
        lines,
        i: 0,
        rubric: Rubric::Summary,
        links,
        parts: BTreeMap::new(),
    };
    p.run()?;
    sec.parts = p.parts;
    Ok(sec)
}

struct BlockParser<'a, 'l> {
    lines: &'a [&'a str],
    i: usize,
    rubric: Rubric,
    links: &'l mut Vec<(String, String)>,
    parts: BTreeMap<Rubric, Vec<Block>>,
}

fn indent(line: &str) -> usize {
    line.chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum()
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// `* x`, `- x`, `+ x`, `1. x` → (marker width including the space, ordered).
fn list_marker(line: &str) -> Option<usize> {
    let t = line.trim_start();
    if t.starts_with("* ") || t.starts_with("- ") || t.starts_with("+ ") {
        return Some(2);
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && digits < 4 && t[digits..].starts_with(". ") {
        return Some(digits + 2);
    }
    None
}

fn is_table_separator(line: &str) -> bool {
    let t = line.trim();
    t.contains('-')
        && t.contains(['|', '-'])
        && t.bytes().all(|b| matches!(b, b'|' | b'-' | b':' | b' '))
        && t.matches("---").count() >= 1
}

/// "Table 49 Caption…" → (49, rest).
fn table_caption(s: &str) -> Option<(u32, &str)> {
    let r = s.trim_start().strip_prefix("Table ")?;
    let n = r.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 || !r[n..].starts_with(' ') && !r[n..].is_empty() {
        return None;
    }
    Some((r[..n].parse().ok()?, r[n..].trim()))
}

fn split_row(line: &str) -> Vec<String> {
    let t = line.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = if t.ends_with('|') && !t.ends_with("\\|") {
        &t[..t.len() - 1]
    } else {
        t
    };
    let mut cells = vec![String::new()];
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                if let Some(s) = cells.last_mut() {
                    s.push('|');
                }
                chars.next();
            }
            '|' => cells.push(String::new()),
            _ => {
                if let Some(s) = cells.last_mut() {
                    s.push(c);
                }
            }
        }
    }
    cells.into_iter().map(|c| c.trim().to_string()).collect()
}

impl BlockParser<'_, '_> {
    fn push(&mut self, b: Block) {
        self.parts.entry(self.rubric).or_default().push(b);
    }

    fn inline(&mut self, s: &str) -> String {
        clean_inline(s, self.links)
    }

    fn run(&mut self) -> Result<(), MdError> {
        while self.i < self.lines.len() {
            let line = self.lines[self.i];
            let t = line.trim();
            if (t.is_empty() && !self.starts_code(self.i)) || t == "Copy to clipboard" {
                self.i += 1;
            } else if is_fence(line) {
                self.fenced()?;
            } else if let Some(r) = Rubric::from_label(t).filter(|_| self.next_is_blank()) {
                self.rubric = r;
                self.i += 1;
            } else if self.starts_table(self.i) {
                self.table();
            } else if list_marker(line).is_some() && indent(line) < 8 {
                self.list();
            } else if self.starts_code(self.i) {
                self.indented_code(false);
            } else {
                self.paragraph();
            }
        }
        Ok(())
    }

    fn next_is_blank(&self) -> bool {
        self.lines.get(self.i + 1).is_none_or(|l| is_blank(l))
    }

    /// An indented code line, or whitespace-only lines leading to one.
    fn starts_code(&self, at: usize) -> bool {
        let line = self.lines[at];
        if line.is_empty() {
            return false;
        }
        if is_blank(line) {
            let mut j = at;
            while j < self.lines.len() && is_blank(self.lines[j]) && !self.lines[j].is_empty() {
                j += 1;
            }
            return j < self.lines.len()
                && j > at
                && self.starts_code(j)
                && !is_blank(self.lines[j]);
        }
        indent(line) >= 4 && list_marker(line).is_none()
    }

    fn starts_table(&self, at: usize) -> bool {
        self.lines[at].contains('|')
            && self
                .lines
                .get(at + 1)
                .is_some_and(|l| is_table_separator(l))
    }

    fn fenced(&mut self) -> Result<(), MdError> {
        let start = self.i + 1;
        let mut j = start;
        while j < self.lines.len() && !is_fence(self.lines[j]) {
            j += 1;
        }
        if j >= self.lines.len() {
            return Err(MdError::Truncated(
                "a fenced code block is not closed".into(),
            ));
        }
        let code = dedent(&self.lines[start..j], false);
        self.i = j + 1;
        if !code.is_empty() {
            self.push(Block::Code(code));
        }
        Ok(())
    }

    /// Indented code; `first_unindented` when the first line lost its indentation.
    fn indented_code(&mut self, first_unindented: bool) {
        let start = self.i;
        let mut j = self.i + 1;
        while j < self.lines.len() {
            let l = self.lines[j];
            if l.is_empty() || (!is_blank(l) && indent(l) < 4) {
                break;
            }
            j += 1;
        }
        let code = dedent(&self.lines[start..j], first_unindented);
        self.i = j;
        if !code.is_empty() {
            self.push(Block::Code(code));
        }
    }

    fn table(&mut self) {
        let header = self.lines[self.i];
        let mut rows = vec![split_row(header)];
        let mut number = None;
        let mut caption = String::new();
        let mut anchor = None;
        if let Some((n, rest)) = table_caption(&rows[0][0]) {
            // 9.1 export: "Table 49 Caption text first-header-cell | next header …": caption
            // and cell cannot be told apart, so the text stays in the cell.
            number = Some(n);
            rows[0][0] = rest.to_string();
        } else if let Some(Block::Paragraph(p)) =
            self.parts.get(&self.rubric).and_then(|v| v.last())
        {
            if let Some((n, rest)) = table_caption(p).filter(|_| p.len() < 400) {
                number = Some(n);
                let mut l = Vec::new();
                caption = clean_inline(rest, &mut l);
                self.parts.get_mut(&self.rubric).and_then(Vec::pop);
            }
        }
        let mut j = self.i + 2;
        while j < self.lines.len() && !is_blank(self.lines[j]) && !self.starts_table(j) {
            let line = self.lines[j];
            if line.contains('|') {
                rows.push(split_row(line));
            } else if self
                .lines
                .get(j + 1)
                .is_some_and(|n| !is_blank(n) && n.contains('|'))
            {
                // A row spanning all columns (a group label) inside the table.
                rows.push(vec![line.trim().to_string()]);
            } else {
                break;
            }
            j += 1;
        }
        self.i = j;
        // A caption line of the second export carries the table's permalink anchor.
        if let Some(n) = number {
            let needle = format!("Table {n}");
            anchor = self
                .links
                .iter()
                .rev()
                .find(|(text, _)| text.trim() == needle)
                .map(|(_, a)| a.clone());
        }
        let rows = rows
            .into_iter()
            .map(|r| r.into_iter().map(|c| self.inline(&c)).collect())
            .filter(|r: &Vec<String>| r.iter().any(|c| !c.is_empty()))
            .collect();
        self.push(Block::Table(Table {
            number,
            caption: caption.trim().to_string(),
            anchor,
            rows,
        }));
    }

    fn list(&mut self) {
        let mut items: Vec<(usize, String)> = Vec::new();
        let mut indents: Vec<usize> = Vec::new();
        let mut j = self.i;
        while j < self.lines.len() {
            let l = self.lines[j];
            if is_blank(l) {
                // The list goes on if the next non-blank line is an item or an indented line.
                let mut k = j;
                while k < self.lines.len() && is_blank(self.lines[k]) {
                    k += 1;
                }
                if k < self.lines.len()
                    && (list_marker(self.lines[k]).is_some() || indent(self.lines[k]) >= 2)
                    && !self.starts_table(k)
                {
                    j = k;
                    continue;
                }
                break;
            }
            let ind = indent(l);
            if let Some(w) = list_marker(l) {
                while indents.last().is_some_and(|&x| x > ind) {
                    indents.pop();
                }
                if indents.last() != Some(&ind) {
                    indents.push(ind);
                }
                let text = l.trim_start()[w..].trim().to_string();
                items.push((indents.len() - 1, text));
            } else if ind >= 2 || !items.is_empty() && ind == 0 && !self.starts_table(j) {
                if ind == 0 && j > 0 && is_blank(self.lines[j - 1]) {
                    break;
                }
                if let Some(last) = items.last_mut() {
                    last.1.push(' ');
                    last.1.push_str(l.trim());
                }
            } else {
                break;
            }
            j += 1;
        }
        self.i = j.max(self.i + 1);
        let mut md = String::new();
        for (level, text) in items {
            let text = self.inline(&text);
            if !md.is_empty() {
                md.push('\n');
            }
            md.push_str(&"  ".repeat(level));
            md.push_str("- ");
            md.push_str(&text);
        }
        if !md.is_empty() {
            self.push(Block::List(md));
        }
    }

    fn paragraph(&mut self) {
        // A line directly followed by indented code is code whose first line lost its indent.
        // So is a code-like line followed by the whitespace-only lines that only occur in code.
        if let Some(next) = self.lines.get(self.i + 1) {
            let direct = !is_blank(next) && indent(next) >= 4 && list_marker(next).is_none();
            let spaced = !next.is_empty()
                && is_blank(next)
                && self.starts_code(self.i + 1)
                && !looks_like_prose(self.lines[self.i].trim());
            if direct || spaced {
                self.indented_code(true);
                return;
            }
        }
        let start = self.i;
        let mut j = self.i;
        while j < self.lines.len() {
            let l = self.lines[j];
            if is_blank(l)
                || (j > start
                    && (is_fence(l)
                        || list_marker(l).is_some()
                        || self.starts_table(j)
                        || l.trim() == "Copy to clipboard"))
            {
                break;
            }
            j += 1;
        }
        self.i = j;
        let joined: Vec<&str> = self.lines[start..j].iter().map(|l| l.trim()).collect();
        let raw = joined.join(if self.rubric.is_code() { "\n" } else { " " });
        if self.rubric.is_code() && !looks_like_prose(&raw) {
            self.push(Block::Code(raw));
            return;
        }
        if let Some((n, _)) = table_caption(&raw) {
            if let Some(a) = permalink_anchor(&raw) {
                self.links.push((format!("Table {n}"), a));
            }
        }
        let text = self.inline(&raw.replace('\n', " "));
        if !text.is_empty() {
            self.push(Block::Paragraph(text));
        }
    }
}

/// Whether a paragraph under Syntax, Semantics or Examples is prose rather than code.
fn looks_like_prose(s: &str) -> bool {
    if s.starts_with("//") || s.starts_with('.') {
        return false;
    }
    let words = s.split_whitespace().count();
    s.contains('`')
        || s.contains("](")
        || (s.ends_with(':') && !s.contains(';'))
        || (words >= 6 && s.ends_with('.') && !s.contains(';') && !s.contains('{'))
}

/// Removes common indentation and blank lines at both ends.
fn dedent(lines: &[&str], first_unindented: bool) -> String {
    let body = if first_unindented && lines.len() > 1 {
        &lines[1..]
    } else {
        lines
    };
    let min = body
        .iter()
        .filter(|l| !is_blank(l))
        .map(|l| indent(l))
        .min()
        .unwrap_or(0);
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    for (k, l) in lines.iter().enumerate() {
        let l = l.trim_end();
        if first_unindented && k == 0 {
            out.push(l.trim_start().to_string());
        } else {
            out.push(strip_indent(l, min));
        }
    }
    while out.first().is_some_and(|l| l.is_empty()) {
        out.remove(0);
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    // Runs of blank lines (the exports double them) become one.
    let mut result = String::new();
    let mut blank = false;
    for l in out {
        if l.is_empty() {
            if blank {
                continue;
            }
            blank = true;
        } else {
            blank = false;
        }
        if !result.is_empty() {
            result.push('\n');
        }
        result.push_str(&l);
    }
    result
}

fn strip_indent(l: &str, n: usize) -> String {
    let mut removed = 0;
    let mut idx = 0;
    for (i, c) in l.char_indices() {
        if removed >= n || !(c == ' ' || c == '\t') {
            idx = i;
            break;
        }
        removed += if c == '\t' { 4 } else { 1 };
        idx = i + c.len_utf8();
    }
    l[idx..].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings() {
        assert_eq!(
            heading("#### 9.7.1.1. Integer Arithmetic Instructions:add")
                .unwrap()
                .0,
            "9.7.1.1"
        );
        assert!(heading("# PTX ISA 9.1, as markdown").is_none());
        assert!(heading("## 9.").is_none());
        let (t, a) = heading_title("[Placeholder Instructions: `foo.bar`](<#foo-bar>)");
        assert_eq!(t, "Placeholder Instructions: foo.bar");
        assert_eq!(a.as_deref(), Some("foo-bar"));
        let (t, a) = heading_title(
            "[Zzz: `q`](https://docs.nvidia.com/cuda/parallel-thread-execution/#zz-q)[\u{b6}](https://docs.nvidia.com/cuda/parallel-thread-execution/#zz-q \"Permalink to this headline\")",
        );
        assert_eq!((t.as_str(), a.as_deref()), ("Zzz: q", Some("zz-q")));
        assert_eq!(
            plain_title("Widget Instructions:frob"),
            "Widget Instructions: frob"
        );
        assert_eq!(
            plain_title("Widget Instructions: `a::b`"),
            "Widget Instructions: a::b"
        );
    }

    #[test]
    fn blocks_of_both_exports() {
        let text = "---\ntitle: x\n---\n\n## 1.2. Lorem\n\nSyntax\n\nfoo.bar d, a;\n    foo.baz d;\n    \n    .t = { .a, .b };\n\nDescription\n\nLorem `.a` ipsum. Dolor [sit](<#amet>) amet.\n\nTable 3 Widgets .x | .y  \n---|---  \n1 | 2  \n\n  * one\n\n    * two\n\n```\ncode here\n```\n\nCopy to clipboard\n";
        let f = parse(text).unwrap();
        assert_eq!(f.sections.len(), 1);
        let s = &f.sections[0];
        assert_eq!(
            s.parts[&Rubric::Syntax],
            vec![Block::Code(
                "foo.bar d, a;\nfoo.baz d;\n\n.t = { .a, .b };".into()
            )]
        );
        let d = &s.parts[&Rubric::Description];
        assert!(matches!(&d[0], Block::Paragraph(p) if p.contains(&anchor_url("amet"))));
        assert!(matches!(&d[1], Block::Table(t) if t.number == Some(3) && t.rows.len() == 2));
        assert_eq!(d[2], Block::List("- one\n  - two".into()));
        assert_eq!(d[3], Block::Code("code here".into()));
        assert_eq!(f.links, vec![("sit".to_string(), "amet".to_string())]);
    }

    #[test]
    fn truncation() {
        assert!(parse("---\ntitle: x\n").is_err());
        assert!(parse("## 1. A\n\n```\ncode").is_err());
    }
}
