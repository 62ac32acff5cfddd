//! Every file of the real-world corpus (tests/corpus, all accepted by ptxas 13.5) checks with
//! zero errors: precision over recall.

use std::path::{Path, PathBuf};

use ptx_check::{check, CheckOptions, Severity};
use ptx_syntax::{LineIndex, Parse, PositionEncoding};

fn corpus_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("corpus folder") {
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

#[test]
fn corpus_has_no_errors() {
    let files = corpus_files();
    assert!(files.len() >= 20, "corpus not found: {files:?}");
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("utf-8 corpus file");
        let parse = Parse::new(text.as_str());
        let index = LineIndex::new(&text);
        for d in check(&parse, &CheckOptions::default()) {
            if d.severity == Severity::Error {
                let pos = index.line_col(&text, d.range.start, PositionEncoding::Chars);
                failures.push(format!(
                    "{}:{}:{}: [{}] {}",
                    path.display(),
                    pos.line + 1,
                    pos.col + 1,
                    d.code,
                    d.message
                ));
            }
        }
    }
    println!("checked {} corpus files", files.len());
    assert!(
        failures.is_empty(),
        "{} errors in valid files:\n{}",
        failures.len(),
        failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
