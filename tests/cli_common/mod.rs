//! Helpers shared by the command-line end-to-end tests: run the built
//! `ptx-lsp` binary from the repository root and read what it printed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root (tests run the binary from there, with relative paths).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `ptx-lsp ARGS...` in the repository root.
pub fn ptx_lsp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptx-lsp"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the ptx-lsp binary runs")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
