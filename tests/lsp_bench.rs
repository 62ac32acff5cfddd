//! Latency and memory of the language server on the largest corpus files
//! (a benchmark, not a test: `cargo bench -p ptx-lsp --bench lsp_bench`; with
//! `-- --cuda-header`, only the generated CUDA header).
//! The figures are recorded in server/ptx-lsp/BENCHMARKS.md.
//!
//! For each file: open it, then make one-character edits one at a time (a
//! blank inserted into, then removed from, a line in the middle of the file)
//! and measure the time from sending `didChange` to receiving the
//! `publishDiagnostics` for that version; then time requests on the edited
//! text; finally read the server's resident memory.
//!
//! The same for a generated 5,000-line CUDA header with 300 asm statements (the input of
//! ptx-embed's `embed_bench`), opened as `cuda-cpp`, with the edits inside the template of
//! the statement in the middle of the file.

#[path = "lsp_common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};

const EDITS: usize = 60;
const REQUESTS: usize = 60;

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
    // An instruction line in the middle of the file.
    let middle = text.len() / 2;
    let line_start = text[..middle].rfind('\n').map_or(0, |i| i + 1);
    bench_text(
        relative,
        &text,
        "bench.ptx",
        "ptx",
        line_start,
        middle,
        methods,
    );
}

/// Instruction templates of the generated CUDA header (as in ptx-embed's `embed_bench`).
const TEMPLATES: &[(&str, &str)] = &[
    ("add.u32 %0, %1, %2;", ": \"=r\"(x) : \"r\"(y), \"r\"(z)"),
    ("fma.rn.f32 %0, %1, %2, %0;", ": \"+f\"(f) : \"f\"(g), \"f\"(h)"),
    ("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];", ": \"=f\"(a.x), \"=f\"(a.y), \"=f\"(a.z), \"=f\"(a.w) : \"l\"(p)"),
    ("mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;", ": \"=r\"(ok) : \"r\"(bar), \"r\"(phase)"),
    ("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;", ": \"=r\"(x) : \"r\"(y), \"r\"(lane)"),
    ("cp.async.cg.shared.global [%0], [%1], 16;", ": : \"r\"(dst), \"l\"(src)"),
    ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};",
     ": \"+f\"(c0), \"+f\"(c1), \"+f\"(c2), \"+f\"(c3) : \"r\"(a0), \"r\"(a1), \"r\"(a2), \"r\"(a3), \"r\"(b0), \"r\"(b1)"),
    ("cvt.rn.f16x2.f32 %0, %1, %2;", ": \"=r\"(x) : \"f\"(f), \"f\"(g)"),
];

/// 300 device functions with one asm statement each, padded with ordinary C++ to 5,000 lines.
fn cuda_header() -> String {
    let mut out = String::from("#pragma once\n#include <cstdint>\nnamespace bench {\n");
    for i in 0..300 {
        let (tpl, ops) = TEMPLATES[i % TEMPLATES.len()];
        out.push_str(&format!(
            "// function {i}\ntemplate <typename T>\n__device__ __forceinline__ void f{i}(T* out, const T* in, int n) {{\n  int acc = 0;\n  for (int k = 0; k < n; ++k) {{\n    acc += in[k] * {i};\n  }}\n  asm volatile(\"{tpl}\" {ops} : \"memory\");\n  out[0] = acc;\n  if (n > {i}) {{ out[1] = in[0]; }}\n  out[2] = static_cast<T>(acc >> 1);\n  out[3] = static_cast<T>(acc ^ {i});\n  out[4] = in[n - 1];\n}}\n\n",
        ));
    }
    while out.lines().count() < 4999 {
        out.push_str("static_assert(sizeof(int) == 4, \"int is 32-bit\");\n");
    }
    out.push_str("}\n");
    out
}

fn bench_cuda_header(methods: &[(&str, &str)]) {
    let text = cuda_header();
    // Inside the template of the statement in the middle: edits there change one virtual
    // PTX document; requests go to its first qualifier.
    let (statement, _) = text
        .match_indices("asm volatile(\"")
        .nth(150)
        .expect("a statement");
    let template = statement + "asm volatile(\"".len();
    let target = template + text[template..].find('.').expect("a qualifier") + 1;
    bench_text(
        "generated CUDA header",
        &text,
        "bench.cuh",
        "cuda-cpp",
        template,
        target,
        methods,
    );
}

/// Opens `text`, edits at `edit_at` (a blank inserted, then removed) and sends the requests
/// at `request_at`.
fn bench_text(
    name: &str,
    text: &str,
    file: &str,
    language: &str,
    edit_at: usize,
    request_at: usize,
    methods: &[(&str, &str)],
) {
    println!(
        "{name} ({} bytes, {} lines)",
        text.len(),
        text.lines().count()
    );
    let uri = file_uri(file);
    let mut client = LspClient::initialized(json!({}), Value::Null);
    let rss_idle = client.rss_kib();
    let start = Instant::now();
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}}),
    );
    client.diagnostics(&uri, Some(1));
    println!(
        "  open → first diagnostics            {:>9.2} ms",
        start.elapsed().as_secs_f64() * 1e3
    );

    let at = position(text, edit_at);
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

    let target = position(text, request_at);
    // `--edits-only`: the edit latency alone (for profiling the server's edit path).
    let methods = if std::env::args().any(|a| a == "--edits-only") {
        &[]
    } else {
        methods
    };
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

    // `-- --cuda-header`: only the generated CUDA header.
    let cuda_only = std::env::args().any(|a| a == "--cuda-header");
    for file in [
        "nvcc/cub_algorithms_sm_90a.ptx",
        "nvcc/device_intrinsics_sm_80_debug.ptx",
    ] {
        if !cuda_only {
            bench_file(file, &methods);
        }
    }
    bench_cuda_header(&[
        ("textDocument/hover", "hover"),
        ("textDocument/completion", "completion"),
    ]);
}
