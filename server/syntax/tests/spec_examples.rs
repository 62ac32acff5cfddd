//! Every "Examples" block of the PTX ISA's chapter 9 that is a complete
//! statement list parses; each one that does not is listed, with the reason,
//! in `spec_examples_known_failures.tsv` (all of them are defects of the
//! document's examples: typos, missing `;`, made-up directives).
//!
//! The document is read from the copy of its markdown export named by
//! `PTX_ISA_DIR`; no text of it is committed here. `tests/spec-tests.sh` runs
//! this file; `cargo test` leaves it out (`test = false` in Cargo.toml).

use std::collections::BTreeMap;
use std::path::PathBuf;

use ptx_syntax::Parse;

fn spec_dir() -> PathBuf {
    let root = std::env::var_os("PTX_ISA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            panic!("PTX_ISA_DIR is not set: run this test through tests/spec-tests.sh")
        });
    let dir = root.join("9-instruction-set");
    assert!(
        dir.is_dir(),
        "PTX_ISA_DIR={} has no 9-instruction-set folder (the markdown export of PTX ISA 9.1)",
        root.display()
    );
    dir
}

/// The code of each "Examples" block of a section, in order.
fn example_blocks(markdown: &str) -> Vec<String> {
    let lines: Vec<&str> = markdown.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "Examples" {
            i += 1;
            continue;
        }
        let mut j = i + 1;
        while j < lines.len() && lines[j].trim().is_empty() {
            j += 1;
        }
        let mut block = Vec::new();
        if j < lines.len() && !lines[j].starts_with('#') {
            block.push(lines[j]);
            j += 1;
            while j < lines.len()
                && (lines[j].starts_with("    ")
                    || lines[j].starts_with('\t')
                    || lines[j].trim().is_empty())
            {
                block.push(lines[j].strip_prefix("    ").unwrap_or(lines[j]));
                j += 1;
            }
        }
        if !block.is_empty() {
            blocks.push(block.join("\n").trim().to_owned() + "\n");
        }
        i = j.max(i + 1);
    }
    blocks
}

/// Blocks with elisions (`...`) or prose are not statement lists.
fn is_statement_list(block: &str) -> bool {
    !block.lines().any(|line| {
        let t = line.trim();
        t.contains("..") && !t.starts_with("//")
            || t.contains("](<#")
            || t.starts_with("* ")
            || t.starts_with("Example ")
    })
}

#[test]
fn chapter_9_examples_parse() {
    let dir = spec_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    let known: BTreeMap<String, String> = include_str!("spec_examples_known_failures.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (id, reason) = l.split_once('\t').expect("id<TAB>reason");
            (id.to_owned(), reason.to_owned())
        })
        .collect();
    let (mut total, mut lists, mut parsed) = (0, 0, 0);
    let mut failing = BTreeMap::new();
    for file in &files {
        let markdown = std::fs::read_to_string(file).unwrap();
        let section = file.file_name().unwrap().to_string_lossy();
        let section = section.split('-').next().unwrap().to_owned();
        for (n, block) in example_blocks(&markdown).iter().enumerate() {
            total += 1;
            if !is_statement_list(block) {
                continue;
            }
            lists += 1;
            let parse = Parse::new(block.as_str());
            match parse.syntax_errors().first() {
                None => parsed += 1,
                Some(error) => {
                    let line = block[..error.range.start].lines().count().max(1);
                    failing.insert(
                        format!("{section}#{}", n + 1),
                        format!("line {line}: {}", error.message),
                    );
                }
            }
        }
    }
    println!(
        "chapter 9 examples: {total} blocks, {lists} complete statement lists, {parsed} parse, {} do not",
        failing.len()
    );
    let unexplained: Vec<_> = failing
        .iter()
        .filter(|(id, _)| !known.contains_key(*id))
        .collect();
    let fixed: Vec<_> = known
        .keys()
        .filter(|id| !failing.contains_key(*id))
        .collect();
    assert!(
        unexplained.is_empty(),
        "examples that fail to parse with no known reason: {unexplained:#?}"
    );
    assert!(
        fixed.is_empty(),
        "examples listed as failing now parse; drop them from the list: {fixed:?}"
    );
    assert!(
        total > 150 && parsed > 140,
        "too few examples found: {total} blocks, {parsed} parsed"
    );
}
