//! Every real-world PTX file of `tests/corpus` parses with no ERROR or MISSING node.

use std::path::{Path, PathBuf};

use ptx_syntax::Parse;

fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir)
        .expect("corpus directory is readable")
        .flatten()
    {
        let path = entry.path();
        if path.is_dir() {
            ptx_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "ptx") {
            out.push(path);
        }
    }
}

#[test]
fn real_world_ptx_parses_cleanly() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut files = Vec::new();
    ptx_files(&root, &mut files);
    files.sort();
    assert!(
        files.len() >= 20,
        "expected the committed corpus, found {} files",
        files.len()
    );
    let mut failures = Vec::new();
    let (mut bytes, mut nodes) = (0, 0);
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let parse = Parse::new(text.clone());
        let stats = parse.stats();
        bytes += text.len();
        nodes += stats.nodes;
        if stats.errors + stats.missing > 0 {
            let first = &parse.syntax_errors()[0];
            failures.push(format!(
                "{}: {} at byte {:?}",
                file.display(),
                first.message,
                first.range
            ));
        }
    }
    println!(
        "corpus: {} files, {bytes} bytes, {nodes} nodes, {} with errors",
        files.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "files with syntax errors:\n{}",
        failures.join("\n")
    );
}
