//! Latency of `ptx-lsp dap` on a real kernel (figures, not a timed test):
//! `cargo bench -p ptx-lsp --bench dap_bench` prints them; BENCHMARKS.md
//! records them.
//!
//! The Triton softmax kernel of the corpus, launched on 8 CTAs of 256
//! threads, over stdio as an editor drives it:
//! - a step (`next`, then `stepIn`) of warp 0, from the request to the
//!   `stopped` event, and the same with what an editor asks after each stop
//!   (stackTrace, scopes, the registers);
//! - a `continue` to a breakpoint on a line every warp passes (the next warp's hit);
//! - a `continue` from the first instruction to a breakpoint in the last
//!   CTA's last warp: the simulated work of the whole launch before it.

#[path = "dap_common/mod.rs"]
mod common;

use std::time::Instant;

use common::Dap;
use serde_json::{json, Value};

const KERNEL: &str = "tests/corpus/triton/triton_softmax_native.ptx";

fn launch() -> Value {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let input: Vec<String> = (0..8000)
        .map(|i| format!("{}", (i % 97) as f32 / 10.0))
        .collect();
    json!({
        "program": root.join(KERNEL).to_string_lossy(),
        "entry": "softmax_kernel",
        "grid": [8, 1, 1],
        "block": [256, 1, 1],
        "args": ["zeros:32000", format!("buf:f32:{}", input.join(",")),
                 "u32:1000", "u32:1000", "u64:0", "u64:0"],
        "stopOnEntry": true,
    })
}

/// The first line of `needle` in the kernel (1-based).
fn line_of(needle: &str) -> u64 {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join(KERNEL)).expect("the kernel");
    text.lines()
        .position(|l| l.contains(needle))
        .expect("the line") as u64
        + 1
}

fn summary(name: &str, mut ms: Vec<f64>) {
    ms.sort_by(f64::total_cmp);
    let median = ms[ms.len() / 2];
    let p90 = ms[ms.len() * 9 / 10];
    let max = ms[ms.len() - 1];
    println!(
        "{name:<44} n={:<4} median {median:>7.2} ms  p90 {p90:>7.2} ms  max {max:>7.2} ms",
        ms.len()
    );
}

/// Sends a resume request and times it to the `stopped` event.
fn timed_stop(dap: &mut Dap, command: &str) -> f64 {
    let start = Instant::now();
    dap.request(command, json!({"threadId": 1}));
    let stopped = dap.event("stopped");
    assert_ne!(stopped["reason"], "exception", "{stopped}");
    start.elapsed().as_secs_f64() * 1e3
}

/// What an editor asks after a stop: the stack, the scopes, the registers.
fn inspect(dap: &mut Dap, thread: u64) {
    let trace = dap.request("stackTrace", json!({"threadId": thread}));
    let frame = trace["stackFrames"][0]["id"].clone();
    let scopes = dap.request("scopes", json!({"frameId": frame}));
    let registers = scopes["scopes"][0]["variablesReference"].clone();
    dap.request("variables", json!({"variablesReference": registers}));
}

fn main() {
    // Steps of warp 0.
    let mut dap = Dap::start(launch(), json!([]));
    dap.event("stopped");
    let mut next = Vec::new();
    for _ in 0..200 {
        next.push(timed_stop(&mut dap, "next"));
    }
    summary("next (request to stopped event)", next);
    let mut step_in = Vec::new();
    for _ in 0..100 {
        step_in.push(timed_stop(&mut dap, "stepIn"));
    }
    summary("stepIn (request to stopped event)", step_in);
    let mut with_views = Vec::new();
    for _ in 0..100 {
        let start = Instant::now();
        timed_stop(&mut dap, "next");
        inspect(&mut dap, 1);
        with_views.push(start.elapsed().as_secs_f64() * 1e3);
    }
    summary("next + stackTrace + scopes + registers", with_views);
    dap.finish();

    // Continue from one warp's hit to the next warp's.
    let store = line_of("st.global");
    let mut dap = Dap::start(launch(), json!([{"line": store}]));
    dap.event("stopped");
    let mut hits = Vec::new();
    for _ in 0..40 {
        hits.push(timed_stop(&mut dap, "continue"));
    }
    summary("continue to the next warp's breakpoint", hits);
    dap.finish();

    // Continue from the entry to the last CTA's last warp.
    let last = line_of("ret;");
    let mut runs = Vec::new();
    for _ in 0..5 {
        let mut dap = Dap::start(
            launch(),
            json!([{"line": last, "condition": "%ctaid.x == 7 && %warpid == 7"}]),
        );
        dap.event("stopped");
        runs.push(timed_stop(&mut dap, "continue"));
        let trace = dap.request("threads", json!({}));
        assert_eq!(trace["threads"][0]["name"], "cta (7,0,0) warp 0");
        dap.finish();
    }
    summary("continue through 8 CTAs x 256 threads", runs);
}
