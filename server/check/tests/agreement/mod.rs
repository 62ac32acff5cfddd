//! What the ptxas-agreement tests over labelled case sets share: reading a compressed set,
//! checking modules on every core, finding the checker's verdict for each case in a module, and
//! tallying agreement overall and per ISA family with the false and missed errors grouped by
//! message.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use ptx_check::{check, CheckOptions, Severity};
use ptx_syntax::{LineIndex, Parse, PositionEncoding};

use crate::families::ISA_FAMILIES;

/// The text of a gzip-compressed fixture.
pub fn read_gz(path: &Path) -> String {
    let mut text = String::new();
    flate2::read::GzDecoder::new(
        std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
    .read_to_string(&mut text)
    .expect("gzip text");
    text
}

/// The family a spec section (`9.7.9.8`, `9.7.9`) belongs to: `9.7.9 data movement and conversion`.
pub fn family(section: &str) -> String {
    let prefix: Vec<&str> = section.split('.').take(3).collect();
    let prefix = prefix.join(".");
    let name = ISA_FAMILIES
        .iter()
        .find(|(p, _)| *p == prefix)
        .map_or("other", |(_, n)| n);
    format!("{prefix} {name}")
}

/// The checker's first error per case (`[code] message`), `None` where it reports none.
pub type Verdicts = Vec<Option<String>>;

/// The checker's first error for each case of the module `header` followed by the cases'
/// texts, one after another; when its errors cannot be told apart by case (see
/// [`verdicts_by_span`]), each case is checked alone under the same header.
pub fn module_verdicts(header: &str, texts: &[&str]) -> Verdicts {
    let mut text = header.to_owned();
    let mut line = text.lines().count();
    let mut spans = Vec::new();
    for case in texts {
        let n = case.lines().count();
        spans.push((line, line + n - 1));
        text.push_str(case);
        text.push('\n');
        line += n;
    }
    verdicts_by_span(&text, &spans).unwrap_or_else(|()| {
        texts
            .iter()
            .map(|case| first_error(&format!("{header}{case}\n")))
            .collect()
    })
}

/// The checker's first error for each case of a module, where case `i` owns the lines
/// `spans[i]` (0-based, inclusive). `Err(())` when an error falls outside every case or runs
/// from one case into another (a statement that broke the parse of its neighbours): the caller
/// then checks the cases one by one.
pub fn verdicts_by_span(text: &str, spans: &[(usize, usize)]) -> Result<Verdicts, ()> {
    let index = LineIndex::new(text);
    let mut verdicts = vec![None; spans.len()];
    let parse = Parse::new(text);
    let diagnostics = check(&parse, &CheckOptions::default());
    // Skipping the rules for instructions like ones found clean before changes nothing:
    // these modules hold the same lines under different declarations, targets and versions.
    let every = ptx_check::check_every_instruction(&parse, &CheckOptions::default());
    if diagnostics != every {
        let differs = diagnostics.iter().zip(&every).position(|(a, b)| a != b);
        panic!(
            "the check with remembered clean instructions differs ({} against {} diagnostics, first difference at {differs:?}: {:?} against {:?}) in\n{text}",
            diagnostics.len(),
            every.len(),
            differs.map(|i| &diagnostics[i]),
            differs.map(|i| &every[i]),
        );
    }
    for d in diagnostics {
        if d.severity != Severity::Error {
            continue;
        }
        let line = |offset| index.line_col(text, offset, PositionEncoding::Chars).line as usize;
        let (start, end) = (line(d.range.start), line(d.range.end));
        // A zero-length range just past a line's end is reported on the next line.
        let end = if end == start + 1 && d.range.end == d.range.start {
            start
        } else {
            end
        };
        let case = spans
            .iter()
            .position(|&(first, last)| first <= start && end <= last)
            .ok_or(())?;
        verdicts[case].get_or_insert_with(|| format!("[{}] {}", d.code, d.message));
    }
    Ok(verdicts)
}

/// The checker's first error in a module holding one case.
pub fn first_error(text: &str) -> Option<String> {
    check(&Parse::new(text), &CheckOptions::default())
        .into_iter()
        .find(|d| d.severity == Severity::Error)
        .map(|d| format!("[{}] {}", d.code, d.message))
}

/// `work(item)` for every item, on every core (at most eight threads), in order.
pub fn in_parallel<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
    let work = &work;
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    items
                        .iter()
                        .skip(t)
                        .step_by(threads)
                        .map(work)
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut per_worker: Vec<std::vec::IntoIter<R>> = workers
            .into_iter()
            .map(|w| w.join().expect("checker thread").into_iter())
            .collect();
        (0..items.len())
            .map(|i| per_worker[i % threads].next().expect("one result per item"))
            .collect()
    })
}

#[derive(Default)]
pub struct Tally {
    pub accepted: usize,
    pub rejected: usize,
    pub false_errors: usize,
    pub missed: usize,
}

impl Tally {
    pub fn total(&self) -> usize {
        self.accepted + self.rejected
    }

    pub fn agreement(&self) -> f64 {
        1.0 - (self.false_errors + self.missed) as f64 / self.total().max(1) as f64
    }

