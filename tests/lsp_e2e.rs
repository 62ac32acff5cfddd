//! End-to-end tests of the language server's features: the real `ptx-lsp`
//! binary over stdio, real corpus files, whole JSON responses checked.

#[path = "lsp_common/mod.rs"]
mod common;

use common::*;
use serde_json::{json, Value};

const HOPPER: &str = "nvcc/hopper_asm_sm_90a.ptx";

fn read(relative: &str) -> String {
    std::fs::read_to_string(corpus(relative)).expect("corpus file")
}

fn at(uri: &str, text: &str, needle: &str, nth: usize) -> Value {
    json!({"textDocument": {"uri": uri}, "position": position(text, offset_of(text, needle, nth))})
}

#[test]
fn initialize_negotiates_the_position_encoding() {
    let mut client = LspClient::spawn();
    let result = client.initialize(json!({}), Value::Null);
    assert_eq!(result["capabilities"]["positionEncoding"], "utf-16");
    assert_eq!(result["serverInfo"]["name"], "ptx-lsp");
    assert!(result["capabilities"].get("diagnosticProvider").is_none());
    assert!(client.shutdown_and_exit().success());

    let mut client = LspClient::spawn();
    let result = client.initialize(
        json!({"general": {"positionEncodings": ["utf-8", "utf-16"]},
               "textDocument": {"diagnostic": {}}}),
        Value::Null,
    );
    assert_eq!(result["capabilities"]["positionEncoding"], "utf-8");
    assert_eq!(
        result["capabilities"]["diagnosticProvider"]["identifier"],
        "ptx"
    );
    assert!(client.shutdown_and_exit().success());
}

