//! Real kernels — nvcc, CUB and Triton PTX from `tests/corpus` — run in kernel
//! mode and compared with the buffers an H100 produced from the same inputs
//! (`fixtures/real_kernels.jsonl`, from `tests/interp/real_kernels.py --run`).
//!
//! Bytes that differed between two launches on the GPU (a clock read) are not
//! compared. Every other byte must match, except in the outputs listed in
//! [`TOLERANCES`]: values computed through approximate instructions, which
//! must be within the stated distance in units in the last place. The outcome
//! of every run (bytes compared, mismatches, thread-instructions) is held to
//! `fixtures/real_kernels.expected`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use ptx_interp::{parse_arg, run_kernel, KernelOptions};
use ptx_syntax::Parse;
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Outputs that depend on approximate instructions (`ex2.approx`,
/// `rsqrt.approx`, `sin.approx`, `div.full` ...): (run, argument, element
/// format, largest distance allowed in units in the last place, or in units
/// for integers computed from such values). The distances are the ones
/// measured against the H100; the report states each output's largest.
const TOLERANCES: &[(&str, usize, &str, u64)] = &[
    // The Triton softmax (ex2.approx.f32, div.full.f32) and dropout
    // (div.full.f32) kernels need no entry: the special-function unit model
    // of `src/mufu.rs` makes them bit-exact.
    // float_ops (sin/cos/ex2/lg2/rsqrt.approx.f32, div.approx) is bit-exact too.
    // ex2.approx.f16x2 (h2exp), sqrt through rsqrt.approx (h2sqrt), rcp (__h2div)
    ("half_ops_sm_80", 2, "f16", 2),
    ("half_ops_sm_90a", 2, "f16", 2),
    // fma.rn.bf16x2 (its relu form): one bf16 ulp, which is 65536 f32 ulps
    // once the value is widened to f32
    ("half_ops_sm_90a", 3, "bf16", 1),
    ("half_ops_sm_90a", 5, "f32", 65536),
];

/// Bytes that two threads of different warps both store (an order the
/// program leaves open): (run, argument, first byte, end).
const RACES: &[(&str, usize, usize, usize)] = &[
    // `f8[i + 1]` of thread 31 and `f8[i]` of thread 32 (2-byte elements).
    ("half_ops_sm_80", 4, 64, 66),
    ("half_ops_sm_90a", 4, 64, 66),
];

fn element_size(format: &str) -> usize {
    match format {
        "e4m3" | "e5m2" => 1,
        "f16" | "bf16" => 2,
        "f64" => 8,
        _ => 4,
    }
}

/// A key whose difference between two values is their distance in ulps
/// (sign-magnitude floats) or units (two's-complement integers).
fn ulp_key(bits: u64, format: &str) -> i128 {
    let width = element_size(format) as u32 * 8;
    if format == "s32" {
        return i128::from(bits as u32 as i32);
    }
    let sign = 1u64 << (width - 1);
    let magnitude = i128::from(bits & (sign - 1));
    if bits & sign != 0 {
        -magnitude
    } else {
        magnitude
    }
}

fn element(bytes: &[u8], index: usize, size: usize) -> u64 {
    let mut buf = [0u8; 8];
    buf[..size].copy_from_slice(&bytes[index * size..index * size + size]);
    u64::from_le_bytes(buf)
}

/// One line of the report for a run.
fn check(run: &Value, parses: &mut HashMap<String, Parse>) -> String {
    let name = run["name"].as_str().unwrap_or("?");
    if let Some(error) = run.get("error") {
        if run.get("args").is_none() {
            return format!("{name}: the GPU run failed: {error}");
        }
    }
    let file = run["file"].as_str().unwrap_or("");
    let parse = parses.entry(file.to_owned()).or_insert_with(|| {
        let text =
            std::fs::read_to_string(root().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        Parse::new(text)
    });
    let dims = |key: &str| -> [u32; 3] {
        let v: Vec<u32> = run[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|d| d.as_u64().map(|d| d as u32))
            .collect();
        [v[0], v[1], v[2]]
    };
    let args: Result<Vec<_>, _> = run["args"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| parse_arg(a.as_str().unwrap_or("")))
        .collect();
    let args = match (args, run.get("error").and_then(Value::as_str)) {
        (Ok(args), _) => args,
        // The driver refused to encode a tensor map: the interpreter must
        // refuse the argument.
        (Err(error), Some(gpu)) if gpu.contains("cuTensorMapEncode") => {
            return format!("{name}: ok, both refuse the tensor map: the GPU's driver with {gpu}; the interpreter: {error}");
        }
        (Err(error), _) => {
            return format!("{name}: MISMATCH, the interpreter refuses an argument: {error}")
        }
    };
    let options = KernelOptions {
        entry: run["entry"].as_str().unwrap_or("").to_owned(),
        grid: dims("grid"),
        block: dims("block"),
        args,
        max_steps: 50_000_000,
        hint_thread: 0,
        dynamic_smem: run["smem"].as_u64().map(|s| s as u32),
        contract: true,
        cluster: run["cluster"].as_array().map(|c| {
            let d: Vec<u32> = c
                .iter()
                .filter_map(|x| x.as_u64())
                .map(|x| x as u32)
                .collect();
            [d[0], d[1], d[2]]
        }),
    };
    let outcome = run_kernel(parse, &options);
    if let Some(gpu) = run.get("error").and_then(Value::as_str) {
        // The GPU stopped the launch (a trap): the interpreter must fault too.
        return match outcome {
            Ok(_) => format!("{name}: MISMATCH, the GPU failed ({gpu}) but the run finished"),
            Err(error) => {
                let line = error
                    .range
                    .map(|r| parse.text()[..r.start].lines().count() + 1)
                    .unwrap_or(0);
                format!(
                    "{name}: ok, both stop: the GPU with {gpu}; the interpreter at line {line}: {}",
                    error.message
                )
            }
        };
    }
    let result = match outcome {
        Ok(result) => result,
        Err(error) => {
            let line = error
                .range
                .map(|r| parse.text()[..r.start].lines().count() + 1)
                .unwrap_or(0);
            return format!("{name}: error at line {line}: {}", error.message);
        }
    };
    let volatile: Vec<(usize, usize, usize)> = run["volatile"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| {
            let v: Vec<usize> = v
                .as_array()?
                .iter()
                .filter_map(|x| x.as_u64())
                .map(|x| x as usize)
                .collect();
            // Whole 32-bit words: a byte that happened to agree in both GPU
            // launches is as unreliable as its neighbours.
            Some((v[0], v[1] / 4 * 4, v[2].div_ceil(4) * 4))
        })
        .chain(
            RACES
                .iter()
                .filter(|r| r.0 == name)
                .map(|r| (r.1, r.2, r.3)),
        )
        .collect();
    let mut compared = 0usize;
    let mut problems = Vec::new();
    for buffer in run["buffers"].as_array().into_iter().flatten() {
        let arg = buffer["arg"].as_u64().unwrap_or(0) as usize;
        let hex = buffer["hex"].as_str().unwrap_or("");
        let want: Vec<u8> = (0..hex.len() / 2)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap_or(0))
            .collect();
        let got = result
            .buffers
            .iter()
            .find(|b| b.arg == arg)
            .map(|b| b.bytes.clone())
            .unwrap_or_default();
        let skip = |k: usize| {
            volatile
                .iter()
                .any(|&(a, s, e)| a == arg && (s..e).contains(&k))
        };
        let tolerance = TOLERANCES
            .iter()
            .find(|t| t.0 == name && t.1 == arg)
            .map(|t| (t.2, t.3));
        let mut bad = 0usize;
        let mut first = None;
        let mut worst = 0u64;
        let mut differ = 0usize;
        match tolerance {
            Some((format, limit)) => {
                let size = element_size(format);
                for i in 0..want.len().min(got.len()) / size {
                    if (i * size..(i + 1) * size).any(skip) {
                        continue;
                    }
                    compared += size;
                    let (a, b) = (element(&want, i, size), element(&got, i, size));
                    let distance = ulp_key(a, format).abs_diff(ulp_key(b, format)) as u64;
                    if a != b {
                        worst = worst.max(distance);
                        differ += 1;
                    }
                    if a != b && distance > limit {
                        bad += 1;
                        first.get_or_insert((i * size, a, b));
                    }
                }
                if worst > 0 {
                    problems.push(format!(
                        "arg {arg}: {format} within {worst} ulp in {differ} elements (allowed {limit})"
                    ));
                }
            }
            None => {
                for (k, &byte) in want.iter().enumerate() {
                    if skip(k) {
                        continue;
                    }
                    compared += 1;
                    if got.get(k) != Some(&byte) {
                        bad += 1;
                        first.get_or_insert((
                            k,
                            u64::from(byte),
                            got.get(k).map_or(0, |&x| u64::from(x)),
                        ));
                    }
                }
            }
        }
        if got.len() != want.len() {
            problems.push(format!(
                "arg {arg}: {} bytes, the GPU's has {}",
                got.len(),
                want.len()
            ));
        }
        if let Some((at, a, b)) = first {
            problems.push(format!(
                "arg {arg}: {bad} differ, first at byte {at} (gpu {a:#x}, interp {b:#x})"
            ));
        }
    }
    let status = if problems
        .iter()
        .any(|p| p.contains("differ") || p.contains("bytes, the GPU"))
    {
        "MISMATCH"
    } else {
        "ok"
    };
    let mut line = format!(
        "{name}: {status}, {compared} bytes compared, {} thread-instructions",
        result.thread_instructions
    );
    for problem in problems {
        line.push_str("; ");
        line.push_str(&problem);
    }
    line
}

/// The report of every launch of a fixture file, and the number of launches.
fn report(fixture: &str) -> (String, usize) {
    let bytes = std::fs::read(root().join("server/interp/fixtures").join(fixture))
        .unwrap_or_else(|e| panic!("fixtures/{fixture}: {e}"));
    let bytes = if fixture.ends_with(".zz") {
        miniz_oxide::inflate::decompress_to_vec_zlib(&bytes).expect("zlib data")
    } else {
        bytes
    };
    let text = String::from_utf8(bytes).expect("UTF-8 text");
    let mut parses = HashMap::new();
    let mut report = String::new();
    let mut runs = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let run: Value = serde_json::from_str(line).expect("a JSON line");
        report.push_str(&check(&run, &mut parses));
        report.push('\n');
        runs += 1;
    }
    (report, runs)
}

