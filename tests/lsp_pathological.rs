//! Latency of every language-server feature on pathological documents (a
//! benchmark, not a test: `cargo bench -p ptx-lsp --bench lsp_pathological`).
//! The figures are recorded in server/ptx-lsp/BENCHMARKS.md.
//!
//! Each shape is opened in a fresh server; the time to the first diagnostics,
//! then one round trip per request (hover, completion and the like at a
//! position in the middle; range requests on a 60-line viewport there), a
//! one-character edit until its diagnostics, the largest reply, and the
//! server's peak resident memory (VmHWM) are printed. A shape may be named on
//! the command line to run only it.

#[path = "lsp_common/mod.rs"]
mod common;

use std::fmt::Write as _;
use std::time::Instant;

use common::*;
use serde_json::{json, Value};

const HEADER: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

/// The shapes: name and text.
fn shapes() -> Vec<(&'static str, String)> {
    let mut shapes = Vec::new();
    // One line holding a 100,000-element initializer.
    let values: Vec<String> = (0..100_000).map(|i| (i % 256).to_string()).collect();
    shapes.push((
        "long line: .b8 tbl[100000] = {...} on one line (0.4 MB)",
        format!(
            "{HEADER}.global .b8 tbl[100000] = {{{}}};\n",
            values.join(",")
        ),
    ));
    // A one-million-element initializer over 10,000 lines.
    let mut init = String::new();
    for i in 0..1_000_000 {
        let _ = write!(
            init,
            "{}{}",
            i % 1000,
            if i % 100 == 99 { ",\n" } else { "," }
        );
    }
    init.pop();
    init.pop();
    shapes.push((
        "huge initializer: 1,000,000 values on 10,000 lines (4.4 MB)",
        format!("{HEADER}.global .u32 big[1000000] = {{\n{init}\n}};\n"),
    ));
    // 65,536 predicated instructions on one line.
    shapes.push((
        "65,536 `@%p bra` on one line (1.2 MB)",
        format!(
            "{HEADER}.entry k()\n{{\n.reg .pred %p;\nL: {}\nret;\n}}\n",
            "@%p bra L; ".repeat(65_536)
        ),
    ));
    // Nesting a million blocks deep.
    shapes.push((
        "1,000,000 nested blocks (4 MB)",
        format!(
            "{HEADER}.entry k()\n{{\n{}ret;\n{}}}\n",
            "{\n".repeat(1_000_000),
            "}\n".repeat(1_000_000)
        ),
    ));
    // 200,000 labels in one function, each the target of a branch.
    let mut body = String::from(".reg .pred %p;\n");
    for i in 0..200_000 {
        let _ = writeln!(body, "L{i}:\n\t@%p bra L{i};");
    }
    shapes.push((
        "200,000 labels and branches (4.5 MB)",
        format!("{HEADER}.entry k()\n{{\n{body}\tret;\n}}\n"),
    ));
    // A megabyte of random printable bytes.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let noise: String = (0..1 << 20)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let byte = (seed % 96) as u8;
            if byte == 95 {
                '\n'
            } else {
                (b' ' + byte) as char
            }
        })
        .collect();
    shapes.push(("1 MB of random printable bytes", noise));
    // 50 MB: past the size limit of analysed files.
    let function = "\t.reg .b32 %r<4>;\n\tmov.u32 %r1, %tid.x;\n\tadd.s32 %r2, %r1, 1;\n";
    let mut huge = format!("{HEADER}.entry k()\n{{\n");
    while huge.len() < 50 << 20 {
        huge.push_str(function);
    }
    huge.push_str("\tret;\n}\n");
    shapes.push(("50 MB file (over the 32 MiB analysis limit)", huge));
    shapes
}

