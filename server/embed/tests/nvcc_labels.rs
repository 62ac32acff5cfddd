//! The inline-asm corpus (tests/corpus/cuda/inline_asm_cases.cu, one asm statement per
//! kernel) against nvcc 13.0's verdict per statement and target
//! (tests/corpus/cuda/inline_asm_labels.tsv, made on an H100 machine by
//! label_inline_asm.sh). A statement is predicted to fail when it gets an error.
//!
//! Required: at least 99.5% agreement over all (statement, target) pairs, and no error on a
//! statement that nvcc compiles.

use std::collections::BTreeMap;

use ptx_check::Severity;
use ptx_embed::{EmbedOptions, HostDocument};

const TARGETS: [&str; 3] = ["sm_80", "sm_90a", "sm_100a"];

fn corpus(name: &str) -> String {
    let path = format!(
        "{}/../../tests/corpus/cuda/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn agreement_with_nvcc() {
    let text = corpus("inline_asm_cases.cu");
    let labels: BTreeMap<String, Vec<bool>> = corpus("inline_asm_labels.tsv")
        .lines()
        .map(|line| {
            let mut fields = line.split('\t');
            let name = fields.next().unwrap_or_default().to_string();
            (name, fields.map(|v| v == "error").collect())
        })
        .collect();
    // The case each byte offset belongs to: the nearest `// case NAME` above it.
    let mut marks: Vec<(usize, &str)> = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if let Some(name) = line.strip_prefix("// case ") {
            marks.push((at, name.trim()));
        }
        at += line.len();
    }
    let case_of = |offset: usize| {
        let i = marks.partition_point(|(start, _)| *start <= offset);
        marks[i.checked_sub(1).expect("statement before the first case")].1
    };
    let (mut agree, mut total) = (0usize, 0usize);
    let mut false_errors = Vec::new();
    let mut missed = Vec::new();
    for (t, target) in TARGETS.iter().enumerate() {
        let options = EmbedOptions {
            target: Some(target.to_string()),
            ..EmbedOptions::default()
        };
        let doc = HostDocument::new(&text, &options);
        let mut errors: BTreeMap<&str, String> = BTreeMap::new();
        for d in ptx_embed::check::check(&doc, &[]) {
            if d.severity == Severity::Error {
                errors
                    .entry(case_of(d.range.start))
                    .or_insert_with(|| format!("{}: {}", d.code, d.message));
            }
        }
        let statements: usize = doc.statements.len();
        assert_eq!(statements, labels.len(), "one statement per labelled case");
        for (case, verdicts) in &labels {
            let truth = verdicts[t];
            let ours = errors.get(case.as_str());
            total += 1;
            match (truth, ours) {
                (true, Some(_)) | (false, None) => agree += 1,
                (false, Some(message)) => false_errors.push(format!("{case} {target}: {message}")),
                (true, None) => missed.push(format!("{case} {target}")),
            }
        }
    }
    let agreement = agree as f64 / total as f64;
    println!(
        "inline asm vs nvcc: {agree}/{total} agree ({:.2}%), {} missed errors, {} false errors",
        agreement * 100.0,
        missed.len(),
        false_errors.len()
    );
    for m in &missed {
        println!("missed: {m}");
    }
    assert!(
        false_errors.is_empty(),
        "errors on statements nvcc compiles:\n{}",
        false_errors.join("\n")
    );
    assert!(agreement >= 0.995, "agreement {agreement} below 99.5%");
}
