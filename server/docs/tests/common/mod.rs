//! Helpers shared by the integration tests: the fixture sections, the copy of the PTX ISA named
//! by `PTX_ISA_DIR` (for the tests that need one), and scratch cache directories.

#![allow(dead_code)]

use ptx_docs::{Block, Entry};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The copy of the PTX ISA document (its markdown export, one file per section) named by
/// `PTX_ISA_DIR`. Only the tests that `tests/spec-tests.sh` runs use it; without the variable
/// they fail rather than pass unchecked.
pub fn isa_dir() -> PathBuf {
    let dir = std::env::var_os("PTX_ISA_DIR").map(PathBuf::from).unwrap_or_else(|| {
        panic!(
            "PTX_ISA_DIR is not set: these tests read a copy of the PTX ISA document (the folder of \
             its markdown export); run them through tests/spec-tests.sh"
        )
    });
    assert!(
        dir.is_dir(),
        "PTX_ISA_DIR={} is not a folder",
        dir.display()
    );
    dir
}

/// Five sections written for these tests in the document's two markdown exports (fenced code
/// with full links; front matter with `<#anchor>` links and indented code), in the project's own
/// words: the structure of the document, none of its text.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/export")
}

/// A fresh, empty scratch directory for a test.
pub fn scratch(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let p = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "ptx-docs-{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).unwrap();
    p
}

/// Every markdown file under a folder, recursively.
pub fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md" || x == "txt") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// (section number, heading text) of every numbered heading in the files, read independently of
/// the importer: `#…# 9.7.1.1. text`, with link markup, backticks and icon glyphs removed.
pub fn headings(files: &[PathBuf]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap();
        let mut fence = false;
        for line in text.lines() {
            if line.trim_start().starts_with("```") {
                fence = !fence;
            }
            if fence || !line.starts_with('#') {
                continue;
            }
            let rest = line.trim_start_matches('#').trim();
            let Some((num, title)) = rest.split_once(". ") else {
                continue;
            };
            if num.is_empty() || !num.chars().all(|c| c.is_ascii_digit() || c == '.') {
                continue;
            }
            // `[title](<#anchor>)` or `[title](https://…)[](… "Permalink…")`
            let title = match title.strip_prefix('[') {
                Some(t) => t.split("](").next().unwrap_or(t),
                None => title,
            };
            let title: String = title
                .chars()
                .filter(|c| *c != '`' && !('\u{e000}'..='\u{f8ff}').contains(c))
                .collect();
            out.push((num.to_string(), title.trim().to_string()));
        }
    }
    out
}

/// The names a heading "Category Instructions: a, b / c" lists after its colon.
pub fn names_after_colon(title: &str) -> Vec<String> {
    let Some((_, rest)) = title.split_once(':') else {
        return Vec::new();
    };
    rest.split([',', '/'])
        .map(|n| n.trim().trim_end_matches("(deprecated)").trim().to_string())
        .filter(|n| !n.is_empty())
        .collect()
}

/// The shape of an entry: rubrics with their block kinds, tables by number and size, qualifiers
/// with sentence counts.
pub fn shape(e: &Entry) -> String {
    let mut out = format!(
        "{} {} {:?} {:?}\n",
        e.number,
        e.anchor.as_deref().unwrap_or("-"),
        e.kind,
        e.names
    );
    for (r, blocks) in &e.parts {
        let kinds: Vec<String> = blocks
            .iter()
            .map(|b| match b {
                Block::Paragraph(_) => "p".into(),
                Block::Code(_) => "code".into(),
                Block::List(l) => format!("list{}", l.lines().count()),
                Block::Table(t) => format!(
                    "table{}[{}x{}]",
                    t.number.map(|n| n.to_string()).unwrap_or_default(),
                    t.rows.len(),
                    t.rows.iter().map(Vec::len).max().unwrap_or(0)
                ),
            })
            .collect();
        out += &format!("{}: {}\n", r.label(), kinds.join(" "));
    }
    let q: Vec<String> = e
        .qualifiers
        .iter()
        .map(|(k, v)| format!("{k}({})", v.len()))
        .collect();
    out += &format!("qualifiers: {}\n", q.join(" "));
    out
}
