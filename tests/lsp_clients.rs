//! End-to-end tests that drive the server the way real LSP clients do, with
//! their quirks: Emacs Eglot (jsonrpc.el) and IntelliJ's lsp4ij (lsp4j) send
//! `"params": null` on `shutdown` and `exit`, lsp4j numbers its requests
//! with string ids, and Eglot announces its settings with
//! `workspace/didChangeConfiguration` and cancels requests it no longer needs.
//! Many clients start servers with `--stdio` (vscode-languageclient's stdio
//! transport, editor templates).

#[path = "lsp_common/mod.rs"]
mod common;

use common::*;
use serde_json::{json, Value};

const KERNEL: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry k(.param .u64 p)\n{\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd0, [p];\n\tld.global.v2.u64 {%rd0, %rd1}, [%rd0];\n\tret;\n}\n";

/// Sends a request with an explicit id and `params` exactly as given (a
/// `null` is sent as `null`), and returns the whole response.
fn request_as_sent(client: &mut LspClient, id: Value, method: &str, params: Value) -> Value {
    client.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
    client.response(&id)
}

fn notify_as_sent(client: &mut LspClient, method: &str, params: Value) {
    client.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
}

/// The session of an Eglot user: initialize, initialized `{}`, settings,
/// open, hover, a cancelled request, then `shutdown` and `exit` with
/// `"params": null`; the server must end with status 0.
#[test]
fn eglot_session_with_null_params_ends_with_status_0() {
    let mut client = LspClient::spawn();
    let init = request_as_sent(
        &mut client,
        json!(1),
        "initialize",
        json!({"processId": std::process::id(), "clientInfo": {"name": "Eglot", "version": "1.17"},
               "rootPath": "/work/", "rootUri": "file:///work", "initializationOptions": {},
               "capabilities": {"workspace": {"configuration": true},
                                "textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]}}},
               "workspaceFolders": [{"uri": "file:///work", "name": "/work/"}]}),
    );
    assert!(
        init["result"]["capabilities"]["hoverProvider"] != Value::Null,
        "{init}"
    );
    notify_as_sent(&mut client, "initialized", json!({}));
    notify_as_sent(
        &mut client,
        "workspace/didChangeConfiguration",
        json!({"settings": {}}),
    );
    let uri = file_uri("eglot.ptx");
    client.open(&uri, KERNEL);
    assert_eq!(client.diagnostics(&uri, Some(1)), Vec::<Value>::new());
    let hover = request_as_sent(
        &mut client,
        json!(2),
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": position(KERNEL, offset_of(KERNEL, ".global", 0) + 2)}),
    );
    assert!(
        hover["result"]["contents"]["value"]
            .as_str()
            .is_some_and(|text| text.contains("global")),
        "{hover}"
    );
    // Eglot cancels completions it no longer needs, sometimes after the
    // answer came: an unknown id is ignored.
    notify_as_sent(&mut client, "$/cancelRequest", json!({"id": 99}));
    let shutdown = request_as_sent(&mut client, json!(3), "shutdown", Value::Null);
    assert_eq!(
        shutdown,
        json!({"jsonrpc": "2.0", "id": 3, "result": null}),
        "{shutdown}"
    );
    notify_as_sent(&mut client, "exit", Value::Null);
    assert_eq!(client.wait_for_exit().code(), Some(0));
}

/// lsp4ij (lsp4j): string ids, `initialized` with `{}`, `$/setTrace`, and
/// `shutdown`/`exit` with `"params": null`.
#[test]
fn lsp4ij_session_with_string_ids_and_null_params_ends_with_status_0() {
    let mut client = LspClient::spawn();
    let init = request_as_sent(
        &mut client,
        json!("1"),
        "initialize",
        json!({"processId": null, "rootUri": "file:///work", "clientInfo": {"name": "lsp4ij"},
               "capabilities": {"textDocument": {"completion": {"completionItem": {"snippetSupport": true}}}},
               "trace": "off"}),
    );
    assert!(init.get("result").is_some(), "{init}");
    notify_as_sent(&mut client, "initialized", json!({}));
    notify_as_sent(&mut client, "$/setTrace", json!({"value": "off"}));
    let uri = file_uri("lsp4ij.ptx");
    client.open(&uri, KERNEL);
    client.diagnostics(&uri, Some(1));
    let at = offset_of(KERNEL, "ld.global.", 0) + "ld.global.".len();
    let completion = request_as_sent(
        &mut client,
        json!("2"),
        "textDocument/completion",
        json!({"textDocument": {"uri": uri}, "position": position(KERNEL, at)}),
    );
    let result = &completion["result"];
    let items = result
        .get("items")
        .unwrap_or(result)
        .as_array()
        .unwrap_or_else(|| panic!("{completion}"));
    assert!(!items.is_empty(), "{completion}");
    // IntelliJ reports saves and file-system changes, and closes documents.
    notify_as_sent(
        &mut client,
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri}, "text": KERNEL}),
    );
    notify_as_sent(
        &mut client,
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": file_uri("other.ptx"), "type": 2}]}),
    );
    notify_as_sent(
        &mut client,
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri}}),
    );
    let shutdown = request_as_sent(&mut client, json!("3"), "shutdown", Value::Null);
    assert_eq!(shutdown["result"], Value::Null, "{shutdown}");
    assert!(shutdown.get("error").is_none(), "{shutdown}");
    notify_as_sent(&mut client, "exit", Value::Null);
    assert_eq!(client.wait_for_exit().code(), Some(0));
}

/// `"params": null` on every method of the protocol that takes none, and the
/// exit status without a `shutdown` (1), also when `exit` carries `null`.
#[test]
fn null_params_on_parameterless_methods_and_exit_status() {
    let mut client = LspClient::spawn();
    request_as_sent(
        &mut client,
        json!(1),
        "initialize",
        json!({"capabilities": {}}),
    );
    // `initialized` is a notification whose params are an empty object; some
    // clients send null.
    notify_as_sent(&mut client, "initialized", Value::Null);
    let uri = file_uri("null.ptx");
    client.open(&uri, KERNEL);
    assert_eq!(client.diagnostics(&uri, Some(1)), Vec::<Value>::new());
    // A method that needs params still says so, and the server keeps serving.
    let missing = request_as_sent(&mut client, json!(2), "textDocument/hover", Value::Null);
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    let symbols = request_as_sent(
        &mut client,
        json!(3),
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    assert!(symbols["result"].is_array(), "{symbols}");
    notify_as_sent(&mut client, "exit", Value::Null);
    assert_eq!(client.wait_for_exit().code(), Some(1));
}

/// `ptx-lsp --stdio` and `ptx-lsp serve --stdio` are the same server.
#[test]
fn the_stdio_flag_is_accepted() {
    for args in [&["--stdio"][..], &["serve", "--stdio"][..]] {
        let mut client = LspClient::spawn_with(args, &[]);
        client.initialize(json!({}), Value::Null);
        let uri = file_uri("stdio.ptx");
        client.open(&uri, KERNEL);
        assert_eq!(
            client.diagnostics(&uri, Some(1)),
            Vec::<Value>::new(),
            "{args:?}"
        );
        assert_eq!(client.shutdown_and_exit().code(), Some(0), "{args:?}");
    }
}