    /// False errors as a share of the cases ptxas accepts.
    pub fn false_rate(&self) -> f64 {
        self.false_errors as f64 / self.accepted.max(1) as f64
    }

    pub fn add(&mut self, ptxas_rejects: bool, we_reject: bool) {
        if ptxas_rejects {
            self.rejected += 1;
            self.missed += usize::from(!we_reject);
        } else {
            self.accepted += 1;
            self.false_errors += usize::from(we_reject);
        }
    }

    pub fn row(&self, name: &str) -> String {
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

/// A markdown table of tallies (a first column named `heading`), with an overall last row.
pub fn table<'a>(
    heading: &str,
    rows: impl IntoIterator<Item = (&'a String, &'a Tally)>,
    overall: &Tally,
) -> String {
    let mut table = format!(
        "| {heading} | cases | ptxas accepts | ptxas rejects | false errors | missed errors | agreement |\n\
         |---|---:|---:|---:|---:|---:|---:|\n"
    );
    for (name, t) in rows {
        table.push_str(&t.row(name));
        table.push('\n');
    }
    table.push_str(&overall.row("**all**"));
    table.push('\n');
    table
}

/// Prints disagreements grouped by message, largest groups first, with the first `shown` cases
/// of each (at most `width` characters of each case).
pub fn print_disagreements(
    false_errors: &BTreeMap<String, Vec<String>>,
    missed: &BTreeMap<String, Vec<String>>,
    shown: usize,
    width: usize,
) {
    for (title, groups) in [
        ("false errors, by our message", false_errors),
        ("missed errors, by ptxas message", missed),
    ] {
        let mut by_size: Vec<_> = groups.iter().collect();
        by_size.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
        println!("{title}:");
        for (key, cases) in by_size {
            println!("  {:>6}  {key}", cases.len());
            for c in cases.iter().take(shown) {
                println!("          {}", c.chars().take(width).collect::<String>());
            }
        }
    }
}

/// Agreement overall and per ISA family, with every disagreement grouped by message.
#[derive(Default)]
pub struct Report {
    pub overall: Tally,
    pub families: BTreeMap<String, Tally>,
    /// Our first message -> the cases ptxas accepts and we reject.
    pub false_errors: BTreeMap<String, Vec<String>>,
    /// ptxas's message (up to its first quote) -> the cases ptxas rejects and we accept.
    pub missed: BTreeMap<String, Vec<String>>,
}

impl Report {
    /// Counts one case: its spec section, how it reads in a listing, ptxas's verdict and first
    /// message, and ours.
    pub fn record(
        &mut self,
        section: &str,
        case_text: String,
        ptxas_rejects: bool,
        ptxas_message: &str,
        ours: &Option<String>,
    ) {
        self.overall.add(ptxas_rejects, ours.is_some());
        self.families
            .entry(family(section))
            .or_default()
            .add(ptxas_rejects, ours.is_some());
        match (ours, ptxas_rejects) {
            (Some(ours), false) => self
                .false_errors
                .entry(ours.clone())
                .or_default()
                .push(case_text),
            (None, true) => {
                let key = ptxas_message.split('\'').next().unwrap_or("").to_owned();
                self.missed
                    .entry(key)
                    .or_default()
                    .push(format!("{case_text}  ({ptxas_message})"));
            }
            _ => {}
        }
    }

    /// The per-family table.
    pub fn table(&self) -> String {
        table("family", &self.families, &self.overall)
    }

    /// Prints the table and the disagreements, largest groups first, with three cases each;
    /// with `dump_var` set in the environment, also writes every disagreement to the file it
    /// names (`F|M <TAB> message <TAB> case`).
    pub fn print(&self, dump_var: &str) {
        println!("{}", self.table());
        print_disagreements(&self.false_errors, &self.missed, 3, usize::MAX);
        if let Some(dump) = std::env::var_os(dump_var) {
            let mut out = String::new();
            for (kind, groups) in [("F", &self.false_errors), ("M", &self.missed)] {
                for (key, cases) in groups {
                    for c in cases {
                        out.push_str(&format!("{kind}\t{key}\t{c}\n"));
                    }
                }
            }
            std::fs::write(dump, out).expect("write the disagreement dump");
        }
    }

    /// Fails when the set is smaller than `min_cases` or a figure is worse than the floor.
    pub fn assert_at_least(
        &self,
        min_cases: usize,
        min_agreement: f64,
        min_family_agreement: f64,
        max_false_rate: f64,
    ) {
        let overall = &self.overall;
        assert!(
            overall.total() >= min_cases,
            "too few cases: {}",
            overall.total()
        );
        assert!(
            overall.agreement() >= min_agreement,
            "agreement {:.4} is below {min_agreement}",
            overall.agreement()
        );
        for (name, t) in &self.families {
            assert!(
                t.agreement() >= min_family_agreement,
                "{name}: agreement {:.4} is below {min_family_agreement}",
                t.agreement()
            );
        }
        assert!(
            overall.false_rate() <= max_false_rate,
            "false errors on {:.5} of accepted cases, above {max_false_rate}",
            overall.false_rate()
        );
    }
}
