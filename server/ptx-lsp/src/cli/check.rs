//! `ptx-lsp check [--target SM] [--ptx-version V] [--format human|json|github|sarif]
//! [--error-on SEVERITY] [--select CODE,...] [--ignore CODE,...] PATH...`
//!
//! Runs the rule checker on each file, and on the PTX and CUDA/C++ files below each folder
//! (see [`files`]), on every core; reports come in a stable order: the paths in the order
//! given, each folder's files sorted. Exit 0: no errors; 1: errors found (or diagnostics of
//! the `--error-on` severity); 2: usage or I/O error (a path that cannot be read, a malformed
//! `ptx-lsp.toml`). JSON output is one array of `{"file","line","column","end_line",
//! "end_column","severity","code","message"}` for all files (1-based lines and columns,
//! columns in Unicode characters); human output is rustc-style snippets with carets;
//! `github` and `sarif` are described in [`formats`].

mod files;
mod formats;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use clap::{Args, ValueEnum};
use ptx_check::{check, CheckOptions, Diagnostic, Severity};
use ptx_syntax::{LineIndex, Parse, PositionEncoding};

use files::{FileKind, Job};

#[derive(Debug, Args)]
pub(super) struct CheckArgs {
    /// The files and folders to check. PTX files are checked; CUDA/C++ files (.cu, .cuh, .h,
    /// .hpp, .cpp, ...) have their inline `asm()` statements checked. Folders are walked for
    /// both, respecting .gitignore/.ignore and skipping hidden files.
    #[arg(required_unless_present = "list_rules")]
    paths: Vec<PathBuf>,
    /// Check as if the files said `.target SM` (e.g. `sm_100a`).
    #[arg(long, value_name = "SM")]
    target: Option<String>,
    /// Check as if the files said `.version V` (e.g. `8.7`).
    #[arg(long = "ptx-version", value_name = "V")]
    ptx_version: Option<String>,
    /// `github`: workflow commands that annotate a pull request; `sarif`: SARIF 2.1.0 for
    /// code-scanning tools.
    #[arg(long, value_enum, default_value = "human")]
    format: CheckFormat,
    /// Exit 1 when there are diagnostics of this severity or a more serious one.
    #[arg(
        long = "error-on",
        value_enum,
        value_name = "SEVERITY",
        default_value = "error"
    )]
    error_on: ErrorOn,
    /// Report only these rule codes (comma-separated or repeated; see `--list-rules`).
    #[arg(long, value_name = "CODE", value_delimiter = ',')]
    select: Vec<String>,
    /// Do not report these rule codes (comma-separated or repeated).
    #[arg(long, value_name = "CODE", value_delimiter = ',')]
    ignore: Vec<String>,
    /// Apply the `exclude` patterns of `ptx-lsp.toml` to the files named on the command line
    /// too (as a pre-commit hook, which names every changed file, needs).
    #[arg(long = "force-exclude")]
    force_exclude: bool,
    /// Print every rule code with a one-line description, and exit.
    #[arg(long = "list-rules")]
    list_rules: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum CheckFormat {
    Human,
    Json,
    Github,
    Sarif,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ErrorOn {
    Error,
    Warning,
    Information,
    Hint,
}

impl ErrorOn {
    fn fails(self, severity: Severity) -> bool {
        let limit = match self {
            ErrorOn::Error => Severity::Error,
            ErrorOn::Warning => Severity::Warning,
            ErrorOn::Information => Severity::Information,
            ErrorOn::Hint => Severity::Hint,
        };
        severity <= limit
    }
}

/// One diagnostic placed in its file: 1-based lines, columns in Unicode characters (the end
/// column is the one after the last character).
#[derive(Debug, Clone)]
pub(super) struct Located {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
}

/// What checking one file gave.
#[derive(Debug)]
enum Outcome {
    Checked {
        diagnostics: Vec<Located>,
        /// The rustc-style report (human output only).
        human: String,
    },
    /// A walked file that turned out not to be one to check (binary content).
    Skipped,
    Unreadable(String),
}

pub(super) fn run(args: &CheckArgs) -> ExitCode {
    if args.list_rules {
        for (code, description) in crate::project::rule_codes() {
            outln!("{code:<32} {description}");
        }
        return ExitCode::SUCCESS;
    }
    // The knowledge base loads while the files are found.
    let isa = std::thread::spawn(ptx_isa::Isa::get);
    if let Some(v) = &args.ptx_version {
        if ptx_isa::PtxVersion::parse(v).is_none() {
            eprintln!(
                "error: `--ptx-version {v}` is not a PTX ISA version (write MAJOR.MINOR, e.g. 8.7)"
            );
            return ExitCode::from(2);
        }
    }
    for code in args.select.iter().chain(&args.ignore) {
        if crate::project::rule_description(code).is_none() {
            eprintln!(
                "error: `{code}` is not a rule code (`ptx-lsp check --list-rules` lists them)"
            );
            return ExitCode::from(2);
        }
    }
    let files = files::collect(&args.paths, args.force_exclude);
    for error in &files.bad_settings {
        eprintln!("error: {error}");
    }
    if !files.bad_settings.is_empty() {
        return ExitCode::from(2);
    }
    let _ = isa.join();
    if let Some(t) = &args.target {
        if ptx_isa::Isa::get().target(t).is_none() {
            eprintln!("error: `--target {t}` is not a target ptxas knows (e.g. sm_90a, sm_100a)");
            return ExitCode::from(2);
        }
    }
    let outcomes = check_all(args, &files.jobs);

    let mut unreadable = files.unreadable;
    let (mut errors, mut warnings, mut read) = (0usize, 0usize, 0usize);
    let mut failed = false;
    let mut all = Vec::new();
    let mut human = String::new();
    for (job, outcome) in files.jobs.iter().zip(outcomes) {
        match outcome {
            Outcome::Checked {
                diagnostics,
                human: text,
            } => {
                read += 1;
                for d in &diagnostics {
                    match d.severity {
                        Severity::Error => errors += 1,
                        Severity::Warning => warnings += 1,
                        _ => {}
                    }
                    failed |= args.error_on.fails(d.severity);
                }
                human.push_str(&text);
                all.extend(diagnostics);
            }
            Outcome::Skipped => {}
            Outcome::Unreadable(reason) => unreadable.push((job.display.clone(), reason)),
        }
    }
    for (path, reason) in &unreadable {
        eprintln!("error: cannot read {path}: {reason}");
    }
    if unreadable.is_empty() && read == 0 {
        for folder in &files.empty_folders {
            eprintln!("warning: no PTX or CUDA/C++ file to check in {folder}");
        }
    }
    match args.format {
        CheckFormat::Json => outln!("{}", formats::json(&all)),
        CheckFormat::Github => out!("{}", formats::github(&all)),
        CheckFormat::Sarif => outln!("{}", formats::sarif(&all)),
        CheckFormat::Human => {
            out!("{human}");
            let mut summary = format!(
                "{errors} error{}, {warnings} warning{} in {read} file{}",
                plural(errors),
                plural(warnings),
                plural(read)
            );
            if !unreadable.is_empty() {
                let n = unreadable.len();
                let _ = write!(summary, "; {n} path{} could not be read", plural(n));
            }
            outln!("{summary}");
        }
    }
    if !unreadable.is_empty() {
        ExitCode::from(2)
    } else if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Checks every job on every core; the outcomes come in the order of the jobs.
fn check_all(args: &CheckArgs, jobs: &[Job]) -> Vec<Outcome> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(jobs.len())
        .max(1);
    // The largest files first, so that no core is left with a large file alone at the end
    // (a 3 MB CUDA header takes as long as dozens of small ones); the outcomes keep the
    // order of the jobs.
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    if threads > 1 {
        let sizes: Vec<u64> = jobs
            .iter()
            .map(|j| std::fs::metadata(&j.path).map_or(0, |m| m.len()))
            .collect();
        order.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
    }
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Outcome>>> = jobs.iter().map(|_| Mutex::new(None)).collect();
    let work = || {
        while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
            let job = &jobs[i];
            // The process ends after the report: releasing the tree of a single file node by
            // node would cost more than printing it (a few % of a large file's check).
            let outcome = check_one(args, job, jobs.len() == 1);
            if let Ok(mut slot) = slots[i].lock() {
                *slot = Some(outcome);
            }
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(work);
        }
        work();
    });
    slots
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .ok()
                .flatten()
                .unwrap_or_else(|| Outcome::Unreadable("the check did not finish".into()))
        })
        .collect()
}

