//! The compiler view's latency (a benchmark, not a test:
//! `cargo bench -p ptx-lsp --bench lsp_compiler_bench`; ptxas and nvdisasm from
//! `tools/install-cuda-tool.sh`). The figures are recorded in server/ptx-lsp/BENCHMARKS.md.
//!
//! 1. A 250 KB Triton kernel: the time from `didSave` (after an edit) to the code lens that shows
//!    the new figures, five times; and edit → diagnostics latency while those compilations run,
//!    against the same edits with the compiler view turned off.
//! 2. The 1.9 MB nvcc file: the time from `ptx/sass` (whole file, then one kernel) to its answer,
//!    once the background compilation after opening is done, and cold (right after opening).

#[path = "lsp_common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Requests code lenses until `wanted` holds for one of them; the time it took.
fn until_lens(client: &mut LspClient, uri: &str, wanted: impl Fn(&str) -> bool) -> Duration {
    let start = Instant::now();
    loop {
        let lenses = client.request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        );
        let hit = lenses
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["command"]["title"].as_str().is_some_and(&wanted));
        if hit {
            return start.elapsed();
        }
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "no lens\n{}",
            client.stderr()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Edit → publishDiagnostics latencies of `n` one-character edits (each waits for its own).
fn edits(
    client: &mut LspClient,
    uri: &str,
    text: &str,
    first_version: i64,
    n: usize,
) -> Vec<Duration> {
    let middle = text.len() / 2;
    let line_start = text[..middle].rfind('\n').map_or(0, |i| i + 1);
    let at = position(text, line_start);
    let mut samples = Vec::new();
    for i in 0..n {
        let version = first_version + i as i64;
        let change = if i % 2 == 0 {
            json!({"range": {"start": at, "end": at}, "text": " "})
        } else {
            json!({"range": {"start": at, "end": {"line": at["line"], "character": at["character"].as_u64().unwrap() + 1}}, "text": ""})
        };
        let start = Instant::now();
        client.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}),
        );
        client.diagnostics(uri, Some(version));
        samples.push(start.elapsed());
    }
    samples
}

/// Saves of the Triton kernel, each followed by 10 edits while ptxas compiles it (so that the
/// p99 of the edits is not just the slowest of a few): 20, or `PTX_LSP_BENCH_SAVES`.
fn save_count() -> usize {
    std::env::var("PTX_LSP_BENCH_SAVES")
        .ok()
        .and_then(|n| n.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(20)
}

/// [`save_count`] times: the whole text replaced (so that a save has something new to compile), then
/// saved, then 10 one-character edits, each timed to its diagnostics. With the compiler view
/// on, the edits run while ptxas compiles the saved text, and the time from each save to the
/// lens of its figures is returned too. The compiler view off runs the very same messages, so
/// that the two sets of edits differ only in the compilations running beside them.
fn save_cycles(
    client: &mut LspClient,
    uri: &str,
    text: &str,
    compiler: bool,
) -> (Vec<Duration>, Vec<Duration>) {
    let mut saves = Vec::new();
    let mut edited_samples = Vec::new();
    let mut version = 2;
    for i in 0..save_count() {
        let edited = format!("{text}// save {i}\n");
        client.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": edited}]}),
        );
        client.diagnostics(uri, Some(version));
        version += 1;
        if compiler {
            until_lens(client, uri, |t| t.ends_with("(as last saved)"));
        }
        let start = Instant::now();
        client.notify(
            "textDocument/didSave",
            json!({"textDocument": {"uri": uri}}),
        );
        // Edits while ptxas runs (they must not wait for it).
        edited_samples.extend(edits(client, uri, &edited, version, 10));
        version += 10;
        if compiler {
            saves.push(
                start.elapsed()
                    + until_lens(client, uri, |t| {
                        t.contains("registers") && !t.ends_with("(as last saved)")
                    }),
            );
        }
    }
    (saves, edited_samples)
}

