//! Fixture generator: asks NVIDIA's ptxas which register counts it accepts
//! for every catalogued instruction form and writes the verdicts as a TSV.
//!
//! Usage: `label_fixtures <ptxas> <out.tsv> [family-prefix]`
//!
//! For forms the calculator accepts, each vector operand is tried with the
//! computed count and with one register less and one more (other operands at
//! their computed counts). For forms the calculator rejects, every vector
//! operand is tried with each probe count of the form. Many instructions are
//! batched into one PTX module; ptxas's line-numbered errors attribute the
//! verdicts, and modules are re-assembled without the failing lines until
//! ptxas accepts the rest, so that errors of later passes are not missed.

use ptx_regs::catalog::{all_cases, Case, Slot, DECLARATIONS};
use ptx_regs::register_counts;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// One instruction line to try.
struct Probe {
    case: usize,
    /// Operand varied, or `None` when all vectors carry the same probe count.
    operand: Option<usize>,
    count: u32,
    text: String,
}

/// Outcome of one probe: `A` accepted, `V` vector-size error, `X` other error.
#[derive(Clone)]
struct Verdict {
    code: char,
    message: String,
}

const BATCH: usize = 400;

fn module(target: &str, lines: &[&str]) -> (String, usize) {
    let mut s = String::new();
    let version = "9.1";
    let _ = write!(
        s,
        ".version {version}\n.target {target}\n.address_size 64\n\n.visible .entry k()\n{{\n{DECLARATIONS}"
    );
    let first = s.lines().count() + 1;
    for l in lines {
        s.push('\t');
        s.push_str(l);
        s.push('\n');
    }
    s.push_str("\tret;\n}\n");
    (s, first)
}

/// Runs ptxas on `lines`, returning per-line error messages (empty = none),
/// or the whole output when ptxas failed without naming a probe line.
fn run_ptxas(
    ptxas: &str,
    dir: &Path,
    tag: &str,
    target: &str,
    lines: &[&str],
) -> Result<Vec<Vec<String>>, String> {
    let (text, first) = module(target, lines);
    let path = dir.join(format!("m{tag}.ptx"));
    std::fs::write(&path, text).expect("write module");
    let out = Command::new(ptxas)
        .arg(format!("-arch={}", target.replace("sm_", "compute_")))
        .arg(&path)
        .arg("-o")
        .arg("/dev/null")
        .output()
        .expect("run ptxas");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.code().is_none() {
        // Killed by a signal (ptxas crashes on some invalid forms): the
        // errors printed so far cannot be trusted to be complete.
        return Err(format!("ptxas crashed ({})", out.status));
    }
    let mut errors = vec![Vec::new(); lines.len()];
    let mut any = false;
    for line in stderr.lines() {
        if let Some((file, rest)) = line.split_once(", line ") {
            let (num, msg) = rest.split_once(';').unwrap_or((rest, ""));
            let msg = msg.trim();
            if !msg.starts_with("error") && !msg.starts_with("fatal") {
                continue;
            }
            if !file.ends_with(&*path.to_string_lossy()) {
                // An error inside ptxas's own builtin code: no probe named.
                return Err(line.to_owned());
            }
            let n: usize = num.trim().parse().expect("line number");
            let idx = n.checked_sub(first).filter(|i| *i < lines.len());
            let Some(idx) = idx else {
                return Err(line.to_owned());
            };
            let msg = msg
                .trim_start_matches("error")
                .trim_start()
                .trim_start_matches(':');
            errors[idx].push(msg.trim().to_owned());
            any = true;
        } else if line.contains("fatal") && !line.contains("aborted due to errors") {
            return Err(line.to_owned());
        }
    }
    if !any && !out.status.success() {
        return Err(stderr.into_owned());
    }
    Ok(errors)
}

/// Verdicts for `lines`, re-running the accepted rest until ptxas is clean.
/// A module that fails without a line number is split in halves until the
/// failing probe is alone.
fn label(ptxas: &str, dir: &Path, tag: &str, target: &str, lines: &[&str]) -> Vec<Verdict> {
    let mut verdicts: Vec<Option<Verdict>> = vec![None; lines.len()];
    let mut pending: Vec<usize> = (0..lines.len()).collect();
    let mut round = 0;
    while !pending.is_empty() {
        let batch: Vec<&str> = pending.iter().map(|&i| lines[i]).collect();
        let errors = match run_ptxas(ptxas, dir, &format!("{tag}-{round}"), target, &batch) {
            Ok(errors) => errors,
            Err(message) if batch.len() == 1 => vec![vec![message]],
            Err(_) => {
                let half = batch.len() / 2;
                let mut v = label(
                    ptxas,
                    dir,
                    &format!("{tag}-{round}a"),
                    target,
                    &batch[..half],
                );
                v.extend(label(
                    ptxas,
                    dir,
                    &format!("{tag}-{round}b"),
                    target,
                    &batch[half..],
                ));
                for (k, verdict) in v.into_iter().enumerate() {
                    verdicts[pending[k]] = Some(verdict);
                }
                break;
            }
        };
        round += 1;
        let mut next = Vec::new();
        for (k, errs) in errors.into_iter().enumerate() {
            let i = pending[k];
            if errs.is_empty() {
                next.push(i);
            } else {
                let code = if errs.iter().any(|e| e.contains("vector size mismatch")) {
                    'V'
                } else {
                    'X'
                };
                verdicts[i] = Some(Verdict {
                    code,
                    message: errs.join(" | "),
                });
            }
        }
        if next.len() == pending.len() {
            for i in next {
                verdicts[i] = Some(Verdict {
                    code: 'A',
                    message: String::new(),
                });
            }
            break;
        }
        pending = next;
    }
    verdicts.into_iter().map(|v| v.expect("verdict")).collect()
}

