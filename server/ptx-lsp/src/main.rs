//! `ptx-lsp`: the PTX language server and its command-line tools.
//!
//! The binary is a thin edge: with no subcommand (or `serve`) it speaks LSP on
//! stdio (see [`lsp`]); each other subcommand parses its arguments, calls the
//! analysis crates and prints the result.

mod cli;
mod dap;
mod lsp;
mod machine_code;
mod project;

use std::process::ExitCode;

fn main() -> ExitCode {
    // The analyses recurse as deep as the syntax tree nests (up to
    // `ptx_syntax::MAX_NESTING` levels): they get the same generous stack as the
    // server's worker threads, whatever the platform gives the main thread.
    match std::thread::Builder::new()
        .name("ptx-lsp".into())
        .stack_size(lsp::STACK_BYTES)
        .spawn(cli::main)
    {
        Ok(command) => command.join().unwrap_or(ExitCode::from(101)),
        Err(_) => cli::main(),
    }
}
