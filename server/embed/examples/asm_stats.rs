//! Counts, over a set of CUDA C++ files, the asm statements read and checked, those that are
//! not checked (and why), and the diagnostics per code: the figures of REAL_WORLD.md.
//!
//! `cargo run --release -p ptx-embed --example asm_stats -- [--target SM] [--show CODE]... FILE...`
//! (a FILE argument `@LIST` reads the paths from LIST, one a line).

use std::collections::BTreeMap;

use ptx_check::Severity;
use ptx_embed::{EmbedOptions, HostDocument};

fn main() {
    let mut options = EmbedOptions::default();
    let mut files = Vec::new();
    let mut show: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--target" => options.target = args.next(),
            "--show" => show.extend(args.next()),
            _ => match a.strip_prefix('@') {
                Some(list) => files.extend(
                    std::fs::read_to_string(list)
                        .unwrap_or_else(|e| panic!("{list}: {e}"))
                        .lines()
                        .map(str::to_string),
                ),
                None => files.push(a),
            },
        }
    }
    let (mut statements, mut unread, mut partly) = (0usize, 0usize, 0usize);
    let mut why: BTreeMap<String, usize> = BTreeMap::new();
    let mut counts: BTreeMap<(&'static str, &'static str), usize> = BTreeMap::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            eprintln!("{file}: not readable");
            continue;
        };
        if !ptx_embed::is_host_text(&text) {
            continue;
        }
        let doc = HostDocument::new(&text, &options);
        statements += doc.statements.len() + doc.unreadable.len();
        for d in ptx_embed::check::check(&doc, &[]) {
            if d.code == "asm-not-checked" {
                let reason = d.message.split(':').nth(1).unwrap_or("").trim();
                let reason: String = reason.split('`').step_by(2).collect::<Vec<_>>().join("…");
                *why.entry(reason).or_default() += 1;
                if d.message.starts_with("the operands") {
                    partly += 1;
                } else {
                    unread += 1;
                }
            }
            *counts.entry((d.severity.as_str(), d.code)).or_default() += 1;
            if show.iter().any(|c| c == d.code || c == d.severity.as_str()) {
                let line = text[..d.range.start].matches('\n').count() + 1;
                println!(
                    "{file}:{line}: {} {}: {}",
                    d.severity.as_str(),
                    d.code,
                    d.message
                );
            }
            let _ = Severity::Error;
        }
    }
    println!(
        "files {} statements {statements} checked {} not-checked {unread} operands-not-checked {partly}",
        files.len(),
        statements - unread
    );
    for (reason, n) in &why {
        println!("  not checked: {n:6}  {reason}");
    }
    for ((severity, code), n) in &counts {
        println!("  {severity:8} {code:28} {n}");
    }
}
