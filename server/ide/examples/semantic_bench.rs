//! Timings of full-document semantic tokens (best of N runs), for server/ide/BENCHMARKS.md:
//!   cargo run --release -p ptx-ide --example semantic_bench
//! on the 1.9 MB corpus file and on long one-line inputs that must take linear time: a
//! `.b8 tbl[N] = {…}` initializer with N = 100,000, a 5 MB line of `add` instructions, and
//! 65,536 `@%p` guards on one line.

use std::time::{Duration, Instant};

use ptx_ide::semantic_tokens::semantic_tokens;
use ptx_syntax::Parse;

fn best(runs: usize, f: impl Fn() -> usize) -> (Duration, usize) {
    let mut best = Duration::MAX;
    let mut n = 0;
    for _ in 0..runs {
        let t = Instant::now();
        n = f();
        best = best.min(t.elapsed());
    }
    (best, n)
}

fn report(name: &str, text: String, runs: usize) {
    let t = Instant::now();
    let parse = Parse::new(text.as_str());
    let parse_time = t.elapsed();
    let (time, tokens) = best(runs, || semantic_tokens(&parse, None).len());
    println!(
        "{name:<48} {:>9} bytes  parse {:>9.1?}  tokens {:>9.1?}  ({tokens} tokens)",
        text.len(),
        parse_time,
        time
    );
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus/nvcc/cub_algorithms_sm_90a.ptx");
    report(
        "cub_algorithms_sm_90a.ptx",
        std::fs::read_to_string(corpus).expect("corpus file"),
        runs,
    );
    let head = ".version 8.0\n.target sm_90\n.address_size 64\n";
    let values: Vec<String> = (0..100_000).map(|i| (i % 256).to_string()).collect();
    report(
        ".b8 tbl[100000] = {…} on one line",
        format!(
            "{head}.global .b8 tbl[100000] = {{{}}};\n",
            values.join(", ")
        ),
        runs,
    );
    let mut line = String::from(".entry k()\n{\n.reg .b32 %r<3>;\n");
    while line.len() < 5_000_000 {
        line.push_str("add.s32 %r1, %r1, %r2; ");
    }
    line.push_str("\nret;\n}\n");
    report(
        "5 MB line of add instructions",
        format!("{head}{line}"),
        runs,
    );
    let guards = "@%p ".repeat(65_536);
    report(
        "65,536 @%p guards on one line",
        format!("{head}.entry k()\n{{\n.reg .pred %p;\n{guards}ret;\n}}\n"),
        runs,
    );
}
