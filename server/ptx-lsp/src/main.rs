//! `ptx-lsp`: the PTX language server and its command-line tools.
//!
//! The binary is a thin edge: with no subcommand (or `serve`) it speaks LSP on
//! stdio (see [`lsp`]); each other subcommand parses its arguments, calls the
//! analysis crates and prints the result.

mod cli;
mod lsp;
mod project;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
