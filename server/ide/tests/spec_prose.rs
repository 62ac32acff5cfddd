//! The built-in descriptions are our own words: no run of 12 or more words is shared with the
//! PTX ISA document (a copy of its markdown export, named by `PTX_ISA_DIR`). `tests/spec-tests.sh`
//! runs this file; `cargo test` leaves it out (`test = false` in Cargo.toml).

use std::collections::HashSet;
use std::path::PathBuf;

use ptx_ide::hover::descriptions::FILES;

/// The copy of the document: the folder of its markdown export named by `PTX_ISA_DIR`.
fn spec_dir() -> PathBuf {
    std::env::var_os("PTX_ISA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            panic!("PTX_ISA_DIR is not set: run this test through tests/spec-tests.sh")
        })
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '.' || c == '_' || c == '%'))
        .map(|w| w.trim_matches('.').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

const RUN: usize = 12;

#[test]
fn no_description_copies_a_run_of_the_spec() {
    let dir = spec_dir();
    assert!(
        dir.is_dir(),
        "PTX_ISA_DIR={} is not a folder",
        dir.display()
    );
    let mut shingles: HashSet<Vec<String>> = HashSet::new();
    let mut stack = vec![dir];
    let mut files = 0;
    while let Some(p) = stack.pop() {
        for entry in std::fs::read_dir(&p).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files += 1;
                let text = std::fs::read_to_string(&path).unwrap();
                let w = words(&text);
                for run in w.windows(RUN) {
                    shingles.insert(run.to_vec());
                }
            }
        }
    }
    assert!(files > 100, "only {files} spec files found");
    let mut copied = Vec::new();
    for (name, text) in FILES {
        for (lineno, line) in text.lines().enumerate() {
            let w = words(line);
            if let Some(run) = w.windows(RUN).find(|run| shingles.contains(*run)) {
                copied.push(format!("{name}:{}: \"{}\"", lineno + 1, run.join(" ")));
            }
        }
    }
    assert!(
        copied.is_empty(),
        "these description lines share a run of {RUN} words with the PTX ISA document; \
         rewrite them in our own words:\n{}",
        copied.join("\n")
    );
}
