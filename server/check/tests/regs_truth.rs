//! `regs` against its own ptxas-labelled truth (`server/regs/fixtures/truth/truth.tsv.gz`,
//! written by `label.py` there from the forms of `forms.py`): every fragment family × type ×
//! shape on every target group, each line labelled by ptxas 13.5 as accepted (with the
//! register count of each fragment operand, which ptxas checks) or rejected.
//!
//! With a target (`regs --target`): an accepted line must get exactly its fragments and
//! counts, a rejected one an error. Without a target: a line some target accepts must get
//! its counts, one that no target accepts an error.

use std::collections::BTreeMap;
use std::io::Read;

use ptx_check::form_availability::counts_if_available;
use ptx_regs::{register_counts, RegCounts};

struct Row {
    family: String,
    target: String,
    text: String,
    accepted: bool,
    /// Accepted rows: (operand, registers, bits) of every fragment; rejected: ptxas's words.
    detail: String,
}

fn rows() -> Vec<Row> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../regs/fixtures/truth/truth.tsv.gz"
    );
    let file = std::fs::File::open(path).expect("truth file");
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .expect("gzip text");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 5, "malformed row: {l}");
            Row {
                family: f[0].to_owned(),
                target: f[1].to_owned(),
                text: f[2].to_owned(),
                accepted: f[3] == "A",
                detail: f[4].to_owned(),
            }
        })
        .collect()
}

fn fragments(counts: &RegCounts) -> String {
    let parts: Vec<String> = counts
        .vectors
        .iter()
        .map(|v| format!("{}:{}x{}", v.operand, v.registers, v.register_bits))
        .collect();
    parts.join(" ")
}

/// (agreeing rows, rows) per family, and the disagreements.
type Tally = BTreeMap<String, (usize, usize)>;

fn tally(tally: &mut Tally, family: &str, good: bool) {
    let e = tally.entry(family.to_owned()).or_default();
    e.0 += usize::from(good);
    e.1 += 1;
}

fn report(what: &str, tally: &Tally, problems: &[String]) {
    let (good, all) = tally.values().fold((0, 0), |(g, a), (x, y)| (g + x, a + y));
    for (family, (g, a)) in tally {
        eprintln!("{what}: {family}: {g}/{a}");
    }
    eprintln!("{what}: all: {good}/{all}");
    assert!(
        problems.is_empty(),
        "{what}: {} disagreements with ptxas, e.g.:\n{}",
        problems.len(),
        problems
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn regs_with_target_matches_ptxas() {
    let mut t = Tally::new();
    let mut problems = Vec::new();
    for row in rows() {
        let got = counts_if_available(&row.text, &row.target);
        let good = match (&got, row.accepted) {
            (Ok(c), true) => fragments(c) == row.detail,
            (Err(_), false) => true,
            _ => false,
        };
        if !good {
            let said = match &got {
                Ok(c) => format!("counts {}", fragments(c)),
                Err(e) => format!("error {}", e.join("; ")),
            };
            let truth = if row.accepted {
                format!("accepts {}", row.detail)
            } else {
                format!("rejects ({})", row.detail)
            };
            problems.push(format!(
                "{} on {}: regs says {said}; ptxas {truth}",
                row.text, row.target
            ));
        }
        tally(&mut t, &row.family, good);
    }
    report("with --target", &t, &problems);
}

#[test]
fn regs_without_target_matches_ptxas() {
    // Per line: the accepted counts (on any target), or none.
    let mut lines: BTreeMap<String, (String, Option<String>)> = BTreeMap::new();
    for row in rows() {
        let e = lines
            .entry(row.text.clone())
            .or_insert((row.family.clone(), None));
        if row.accepted {
            e.1 = Some(row.detail.clone());
        }
    }
    let mut t = Tally::new();
    let mut problems = Vec::new();
    for (text, (family, truth)) in &lines {
        let got = register_counts(text);
        let good = match (&got, truth) {
            (Ok(c), Some(d)) => fragments(c) == *d,
            (Err(_), None) => true,
            _ => false,
        };
        if !good {
            let said = match &got {
                Ok(c) => format!("counts {}", fragments(c)),
                Err(e) => format!("error {e}"),
            };
            let truth = truth.as_deref().map_or("rejects it on every target", |d| d);
            problems.push(format!("{text}: regs says {said}; ptxas {truth}"));
        }
        tally(&mut t, family, good);
    }
    report("without --target", &t, &problems);
}
