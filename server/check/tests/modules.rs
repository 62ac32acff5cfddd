//! The checker against ptxas 13.5 on whole-module cases (fixtures/modules/cases.tsv.gz and
//! cases-extra.tsv.gz, made by gen_modules.py and labelled by label_modules.py): calls and call
//! prototypes, branch tables, linking, initializers, directives (entry and performance
//! directives enumerated), textures and surfaces in both texturing modes, and operand negation —
//! rules that live between lines. The cases of one header go many to a module exactly
//! as they did for ptxas; a case is rejected by the checker when it reports an error inside the
//! case's lines (a module whose errors fall outside every case is checked case by case).
//!
//! Prints the agreement overall and per family with the false errors (ptxas accepts, we reject)
//! and the missed errors grouped by message, and fails when a figure falls below what the checker
//! reaches today. Release builds check every case, debug builds every eighth (`MODULES_ALL=1`
//! forces all). With `UPDATE_EXPECT=1` on the whole set it rewrites fixtures/modules/SUMMARY.md.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

// This set groups by its own families: the shared per-ISA-family report goes unused here.
#[allow(dead_code)]
mod agreement;
#[allow(dead_code)]
mod families;
use agreement::{first_error, in_parallel, module_verdicts, read_gz, table, Tally, Verdicts};

/// Figures the checker must reach on the whole set (the test fails below them): 99.5% overall
/// and in every family, no more false errors than 0.05% of the cases ptxas accepts.
const MIN_AGREEMENT: f64 = 0.995;
const MIN_FAMILY_AGREEMENT: f64 = 0.995;
/// False errors as a share of the cases ptxas accepts.
const MAX_FALSE_ERROR_RATE: f64 = 0.0005;
/// The labelled set holds at least this many cases.
const MIN_CASES: usize = 100_000;
/// The labelled parts, each labelled on its own (see fixtures/modules/README.md).
const PARTS: &[&str] = &["cases.tsv.gz", "cases-extra.tsv.gz"];
/// Cases per module (as in label_modules.py).
const CHUNK: usize = 100;
/// In debug builds, every this-many-th module is checked.
const SUBSET_STRIDE: usize = 8;

struct Case<'a> {
    family: &'a str,
    header: &'a str,
    text: String,
    ptxas_rejects: bool,
    message: &'a str,
}

/// The module's first lines, as label_modules.py writes them.
fn header(key: &str) -> String {
    let f: Vec<&str> = key.split('|').collect();
    assert_eq!(f.len(), 4, "bad header `{key}`");
    let mode = if f[3] == "-" {
        String::new()
    } else {
        format!(", {}", f[3])
    };
    format!(
        ".version {}\n.target {}{mode}\n.address_size {}\n",
        f[1], f[0], f[2]
    )
}

/// The checker's verdict on each case of one module. A case that declares a `.file` index
/// another case of the module declares is checked alone, as label_modules.py labels it: a file
/// index is module-wide, so the error on the second declaration belongs to the pair, not to
/// either case.
fn checker_verdicts(key: &str, cases: &[&Case]) -> Verdicts {
    let texts: Vec<&str> = cases.iter().map(|case| &*case.text).collect();
    let header = header(key);
    let mut verdicts = module_verdicts(&header, &texts);
    for i in shared_file_index(&texts) {
        verdicts[i] = first_error(&format!("{header}{}\n", texts[i]));
    }
    verdicts
}

/// The `.file` indices a case declares (the digits after `.file` at the start of a line).
fn file_indices(case: &str) -> BTreeSet<&str> {
    case.lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix(".file")?;
            let index = rest.trim_start();
            if index.len() == rest.len() {
                return None;
            }
            let digits = index.len() - index.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            (digits > 0).then(|| &index[..digits])
        })
        .collect()
}

/// The positions of the cases that declare a `.file` index another of `cases` declares.
fn shared_file_index(cases: &[&str]) -> Vec<usize> {
    let indices: Vec<BTreeSet<&str>> = cases.iter().map(|case| file_indices(case)).collect();
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for index in indices.iter().flatten() {
        *count.entry(index).or_default() += 1;
    }
    (0..cases.len())
        .filter(|&k| indices[k].iter().any(|i| count[i] > 1))
        .collect()
}

