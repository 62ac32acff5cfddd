//! Helpers shared by the integration tests: where the spec copies are (outside the repository)
//! and scratch cache directories.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// `shared/` next to the repository (CARGO_MANIFEST_DIR/../../../shared). The spec's text lives
/// only there, never in the repository; without it these tests fail, on purpose.
pub fn shared() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    assert!(
        p.join("ptx-isa-9.1").is_dir() && p.join("seeds").is_dir(),
        "the spec copies are missing: expected {}/ptx-isa-9.1 and {}/seeds (the shared folder \
         beside the repository); these tests need them and do not skip",
        p.display(),
        p.display()
    );
    p
}

/// The whole PTX ISA 9.1 as markdown, one file per section.
pub fn isa_dir() -> PathBuf {
    shared().join("ptx-isa-9.1")
}

/// The five seed sections in both export formats.
pub fn seeds_dir() -> PathBuf {
    shared().join("seeds")
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
