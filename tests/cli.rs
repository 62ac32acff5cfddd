//! End-to-end tests of the `ptx-lsp` command line: they run the built binary
//! and check its output and exit codes against the command-line contract.

mod cli_common;

use cli_common::{ptx_lsp, stderr, stdout};
use expect_test::expect;

#[test]
fn parse_stats_of_a_clean_corpus_file() {
    let output = ptx_lsp(&[
        "parse",
        "--stats",
        "tests/corpus/triton/triton_add_native.ptx",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    expect![[r#"
        tests/corpus/triton/triton_add_native.ptx: 876 nodes, 0 ERROR, 0 MISSING
    "#]]
    .assert_eq(&stdout(&output));
}

#[test]
fn parse_stats_exit_1_on_syntax_errors() {
    let output = ptx_lsp(&["parse", "--stats", "tests/fixtures/syntax_error.ptx"]);
    assert_eq!(output.status.code(), Some(1));
    expect![[r#"
        tests/fixtures/syntax_error.ptx: 33 nodes, 1 ERROR, 0 MISSING
    "#]]
    .assert_eq(&stdout(&output));
}

#[test]
fn parse_sexp_shows_fields_and_ranges() {
    let output = ptx_lsp(&["parse", "--sexp", "tests/fixtures/syntax_error.ptx"]);
    assert_eq!(output.status.code(), Some(0));
    let sexp = stdout(&output);
    assert!(sexp.starts_with("(module [0, 0] - [8, 0]"), "{sexp}");
    assert!(
        sexp.contains("mnemonic: (identifier [5, 2] - [5, 5])"),
        "{sexp}"
    );
    assert!(sexp.contains("(ERROR [5, 19] - [5, 22]"), "{sexp}");
}

#[test]
fn missing_file_is_an_io_error() {
    let output = ptx_lsp(&["parse", "--stats", "no/such/file.ptx"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("cannot read no/such/file.ptx"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn bad_usage_exits_2() {
    assert_eq!(ptx_lsp(&["parse"]).status.code(), Some(2));
    assert_eq!(ptx_lsp(&["no-such-command"]).status.code(), Some(2));
}

#[test]
fn regs_json() {
    let output = ptx_lsp(&[
        "regs",
        "--format",
        "json",
        "tcgen05.ld.sync.aligned.16x128b.x4.b32",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    expect![[r#"
        {
          "instruction": "tcgen05.ld.sync.aligned.16x128b.x4.b32",
          "vectors": [
            {
              "operand": 0,
              "registers": 8,
              "register_bits": 32,
              "explanation": "16x128b = 2 registers per repeat × x4 = 8",
              "role": "r"
            }
          ]
        }
    "#]]
    .assert_eq(&stdout(&output));
}

#[test]
fn regs_human_with_operands() {
    let output = ptx_lsp(&[
        "regs",
        "wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r1}, [%rd1], 16;",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    expect![[r#"
        wmma.load.a.sync.aligned.row.m16n16k16.f16
          operand 1: 8 × 32-bit registers (wmma .m16n16k16 .f16 A fragment = 8 registers of 32 bits, 2 elements each)
    "#]]
    .assert_eq(&stdout(&output));
}

#[test]
fn regs_impossible_combination_is_an_error() {
    let output = ptx_lsp(&["regs", "tcgen05.ld.sync.aligned.16x256b.x128.b32"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("NA in the table"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn regs_checks_the_target() {
    let output = ptx_lsp(&[
        "regs",
        "--target",
        "sm_90a",
        "tcgen05.ld.sync.aligned.32x32b.x2.b32",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("not available on sm_90a"),
        "{}",
        stderr(&output)
    );
    let output = ptx_lsp(&[
        "regs",
        "--target",
        "sm_100a",
        "tcgen05.ld.sync.aligned.32x32b.x2.b32",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn regs_judges_the_form_in_hand_and_says_it_in_words() {
    // Other `.m16n8k16` forms need newer targets; this one does not (ptxas 13.5 agrees).
    let bf16 = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32";
    let output = ptx_lsp(&["regs", "--target", "sm_80", bf16]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let output = ptx_lsp(&["regs", "--target", "sm_75", bf16]);
    assert_eq!(output.status.code(), Some(1));
    let message = stderr(&output);
    assert!(
        message.contains("is not available on sm_75: it needs sm_80 or newer and PTX 7.0"),
        "{message}"
    );
    assert!(
        !message.contains('+') && !message.contains('&'),
        "{message}"
    );
    let wide = "ld.global.nc.v8.f32";
    let output = ptx_lsp(&["regs", "--target", "sm_90a", wide]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("needs sm_100 or newer"),
        "{}",
        stderr(&output)
    );
}
