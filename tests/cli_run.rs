//! End-to-end tests of `ptx-lsp run`: they run the built binary and hold it to the
//! command-line contract (snippet and kernel modes, JSON shape, exit codes, faults that
//! name the line and thread).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn ptx_lsp(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptx-lsp"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the ptx-lsp binary runs");
    if let Some(text) = stdin {
        let _ = child
            .stdin
            .take()
            .expect("stdin")
            .write_all(text.as_bytes());
    }
    drop(child.stdin.take());
    child
        .wait_with_output()
        .expect("the ptx-lsp binary finishes")
}

/// Writes `text` to a fresh temporary file and returns its path.
fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptx-lsp-cli-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("temp file");
    path
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

const SNIPPET: &str = "\
.reg .b32 %r<3>;
.reg .f32 %f<2>;
.reg .pred %p0;
.reg .b64 %rd0;
.reg .b16 %h0;
mov.u32 %r1, %tid.x;
add.s32 %r2, %r1, %r0;
mul.rn.f32 %f1, %f0, 0f40000000;
setp.gt.u32 %p0, %r1, 0;
mov.b64 %rd0, -1;
mov.b16 %h0, 0x3c00;
";

#[test]
fn snippet_json_has_every_register_with_its_width() {
    let path = temp_file("snippet.ptx", SNIPPET);
    let output = ptx_lsp(
        &[
            "run",
            "--threads",
            "2",
            "--set",
            "%r0=5",
            "--set",
            "%f0=1.5",
            "--format",
            "json",
            path.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("JSON output");
    let threads = json["threads"].as_array().expect("threads");
    assert_eq!(threads.len(), 2);
    assert_eq!(threads[1]["tid"], 1);
    let regs = &threads[1]["registers"];
    assert_eq!(regs["%r0"], "0x00000005");
    assert_eq!(regs["%r2"], "0x00000006");
    assert_eq!(regs["%f1"], "0x40400000");
    assert_eq!(regs["%p0"], "1");
    assert_eq!(threads[0]["registers"]["%p0"], "0");
    assert_eq!(regs["%rd0"], "0xffffffffffffffff");
    assert_eq!(regs["%h0"], "0x3c00");
    assert_eq!(json["steps"], 6);
    assert!(json.get("buffers").is_none());
}

#[test]
fn snippet_from_stdin_in_human_form() {
    let output = ptx_lsp(&["run", "--set", "%f0=0x3f800000", "-"], Some(SNIPPET));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("thread 0:"), "{text}");
    assert!(text.contains("%f1  = 0x40000000  (2.0)"), "{text}");
    assert!(text.contains("steps: 6"), "{text}");
}

#[test]
fn kernel_mode_returns_buffers() {
    let values: Vec<String> = (1..=256).map(|v| v.to_string()).collect();
    let input = format!("buf:u32:{}", values.join(","));
    let output = ptx_lsp(
        &[
            "run",
            "tests/interp/kernels/reduce.ptx",
            "--entry",
            "reduce_sum",
            "--grid",
            "2",
            "--block",
            "128,1,1",
            "--arg",
            &input,
            "--arg",
            "zeros:8",
            "--arg",
            "u32:256",
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("JSON output");
    let buffers = json["buffers"].as_array().expect("buffers");
    assert_eq!(buffers.len(), 2);
    assert_eq!(buffers[1]["arg"], 1);
    // Sums of 1..=128 and 129..=256, little-endian.
    let first: u32 = (1..=128).sum();
    let second: u32 = (129..=256).sum();
    let expected: String = first
        .to_le_bytes()
        .iter()
        .chain(second.to_le_bytes().iter())
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(buffers[1]["hex"], expected.as_str());
    assert_eq!(json["threads"].as_array().map(Vec::len), Some(128));
}

#[test]
fn fault_exits_1_naming_line_and_thread() {
    let path = temp_file(
        "fault.ptx",
        ".reg .b32 %r<2>;\n.shared .b32 s[4];\nmov.u32 %r0, %tid.x;\nshl.b32 %r1, %r0, 3;\nld.shared.u32 %r1, [%r1+2];\n",
    );
    let output = ptx_lsp(&["run", "--threads", "4", path.to_str().unwrap()], None);
    assert_eq!(output.status.code(), Some(1));
    let message = stderr(&output);
    assert!(message.contains("fault.ptx:5:1"), "{message}");
    assert!(message.contains("thread 0"), "{message}");
    assert!(message.contains("misaligned"), "{message}");
}

#[test]
fn step_limit_is_a_fault() {
    let output = ptx_lsp(
        &["run", "--max-steps", "100", "-"],
        Some("LOOP:\nbra LOOP;\n"),
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("step limit"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn usage_errors_exit_2() {
    let path = temp_file("usage.ptx", SNIPPET);
    let path = path.to_str().unwrap();
    for args in [
        vec!["run", "--set", "%nope=1", path],
        vec!["run", "--set", "%r0", path],
        vec!["run", "--set", "%r0=1.5", path],
        vec!["run", "--threads", "0", path],
        vec!["run", "tests/interp/kernels/reduce.ptx"],
        vec![
            "run",
            "tests/interp/kernels/reduce.ptx",
            "--entry",
            "reduce_sum",
            "--arg",
            "u32:1",
        ],
        vec!["run", "tests/interp/kernels/reduce.ptx", "--entry", "nope"],
        vec![
            "run",
            "tests/interp/kernels/reduce.ptx",
            "--entry",
            "reduce_sum",
            "--grid",
            "0",
        ],
        vec![
            "run",
            "tests/interp/kernels/reduce.ptx",
            "--entry",
            "reduce_sum",
            "--arg",
            "buf:q8:1",
        ],
        vec!["run", "/nonexistent/file.ptx"],
    ] {
        let output = ptx_lsp(&args, None);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn dynamic_smem_sizes_the_extern_shared_array() {
    let run = |smem: &str| {
        ptx_lsp(
            &[
                "run",
                "tests/interp/kernels/constructs.ptx",
                "--entry",
                "dynamic_shared",
                "--block",
                "32",
                "--dynamic-smem",
                smem,
                "--arg",
                "zeros:128",
                "--format",
                "json",
            ],
            None,
        )
    };
    let output = run("128");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("JSON");
    // Thread 0 reads what thread 31 stored (31 * 3 + 1) plus %dynamic_smem_size.
    assert_eq!(
        json["buffers"][0]["hex"].as_str().map(|h| &h[..8]),
        Some("de000000")
    );
    let output = run("64");
    assert_eq!(output.status.code(), Some(1));
    let message = stderr(&output);
    assert!(message.contains("`dynamic_area`"), "{message}");
    assert!(message.contains("offset 64"), "{message}");
    let output = run("300000");
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
}

#[test]
fn cluster_launches_ctas_that_share_memory() {
    // In clusters of four, each CTA reads rank 0's word through mapa.
    let text = ".version 8.4\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n.shared .align 4 .b32 w;\nmov.u32 %r0, %cluster_ctarank;\nmov.u32 %r1, w;\nadd.u32 %r2, %r0, 10;\nst.shared.u32 [%r1], %r2;\nbarrier.cluster.arrive;\nbarrier.cluster.wait;\nmapa.shared::cluster.u32 %r3, %r1, 0;\nld.shared::cluster.u32 %r4, [%r3];\nadd.u32 %r4, %r4, %r0;\nbarrier.cluster.arrive;\nbarrier.cluster.wait;\nmov.u32 %r5, %ctaid.x;\nld.param.u64 %rd0, [out];\nmul.wide.u32 %rd1, %r5, 4;\nadd.u64 %rd0, %rd0, %rd1;\nst.global.u32 [%rd0], %r4;\nret;\n}\n";
    let path = temp_file("cluster.ptx", text);
    let file = path.to_str().expect("path");
    let run = |cluster: &str| {
        ptx_lsp(
            &[
                "run",
                file,
                "--entry",
                "k",
                "--grid",
                "8",
                "--block",
                "32",
                "--cluster",
                cluster,
                "--arg",
                "zeros:32",
                "--format",
                "json",
            ],
            None,
        )
    };
    let output = run("4");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("JSON");
    assert_eq!(
        json["buffers"][0]["hex"].as_str(),
        Some("0a0000000b0000000c0000000d0000000a0000000b0000000c0000000d000000")
    );
    let output = run("3");
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message
            .trim()
            .ends_with(": --grid 8,1,1: each dimension must be a multiple of the cluster's 3,1,1"),
        "{message}"
    );
}
