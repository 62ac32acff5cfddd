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
use std::io::Read;
use std::path::Path;

use ptx_check::{check, CheckOptions, Severity};
use ptx_syntax::{LineIndex, Parse, PositionEncoding};

/// Figures the checker reaches today (the test fails below them).
const MIN_AGREEMENT: f64 = 0.972;
const MIN_FAMILY_AGREEMENT: f64 = 0.93;
/// False errors as a share of the cases ptxas accepts.
const MAX_FALSE_ERROR_RATE: f64 = 0.0005;
/// Cases per module (as in label_cases.py; the verdicts do not depend on it).
const CHUNK: usize = 300;
/// Without `GENERATED_ALL=1`, every this-many-th case is checked (a deterministic subset that
/// keeps the debug-build test fast); the full set runs in release builds:
/// `GENERATED_ALL=1 cargo test --release -p ptx-check --test generated`.
const SUBSET_STRIDE: usize = 8;

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

mod families;
use families::ISA_FAMILIES;

fn family(section: &str) -> String {
    let prefix: Vec<&str> = section.split('.').take(3).collect();
    let prefix = prefix.join(".");
    let name = ISA_FAMILIES
        .iter()
        .find(|(p, _)| *p == prefix)
        .map_or("other", |(_, n)| n);
    format!("{prefix} {name}")
}

struct Case<'a> {
    section: &'a str,
    line: &'a str,
    ptxas_rejects: bool,
    message: &'a str,
}

#[derive(Default)]
struct Tally {
    accepted: usize,
    rejected: usize,
    false_errors: usize,
    missed: usize,
}

impl Tally {
    fn total(&self) -> usize {
        self.accepted + self.rejected
    }
    fn agreement(&self) -> f64 {
        1.0 - (self.false_errors + self.missed) as f64 / self.total().max(1) as f64
    }
    fn row(&self, name: &str) -> String {
        format!(
            "| {name} | {} | {} | {} | {} | {} | {:.2}% |",
            self.total(),
            self.accepted,
            self.rejected,
            self.false_errors,
            self.missed,
            100.0 * self.agreement()
        )
    }
}

/// The checker's first error on each case's line, or `Err(())` when an error falls outside
/// the case lines or runs over several lines (a statement that breaks the parse of its
/// neighbours: the chunk is then checked case by case).
fn module_verdicts(target: &str, version: &str, cases: &[&Case]) -> Result<Verdicts, ()> {
    let head = header(target, version);
    let first = head.lines().count();
    let mut text = head;
    for case in cases {
        text.push('\t');
        text.push_str(case.line);
        text.push('\n');
    }
    text.push_str("\tret;\n}\n");
    let index = LineIndex::new(&text);
    let mut verdicts = vec![None; cases.len()];
    for d in check(&Parse::new(text.as_str()), &CheckOptions::default()) {
        if d.severity != Severity::Error {
            continue;
        }
        let line = |offset| index.line_col(&text, offset, PositionEncoding::Chars).line as usize;
        let (start, end) = (line(d.range.start), line(d.range.end));
        let slot = start
            .checked_sub(first)
            .and_then(|i| verdicts.get_mut(i))
            .filter(|_| start == end || (end == start + 1 && d.range.end == d.range.start))
            .ok_or(())?;
        slot.get_or_insert_with(|| format!("[{}] {}", d.code, d.message));
    }
    Ok(verdicts)
}

type Verdicts = Vec<Option<String>>;

/// Whether the checker rejects each case (with its first message).
fn checker_verdicts(target: &str, version: &str, cases: &[&Case]) -> Verdicts {
    module_verdicts(target, version, cases).unwrap_or_else(|()| {
        cases
            .iter()
            .map(|case| {
                let head = header(target, version);
                let text = format!("{head}\t{}\n\tret;\n}}\n", case.line);
                check(&Parse::new(text.as_str()), &CheckOptions::default())
                    .into_iter()
                    .find(|d| d.severity == Severity::Error)
                    .map(|d| format!("[{}] {}", d.code, d.message))
            })
            .collect()
    })
}

