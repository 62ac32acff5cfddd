//! `ptx-lsp`: the PTX language server and its command-line tools.
//!
//! The binary is a thin edge: each subcommand parses its arguments, calls the
//! analysis crates and prints the result.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
