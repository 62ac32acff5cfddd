//! Turns parsed sections into index entries: which sections document which instructions,
//! directives and special registers, the anchors of sections that the export left without one,
//! the per-qualifier sentences, and the document's version.

use crate::markdown::{plain_title, ParsedFile, RawSection};
use crate::model::{contains_token, is_token_byte, Block, Entry, EntryKind, Rubric, Span};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The version of the document and whether it was stated or only inferred.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DocVersion {
    pub version: String,
    pub inferred: bool,
}

/// Builds the entries from all parsed files, sorted by section number.
pub(crate) fn build(files: Vec<ParsedFile>) -> (Vec<Entry>, Option<DocVersion>) {
    let mut html_version = None;
    let mut links: Vec<(String, String)> = Vec::new();
    let mut by_number: BTreeMap<Vec<u32>, RawSection> = BTreeMap::new();
    for f in files {
        html_version = html_version.or(f.version);
        links.extend(f.links);
        for s in f.sections {
            let key = number_key(&s.number);
            match by_number.get_mut(&key) {
                Some(old) => {
                    // The same section from two files: keep the fuller one, and any anchor.
                    let anchor = old.anchor.clone().or_else(|| s.anchor.clone());
                    if s.body_len() > old.body_len() {
                        *old = s;
                    }
                    old.anchor = old.anchor.clone().or(anchor);
                }
                None => {
                    by_number.insert(key, s);
                }
            }
        }
    }
    let link_map = link_map(&links);
    let mut table_anchors: HashMap<u32, String> = HashMap::new();
    for (text, anchor) in &links {
        if let Some(n) = text
            .trim()
            .strip_prefix("Table ")
            .and_then(|n| n.trim().parse().ok())
        {
            table_anchors.entry(n).or_insert_with(|| anchor.clone());
        }
    }
    let mut entries = Vec::with_capacity(by_number.len());
    for (_, s) in by_number {
        entries.push(make_entry(s, &link_map, &table_anchors));
    }
    let version = html_version
        .map(|v| DocVersion {
            version: v,
            inferred: false,
        })
        .or_else(|| stated_version(&entries))
        .or_else(|| inferred_version(&entries));
    (entries, version)
}

/// "9.7.16.8.3" → [9, 7, 16, 8, 3], for numeric order.
pub(crate) fn number_key(n: &str) -> Vec<u32> {
    n.split('.')
        .map(|c| c.parse().unwrap_or(u32::MAX))
        .collect()
}

fn normalize_for_match(s: &str) -> String {
    plain_title(s)
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '.' || *c == '%')
        .flat_map(char::to_lowercase)
        .collect()
}

/// Normalized link text → anchor, for texts that always point at the same anchor.
fn link_map(links: &[(String, String)]) -> HashMap<String, Option<String>> {
    let mut map: HashMap<String, Option<String>> = HashMap::new();
    for (text, anchor) in links {
        let key = normalize_for_match(text);
        if key.is_empty() {
            continue;
        }
        match map.get_mut(&key) {
            Some(slot) => {
                if slot.as_deref() != Some(anchor.as_str()) {
                    *slot = None;
                }
            }
            None => {
                map.insert(key, Some(anchor.clone()));
            }
        }
    }
    map
}

