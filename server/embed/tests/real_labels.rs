//! The committed nvcc labels of real code (real-code-labels.tsv.gz, made by
//! `examples/asm_labels.rs emit` and `label-real-code.py`; compared with this layer's verdicts
//! by `asm_labels compare` on checkouts of the labelled repositories, server/embed/REAL_WORLD.md).
//! The repositories are not part of this one, so this test checks the file itself: every line
//! well-formed, and the counts per repository and verdict that REAL_WORLD.md reports.

use std::collections::BTreeMap;
use std::io::Read;

#[test]
fn the_real_code_labels_are_well_formed_and_match_the_reported_counts() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/real-code-labels.tsv.gz");
    let bytes = std::fs::read(path).expect("real-code-labels.tsv.gz");
    let mut text = String::new();
    flate2::read::GzDecoder::new(&bytes[..])
        .read_to_string(&mut text)
        .expect("gzip");
    let mut counts: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut problems = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        let well_formed = match f[..] {
            [_, file, number, target, verdict, hash, _notes, ref rest @ ..] => {
                let labelled = matches!(verdict, "accepted" | "rejected");
                !file.is_empty()
                    && number.parse::<usize>().is_ok_and(|n| n > 0)
                    && (labelled == target.starts_with("sm_"))
                    && (labelled || (verdict == "unlabelled" && target == "-"))
                    && (hash == "-"
                        || (hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit())))
                    && match verdict {
                        "rejected" => rest.first().is_some_and(|m| !m.is_empty()),
                        _ => rest.iter().all(|m| m.is_empty()),
                    }
            }
            _ => false,
        };
        if !well_formed {
            problems.push(line.to_owned());
        }
        *counts
            .entry((f[0].to_owned(), f.get(4).copied().unwrap_or("").to_owned()))
            .or_default() += 1;
    }
    assert!(
        problems.is_empty(),
        "malformed lines:\n{}",
        problems.join("\n")
    );
    let got: Vec<String> = counts
        .iter()
        .map(|((repo, verdict), n)| format!("{repo} {verdict} {n}"))
        .collect();
    assert_eq!(
        got,
        [
            "cccl accepted 5651",
            "cccl rejected 2012",
            "cccl unlabelled 45",
            "cutlass accepted 3176",
            "cutlass rejected 860",
            "flash-attention accepted 51",
            "flash-attention rejected 3",
            "ggml accepted 128",
            "pytorch accepted 86",
            "pytorch rejected 4",
            "pytorch unlabelled 3",
        ]
    );
}