#[test]
fn real_kernels_agree_with_the_gpu() {
    let (report, runs) = report("real_kernels.jsonl");
    assert!(runs >= 20, "only {runs} real kernels");
    expect_test::expect_file!["../fixtures/real_kernels.expected"].assert_eq(&report);
}

/// `wmma` fragment layouts (register dumps after loads, memory after stores)
/// and `wmma.mma` results of every shape and type, from
/// `tests/interp/wmma_fixtures.py`.
#[test]
fn wmma_agrees_with_the_gpu() {
    let (report, runs) = report("wmma_kernels.jsonl");
    assert!(runs >= 200, "only {runs} wmma launches");
    expect_test::expect_file!["../fixtures/wmma_kernels.expected"].assert_eq(&report);
}

/// `wgmma` on the H100 (`tests/interp/wgmma_fixtures.py`): every K-major and
/// MN-major layout and swizzle mode of A and B, start addresses inside a
/// swizzle atom with and without the base offset, every N for f16 and s8,
/// every input type with register and descriptor A, negation and scale-d.
/// Floats are compared bit for bit against the measured accumulation model.
#[test]
fn wgmma_agrees_with_the_gpu() {
    let (report, runs) = report("wgmma_kernels.jsonl.zz");
    assert!(runs >= 200, "only {runs} wgmma launches");
    expect_test::expect_file!["../fixtures/wgmma_kernels.expected"].assert_eq(&report);
}

