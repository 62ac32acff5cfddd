//! Compares the calculator with ptxas verdicts committed in
//! `fixtures/ptxas_labels.tsv` (written by the `label_fixtures` binary).
//!
//! For each labelled form the calculator's count must be the one ptxas
//! accepted, with one register less and one more rejected; forms ptxas
//! rejects at every probed count must be errors of the calculator. The
//! fixture must also cover every catalogued form.

use ptx_regs::catalog::all_cases;
use ptx_regs::register_counts;
use std::collections::{BTreeMap, BTreeSet};

struct Row {
    family: String,
    instruction: String,
    operand: String,
    count: String,
    verdicts: Vec<(u32, char)>,
}

fn rows() -> Vec<Row> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/ptxas_labels.tsv");
    let text = std::fs::read_to_string(path).expect("fixture file");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 8, "malformed row: {l}");
            let verdicts = f[5]
                .split(' ')
                .map(|v| {
                    let (n, c) = v.split_once(':').expect("count:verdict");
                    (
                        n.parse().expect("count"),
                        c.chars().next().expect("verdict"),
                    )
                })
                .collect();
            Row {
                family: f[0].to_owned(),
                instruction: f[2].to_owned(),
                operand: f[3].to_owned(),
                count: f[4].to_owned(),
                verdicts,
            }
        })
        .collect()
}

/// Checks one row; returns (matching verdicts, total verdicts, problems).
fn check(row: &Row) -> (usize, usize, Vec<String>) {
    let mut problems = Vec::new();
    let mut good = 0;
    let result = register_counts(&row.instruction);
    if row.count == "NA" || row.verdicts.iter().all(|(_, c)| *c != 'A') {
        // ptxas rejects every count: the calculator must refuse the form.
        for (n, c) in &row.verdicts {
            if *c == 'A' {
                problems.push(format!("{}: ptxas accepted {n} registers", row.instruction));
            } else if result.is_err() {
                good += 1;
            } else {
                problems.push(format!(
                    "{}: calculator gives a count, ptxas rejects {n}",
                    row.instruction
                ));
            }
        }
        return (good, row.verdicts.len(), problems);
    }
    let rc = match result {
        Ok(rc) => rc,
        Err(e) => {
            problems.push(format!(
                "{}: calculator error `{e}` but ptxas accepts",
                row.instruction
            ));
            return (0, row.verdicts.len(), problems);
        }
    };
    let operand: usize = row.operand.parse().expect("operand index");
    let Some(v) = rc.vectors.iter().find(|v| v.operand == operand) else {
        problems.push(format!(
            "{}: no vector at operand {operand}",
            row.instruction
        ));
        return (0, row.verdicts.len(), problems);
    };
    for (n, c) in &row.verdicts {
        let expect_accept = *n == v.registers;
        if expect_accept == (*c == 'A') {
            good += 1;
        } else {
            problems.push(format!(
                "{} operand {operand}: calculator says {}, ptxas verdict for {n} is {c}",
                row.instruction, v.registers
            ));
        }
    }
    if !row.verdicts.iter().any(|(n, _)| *n == v.registers) {
        problems.push(format!(
            "{}: fixture lacks the calculator's count {}",
            row.instruction, v.registers
        ));
    }
    (good, row.verdicts.len(), problems)
}

#[test]
fn calculator_matches_ptxas() {
    let rows = rows();
    let mut per_family: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    let mut problems = Vec::new();
    for row in &rows {
        let (good, total, p) = check(row);
        let e = per_family.entry(&row.family).or_default();
        e.0 += 1;
        e.1 += good;
        e.2 += total;
        problems.extend(p);
    }
    for (family, (n, good, total)) in &per_family {
        eprintln!("{family}: {n} labelled rows, {good}/{total} ptxas verdicts matched");
    }
    assert!(
        problems.is_empty(),
        "{} disagreements:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn fixture_covers_catalog() {
    let rows = rows();
    let labelled: BTreeSet<&str> = rows.iter().map(|r| r.instruction.as_str()).collect();
    let missing: Vec<String> = all_cases()
        .into_iter()
        .map(|c| c.opcode)
        .filter(|o| !labelled.contains(o.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "{} catalogued forms lack ptxas labels (rerun label_fixtures), e.g. {:?}",
        missing.len(),
        &missing[..missing.len().min(5)]
    );
    // Every vector the calculator reports for a labelled form has a row.
    let by_operand: BTreeSet<(&str, &str)> = rows
        .iter()
        .map(|r| (r.instruction.as_str(), r.operand.as_str()))
        .collect();
    for r in &rows {
        if let Ok(rc) = register_counts(&r.instruction) {
            for v in rc.vectors {
                let op = v.operand.to_string();
                assert!(
                    by_operand.contains(&(r.instruction.as_str(), op.as_str())),
                    "{} operand {} is not labelled",
                    r.instruction,
                    v.operand
                );
            }
        }
    }
}
