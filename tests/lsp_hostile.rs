//! Hostile inputs and request patterns against the real binary: nesting a
//! million levels deep, runs that never end (cancelled, closed, timed out,
//! four at once), a slow reparse, and broken framing. None may kill the server
//! or leave it deaf.

#[path = "lsp_common/mod.rs"]
mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};

const HEADER: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

fn nested_blocks(levels: usize) -> String {
    format!(
        "{HEADER}.entry k()\n{{\n{}ret;\n{}}}\n",
        "{\n".repeat(levels),
        "}\n".repeat(levels)
    )
}

fn write_temp(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ptx-lsp-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn cli(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_ptx-lsp"))
        .args(args)
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_million_levels_of_nesting_are_reported_by_the_cli_not_walked() {
    let shapes = [
        ("blocks.ptx", nested_blocks(1_000_000)),
        (
            "parens.ptx",
            format!(
                "{HEADER}.global .u32 x = {}1{};\n",
                "(".repeat(1_000_000),
                ")".repeat(1_000_000)
            ),
        ),
        (
            "operators.ptx",
            format!("{HEADER}.global .u32 x = {}1;\n", "1+".repeat(1_000_000)),
        ),
        (
            "initializer.ptx",
            format!(
                "{HEADER}.global .u32 x[1] = {}1{};\n",
                "{".repeat(1_000_000),
                "}".repeat(1_000_000)
            ),
        ),
    ];
    for (name, text) in shapes {
        let path = write_temp(name, &text);
        let path = path.to_str().unwrap();
        let (code, stdout, stderr) = cli(&["check", "--format", "json", path]);
        assert_eq!(code, 1, "{name}: {stderr}");
        let diagnostics: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(diagnostics[0]["code"], "nesting-too-deep", "{name}");
        assert_eq!(diagnostics.as_array().unwrap().len(), 1, "{name}");
        if name == "blocks.ptx" {
            let (code, _, stderr) = cli(&["hover", path, "6:1"]);
            assert_eq!(code, 1, "{name}: {stderr}");
            assert!(stderr.contains("nests more than 1000 levels"), "{stderr}");
            let (code, stdout, stderr) = cli(&["run", path]);
            assert_eq!(code, 1, "{name}: {stdout} {stderr}");
            assert!(stderr.contains("nests more than 1000 levels"), "{stderr}");
            let (code, stdout, stderr) = cli(&["parse", "--stats", path]);
            assert_eq!(code, 0, "{name}: {stderr}");
            assert!(stdout.contains("nodes"), "{stdout}");
        }
    }
    // Just inside the limit, the file is checked as usual (stacks are sized for it).
    let path = write_temp("ok.ptx", &nested_blocks(990));
    let (code, stdout, stderr) = cli(&["check", "--format", "json", path.to_str().unwrap()]);
    assert_eq!((code, stdout.trim()), (0, "[]"), "{stderr}");
}

#[test]
fn a_million_nested_blocks_on_did_open_leave_the_server_serving() {
    let mut client = LspClient::initialized(json!({}), Value::Null);
    let uri = file_uri("deep.ptx");
    client.open(&uri, &nested_blocks(1_000_000));
    let diagnostics = client.diagnostics(&uri, Some(1));
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "nesting-too-deep");
    let document = json!({"textDocument": {"uri": uri}});
    let at = json!({"textDocument": {"uri": uri}, "position": {"line": 500_000, "character": 0}});
    for (method, params) in [
        ("textDocument/hover", at.clone()),
        ("textDocument/completion", at.clone()),
        ("textDocument/definition", at.clone()),
        ("textDocument/documentSymbol", document.clone()),
        ("textDocument/foldingRange", document.clone()),
        ("textDocument/codeLens", document.clone()),
        (
            "textDocument/formatting",
            json!({"textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": true}}),
        ),
        (
            "textDocument/selectionRange",
            json!({"textDocument": {"uri": uri}, "positions": [{"line": 500_000, "character": 0}]}),
        ),
    ] {
        assert_eq!(client.request(method, params), Value::Null, "{method}");
    }
    let tokens = client.request("textDocument/semanticTokens/full", document);
    assert_eq!(tokens["data"], json!([]));
    let run = client.request_raw("ptx/run", json!({"textDocument": {"uri": uri}}));
    assert_eq!(run["error"]["code"], -32803, "{run}");
    assert!(client.shutdown_and_exit().success());
}