/// Bulk copies with mbarrier transaction counts and a wgmma pipeline fed by
/// them (`tests/interp/bulk_fixtures.py`).
#[test]
fn bulk_copies_agree_with_the_gpu() {
    let (report, runs) = report("bulk_kernels.jsonl");
    assert_eq!(runs, 4);
    expect_test::expect_file!["../fixtures/bulk_kernels.expected"].assert_eq(&report);
}

/// Clusters of several CTAs (special registers, distributed shared memory,
/// cluster barriers, bulk copies and mbarrier arrivals across CTAs, multicast)
/// and TMA tensor copies (1D to 5D loads, stores and reductions, every
/// swizzle, out-of-bounds fills, element strides, multicast), hand-written and
/// compiled by nvcc, and Triton's sm_90a matmul at 256^3
/// (`tests/interp/cluster_fixtures.py`).
#[test]
fn clusters_and_tensor_copies_agree_with_the_gpu() {
    let (report, runs) = report("cluster_kernels.jsonl.zz");
    assert!(runs >= 43, "only {runs} launches");
    expect_test::expect_file!["../fixtures/cluster_kernels.expected"].assert_eq(&report);
}

/// Hopper kernels nobody here wrote by hand (`tests/interp/hopper_fixtures.py`
/// and `tests/interp/kernels/cutlass_gemm.cu`): four CUTLASS 3.x warp-specialized
/// GEMMs (TMA loads with multicast in clusters of two and four, wgmma of f16,
/// bf16 and e4m3, TMA and register epilogues, persistent tile schedulers, the
/// cooperative, ping-pong and one-tile schedules, an MN-major B), their
/// parameters a struct holding CUTLASS's own tensor maps; Triton's
/// FlashAttention-style forward kernel for sm_90a with pointers and with host
/// tensor descriptors, its persistent TMA matmul, and its copy through tensor
/// maps built on the device (`tensormap.replace`).
#[test]
fn hopper_gemms_and_attention_agree_with_the_gpu() {
    let (report, runs) = report("hopper_kernels.jsonl.zz");
    assert!(runs >= 11, "only {runs} launches");
    expect_test::expect_file!["../fixtures/hopper_kernels.expected"].assert_eq(&report);
}

