//! Counts, over a set of CUDA C++ files, the asm statements read and checked, those that are
//! not checked (and why), and the diagnostics per code: the figures of REAL_WORLD.md.
//!
//! `cargo run --release -p ptx-embed --example asm_stats -- [--target SM] [--show CODE]...
//! [--mutate] [--seed N] [--emit DIR] FILE...` (a FILE argument `@LIST` reads the paths from
//! LIST, one a line).
//!
//! With `--mutate`, every statement checked without error is also taken alone (in a kernel,
//! for the target it was checked for) and changed in one way at a time: a bogus qualifier
//! among the first instruction's qualifiers, a placeholder past the last operand, another
//! width for a register constraint the template uses (`r` → `l`/`h`, `l` → `r`, `h` → `r`,
//! `f` ↔ `d`), a brace vector one element short or long, `.sync.aligned` dropped, one
//! dimension of an `mNnNkN` shape changed (+1, doubled or halved). Where a mutation has
//! choices (which qualifier position, operand, vector, direction, dimension) they are drawn
//! from a generator seeded with `--seed` (default 1) and the statement's file and offset, so
//! a run is reproducible and one statement's draws do not depend on the others. A mutation
//! is caught when the changed statement gets an error; the figures are per kind.
//!
//! Not every mutation is a mistake (a 64-bit register is a legal address, a shorter vector
//! may be another legal form): `--emit DIR` writes the virtual PTX module of every mutation
//! that was not caught, and of one caught mutation in 16 (drawn from the same generator), to
//! `DIR/<kind>/missed-N.ptx` and `DIR/<kind>/caught-N.ptx`, with the statement's place in a
//! comment on the first line, and the unchanged statement's module beside it
//! (`original-N.ptx`); `server/embed/mutation-oracle.sh DIR` then asks ptxas which of them
//! it rejects: a missed mutation that ptxas accepts is no mistake, one it rejects is a miss,
//! and a caught one it accepts is a false alarm (mutations of statements whose unchanged
//! module ptxas rejects are not judged).

use std::collections::BTreeMap;

use ptx_check::Severity;
use ptx_embed::{EmbedOptions, HostDocument};

fn main() {
    let mut options = EmbedOptions::default();
    let mut files = Vec::new();
    let mut show: Vec<String> = Vec::new();
    let mut mutate = false;
    let mut seed = 1u64;
    let mut emit: Option<std::path::PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--target" => options.target = args.next(),
            "--show" => show.extend(args.next()),
            "--mutate" => mutate = true,
            "--seed" => seed = args.next().and_then(|s| s.parse().ok()).unwrap_or(1),
            "--emit" => emit = args.next().map(Into::into),
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
    let mut mutations = Mutations {
        counts: BTreeMap::new(),
        emit,
        emitted: 0,
    };
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
                    let place = format!(
                        "{file}:{}",
                        text[..stmt.raw.range.start].matches('\n').count() + 1
                    );
                    let mut rng = Rng::new(seed, &place);
                    mutate_statement(&text, stmt, &place, &mut rng, &mut mutations);
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
    for (kind, (applied, caught)) in &mutations.counts {
        println!(
            "  mutation {kind:24} caught {caught}/{applied} ({:.2}%)",
            100.0 * *caught as f64 / (*applied).max(1) as f64
        );
    }
}

/// Per kind of mutation: (applied, caught); where to write the modules for ptxas.
struct Mutations {
    counts: BTreeMap<&'static str, (usize, usize)>,
    emit: Option<std::path::PathBuf>,
    emitted: usize,
}

/// A small deterministic generator (xorshift64*), seeded from the run's seed and the
/// statement's place.
struct Rng(u64);