const ENDLESS: &str = ".reg .b32 %r<2>;\nLOOP:\nadd.s32 %r1, %r1, 1;\nbra LOOP;\n";

fn endless_run(uri: &str, id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "ptx/run",
           "params": {"textDocument": {"uri": uri}, "maxSteps": 1_000_000_000_000_000u64}})
}

/// CPU seconds the server used (user + system), from /proc.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    ticks as f64 / 100.0
}

#[test]
fn a_cancelled_run_stops_computing() {
    let mut client = LspClient::initialized(json!({}), Value::Null);
    let uri = file_uri("endless.ptx");
    client.open(&uri, ENDLESS);
    client.diagnostics(&uri, Some(1));
    client.send(&endless_run(&uri, 9001));
    std::thread::sleep(Duration::from_millis(300));
    client.notify("$/cancelRequest", json!({"id": 9001}));
    let response = client.response(&json!(9001));
    assert_eq!(response["error"]["code"], -32800, "{response}");
    // The interpreter saw the flag: the server goes idle.
    std::thread::sleep(Duration::from_millis(200));
    let before = cpu_seconds(client.pid());
    std::thread::sleep(Duration::from_millis(1000));
    let used = cpu_seconds(client.pid()) - before;
    assert!(
        used < 0.5,
        "the cancelled run still burns CPU: {used} s in 1 s"
    );
    assert!(client.shutdown_and_exit().success());
}

#[test]
fn runs_are_bounded_and_stopped_by_close_shutdown_and_the_time_limit() {
    let mut client = LspClient::initialized(json!({}), json!({"run": {"timeLimitMs": 60_000}}));
    let uri = file_uri("endless.ptx");
    client.open(&uri, ENDLESS);
    client.diagnostics(&uri, Some(1));
    // Four clicks on a long run: two run, two are refused at once.
    for id in 101..105 {
        client.send(&endless_run(&uri, id));
    }
    let mut refused = 0;
    for id in [103, 104] {
        let response = client.response(&json!(id));
        if response["error"]["code"] == -32803 {
            refused += 1;
        }
    }
    assert_eq!(refused, 2);
    // Everything else is still answered.
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 2, "character": 1}}),
    );
    assert!(hover["contents"]["value"].as_str().unwrap().contains("add"));
    let unknown = client.request_raw("ptx/noSuchThing", json!({}));
    assert_eq!(unknown["error"]["code"], -32601);
    // Closing the document stops both runs: each answers with a fault.
    client.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri}}),
    );
    for id in [101, 102] {
        let response = client.response(&json!(id));
        assert_eq!(response["result"]["error"]["kind"], "fault", "{response}");
        assert!(response["result"]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("stopped"));
    }
    // Shutdown stops a run in progress and is answered.
    client.open(&uri, ENDLESS);
    client.send(&endless_run(&uri, 201));
    std::thread::sleep(Duration::from_millis(200));
    let shutdown = client.request_raw("shutdown", Value::Null);
    assert_eq!(shutdown["result"], Value::Null);
    let run = client.response(&json!(201));
    assert_eq!(run["result"]["error"]["kind"], "fault", "{run}");
    client.notify("exit", Value::Null);
    assert!(client.wait_for_exit().success());

    // A run past the time limit is stopped, and the fault says why.
    let mut client = LspClient::initialized(json!({}), json!({"run": {"timeLimitMs": 300}}));
    client.open(&uri, ENDLESS);
    let started = Instant::now();
    let run = client.request("ptx/run", endless_run(&uri, 0)["params"].clone());
    assert!(started.elapsed() < Duration::from_secs(30));
    let message = run["error"]["message"].as_str().unwrap();
    assert!(message.contains("time limit"), "{message}");
    assert!(client.shutdown_and_exit().success());
}

/// xorshift, so that the bytes are the same on every run.
fn random_bytes(len: usize, mut seed: u64) -> String {
    let mut out = String::with_capacity(len);
    while out.len() < len {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        // Printable ASCII and newlines: random text a parser must recover from.
        let byte = (seed % 96) as u8;
        out.push(if byte == 95 {
            '\n'
        } else {
            (b' ' + byte) as char
        });
    }
    out
}

