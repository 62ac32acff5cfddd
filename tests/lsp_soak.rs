//! A scripted editing day against the release server (a benchmark, not a
//! test: `cargo bench -p ptx-lsp --bench lsp_soak [-- --messages N]`). The
//! figures are recorded in server/ptx-lsp/BENCHMARKS.md.
//!
//! Every `.ptx` file of tests/corpus is opened in turn (a few at a time stay
//! open), edited (a blank typed at the start of a line, later deleted, so the
//! text stays valid) and queried the way an editor does while someone works:
//! hover and completion at the cursor, highlights, semantic tokens, inlay
//! hints and range formatting of the 60-line viewport, now and then the
//! outline, folding, code lenses and a whole-file format, and a `ptx/run` of a
//! small snippet. Diagnostics are published in the background as edits go.
//! Each request's round trip is timed; the server's resident memory is read
//! every 1,000 messages. The default is 100,000 messages (requests and
//! notifications) from a fixed seed, so two runs send the same day.

#[path = "lsp_common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};

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

struct Open {
    uri: String,
    text: String,
    version: i64,
    /// Lines where a blank was typed and not yet deleted.
    typed: Vec<u64>,
    /// The corpus file's name, for the account of the slowest requests.
    name: String,
}

const SNIPPET: &str = ".reg .b32 %r<4>;\n.reg .f32 %f<2>;\nmov.u32 %r1, %tid.x;\nmul.lo.u32 %r2, %r1, 3;\nadd.u32 %r3, %r2, 7;\ncvt.rn.f32.u32 %f1, %r3;\n";

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// What the slowest 1 % of requests were: counts by kind and by file, the
/// heaviest first, so the tail of `all requests` can be read.
fn slowest_account(timed: &mut [(Duration, &'static str, String)]) {
    timed.sort_by_key(|t| std::cmp::Reverse(t.0));
    let tail = &timed[..timed.len().div_ceil(100)];
    let mut by_kind: BTreeMap<&str, usize> = BTreeMap::new();
    let mut by_file: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, label, name) in tail {
        *by_kind.entry(label).or_default() += 1;
        *by_file.entry(name.as_str()).or_default() += 1;
    }
    let sorted = |map: BTreeMap<&str, usize>| {
        let mut rows: Vec<(&str, usize)> = map.into_iter().collect();
        rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        rows.into_iter()
            .take(8)
            .map(|(name, n)| format!("{name} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "  slowest 1 % ({} requests) by kind: {}",
        tail.len(),
        sorted(by_kind)
    );
    println!("  slowest 1 % by file: {}", sorted(by_file));
}

fn corpus_files() -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![corpus("")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("corpus folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "ptx") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let messages: usize = args
        .iter()
        .position(|a| a == "--messages")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000);
    let files = corpus_files();
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let mut client = LspClient::initialized(json!({}), Value::Null);
    let snippet_uri = file_uri("soak_snippet.ptx");
    client.open(&snippet_uri, SNIPPET);
    let mut sent = 1usize;
    let mut latencies: BTreeMap<&'static str, Vec<Duration>> = BTreeMap::new();
    // Every request with its kind and file, for the account of the slowest 1 %.
    let mut timed: Vec<(Duration, &'static str, String)> = Vec::new();
    let mut rss_samples = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    let mut next_file = 0;
    let started = Instant::now();
    let mut errors = 0usize;
    let mut next_rss_sample = 1000;
    while sent < messages {
        // Open the next file now and then; keep at most three open.
        if open.is_empty() || rng.below(400) == 0 {
            if open.len() == 3 {
                let closed = open.remove(0);
                client.notify(
                    "textDocument/didClose",
                    json!({"textDocument": {"uri": closed.uri}}),
                );
                sent += 1;
            }
            let path = &files[next_file % files.len()];
            next_file += 1;
            let text = std::fs::read_to_string(path).expect("corpus file");
            let uri = file_uri(&format!("soak/{next_file}.ptx"));
            client.open(&uri, &text);
            sent += 1;
            let name = path
                .strip_prefix(corpus(""))
                .unwrap_or(path)
                .display()
                .to_string();
            open.push(Open {
                uri,
                text,
                version: 1,
                typed: Vec::new(),
                name,
            });
        }
        let index = rng.below(open.len());
        let doc = &mut open[index];
        let lines = doc.text.lines().count().max(1);
        let line = rng.below(lines) as u64;
        let column = rng.below(12) as u64;
        let at = json!({"line": line, "character": column});
        let viewport = json!({"start": {"line": line.saturating_sub(30), "character": 0},
                              "end": {"line": line + 30, "character": 0}});
        let roll = rng.below(100);
        if roll < 20 {
            // Type a blank at the start of a line, or delete one typed earlier.
            let edit = if doc.typed.len() < 4 && (doc.typed.is_empty() || rng.below(2) == 0) {
                doc.typed.push(line);
                json!({"range": {"start": {"line": line, "character": 0},
                                 "end": {"line": line, "character": 0}}, "text": " "})
            } else {
                let typed = doc.typed.remove(rng.below(doc.typed.len()));
                json!({"range": {"start": {"line": typed, "character": 0},
                                 "end": {"line": typed, "character": 1}}, "text": ""})
            };
            let as_text_edit = json!({"range": edit["range"], "newText": edit["text"]});
            doc.text = apply_edits(&doc.text, &[as_text_edit]);
            doc.version += 1;
            client.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": doc.uri, "version": doc.version},
                       "contentChanges": [edit]}),
            );
            sent += 1;
            continue;
        }
        let uri = doc.uri.clone();
        let name = doc.name.clone();
        let document = json!({"textDocument": {"uri": uri}});
        let (label, method, params) = match roll {
            20..=39 => (
                "hover",
                "textDocument/hover",
                json!({"textDocument": {"uri": uri}, "position": at}),
            ),
            40..=51 => (
                "completion",
                "textDocument/completion",
                json!({"textDocument": {"uri": uri}, "position": at}),
            ),
            52..=61 => (
                "document highlight",
                "textDocument/documentHighlight",
                json!({"textDocument": {"uri": uri}, "position": at}),
            ),
            62..=73 => (
                "semantic tokens (viewport)",
                "textDocument/semanticTokens/range",
                json!({"textDocument": {"uri": uri}, "range": viewport}),
            ),
            74..=83 => (
                "inlay hints (viewport)",
                "textDocument/inlayHint",
                json!({"textDocument": {"uri": uri}, "range": viewport}),
            ),
            84..=88 => (
                "range formatting",
                "textDocument/rangeFormatting",
                json!({"textDocument": {"uri": uri}, "range": viewport,
                       "options": {"tabSize": 4, "insertSpaces": false}}),
            ),
            89..=91 => (
                "definition",
                "textDocument/definition",
                json!({"textDocument": {"uri": uri}, "position": at}),
            ),
            92 => ("document symbols", "textDocument/documentSymbol", document),
            93 => ("folding ranges", "textDocument/foldingRange", document),
            94 => ("code lens", "textDocument/codeLens", document),
            95 => (
                "formatting (whole file)",
                "textDocument/formatting",
                json!({"textDocument": {"uri": uri},
                       "options": {"tabSize": 4, "insertSpaces": false}}),
            ),
            96..=97 => (
                "ptx/run (snippet, 32 threads)",
                "ptx/run",
                json!({"textDocument": {"uri": snippet_uri}, "threads": 32}),
            ),
            _ => (
                "signature help",
                "textDocument/signatureHelp",
                json!({"textDocument": {"uri": uri}, "position": at}),
            ),
        };
        let start = Instant::now();
        let response = client.request_raw(method, params);
        let took = start.elapsed();
        latencies.entry(label).or_default().push(took);
        timed.push((took, label, name));
        if response.get("error").is_some() {
            errors += 1;
        }
        sent += 1;
        // Published diagnostics are not waited for; drop them as they come.
        client.notifications.clear();
        if sent >= next_rss_sample {
            rss_samples.push(client.rss_kib().unwrap_or(0));
            next_rss_sample += 1000;
        }
    }
    let elapsed = started.elapsed();
    let peak = std::fs::read_to_string(format!("/proc/{}/status", client.pid()))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .unwrap_or(0);
    let mut all: Vec<Duration> = latencies.values().flatten().copied().collect();
    println!(
        "{sent} messages ({} requests, {errors} answered with an error) over {} corpus files \
         in {:.1} s",
        all.len(),
        next_file,
        elapsed.as_secs_f64()
    );
    println!(
        "  {:<30} p50 {:>8.2} ms   p99 {:>8.2} ms   max {:>8.2} ms",
        "all requests",
        ms(percentile(&mut all, 0.5)),
        ms(percentile(&mut all, 0.99)),
        ms(*all.last().unwrap())
    );
    for (label, samples) in &mut latencies {
        println!(
            "  {label:<30} p50 {:>8.2} ms   p99 {:>8.2} ms   max {:>8.2} ms   (n={})",
            ms(percentile(samples, 0.5)),
            ms(percentile(samples, 0.99)),
            ms(*samples.last().unwrap()),
            samples.len()
        );
    }
    slowest_account(&mut timed);
    let quarter = rss_samples.len() / 4;
    println!(
        "  RSS: {} MiB after the first quarter, {} MiB at the end, {} MiB at most (VmHWM)",
        rss_samples.get(quarter).copied().unwrap_or(0) / 1024,
        rss_samples.last().copied().unwrap_or(0) / 1024,
        peak / 1024
    );
    assert!(client.shutdown_and_exit().success());
}
