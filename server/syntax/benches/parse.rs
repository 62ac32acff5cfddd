//! Parse throughput and incremental reparse latency (figures, not a test).
//!
//! `cargo bench -p ptx-syntax` parses the largest file of `tests/corpus`
//! (or the file named by `PTX_BENCH_FILE`) and prints:
//! - full-parse throughput in MB/s (best and median of several runs);
//! - the time to apply a one-character edit in the middle and reparse
//!   incrementally (median and p99 over many edits).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ptx_syntax::{Document, LineCol, Parse, PositionEncoding, TextEdit};

fn largest_corpus_file() -> PathBuf {
    if let Ok(path) = std::env::var("PTX_BENCH_FILE") {
        return PathBuf::from(path);
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut files = Vec::new();
    let mut dirs = vec![root];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir)
            .expect("tests/corpus exists")
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "ptx") {
                files.push((entry.metadata().map(|m| m.len()).unwrap_or(0), path));
            }
        }
    }
    files.sort();
    files.pop().expect("at least one corpus file").1
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    let index = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[index]
}

fn main() {
    let path = largest_corpus_file();
    let text = std::fs::read_to_string(&path).expect("readable corpus file");
    let mb = text.len() as f64 / 1e6;
    println!("file: {} ({:.2} MB)", path.display(), mb);

    let mut full = Vec::new();
    for _ in 0..10 {
        let start = Instant::now();
        let parse = Parse::new(text.clone());
        full.push(start.elapsed());
        assert_eq!(parse.stats().errors, 0);
    }
    let best = *full.iter().min().unwrap();
    let median = percentile(&mut full, 0.5);
    println!(
        "full parse: best {:.1} MB/s ({:.1} ms), median {:.1} MB/s ({:.1} ms)",
        mb / best.as_secs_f64(),
        best.as_secs_f64() * 1e3,
        mb / median.as_secs_f64(),
        median.as_secs_f64() * 1e3
    );

    let mut doc = Document::new(&text, 0);
    let middle_line = (doc.rope().len_lines() / 2) as u32;
    let mut samples = Vec::new();
    for version in 1..=200 {
        // Alternately insert and delete one character in the middle line.
        let (range, insert) = if version % 2 == 1 {
            let at = LineCol {
                line: middle_line,
                col: 0,
            };
            ((at, at), " ")
        } else {
            (
                (
                    LineCol {
                        line: middle_line,
                        col: 0,
                    },
                    LineCol {
                        line: middle_line,
                        col: 1,
                    },
                ),
                "",
            )
        };
        let edit = TextEdit {
            range: Some(range),
            text: insert.to_owned(),
        };
        let start = Instant::now();
        doc.apply_edits(&[edit], PositionEncoding::Utf16, version);
        samples.push(start.elapsed());
    }
    assert_eq!(doc.text(), text);
    let p50 = percentile(&mut samples, 0.5);
    let p99 = percentile(&mut samples, 0.99);
    println!(
        "one-character edit + incremental reparse: median {:.3} ms, p99 {:.3} ms",
        p50.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3
    );
}
