//! End-to-end tests of `ptx-lsp check`: they run the built binary and hold it to the
//! command-line contract (exit codes, JSON shape, 1-based character columns).

mod cli_common;

use cli_common::{ptx_lsp, stderr, stdout};

const INVALID: &str = "server/check/fixtures/cli/invalid.ptx";

#[test]
fn valid_corpus_file_exits_0() {
    let output = ptx_lsp(&["check", "tests/corpus/triton/triton_add_native.ptx"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}",
        stdout(&output),
        stderr(&output)
    );
    assert_eq!(stdout(&output), "0 errors, 0 warnings in 1 file\n");
}

#[test]
fn invalid_file_exits_1_with_json_diagnostics() {
    let output = ptx_lsp(&["check", "--format", "json", INVALID]);
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("JSON output");
    let items = json.as_array().expect("a JSON array");
    assert_eq!(items.len(), 2, "{json:#}");
    let first = &items[0];
    let keys: Vec<&str> = first
        .as_object()
        .expect("objects")
        .keys()
        .map(String::as_str)
        .collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        [
            "code",
            "column",
            "end_column",
            "end_line",
            "file",
            "line",
            "message",
            "severity"
        ]
    );
    assert_eq!(first["file"], INVALID);
    assert_eq!(first["code"], "unknown-opcode");
    assert_eq!(first["severity"], "error");
    // `\tad.s32`: the tab is one character, so `ad` starts in column 2.
    assert_eq!(
        (first["line"].as_u64(), first["column"].as_u64()),
        (Some(10), Some(2))
    );
    assert_eq!(
        (first["end_line"].as_u64(), first["end_column"].as_u64()),
        (Some(10), Some(4))
    );
    assert_eq!(items[1]["code"], "vector-length");
}

#[test]
fn human_output_has_carets() {
    let output = ptx_lsp(&["check", INVALID]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(
        text.contains("error[unknown-opcode]: unknown instruction `ad`; did you mean `add`?"),
        "{text}"
    );
    assert!(
        text.contains("--> server/check/fixtures/cli/invalid.ptx:10:2"),
        "{text}"
    );
    assert!(
        text.contains("10 | \tad.s32 \t%r1, %r2, %r3;\n   | \t^^\n"),
        "{text}"
    );
    assert!(text.contains("2 errors, 0 warnings"), "{text}");
}

#[test]
fn target_override_changes_the_verdict() {
    let file = "tests/corpus/nvcc/blackwell_asm_sm_100a.ptx";
    assert_eq!(ptx_lsp(&["check", file]).status.code(), Some(0));
    let output = ptx_lsp(&["check", "--target", "sm_90a", "--format", "json", file]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("unsupported-target"));
}

#[test]
fn missing_file_exits_2() {
    let output = ptx_lsp(&["check", "no/such/file.ptx"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("cannot read no/such/file.ptx"));
    // A file that was never read is not counted as checked.
    assert_eq!(
        stdout(&output),
        "0 errors, 0 warnings in 0 files; 1 path could not be read\n"
    );
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(ptx_lsp(&["check"]).status.code(), Some(2));
    let file = "tests/corpus/triton/triton_add_native.ptx";
    assert_eq!(
        ptx_lsp(&["check", "--ptx-version", "x", file])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        ptx_lsp(&["check", "--target", "sm_999", file])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn a_reader_that_leaves_early_ends_the_output_without_a_panic() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    // About 100 KB of diagnostics (a large file checked against an old version, four times):
    // more than a pipe holds, of which the reader takes a few bytes before closing the pipe,
    // as `| head` does.
    let file = "tests/corpus/nvcc/cub_algorithms_sm_90a.ptx";
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptx-lsp"))
        .args([
            "check",
            "--ptx-version",
            "6.0",
            "--format",
            "json",
            file,
            file,
            file,
            file,
        ])
        .current_dir(cli_common::root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the ptx-lsp binary runs");
    let mut head = [0u8; 64];
    let mut stdout = child.stdout.take().expect("piped");
    stdout.read_exact(&mut head).expect("some output");
    drop(stdout);
    let output = child.wait_with_output().expect("it ends");
    assert_eq!(output.status.code(), Some(1));
    assert!(!stderr(&output).contains("panicked"), "{}", stderr(&output));
}
