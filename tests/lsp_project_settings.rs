//! End-to-end: the language server applies the `ptx-lsp.toml` found above a document's file
//! (its target, version and disabled rules), under the client's own settings.

#[path = "lsp_common/mod.rs"]
mod common;

use common::*;
use serde_json::json;

/// A module with an unknown opcode and a vector of the wrong length.
const INVALID: &str = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [out];\n\tad.s32 %r1, %r2, %r3;\n\tld.global.v4.u32 {%r1, %r2}, [%rd1];\n\tret;\n}\n";

fn codes(diagnostics: &[serde_json::Value]) -> Vec<String> {
    diagnostics
        .iter()
        .map(|d| d["code"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn settings_file_above_the_document_applies() {
    let root = std::env::temp_dir().join(format!("ptx-lsp-project-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("kernels/sub")).expect("a temporary folder");
    std::fs::write(
        root.join("ptx-lsp.toml"),
        "target = \"sm_90a\"\ndisabled = [\"vector-length\"]\n",
    )
    .expect("settings");
    let blackwell =
        std::fs::read_to_string(corpus("nvcc/blackwell_asm_sm_100a.ptx")).expect("a corpus file");
    let uri = |name: &str| format!("file://{}", root.join(name).display());

    let mut client = LspClient::initialized(json!({}), json!({}));
    client.open(&uri("kernels/sub/a.ptx"), INVALID);
    let shown = codes(&client.diagnostics(&uri("kernels/sub/a.ptx"), Some(1)));
    assert_eq!(shown, ["unknown-opcode"]);
    client.open(&uri("kernels/b.ptx"), &blackwell);
    let shown = codes(&client.diagnostics(&uri("kernels/b.ptx"), Some(1)));
    assert!(
        !shown.is_empty() && shown.iter().all(|c| c == "unsupported-target"),
        "{shown:?}"
    );
    client.shutdown_and_exit();

    // The client's target wins over the file's; its disabled codes add to the file's.
    let mut client = LspClient::initialized(
        json!({}),
        json!({"target": "sm_100a", "diagnostics": {"disabled": ["unknown-opcode"]}}),
    );
    client.open(&uri("kernels/b.ptx"), &blackwell);
    assert_eq!(
        codes(&client.diagnostics(&uri("kernels/b.ptx"), Some(1))),
        Vec::<String>::new()
    );
    client.open(&uri("kernels/sub/a.ptx"), INVALID);
    assert_eq!(
        codes(&client.diagnostics(&uri("kernels/sub/a.ptx"), Some(1))),
        Vec::<String>::new()
    );
    client.shutdown_and_exit();
    let _ = std::fs::remove_dir_all(&root);
}