/// Reads and checks one file.
fn check_one(args: &CheckArgs, job: &Job, forget_tree: bool) -> Outcome {
    let bytes = match std::fs::read(&job.path) {
        Ok(bytes) => bytes,
        Err(error) => return Outcome::Unreadable(error.to_string()),
    };
    let project = job.project.as_deref();
    let Some(kind) = files::kind_of(&job.path, &bytes, job.named, project) else {
        return Outcome::Skipped;
    };
    let text = String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    let target = args
        .target
        .clone()
        .or_else(|| project.and_then(|p| p.target.clone()));
    let version = args
        .ptx_version
        .clone()
        .or_else(|| project.and_then(|p| p.version.clone()));
    let mut disabled: Vec<String> = args.ignore.clone();
    if let Some(p) = project {
        disabled.extend(p.disabled.iter().cloned());
    }
    let keep = |d: &Diagnostic| args.select.is_empty() || args.select.iter().any(|c| c == d.code);
    let mut report = Report::new(args.format, &job.display);
    match kind {
        FileKind::Host => {
            // A file without the letters `asm` has no asm statement: nothing to parse.
            if !text.contains("asm") {
                return report.finish();
            }
            let embed_options = ptx_embed::EmbedOptions {
                target,
                version,
                ..ptx_embed::EmbedOptions::for_file(&job.path, &text)
            };
            let host = ptx_embed::HostDocument::new(&text, &embed_options);
            let diagnostics = ptx_embed::check::check(&host, &disabled);
            let index = LineIndex::new(&text);
            for d in diagnostics.iter().filter(|d| keep(d)) {
                report.add(&text, &index, d);
            }
        }
        FileKind::Ptx => {
            let options = CheckOptions {
                target_override: target,
                version_override: version,
                disabled_codes: disabled,
            };
            // A large file is parsed and checked in chunks on every core; the result is
            // the same as in one piece.
            let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
            let chunks = threads.min(text_len_chunks(&text));
            let parse = Parse::new_parallel(text, chunks);
            let text = parse.text();
            let diagnostics = check(&parse, &options);
            // The line index is only needed to place diagnostics.
            if !diagnostics.is_empty() {
                let index = LineIndex::new(text);
                for d in diagnostics.iter().filter(|d| keep(d)) {
                    report.add(text, &index, d);
                }
            }
            if forget_tree {
                std::mem::forget(parse);
            }
        }
    }
    report.finish()
}