#[test]
fn generated_cases_agree_with_ptxas() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/generated/cases.tsv.gz");
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&path).expect("cases.tsv.gz"))
        .read_to_string(&mut text)
        .expect("gzip text");
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
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
    let verdicts: Vec<Verdicts> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let chunks = &chunks;
                s.spawn(move || {
                    chunks
                        .iter()
                        .skip(t)
                        .step_by(threads)
                        .map(|(target, version, cases)| {
                            let refs: Vec<&Case> = cases.iter().collect();
                            checker_verdicts(target, version, &refs)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let per_worker: Vec<Vec<Verdicts>> = workers
            .into_iter()
            .map(|w| w.join().expect("checker thread"))
            .collect();
        (0..chunks.len())
            .map(|i| per_worker[i % threads][i / threads].clone())
            .collect()
    });
    let mut overall = Tally::default();
    let mut families: BTreeMap<String, Tally> = BTreeMap::new();
    let mut false_errors: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut missed: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for ((target, version, cases), verdicts) in chunks.iter().zip(verdicts) {
        for (case, ours) in cases.iter().zip(verdicts) {
            let tally = families.entry(family(case.section)).or_default();
            for t in [&mut overall, tally] {
                if case.ptxas_rejects {
                    t.rejected += 1;
                    t.missed += usize::from(ours.is_none());
                } else {
                    t.accepted += 1;
                    t.false_errors += usize::from(ours.is_some());
                }
            }
            let case_text = format!("{target} {version}: {}", case.line);
            match (&ours, case.ptxas_rejects) {
                (Some(ours), false) => false_errors
                    .entry(ours.clone())
                    .or_default()
                    .push(case_text),
                (None, true) => {
                    let key = case.message.split('\'').next().unwrap_or("").to_owned();
                    missed
                        .entry(key)
                        .or_default()
                        .push(format!("{case_text}  ({})", case.message));
                }
                _ => {}
            }
        }
    }
    let mut table = String::from(
        "| family | cases | ptxas accepts | ptxas rejects | false errors | missed errors | agreement |\n\
         |---|---:|---:|---:|---:|---:|---:|\n",
    );
    for (name, t) in &families {
        table.push_str(&t.row(name));
        table.push('\n');
    }
    table.push_str(&overall.row("**all**"));
    table.push('\n');
    println!("{table}");
    let show = |title: &str, groups: &BTreeMap<String, Vec<String>>| {
        let mut by_size: Vec<_> = groups.iter().collect();
        by_size.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
        println!("{title}:");
        for (key, cases) in by_size {
            println!("  {:>6}  {key}", cases.len());
            for c in cases.iter().take(3) {
                println!("          {c}");
            }
        }
    };
    show("false errors, by our message", &false_errors);
    show("missed errors, by ptxas message", &missed);
    if let Some(dump) = std::env::var_os("GENERATED_DUMP") {
        // Every disagreement, for working on the rules: `F|M <TAB> case <TAB> message`.
        let mut out = String::new();
        for (kind, groups) in [("F", &false_errors), ("M", &missed)] {
            for (key, cases) in groups {
                for c in cases {
                    out.push_str(&format!("{kind}\t{key}\t{c}\n"));
                }
            }
        }
        std::fs::write(dump, out).expect("write GENERATED_DUMP");
    }
    let false_rate = overall.false_errors as f64 / overall.accepted.max(1) as f64;
    if all && std::env::var_os("UPDATE_EXPECT").is_some() {
        let summary = format!(
            "# Agreement with ptxas 13.5 on the generated set\n\n\
             Written by `GENERATED_ALL=1 UPDATE_EXPECT=1 cargo test --release -p ptx-check --test \
             generated` (every case; the debug-build test checks every eighth); the cases are made \
             by `gen_cases.py` and labelled by `label_cases.py` (see README.md here).\n\n\
             {table}\nFalse errors: {:.3}% of the cases ptxas accepts.\n",
            100.0 * false_rate
        );
        std::fs::write(path.with_file_name("SUMMARY.md"), summary).expect("write SUMMARY.md");
    }
    let expected = if all {
        200_000
    } else {
        200_000 / SUBSET_STRIDE
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
        false_rate <= MAX_FALSE_ERROR_RATE,
        "false errors on {false_rate:.5} of accepted cases, above {MAX_FALSE_ERROR_RATE}"
    );
}
