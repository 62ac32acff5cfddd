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
    after_an_edit(&text, line, runs);
}

/// What the first viewport request after a one-character edit pays: the
/// incremental reparse, the line index, and the viewport's own work (about
/// 60 lines of semantic tokens and inlay hints around the middle).
fn after_an_edit(text: &str, line_start: usize, runs: usize) {
    use ptx_syntax::{Document, LineCol, LineIndex, PositionEncoding, TextEdit};
    let line = text[..line_start].matches('\n').count() as u32;
    let mut document = Document::new(text, 1);
    document.parse();
    let mut totals = [Duration::MAX; 8];
    for version in 0..runs as i32 {
        // Type a blank at the start of the line, or delete it again.
        let at = LineCol { line, col: 0 };
        let range = if version % 2 == 0 {
            (at, at)
        } else {
            (at, LineCol { line, col: 1 })
        };
        let edit = TextEdit {
            range: Some(range),
            text: if version % 2 == 0 {
                " ".into()
            } else {
                String::new()
            },
        };
        let t = Instant::now();
        document.edit(&[edit], PositionEncoding::Utf16, version + 2);
        let edited = t.elapsed();
        let pending = document.pending();
        let t = Instant::now();
        let text = pending.text();
        let joined = t.elapsed();
        let t = Instant::now();
        let parse = pending.get();
        let parsed = t.elapsed();
        let t = Instant::now();
        let deep = parse.too_deep();
        let walked = t.elapsed();
        let t = Instant::now();
        let index = LineIndex::new(text);
        let indexed = t.elapsed();
        let viewport = line_start.saturating_sub(2_000)..(line_start + 2_000).min(text.len());
        let t = Instant::now();
        let tokens = ptx_ide::semantic_tokens::semantic_tokens(parse, Some(viewport.clone()));
        let tokened = t.elapsed();
        let t = Instant::now();
        let hints = ptx_ide::inlay_hints::inlay_hints(parse, viewport);
        let hinted = t.elapsed();
        let t = Instant::now();
        let formatted = format_range(parse, line_start..line_start + 1, &FormatOptions::default());
        let ranged = t.elapsed();
        std::hint::black_box((deep, index, tokens, hints, formatted));
        for (total, d) in totals.iter_mut().zip([
            edited, joined, parsed, walked, indexed, tokened, hinted, ranged,
        ]) {
            *total = (*total).min(d);
        }
    }
    for (name, d) in [
        "edit (rope and old tree)",
        "text of the rope",
        "incremental reparse",
        "nesting check",
        "line index",
        "viewport semantic tokens",
        "viewport inlay hints",
        "range formatting (one line)",
    ]
    .iter()
    .zip(totals)
    {
        println!("after an edit: {name:<30} {d:>10.1?}");
    }
}