#[test]
fn a_slow_reparse_does_not_hold_up_other_messages() {
    let mut client = LspClient::initialized(json!({}), Value::Null);
    let uri = file_uri("noise.ptx");
    client.open(&uri, &random_bytes(1 << 20, 0x9e3779b97f4a7c15));
    client.diagnostics(&uri, Some(1));
    for version in 2..5 {
        client.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version},
                   "contentChanges": [{"range": {"start": {"line": 3, "character": 0},
                                                 "end": {"line": 3, "character": 1}},
                                       "text": "x"}]}),
        );
        // Answered while the edit is still being parsed and checked: before
        // the diagnostics of this version are published.
        let unknown = client.request_raw("ptx/noSuchThing", json!({}));
        assert_eq!(unknown["error"]["code"], -32601);
        let published_first = client.notifications.iter().any(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["version"] == version
        });
        assert!(!published_first, "the message waited for the reparse");
        client.diagnostics(&uri, Some(version));
    }
    assert!(client.shutdown_and_exit().success());
}

#[test]
fn framing_errors_resynchronize_on_the_next_header() {
    let mut client = LspClient::initialized(json!({}), Value::Null);
    let body = r#"{"jsonrpc":"2.0","id":"short","method":"ptx/noSuchThing","params":{}}"#;
    // A length 10 bytes short: the rest of the body runs into the next header.
    client.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len() - 10).as_bytes());
    let after = client.request_raw("ptx/noSuchThing", json!({}));
    assert_eq!(after["error"]["code"], -32601, "{after}");
    // A length 10 bytes long: the next message's header is swallowed into
    // the body; the one after it is read.
    let body = r#"{"jsonrpc":"2.0","id":"long","method":"ptx/noSuchThing","params":{}}"#;
    client.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len() + 10).as_bytes());
    let swallowed = json!({"jsonrpc": "2.0", "method": "ptx/noSuchNotification"}).to_string();
    client.send_raw(format!("Content-Length: {}\r\n\r\n{swallowed}", swallowed.len()).as_bytes());
    let after = client.request_raw("ptx/noSuchThing", json!({}));
    assert_eq!(after["error"]["code"], -32601, "{after}");
    let uri = file_uri("after_framing.ptx");
    client.open(&uri, HEADER);
    assert_eq!(client.diagnostics(&uri, Some(1)), Vec::<Value>::new());
    assert!(client.shutdown_and_exit().success());
}

/// Analyses check a cancellation flag: a cancelled whole-document request stops computing
/// (the server goes idle and its log says the analysis was cancelled), and a change during
/// the background check of the previous text cancels that check; the diagnostics of the new
/// text still come.
#[test]
fn cancelled_analyses_stop_computing() {
    let cub = std::fs::read_to_string(corpus("nvcc/cub_algorithms_sm_90a.ptx")).unwrap();
    // Eight copies in one module, 15 MB (the copies' names repeat the first's: errors, which
    // is fine), so that the check and the token walk take long on any machine.
    let body = cub.split_once(".address_size 64").unwrap().1;
    let text = format!("{cub}{}", format!("\n{body}").repeat(7));
    let mut client = LspClient::initialized(json!({}), Value::Null);
    let uri = file_uri("big.ptx");
    client.open(&uri, &text);
    // The check of version 1 takes seconds (parsing and checking 15 MB): a change a third
    // of a second later comes while it runs.
    std::thread::sleep(Duration::from_millis(300));
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "// edited\n"}]}),
    );
    client.diagnostics(&uri, Some(2));
    assert!(
        client.stderr().contains("diagnostics cancelled after"),
        "{}",
        client.stderr()
    );
    client.send(&json!({"jsonrpc": "2.0", "id": 9100, "method": "textDocument/semanticTokens/full", "params": {"textDocument": {"uri": uri}}}));
    std::thread::sleep(Duration::from_millis(100));
    client.notify("$/cancelRequest", json!({"id": 9100}));
    let response = client.response(&json!(9100));
    assert_eq!(response["error"]["code"], -32800, "{response}");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !client
        .stderr()
        .contains("textDocument/semanticTokens/full cancelled after")
    {
        assert!(std::time::Instant::now() < deadline, "{}", client.stderr());
        std::thread::sleep(Duration::from_millis(50));
    }
    let before = cpu_seconds(client.pid());
    std::thread::sleep(Duration::from_millis(1000));
    let used = cpu_seconds(client.pid()) - before;
    assert!(
        used < 0.5,
        "the cancelled analysis still burns CPU: {used} s in 1 s"
    );
    // The next full request is whole (nothing partial was kept).
    let tokens = client.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": uri}}),
    );
    assert!(
        tokens["data"].as_array().unwrap().len() > 1_000_000,
        "{}",
        tokens["data"].as_array().unwrap().len()
    );
    assert!(client.shutdown_and_exit().success());
}
