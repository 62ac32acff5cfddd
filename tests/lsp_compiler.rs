//! The compiler view over LSP with NVIDIA's ptxas and nvdisasm from PyPI (installed into
//! `~/.cache` by `tools/install-cuda-tool.sh`; the test fails, never skips, without them):
//! resource lenses after open and save, hovers on kernel names, ptxas's own diagnostics,
//! SASS instruction counts as inlay hints, and `ptx/sass` / `ptx/toolchain`.

#[path = "lsp_common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};

/// Asks for code lenses until one says what ptxas found (a compilation runs in the
/// background after open and save).
fn lenses_with(client: &mut LspClient, uri: &str, wanted: impl Fn(&str) -> bool) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let lenses = client.request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        );
        let titles: Vec<String> = lenses
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["command"]["title"].as_str().unwrap_or("").to_owned())
            .collect();
        if titles.iter().any(|t| wanted(t)) {
            return titles;
        }
        assert!(
            Instant::now() < deadline,
            "no such lens: {titles:?}\n{}",
            client.stderr()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn lenses_hover_sass_and_toolchain() {
    let path = corpus("nvcc/hopper_asm_sm_90a.ptx");
    let text = std::fs::read_to_string(&path).unwrap();
    let uri = format!("file://{}", path.canonicalize().unwrap().display());
    let mut client = LspClient::initialized(
        json!({"workspace": {"codeLens": {"refreshSupport": true}}}),
        json!({"compiler": {"sassCounts": true}}),
    );
    let tools = client.request("ptx/toolchain", Value::Null);
    assert!(
        tools["ptxas"]["path"].is_string() && tools["nvdisasm"]["path"].is_string(),
        "install ptxas and nvdisasm with tools/install-cuda-tool.sh: {tools}"
    );
    client.open(&uri, &text);
    let kernel = "_Z13hopper_kernelmPKfPfmmi";
    let titles = lenses_with(&mut client, &uri, |t| t.contains("registers"));
    let lens = titles.iter().find(|t| t.contains("registers")).unwrap();
    assert!(lens.contains("occupancy"), "{lens}");
    assert!(
        titles
            .iter()
            .any(|t| t.starts_with("▶ Run") || t.starts_with("Cannot run")),
        "{titles:?}"
    );

    // Hover on the kernel's name: our text, then ptxas's figures.
    let name_at = offset_of(&text, ".entry _Z13", 0) + 10;
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": position(&text, name_at)}),
    );
    let markdown = hover["contents"]["value"]
        .as_str()
        .unwrap_or_else(|| panic!("{hover}"));
    assert!(markdown.contains("**ptxas** (`sm_90a`)"), "{markdown}");
    assert!(markdown.contains("- registers per thread: "), "{markdown}");
    assert!(markdown.contains("**Occupancy** (block of "), "{markdown}");

    // The SASS of the kernel, each line with its PTX line or null.
    let sass = client.request(
        "ptx/sass",
        json!({"textDocument": {"uri": uri}, "kernel": kernel}),
    );
    let body = sass["text"].as_str().unwrap_or_else(|| panic!("{sass}"));
    assert_eq!(
        body.lines().count(),
        sass["lines"].as_array().unwrap().len()
    );
    assert!(body.contains("EXIT"), "{body}");
    assert_eq!(sass["functions"][0]["name"], kernel);
    let missing = client.request(
        "ptx/sass",
        json!({"textDocument": {"uri": uri}, "kernel": "nosuch"}),
    );
    assert!(missing["error"].as_str().unwrap().contains("nosuch"));

    // SASS counts at the ends of lines, once the disassembly is there.
    let lines = text.lines().count() as u32;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let hints = client.request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": lines, "character": 0}}}),
        );
        let sass_hints = hints
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["label"].as_str().is_some_and(|l| l.ends_with(" SASS")))
            .count();
        if sass_hints > 10 {
            break;
        }
        assert!(Instant::now() < deadline, "no SASS counts: {hints}");
        std::thread::sleep(Duration::from_millis(100));
    }

    // An edit leaves the last figures on screen, marked; a save compiles again.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": format!("{text}\n// edited\n")}]}),
    );
    lenses_with(&mut client, &uri, |t| t.ends_with("(as last saved)"));
    client.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri}}),
    );
    lenses_with(&mut client, &uri, |t| {
        t.contains("registers") && !t.ends_with("(as last saved)")
    });
    assert!(client.shutdown_and_exit().success());
}

