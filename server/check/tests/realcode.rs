//! Real code: nvcc's `-ptx` output of CUTLASS examples, CCCL (CUB and Thrust) examples,
//! ggml's CUDA back end and FlashAttention kernels for sm_80, sm_89, sm_90a and sm_100a
//! (fixtures/realcode: compile.sh made them, manifest.py wrote MANIFEST.tsv with ptxas's
//! verdicts and chose the subset kept in ptx/, see REAL_CODE.md), and a second set of other
//! compilers' habits (fixtures/realcode2: nvcc under debug, separate-compilation, fast-math and
//! optimization flags for sm_75 to sm_121a, libcu++'s `cuda::ptx` tests, cuda-samples,
//! ThunderKittens, Marlin, Triton and Inductor kernels). Every kept file is accepted by ptxas
//! 13.5 and must check with zero errors; the warnings it draws are a snapshot.

use std::collections::BTreeMap;
use std::path::Path;

use ptx_check::{check, CheckOptions, Severity};
use ptx_syntax::{LineIndex, Parse, PositionEncoding};

// The shared agreement helpers; their per-family report goes unused here.
#[allow(dead_code)]
mod agreement;
#[allow(dead_code)]
mod families;
use agreement::{in_parallel, read_gz};

/// The kept subsets hold at least this many files (first set, second set).
const MIN_FILES: [usize; 2] = [40, 40];

struct Row {
    set: &'static str,
    name: String,
    target: String,
    bytes: usize,
}

/// The manifest's rows of a set's kept subset, checked for the columns the test relies on:
/// every kept file is accepted by ptxas 13.5 in each verdict column named.
fn subset(set: &'static str, verdicts: &[&str]) -> Vec<Row> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(set);
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).expect("MANIFEST.tsv");
    let mut lines = manifest.lines();
    let head: Vec<&str> = lines.next().expect("header").split('\t').collect();
    let col = |name: &str| {
        head.iter()
            .position(|c| *c == name)
            .unwrap_or_else(|| panic!("{set}: no column {name}"))
    };
    let (name, target, bytes, kept) = (col("name"), col("target"), col("bytes"), col("subset"));
    let verdicts: Vec<usize> = verdicts.iter().map(|v| col(v)).collect();
    let mut rows = Vec::new();
    for line in lines {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), head.len(), "malformed manifest line: {line}");
        if f[kept] != "yes" {
            continue;
        }
        for &v in &verdicts {
            assert_eq!(f[v], "accepted", "{}: kept but not accepted", f[name]);
        }
        rows.push(Row {
            set,
            name: f[name].to_owned(),
            target: f[target].to_owned(),
            bytes: f[bytes].parse().expect("byte count"),
        });
    }
    rows
}

#[test]
fn real_code_accepted_by_ptxas_has_no_errors() {
    let sets = [
        subset("realcode", &["ptxas-13.5"]),
        subset("realcode2", &["ptxas-13.5", "ptxas-13.5-whole"]),
    ];
    for (rows, min) in sets.iter().zip(MIN_FILES) {
        assert!(rows.len() >= min, "only {} kept files", rows.len());
        let set = rows[0].set;
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(set)
            .join("ptx");
        let on_disk = std::fs::read_dir(&dir).expect("ptx/").count();
        assert_eq!(
            on_disk,
            rows.len(),
            "{set}: ptx/ and the manifest's subset differ"
        );
    }
    let rows: Vec<Row> = sets.into_iter().flatten().collect();
    let results = in_parallel(&rows, |row| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(row.set)
            .join("ptx");
        let text = read_gz(&dir.join(format!("{}.ptx.gz", row.name)));
        assert_eq!(
            text.len(),
            row.bytes,
            "{}: not the manifest's file",
            row.name
        );
        assert!(
            text.contains(&format!(".target {}", row.target)),
            "{}: not written for {}",
            row.name,
            row.target
        );
        let parse = Parse::new(text.as_str());
        let index = LineIndex::new(&text);
        let mut errors = Vec::new();
        let mut warnings = BTreeMap::<String, usize>::new();
        for d in check(&parse, &CheckOptions::default()) {
            if d.severity == Severity::Error {
                let pos = index.line_col(&text, d.range.start, PositionEncoding::Chars);
                errors.push(format!(
                    "{}:{}:{}: [{}] {}",
                    row.name,
                    pos.line + 1,
                    pos.col + 1,
                    d.code,
                    d.message
                ));
            } else {
                *warnings.entry(d.code.to_string()).or_default() += 1;
            }
        }
        (errors, warnings, text.lines().count())
    });
    let mut errors = Vec::new();
    let mut warnings = BTreeMap::<(String, String), usize>::new();
    let mut lines = 0;
    for (row, (e, w, n)) in rows.iter().zip(results) {
        errors.extend(e);
        lines += n;
        for (code, count) in w {
            *warnings.entry((row.name.clone(), code)).or_default() += count;
        }
    }
    println!("checked {} real files, {lines} lines", rows.len());
    assert!(
        errors.is_empty(),
        "{} errors in files ptxas accepts:\n{}",
        errors.len(),
        errors
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    let snapshot: String = warnings
        .iter()
        .map(|((file, code), n)| format!("{file}: {n} × {code}\n"))
        .collect();
    expect_test::expect![[r#"
        cccl-ptx-tcgen05.ld-sm_103a: 6606 × tcgen05-ld-without-wait
        cccl-ptx-tcgen05.ld-sm_110a: 6606 × tcgen05-ld-without-wait
    "#]]
    .assert_eq(&snapshot);
}