fn slug(title: &str) -> String {
    let mut out = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

/// The anchor the official page most likely gives a section the export left without one: the
/// slug of its title, as Sphinx makes them ("Integer Arithmetic Instructions: add" →
/// `integer-arithmetic-instructions-add`), with the page's spellings of symbol names.
fn guess_anchor(title: &str, kind: EntryKind) -> Option<String> {
    let title = match title.split_once(": ") {
        Some((category, "{}")) => format!("{category} curly braces"),
        Some((category, "@")) => format!("{category} at"),
        _ if kind == EntryKind::Directive => title.replace("(deprecated)", ""),
        _ => title.to_string(),
    };
    Some(slug(&title)).filter(|a| !a.is_empty())
}

fn make_entry(
    s: RawSection,
    links: &HashMap<String, Option<String>>,
    table_anchors: &HashMap<u32, String>,
) -> Entry {
    let (kind, names) = classify(&s);
    let mut anchor_guessed = false;
    let anchor = s.anchor.clone().or_else(|| {
        links
            .get(&normalize_for_match(&s.title))
            .cloned()
            .flatten()
            .or_else(|| {
                anchor_guessed = true;
                guess_anchor(&s.title, kind)
            })
    });
    let mut parts = s.parts;
    for blocks in parts.values_mut() {
        for b in blocks.iter_mut() {
            if let Block::Table(t) = b {
                if t.anchor.is_none() {
                    t.anchor = t.number.and_then(|n| table_anchors.get(&n).cloned());
                }
            }
        }
    }
    let mut entry = Entry {
        kind,
        names,
        number: s.number,
        title: s.title,
        anchor,
        anchor_guessed,
        parts,
        qualifiers: BTreeMap::new(),
    };
    if entry.kind == EntryKind::Instruction {
        entry.qualifiers = qualifier_map(&entry);
    }
    entry
}

/// What a section documents, from its title (and its Syntax block when the title names none).
fn classify(s: &RawSection) -> (EntryKind, Vec<String>) {
    let title = &s.title;
    let (prefix, rest) = match title.split_once(": ") {
        Some((p, r)) => (p.to_ascii_lowercase(), r),
        None => (String::new(), ""),
    };
    let chapter = s.number.split('.').next().unwrap_or("");
    if s.number.starts_with("9.7.") && prefix.contains("instruction") {
        let names: Vec<String> = split_names(rest).filter(|n| is_opcode(n)).collect();
        if !names.is_empty() {
            return (EntryKind::Instruction, names);
        }
    }
    if prefix.contains("special register") || chapter == "10" && rest.starts_with('%') {
        let names: Vec<String> = split_names(rest)
            .filter(|n| n.starts_with('%'))
            .flat_map(|n| expand_register(&n))
            .collect();
        if !names.is_empty() {
            return (EntryKind::SpecialRegister, names);
        }
    }
    if prefix.contains("directive") {
        let names: Vec<String> = split_names(rest)
            .filter(|n| n.starts_with('.') || n.starts_with("@@"))
            .collect();
        if !names.is_empty() {
            return (EntryKind::Directive, names);
        }
    }
    if s.number.starts_with("9.7.") {
        if let Some(name) = syntax_opcode(s) {
            return (EntryKind::Instruction, vec![name]);
        }
    }
    (EntryKind::Section, Vec::new())
}

fn split_names(rest: &str) -> impl Iterator<Item = String> + '_ {
    rest.split([',', '/'])
        .flat_map(|p| p.split(" and "))
        .map(|n| n.trim().trim_end_matches("(deprecated)").trim().to_string())
        .filter(|n| !n.is_empty())
}

fn is_opcode(n: &str) -> bool {
    if n == "{}" || n == "@" {
        return true;
    }
    let b = n.as_bytes();
    b[0].is_ascii_lowercase()
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b':')
}

/// `%pm0…%pm7` → `%pm0`..`%pm7`; `%envreg<32>` → `%envreg<32>`, `%envreg`, `%envreg0`..;
/// `%reserved_smem_offset_<2>` → `…_0`, `…_1`.
fn expand_register(n: &str) -> Vec<String> {
    if let Some((a, b)) = n.split_once('…').or_else(|| n.split_once("...")) {
        let (pa, sa, na) = split_digits(a);
        let (pb, sb, nb) = split_digits(b.trim());
        if let (Some(x), Some(y)) = (na, nb) {
            if pa == pb && sa == sb && x <= y && y - x < 64 {
                return (x..=y).map(|i| format!("{pa}{i}{sa}")).collect();
            }
        }
        return vec![a.to_string(), b.trim().to_string()];
    }
    if let Some((base, count)) = n.strip_suffix('>').and_then(|r| r.split_once('<')) {
        if let Ok(c) = count.parse::<u32>() {
            let mut v = vec![n.to_string(), base.trim_end_matches('_').to_string()];
            v.extend((0..c.min(64)).map(|i| format!("{base}{i}")));
            return v;
        }
    }
    vec![n.to_string()]
}

/// `%pm3_64` → ("%pm", "_64", Some(3)).
fn split_digits(s: &str) -> (&str, &str, Option<u32>) {
    let start = s.find(|c: char| c.is_ascii_digit());
    match start {
        Some(st) => {
            let len = s[st..].bytes().take_while(u8::is_ascii_digit).count();
            (&s[..st], &s[st + len..], s[st..st + len].parse().ok())
        }
        None => (s, "", None),
    }
}