fn peak_rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn bench(name: &str, text: &str) {
    println!("{name}");
    let uri = file_uri("pathological.ptx");
    let mut client = LspClient::initialized(json!({}), Value::Null);
    let started = Instant::now();
    client.open(&uri, text);
    let diagnostics = client.diagnostics(&uri, Some(1));
    println!(
        "  {:<28} {:>10.1} ms   ({} diagnostics)",
        "open → diagnostics",
        started.elapsed().as_secs_f64() * 1e3,
        diagnostics.len()
    );
    let middle = text[..text.len() / 2].rfind('\n').map_or(0, |i| i + 1);
    let at = position(text, middle);
    let line = at["line"].as_u64().unwrap_or(0);
    let viewport = json!({"start": {"line": line, "character": 0},
                          "end": {"line": line + 60, "character": 0}});
    let document = json!({"textDocument": {"uri": uri}});
    let positioned = json!({"textDocument": {"uri": uri}, "position": at});
    let requests: Vec<(&str, &str, Value)> = vec![
        ("hover", "textDocument/hover", positioned.clone()),
        ("completion", "textDocument/completion", positioned.clone()),
        ("definition", "textDocument/definition", positioned.clone()),
        (
            "references",
            "textDocument/references",
            json!({"textDocument": {"uri": uri}, "position": at,
                   "context": {"includeDeclaration": true}}),
        ),
        (
            "document highlight",
            "textDocument/documentHighlight",
            positioned.clone(),
        ),
        (
            "selection range",
            "textDocument/selectionRange",
            json!({"textDocument": {"uri": uri}, "positions": [at]}),
        ),
        (
            "document symbols",
            "textDocument/documentSymbol",
            document.clone(),
        ),
        (
            "folding ranges",
            "textDocument/foldingRange",
            document.clone(),
        ),
        ("code lens", "textDocument/codeLens", document.clone()),
        (
            "inlay hints (viewport)",
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri}, "range": viewport}),
        ),
        (
            "semantic tokens (viewport)",
            "textDocument/semanticTokens/range",
            json!({"textDocument": {"uri": uri}, "range": viewport}),
        ),
        (
            "semantic tokens (full)",
            "textDocument/semanticTokens/full",
            document.clone(),
        ),
        (
            "formatting",
            "textDocument/formatting",
            json!({"textDocument": {"uri": uri},
                   "options": {"tabSize": 4, "insertSpaces": false}}),
        ),
        (
            "range formatting (viewport)",
            "textDocument/rangeFormatting",
            json!({"textDocument": {"uri": uri}, "range": viewport,
                   "options": {"tabSize": 4, "insertSpaces": false}}),
        ),
        (
            "pulled diagnostics",
            "textDocument/diagnostic",
            document.clone(),
        ),
    ];
    for (label, method, params) in requests {
        let started = Instant::now();
        let response = client.request_raw(method, params);
        let elapsed = started.elapsed();
        let bytes = response.to_string().len();
        let outcome = if response.get("error").is_some() {
            format!("error {}", response["error"]["message"])
        } else {
            format!("{bytes} bytes")
        };
        println!(
            "  {label:<28} {:>10.1} ms   ({outcome})",
            elapsed.as_secs_f64() * 1e3
        );
    }
    // A one-character edit in the middle, and its diagnostics.
    let started = Instant::now();
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": at, "end": at}, "text": " "}]}),
    );
    let unknown = client.request_raw("ptx/noSuchThing", json!({}));
    let answered = started.elapsed();
    assert_eq!(unknown["error"]["code"], -32601);
    client.diagnostics(&uri, Some(2));
    println!(
        "  {:<28} {:>10.1} ms   (an unknown request sent after it: {:.1} ms)",
        "edit → diagnostics",
        started.elapsed().as_secs_f64() * 1e3,
        answered.as_secs_f64() * 1e3
    );
    println!(
        "  {:<28} {:>10} MiB",
        "peak RSS",
        peak_rss_kib(client.pid()) / 1024
    );
    assert!(client.shutdown_and_exit().success());
}

fn main() {
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    for (name, text) in shapes() {
        if only.is_empty() || only.iter().any(|o| name.contains(o.as_str())) {
            bench(name, &text);
        }
    }
}