/// The tour of a real nvcc file: diagnostics, outline, highlighting,
/// navigation, rename and formatting.
#[test]
fn features_on_a_corpus_file() {
    let text = read(HOPPER);
    let uri = file_uri("hopper.ptx");
    let mut client = LspClient::initialized(json!({}), Value::Null);
    client.open(&uri, &text);

    // Diagnostics: the same as a fresh check of the text.
    let diagnostics = client.diagnostics(&uri, Some(1));
    assert_eq!(published(&diagnostics), expected_diagnostics(&text));

    // Outline: the kernel, with its parameters, variables and labels.
    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    let kernel = &symbols[0];
    // nvcc's mangled name, shown as C++ writes it; the mangled name leads the detail.
    assert_eq!(
        kernel["name"],
        "hopper_kernel(unsigned long, float const*, float*, unsigned long, unsigned long, int)"
    );
    assert_eq!(
        kernel["detail"],
        "_Z13hopper_kernelmPKfPfmmi .visible .entry"
    );
    let children: Vec<&str> = kernel["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(children.contains(&"%r<52>"), "{children:?}");
    assert!(children.contains(&"$L__BB0_2"), "{children:?}");

    // Semantic tokens: the legend and the first tokens of `.version 9.0`.
    let tokens = client.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": uri}}),
    );
    let data: Vec<u64> = tokens["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(data.len() % 5, 0);
    assert!(data.len() > 500);
    // The first token is the comment on line 0 (`//`), length 2.
    assert_eq!(&data[..3], &[0, 0, 2]);

    // Definition of a label used by a branch.
    let definition = client.request("textDocument/definition", at(&uri, &text, "$L__BB0_2;", 0));
    let label_line = text[..offset_of(&text, "$L__BB0_2:", 0)]
        .matches('\n')
        .count();
    assert_eq!(
        definition[0]["targetSelectionRange"]["start"]["line"],
        label_line
    );
    assert_eq!(definition[0]["targetUri"], uri.as_str());

    // References of a register, with the declaration.
    let references = client.request(
        "textDocument/references",
        json!({"textDocument": {"uri": uri}, "position": position(&text, offset_of(&text, "%r1,", 0)),
               "context": {"includeDeclaration": false}}),
    );
    let lines: Vec<u64> = references
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    assert!(lines.len() >= 2, "{references}");

    // Highlight: the declaration (text), the write and the reads.
    let highlights = client.request("textDocument/documentHighlight", at(&uri, &text, "%r1,", 0));
    let kinds: Vec<u64> = highlights
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["kind"].as_u64().unwrap())
        .collect();
    assert_eq!(kinds[..3], [1, 3, 2], "{highlights}");

    // Rename a label: every use follows; the result still checks the same.
    let prepared = client.request(
        "textDocument/prepareRename",
        at(&uri, &text, "$L__BB0_2;", 0),
    );
    assert_eq!(
        prepared["start"]["line"],
        definition[0]["originSelectionRange"]["start"]["line"]
    );
    let mut params = at(&uri, &text, "$L__BB0_2;", 0);
    params["newName"] = json!("$L__done");
    let rename = client.request("textDocument/rename", params);
    let edits = rename["changes"][uri.as_str()].as_array().unwrap().clone();
    assert_eq!(edits.len(), text.matches("$L__BB0_2").count());
    let renamed = apply_edits(&text, &edits);
    assert!(!renamed.contains("$L__BB0_2") && renamed.contains("$L__done:"));
    assert_eq!(
        expected_diagnostics(&renamed).len(),
        expected_diagnostics(&text).len()
    );

    // One register of a `%r<N>` range: its uses follow and the new name is declared beside
    // the range; the result still checks the same.
    let mut params = at(&uri, &text, "%r1,", 0);
    params["newName"] = json!("%x");
    let rename = client.request("textDocument/rename", params);
    let edits = rename["changes"][uri.as_str()].as_array().unwrap().clone();
    let renamed = apply_edits(&text, &edits);
    assert!(renamed.contains("%r<52>;\n\t.reg .b32 %x;"), "{renamed}");
    assert!(!renamed.contains("%r1,") && renamed.contains("%x,"));
    assert_eq!(
        expected_diagnostics(&renamed).len(),
        expected_diagnostics(&text).len()
    );

    // A refused rename is an error response with a reason.
    let mut params = at(&uri, &text, "%r1,", 0);
    params["newName"] = json!("%r2");
    let refused = client.request_raw("textDocument/rename", params);
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already declared"),
        "{refused}"
    );

    // Formatting: applying the edits keeps every token; formatting again is a no-op.
    let options = json!({"tabSize": 4, "insertSpaces": false});
    let edits = client.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": uri}, "options": options}),
    );
    let formatted = apply_edits(&text, edits.as_array().unwrap());
    let tokens = |t: &str| -> Vec<String> {
        ptx_syntax::Parse::new(t)
            .tokens()
            .iter()
            .map(|k| t[k.range.clone()].trim().to_owned())
            .collect()
    };
    assert_eq!(tokens(&formatted), tokens(&text));
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": formatted}]}),
    );
    let again = client.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": uri}, "options": options}),
    );
    assert_eq!(again, json!([]));

    // Folding: the kernel body and the inline-assembly regions.
    let folds = client.request(
        "textDocument/foldingRange",
        json!({"textDocument": {"uri": uri}}),
    );
    assert!(folds.as_array().unwrap().len() >= 5, "{folds}");

    // Selection grows from a register to the whole file.
    let selection = client.request(
        "textDocument/selectionRange",
        json!({"textDocument": {"uri": uri}, "positions": [position(&formatted, offset_of(&formatted, "%rd2,", 0))]}),
    );
    let mut depth = 0;
    let mut node = &selection[0];
    while node.get("parent").is_some() {
        node = &node["parent"];
        depth += 1;
    }
    assert!(depth >= 4, "{selection}");

    // Workspace symbols over open files.
    let found = client.request("workspace/symbol", json!({"query": "hopper"}));
    assert!(
        found[0]["name"]
            .as_str()
            .unwrap()
            .starts_with("hopper_kernel("),
        "{found}"
    );
    // The mangled spelling finds it too.
    let found = client.request("workspace/symbol", json!({"query": "_Z13hopper"}));
    assert!(
        found[0]["name"]
            .as_str()
            .unwrap()
            .starts_with("hopper_kernel("),
        "{found}"
    );

    assert!(client.shutdown_and_exit().success());
}

