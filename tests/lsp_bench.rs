//! Latency and memory of the language server on the largest corpus files
//! (a benchmark, not a test: `cargo bench -p ptx-lsp --bench lsp_bench`).
//! The figures are recorded in server/ptx-lsp/BENCHMARKS.md.
//!
//! For each file: open it, then make one-character edits one at a time (a
//! blank inserted into, then removed from, a line in the middle of the file)
//! and measure the time from sending `didChange` to receiving the
//! `publishDiagnostics` for that version; then time requests on the edited
//! text; finally read the server's resident memory.

#[path = "lsp_common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};

const EDITS: usize = 60;
const REQUESTS: usize = 60;

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    let index = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[index]
}

fn report(name: &str, samples: &mut [Duration]) {
    println!(
        "  {name:<34} p50 {:>9.2} ms   p99 {:>9.2} ms   (n={})",
        percentile(samples, 0.5).as_secs_f64() * 1e3,
        percentile(samples, 0.99).as_secs_f64() * 1e3,
        samples.len()
    );
}

fn bench_file(relative: &str, methods: &[(&str, &str)]) {
    let text = std::fs::read_to_string(corpus(relative)).expect("corpus file");
    println!(
        "{relative} ({} bytes, {} lines)",
        text.len(),
        text.lines().count()
    );
    let uri = file_uri("bench.ptx");
    let mut client = LspClient::initialized(json!({}), Value::Null);
    let rss_idle = client.rss_kib();
    let start = Instant::now();
    client.open(&uri, &text);
    client.diagnostics(&uri, Some(1));
    println!(
        "  open → first diagnostics            {:>9.2} ms",
        start.elapsed().as_secs_f64() * 1e3
    );

    // An instruction line in the middle of the file.
    let middle = text.len() / 2;
    let line_start = text[..middle].rfind('\n').map_or(0, |i| i + 1);
    let at = position(&text, line_start);
    let mut samples = Vec::new();
    for i in 0..EDITS {
        let version = 2 + i as i64;
        let change = if i % 2 == 0 {
            json!({"range": {"start": at, "end": at}, "text": " "})
        } else {
            let end =
                json!({"line": at["line"], "character": at["character"].as_u64().unwrap() + 1});
            json!({"range": {"start": at, "end": end}, "text": ""})
        };
        let start = Instant::now();
        client.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}),
        );
        client.diagnostics(&uri, Some(version));
        samples.push(start.elapsed());
    }
    report("edit → publishDiagnostics", &mut samples);

    let target = position(&text, middle);
    for (method, label) in methods {
        let mut samples = Vec::new();
        for _ in 0..REQUESTS {
            let params = match *method {
                "textDocument/semanticTokens/full"
                | "textDocument/documentSymbol"
                | "textDocument/foldingRange" => json!({"textDocument": {"uri": uri}}),
                "textDocument/semanticTokens/range" => json!({"textDocument": {"uri": uri},
                    "range": {"start": target, "end": {"line": target["line"].as_u64().unwrap() + 60, "character": 0}}}),
                "textDocument/completion" => {
                    json!({"textDocument": {"uri": uri}, "position": target,
                    "context": {"triggerKind": 1}})
                }
                "textDocument/references" => {
                    json!({"textDocument": {"uri": uri}, "position": target,
                    "context": {"includeDeclaration": true}})
                }
                _ => json!({"textDocument": {"uri": uri}, "position": target}),
            };
            let start = Instant::now();
            client.request(method, params);
            samples.push(start.elapsed());
        }
        report(label, &mut samples);
    }
    if let (Some(idle), Some(open)) = (rss_idle, client.rss_kib()) {
        println!(
            "  server RSS: {} MiB idle, {} MiB with the file open",
            idle / 1024,
            open / 1024
        );
    }
    assert!(client.shutdown_and_exit().success());
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing
    // and must stay fast.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let methods: Vec<(&str, &str)> = vec![
        ("textDocument/definition", "definition"),
        ("textDocument/documentHighlight", "document highlight"),
        ("textDocument/documentSymbol", "document symbols"),
        ("textDocument/semanticTokens/full", "semantic tokens (full)"),
        (
            "textDocument/semanticTokens/range",
            "semantic tokens (60 lines)",
        ),
        ("textDocument/references", "references"),
        ("textDocument/foldingRange", "folding ranges"),
        ("textDocument/hover", "hover"),
        ("textDocument/completion", "completion"),
    ];

    for file in [
        "nvcc/cub_algorithms_sm_90a.ptx",
        "nvcc/device_intrinsics_sm_80_debug.ptx",
    ] {
        bench_file(file, &methods);
    }
}
