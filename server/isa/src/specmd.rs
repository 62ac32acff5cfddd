//! Reader for the markdown export of the PTX ISA spec (one `.md` file per section, as in a `ptx-isa-9.1/` folder): splits files into
//! numbered sections and offers helpers to pull out the Syntax block and the notes paragraphs.
//! Used only by the generator and the drift tests; the runtime never reads the spec.

use std::fs;
use std::io;
use std::path::Path;

/// One numbered section of the spec (a heading and the lines up to the next heading).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MdSection {
    /// `9.7.16.8.3`
    pub number: String,
    /// Heading text with links removed, backticks kept.
    pub title: String,
    /// Anchor from the heading link, or derived from the title.
    pub anchor: String,
    pub body: Vec<String>,
}

impl MdSection {
    /// Whether `number` is `prefix` or a subsection of it.
    pub fn is_under(&self, prefix: &str) -> bool {
        self.number == prefix || self.number.starts_with(&format!("{prefix}."))
    }

    /// Numeric sort key (`9.7.10.1` after `9.7.9.28`).
    pub fn sort_key(&self) -> Vec<u32> {
        section_key(&self.number)
    }

    /// Lines of the block that follows a line equal to `label` (e.g. `Syntax`) up to the next
    /// known paragraph label.
    pub fn block(&self, label: &str) -> Option<Vec<String>> {
        let start = self.body.iter().position(|l| l.trim() == label)?;
        let mut out = Vec::new();
        for line in &self.body[start + 1..] {
            if PARAGRAPH_LABELS.contains(&line.trim()) {
                break;
            }
            out.push(line.clone());
        }
        Some(out)
    }
}

/// Paragraph labels that start a new part of an instruction description.
pub const PARAGRAPH_LABELS: &[&str] = &[
    "Syntax",
    "Syntax (predefined)",
    "Description",
    "Semantics",
    "Notes",
    "PTX ISA Notes",
    "Target ISA Notes",
    "Examples",
    "Deprecation Note",
    "Removal Note",
];

/// Sort key for a dotted section number.
pub fn section_key(number: &str) -> Vec<u32> {
    number.split('.').filter_map(|p| p.parse().ok()).collect()
}

/// Read every `*.md` file under `dir` (one level of chapter folders) into sections.
pub fn read_dir_sections(dir: &Path) -> io::Result<Vec<MdSection>> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            for e in fs::read_dir(&path)? {
                let p = e?.path();
                if p.extension().is_some_and(|x| x == "md") {
                    files.push(p);
                }
            }
        }
    }
    files.sort();
    let mut out = Vec::new();
    for f in files {
        out.extend(parse_sections(&fs::read_to_string(&f)?));
    }
    out.sort_by_key(MdSection::sort_key);
    Ok(out)
}

/// Split one markdown file into numbered sections.
pub fn parse_sections(text: &str) -> Vec<MdSection> {
    let mut out: Vec<MdSection> = Vec::new();
    for line in text.lines() {
        if let Some(sec) = parse_heading(line) {
            out.push(sec);
        } else if let Some(cur) = out.last_mut() {
            cur.body.push(line.to_string());
        }
    }
    out
}

fn parse_heading(line: &str) -> Option<MdSection> {
    let rest = line.strip_prefix('#')?.trim_start_matches('#');
    let rest = rest.trim();
    let (number, title) = rest.split_once(' ')?;
    let number = number.strip_suffix('.')?;
    if number.is_empty() || !number.split('.').all(|p| p.parse::<u32>().is_ok()) {
        return None;
    }
    // Drop the private-use link icon some headings end with.
    let title: String = title
        .chars()
        .filter(|c| !('\u{e000}'..='\u{f8ff}').contains(c))
        .collect();
    let title = title.trim();
    let (title, anchor) = match title.strip_prefix('[') {
        Some(t) => {
            let (text, link) = t.split_once("](<#")?;
            let anchor = link.split_once('>')?.0;
            (text.to_string(), anchor.to_string())
        }
        None => (title.to_string(), slug(title)),
    };
    Some(MdSection {
        number: number.to_string(),
        title,
        anchor,
        body: Vec::new(),
    })
}

/// Derive an anchor from a heading (lowercase, runs of other characters become `-`).
pub fn slug(title: &str) -> String {
    let mut out = String::new();
    for c in title.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// Replace markdown links `[text](<#x>)` by `text` and drop emphasis underscores.
pub fn plain(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find('[') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.split_once("](") {
            Some((text, tail)) if !text.contains('[') => {
                let close = tail.find(')').map_or(tail.len(), |j| j + 1);
                out.push_str(text);
                rest = &tail[close.min(tail.len())..];
            }
            _ => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings() {
        let text = "#### 9.7.1.1. Integer Arithmetic Instructions:add\n\nbody\n\
                    #####  9.7.16.8.3. [Tensorcore: `tcgen05.ld`](<#tcgen05-instructions-tcgen05-ld>)\nSyntax\nx;\nDescription\n";
        let s = parse_sections(text);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].anchor, "integer-arithmetic-instructions-add");
        assert_eq!(s[1].number, "9.7.16.8.3");
        assert_eq!(s[1].title, "Tensorcore: `tcgen05.ld`");
        assert_eq!(s[1].anchor, "tcgen05-instructions-tcgen05-ld");
        assert_eq!(s[1].block("Syntax").unwrap(), ["x;"]);
    }

    #[test]
    fn plain_links() {
        assert_eq!(plain("see [Table 5](<#t5>) now"), "see Table 5 now");
        assert_eq!(plain("d[|p]"), "d[|p]");
    }
}
