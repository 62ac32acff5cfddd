//! The checker against ptxas 13.5 on whole-module probes written from the spec's directive, ABI,
//! initializer, debugging, texture and syntax sections rather than from the knowledge base
//! (fixtures/probes: gen_probes.py makes them, label_probes.py labels each module with ptxas).
//! Each case is a complete module with its own header; the checker rejects it when it reports an
//! error anywhere in it.
//!
//! Prints the agreement per family, the false and missed errors grouped by message and how many
//! of the errors both report fall within one line of each other, and fails when a family falls
//! below its floor. `PROBES_DUMP=FILE` writes every disagreement; `UPDATE_EXPECT=1` rewrites
//! fixtures/probes/SUMMARY.md.

use std::collections::BTreeMap;
use std::path::Path;

// This set groups by its own families: the shared per-ISA-family report goes unused here.
#[allow(dead_code)]
mod agreement;
#[allow(dead_code)]
mod families;
use agreement::{in_parallel, read_gz, table, Tally};
use ptx_check::{check, CheckOptions, Severity};
use ptx_syntax::{LineIndex, Parse, PositionEncoding};

/// The labelled set holds at least this many cases.
const MIN_CASES: usize = 4_000;
/// The whole set reaches at least this agreement.
const MIN_AGREEMENT: f64 = 0.995;
/// The disagreements each family may have; every family has none today (the last ones — ptxas's
/// readings of `sm_90b`, `.version 8.10` and a comment inside `.version`, and `ld` of a texture
/// handle — are rules now). A family with more fails.
const KNOWN_DISAGREEMENTS: &[(&str, usize)] = &[];
/// False errors today.
const MAX_FALSE_ERRORS: usize = 0;

struct Case<'a> {
    family: &'a str,
    text: String,
    ptxas_rejects: bool,
    line: Option<usize>,
    message: &'a str,
}

/// The checker's first error: its 1-based line and `[code] message`.
fn first_error(text: &str) -> Option<(usize, String)> {
    let index = LineIndex::new(text);
    check(&Parse::new(text), &CheckOptions::default())
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .min_by_key(|d| d.range.start)
        .map(|d| {
            let line = index
                .line_col(text, d.range.start, PositionEncoding::Chars)
                .line as usize;
            (line + 1, format!("[{}] {}", d.code, d.message))
        })
}

#[test]
// MAX_FALSE_ERRORS may be 0: the bound still reads as one.
#[allow(clippy::absurd_extreme_comparisons)]
fn probes_agree_with_ptxas() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/probes");
    let text = read_gz(&dir.join("probes.tsv.gz"));
    let cases: Vec<Case> = text
        .lines()
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 6, "bad case line `{line}`");
            assert!(matches!(f[3], "A" | "R"), "bad verdict in `{line}`");
            Case {
                family: f[0],
                text: f[2].replace("\\n", "\n").replace("\\t", "\t"),
                ptxas_rejects: f[3] == "R",
                line: f[4].parse().ok(),
                message: f[5],
            }
        })
        .collect();
    let ours = in_parallel(&cases, |case| first_error(&case.text));
    let mut overall = Tally::default();
    let mut families: BTreeMap<String, Tally> = BTreeMap::new();
    let mut false_errors: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut missed: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut mismatches = String::new();
    // Errors both report: with a line from ptxas, and within one line of ours.
    let (mut both_with_line, mut near) = (0usize, 0usize);
    for (case, ours) in cases.iter().zip(&ours) {
        overall.add(case.ptxas_rejects, ours.is_some());
        families
            .entry(case.family.to_owned())
            .or_default()
            .add(case.ptxas_rejects, ours.is_some());
        let shown = case.text.replace('\n', " ⏎ ");
        match (ours, case.ptxas_rejects) {
            (Some((_, message)), false) => {
                false_errors.entry(message.clone()).or_default().push(shown)
            }
            (None, true) => {
                let group = case.message.split('\'').next().unwrap_or("").to_owned();
                missed
                    .entry(group)
                    .or_default()
                    .push(format!("{shown}  ({})", case.message));
            }
            (Some((line, _)), true) => {
                if let Some(theirs) = case.line {
                    both_with_line += 1;
                    near += usize::from(line.abs_diff(theirs) <= 1);
                }
            }
            (None, false) => {}
        }
        if case.ptxas_rejects != ours.is_some() {
            mismatches.push_str(&format!(
                "{}\t{}\t{}\t{}\n",
                case.family,
                case.message,
                ours.as_ref().map_or("-", |(_, m)| m.as_str()),
                case.text.replace('\n', "\\n")
            ));
        }
    }
    if let Some(dump) = std::env::var_os("PROBES_DUMP") {
        std::fs::write(dump, &mismatches).expect("write PROBES_DUMP");
    }
    let summary = table("family", &families, &overall);
    println!("{summary}");
    println!("errors both report with a ptxas line: {both_with_line}, within one line: {near}");
    agreement::print_disagreements(&false_errors, &missed, 2, 400);
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        let text = format!(
            "# Agreement with ptxas 13.5 on the whole-module probes\n\n\
             Written by `UPDATE_EXPECT=1 cargo test -p ptx-check --test probes`; the cases are \
             made by `gen_probes.py` and labelled by `label_probes.py` (see README.md here).\n\n\
             {summary}\nFalse errors: {:.3}% of the cases ptxas accepts. Of the errors both \
             report where ptxas names a line, {near} of {both_with_line} are within one line \
             of each other.\n\n\
             ## Every disagreement\n\n\
             One a line: family, ptxas's message (`-`: accepted), ours (`-`: none), \
             the module (line breaks written `\\n`).\n\n```text\n{mismatches}```\n",
            100.0 * overall.false_rate()
        );
        std::fs::write(dir.join("SUMMARY.md"), text).expect("write SUMMARY.md");
    }
    assert!(
        overall.total() >= MIN_CASES,
        "too few cases: {}",
        overall.total()
    );
    assert!(
        overall.agreement() >= MIN_AGREEMENT,
        "agreement {:.4} is below {MIN_AGREEMENT}",
        overall.agreement()
    );
    for (name, t) in &families {
        let known = KNOWN_DISAGREEMENTS
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0, |(_, k)| *k);
        assert!(
            t.false_errors + t.missed <= known,
            "{name}: {} disagreements, {known} known",
            t.false_errors + t.missed
        );
    }
    assert!(
        overall.false_errors <= MAX_FALSE_ERRORS,
        "{} false errors, {MAX_FALSE_ERRORS} known",
        overall.false_errors
    );
}
