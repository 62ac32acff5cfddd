//! Holds the interpreter to the per-instruction sweeps recorded on an H100
//! (`fixtures/sweeps/summary.txt`, from `tests/interp/sweeps.py`): one kernel
//! per instruction form, 131072 input rows each, of which the GPU's outputs
//! are kept as a digest per chunk of 4096 rows.
//!
//! This test regenerates the kernels and inputs, runs the first
//! [`CHUNKS`] chunks of every form (the table combinations and a chunk of
//! random rows) and compares digests. Rows recorded as known differences (the
//! summary's `row` lines, explained in `fixtures/sweeps/README.md`) are
//! replaced by the GPU's values first, and each must still differ. `cargo run
//! --release -p ptx-interp --example sweep check fixtures/sweeps/summary.txt`
//! compares every row.

mod sweep;

use std::collections::BTreeMap;
use std::path::Path;

use sweep::record::{read, ulps, Record};

/// Chunks compared here: the table combinations, then random rows.
const CHUNKS: u32 = 5;

/// Approximate forms the interpreter reproduces bit for bit.
const EXACT_APPROX: &[&str] = &[
    "rcp.approx.f32",
    "rcp.approx.ftz.f32",
    "sqrt.approx.f32",
    "sqrt.approx.ftz.f32",
    "rsqrt.approx.f32",
    "rsqrt.approx.ftz.f32",
    "div.full.f32",
    "div.full.ftz.f32",
    "div.approx.f32",
    "div.approx.ftz.f32",
    "ex2.approx.f32",
    "ex2.approx.ftz.f32",
    "sin.approx.f32",
    "sin.approx.ftz.f32",
    "cos.approx.f32",
    "cos.approx.ftz.f32",
    "lg2.approx.f32",
    "lg2.approx.ftz.f32",
    "ex2.approx.f16",
    "ex2.approx.f16x2",
    "ex2.approx.ftz.bf16",
    "ex2.approx.ftz.bf16x2",
    "rcp.approx.ftz.f64",
    "rsqrt.approx.f64",
    "rsqrt.approx.ftz.f64",
    "tanh.approx.f16",
    "tanh.approx.f16x2",
    "tanh.approx.bf16",
    "tanh.approx.bf16x2",
    "tanh.approx.f32",
];

fn summary() -> Vec<Record> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/sweeps/summary.txt");
    read(&std::fs::read_to_string(path).expect("fixtures/sweeps/summary.txt"))
}

#[test]
fn every_form_is_recorded() {
    let forms = sweep::forms::all();
    let records = summary();
    assert_eq!(
        forms.len(),
        records.len(),
        "forms and records differ in number"
    );
    for (f, r) in forms.iter().zip(&records) {
        assert_eq!(f.name, r.name, "form {} is not the recorded one", r.index);
        assert_eq!(r.chunks.len(), (sweep::ROWS / sweep::CHUNK) as usize);
        assert!(r.error.is_none(), "{}: {:?}", r.name, r.error);
    }
}

#[test]
fn sweeps_agree_with_the_gpu() {
    let forms = sweep::forms::all();
    let records = summary();
    let rows = CHUNKS * sweep::CHUNK;
    let mut failures = Vec::new();
    let mut approx_report = BTreeMap::new();
    let mut compared = 0u64;
    // The interpreter's outputs, computed on every core.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(BTreeMap::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(f) = forms.get(i) else { break };
                let words = sweep::record::interpret(f, rows);
                results.lock().unwrap().insert(f.name.clone(), words);
            });
        }
    });
    let mut outputs = results.into_inner().unwrap();
    let mut known = 0usize;
    for (f, r) in forms.iter().zip(&records) {
        if f.name != r.name {
            failures.push(format!("{}: not the recorded form", f.name));
            continue;
        }
        let cols = f.columns();
        let mut words = match outputs.remove(&f.name).unwrap_or(Err("not run".into())) {
            Ok(w) => w,
            Err(e) => {
                failures.push(format!("{}: {e}", f.name));
                continue;
            }
        };
        compared += u64::from(rows);
        if let Some(format) = f.approx {
            // Largest distance over the recorded rows, and whether the
            // compared chunks agree bit for bit.
            let mut max = 0;
            for (row, kept) in r.rows_kept.iter().filter(|(row, _)| *row < rows) {
                let at = *row as usize * cols;
                for k in f.inputs.len()..cols {
                    max = max.max(ulps(kept[k], words[at + k], format));
                }
            }
            let digests = sweep::chunk_digests(&words, cols);
            let same = digests.iter().zip(&r.chunks).all(|(a, b)| a == b);
            if EXACT_APPROX.contains(&f.name.as_str()) && !same {
                failures.push(format!("{}: no longer bit-exact", f.name));
            }
            approx_report.insert(f.name.clone(), (same, max, r.ulp));
            continue;
        }
        for (row, kept) in r.rows_kept.iter().filter(|(row, _)| *row < rows) {
            let at = *row as usize * cols;
            if words[at..at + cols] == kept[..cols] {
                failures.push(format!("{} row {row}: listed but agrees now", f.name));
            }
            words[at..at + cols].copy_from_slice(&kept[..cols]);
            known += 1;
        }
        let digests = sweep::chunk_digests(&words, cols);
        for (k, (mine, gpu)) in digests.iter().zip(&r.chunks).enumerate() {
            if mine != gpu {
                failures.push(format!(
                    "{}: rows {}..{} differ from the GPU (`sweep check` lists them)",
                    f.name,
                    k as u32 * sweep::CHUNK,
                    (k as u32 + 1) * sweep::CHUNK
                ));
            }
        }
    }
    for (name, (same, max, recorded)) in &approx_report {
        let state = if *same { "bit-exact" } else { "differs" };
        match recorded {
            Some((ulp, exact)) => println!(
                "{name}: {state}; recorded: max {ulp} ulp, {:.2}% exact",
                exact * 100.0
            ),
            None => println!("{name}: {state}; max {max} ulp on recorded rows"),
        }
    }
    println!(
        "{} forms, {compared} rows compared, {known} known differences",
        forms.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