#[test]
fn inlay_hints_and_register_count_request() {
    let text = read("nvcc/blackwell_asm_sm_100a.ptx");
    let uri = file_uri("blackwell.ptx");
    let mut client = LspClient::initialized(json!({}), Value::Null);
    client.open(&uri, &text);
    let whole = json!({"start": {"line": 0, "character": 0}, "end": position(&text, text.len())});
    let hints = client.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": uri}, "range": whole}),
    );
    let labels: Vec<&str> = hints
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["label"].as_str().unwrap())
        .collect();
    assert!(labels.iter().any(|l| l.ends_with("×b32")), "{labels:?}");

    let needle = "tcgen05.ld";
    let count = client.request("ptx/registerCount", at(&uri, &text, needle, 0));
    assert!(
        count["instruction"]
            .as_str()
            .unwrap()
            .starts_with("tcgen05.ld"),
        "{count}"
    );
    assert!(
        count["vectors"][0]["registers"].as_u64().unwrap() >= 1,
        "{count}"
    );
    // The document's target is judged on the form in hand.
    assert_eq!(count["target"]["name"], "sm_100a", "{count}");
    assert_eq!(count["target"]["available"], true, "{count}");
    let nothing = client.request(
        "ptx/registerCount",
        json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(nothing, Value::Null);
    assert!(client.shutdown_and_exit().success());
}

#[test]
fn code_actions_offer_the_checkers_fixes() {
    let text = ".target sm_90\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";
    let uri = file_uri("fix.ptx");
    let mut client = LspClient::initialized(json!({}), Value::Null);
    client.open(&uri, text);
    let diagnostics = client.diagnostics(&uri, Some(1));
    let missing = diagnostics
        .iter()
        .find(|d| d["code"] == "missing-version")
        .expect("missing-version");
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": missing["range"], "context": {"diagnostics": [missing]}}),
    );
    let action = &actions[0];
    assert_eq!(action["kind"], "quickfix");
    let edits = action["edit"]["changes"][uri.as_str()].as_array().unwrap();
    let fixed = apply_edits(text, edits);
    assert!(fixed.starts_with(".version"), "{fixed}");
    assert!(client.shutdown_and_exit().success());
}

#[test]
fn semantic_token_deltas_follow_edits() {
    let text = ".version 9.0\n.target sm_90\n.entry k()\n{\n\tret;\n}\n";
    let uri = file_uri("delta.ptx");
    let mut client = LspClient::initialized(json!({}), Value::Null);
    client.open(&uri, text);
    let full = client.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": uri}}),
    );
    let result_id = full["resultId"].as_str().unwrap().to_owned();
    // Insert `exit;` before `ret;`.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 4, "character": 1}, "end": {"line": 4, "character": 1}}, "text": "exit;\n\t"}]}),
    );
    let delta = client.request(
        "textDocument/semanticTokens/full/delta",
        json!({"textDocument": {"uri": uri}, "previousResultId": result_id}),
    );
    let edits = delta["edits"].as_array().expect("a delta, not full tokens");
    assert_eq!(edits.len(), 1, "{delta}");
    // The new `exit` opcode token is inserted.
    assert!(edits[0]["data"].as_array().unwrap().len() >= 5, "{delta}");
    // An unknown previous id gets full tokens.
    let full = client.request(
        "textDocument/semanticTokens/full/delta",
        json!({"textDocument": {"uri": uri}, "previousResultId": "nope"}),
    );
    assert!(full["data"].is_array());
    assert!(client.shutdown_and_exit().success());
}

#[test]
fn settings_override_target_and_disable_codes() {
    // sm_80 has no tcgen05: with the target overridden to sm_100a the file is clean.
    let text = ".version 8.7\n.target sm_80\n.address_size 64\n.entry k()\n{\n\t.reg .b32 %r<2>;\n\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r0, 32;\n\tret;\n}\n";
    let uri = file_uri("override.ptx");
    let mut client = LspClient::initialized(json!({}), json!({"ptx": {"target": "sm_100a"}}));
    client.open(&uri, text);
    let with_override = published(&client.diagnostics(&uri, Some(1)));
    assert!(
        with_override.iter().all(|d| d.4 != "unsupported-target"),
        "{with_override:?}"
    );

    client.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"ptx": {"target": ""}}}),
    );
    let without = published(&client.diagnostics(&uri, Some(1)));
    assert!(
        without.iter().any(|d| d.4 == "unsupported-target"),
        "{without:?}"
    );

    client.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"ptx": {"diagnostics": {"disabled": ["unsupported-target"]}}}}),
    );
    let disabled = published(&client.diagnostics(&uri, Some(1)));
    assert!(
        disabled.iter().all(|d| d.4 != "unsupported-target"),
        "{disabled:?}"
    );
    assert!(client.shutdown_and_exit().success());
}

