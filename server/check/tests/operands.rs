//! The checker against ptxas 13.5 on operand-form probes written from the spec's operand
//! chapters (fixtures/operands: gen_operands.py makes them, label_operands.py labels them):
//! one instruction of each family of 9.7 with ONE operand replaced by a register of every type
//! and width, an immediate, `_`, `!p`, `p|q`, a vector, an address form, a variable, a label, a
//! function name or a special register, for sm_80, sm_90a and sm_100a. The cases of one target
//! go many to a module exactly as they did for ptxas; a case is rejected by the checker when it
//! reports an error inside the case's lines (a module whose errors fall outside every case is
//! checked case by case).
//!
//! Prints the agreement per family and target with the false and missed errors grouped by
//! message, and fails when a family has more disagreements or false errors than today's.
//! `OPERANDS_DUMP=FILE` writes every disagreement; `OPERANDS_CASES=FILE.gz` checks another
//! labelled file; `UPDATE_EXPECT=1` rewrites
//! fixtures/operands/SUMMARY.md.

use std::collections::BTreeMap;
use std::path::Path;

// This set groups by its own families: the shared per-ISA-family report goes unused here.
#[allow(dead_code)]
mod agreement;
#[allow(dead_code)]
mod families;
use agreement::{in_parallel, module_verdicts, read_gz, table, Tally, Verdicts};

/// The labelled set holds at least this many cases.
const MIN_CASES: usize = 60_000;
/// Cases per module (as in label_modules.py, which label_operands.py uses).
const CHUNK: usize = 100;
/// The module-scope declarations after the header (label_operands.py's PRELUDE).
const PRELUDE: &str =
    ".global .u32 gv[4];\n.shared .b64 sv[4];\n.const .u32 cv;\n.func fn()\n{\n\tret;\n}\n";
/// The disagreements (false and missed errors) each family may have, summed over its targets,
/// all listed in fixtures/operands/SUMMARY.md; a family not named has none.
const KNOWN_DISAGREEMENTS: &[(&str, usize)] = &[];
/// Every family and target reaches this agreement.
const MIN_FAMILY_AGREEMENT: f64 = 0.995;
/// False errors allowed in all (ptxas accepts, the checker rejects).
const MAX_FALSE_ERRORS: usize = 0;

struct Case<'a> {
    family: &'a str,
    header: &'a str,
    text: String,
    ptxas_rejects: bool,
    message: &'a str,
}

/// The module's first lines, as label_operands.py writes them.
fn header(key: &str) -> String {
    let f: Vec<&str> = key.split('|').collect();
    assert_eq!(f.len(), 4, "bad header `{key}`");
    format!(
        ".version {}\n.target {}\n.address_size {}\n{PRELUDE}",
        f[1], f[0], f[2]
    )
}

/// The checker's verdict on each case of one module.
fn checker_verdicts(key: &str, cases: &[&Case]) -> Verdicts {
    let texts: Vec<&str> = cases.iter().map(|case| &*case.text).collect();
    module_verdicts(&header(key), &texts)
}

/// The instruction line of a case (the line after `L0:`).
fn instruction(case: &str) -> &str {
    case.split("L0:\n")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .unwrap_or(case)
        .trim()
}

/// The labelled cases of `text` (family, header, case, A|R, ptxas's message), each case's
/// text passed through `rewrite`.
fn read_cases(text: &str, rewrite: fn(&str) -> String) -> Vec<Case<'_>> {
    let mut cases = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 5, "bad case line `{line}`");
        assert!(matches!(f[3], "A" | "R"), "bad verdict in `{line}`");
        cases.push(Case {
            family: f[0],
            header: f[1],
            text: rewrite(&f[2].replace("\\n", "\n").replace("\\t", "\t")),
            ptxas_rejects: f[3] == "R",
            message: f[4],
        });
    }
    cases
}

#[test]
fn operand_forms_agree_with_ptxas() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/operands");
    // `OPERANDS_CASES=FILE.gz` checks another labelled file of the same format instead (a
    // mutation of this set, say): the summary printed, SUMMARY.md left alone.
    let other = std::env::var_os("OPERANDS_CASES").map(std::path::PathBuf::from);
    let text = read_gz(other.as_deref().unwrap_or(&dir.join("cases.tsv.gz")));
    let cases = read_cases(&text, str::to_owned);
    let summary = (other.is_none() && std::env::var_os("UPDATE_EXPECT").is_some())
        .then(|| dir.join("SUMMARY.md"));
    check_cases(&cases, summary.as_deref());
}

/// The same cases with every register they declare named without `%` (`%u32_1` becomes
/// `Ru32_1`: to the grammar an identifier, not a register), against the same labels. The
/// renaming leaves ptxas 13.5's verdict alone: label_operands.py and label_modules.py gave the
/// very same verdicts on 7,000 renamed cases drawn at random from this set and the
/// whole-module set. Rules that recognise a register by its `%` miss such operands.
#[test]
fn registers_named_without_percent_agree_too() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/operands");
    let text = read_gz(&dir.join("cases.tsv.gz"));
    let cases = read_cases(&text, without_percent);
    check_cases(&cases, None);
}

