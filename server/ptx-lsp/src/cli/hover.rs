//! `ptx-lsp hover FILE LINE:COLUMN`: the hover markdown at a position.
//!
//! Lines and columns are 1-based; columns count Unicode characters (as `check` prints them).
//! Exit 0 with the markdown on stdout; 1 when there is nothing to hover at that position;
//! 2 for a usage or I/O error (unreadable file, malformed or out-of-range position).
//! When the user has imported the PTX ISA (`ptx-lsp docs import`), the spec's own text for the
//! item follows our summary; `--no-spec` leaves it out.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use ptx_ide::hover::{hover, HoverConfig};
use ptx_syntax::{LineCol, LineIndex, Parse, PositionEncoding};

#[derive(Debug, Args)]
pub struct HoverArgs {
    /// The PTX file, or a CUDA/C++ file (a position inside an asm template).
    file: PathBuf,
    /// The position, `LINE:COLUMN` (1-based, columns in Unicode characters).
    position: String,
    /// Use this target instead of the file's `.target` (e.g. `sm_90a`).
    #[arg(long)]
    target: Option<String>,
    /// Use this PTX ISA version instead of the file's `.version` (e.g. `8.7`).
    #[arg(long = "ptx-version")]
    ptx_version: Option<String>,
    /// Leave out the text of an imported PTX ISA document.
    #[arg(long)]
    no_spec: bool,
}

/// Parses `LINE:COLUMN` into a zero-based position.
fn parse_position(text: &str) -> Option<LineCol> {
    let (line, col) = text.trim().split_once(':')?;
    let line: u32 = line.parse().ok()?;
    let col: u32 = col.parse().ok()?;
    (line >= 1 && col >= 1).then(|| LineCol {
        line: line - 1,
        col: col - 1,
    })
}

pub fn run(args: &HoverArgs) -> ExitCode {
    let Some(position) = parse_position(&args.position) else {
        eprintln!(
            "error: position `{}` is not LINE:COLUMN (both 1-based numbers)",
            args.position
        );
        return ExitCode::from(2);
    };
    let text = match super::read(&args.file) {
        Ok(text) => text,
        Err(code) => return code,
    };
    let index = LineIndex::new(&text);
    if position.line as usize >= index.line_count() {
        eprintln!(
            "error: line {} is past the end of {} ({} lines)",
            position.line + 1,
            args.file.display(),
            index.line_count()
        );
        return ExitCode::from(2);
    }
    let offset = index.offset(&text, position, PositionEncoding::Chars);
    let spec = if args.no_spec {
        None
    } else {
        ptx_docs::default_cache_dir()
            .filter(|cache| ptx_docs::status(cache).is_some())
            .and_then(|cache| ptx_docs::SpecIndex::load(&cache).ok())
    };
    let config = HoverConfig {
        target_override: args.target.as_deref(),
        version_override: args.ptx_version.as_deref(),
        spec: spec.as_ref(),
        target_unknown: false,
    };
    let kind = ptx_embed::file_kind(&args.file.display().to_string(), &text, &[]);
    let markdown = if kind == ptx_embed::FileKind::Host {
        // A CUDA/C++ file: hovers exist inside asm templates only.
        let options = ptx_embed::EmbedOptions {
            target: args.target.clone(),
            version: args.ptx_version.clone(),
            ..ptx_embed::EmbedOptions::for_file(&args.file, &text)
        };
        let host = ptx_embed::HostDocument::new(&text, &options);
        ptx_embed::ide::hover(&host, offset, &config).map(|h| h.markdown)
    } else {
        let parse = Parse::new(text);
        if let Some(range) = parse.too_deep() {
            let line = parse.text()[..range.start].matches('\n').count() + 1;
            eprintln!(
                "{}:{line}: the code nests more than {} levels deep here; it is not analysed",
                args.file.display(),
                ptx_syntax::MAX_NESTING
            );
            return ExitCode::from(1);
        }
        hover(&parse, offset, &config).map(|h| h.markdown)
    };
    match markdown {
        Some(markdown) => {
            // A closed pipe (`| head`) is not an error worth a panic.
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(stdout, "{}", markdown.trim_end());
            ExitCode::SUCCESS
        }
        None => {
            eprintln!(
                "{}:{}: nothing to hover here",
                args.file.display(),
                args.position
            );
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_position;

    #[test]
    fn positions_are_one_based() {
        assert_eq!(parse_position("3:7").map(|p| (p.line, p.col)), Some((2, 6)));
        assert!(parse_position("0:1").is_none());
        assert!(parse_position("3").is_none());
        assert!(parse_position("a:b").is_none());
    }
}