/// The opcode of a section whose title names none: the first token of its Syntax, up to the
/// first placeholder or braces.
fn syntax_opcode(s: &RawSection) -> Option<String> {
    let code = s.parts.get(&Rubric::Syntax)?.iter().find_map(|b| match b {
        Block::Code(c) => Some(c.as_str()),
        _ => None,
    })?;
    let line = code
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('.'))?;
    let token = line.split_whitespace().next()?;
    let first = token.split(['.', '{']).next()?;
    (!first.is_empty() && is_opcode(first)).then(|| first.to_string())
}

/// Sentence ranges of a prose block (list items are split at line ends too).
pub(crate) fn sentences(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    let mut in_code = false;
    while i < b.len() {
        let c = b[i];
        if c == b'`' {
            in_code = !in_code;
        }
        let end_here = if c == b'\n' {
            Some(i)
        } else if !in_code && matches!(c, b'.' | b'!' | b'?') && b.get(i + 1) == Some(&b' ') {
            let next = b.get(i + 2).copied().unwrap_or(b' ');
            let word_start = text[..i].rfind([' ', '(']).map_or(0, |p| p + 1);
            let word = &text[word_start..i];
            let abbrev = matches!(
                word,
                "e.g" | "i.e" | "etc" | "vs" | "Fig" | "approx" | "resp"
            );
            (!abbrev && (next.is_ascii_uppercase() || matches!(next, b'`' | b'[' | b'*')))
                .then_some(i + 1)
        } else {
            None
        };
        if let Some(e) = end_here {
            push_trimmed(text, start, e, &mut out);
            start = e + 1;
            in_code = false;
        }
        i += 1;
    }
    push_trimmed(text, start, b.len(), &mut out);
    out
}

fn push_trimmed(text: &str, start: usize, end: usize, out: &mut Vec<(usize, usize)>) {
    let s = &text[start..end];
    let lead = s.len() - s.trim_start_matches([' ', '-']).len();
    let trimmed = s.trim_start_matches([' ', '-']).trim_end();
    if !trimmed.is_empty() {
        out.push((start + lead, start + lead + trimmed.len()));
    }
}

/// Qualifier-like tokens: `.x`, `.pack::16b`, `.16x32bx2`.
fn qualifier_tokens(text: &str, into: &mut BTreeSet<String>) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'.' && (i == 0 || !b[i - 1].is_ascii_digit()) {
            let mut j = i + 1;
            while j < b.len() && is_token_byte(b[j]) {
                j += 1;
            }
            let tok = text[i..j].trim_end_matches(':');
            if tok.len() > 1 && !tok[1..].bytes().all(|c| c.is_ascii_digit()) {
                into.insert(tok.to_string());
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
}

const PROSE_RUBRICS: [Rubric; 5] = [
    Rubric::Summary,
    Rubric::Description,
    Rubric::Notes,
    Rubric::PtxIsaNotes,
    Rubric::TargetIsaNotes,
];

/// For each qualifier of an instruction, the sentences of its section that mention it.
fn qualifier_map(e: &Entry) -> BTreeMap<String, Vec<Span>> {
    let mut candidates = BTreeSet::new();
    for b in e.part(Rubric::Syntax) {
        if let Block::Code(c) = b {
            qualifier_tokens(c, &mut candidates);
        }
    }
    for r in PROSE_RUBRICS {
        for b in e.part(r) {
            if let Some(p) = b.prose() {
                for (k, piece) in p.split('`').enumerate() {
                    if k % 2 == 1 && piece.starts_with('.') {
                        qualifier_tokens(piece, &mut candidates);
                    }
                }
            }
        }
    }
    // Components of the entry's own names (`.ld` of `tcgen05.ld`) are not qualifiers.
    let own: BTreeSet<String> = e
        .names
        .iter()
        .flat_map(|n| {
            n.split('.')
                .skip(1)
                .map(|c| format!(".{c}"))
                .collect::<Vec<_>>()
        })
        .collect();
    let mut prose: Vec<(Rubric, u32, usize, usize, &str)> = Vec::new();
    for r in PROSE_RUBRICS {
        for (bi, b) in e.part(r).iter().enumerate() {
            if let Some(p) = b.prose() {
                for (s, t) in sentences(p) {
                    prose.push((r, bi as u32, s, t, &p[s..t]));
                }
            }
        }
    }
    let mut map = BTreeMap::new();
    for q in candidates.into_iter().filter(|q| !own.contains(q)) {
        let spans: Vec<Span> = prose
            .iter()
            .filter(|(.., text)| contains_token(text, &q) && !is_bare_label(text, &q))
            .map(|&(r, bi, s, t, _)| Span(r, bi, s as u32, t as u32))
            .collect();
        if !spans.is_empty() {
            map.insert(q, spans);
        }
    }
    map
}

/// A "sentence" that is only the qualifier itself (a definition-list label like "`.volatile`:").
fn is_bare_label(text: &str, q: &str) -> bool {
    text.trim_matches(|c: char| c == '`' || c == ':' || c == '.' || c.is_whitespace())
        == q.trim_start_matches('.')
}

fn parse_version(s: &str) -> Option<(u32, u32)> {
    let (a, b) = s.split_once('.')?;
    let b: String = b.chars().take_while(char::is_ascii_digit).collect();
    Some((a.trim().parse().ok()?, b.parse().ok()?))
}

/// Orders "9.1" after "8.8" and "10.0" after "9.1".
pub(crate) fn version_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    parse_version(a)
        .unwrap_or((0, 0))
        .cmp(&parse_version(b).unwrap_or((0, 0)))
}

