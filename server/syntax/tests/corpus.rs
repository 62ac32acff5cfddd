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

/// `Parse::comments` (a text scan confirmed by the tree) finds exactly the
/// comment tokens of `Parse::tokens`, on every corpus file, every checker
/// fixture (many with syntax errors), and texts made to trip a text scan:
/// comment markers in strings and preprocessor lines, unterminated block
/// comments, comments in data blocks and inside instructions.
#[test]
fn comments_are_the_comment_tokens() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    ptx_files(&root.join("tests/corpus"), &mut files);
    ptx_files(&root.join("server/check/fixtures"), &mut files);
    files.sort();
    let mut texts: Vec<String> = files
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .collect();
    texts.extend(
        [
            ".file 1 \"/a//b.cu\" // after\n.pragma \"x/*y\";\n#include \"p//q\" // c\n",
            "add.s32 %r1, /* in */ %r2, // end\n 1; /* unterminated\n",
            ".section .debug_info\n{\n.b8 1,2 // one\n.b32 7 // two\n}\n/**/ //\n/***/x\n",
            "\"unclosed // string\n// line\r\n/* a */ /* b\n*/",
        ]
        .map(String::from),
    );
    let mut comments = 0;
    for text in &texts {
        let parse = Parse::new(text.as_str());
        let expected: Vec<_> = parse
            .tokens()
            .into_iter()
            .filter(|t| t.kind == ptx_syntax::TokenKind::Comment)
            .map(|t| t.range)
            .collect();
        assert_eq!(
            parse.comments(),
            expected,
            "in:\n{}",
            &text[..text.len().min(400)]
        );
        comments += expected.len();
    }
    assert!(
        texts.len() > 1_000 && comments > 10_000,
        "{} texts, {comments} comments",
        texts.len()
    );
}