fn triton(relative: &str) {
    let text = std::fs::read_to_string(corpus(relative)).unwrap();
    println!("{relative} ({} bytes)", text.len());
    let path = corpus(relative).canonicalize().unwrap();
    let uri = format!("file://{}", path.display());
    let mut client = LspClient::initialized(json!({}), Value::Null);
    let start = Instant::now();
    client.open(&uri, &text);
    until_lens(&mut client, &uri, |t| t.contains("registers"));
    println!(
        "  open → resource lens                 {:>9.1} ms",
        ms(start.elapsed())
    );
    let (mut saves, mut during) = save_cycles(&mut client, &uri, &text, true);
    println!(
        "  save → new resource lens ({} saves)  p50 {:>9.1} ms   worst {:>9.1} ms",
        saves.len(),
        ms(percentile(&mut saves, 0.5)),
        ms(*saves.iter().max().unwrap())
    );
    println!(
        "  edit → diagnostics during compiles   p50 {:>9.2} ms   p99 {:>9.2} ms   (n={})",
        ms(percentile(&mut during, 0.5)),
        ms(percentile(&mut during, 0.99)),
        during.len()
    );
    assert!(client.shutdown_and_exit().success());
    // The same messages with the compiler view off.
    let mut client = LspClient::initialized(json!({}), json!({"compiler": {"enable": false}}));
    client.open(&uri, &text);
    client.diagnostics(&uri, Some(1));
    let (_, mut off) = save_cycles(&mut client, &uri, &text, false);
    println!(
        "  edit → diagnostics, compiler off     p50 {:>9.2} ms   p99 {:>9.2} ms   (n={})",
        ms(percentile(&mut off, 0.5)),
        ms(percentile(&mut off, 0.99)),
        off.len()
    );
    assert!(client.shutdown_and_exit().success());
}

fn sass(relative: &str, kernel: &str) {
    let text = std::fs::read_to_string(corpus(relative)).unwrap();
    println!("{relative} ({} bytes)", text.len());
    let uri = format!(
        "file://{}",
        corpus(relative).canonicalize().unwrap().display()
    );
    // Warm: the background compilation (and disassembly) after opening is done.
    let mut client = LspClient::initialized(json!({}), Value::Null);
    let start = Instant::now();
    client.open(&uri, &text);
    until_lens(&mut client, &uri, |t| t.contains("registers"));
    println!(
        "  open → resource lenses               {:>9.1} ms",
        ms(start.elapsed())
    );
    // Give the disassembly that follows the lenses time to finish.
    std::thread::sleep(Duration::from_secs(10));
    for (what, params) in [
        ("whole file", json!({"textDocument": {"uri": uri}})),
        (
            "one kernel",
            json!({"textDocument": {"uri": uri}, "kernel": kernel}),
        ),
    ] {
        let start = Instant::now();
        let answer = client.request("ptx/sass", params);
        let lines = answer["lines"].as_array().map_or(0, Vec::len);
        println!(
            "  ptx/sass, {what:<10} (warm)           {:>9.1} ms   ({lines} lines)",
            ms(start.elapsed())
        );
    }
    assert!(client.shutdown_and_exit().success());
    // Cold: asked for right after opening, with one ptxas run and with one per core.
    for (jobs, what) in [(1, "one ptxas run"), (0, "a run per core")] {
        let settings = json!({"compiler": {"jobs": jobs}});
        let mut client = LspClient::initialized(json!({}), settings);
        client.open(&uri, &text);
        let start = Instant::now();
        let answer = client.request("ptx/sass", json!({"textDocument": {"uri": uri}}));
        println!(
            "  ptx/sass, whole file (cold, {what:<14}) {:>9.1} ms   ({} lines)",
            ms(start.elapsed()),
            answer["lines"].as_array().map_or(0, Vec::len)
        );
        assert!(client.shutdown_and_exit().success());
    }
}

fn main() {
    triton("triton/triton_scan_sort_rand_sm100.ptx");
    sass(
        "nvcc/cub_algorithms_sm_90a.ptx",
        "_ZN3cub17CUB_300001_SM_9006detail9histogram25DeviceHistogramInitKernelILi1EiiEEvN4cuda3std3__45arrayIiXT_EEENS7_IPT0_XT_EEENS0_9GridQueueIiEE",
    );
}