/// The version in a title like "PTX ISA Version 9.1".
fn stated_version(entries: &[Entry]) -> Option<DocVersion> {
    entries.iter().find_map(|e| {
        let t = e.title.to_ascii_lowercase();
        let v = t.strip_prefix("ptx isa version ")?;
        let (a, b) = parse_version(v)?;
        Some(DocVersion {
            version: format!("{a}.{b}"),
            inferred: false,
        })
    })
}

/// The highest "PTX ISA version X.Y" the text mentions.
fn inferred_version(entries: &[Entry]) -> Option<DocVersion> {
    let mut best: Option<(u32, u32)> = None;
    for e in entries {
        for b in e.parts.values().flatten() {
            let Some(p) = b.prose() else { continue };
            let lower = p.to_ascii_lowercase();
            for (pos, _) in lower.match_indices("ptx isa version ") {
                if let Some(v) = parse_version(&lower[pos + 16..]) {
                    best = best.max(Some(v));
                }
            }
        }
    }
    best.map(|(a, b)| DocVersion {
        version: format!("{a}.{b}"),
        inferred: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_expansion() {
        assert_eq!(expand_register("%pm0…%pm2"), ["%pm0", "%pm1", "%pm2"]);
        assert_eq!(expand_register("%pm0_64…%pm1_64"), ["%pm0_64", "%pm1_64"]);
        let e = expand_register("%envreg<32>");
        assert_eq!(e.len(), 34);
        assert!(e.contains(&"%envreg".to_string()) && e.contains(&"%envreg31".to_string()));
        assert_eq!(expand_register("%x_<2>")[1..], ["%x", "%x_0", "%x_1"]);
    }

    #[test]
    fn sentence_split() {
        let t = "Lorem `.a.b` ipsum, e.g. foo. Dolor 8.6 sit. `.q` amet";
        let s: Vec<&str> = sentences(t).into_iter().map(|(a, b)| &t[a..b]).collect();
        assert_eq!(
            s,
            [
                "Lorem `.a.b` ipsum, e.g. foo.",
                "Dolor 8.6 sit.",
                "`.q` amet"
            ]
        );
        let l = "- one.\n  - two";
        let s: Vec<&str> = sentences(l).into_iter().map(|(a, b)| &l[a..b]).collect();
        assert_eq!(s, ["one.", "two"]);
    }

    #[test]
    fn tokens_and_versions() {
        let mut set = BTreeSet::new();
        qualifier_tokens("foo.bar{.pack::16b}.16x32bx2 8.6 .x1", &mut set);
        let v: Vec<&str> = set.iter().map(String::as_str).collect();
        assert_eq!(v, [".16x32bx2", ".bar", ".pack::16b", ".x1"]);
        assert!(version_cmp("10.0", "9.1").is_gt());
        assert!(version_cmp("9.1", "9.1").is_eq());
        assert_eq!(
            slug("Widget Instructions: frob.x_y"),
            "widget-instructions-frob-x-y"
        );
    }
}
