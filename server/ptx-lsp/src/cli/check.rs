//! `ptx-lsp check [--target SM] [--ptx-version V] [--format human|json] FILE...`
//!
//! Runs the rule checker on each file. Exit 0: no errors; 1: errors found; 2: usage or I/O
//! error. JSON output is one array of `{"file","line","column","end_line","end_column",
//! "severity","code","message"}` for all files (1-based lines and columns, columns in Unicode
//! characters); human output is rustc-style snippets with carets.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use ptx_check::{check, CheckOptions, Diagnostic, Severity};
use ptx_syntax::{LineIndex, Parse, PositionEncoding};
use serde::Serialize;

use super::Format;

#[derive(Debug, Args)]
pub(super) struct CheckArgs {
    /// The PTX files to check; CUDA/C++ files (.cu, .cuh, .h, .hpp, .cpp, ...) have their
    /// inline `asm()` statements checked.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Check as if the files said `.target SM` (e.g. `sm_100a`).
    #[arg(long, value_name = "SM")]
    target: Option<String>,
    /// Check as if the files said `.version V` (e.g. `8.7`).
    #[arg(long = "ptx-version", value_name = "V")]
    ptx_version: Option<String>,
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

/// One diagnostic as the JSON output writes it.
#[derive(Debug, Serialize)]
struct JsonDiagnostic {
    file: String,
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
    severity: &'static str,
    code: &'static str,
    message: String,
}

pub(super) fn run(args: &CheckArgs) -> ExitCode {
    if let Some(v) = &args.ptx_version {
        if ptx_isa::PtxVersion::parse(v).is_none() {
            eprintln!(
                "error: `--ptx-version {v}` is not a PTX ISA version (write MAJOR.MINOR, e.g. 8.7)"
            );
            return ExitCode::from(2);
        }
    }
    if let Some(t) = &args.target {
        if ptx_isa::Isa::get().target(t).is_none() {
            eprintln!("error: `--target {t}` is not a target ptxas knows (e.g. sm_90a, sm_100a)");
            return ExitCode::from(2);
        }
    }
    let options = CheckOptions {
        target_override: args.target.clone(),
        version_override: args.ptx_version.clone(),
        disabled_codes: Vec::new(),
    };
    let mut json = Vec::new();
    let mut human = String::new();
    let (mut errors, mut warnings) = (0usize, 0usize);
    let mut io_error = false;
    for (file_number, path) in args.files.iter().enumerate() {
        let text = match std::fs::read(path) {
            Ok(bytes) => String::from_utf8(bytes)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
            Err(error) => {
                eprintln!("error: cannot read {}: {error}", path.display());
                io_error = true;
                continue;
            }
        };
        let file = path.display().to_string();
        if ptx_embed::file_kind(&file, &text, &[]) == ptx_embed::FileKind::Host {
            // A CUDA/C++ file: its asm statements, checked as virtual PTX documents.
            let embed_options = ptx_embed::EmbedOptions {
                target: args.target.clone(),
                version: args.ptx_version.clone(),
                build_targets: ptx_embed::compile_commands_targets(path),
                inline_macros: ptx_embed::included_inline_macros(path, &text),
            };
            let host = ptx_embed::HostDocument::new(&text, &embed_options);
            let diagnostics = ptx_embed::check::check(&host, &[]);
            let index = LineIndex::new(&text);
            for d in &diagnostics {
                report(args, &mut json, &mut human, &file, &text, &index, d);
                match d.severity {
                    Severity::Error => errors += 1,
                    Severity::Warning => warnings += 1,
                    _ => {}
                }
            }
            continue;
        }
        // A large file is parsed and checked in chunks on every core; the result is the
        // same as in one piece.
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let chunks = threads.min(text_len_chunks(&text));
        // The knowledge base loads while the text is parsed.
        let isa = (chunks > 1).then(|| std::thread::spawn(ptx_isa::Isa::get));
        let parse = Parse::new_parallel(text, chunks);
        if let Some(isa) = isa {
            let _ = isa.join();
        }
        let text = parse.text();
        let diagnostics = check(&parse, &options);
        // The line index is only needed to place diagnostics.
        let index = (!diagnostics.is_empty()).then(|| LineIndex::new(text));
        for d in &diagnostics {
            let Some(index) = &index else { break };
            match d.severity {
                Severity::Error => errors += 1,
                Severity::Warning => warnings += 1,
                _ => {}
            }
            report(args, &mut json, &mut human, &file, text, index, d);
        }
        if file_number + 1 == args.files.len() {
            // The process ends after the report: releasing the last tree node by
            // node would cost more than printing it (a few % of a large file's check).
            std::mem::forget(parse);
        }
    }
    match args.format {
        Format::Json => outln!(
            "{}",
            serde_json::to_string_pretty(&json).expect("plain data serializes")
        ),
        Format::Human => {
            out!("{human}");
            let files = args.files.len();
            outln!(
                "{errors} error{}, {warnings} warning{} in {files} file{}",
                plural(errors),
                plural(warnings),
                plural(files)
            );
        }
    }
    if io_error {
        ExitCode::from(2)
    } else if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Adds one diagnostic to the JSON or human report.
fn report(
    args: &CheckArgs,
    json: &mut Vec<JsonDiagnostic>,
    human: &mut String,
    file: &str,
    text: &str,
    index: &LineIndex,
    d: &Diagnostic,
) {
    match args.format {
        Format::Json => {
            let start = index.line_col(text, d.range.start, PositionEncoding::Chars);
            let end = index.line_col(text, d.range.end, PositionEncoding::Chars);
            json.push(JsonDiagnostic {
                file: file.to_string(),
                line: start.line + 1,
                column: start.col + 1,
                end_line: end.line + 1,
                end_column: end.col + 1,
                severity: d.severity.as_str(),
                code: d.code,
                message: d.message.clone(),
            });
        }
        Format::Human => render(human, file, text, index, d),
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