#[test]
fn ptxas_diagnostics_are_a_second_source() {
    // ptxas warns about a `.maxnreg` over the limit; the checker does not.
    let text = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() .maxnreg 300\n{\n\tret;\n}\n";
    let uri = file_uri("maxnreg.ptx");
    let mut client = LspClient::initialized(json!({}), json!({"compiler": {"diagnostics": true}}));
    client.open(&uri, text);
    let found = client.wait_notification(Duration::from_secs(120), |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == uri.as_str()
            && m["params"]["diagnostics"]
                .as_array()
                .is_some_and(|d| d.iter().any(|d| d["source"] == "ptxas"))
    });
    let message = found.unwrap_or_else(|| panic!("no ptxas diagnostic\n{}", client.stderr()));
    let d = &message["params"]["diagnostics"][0];
    assert_eq!(d["severity"], 2, "{d}");
    assert!(d["message"].as_str().unwrap().contains("maxnreg"), "{d}");
    assert!(client.shutdown_and_exit().success());

    // Off by default: the same file shows nothing from ptxas.
    let mut client = LspClient::initialized(json!({}), Value::Null);
    client.open(&uri, text);
    let diagnostics = client.diagnostics(&uri, Some(1));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let late = client.wait_notification(Duration::from_secs(3), |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["diagnostics"]
                .as_array()
                .is_some_and(|d| !d.is_empty())
    });
    assert!(late.is_none(), "{late:?}");
    assert!(client.shutdown_and_exit().success());
}

/// In a CUDA document each asm statement gets a "SASS" lens whose command asks `ptx/sass`
/// for that statement; the view's lines link to host lines inside the statement, and a
/// statement ptxas rejects shows ptxas's error in the view instead of code.
#[test]
fn sass_of_asm_statements_in_a_cuda_document() {
    let path = corpus("../fixtures/sass/asm_statements.cu");
    let text = std::fs::read_to_string(&path).unwrap();
    let uri = format!("file://{}", path.canonicalize().unwrap().display());
    let mut client = LspClient::initialized(json!({}), json!({}));
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "cuda-cpp", "version": 1, "text": text}}),
    );
    let lenses = client.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    let lenses = lenses.as_array().unwrap_or_else(|| panic!("{lenses}"));
    let lines: Vec<u64> = lenses
        .iter()
        .map(|l| l["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [7, 19, 25], "{lenses:?}");
    let command = &lenses[0]["command"];
    // "SASS", or with the figures when the compilation after opening is done already.
    assert!(
        command["title"].as_str().unwrap().starts_with("SASS"),
        "{command}"
    );
    assert_eq!(command["command"], "ptx.showSass");
    let sass = client.request("ptx/sass", command["arguments"][0].clone());
    let body = sass["text"].as_str().unwrap_or_else(|| panic!("{sass}"));
    assert!(
        body.starts_with("// asm statement, line 8 (sm_100a)\n"),
        "{body}"
    );
    let linked: Vec<u64> = sass["lines"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    assert!(
        !linked.is_empty() && linked.iter().all(|l| (10..=11).contains(l)),
        "{sass}"
    );
    assert_eq!(sass["functions"][0]["name"], "asm statement, line 8");

    let all = client.request("ptx/sass", json!({"textDocument": {"uri": uri}}));
    let body = all["text"].as_str().unwrap_or_else(|| panic!("{all}"));
    assert_eq!(all["functions"].as_array().unwrap().len(), 3, "{all}");
    assert!(
        body.contains("// ptxas: line 20: ") && body.contains("mul.wide"),
        "{body}"
    );
    assert!(
        body.contains("// not compiled: `%4` names no operand"),
        "{body}"
    );
    // The lenses now tell what each statement became.
    let instructions: Vec<u64> = all["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["instructions"].as_u64().unwrap())
        .collect();
    assert!(instructions[0] > 0, "{all}");
    let lenses = client.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    let titles: Vec<&str> = lenses
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["command"]["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            match instructions[0] {
                1 => "SASS · 1 instruction".to_owned(),
                n => format!("SASS · {n} instructions"),
            }
            .as_str(),
            "SASS · not compiled",
            "SASS · not compiled"
        ]
    );
    assert!(client.shutdown_and_exit().success());
}