#[test]
fn pull_diagnostics() {
    let text = ".version 9.0\n.target sm_90\n.address_size 64\n.entry k()\n{\n\tbogus.op;\n}\n";
    let uri = file_uri("pull.ptx");
    let mut client =
        LspClient::initialized(json!({"textDocument": {"diagnostic": {}}}), Value::Null);
    client.open(&uri, text);
    let report = client.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(report["kind"], "full");
    assert_eq!(
        published(report["items"].as_array().unwrap()),
        expected_diagnostics(text)
    );
    let again = client.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": uri}, "previousResultId": report["resultId"]}),
    );
    assert_eq!(again["kind"], "unchanged");
    assert!(client.shutdown_and_exit().success());
}

#[test]
fn hover_completion_and_signature_help() {
    let text = read(HOPPER);
    let uri = file_uri("hover.ptx");
    let mut client = LspClient::initialized(
        json!({"textDocument": {"completion": {"completionItem": {"snippetSupport": true}}}}),
        Value::Null,
    );
    client.open(&uri, &text);
    // Hover on an opcode and on a register.
    let hover = client.request("textDocument/hover", at(&uri, &text, "mbarrier.init", 0));
    assert_eq!(hover["contents"]["kind"], "markdown");
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("mbarrier"),
        "{hover}"
    );
    // A matrix instruction's hover ends with its fragment layout.
    let hover = client.request("textDocument/hover", at(&uri, &text, "ldmatrix.sync", 0));
    let value = hover["contents"]["value"].as_str().unwrap();
    let layout = &value[value.find("**Fragment layout**").expect("a layout section")..];
    assert!(
        layout.contains("matrix 3: 8×8 .b16") && layout.contains("row 7  t28 %r16.lo"),
        "{layout}"
    );
    let hover = client.request("textDocument/hover", at(&uri, &text, "%r1, %tid.x", 0));
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains(".b32"),
        "{hover}"
    );
    // Signature help inside an operand list.
    let offset = offset_of(&text, "%rd2, [", 0) + 1;
    let help = client.request(
        "textDocument/signatureHelp",
        json!({"textDocument": {"uri": uri}, "position": position(&text, offset)}),
    );
    assert!(
        help["signatures"][0]["label"]
            .as_str()
            .unwrap()
            .starts_with("ld.param"),
        "{help}"
    );
    assert!(client.shutdown_and_exit().success());
}

/// The same position gives different completions on `.target sm_80` and on
/// `sm_100a`: tensor-memory instructions exist only on the latter, so on sm_80
/// they are listed after the rest with what they need.
#[test]
fn completion_is_marked_by_target() {
    let complete = |target: &str| -> Vec<(String, String, String, u64)> {
        let text = format!(
            ".version 8.7\n.target {target}\n.address_size 64\n.entry k()\n{{\n\ttcgen05.\n}}\n"
        );
        let uri = file_uri(&format!("complete_{target}.ptx"));
        let mut client = LspClient::initialized(json!({}), Value::Null);
        client.open(&uri, &text);
        let offset = offset_of(&text, "tcgen05.", 0) + "tcgen05.".len();
        let result = client.request(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": position(&text, offset)}),
        );
        let items = result["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                // The edit replaces what is typed after the dot: nothing here.
                let edit = &i["textEdit"]["range"];
                assert_eq!(edit["start"], edit["end"], "{i}");
                (
                    i["label"].as_str().unwrap().to_owned(),
                    i["detail"].as_str().unwrap_or_default().to_owned(),
                    i["sortText"].as_str().unwrap_or_default().to_owned(),
                    i["kind"].as_u64().unwrap_or_default(),
                )
            })
            .collect();
        assert!(client.shutdown_and_exit().success());
        items
    };
    let on_blackwell = complete("sm_100a");
    let on_ampere = complete("sm_80");
    let alloc = |items: &[(String, String, String, u64)]| {
        items
            .iter()
            .find(|i| i.0 == "alloc")
            .cloned()
            .unwrap_or_else(|| panic!("{items:?}"))
    };
    let (_, detail, sort, kind) = alloc(&on_blackwell);
    assert!(!detail.starts_with("needs"), "{detail}");
    assert!(sort.as_str() < "05000", "{sort}");
    // `tcgen05.alloc` names an instruction: a keyword.
    assert_eq!(kind, 14);
    let (_, detail, sort, _) = alloc(&on_ampere);
    assert!(detail.starts_with("needs sm_100a"), "{detail}");
    assert!(sort.as_str() >= "05000", "{sort}");
}