/// `text` with each register name it declares in a `.reg` line (`%r<4>`, `%p`) written
/// without its `%`, an `R` in its place, wherever the name is used (`%r3` of `%r<4>` too).
fn without_percent(text: &str) -> String {
    let mut declared: Vec<&str> = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix(".reg") {
            for piece in rest.split([' ', '\t', ',', ';']) {
                if let Some(name) = piece.strip_prefix('%') {
                    declared.push(name.split('<').next().unwrap_or(name));
                }
            }
        }
    }
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let end = after.find(|c: char| !is_word(c)).unwrap_or(after.len());
        let word = &after[..end];
        let renamed = declared.iter().any(|name| {
            word.strip_prefix(name)
                .is_some_and(|digits| digits.bytes().all(|b| b.is_ascii_digit()))
        });
        out.push(if renamed { 'R' } else { '%' });
        rest = after;
    }
    out.push_str(rest);
    out
}

#[test]
fn renaming_keeps_special_registers_and_undeclared_names() {
    let case = "\t.reg .b32 %r<4>;\n\t.reg .pred %p;\n\tmov.u32 %r1, %tid.x;\n\t@%p add.s32 %r2, %r3, %q;\n";
    assert_eq!(
        without_percent(case),
        "\t.reg .b32 Rr<4>;\n\t.reg .pred Rp;\n\tmov.u32 Rr1, %tid.x;\n\t@Rp add.s32 Rr2, Rr3, %q;\n"
    );
}

/// Checks every case against its label: prints the table and the disagreements, writes them to
/// `summary` when given, and fails when a bound is broken.
// MAX_FALSE_ERRORS may be 0: the bound still reads as one.
#[allow(clippy::absurd_extreme_comparisons)]
fn check_cases(cases: &[Case<'_>], summary_path: Option<&Path>) {
    // The modules label_modules.py assembled: the cases of one header in file order, CHUNK at
    // a time.
    let mut groups: BTreeMap<&str, Vec<&Case>> = BTreeMap::new();
    for case in cases {
        groups.entry(case.header).or_default().push(case);
    }
    let mut chunks: Vec<(&str, &[&Case])> = Vec::new();
    for (key, cases) in &groups {
        for chunk in cases.chunks(CHUNK) {
            chunks.push((key, chunk));
        }
    }
    let verdicts = in_parallel(&chunks, |(key, cases)| checker_verdicts(key, cases));
    let mut overall = Tally::default();
    let mut rows: BTreeMap<String, Tally> = BTreeMap::new();
    let mut per_family: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut false_errors: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut missed: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut mismatches = String::new();
    for ((key, cases), verdicts) in chunks.iter().zip(&verdicts) {
        let target = key.split('|').next().unwrap_or(key);
        for (case, ours) in cases.iter().zip(verdicts) {
            overall.add(case.ptxas_rejects, ours.is_some());
            rows.entry(format!("{} ({target})", case.family))
                .or_default()
                .add(case.ptxas_rejects, ours.is_some());
            per_family
                .entry(case.family)
                .or_default()
                .add(case.ptxas_rejects, ours.is_some());
            let shown = format!("{target}: {}", instruction(&case.text));
            match (ours, case.ptxas_rejects) {
                (Some(ours), false) => false_errors.entry(ours.clone()).or_default().push(shown),
                (None, true) => {
                    let group = case.message.split('\'').next().unwrap_or("").to_owned();
                    missed
                        .entry(group)
                        .or_default()
                        .push(format!("{shown}  ({})", case.message));
                }
                _ => {}
            }
            if case.ptxas_rejects != ours.is_some() {
                mismatches.push_str(&format!(
                    "{}\t{target}\t{}\t{}\t{}\n",
                    case.family,
                    case.message,
                    ours.as_deref().unwrap_or("-"),
                    instruction(&case.text)
                ));
            }
        }
    }
    if let Some(dump) = std::env::var_os("OPERANDS_DUMP") {
        std::fs::write(dump, &mismatches).expect("write OPERANDS_DUMP");
    }
    let summary = table("family (target)", &rows, &overall);
    println!("{summary}");
    agreement::print_disagreements(&false_errors, &missed, 3, 300);
    if let Some(path) = summary_path {
        let text = format!(
            "# Agreement with ptxas 13.5 on the operand-form probes\n\n\
             Written by `UPDATE_EXPECT=1 cargo test -p ptx-check --test operands`; the cases \
             are made by `gen_operands.py` and labelled by `label_operands.py` (see README.md \
             here).\n\n{summary}\nFalse errors: {:.3}% of the cases ptxas accepts.\n\n\
             ## Every disagreement\n\n\
             One a line: family, target, ptxas's message (`-`: accepted), ours (`-`: none), \
             the instruction.\n\n```text\n{mismatches}```\n",
            100.0 * overall.false_rate()
        );
        std::fs::write(path, text).expect("write SUMMARY.md");
    }
    assert!(
        overall.total() >= MIN_CASES,
        "too few cases: {}",
        overall.total()
    );
    for (name, t) in &rows {
        assert!(
            t.agreement() >= MIN_FAMILY_AGREEMENT,
            "{name}: agreement {:.4} is below {MIN_FAMILY_AGREEMENT}",
            t.agreement()
        );
    }
    for (name, t) in &per_family {
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
