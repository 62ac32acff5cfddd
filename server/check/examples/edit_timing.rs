//! Times what an edit costs the checker on a file (a development aid): a blank inserted into
//! and removed from the middle line, the incremental reparse, then `check_incremental`.
//! `cargo run --release -p ptx-check --example edit_timing -- FILE [EDITS]`
use ptx_syntax::{Document, LineCol, PositionEncoding, TextEdit};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("a file");
    let edits: usize = args.next().map_or(40, |n| n.parse().expect("a count"));
    let text = std::fs::read_to_string(&path).expect("readable file");
    let line = text.lines().count() as u32 / 2;
    let mut doc = Document::new(&text, 1);
    let options = ptx_check::CheckOptions::default();
    let mut cache = ptx_check::CheckCache::default();
    let first = Instant::now();
    let pending = doc.pending();
    let n = ptx_check::check_incremental(pending.get(), &options, &mut cache).len();
    eprintln!("first check: {n} diagnostics in {:?}", first.elapsed());
    let (mut parse_ms, mut check_ms) = (Vec::new(), Vec::new());
    for i in 0..edits {
        let at = LineCol { line, col: 0 };
        let end = LineCol {
            line,
            col: u32::from(i % 2 == 1),
        };
        let insert = if i % 2 == 0 { " " } else { "" };
        let edit = TextEdit {
            range: Some((at, end)),
            text: insert.into(),
        };
        doc.edit(&[edit], PositionEncoding::Utf8, 2 + i as i32);
        let t = Instant::now();
        let pending = doc.pending();
        let parse = pending.get();
        parse_ms.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        ptx_check::check_incremental(parse, &options, &mut cache);
        check_ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    for (name, mut v) in [("reparse", parse_ms), ("check_incremental", check_ms)] {
        v.sort_by(f64::total_cmp);
        eprintln!(
            "{name}: p50 {:.2} ms, max {:.2} ms",
            v[v.len() / 2],
            v[v.len() - 1]
        );
    }
}
