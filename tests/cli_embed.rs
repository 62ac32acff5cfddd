//! `ptx-lsp check` and `ptx-lsp hover` on a CUDA file: the asm statements are checked and
//! every position refers to the host file (1-based lines, character columns).

mod cli_common;

use cli_common::{ptx_lsp, stderr, stdout};

const KERNEL: &str = "tests/fixtures/cuda/kernel.cu";

#[test]
fn check_reports_in_host_coordinates() {
    let output = ptx_lsp(&["check", "--format", "json", KERNEL]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("JSON output");
    let shown: Vec<String> = json
        .as_array()
        .expect("an array")
        .iter()
        .map(|d| {
            format!(
                "{}:{}-{}:{} {} {}",
                d["line"], d["column"], d["end_line"], d["end_column"], d["severity"], d["code"]
            )
        })
        .collect();
    expect_test::expect![[r#"
        [
            "11:58-11:59 \"error\" \"undeclared-name\"",
            "15:31-15:33 \"error\" \"asm-constraint-width\"",
            "24:24-24:26 \"error\" \"asm-operand-number\"",
        ]
    "#]]
    .assert_debug_eq(&shown);
}

#[test]
fn target_makes_availability_an_error() {
    // The wgmma statement sits under `#if __CUDA_ARCH__ >= 900`: nvcc never compiles it for
    // sm_80, so that target says nothing about it (the unguarded `mbarrier.try_wait` is an
    // error there) ...
    let output = ptx_lsp(&["check", "--target", "sm_80", KERNEL]);
    let text = stdout(&output);
    assert!(!text.contains("`wgmma.fence` needs"), "{text}");
    // ... while sm_90 meets the guard and lacks the sm_90a-only instruction.
    let output = ptx_lsp(&["check", "--target", "sm_90", KERNEL]);
    let text = stdout(&output);
    assert!(
        text.contains("error[unsupported-target]: `wgmma.fence` needs .target sm_90a"),
        "{text}"
    );
    assert!(
        text.contains("--> tests/fixtures/cuda/kernel.cu:19:41"),
        "{text}"
    );
}

#[test]
fn hover_on_a_placeholder() {
    let output = ptx_lsp(&["hover", KERNEL, "6:26"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "**`%0`**: asm operand 0 — `\"=r\"(lane)`: output, 32-bit register (`.b32`)\n"
    );
    // Outside asm templates there is nothing to hover.
    let output = ptx_lsp(&["hover", KERNEL, "5:5"]);
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn files_with_other_extensions_are_read_by_their_text() {
    // `.impl`: C++ with asm statements, so CUDA C++ (not a hundred PTX syntax errors).
    let output = ptx_lsp(&[
        "check",
        "--format",
        "json",
        "tests/fixtures/cuda/wrappers.impl",
    ]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("JSON output");
    let shown: Vec<String> = json
        .as_array()
        .expect("an array")
        .iter()
        .map(|d| {
            format!(
                "{}:{} {} {}",
                d["line"], d["column"], d["severity"], d["code"]
            )
        })
        .collect();
    expect_test::expect![[r#"
        [
            "6:33 \"error\" \"asm-operand-number\"",
        ]
    "#]]
    .assert_debug_eq(&shown);
}