/// Sparse `wgmma.mma_async.sp` on the H100 (`tests/interp/wgmma_sp_fixtures.py`):
/// probes with an identity B that show where the metadata puts each packed
/// element (16-bit, tf32 and 8-bit types, A from registers and descriptors,
/// both selectors), and random values of every type pair with negation,
/// scale-d and accumulators.
#[test]
fn sparse_wgmma_agrees_with_the_gpu() {
    let (report, runs) = report("wgmma_sp_kernels.jsonl.zz");
    assert!(runs >= 60, "only {runs} sparse wgmma launches");
    expect_test::expect_file!["../fixtures/wgmma_sp_kernels.expected"].assert_eq(&report);
}

/// TMA im2col loads on the H100 (`tests/interp/im2col_fixtures.py`): 3D to
/// 5D maps from cuTensorMapEncodeIm2col, bounding-box corners below and
/// above the tensor, im2col offsets, traversal strides, pixels running on
/// into the next rows and images and past the last one, channel ranges,
/// swizzles, f32 NaN fill, and a first coordinate off a 16-byte boundary
/// (the GPU stops); `.im2col_no_offs` stores and add reductions (bounding
/// boxes inside the tensor, a piece of channels past C, and the corners and
/// coordinates the GPU stops at); multicast loads into a 2-CTA cluster.
#[test]
fn im2col_copies_agree_with_the_gpu() {
    let (report, runs) = report("im2col_kernels.jsonl.zz");
    assert!(runs >= 64, "only {runs} im2col launches");
    expect_test::expect_file!["../fixtures/im2col_kernels.expected"].assert_eq(&report);
}

/// `tests/interp/tmap_layout_fixtures.py` on the GPU: stores, add/min/max
/// reductions and loads through host-encoded f32, f32.ftz, tf32 and
/// tf32.ftz maps (and element types replaced by `tensormap.replace`) over
/// subnormals, ties, NaNs and infinities; loads, stores and reductions
/// through interleaved maps (16- and 32-byte, 3 to 5 dimensions, swizzles,
/// edges, element strides, the interleave set by `tensormap.replace`, tf32
/// elements), the NaN fill of every floating-point element type, and the
/// encodings the driver refuses.
#[test]
fn tensor_map_types_and_layouts_agree_with_the_gpu() {
    let (report, runs) = report("tmap_layout_kernels.jsonl.zz");
    assert!(runs >= 92, "only {runs} launches");
    expect_test::expect_file!["../fixtures/tmap_layout_kernels.expected"].assert_eq(&report);
}

/// `tensormap.replace` on the H100 (`tests/interp/tmap_replace_fixtures.py`):
/// an f32 map copied to global memory, one or two fields replaced (element
/// types f32, f32.ftz, tf32, tf32.ftz and s32; 16- and 32-byte interleave,
/// alone and with swizzles; fill modes), then a TMA load through it whose
/// last row is past the tensor.
#[test]
fn tensormap_replace_fields_agree_with_the_gpu() {
    let (report, runs) = report("tmap_replace_kernels.jsonl.zz");
    assert!(runs >= 13, "only {runs} tensormap.replace launches");
    expect_test::expect_file!["../fixtures/tmap_replace_kernels.expected"].assert_eq(&report);
}