/// The diagnostics of one file, placed, and rendered for human output.
struct Report<'a> {
    format: CheckFormat,
    file: &'a str,
    diagnostics: Vec<Located>,
    human: String,
}

impl<'a> Report<'a> {
    fn new(format: CheckFormat, file: &'a str) -> Self {
        Report {
            format,
            file,
            diagnostics: Vec::new(),
            human: String::new(),
        }
    }

    fn add(&mut self, text: &str, index: &LineIndex, d: &Diagnostic) {
        let start = index.line_col(text, d.range.start, PositionEncoding::Chars);
        let end = index.line_col(text, d.range.end, PositionEncoding::Chars);
        self.diagnostics.push(Located {
            file: self.file.to_string(),
            line: start.line + 1,
            column: start.col + 1,
            end_line: end.line + 1,
            end_column: end.col + 1,
            severity: d.severity,
            code: d.code,
            message: d.message.clone(),
        });
        if self.format == CheckFormat::Human {
            render(&mut self.human, self.file, text, index, d);
        }
    }

    fn finish(self) -> Outcome {
        Outcome::Checked {
            diagnostics: self.diagnostics,
            human: self.human,
        }
    }
}

/// How many parse chunks a text is worth: one per 256 KB (a thread costs about as much as
/// parsing a few kilobytes).
fn text_len_chunks(text: &str) -> usize {
    (text.len() / (256 * 1024)).max(1)
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// rustc-style: a header, the location, the source line(s) with carets under the range.
fn render(out: &mut String, file: &str, text: &str, index: &LineIndex, d: &Diagnostic) {
    let start = index.line_col(text, d.range.start, PositionEncoding::Chars);
    let end = index.line_col(text, d.range.end, PositionEncoding::Chars);
    let _ = writeln!(out, "{}[{}]: {}", d.severity.as_str(), d.code, d.message);
    let gutter = (end.line + 1).to_string().len();
    let pad = " ".repeat(gutter);
    let _ = writeln!(out, "{pad}--> {file}:{}:{}", start.line + 1, start.col + 1);
    let _ = writeln!(out, "{pad} |");
    let line_start = index.line_start(start.line as usize);
    let line_text = text[line_start..]
        .split('\n')
        .next()
        .unwrap_or("")
        .trim_end_matches('\r');
    let width = line_text.chars().count() as u32;
    let caret_end = if end.line == start.line {
        end.col
    } else {
        width
    };
    let carets = caret_end.saturating_sub(start.col).max(1) as usize;
    // Tabs are kept in the underline so that carets line up with the source line.
    let lead: String = line_text
        .chars()
        .take(start.col as usize)
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    let _ = writeln!(out, "{:>gutter$} | {line_text}", start.line + 1);
    let _ = writeln!(out, "{pad} | {lead}{}", "^".repeat(carets));
    for (range, message) in &d.related {
        let at = index.line_col(text, range.start, PositionEncoding::Chars);
        let _ = writeln!(
            out,
            "{pad} = note: {message} at {file}:{}:{}",
            at.line + 1,
            at.col + 1
        );
    }
    if !d.source.is_empty() {
        let _ = writeln!(out, "{pad} = see: PTX ISA section {}", d.source);
    }
    if let Some(fix) = d.fixes.first() {
        let _ = writeln!(out, "{pad} = help: {}", fix.title);
    }
    out.push('\n');
}
