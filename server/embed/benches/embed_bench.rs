//! Benchmark: a generated 5,000-line CUDA header with 300 asm statements (deterministic).
//! Measures, per edit inside one statement, the diagnostics of the whole file (reading the
//! asm statements again and checking them), and hover and completion inside a statement.
//!
//! Run: `cargo bench -p ptx-embed --bench embed_bench` (figures in server/embed/BENCHMARKS.md).

use std::time::{Duration, Instant};

use ptx_embed::{EmbedOptions, HostDocument};

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
fn header() -> String {
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

fn percentile(times: &mut [Duration], p: f64) -> Duration {
    times.sort();
    let i = ((times.len() as f64 - 1.0) * p).round() as usize;
    times[i]
}

fn report(name: &str, times: &mut [Duration]) {
    let p50 = percentile(times, 0.50);
    let p99 = percentile(times, 0.99);
    println!(
        "{name:<40} p50 {:>8.3} ms   p99 {:>8.3} ms   ({} runs)",
        p50.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3,
        times.len()
    );
}

fn main() {
    let mut text = header();
    let options = EmbedOptions {
        target: Some("sm_90a".into()),
        ..EmbedOptions::default()
    };
    println!(
        "header: {} lines, {} bytes",
        text.lines().count(),
        text.len()
    );
    parts(&text);
    let doc = HostDocument::new(&text, &options);
    println!("asm statements: {}", doc.statements.len());
    let runs = 600;
    let mut diagnostics = Vec::with_capacity(runs);
    // The open document, checked once before the edits start.
    std::hint::black_box(ptx_embed::check::check(&doc, &[]));
    let mut previous: Option<HostDocument> = Some(doc);
    for i in 0..runs {
        // An edit inside statement i: toggle a qualifier of its first instruction.
        let at = text
            .match_indices("asm volatile(\"")
            .nth(i % 300)
            .map(|(o, _)| o + 14)
            .expect("a statement");
        text.insert(at, ' ');
        let start = Instant::now();
        let doc = HostDocument::new_incremental(&text, &options, previous.as_ref());
        let d = ptx_embed::check::check(&doc, &[]);
        diagnostics.push(start.elapsed());
        std::hint::black_box(d);
        previous = Some(doc);
    }
    report("diagnostics after an edit (whole file)", &mut diagnostics);

    let doc = previous.expect("a document");
    let hover_config = ptx_ide::hover::HoverConfig {
        target_override: None,
        version_override: None,
        spec: None,
        target_unknown: false,
    };
    let offsets: Vec<usize> = text
        .match_indices("asm volatile(\"")
        .map(|(o, _)| o + 17)
        .collect();
    let mut hovers = Vec::new();
    let mut completions = Vec::new();
    for i in 0..1000 {
        let at = offsets[i % offsets.len()];
        let start = Instant::now();
        std::hint::black_box(ptx_embed::ide::hover(&doc, at, &hover_config));
        hovers.push(start.elapsed());
        let start = Instant::now();
        std::hint::black_box(ptx_embed::ide::complete(&doc, at));
        completions.push(start.elapsed());
    }
    report("hover in a statement", &mut hovers);
    report("completion in a statement", &mut completions);
    let mut finds = Vec::new();
    for _ in 0..100 {
        let at = text.find("asm volatile(\"").expect("a statement") + 14;
        let old = text.clone();
        text.insert(at, ' ');
        let old_tree = ptx_embed::find::find(&old).0;
        let start = Instant::now();
        std::hint::black_box(ptx_embed::find::find_incremental(
            &text,
            Some((&old, &old_tree)),
            &[],
        ));
        finds.push(start.elapsed());
    }
    report("  of which: incremental parse and scan", &mut finds);
}

#[allow(dead_code)]
fn parts(text: &str) {
    let start = Instant::now();
    let mut parser = ptx_embed::find::cuda_parser();
    let tree = parser.parse(text, None);
    println!("tree-sitter-cuda parse: {:?}", start.elapsed());
    std::hint::black_box(tree);
    let start = Instant::now();
    let found = ptx_embed::find::find(text);
    println!("find (parse + scan): {:?}", start.elapsed());
    std::hint::black_box(found);
}
