//! Timings of the whole-document features (best of N runs) on one file, for
//! server/ide/BENCHMARKS.md:
//!   cargo run --release -p ptx-ide --example whole_file_timing -- FILE [RUNS]

use std::time::{Duration, Instant};

use ptx_ide::formatting::{format_document, format_range, FormatOptions};
use ptx_syntax::Parse;

/// One timed feature: its name and what it computes (returning a count).
type Row<'a> = (&'static str, Box<dyn Fn() -> usize + 'a>);

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

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: whole_file_timing FILE [RUNS]");
    let runs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    let text = std::fs::read_to_string(&path).expect("readable file");
    let t = Instant::now();
    let parse = Parse::new(text.as_str());
    println!("{path}: {} bytes, parse {:.1?}", text.len(), t.elapsed());
    let options = FormatOptions::default();
    let middle = text.len() / 2;
    let line = text[middle..].find('\n').map_or(middle, |i| middle + i + 1);
    // The same text with one instruction's blank changed in the middle of the file: formatting
    // it after formatting the original reuses every other item's output.
    let mut edited_text = text.clone();
    if let Some(i) = edited_text[line..].find(";\n") {
        edited_text.insert(line + i + 1, ' ');
    }
    let edited = Parse::new(edited_text.as_str());
    let rows: Vec<Row> = vec![
        (
            "document symbols",
            Box::new(|| ptx_ide::symbols::document_symbols(&parse).len()),
        ),
        (
            "folding ranges",
            Box::new(|| ptx_ide::folding::folding_ranges(&parse).len()),
        ),
        (
            "formatting (whole file)",
            Box::new(|| format_document(&parse, &options).map_or(0, |e| e.len())),
        ),
        (
            "formatting after a one-line edit",
            Box::new(|| format_document(&edited, &options).map_or(0, |e| e.len())),
        ),
        (
            "range formatting (one line)",
            Box::new(|| format_range(&parse, line..line + 1, &options).map_or(0, |e| e.len())),
        ),
    ];
    for (name, f) in rows {
        let (time, n) = best(runs, f);
        println!("{name:<32} {time:>10.1?}  ({n} items)");
    }
}
