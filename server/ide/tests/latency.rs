//! Latency of hover, completion and signature help on a large real-world file (nvcc output for
//! CUB, 1.9 MB), printed as figures rather than asserted (timing is not a test). Run with
//! `cargo test -p ptx-ide --release --test latency -- --nocapture`; the figures are recorded in
//! `BENCHMARKS.md`. The test itself checks that every position answers without panicking and
//! that most opcode positions get a hover.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ptx_ide::completion::{complete, CompletionConfig};
use ptx_ide::hover::{hover, HoverConfig};
use ptx_ide::signature::signature_help;
use ptx_syntax::Parse;

fn corpus_file() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus/nvcc/cub_algorithms_sm_90a.ptx");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    let i = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[i]
}

fn report(name: &str, samples: &mut [Duration]) {
    eprintln!(
        "{name:<40} n={:<5} p50={:>8.1?} p99={:>8.1?} max={:>8.1?}",
        samples.len(),
        percentile(samples, 0.5),
        percentile(samples, 0.99),
        percentile(samples, 1.0)
    );
}

/// An in-memory index: of the copy of the PTX ISA named by `PTX_ISA_DIR` in a release run (the
/// real size of an index), else of the sections written for `ptx-docs`'s tests (a debug run,
/// where only correctness is of interest).
fn spec_index() -> ptx_docs::SpecIndex {
    let dir = match std::env::var_os("PTX_ISA_DIR") {
        Some(dir) if !cfg!(debug_assertions) => PathBuf::from(dir),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/tests/fixtures/export"),
    };
    eprintln!("spec index from {}", dir.display());
    ptx_docs::parse_input(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .0
}

#[test]
fn hover_completion_and_signature_latency_on_a_large_file() {
    let text = corpus_file();
    let start = Instant::now();
    let parse = Parse::new(text.clone());
    eprintln!("parse of {} bytes: {:?}", text.len(), start.elapsed());
    // Positions: the mnemonic, a qualifier and the first operand of every 25th instruction.
    let instructions = parse.module().instructions();
    let mut opcode_positions = Vec::new();
    let mut qualifier_positions = Vec::new();
    let mut operand_positions = Vec::new();
    let step = if cfg!(debug_assertions) { 250 } else { 25 };
    for i in instructions.iter().step_by(step) {
        if let Some(m) = i.mnemonic() {
            opcode_positions.push(m.start + 1);
        }
        if let Some(q) = i.qualifiers().first() {
            qualifier_positions.push(q.start + 1);
        }
        if let Some(o) = i.operands().first() {
            operand_positions.push(o.range().start + 1);
        }
    }
    let config = HoverConfig::default();
    let mut answered = 0;
    let mut samples = Vec::new();
    for &offset in &opcode_positions {
        let t = Instant::now();
        answered += usize::from(hover(&parse, offset, &config).is_some());
        samples.push(t.elapsed());
    }
    assert!(
        answered * 10 >= opcode_positions.len() * 9,
        "{answered} of {}",
        opcode_positions.len()
    );
    report("hover: opcode", &mut samples);
    let mut samples = Vec::new();
    for &offset in &qualifier_positions {
        let t = Instant::now();
        let _ = hover(&parse, offset, &config);
        samples.push(t.elapsed());
    }
    report("hover: qualifier", &mut samples);
    let mut samples = Vec::new();
    for &offset in &operand_positions {
        let t = Instant::now();
        let _ = hover(&parse, offset, &config);
        samples.push(t.elapsed());
    }
    report(
        "hover: operand (register, declaration lookup)",
        &mut samples,
    );

    {
        let index = spec_index();
        let with = HoverConfig {
            spec: Some(&index),
            target_unknown: false,
            ..HoverConfig::default()
        };
        let mut plain = Vec::new();
        let mut indexed = Vec::new();
        for &offset in &opcode_positions {
            let t = Instant::now();
            let _ = hover(&parse, offset, &config);
            plain.push(t.elapsed());
            let t = Instant::now();
            let _ = hover(&parse, offset, &with);
            indexed.push(t.elapsed());
        }
        let extra: Vec<f64> = plain
            .iter()
            .zip(&indexed)
            .map(|(a, b)| b.as_secs_f64() - a.as_secs_f64())
            .collect();
        let mut extra_sorted = extra.clone();
        extra_sorted.sort_by(f64::total_cmp);
        eprintln!(
            "hover with an imported index adds: p50={:.1}µs p99={:.1}µs",
            extra_sorted[extra_sorted.len() / 2] * 1e6,
            extra_sorted[(extra_sorted.len() - 1) * 99 / 100] * 1e6
        );
        report("hover: opcode, with index", &mut indexed);
    }

    let cconfig = CompletionConfig::default();
    let mut samples = Vec::new();
    for &offset in &qualifier_positions {
        let t = Instant::now();
        let _ = complete(&parse, offset, &cconfig);
        samples.push(t.elapsed());
    }
    report("completion: inside a dotted opcode", &mut samples);
    let mut samples = Vec::new();
    for &offset in &operand_positions {
        let t = Instant::now();
        let _ = complete(&parse, offset, &cconfig);
        samples.push(t.elapsed());
    }
    report("completion: operand", &mut samples);
    let mut samples = Vec::new();
    for &offset in &opcode_positions {
        let t = Instant::now();
        let _ = complete(&parse, offset - 1, &cconfig);
        samples.push(t.elapsed());
    }
    report(
        "completion: statement start (opcodes, snippets)",
        &mut samples,
    );
    let mut samples = Vec::new();
    for &offset in &operand_positions {
        let t = Instant::now();
        let _ = signature_help(&parse, offset);
        samples.push(t.elapsed());
    }
    report("signature help", &mut samples);
}
