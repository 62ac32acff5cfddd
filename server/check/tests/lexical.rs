//! The checker against ptxas 13.5 on whole-module probes of lexical forms, constant expressions,
//! identifiers, whitespace and comments, addresses and declarations, written from the spec's
//! chapters 4–6 (fixtures/probes: `lexical.py` makes and labels them). The checker rejects a
//! module when it reports an error anywhere in it.
//!
//! Prints the agreement per family and the disagreements grouped by message, and fails when a
//! family has more disagreements than it has today. `LEXICAL_DUMP=FILE` writes every
//! disagreement; `UPDATE_EXPECT=1` rewrites the table in fixtures/probes/LEXICAL.md.

use std::collections::BTreeMap;
use std::path::Path;

// This set groups by its own families: the shared per-ISA-family report goes unused here.
#[allow(dead_code)]
mod agreement;
#[allow(dead_code)]
mod families;
use agreement::{in_parallel, read_gz, table, Tally};
use ptx_check::{check, CheckOptions, Severity};
use ptx_syntax::Parse;

/// The labelled set holds at least this many cases.
const MIN_CASES: usize = 9_000;
/// The disagreements a family may have today (false errors plus missed errors, listed in
/// LEXICAL.md); a family that is not listed has none.
const KNOWN_DISAGREEMENTS: &[(&str, usize)] = &[
    ("addresses: as values", 2),
    ("addresses: ld generic", 6),
    ("addresses: ld.global", 6),
    ("addresses: st.shared", 6),
    ("declarations: alignment", 2),
    ("declarations: parameterized", 2),
    ("declarations: vectors", 2),
    ("expressions: integer", 22),
    ("identifiers: function", 2),
    ("identifiers: label", 6),
    ("identifiers: parameter", 2),
    ("predefined: expressions", 2),
    ("predefined: misuse", 2),
    ("whitespace: between tokens", 1),
];
/// False errors today, over the whole set.
const MAX_FALSE_ERRORS: usize = 5;

/// A module as `lexical.py` writes it on one line: `\\`, `\n`, `\r`, `\t` and `\xHH`.
fn decode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            Some('x') => {
                let hex: String = chars.by_ref().take(2).collect();
                out.push(char::from(
                    u8::from_str_radix(&hex, 16).expect("bad \\x escape"),
                ));
            }
            other => panic!("bad escape \\{other:?}"),
        }
    }
    out
}

fn first_error(text: &str) -> Option<String> {
    check(&Parse::new(text), &CheckOptions::default())
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .min_by_key(|d| d.range.start)
        .map(|d| format!("[{}] {}", d.code, d.message))
}

#[test]
fn lexical_forms_agree_with_ptxas() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/probes");
    let text = read_gz(&dir.join("lexical.tsv.gz"));
    let cases: Vec<(&str, String, bool, &str)> = text
        .lines()
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 6, "bad case line `{line}`");
            assert!(matches!(f[3], "A" | "R"), "bad verdict in `{line}`");
            (f[0], decode(f[2]), f[3] == "R", f[5])
        })
        .collect();
    let ours = in_parallel(&cases, |case| first_error(&case.1));
    let mut overall = Tally::default();
    let mut families: BTreeMap<String, Tally> = BTreeMap::new();
    let mut false_errors: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut missed: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut dump = String::new();
    for ((family, text, rejects, message), ours) in cases.iter().zip(&ours) {
        overall.add(*rejects, ours.is_some());
        families
            .entry((*family).to_owned())
            .or_default()
            .add(*rejects, ours.is_some());
        let shown = text.replace('\n', " ⏎ ");
        match (ours, rejects) {
            (Some(m), false) => false_errors.entry(m.clone()).or_default().push(shown),
            (None, true) => {
                let group = message.split('\'').next().unwrap_or("").to_owned();
                missed
                    .entry(group)
                    .or_default()
                    .push(format!("{shown}  ({message})"));
            }
            _ => {}
        }
        if *rejects != ours.is_some() {
            dump.push_str(&format!(
                "{family}\t{message}\t{}\t{}\n",
                ours.as_deref().unwrap_or("-"),
                text.replace('\n', "\\n")
            ));
        }
    }
    if let Some(path) = std::env::var_os("LEXICAL_DUMP") {
        std::fs::write(path, &dump).expect("write LEXICAL_DUMP");
    }
    let summary = table("family", &families, &overall);
    println!("{summary}");
    agreement::print_disagreements(&false_errors, &missed, 2, 400);
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        let path = dir.join("LEXICAL.md");
        let doc = std::fs::read_to_string(&path).expect("read LEXICAL.md");
        let (start, end) = ("<!-- table -->\n", "<!-- end table -->\n");
        let (head, rest) = doc
            .split_once(start)
            .expect("LEXICAL.md has no table marker");
        let (_, tail) = rest.split_once(end).expect("LEXICAL.md has no end marker");
        std::fs::write(&path, format!("{head}{start}{summary}{end}{tail}"))
            .expect("write LEXICAL.md");
    }
    assert!(
        overall.total() >= MIN_CASES,
        "too few cases: {}",
        overall.total()
    );
    assert!(
        overall.false_errors <= MAX_FALSE_ERRORS,
        "{} false errors, {MAX_FALSE_ERRORS} known",
        overall.false_errors
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
}
