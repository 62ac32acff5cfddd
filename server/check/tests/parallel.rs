//! Checking in parallel (chunked parse, functions shared out between threads) gives exactly
//! the diagnostics of the sequential check: on every corpus file, on every labelled fixture,
//! and on modules made of many fixtures' functions (so that splits fall between functions
//! with errors of every kind).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ptx_check::{check_with_threads, CheckOptions, Diagnostic};
use ptx_syntax::{Item, Parse};

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("folder") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "ptx") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Everything a diagnostic says, for comparison.
fn render(diagnostics: &[Diagnostic]) -> Vec<String> {
    diagnostics.iter().map(|d| format!("{d:?}")).collect()
}

/// Compares the sequential check of `text` with chunked parses and parallel checks; returns
/// how many chunks the largest chunked parse had.
fn compare(name: &str, text: &str) -> usize {
    let options = CheckOptions::default();
    let whole = Parse::new(text);
    let expected = render(&check_with_threads(&whole, &options, 1));
    assert_eq!(
        expected,
        render(&ptx_check::check_every_instruction(&whole, &options)),
        "{name}: every instruction checked in full"
    );
    let mut chunks = 1;
    for threads in [2, 3, 4] {
        let chunked = Parse::new_parallel(text, threads);
        chunks = chunks.max(chunked.chunks());
        let items = |p: &Parse| {
            p.module()
                .items()
                .iter()
                .map(|item| match item {
                    Item::Function(f) => ("function", f.range()),
                    Item::Variable(v) => ("variable", v.range()),
                    Item::Directive(d) => ("directive", d.range()),
                    Item::Statement(s) => ("statement", s.range()),
                })
                .collect::<Vec<_>>()
        };
        if chunked.chunks() > 1 {
            assert_eq!(
                items(&whole),
                items(&chunked),
                "{name}: items, {threads} chunks"
            );
            assert_eq!(whole.syntax_errors(), chunked.syntax_errors(), "{name}");
        }
        for parse in [&whole, &chunked] {
            let got = render(&check_with_threads(parse, &options, threads));
            assert_eq!(
                expected,
                got,
                "{name}: {threads} threads, {} chunks",
                parse.chunks()
            );
        }
    }
    chunks
}

#[test]
fn corpus_files_check_the_same_in_parallel() {
    let files = files(&root().join("../../tests/corpus"));
    assert!(files.len() >= 20, "corpus not found");
    let mut split = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).expect("utf-8 corpus file");
        if compare(&path.display().to_string(), &text) > 1 {
            split += 1;
        }
        // A large compiler-written file always finds its split points (nvcc's inline `asm`
        // blocks close with a `}` at the start of a line too, which is no place to split).
        if text.len() > 512 * 1024 {
            assert!(
                Parse::new_parallel(text.as_str(), 2).chunks() > 2,
                "{} was parsed in fewer chunks than asked",
                path.display()
            );
        }
    }
    assert!(split >= 10, "only {split} corpus files were split");
}

/// The fixtures one by one, then grouped by header (`.version`, `.target`, ...) into modules
/// of many functions, renamed apart.
#[test]
fn fixtures_check_the_same_in_parallel() {
    let files = files(&root().join("fixtures/ptxas"));
    assert!(files.len() >= 1000, "fixtures not found");
    let mut groups: BTreeMap<String, String> = BTreeMap::new();
    for (number, path) in files.iter().enumerate() {
        let text = std::fs::read_to_string(path).expect("utf-8 fixture");
        compare(&path.display().to_string(), &text);
        let Some(body) = text.find(".visible") else {
            continue;
        };
        let (header, functions) = text.split_at(body);
        let functions = functions
            .replace(".entry k(", &format!(".entry k{number}("))
            .replace(".func f(", &format!(".func f{number}("));
        groups
            .entry(header.to_owned())
            .or_insert_with(|| header.to_owned())
            .push_str(&functions);
    }
    let mut split = 0;
    for (number, module) in groups.values().enumerate() {
        if compare(&format!("fixture group {number}"), module) > 1 {
            split += 1;
        }
    }
    assert!(split >= 5, "only {split} fixture groups were split");
}
