//! The interpreter never panics or hangs: every fixture snippet, cut and
//! mutated at random, either runs or returns an error, within the step limit.

use std::path::Path;

use proptest::prelude::*;
use ptx_interp::{parse_arg, run_kernel, run_snippet, KernelOptions, SnippetOptions};
use ptx_syntax::Parse;

fn corpus() -> Vec<String> {
    let mut out = Vec::new();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/gpu_snippets.jsonl");
    let text = std::fs::read_to_string(fixtures).unwrap_or_default();
    for (i, line) in text.lines().enumerate() {
        // Every 7th case keeps the corpus varied and the test quick.
        if i % 7 != 0 {
            continue;
        }
        if let Ok(value) = serde_json::from_str::<serde_json::Value>(line) {
            if let Some(snippet) = value["snippet"].as_str() {
                out.push(snippet.to_owned());
            }
        }
    }
    let kernels = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/interp/kernels");
    for name in ["reduce.ptx", "bitonic.ptx", "scan.ptx"] {
        if let Ok(text) = std::fs::read_to_string(kernels.join(name)) {
            out.push(text);
        }
    }
    out
}

/// Pieces of PTX that stress operands, addresses and control flow.
const SPLICES: &[&str] = &[
    "%r1",
    "[%rd1+8]",
    "0x80000000",
    "-1",
    "bra L;",
    "L:",
    "{%r1, %r2}",
    ".v4",
    ".f64",
    "@%p ",
    "ret;",
    "exit;",
    "call f;",
    "%tid.x",
    "bar.sync 0;",
    "[sm+100000]",
    "1.5",
    "0fFFFFFFFF",
    ";",
    ",",
    "tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r1}, [%r1];",
    "shfl.sync.idx.b32 %r1, %r1, 99, 0, 0;",
    "ld.global.u32 %r1, [%rd1];",
    "div.s32 %r1, %r1, 0;",
    ".reg .b32 %r<99999999>;",
    "LOOP: bra LOOP;",
];

fn mutate(text: &str, cuts: &[(usize, usize, usize)]) -> String {
    let mut bytes: Vec<u8> = text.as_bytes().to_vec();
    for &(at, kind, pick) in cuts {
        if bytes.is_empty() {
            break;
        }
        let at = at % bytes.len();
        match kind % 4 {
            0 => {
                bytes.remove(at);
            }
            1 => {
                let end = (at + 1 + pick % 12).min(bytes.len());
                bytes.drain(at..end);
            }
            2 => {
                let splice = SPLICES[pick % SPLICES.len()].as_bytes();
                bytes.splice(at..at, splice.iter().copied());
            }
            _ => {
                let end = (at + pick % 40).min(bytes.len());
                let copy: Vec<u8> = bytes[at..end].to_vec();
                bytes.splice(at..at, copy);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn run_both(text: &str, threads: u32) {
    let parse = Parse::new(text);
    let options = SnippetOptions {
        threads,
        set: vec![
            ("%a".into(), "0x7fffffff".into()),
            ("%r1".into(), "3".into()),
        ],
        max_steps: 20_000,
        hint_thread: threads - 1,
        contract: true,
    };
    let _ = run_snippet(&parse, &options);
    let mut set = options.clone();
    set.set.clear();
    let _ = run_snippet(&parse, &set);
    for entry in ["reduce_sum", "bitonic_sort", "prefix_sum"] {
        let args = ["buf:u32:1,2,3,4", "zeros:16", "u32:4"]
            .iter()
            .filter_map(|a| parse_arg(a).ok())
            .collect();
        let options = KernelOptions {
            entry: entry.into(),
            grid: [2, 1, 1],
            block: [threads.min(64), 1, 1],
            args,
            max_steps: 20_000,
            hint_thread: 0,
            dynamic_smem: None,
            contract: true,
            cluster: None,
        };
        let _ = run_kernel(&parse, &options);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, .. ProptestConfig::default() })]

    #[test]
    fn mutated_snippets_never_panic(
        index in 0usize..10_000,
        threads in 1u32..70,
        cuts in proptest::collection::vec((0usize..100_000, 0usize..4, 0usize..1000), 0..6),
    ) {
        let corpus = corpus();
        let text = &corpus[index % corpus.len()];
        run_both(&mutate(text, &cuts), threads);
    }
}

#[test]
fn every_fixture_snippet_prefix_runs_or_fails_cleanly() {
    for text in corpus().iter().take(40) {
        let mut end = 0;
        while end < text.len() {
            end = (end + 13).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            run_both(&text[..end], 33);
        }
    }
}

#[test]
fn runaway_loops_stop_at_the_step_limit() {
    let parse = Parse::new("L:\nbra L;\n");
    let options = SnippetOptions {
        threads: 1024,
        max_steps: 1000,
        ..SnippetOptions::default()
    };
    let error = run_snippet(&parse, &options).unwrap_err();
    assert!(error.message.contains("step limit"));
    assert_eq!(error.range, Some(3..9));
}