#[test]
fn module_cases_agree_with_ptxas() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/modules");
    let path = dir.join("cases.tsv.gz");
    // The two labelled parts (gen_modules.py SEED COUNT, and gen_modules.py --extra), each
    // assembled by label_modules.py on its own.
    // `MODULES_CASES=FILE.gz,…` checks other labelled files instead (cases of another seed,
    // say): every case, the summary printed, SUMMARY.md left alone.
    let other: Option<Vec<std::path::PathBuf>> = std::env::var("MODULES_CASES")
        .ok()
        .map(|v| v.split(',').map(std::path::PathBuf::from).collect());
    let files = other
        .clone()
        .unwrap_or_else(|| PARTS.iter().map(|p| dir.join(p)).collect());
    let texts: Vec<String> = files.iter().map(|p| read_gz(p)).collect();
    let all =
        !cfg!(debug_assertions) || std::env::var_os("MODULES_ALL").is_some() || other.is_some();
    let mut parts: Vec<Vec<Case>> = Vec::new();
    for text in &texts {
        let mut cases = Vec::new();
        for line in text.lines() {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 5, "bad case line `{line}`");
            assert!(matches!(f[3], "A" | "R"), "bad verdict in `{line}`");
            cases.push(Case {
                family: f[0],
                header: f[1],
                text: f[2].replace("\\n", "\n").replace("\\t", "\t"),
                ptxas_rejects: f[3] == "R",
                message: f[4],
            });
        }
        parts.push(cases);
    }
    // The modules label_modules.py assembled: per part, the cases of one header in file
    // order, CHUNK at a time.
    let mut modules: Vec<(&str, Vec<&Case>)> = Vec::new();
    for cases in &parts {
        let mut groups: BTreeMap<&str, Vec<&Case>> = BTreeMap::new();
        for case in cases {
            groups.entry(case.header).or_default().push(case);
        }
        for (key, cases) in groups {
            for chunk in cases.chunks(CHUNK) {
                modules.push((key, chunk.to_vec()));
            }
        }
    }
    let chunks: Vec<(&str, &[&Case])> = modules
        .iter()
        .enumerate()
        .filter(|(i, _)| all || i % SUBSET_STRIDE == 0)
        .map(|(_, (key, c))| (*key, c.as_slice()))
        .collect();
    let verdicts = in_parallel(&chunks, |(key, cases)| checker_verdicts(key, cases));
    let mut overall = Tally::default();
    let mut families: BTreeMap<String, Tally> = BTreeMap::new();
    let mut false_errors: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut missed: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let verdicts_again = verdicts.clone();
    for ((key, cases), verdicts) in chunks.iter().zip(verdicts) {
        for (case, ours) in cases.iter().zip(verdicts) {
            overall.add(case.ptxas_rejects, ours.is_some());
            families
                .entry(case.family.to_owned())
                .or_default()
                .add(case.ptxas_rejects, ours.is_some());
            let shown = format!("{key}: {}", case.text.replace('\n', " ⏎ "));
            match (&ours, case.ptxas_rejects) {
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
        }
    }
    // `MODULES_DUMP=FILE` writes every disagreement, one a line: family, ptxas's message or
    // `-`, ours or `-`, the header and the case.
    let mut mismatches = String::new();
    for ((key, cases), verdicts) in chunks.iter().zip(&verdicts_again) {
        for (case, ours) in cases.iter().zip(verdicts) {
            if case.ptxas_rejects != ours.is_some() {
                mismatches.push_str(&format!(
                    "{}\t{}\t{}\t{key}\t{}\n",
                    case.family,
                    case.message,
                    ours.as_deref().unwrap_or("-"),
                    case.text.replace('\n', "\\n")
                ));
            }
        }
    }
    if let Some(dump) = std::env::var_os("MODULES_DUMP") {
        std::fs::write(dump, &mismatches).expect("write MODULES_DUMP");
    }
    let summary = table("family", &families, &overall);
    println!("{summary}");
    agreement::print_disagreements(&false_errors, &missed, 2, 400);
    if all && other.is_none() && std::env::var_os("UPDATE_EXPECT").is_some() {
        let text = format!(
            "# Agreement with ptxas 13.5 on the whole-module set\n\n\
             Written by `MODULES_ALL=1 UPDATE_EXPECT=1 cargo test -p ptx-check --test modules` \
             (every case; without `MODULES_ALL` a debug build checks every eighth module); the cases are made by \
             `gen_modules.py` and labelled by `label_modules.py` (see README.md here).\n\n\
             {summary}\nFalse errors: {:.3}% of the cases ptxas accepts.\n\n\
             ## Every disagreement\n\n\
             One a line: family, ptxas's message (`-`: accepted), ours (`-`: none), header, \
             the case (line breaks written `\\n`).\n\n```text\n{mismatches}```\n",
            100.0 * overall.false_rate()
        );
        std::fs::write(path.with_file_name("SUMMARY.md"), text).expect("write SUMMARY.md");
    }
    let expected = match (&other, all) {
        (Some(_), _) => 1,
        (None, true) => MIN_CASES,
        (None, false) => MIN_CASES / SUBSET_STRIDE,
    };
    assert!(
        overall.total() >= expected,
        "too few cases: {}",
        overall.total()
    );
    assert!(
        overall.agreement() >= MIN_AGREEMENT,
        "agreement {:.4} is below {MIN_AGREEMENT}",
        overall.agreement()
    );
    for (name, t) in &families {
        assert!(
            t.agreement() >= MIN_FAMILY_AGREEMENT,
            "{name}: agreement {:.4} is below {MIN_FAMILY_AGREEMENT}",
            t.agreement()
        );
    }
    assert!(
        overall.false_rate() <= MAX_FALSE_ERROR_RATE,
        "false errors on {:.5} of accepted cases, above {MAX_FALSE_ERROR_RATE}",
        overall.false_rate()
    );
}

#[test]
fn cases_sharing_a_file_index() {
    let cases = [
        ".file 0 \"a.cu\"\n.visible .entry k_1()\n{\n\t.loc 0 1 0\n\tret;\n}",
        ".visible .entry k_2()\n{\n\t.loc 0 1 0\n\tret;\n}",
        "\t.file  0 \"b.cu\", 1700000000, 4096\n.file 7 \"c.cu\"",
        ".file 7x \"d.cu\"\n.filex 3\n.file \"e.cu\"",
    ];
    assert_eq!(
        file_indices(cases[2]).into_iter().collect::<Vec<_>>(),
        ["0", "7"]
    );
    assert_eq!(
        file_indices(cases[3]).into_iter().collect::<Vec<_>>(),
        ["7"]
    );
    assert_eq!(shared_file_index(&cases), [0, 2, 3]);
}