impl Rng {
    fn new(seed: u64, place: &str) -> Rng {
        // FNV-1a of the place, mixed with the seed.
        let mut h = 0xcbf2_9ce4_8422_2325u64 ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        for b in place.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        Rng(h | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Checks one statement alone in a kernel for `target`: does it get an error? Also its
/// virtual PTX module. `prelude` (the file's one-line `#define`s and `constexpr`
/// constants) goes before the kernel, so that string macros and named immediates of the
/// template read as they do in the file.
fn alone(statement: &str, target: &str, prelude: &str) -> (bool, Option<String>) {
    let host = format!("{prelude}__global__ void k() {{\n{statement};\n}}\n");
    let options = EmbedOptions {
        target: Some(target.to_string()),
        ..EmbedOptions::default()
    };
    let doc = HostDocument::new(&host, &options);
    // Only the kernel's statement counts (the prelude holds none, but a macro may).
    let error = ptx_embed::check::check(&doc, &[])
        .iter()
        .any(|d| d.severity == Severity::Error && d.range.start >= prelude.len());
    (
        error,
        doc.statements
            .iter()
            .rfind(|s| s.raw.range.start >= prelude.len())
            .map(|s| s.parse.text().to_string()),
    )
}

/// Bogus qualifiers, one drawn per statement: misspellings and words of other instructions.
const BOGUS: &[&str] = &[
    ".zzq",
    ".rnn",
    ".sync2",
    ".b33",
    ".shared::grid",
    ".f17",
    ".relaxd",
];

fn mutate_statement(
    text: &str,
    stmt: &ptx_embed::Statement,
    place: &str,
    rng: &mut Rng,
    out: &mut Mutations,
) {
    let target = stmt
        .target
        .clone()
        .unwrap_or_else(|| ptx_embed::FALLBACK_TARGET.to_string());
    let range = stmt.raw.range.clone();
    let original = &text[range.clone()];
    // The file's one-line macros and integer constants, for templates that use them.
    let prelude: String = text
        .lines()
        .map(str::trim)
        .filter(|l| {
            (l.starts_with("#define") && !l.ends_with('\\')
                || l.contains("constexpr ") && l.ends_with(';') && !l.contains(['{', '(']))
                && !l.contains("asm")
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let (original_error, original_module) = alone(original, &target, &prelude);
    if original_error {
        return;
    }
    let tpl = &stmt.raw.template;
    // Host offset (relative to the statement) of a template offset: only where the template
    // is the host's text (not inside a macro's expansion, which no edit of the statement
    // reaches).
    let host_at = |virt: usize| {
        tpl.map
            .offset_to_host(virt)
            .filter(|h| range.contains(h))
            .filter(|&h| match tpl.text[virt..].chars().next() {
                Some(c) if c != '\n' && c != '"' => text[h..].starts_with(c),
                _ => true,
            })
            .map(|h| h - range.start)
    };
    let edit = |at: usize, end: usize, new: &str| {
        let mut s = original.to_string();
        s.replace_range(at..end, new);
        s
    };
    let mut variants: Vec<(&'static str, String)> = Vec::new();
    // The first instruction: the first word with a `.` at a line start (after a label or a
    // predicate guard too).
    let t = &tpl.text;
    let first_op = t
        .match_indices(|c: char| c.is_ascii_lowercase())
        .map(|(i, _)| i)
        .find(|&i| {
            let before = t[..i].trim_end_matches([' ', '\t']);
            let line_start = before.is_empty()
                || before.ends_with([';', '\n', '{', '}', ':'])
                || before
                    .rsplit(['\n', ';', '{', '}'])
                    .next()
                    .is_some_and(|w| w.trim_start().starts_with('@'));
            line_start
                && t[i..]
                    .split_whitespace()
                    .next()
                    .is_some_and(|w| w.contains('.'))
        });
    if let Some(i) = first_op {
        // Insert before one of the first instruction's qualifiers (or at its end).
        let word_len = t[i..]
            .find(|c: char| c.is_whitespace() || c == ';')
            .unwrap_or(t.len() - i);
        let word = &t[i..i + word_len];
        let dots: Vec<usize> = word.match_indices('.').map(|(d, _)| i + d).collect();
        let mut spots = dots;
        spots.push(i + word_len);
        let at = spots[rng.below(spots.len())];
        let bogus = BOGUS[rng.below(BOGUS.len())];
        // The spot must map to the host text: the character before it must exist there.
        if let Some(h) = at.checked_sub(1).and_then(host_at) {
            variants.push(("bogus qualifier", edit(h + 1, h + 1, bogus)));
        }
    }
    // A placeholder past the last operand: one drawn among the numbered placeholders.
    let numbered: Vec<&ptx_embed::Placeholder> = stmt
        .placeholders
        .iter()
        .filter(|p| {
            p.operand.is_some() && p.written.starts_with('%') && !p.written.starts_with("%[")
        })
        .collect();
    if !numbered.is_empty() {
        let p = numbered[rng.below(numbered.len())];
        let (a, b) = (p.host.start - range.start, p.host.end - range.start);
        variants.push((
            "placeholder past the end",
            edit(a, b, &format!("%{}", stmt.raw.operands.len())),
        ));
    }
    // Another width for a register constraint the template uses.
    let registers: Vec<&ptx_embed::AsmOperand> = stmt
        .raw
        .operands
        .iter()
        .filter(|o| {
            matches!(o.letter(), 'r' | 'l' | 'h' | 'f' | 'd')
                && stmt.placeholders.iter().any(|p| p.operand == Some(o.index))
        })
        .collect();
    if !registers.is_empty() {
        let op = registers[rng.below(registers.len())];
        let choices: &[char] = match op.letter() {
            'r' => &['l', 'h'],
            'l' => &['r'],
            'h' => &['r'],
            'f' => &['d'],
            _ => &['f'],
        };
        let to = choices[rng.below(choices.len())];
        let c = op.constraint_range.clone();
        let new = text[c.clone()].replacen(op.letter(), &to.to_string(), 1);
        variants.push((
            "constraint width",
            edit(c.start - range.start, c.end - range.start, &new),
        ));
    }
    // A brace vector one element short or long: one drawn among the template's vectors of
    // two or more elements whose text maps to the host text.
    let mut vectors = Vec::new();
    let mut from = 0;
    while let Some(o) = t[from..].find('{').map(|o| from + o) {
        let Some(c) = t[o..].find('}').map(|c| o + c) else {
            break;
        };
        if t[o + 1..c].contains(',') && !t[o + 1..c].contains(['{', ';']) {
            vectors.push((o, c));
        }
        from = o + 1;
    }
    if !vectors.is_empty() {
        let (open, close) = vectors[rng.below(vectors.len())];
        let comma = open + t[open..close].rfind(',').unwrap_or(0);
        if let (Some(a), Some(b)) = (host_at(comma), host_at(close)) {
            if a < b && !original[a..b].contains('"') {
                let variant = if rng.below(2) == 0 {
                    // Drop the last element.
                    edit(a, b, "")
                } else {
                    // Repeat the last element.
                    let last = original[a..b].to_string();
                    edit(b, b, &last)
                };
                variants.push(("vector count off by one", variant));
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
    // An `mNnNkN` shape with one dimension changed.
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
            let dims: Option<Vec<u32>> = w[1..]
                .split(['n', 'k'])
                .map(|d| d.parse::<u32>().ok())
                .collect();
            if let Some(mut dims) = dims.filter(|d| d.len() == 3 && b + 1 - a == w.len()) {
                let which = rng.below(3);
                dims[which] = match rng.below(3) {
                    0 => dims[which] + 1,
                    1 => dims[which] * 2,
                    _ if dims[which] > 1 => dims[which] / 2,
                    _ => dims[which] + 1,
                };
                let new = format!("m{}n{}k{}", dims[0], dims[1], dims[2]);
                variants.push(("wrong shape", edit(a, b + 1, &new)));
            }
        }
    }
    for (kind, changed) in variants {
        let (caught, module) = alone(&changed, &target, &prelude);
        let e = out.counts.entry(kind).or_default();
        e.0 += 1;
        if caught {
            e.1 += 1;
        }
        let sampled = caught && rng.below(16) == 0;
        if let (Some(dir), Some(module)) = (&out.emit, module) {
            if !caught || sampled {
                let dir = dir.join(kind.replace([' ', '.'], "-"));
                std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
                out.emitted += 1;
                let name = format!(
                    "{}-{}.ptx",
                    if caught { "caught" } else { "missed" },
                    out.emitted
                );
                let module = format!("// {place}\n{module}");
                std::fs::write(dir.join(&name), module)
                    .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
                // The statement unchanged: a mutation is judged only where ptxas takes it.
                if let Some(original) = &original_module {
                    let name = format!("original-{}.ptx", out.emitted);
                    std::fs::write(dir.join(name), format!("// {place}\n{original}"))
                        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
                }
            }
        }
    }
}
