//! `ptx-lsp docs import PATH` and `ptx-lsp docs status`: the user's copy of the PTX ISA.
//!
//! The index lives in the cache directory: `$PTX_LSP_CACHE_DIR`, else `$XDG_CACHE_HOME/ptx-lsp`,
//! else `~/.cache/ptx-lsp`. Exit codes: 0 success; 1 the input is not a usable PTX ISA document
//! (or, for `status`, nothing is imported yet); 2 a usage or I/O error. A failed import leaves
//! the previous index as it was.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use ptx_docs::ImportError;

#[derive(Debug, Args)]
pub struct DocsArgs {
    #[command(subcommand)]
    command: DocsCommand,
}

#[derive(Debug, Subcommand)]
enum DocsCommand {
    /// Index a copy of the PTX ISA document (a folder or file of its markdown export, or its
    /// HTML page) into the cache, replacing an index of the same or an older version.
    Import {
        /// The document: a folder, a markdown file or the HTML page.
        path: PathBuf,
        /// Replace the index even if it holds a newer version of the document.
        #[arg(long)]
        force: bool,
    },
    /// Say what is indexed.
    Status,
}

fn cache_dir() -> Result<PathBuf, ExitCode> {
    ptx_docs::default_cache_dir().ok_or_else(|| {
        eprintln!("error: no cache directory: set PTX_LSP_CACHE_DIR, XDG_CACHE_HOME or HOME");
        ExitCode::from(2)
    })
}

pub fn run(args: &DocsArgs) -> ExitCode {
    let cache = match cache_dir() {
        Ok(cache) => cache,
        Err(code) => return code,
    };
    match &args.command {
        DocsCommand::Import { path, force } => import(path, &cache, *force),
        DocsCommand::Status => status(&cache),
    }
}

fn import(path: &Path, cache: &Path, force: bool) -> ExitCode {
    let options = ptx_docs::ImportOptions { force };
    match ptx_docs::import_with(path, cache, &options) {
        Ok(report) => {
            outln!("{report}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            if ptx_docs::status(cache).is_some() {
                eprintln!("note: the previous index is unchanged");
            }
            match error {
                ImportError::Io { .. } | ImportError::Write { .. } => ExitCode::from(2),
                _ => ExitCode::from(1),
            }
        }
    }
}

fn status(cache: &Path) -> ExitCode {
    match ptx_docs::status(cache) {
        Some(status) => {
            outln!("{status}");
            ExitCode::SUCCESS
        }
        None => {
            outln!(
                "no PTX ISA document imported (cache {}); run `ptx-lsp docs import PATH`",
                cache.display()
            );
            ExitCode::from(1)
        }
    }
}