fn probes_for(i: usize, case: &Case) -> Vec<Probe> {
    let mut out = Vec::new();
    match register_counts(&case.opcode) {
        Ok(rc) => {
            let mut base = vec![1u32; case.operands.len()];
            for v in &rc.vectors {
                assert!(
                    matches!(
                        case.operands.get(v.operand),
                        Some(Slot::Vector { .. } | Slot::Scalar { .. })
                    ),
                    "{}: operand {} is not a register slot in the catalog",
                    case.opcode,
                    v.operand
                );
                base[v.operand] = v.registers;
            }
            for v in &rc.vectors {
                for count in [v.registers.saturating_sub(1), v.registers, v.registers + 1] {
                    if count == 0 {
                        continue;
                    }
                    let mut counts = base.clone();
                    counts[v.operand] = count;
                    out.push(Probe {
                        case: i,
                        operand: Some(v.operand),
                        count,
                        text: case.render(&counts),
                    });
                }
            }
        }
        Err(_) => {
            for &count in &case.probes {
                let counts: Vec<u32> = case
                    .operands
                    .iter()
                    .map(|s| {
                        if matches!(s, Slot::Vector { .. }) {
                            count
                        } else {
                            1
                        }
                    })
                    .collect();
                out.push(Probe {
                    case: i,
                    operand: None,
                    count,
                    text: case.render(&counts),
                });
            }
        }
    }
    out
}

fn ptxas_version(ptxas: &str) -> String {
    let out = Command::new(ptxas)
        .arg("--version")
        .output()
        .expect("ptxas --version");
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .find_map(|l| l.split_once(", V").map(|(_, v)| v.trim().to_owned()))
        .unwrap_or_else(|| "unknown".to_owned())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: label_fixtures <ptxas> <out.tsv> [family-prefix]");
        std::process::exit(2);
    }
    let ptxas = args[1].clone();
    let out_path = PathBuf::from(&args[2]);
    let filter = args.get(3).cloned().unwrap_or_default();
    let version = ptxas_version(&ptxas);
    let cases: Vec<Case> = all_cases()
        .into_iter()
        .filter(|c| c.family.starts_with(&filter))
        .collect();
    let probes: Vec<Probe> = cases
        .iter()
        .enumerate()
        .flat_map(|(i, c)| probes_for(i, c))
        .collect();
    eprintln!("{} cases, {} probe lines", cases.len(), probes.len());

    // Group probe indices by target and cut them into batches.
    let mut by_target: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (k, p) in probes.iter().enumerate() {
        by_target.entry(cases[p.case].target).or_default().push(k);
    }
    let jobs: Vec<(&str, Vec<usize>)> = by_target
        .iter()
        .flat_map(|(t, ks)| ks.chunks(BATCH).map(move |c| (*t, c.to_vec())))
        .collect();
    let dir = std::env::temp_dir().join(format!("ptx-regs-label-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let queue = Mutex::new(jobs.into_iter().enumerate().collect::<Vec<_>>());
    let results: Mutex<Vec<Option<Verdict>>> = Mutex::new(vec![None; probes.len()]);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let job = queue.lock().expect("queue").pop();
                let Some((tag, (target, ks))) = job else {
                    break;
                };
                let lines: Vec<&str> = ks.iter().map(|&k| probes[k].text.as_str()).collect();
                let verdicts = label(&ptxas, &dir, &tag.to_string(), target, &lines);
                let mut r = results.lock().expect("results");
                for (k, v) in ks.into_iter().zip(verdicts) {
                    r[k] = Some(v);
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
    let results: Vec<Verdict> = results
        .into_inner()
        .expect("results")
        .into_iter()
        .map(|v| v.expect("all labelled"))
        .collect();

    // One row per (case, operand) or (case, all vectors) for NA forms.
    let mut rows: BTreeMap<(usize, Option<usize>), Vec<usize>> = BTreeMap::new();
    for (k, p) in probes.iter().enumerate() {
        rows.entry((p.case, p.operand)).or_default().push(k);
    }
    let mut tsv = String::from(
        "# family\ttarget\tinstruction\toperand\tcount\tverdicts (count:A accepted, V vector size mismatch, X other error)\tptxas message\tptxas\n",
    );
    for ((ci, operand), ks) in rows {
        let case = &cases[ci];
        let (op_text, count) = match operand {
            Some(o) => {
                let rc = register_counts(&case.opcode).expect("counted");
                let v = rc.vectors.iter().find(|v| v.operand == o).expect("vector");
                (o.to_string(), v.registers.to_string())
            }
            None => ("*".to_owned(), "NA".to_owned()),
        };
        let verdicts: Vec<String> = ks
            .iter()
            .map(|&k| format!("{}:{}", probes[k].count, results[k].code))
            .collect();
        // The message of the calculator's own count, or of the first probe.
        let message = ks
            .iter()
            .find(|&&k| count == probes[k].count.to_string())
            .or(ks.first())
            .map(|&k| results[k].message.clone())
            .unwrap_or_default();
        let message = if message.is_empty() {
            "-".to_owned()
        } else {
            message.replace(['\t', '\n'], " ")
        };
        let _ = writeln!(
            tsv,
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            case.family,
            case.target,
            case.opcode,
            op_text,
            count,
            verdicts.join(" "),
            message,
            version
        );
    }
    std::fs::write(&out_path, tsv).expect("write tsv");
    eprintln!("wrote {}", out_path.display());
}