#[test]
fn a_debug_lens_follows_each_run_lens_when_asked_for() {
    let text = "// @run threads=2\n.reg .b32 %r<4>;\nmov.u32 %r2, %tid.x;\n";
    let uri = file_uri("snippet.ptx");
    let mut client = LspClient::initialized(json!({}), json!({"run": {"debugLens": true}}));
    client.open(&uri, text);
    let lenses = client.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    let commands: Vec<(&str, &str)> = lenses
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["command"]["title"].as_str().unwrap(),
                l["command"]["command"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(commands, [("▶ Run", "ptx.run"), ("Debug", "ptx.debug")]);
    assert_eq!(
        lenses[0]["command"]["arguments"],
        lenses[1]["command"]["arguments"]
    );
}

#[test]
fn run_code_lenses_and_the_run_request() {
    let text =
        "// @run threads=2 %r1=5\n.reg .b32 %r<4>;\nmov.u32 %r2, %tid.x;\nadd.s32 %r3, %r1, %r2;\n";
    let uri = file_uri("snippet.ptx");
    let mut client = LspClient::initialized(json!({}), Value::Null);
    client.open(&uri, text);
    let lenses = client.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    let command = &lenses[0]["command"];
    assert_eq!(command["command"], "ptx.run");
    let result = client.request("ptx/run", command["arguments"][0].clone());
    assert_eq!(result["error"], Value::Null, "{result}");
    assert_eq!(result["threads"][0]["registers"]["%r3"], "0x00000005");
    assert_eq!(result["threads"][1]["registers"]["%r3"], "0x00000006");
    let last_line = &result["lines"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last_line["range"]["start"]["line"], 3, "{result}");
    assert!(
        last_line["text"]
            .as_str()
            .unwrap()
            .starts_with("%r3 = 0x00000005"),
        "{result}"
    );

    // A kernel: the lens carries its launch from the @run comment above it.
    let kernel = ".version 8.0\n.target sm_90\n.address_size 64\n// @run block=4 arg=buf:u32:0,0,0,0\n.visible .entry k(.param .u64 out)\n{\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd2, %rd2, %rd3;\n\tst.global.u32 [%rd2], %r1;\n\tret;\n}\n";
    let uri = file_uri("kernel.ptx");
    client.open(&uri, kernel);
    let lenses = client.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(lenses.as_array().unwrap().len(), 1, "{lenses}");
    assert_eq!(lenses[0]["command"]["title"], "▶ Run k");
    let result = client.request("ptx/run", lenses[0]["command"]["arguments"][0].clone());
    assert_eq!(result["error"], Value::Null, "{result}");
    assert_eq!(
        result["buffers"][0]["hex"],
        "00000000010000000200000003000000"
    );

    // A kernel the interpreter cannot run (the README's tcgen05 example): the lens says which
    // line blocks it and runs nothing.
    let tcgen05 = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/tcgen05_copy.ptx"),
    )
    .unwrap();
    let uri = file_uri("tcgen05_copy.ptx");
    client.open(&uri, &tcgen05);
    let lenses = client.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(lenses.as_array().unwrap().len(), 1, "{lenses}");
    let title = lenses[0]["command"]["title"].as_str().unwrap();
    assert!(
        title.starts_with("Cannot run: line 20: `tcgen05.fence"),
        "{title}"
    );
    assert_eq!(lenses[0]["command"]["command"], "");
    // Asked again after two comment lines were typed above the kernel (the verdict is
    // remembered by the kernel's text): the line named moves with it.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 0, "character": 0},
                                             "end": {"line": 0, "character": 0}},
                                   "text": "// one\n// two\n"}]}),
    );
    let lenses = client.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    let title = lenses[0]["command"]["title"].as_str().unwrap();
    assert!(
        title.starts_with("Cannot run: line 22: `tcgen05.fence"),
        "{title}"
    );

    // A fault is reported in the result, with its place.
    let faulty = ".reg .b64 %rd1;\n.reg .b32 %r1;\nmov.u64 %rd1, 3;\nld.global.u32 %r1, [%rd1];\n";
    let uri = file_uri("fault.ptx");
    client.open(&uri, faulty);
    let result = client.request("ptx/run", json!({"textDocument": {"uri": uri}}));
    assert!(result["error"]["message"].is_string(), "{result}");
    // ... and as a diagnostic on the faulting line, next to the checker's.
    let fault = loop {
        let diagnostics = client.diagnostics(&uri, None);
        if let Some(d) = diagnostics.iter().find(|d| d["code"] == "run-fault") {
            break d.clone();
        }
    };
    assert_eq!(fault["range"]["start"]["line"], 3, "{fault}");
    assert!(
        fault["message"].as_str().unwrap().starts_with("thread 0: "),
        "{fault}"
    );
    assert!(client.shutdown_and_exit().success());
}

