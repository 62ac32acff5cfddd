//! The checker against ptxas 13.5 on the generated set (fixtures/generated/cases.tsv.gz, made by
//! gen_cases.py from the knowledge base's forms and labelled by label_cases.py): single-instruction
//! cases at every target from sm_75 to sm_121f, placed many to a module exactly as they were for
//! ptxas. A case is rejected by the checker when it reports an error on the case's line.
//!
//! Prints the agreement overall and per ISA family (section 9.7.N), the false errors (ptxas
//! accepts, we reject) and the missed errors, and fails when any figure falls below what the
//! checker reaches today. With `GENERATED_ALL=1 UPDATE_EXPECT=1` (in a release build) it
//! rewrites fixtures/generated/SUMMARY.md from the whole set.

use std::collections::BTreeMap;
use std::path::Path;

#[allow(dead_code)]
mod agreement;
mod families;
use agreement::{first_error, in_parallel, read_gz, verdicts_by_span, Report, Verdicts};

/// Figures the checker reaches today (the test fails below them).
const MIN_AGREEMENT: f64 = 0.9995;
const MIN_FAMILY_AGREEMENT: f64 = 0.999;
/// False errors as a share of the cases ptxas accepts.
const MAX_FALSE_ERROR_RATE: f64 = 0.0005;
/// Cases per module (as in label_cases.py; the verdicts do not depend on it).
const CHUNK: usize = 300;
/// Without `GENERATED_ALL=1`, every this-many-th case is checked (a deterministic subset of about
/// 11,000 cases that keeps the debug-build test under a minute on two cores); `.ci/run` checks the
/// full set in a release build: `GENERATED_ALL=1 cargo test --release -p ptx-check --test generated`.
const SUBSET_STRIDE: usize = 32;

/// The module each case is placed in, as label_cases.py writes it for ptxas.
fn header(target: &str, version: &str) -> String {
    let b128 = if version.parse::<f64>().unwrap_or(0.0) >= 8.3 {
        "\t.reg .b128 %q<8>;\n"
    } else {
        ""
    };
    format!(
        ".version {version}\n.target {target}\n.address_size 64\n\
         .global .align 16 .b8 gmem[4096];\n.const .align 16 .b8 cmem[256];\n\
         .shared .align 16 .b8 smem[4096];\n\
         .visible .entry k(.param .u64 k_param_0)\n{{\n\
         \t.reg .b16 %h<32>;\n\t.reg .b32 %r<160>;\n\t.reg .b64 %rd<32>;\n\
         \t.reg .f32 %f<160>;\n\t.reg .f64 %fd<32>;\n\t.reg .pred %p<16>;\n{b128}"
    )
}

struct Case<'a> {
    section: &'a str,
    line: &'a str,
    ptxas_rejects: bool,
    message: &'a str,
}

/// The checker's first error on each case's line; a chunk whose errors do not fall on case
/// lines is checked case by case.
fn checker_verdicts(target: &str, version: &str, cases: &[Case]) -> Verdicts {
    let head = header(target, version);
    let first = head.lines().count();
    let mut text = head;
    for case in cases {
        text.push('\t');
        text.push_str(case.line);
        text.push('\n');
    }
    text.push_str("\tret;\n}\n");
    let spans: Vec<(usize, usize)> = (first..first + cases.len()).map(|l| (l, l)).collect();
    verdicts_by_span(&text, &spans).unwrap_or_else(|()| {
        cases
            .iter()
            .map(|case| {
                let head = header(target, version);
                first_error(&format!("{head}\t{}\n\tret;\n}}\n", case.line))
            })
            .collect()
    })
}

#[test]
fn generated_cases_agree_with_ptxas() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/generated/cases.tsv.gz");
    let text = read_gz(&path);
    let all = std::env::var_os("GENERATED_ALL").is_some();
    let mut groups: BTreeMap<(&str, &str), Vec<Case>> = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let f: Vec<&str> = line.splitn(6, '\t').collect();
        assert_eq!(f.len(), 6, "bad case line `{line}`");
        if !all && i % SUBSET_STRIDE != 0 {
            continue;
        }
        groups.entry((f[0], f[1])).or_default().push(Case {
            section: f[2],
            line: f[3],
            ptxas_rejects: f[4] == "R",
            message: f[5],
        });
    }
    let chunks: Vec<(&str, &str, &[Case])> = groups
        .iter()
        .flat_map(|((target, version), cases)| cases.chunks(CHUNK).map(|c| (*target, *version, c)))
        .collect();
    // The modules are independent: check them on every core.
    let verdicts = in_parallel(&chunks, |(target, version, cases)| {
        checker_verdicts(target, version, cases)
    });
    let mut report = Report::default();
    for ((target, version, cases), verdicts) in chunks.iter().zip(verdicts) {
        for (case, ours) in cases.iter().zip(verdicts) {
            let case_text = format!("{target} {version}: {}", case.line);
            report.record(
                case.section,
                case_text,
                case.ptxas_rejects,
                case.message,
                &ours,
            );
        }
    }
    report.print("GENERATED_DUMP");
    let false_rate = report.overall.false_rate();
    if all && std::env::var_os("UPDATE_EXPECT").is_some() {
        let summary = format!(
            "# Agreement with ptxas 13.5 on the generated set\n\n\
             Written by `GENERATED_ALL=1 UPDATE_EXPECT=1 cargo test --release -p ptx-check --test \
             generated` (every case; the debug-build test checks every 32nd); the cases are made \
             by `gen_cases.py` and labelled by `label_cases.py` (see README.md here).\n\n\
             {}\nFalse errors: {:.3}% of the cases ptxas accepts.\n",
            report.table(),
            100.0 * false_rate
        );
        std::fs::write(path.with_file_name("SUMMARY.md"), summary).expect("write SUMMARY.md");
    }
    let expected = if all {
        200_000
    } else {
        200_000 / SUBSET_STRIDE
    };
    report.assert_at_least(
        expected,
        MIN_AGREEMENT,
        MIN_FAMILY_AGREEMENT,
        MAX_FALSE_ERROR_RATE,
    );
}
