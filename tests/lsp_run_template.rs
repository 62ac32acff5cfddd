//! Kernels without a `// @run` comment: the Run lens launches them with arguments typed by
//! their use of each parameter, a code action writes that `// @run` line, and `ptx/run`
//! shows typed buffers as numbers.

#[path = "lsp_common/mod.rs"]
mod common;

use common::*;
use serde_json::{json, Value};

const KERNEL: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
.visible .entry k(.param .u64 out, .param .u32 n)\n{\n\
\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<5>;\n\t.reg .pred %p;\n\
\tld.param.u64 %rd1, [out];\n\tld.param.u32 %r2, [n];\n\
\tmov.u32 %r1, %tid.x;\n\tsetp.ge.u32 %p, %r1, %r2;\n\t@%p bra DONE;\n\
\tcvta.to.global.u64 %rd2, %rd1;\n\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd2, %rd3;\n\
\tst.global.u32 [%rd4], %r1;\nDONE:\n\tret;\n}\n";

#[test]
fn generated_launch_code_action_and_typed_buffers() {
    let uri = file_uri("template.ptx");
    let mut client = LspClient::initialized(json!({}), Value::Null);
    client.open(&uri, KERNEL);
    client.diagnostics(&uri, Some(1));
    let lenses = client.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    let run = lenses
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["command"]["command"] == "ptx.run")
        .unwrap_or_else(|| panic!("no Run lens: {lenses}"))
        .clone();
    let params = run["command"]["arguments"][0].clone();
    assert_eq!(
        params["args"],
        json!(["buf:u32:0*32", "u32:32"]),
        "{params}"
    );
    assert_eq!(params["block"], json!([32, 1, 1]), "{params}");

    // The code action on the kernel's line writes the same launch above it.
    let entry_line = KERNEL.lines().position(|l| l.contains(".entry")).unwrap() as u64;
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri},
               "range": {"start": {"line": entry_line, "character": 20}, "end": {"line": entry_line, "character": 20}},
               "context": {"diagnostics": []}}),
    );
    let action = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "Add a `// @run` line for k")
        .unwrap_or_else(|| panic!("{actions}"));
    let edits = action["edit"]["changes"][uri.as_str()].as_array().unwrap();
    let fixed = apply_edits(KERNEL, edits);
    assert!(
        fixed.contains("// @run grid=1 block=32 arg=buf:u32:0*32 arg=u32:32\n.visible .entry k("),
        "{fixed}"
    );

    // Run it: the buffer comes back as numbers too.
    let result = client.request("ptx/run", params);
    let buffer = &result["buffers"][0];
    assert_eq!(buffer["type"], "u32", "{result}");
    let values: Vec<&str> = buffer["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(values.len(), 32);
    assert_eq!(values[31], "31");
    assert!(client.shutdown_and_exit().success());
}
