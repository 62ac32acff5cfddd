//! `mul` + `add` contraction against the GPU: 79 kernels, each one pattern
//! of a multiply (or `div.full`/`div.approx`) and the adds that use it, run on
//! the GPU from the cubin ptxas made (`tests/interp/contraction.py`;
//! `fixtures/gpu_contraction.jsonl.zz`, 256 input rows per kernel;
//! `fixtures/contraction_sass.txt` keeps each kernel's machine code).
//! With contraction every output is bit-exact; without it the fused kernels
//! differ, which shows what the model decides.

use std::path::Path;

use ptx_interp::{run_kernel, ArgSpec, KernelOptions};
use ptx_syntax::Parse;
use serde_json::Value;

const HEADER: &str = ".version 8.5\n.target sm_90\n.address_size 64\n";

fn cases() -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/gpu_contraction.jsonl.zz");
    let packed = std::fs::read(path).expect("fixtures/gpu_contraction.jsonl.zz");
    let raw = miniz_oxide::inflate::decompress_to_vec_zlib(&packed).expect("zlib data");
    String::from_utf8(raw)
        .expect("UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

fn hex_bytes(words: &[Value], size: usize) -> Vec<u8> {
    words
        .iter()
        .flat_map(|w| {
            let v = u64::from_str_radix(w.as_str().unwrap_or("0"), 16).unwrap_or(0);
            v.to_le_bytes()[..size].to_vec()
        })
        .collect()
}

/// Kernels whose outputs differ from the GPU's, with the first difference.
fn differing(contract: bool) -> Vec<String> {
    let mut out = Vec::new();
    for case in cases() {
        let name = case["name"].as_str().unwrap_or("");
        let size = match case["ty"].as_str().unwrap_or("") {
            "f64" => 8,
            "f16" => 2,
            _ => 4,
        };
        let rows = case["rows"].as_array().cloned().unwrap_or_default();
        let outputs = case["outputs"].as_array().cloned().unwrap_or_default();
        let input: Vec<u8> = rows
            .iter()
            .flat_map(|r| hex_bytes(r.as_array().map_or(&[][..], |a| a), size))
            .collect();
        let text = format!("{HEADER}{}\n", case["ptx"].as_str().unwrap_or(""));
        let options = KernelOptions {
            entry: name.to_owned(),
            block: [rows.len() as u32, 1, 1],
            args: vec![
                ArgSpec::Buffer(input),
                ArgSpec::Buffer(vec![0; rows.len() * 2 * size]),
            ],
            contract,
            ..KernelOptions::default()
        };
        let result = match run_kernel(&Parse::new(&text), &options) {
            Ok(r) => r,
            Err(e) => {
                out.push(format!("{name}: {}", e.message));
                continue;
            }
        };
        let got = &result.buffers[1].bytes;
        let want: Vec<u8> = outputs
            .iter()
            .flat_map(|r| hex_bytes(r.as_array().map_or(&[][..], |a| a), size))
            .collect();
        if let Some(i) =
            (0..want.len() / size).find(|&i| got[i * size..][..size] != want[i * size..][..size])
        {
            let word = |b: &[u8]| {
                let mut v = [0u8; 8];
                v[..size].copy_from_slice(&b[i * size..][..size]);
                u64::from_le_bytes(v)
            };
            out.push(format!(
                "{name}: row {} output {}: got {:#x}, GPU {:#x} (inputs {:?})",
                i / 2,
                i % 2,
                word(got),
                word(&want),
                rows[i / 2]
            ));
        }
    }
    out
}

#[test]
fn contracted_runs_agree_with_the_gpu() {
    let differ = differing(true);
    for d in &differ {
        println!("  {d}");
    }
    assert!(
        differ.is_empty(),
        "{} kernels differ from the GPU",
        differ.len()
    );
}

#[test]
fn rounding_each_step_differs_where_ptxas_fuses() {
    let differ: Vec<String> = differing(false)
        .iter()
        .map(|d| d.split(':').next().unwrap_or("").to_owned())
        .collect();
    println!(
        "without contraction {} kernels differ: {differ:?}",
        differ.len()
    );
    // The kernels ptxas fuses (fixtures/contraction_sass.txt) and whose
    // inputs show it; the ones it keeps apart agree either way.
    for fused in [
        "add_tc",
        "sub_ct",
        "two_adds",
        "div_full_add",
        "f64_add_tc",
        "f16x2_add",
    ] {
        assert!(differ.iter().any(|d| d == fused), "{fused}");
    }
    for kept in [
        "mul_rn",
        "use_twice_store",
        "across_blocks",
        "ftz_mul",
        "sat_mul",
        "guarded_both",
    ] {
        assert!(!differ.iter().any(|d| d == kept), "{kept}");
    }
}
