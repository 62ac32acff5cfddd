//! Interpreter throughput in thread-instructions per second (figures, not a
//! timed test): an integer loop and a float loop, warp-uniform and divergent,
//! on 1024 threads. `cargo bench -p ptx-interp` prints them; BENCHMARKS.md
//! records them.

use std::time::Instant;

use ptx_interp::{parse_arg, run_kernel, run_snippet, KernelOptions, SnippetOptions};
use ptx_syntax::Parse;

const INT_UNIFORM: &str = "
.reg .b32 %r<8>;
.reg .pred %p;
    mov.u32 %r0, %tid.x;
    mov.u32 %r1, 0;
    mov.u32 %r2, 0x9e3779b9;
LOOP:
    add.u32 %r3, %r0, %r2;
    xor.b32 %r4, %r3, %r1;
    shl.b32 %r5, %r4, 3;
    mad.lo.u32 %r0, %r5, 7, %r4;
    lop3.b32 %r6, %r0, %r3, %r5, 0x96;
    add.u32 %r1, %r1, 1;
    setp.lt.u32 %p, %r1, 2000;
@%p bra LOOP;
";

const INT_DIVERGENT: &str = "
.reg .b32 %r<8>;
.reg .pred %p, %q;
    mov.u32 %r0, %tid.x;
    mov.u32 %r1, 0;
    and.b32 %r7, %r0, 1;
    setp.eq.u32 %q, %r7, 0;
LOOP:
@%q bra EVEN;
    add.u32 %r3, %r0, %r1;
    xor.b32 %r0, %r3, 0x5555;
    bra NEXT;
EVEN:
    shl.b32 %r3, %r0, 1;
    sub.u32 %r0, %r3, %r1;
NEXT:
    add.u32 %r1, %r1, 1;
    setp.lt.u32 %p, %r1, 2000;
@%p bra LOOP;
";

const FLOAT_UNIFORM: &str = "
.reg .b32 %r<2>;
.reg .f32 %f<8>;
.reg .pred %p;
    cvt.rn.f32.u32 %f0, %tid.x;
    mov.f32 %f1, 0f3F800000;
    mov.u32 %r1, 0;
LOOP:
    fma.rn.f32 %f2, %f0, 0f3F000000, %f1;
    mul.rn.f32 %f3, %f2, %f2;
    add.rn.f32 %f1, %f3, 0fBF800000;
    max.f32 %f4, %f1, %f2;
    sub.rn.f32 %f0, %f4, %f3;
    add.u32 %r1, %r1, 1;
    setp.lt.u32 %p, %r1, 2000;
@%p bra LOOP;
";

const FLOAT_DIVERGENT: &str = "
.reg .b32 %r<3>;
.reg .f32 %f<8>;
.reg .pred %p, %q;
    cvt.rn.f32.u32 %f0, %tid.x;
    mov.f32 %f1, 0f3F800000;
    mov.u32 %r1, 0;
    and.b32 %r2, %r1, 0;
    mov.u32 %r0, %tid.x;
    and.b32 %r2, %r0, 1;
    setp.eq.u32 %q, %r2, 0;
LOOP:
@%q bra EVEN;
    fma.rn.f32 %f1, %f0, 0f3F000000, %f1;
    bra NEXT;
EVEN:
    mul.rn.f32 %f1, %f1, 0f3F7FF000;
NEXT:
    add.u32 %r1, %r1, 1;
    setp.lt.u32 %p, %r1, 2000;
@%p bra LOOP;
";

fn measure(name: &str, text: &str) {
    let parse = Parse::new(text);
    let options = SnippetOptions {
        threads: 1024,
        max_steps: u64::MAX,
        ..SnippetOptions::default()
    };
    // Warm up, then keep the best of three.
    let _ = run_snippet(&parse, &options);
    let mut best = f64::INFINITY;
    let mut thread_instructions = 0;
    for _ in 0..3 {
        let start = Instant::now();
        let result = run_snippet(&parse, &options).expect("benchmark snippet runs");
        best = best.min(start.elapsed().as_secs_f64());
        thread_instructions = result.thread_instructions;
    }
    println!(
        "{name:<18} {:>6.1} M thread-instr/s  ({thread_instructions} thread-instructions in {:.1} ms)",
        thread_instructions as f64 / best / 1e6,
        best * 1e3
    );
}

/// The real kernels of `fixtures/real_kernels.jsonl` (those of 50,000
/// thread-instructions or more), the bulk-copy and wgmma pipeline kernels
/// of `fixtures/bulk_kernels.jsonl` and the cluster, TMA and Triton sm_90a
/// matmul launches of `fixtures/cluster_kernels.jsonl.zz` and the CUTLASS
/// GEMMs and Triton attention of `fixtures/hopper_kernels.jsonl.zz`, each launch timed
/// whole: decoding the entry and its callees, allocating memory, running
/// every CTA.
fn real_kernels() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut parses: std::collections::HashMap<String, Parse> = Default::default();
    // `REAL_KERNEL=name` measures that run alone (for profiling).
    let only = std::env::var("REAL_KERNEL").ok();
    let mut runs = Vec::new();
    for (fixture, least) in [
        ("real_kernels.jsonl", 50_000),
        ("bulk_kernels.jsonl", 0),
        ("cluster_kernels.jsonl.zz", 0),
        ("hopper_kernels.jsonl.zz", 0),
    ] {
        let bytes = std::fs::read(root.join("fixtures").join(fixture))
            .unwrap_or_else(|e| panic!("fixtures/{fixture}: {e}"));
        let bytes = if fixture.ends_with(".zz") {
            miniz_oxide::inflate::decompress_to_vec_zlib(&bytes).expect("zlib data")
        } else {
            bytes
        };
        let text = String::from_utf8(bytes).expect("UTF-8 text");
        runs.extend(
            text.lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| (l.to_owned(), least)),
        );
    }
    for (line, least) in runs {
        let run: serde_json::Value = serde_json::from_str(&line).expect("a JSON line");
        if only.as_deref().is_some_and(|o| run["name"] != o) {
            continue;
        }
        let file = run["file"].as_str().unwrap_or_default().to_owned();
        let parse = parses.entry(file.clone()).or_insert_with(|| {
            Parse::new(std::fs::read_to_string(root.join("../..").join(&file)).expect("kernel"))
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
        let options = KernelOptions {
            entry: run["entry"].as_str().unwrap_or_default().to_owned(),
            grid: dims("grid"),
            block: dims("block"),
            args: run["args"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|a| parse_arg(a.as_str().unwrap_or_default()).expect("argument"))
                .collect(),
            max_steps: u64::MAX,
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
        let Ok(first) = run_kernel(parse, &options) else {
            continue;
        };
        if first.thread_instructions < least {
            continue;
        }
        let mut best = f64::INFINITY;
        for _ in 0..3 {
            let start = Instant::now();
            let _ = run_kernel(parse, &options);
            best = best.min(start.elapsed().as_secs_f64());
        }
        let name = run["name"].as_str().unwrap_or_default();
        println!(
            "{name:<30} {:>6.1} M thread-instr/s  ({} thread-instructions in {:.1} ms)",
            first.thread_instructions as f64 / best / 1e6,
            first.thread_instructions,
            best * 1e3
        );
    }
}

fn main() {
    if std::env::var("REAL_KERNEL").is_ok() {
        real_kernels();
        return;
    }
    measure("int, uniform", INT_UNIFORM);
    measure("int, divergent", INT_DIVERGENT);
    measure("float, uniform", FLOAT_UNIFORM);
    measure("float, divergent", FLOAT_DIVERGENT);
    real_kernels();
}
