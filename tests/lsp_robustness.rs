//! End-to-end robustness tests of the language server: malformed messages,
//! unknown methods, a panicking handler, random edit bursts, huge files and
//! the shutdown/exit protocol.

#[path = "lsp_common/mod.rs"]
mod common;

use common::*;
use serde_json::{json, Value};

#[test]
fn malformed_messages_and_unknown_methods_do_not_kill_the_server() {
    let mut client = LspClient::initialized(json!({}), Value::Null);
    // Invalid JSON in a well-formed frame: a parse error with a null id.
    client.send_raw(b"Content-Length: 9\r\n\r\n{not json");
    let error = client.response(&Value::Null);
    assert_eq!(error["error"]["code"], -32700, "{error}");
    // Valid JSON that is not a JSON-RPC message.
    client.send_raw(b"Content-Length: 2\r\n\r\n[]");
    let error = client.response(&Value::Null);
    assert!(error["error"]["code"].as_i64().unwrap() < 0, "{error}");
    // A header without a length is skipped; the next message is read.
    client.send_raw(b"this is not a header\r\n\r\n");
    // An unknown request: MethodNotFound.
    let unknown = client.request_raw("ptx/noSuchThing", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    // An unknown notification is ignored.
    client.notify("ptx/noSuchNotification", json!({"x": 1}));
    // A request about a document that is not open is an error, not a crash.
    let closed = client.request_raw(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": "file:///nowhere.ptx"}}),
    );
    assert!(closed["error"]["message"]
        .as_str()
        .unwrap()
        .contains("not open"));
    // A request with parameters of the wrong shape.
    let wrong = client.request_raw("textDocument/hover", json!({"textDocument": 5}));
    assert!(wrong.get("error").is_some(), "{wrong}");
    // Still serving.
    let uri = file_uri("alive.ptx");
    client.open(&uri, ".version 9.0\n.target sm_90\n.address_size 64\n");
    assert_eq!(client.diagnostics(&uri, Some(1)), Vec::<Value>::new());
    assert!(client.shutdown_and_exit().success());
}

#[test]
fn a_panicking_handler_is_caught_and_the_server_keeps_serving() {
    let mut client = LspClient::spawn_with_env(&[("PTX_LSP_TEST_REQUESTS", "1")]);
    client.initialize(json!({}), Value::Null);
    let response = client.request_raw("ptx/internal/panic", json!({}));
    assert_eq!(response["error"]["code"], -32603, "{response}");
    assert!(response["error"]["message"]
        .as_str()
        .unwrap()
        .contains("deliberate panic"));
    let uri = file_uri("after_panic.ptx");
    client.open(
        &uri,
        ".version 9.0\n.target sm_90\n.address_size 64\n.entry k() { ret; }\n",
    );
    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(symbols[0]["name"], "k");
    assert!(client.stderr().contains("panicked"), "{}", client.stderr());
    assert!(client.shutdown_and_exit().success());
    // Without the environment variable the test request does not exist.
    let mut client = LspClient::initialized(json!({}), Value::Null);
    let response = client.request_raw("ptx/internal/panic", json!({}));
    assert_eq!(response["error"]["code"], -32601);
}

/// A small deterministic generator (xorshift), so that failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Random edits: insertions of PTX fragments (some non-ASCII), deletions
/// and replacements, sent in bursts of several `didChange` notifications
/// without waiting. After each burst the diagnostics published for the last
/// version equal a fresh check of the same text, and published versions
/// never go backwards.
#[test]
fn random_edit_bursts_end_with_the_diagnostics_of_a_fresh_check() {
    const FRAGMENTS: &[&str] = &[
        "x",
        ";",
        "\n",
        " ",
        "%r1",
        ".u32",
        "add.s32 %r1, %r2, 1;\n",
        "{",
        "}",
        "// é 𝄞\n",
        "ld.global.v4.f32 {%f1, %f2}, [%rd1];",
        "bra $L__BB0_2;",
        "@%p1 ",
        "ret;\n",
        "..",
    ];
    let mut text = std::fs::read_to_string(corpus("nvcc/hopper_asm_sm_90a.ptx")).unwrap();
    let uri = file_uri("bursts.ptx");
    let mut client = LspClient::initialized(json!({}), Value::Null);
    client.open(&uri, &text);
    client.diagnostics(&uri, Some(1));
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut version = 1;
    for _burst in 0..12 {
        for _ in 0..1 + rng.below(15) {
            // Pick a range on char boundaries.
            let mut start = rng.below(text.len() + 1);
            while !text.is_char_boundary(start) {
                start -= 1;
            }
            let mut end = (start + rng.below(12)).min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            let insert = if rng.below(3) == 0 {
                String::new()
            } else {
                FRAGMENTS[rng.below(FRAGMENTS.len())].to_owned()
            };
            let range = json!({"start": position(&text, start), "end": position(&text, end)});
            text.replace_range(start..end, &insert);
            version += 1;
            client.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": version},
                       "contentChanges": [{"range": range, "text": insert}]}),
            );
        }
        let diagnostics = client.diagnostics(&uri, Some(version));
        assert_eq!(
            published(&diagnostics),
            expected_diagnostics(&text),
            "after version {version}, text:\n{text}"
        );
        // The server's own text equals ours: formatting sees the same tokens.
        let symbols = client.request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        );
        assert!(symbols.is_array());
    }
    // Every diagnostics notification left in the queue is for an older
    // version than the last one checked (they were superseded), never newer.
    for message in &client.notifications {
        if message["method"] == "textDocument/publishDiagnostics" {
            assert!(message["params"]["version"].as_i64().unwrap() <= version);
        }
    }
    assert!(client.shutdown_and_exit().success());
}

#[test]
fn a_huge_file_is_synced_but_not_analysed() {
    // 40 MiB of comment lines: above the analysis limit.
    let line = "// padding padding padding padding padding padding padding padding\n";
    let text = line.repeat(40 * 1024 * 1024 / line.len());
    let uri = file_uri("huge.ptx");
    let mut client = LspClient::initialized(json!({}), Value::Null);
    client.open(&uri, &text);
    let diagnostics = client.diagnostics(&uri, Some(1));
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0]["code"], "file-too-large");
    let tokens = client.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(tokens["data"], json!([]));
    assert!(client.shutdown_and_exit().success());
}

#[test]
fn exit_codes_follow_the_spec() {
    // exit after shutdown: 0 (checked by every other test); exit without: 1.
    let mut client = LspClient::initialized(json!({}), Value::Null);
    client.notify("exit", Value::Null);
    assert_eq!(client.wait_for_exit().code(), Some(1));
    // Closing stdin ends the server too.
    let mut client = LspClient::initialized(json!({}), Value::Null);
    client.close_stdin();
    assert!(client.wait_for_exit().code().is_some());
    // Requests after shutdown are refused.
    let mut client = LspClient::initialized(json!({}), Value::Null);
    client.request("shutdown", Value::Null);
    let refused = client.request_raw(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": "file:///x.ptx"}}),
    );
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    client.notify("exit", Value::Null);
    assert_eq!(client.wait_for_exit().code(), Some(0));
}

#[test]
fn serve_subcommand_is_the_same_server() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_ptx-lsp"))
        .arg("serve")
        .arg("--help")
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stdout).contains("Language Server Protocol"));
}
