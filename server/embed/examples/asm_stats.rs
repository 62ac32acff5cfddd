//! Counts, over a set of CUDA C++ files, the asm statements read and checked, those that are
//! not checked (and why), and the diagnostics per code: the figures of REAL_WORLD.md.
//!
//! `cargo run --release -p ptx-embed --example asm_stats -- [--target SM] [--show CODE]...
//! [--mutate] FILE...` (a FILE argument `@LIST` reads the paths from LIST, one a line).
//!
//! With `--mutate`, every statement checked without error is also taken alone (in a kernel,
//! for the target it was checked for) and changed in one way at a time: a bogus qualifier
//! after the first opcode, a placeholder past the last operand, another width for a register
//! constraint (`r` ↔ `l`), a brace vector one element short, `.sync.aligned` dropped, an
//! `mNnNkN` shape's k off by one. A mutation is caught when the changed statement gets an
//! error; the figures are per kind of mutation.

use std::collections::BTreeMap;

use ptx_check::Severity;
use ptx_embed::{EmbedOptions, HostDocument};

fn main() {
    let mut options = EmbedOptions::default();
    let mut files = Vec::new();
    let mut show: Vec<String> = Vec::new();
    let mut mutate = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--target" => options.target = args.next(),
            "--show" => show.extend(args.next()),
            "--mutate" => mutate = true,
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
    // kind → (applied, caught)
    let mut mutations: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            eprintln!("{file}: not readable");
            continue;
        };
        if !ptx_embed::is_host_text(&text) {
            continue;
        }
        let options = EmbedOptions {
            target: options.target.clone(),
            version: options.version.clone(),
            ..EmbedOptions::for_file(std::path::Path::new(file), &text)
        };
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
        }
        if mutate {
            let all = ptx_embed::check::check(&doc, &[]);
            for stmt in &doc.statements {
                let clean = !all.iter().any(|d| {
                    d.severity == Severity::Error
                        && stmt.raw.range.start <= d.range.start
                        && d.range.start < stmt.raw.range.end
                });
                if clean && stmt.raw.opaque.is_none() && stmt.raw.newer_ptx.is_none() {
                    mutate_statement(&text, stmt, &mut mutations);
                }
            }
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
    for (kind, (applied, caught)) in &mutations {
        println!(
            "  mutation {kind:24} caught {caught}/{applied} ({:.2}%)",
            100.0 * *caught as f64 / (*applied).max(1) as f64
        );
    }
}

/// Checks one statement alone in a kernel for `target`: does it get an error?
fn alone_has_error(statement: &str, target: &str) -> bool {
    let host = format!("__global__ void k() {{\n{statement};\n}}\n");
    let options = EmbedOptions {
        target: Some(target.to_string()),
        ..EmbedOptions::default()
    };
    let doc = HostDocument::new(&host, &options);
    ptx_embed::check::check(&doc, &[])
        .iter()
        .any(|d| d.severity == Severity::Error)
}

fn mutate_statement(
    text: &str,
    stmt: &ptx_embed::Statement,
    out: &mut BTreeMap<&'static str, (usize, usize)>,
) {
    let target = stmt
        .target
        .clone()
        .unwrap_or_else(|| ptx_embed::FALLBACK_TARGET.to_string());
    let range = stmt.raw.range.clone();
    let original = &text[range.clone()];
    if alone_has_error(original, &target) {
        return;
    }
    let tpl = &stmt.raw.template;
    // Host offset (relative to the statement) of a template offset.
    let host_at = |virt: usize| {
        tpl.map
            .offset_to_host(virt)
            .filter(|h| range.contains(h))
            .map(|h| h - range.start)
    };
    let edit = |at: usize, end: usize, new: &str| {
        let mut s = original.to_string();
        s.replace_range(at..end, new);
        s
    };
    let mut variants: Vec<(&'static str, String)> = Vec::new();
    // The first instruction's opcode: the first word followed by a `.` at a line start.
    let t = &tpl.text;
    let first_op = t
        .match_indices(|c: char| c.is_ascii_lowercase())
        .map(|(i, _)| i)
        .find(|&i| {
            let before = t[..i].trim_end_matches([' ', '\t']);
            (before.is_empty() || before.ends_with([';', '\n', '{', '}']))
                && t[i..]
                    .split_whitespace()
                    .next()
                    .is_some_and(|w| w.contains('.'))
        });
    if let Some(i) = first_op {
        let word_end = i + t[i..].find('.').unwrap_or(0);
        if let Some(h) = host_at(word_end) {
            variants.push(("bogus qualifier", edit(h, h, ".zzq")));
        }
    }
    // A placeholder past the last operand.
    if let Some(p) = stmt.placeholders.iter().rev().find(|p| p.operand.is_some()) {
        if p.written.starts_with('%') && !p.written.starts_with("%[") {
            let (a, b) = (p.host.start - range.start, p.host.end - range.start);
            variants.push((
                "placeholder past the end",
                edit(a, b, &format!("%{}", stmt.raw.operands.len())),
            ));
        }
    }
    // Another width for a register constraint used by the template.
    if let Some(op) = stmt.raw.operands.iter().find(|o| {
        matches!(o.letter(), 'r' | 'l')
            && stmt.placeholders.iter().any(|p| p.operand == Some(o.index))
    }) {
        let c = op.constraint_range.clone();
        let lit = &text[c.clone()];
        let to = if op.letter() == 'r' { "l" } else { "r" };
        let new = lit.replacen(op.letter(), to, 1);
        variants.push((
            "constraint width",
            edit(c.start - range.start, c.end - range.start, &new),
        ));
    }
    // A brace vector one element short: drop its last `, %N`.
    if let Some(open) = t
        .find('{')
        .filter(|&o| t[o..].find('}').is_some_and(|c| t[o..o + c].contains(',')))
    {
        let close = open + t[open..].find('}').unwrap_or(0);
        if let Some(comma) = t[open..close].rfind(',') {
            if let (Some(a), Some(b)) = (host_at(open + comma), host_at(close)) {
                if a < b && !original[a..b].contains('"') {
                    variants.push(("vector one short", edit(a, b, "")));
                }
            }
        }
    }
    if let Some(i) = t.find(".sync.aligned") {
        if let (Some(a), Some(b)) = (host_at(i), host_at(i + ".sync.aligned".len() - 1)) {
            if b + 1 - a == ".sync.aligned".len() {
                variants.push(("missing .sync.aligned", edit(a, b + 1, "")));
            }
        }
    }
    // An `mNnNkN` shape with k one more.
    if let Some(i) = t.find(".m").filter(|&i| {
        let w: String = t[i + 1..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        w.starts_with('m') && w.contains('n') && w.contains('k')
    }) {
        let w: String = t[i + 1..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        let end = i + 1 + w.len();
        if let (Some(a), Some(b)) = (host_at(i + 1), host_at(end - 1)) {
            if b + 1 - a == w.len() {
                let k = w.rsplit('k').next().unwrap_or("");
                if let Ok(n) = k.parse::<u32>() {
                    let new = format!("{}k{}", &w[..w.len() - k.len() - 1], n + 1);
                    variants.push(("wrong shape", edit(a, b + 1, &new)));
                }
            }
        }
    }
    for (kind, changed) in variants {
        let e = out.entry(kind).or_default();
        e.0 += 1;
        if alone_has_error(&changed, &target) {
            e.1 += 1;
        }
    }
}