#[test]
fn run_values_become_inlay_hints_until_the_next_edit() {
    let text = ".reg .b32 %r<4>;\nmov.u32 %r2, %tid.x;\nadd.s32 %r3, %r2, 40;\n";
    let uri = file_uri("hints.ptx");
    let mut client = LspClient::initialized(json!({}), Value::Null);
    client.open(&uri, text);
    let whole = json!({"start": {"line": 0, "character": 0}, "end": {"line": 3, "character": 0}});
    let hints = |client: &mut LspClient| {
        let hints = client.request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri}, "range": whole}),
        );
        hints
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                (
                    h["position"]["line"].as_u64().unwrap(),
                    h["label"].as_str().unwrap_or("").to_owned(),
                )
            })
            .filter(|(_, label)| label.starts_with('→'))
            .collect::<Vec<_>>()
    };
    assert!(hints(&mut client).is_empty());
    // Thread 1 of two: %r2 = 1, %r3 = 41.
    let result = client.request(
        "ptx/run",
        json!({"textDocument": {"uri": uri}, "threads": 2, "hintThread": 1}),
    );
    assert_eq!(result["error"], Value::Null, "{result}");
    let shown = hints(&mut client);
    assert_eq!(shown.len(), 2, "{shown:?}");
    assert_eq!(shown[0].0, 1);
    assert!(shown[0].1.starts_with("→ %r2 = 0x00000001"), "{shown:?}");
    assert!(shown[1].1.starts_with("→ %r3 = 0x00000029"), "{shown:?}");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 2, "character": 19}, "end": {"line": 2, "character": 21}},
                                   "text": "41"}]}),
    );
    assert!(
        hints(&mut client).is_empty(),
        "stale run values are dropped after an edit"
    );
    assert!(client.shutdown_and_exit().success());
}

/// A large outline and a long folding list (written by the transport from JSON serialised on
/// the worker, not through tower-lsp's value tree) arrive whole and in order.
#[test]
fn large_outline_and_folding_lists_arrive_whole() {
    let mut text = String::from(".version 8.0\n.target sm_90\n.address_size 64\n");
    for f in 0..40 {
        text.push_str(&format!(
            ".visible .entry kernel_{f}(.param .u64 p)\n{{\n.reg .b32 %r<4>;\n"
        ));
        for l in 0..60 {
            text.push_str(&format!("$L_{f}_{l}:\n\tadd.u32 %r1, %r1, {l};\n"));
        }
        text.push_str("\tret;\n}\n");
    }
    let uri = file_uri("large_outline.ptx");
    let mut client = LspClient::initialized(json!({}), Value::Null);
    client.open(&uri, &text);
    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    assert!(
        symbols.to_string().len() > 64 << 10,
        "large enough to be deferred"
    );
    let symbols = symbols.as_array().unwrap();
    assert_eq!(symbols.len(), 40);
    for (f, kernel) in symbols.iter().enumerate() {
        assert_eq!(kernel["name"], format!("kernel_{f}"));
        let children = kernel["children"].as_array().unwrap();
        // The parameter, the register range and the 60 labels.
        assert_eq!(children.len(), 62, "{kernel}");
        assert_eq!(children[61]["name"], format!("$L_{f}_59"));
    }
    // Folding: one region per kernel body at least, each a real range.
    let mut text_with_comments = text.clone();
    for i in 0..3_000 {
        text_with_comments.push_str(&format!("// note {i}\n// more\n\n"));
    }
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"text": text_with_comments}]}),
    );
    let folds = client.request(
        "textDocument/foldingRange",
        json!({"textDocument": {"uri": uri}}),
    );
    assert!(
        folds.to_string().len() > 64 << 10,
        "large enough to be deferred"
    );
    let folds = folds.as_array().unwrap();
    assert!(folds.len() >= 3_040, "{}", folds.len());
    assert!(folds.iter().all(
        |f| f["endLine"].as_u64() > f["startLine"].as_u64() && f.get("collapsedText").is_none()
    ));
    assert!(client.shutdown_and_exit().success());
}
