//! The checker's verdict on every labelled fixture (fixtures/ptxas/*.ptx) against ptxas 13.5's
//! (fixtures/labels.tsv, written by fixtures/regen_labels.sh): a file has errors exactly when
//! ptxas rejects it. Prints the agreement overall and per family, the disagreements, and how
//! often our first error is on ptxas's first error line.

use std::collections::BTreeMap;
use std::path::Path;

use ptx_check::{check, CheckOptions, Severity};
use ptx_syntax::{LineIndex, Parse, PositionEncoding};

/// The agreement this checker reaches today; the test fails if it drops below.
const MIN_AGREEMENT: f64 = 0.997;

mod families;
use families::ISA_FAMILIES;

/// The ISA family of a fixture: from the section in the names of the spec
/// example fixtures and their variants (`spec--9.7.1.1-0`, `mut--9.7.1.1-0--…`, `hunt--…`),
/// and from the prefix of the hand-written ones (`int--…`, `tcgen05--…`).
fn isa_family(name: &str) -> &'static str {
    let parts: Vec<&str> = name.split("--").collect();
    let section = match parts[0] {
        "spec" | "mut" | "hunt" => parts.get(1).and_then(|p| p.split('-').next()).unwrap_or(""),
        "int" => "9.7.1",
        "float" => "9.7.3",
        "half" => "9.7.4",
        "mixed" => "9.7.5",
        "cmp" => "9.7.6",
        "logic" => "9.7.8",
        "space" => "9.7.9",
        "ld" | "st" | "mov" | "cvt" | "async" => "9.7.9",
        "tex" => "9.7.10",
        "surf" => "9.7.11",
        "ctrl" => "9.7.12",
        "sync" => "9.7.13",
        "mma" => "9.7.14",
        "tcgen05" => "9.7.16",
        "misc" => "9.7.19",
        _ => "",
    };
    ISA_FAMILIES
        .iter()
        .filter(|(prefix, _)| section == *prefix || section.starts_with(&format!("{prefix}.")))
        .max_by_key(|(prefix, _)| prefix.len())
        .map_or("module, names and special registers", |(_, family)| family)
}

#[derive(Default)]
struct Tally {
    accepted: (usize, usize),
    rejected: (usize, usize),
}

impl Tally {
    fn agree(&self) -> usize {
        self.accepted.0 + self.rejected.0
    }
    fn total(&self) -> usize {
        self.accepted.1 + self.rejected.1
    }
}

#[test]
fn agreement_with_ptxas() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let labels = std::fs::read_to_string(dir.join("labels.tsv")).expect("labels.tsv");
    let mut overall = Tally::default();
    let mut families: BTreeMap<String, Tally> = BTreeMap::new();
    let mut isa_families: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut disagreements = Vec::new();
    let (mut same_line, mut both_rejected) = (0, 0);
    for line in labels
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let fields: Vec<&str> = line.split('\t').collect();
        let (name, verdict, ptxas_line, message) = (fields[0], fields[1], fields[2], fields[3]);
        let text = std::fs::read_to_string(dir.join("ptxas").join(format!("{name}.ptx")))
            .unwrap_or_else(|e| panic!("fixture {name}: {e}"));
        let diagnostics = check(&Parse::new(text.as_str()), &CheckOptions::default());
        let errors: Vec<_> = diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .collect();
        let ptxas_rejects = verdict == "rejected";
        let agree = ptxas_rejects != errors.is_empty();
        let family = name.split("--").next().unwrap_or(name).to_owned();
        let tally = families.entry(family).or_default();
        let isa_tally = isa_families.entry(isa_family(name)).or_default();
        for t in [&mut overall, tally, isa_tally] {
            let slot = if ptxas_rejects {
                &mut t.rejected
            } else {
                &mut t.accepted
            };
            slot.1 += 1;
            if agree {
                slot.0 += 1;
            }
        }
        let index = LineIndex::new(&text);
        if ptxas_rejects && !errors.is_empty() {
            both_rejected += 1;
            let ours = index
                .line_col(&text, errors[0].range.start, PositionEncoding::Chars)
                .line
                + 1;
            if ptxas_line.parse::<u32>().is_ok_and(|l| l == ours)
                || errors.iter().any(|e| {
                    ptxas_line.parse::<u32>().is_ok_and(|l| {
                        l == index
                            .line_col(&text, e.range.start, PositionEncoding::Chars)
                            .line
                            + 1
                    })
                })
            {
                same_line += 1;
            }
        }
        if !agree {
            let ours = errors.first().map_or("no errors".to_owned(), |e| {
                format!("[{}] {}", e.code, e.message)
            });
            disagreements.push(format!(
                "  {name}: ptxas {verdict} ({message}); checker: {ours}"
            ));
        }
    }
    let figure = |t: &Tally| {
        format!(
            "agree {}/{}: accepted {}/{}, rejected {}/{}",
            t.agree(),
            t.total(),
            t.accepted.0,
            t.accepted.1,
            t.rejected.0,
            t.rejected.1
        )
    };
    println!("{}", figure(&overall));
    for (family, tally) in &families {
        println!("  {family:<8} {}", figure(tally));
    }
    println!("per ISA instruction family:");
    for (family, tally) in &isa_families {
        println!("  {family:<36} {}", figure(tally));
    }
    println!("first-error line matches ptxas on {same_line}/{both_rejected} files both reject");
    if !disagreements.is_empty() {
        println!("disagreements:\n{}", disagreements.join("\n"));
    }
    let ratio = overall.agree() as f64 / overall.total() as f64;
    assert!(
        overall.total() >= 250,
        "too few fixtures: {}",
        overall.total()
    );
    assert_eq!(
        overall.accepted.0, overall.accepted.1,
        "the checker reports errors in files ptxas accepts"
    );
    assert!(
        ratio >= MIN_AGREEMENT,
        "agreement {ratio:.3} is below {MIN_AGREEMENT}"
    );
}
