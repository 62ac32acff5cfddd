//! Per-statement compiler labels for the asm statements of real CUDA C++ trees, and the
//! comparison of `ptx-lsp check`'s verdicts with them (server/embed/REAL_WORLD.md).
//!
//! `asm_labels emit OUT SPEC...` reads every file of each SPEC (`NAME=ROOT=LIST`: the
//! repository's name, its checkout and a file of paths relative to ROOT, one a line) as
//! `ptx-lsp check` does and writes, for every asm statement and every target it is compiled
//! for, a kernel that holds the statement alone: one variable per operand, of the C type its
//! constraint binds (`r` unsigned, `l` unsigned long long, `h` unsigned short, `f` float,
//! `d` double, `q` unsigned __int128), loaded from a buffer before the statement and stored
//! after it, and the template exactly as this layer decodes it. Immediates (`n`, `i`) keep
//! their expression when it is a literal; a C++ value the statement cannot carry alone (a
//! template parameter, an enum) stands in as `1`, and the label says so. The kernels go into
//! `OUT/<target>-<k>.cu`, 64 a file, each behind `#if SEL_LO <= i && i < SEL_HI` so that
//! `label-real-code.py` can compile any range of them; `OUT/manifest.tsv` describes them.
//!
//! The targets of a statement are those of `sm_80`, `sm_90a` and `sm_100a` that its `#if`
//! guards admit (as `ptx-lsp check --target` reads them); a statement whose guards admit none
//! of the three (an `sm_120a` or `sm_103a` branch) is compiled for the target its guards name.
//!
//! `asm_labels compare LABELS NAME=ROOT...` (LABELS may be gzipped) checks every file that
//! the labels name for repository NAME in the checkout ROOT, for each labelled target, as
//! `ptx-lsp check --target T FILE` does, and compares: an error on a statement that nvcc
//! compiles is a false error (listed; the run fails), a statement nvcc rejects without an
//! error is a miss (listed). A statement whose text no longer hashes to its label's hash is
//! reported as changed. Prints per repository: statements, labelled, agree.
//!
//! Labels file (tab-separated, `#` comments): repository, file, line of the `asm` keyword,
//! target (`-` when not labelled), verdict (`accepted`, `rejected` or `unlabelled`), the
//! statement's hash (FNV-1a of its template and constraints), notes (`imm=1`: immediates
//! stood in; `pp`: a preprocessor line inside the statement; the reason when unlabelled),
//! and for rejected statements nvcc's first message.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use ptx_check::Severity;
use ptx_embed::{EmbedOptions, HostDocument, Statement};

const TARGETS: [&str; 3] = ["sm_80", "sm_90a", "sm_100a"];
const PER_FILE: usize = 64;

struct Spec {
    name: String,
    root: String,
    files: Vec<String>,
}

fn parse_spec(s: &str) -> Spec {
    let mut parts = s.splitn(3, '=');
    let (Some(name), Some(root), Some(list)) = (parts.next(), parts.next(), parts.next()) else {
        panic!("SPEC is NAME=ROOT=LIST: {s}");
    };
    let files = std::fs::read_to_string(list)
        .unwrap_or_else(|e| panic!("{list}: {e}"))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect();
    Spec {
        name: name.to_owned(),
        root: root.to_owned(),
        files,
    }
}

/// One statement of a file, with the targets it is compiled for.
struct Item {
    line: usize,
    hash: String,
    /// Why it cannot be compiled alone, if it cannot.
    unlabelled: Option<String>,
    notes: Vec<&'static str>,
    /// The kernel body (without its name), when labelled.
    body: Option<String>,
    targets: Vec<String>,
    /// Per target: what `ptx-lsp check` reports on it.
    errors: BTreeMap<String, Option<Flag>>,
}

/// An error on the statement, or a warning that it may not compile.
#[derive(Clone)]
enum Flag {
    Error(String),
    Warning,
}

fn fnv(text: &str) -> String {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in text.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

fn statement_hash(s: &Statement) -> String {
    let mut key = s.raw.template.text.clone();
    for op in &s.raw.operands {
        key.push('\0');
        key.push_str(&op.constraint);
    }
    fnv(&key)
}

/// A literal integer expression (`0`, `-1`, `0x10u`, `(2)`, `true`), as C text.
fn literal(expr: &str) -> Option<String> {
    let e = expr.trim();
    let e = e
        .strip_prefix('(')
        .and_then(|e| e.strip_suffix(')'))
        .unwrap_or(e)
        .trim();
    match e {
        "true" => return Some("1".into()),
        "false" => return Some("0".into()),
        _ => {}
    }
    let digits = e
        .strip_prefix('-')
        .unwrap_or(e)
        .trim_end_matches(['u', 'U', 'l', 'L']);
    let ok = if let Some(hex) = digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
        !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit())
    } else {
        !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
    };
    ok.then(|| e.to_owned())
}

/// The template as a C string literal.
fn c_literal(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\{:03o}", c as u32);
            }
            '?' => out.push_str("\\?"), // no trigraphs
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The kernel body that holds the statement alone, or why there is none.
fn kernel_body(s: &Statement, notes: &mut Vec<&'static str>) -> Result<String, String> {
    if let Some(why) = &s.raw.opaque {
        return Err(format!("template not readable: {why}"));
    }
    if let Some(item) = &s.raw.operands_opaque {
        return Err(format!("operands not readable: {item}"));
    }
    let ops = &s.raw.operands;
    // The C type and buffer of each operand.
    let mut kinds: Vec<Option<(&str, &str)>> = Vec::new();
    for op in ops {
        let mut letter = op.letter();
        if let Some(d) = letter.to_digit(10) {
            // A matching constraint: the operand it names.
            letter = ops.get(d as usize).map_or('r', |o| o.letter());
        }
        kinds.push(match letter {
            'r' => Some(("unsigned", "pr")),
            'l' => Some(("unsigned long long", "pl")),
            'h' => Some(("unsigned short", "ph")),
            'f' => Some(("float", "pf")),
            'd' => Some(("double", "pd")),
            'q' => Some(("unsigned __int128", "pq")),
            'n' | 'i' => None,
            other => return Err(format!("constraint `{other}` not modelled")),
        });
    }
    let mut body = String::new();
    for (k, kind) in kinds.iter().enumerate() {
        if let Some((ty, buf)) = kind {
            let _ = writeln!(body, "  {ty} v{k} = {buf}[{k}];");
        }
    }
    let list = |outputs: bool, notes: &mut Vec<&'static str>| {
        let mut items = Vec::new();
        for (k, op) in ops
            .iter()
            .enumerate()
            .filter(|(_, o)| o.is_output == outputs)
        {
            let symbol = op
                .symbol
                .as_ref()
                .map(|n| format!("[{n}] "))
                .unwrap_or_default();
            let value = match kinds[k] {
                Some(_) => format!("v{k}"),
                None => literal(&op.expression).unwrap_or_else(|| {
                    if !notes.contains(&"imm=1") {
                        notes.push("imm=1");
                    }
                    "1".to_owned()
                }),
            };
            items.push(format!("{symbol}\"{}\"({value})", op.constraint));
        }
        items.join(", ")
    };
    let template = c_literal(&s.raw.template.text);
    if s.raw.extended {
        let outputs = list(true, notes);
        let inputs = list(false, notes);
        let _ = writeln!(body, "  asm volatile({template} : {outputs} : {inputs});");
    } else {
        let _ = writeln!(body, "  asm volatile({template});");
    }
    for (k, kind) in kinds.iter().enumerate() {
        if let (Some((_, buf)), true) = (kind, ops[k].is_output) {
            let _ = writeln!(body, "  {buf}[{k}] = v{k};");
        }
    }
    Ok(body)
}

/// The statements of one file with the targets each is compiled for and this layer's
/// verdict per target.
fn read_file(root: &str, file: &str) -> Vec<Item> {
    let path = Path::new(root).join(file);
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("{}: not readable", path.display());
        return Vec::new();
    };
    if !ptx_embed::is_host_text(&text) {
        return Vec::new();
    }
    let base = EmbedOptions::for_file(&path, &text);
    let line_of = |offset: usize| text[..offset].matches('\n').count() + 1;
    let errors_of = |doc: &HostDocument| {
        let diags = ptx_embed::check::check(doc, &[]);
        doc.statements
            .iter()
            .map(|s| {
                let on = |d: &&ptx_check::Diagnostic| {
                    s.raw.range.start <= d.range.start && d.range.start < s.raw.range.end
                };
                let error = diags
                    .iter()
                    .filter(on)
                    .find(|d| d.severity == Severity::Error);
                // A warning that says the statement may not compile: unavailable on the
                // target in code compiled only where it is used, or newer PTX not judged.
                let warning = diags.iter().filter(on).find(|d| {
                    d.severity == Severity::Warning
                        && (matches!(d.code, "unsupported-target" | "version-too-old")
                            || d.message.starts_with("not judged"))
                });
                error
                    .map(|d| Flag::Error(format!("{}: {}", d.code, d.message)))
                    .or_else(|| warning.map(|_| Flag::Warning))
            })
            .collect::<Vec<_>>()
    };
    let none = HostDocument::new(&text, &base);
    let none_errors = errors_of(&none);
    let per_target: Vec<(HostDocument, Vec<Option<Flag>>)> = TARGETS
        .iter()
        .map(|t| {
            let options = EmbedOptions {
                target: Some((*t).to_owned()),
                ..base.clone()
            };
            let doc = HostDocument::new(&text, &options);
            let errors = errors_of(&doc);
            (doc, errors)
        })
        .collect();
    let mut items = Vec::new();
    for (i, s) in none.statements.iter().enumerate() {
        let mut notes = Vec::new();
        let statement_text = &text[s.raw.range.clone()];
        if statement_text
            .lines()
            .skip(1)
            .any(|l| l.trim_start().starts_with('#'))
        {
            notes.push("pp");
        }
        let body = kernel_body(s, &mut notes);
        let mut targets = Vec::new();
        let mut errors = BTreeMap::new();
        for (t, (doc, errs)) in TARGETS.iter().zip(&per_target) {
            let Some(st) = doc.statements.get(i) else {
                continue;
            };
            assert_eq!(
                st.raw.range, s.raw.range,
                "{file}: statements differ per target"
            );
            if st.target.as_deref() == Some(*t) {
                targets.push((*t).to_owned());
                errors.insert((*t).to_owned(), errs[i].clone());
            }
        }
        if targets.is_empty() {
            let t = s.target_name();
            errors.insert(t.clone(), none_errors[i].clone());
            targets.push(t);
        }
        let (body, unlabelled) = match body {
            Ok(b) => (Some(b), None),
            Err(why) => (None, Some(why)),
        };
        items.push(Item {
            line: line_of(s.raw.keyword.start),
            hash: statement_hash(s),
            unlabelled,
            notes,
            body,
            targets,
            errors,
        });
    }
    for u in &none.unreadable {
        items.push(Item {
            line: line_of(u.keyword.start),
            hash: "-".into(),
            unlabelled: Some(format!("not readable: {}", u.why)),
            notes: Vec::new(),
            body: None,
            targets: Vec::new(),
            errors: BTreeMap::new(),
        });
    }
    items
}

fn emit(out: &Path, specs: &[Spec]) {
    std::fs::create_dir_all(out).expect("output folder");
    let mut manifest = String::new();
    // Per target: the kernels of its files so far.
    let mut pending: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut written: BTreeMap<String, usize> = BTreeMap::new();
    let flush = |target: &str, kernels: &mut Vec<String>, written: &mut BTreeMap<String, usize>| {
        if kernels.is_empty() {
            return;
        }
        let k = written.entry(target.to_owned()).or_default();
        let mut text = String::from(
            "#ifndef SEL_LO\n#define SEL_LO 0\n#define SEL_HI 1000000\n#endif\n\
             #define IN unsigned *pr, unsigned long long *pl, unsigned short *ph, float *pf, double *pd, unsigned __int128 *pq\n",
        );
        for (j, kernel) in kernels.iter().enumerate() {
            let _ = write!(text, "#if SEL_LO <= {j} && {j} < SEL_HI\n{kernel}#endif\n");
        }
        std::fs::write(out.join(format!("{target}-{k:04}.cu")), text).expect("write");
        *k += 1;
        kernels.clear();
    };
    let mut id = 0usize;
    for spec in specs {
        for file in &spec.files {
            for item in read_file(&spec.root, file) {
                let notes = item.notes.join(",");
                if let Some(why) = &item.unlabelled {
                    let notes = if notes.is_empty() {
                        why.clone()
                    } else {
                        format!("{notes},{why}")
                    };
                    let _ = writeln!(
                        manifest,
                        "-\t{}\t{file}\t{}\t-\tunlabelled\t{}\t{}",
                        spec.name,
                        item.line,
                        item.hash,
                        notes.replace(['\t', '\n'], " ")
                    );
                    continue;
                }
                let body = item.body.as_deref().unwrap_or_default();
                for t in &item.targets {
                    let kernels = pending.entry(t.clone()).or_default();
                    let index = kernels.len();
                    let k = written.get(t).copied().unwrap_or(0);
                    kernels.push(format!(
                        "extern \"C\" __global__ void s{id}(IN) {{\n{body}}}\n"
                    ));
                    let _ = writeln!(
                        manifest,
                        "s{id}\t{}\t{file}\t{}\t{t}\t{t}-{k:04}.cu:{index}\t{}\t{}",
                        spec.name,
                        item.line,
                        item.hash,
                        if notes.is_empty() { "-" } else { &notes }
                    );
                    id += 1;
                    if kernels.len() == PER_FILE {
                        flush(t, kernels, &mut written);
                    }
                }
            }
        }
    }
    for (t, kernels) in &mut pending {
        flush(t, kernels, &mut written);
    }
    std::fs::write(out.join("manifest.tsv"), manifest).expect("manifest");
    println!("{id} kernels, {} files", written.values().sum::<usize>());
}

/// A label's place: repository, file, line, target.
type LabelKey = (String, String, usize, String);
/// A label: verdict, hash, notes, nvcc's message.
type Label = (String, String, String, String);

/// The labels file's text; `.gz` files are decompressed.
fn read_labels(path: &str) -> String {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    if path.ends_with(".gz") {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut text)
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        text
    } else {
        String::from_utf8(bytes).unwrap_or_else(|e| panic!("{path}: {e}"))
    }
}

/// `NAME=ROOT`: a checkout of a labelled repository; its files are those its labels name.
fn checkout(spec: &str, labels: &str) -> Spec {
    let (name, root) = spec
        .split_once('=')
        .unwrap_or_else(|| panic!("expected NAME=ROOT: {spec}"));
    let mut files: Vec<String> = labels
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let mut f = l.split('\t');
            (f.next() == Some(name)).then(|| f.next().unwrap_or_default().to_owned())
        })
        .collect();
    files.dedup();
    Spec {
        name: name.to_owned(),
        root: root.to_owned(),
        files,
    }
}

fn compare(text: &str, specs: &[Spec]) -> bool {
    let mut label: BTreeMap<LabelKey, Label> = BTreeMap::new();
    for l in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = l.split('\t').collect();
        assert!(f.len() >= 7, "labels line with fewer than 7 fields: {l}");
        let key = (
            f[0].to_owned(),
            f[1].to_owned(),
            f[2].parse().expect("line number"),
            f[3].to_owned(),
        );
        label.insert(
            key,
            (
                f[4].to_owned(),
                f[5].to_owned(),
                f[6].to_owned(),
                f.get(7).copied().unwrap_or("").to_owned(),
            ),
        );
    }
    let mut ok = true;
    println!(
        "repository statements labelled-statements labels agree (of which warned) \
         template-values unknown false-errors missed changed"
    );
    for spec in specs {
        let (mut statements, mut labelled, mut pairs, mut agree) = (0, 0, 0, 0);
        let (mut warned, mut template_values, mut unknown) = (0, 0, 0);
        let (mut false_errors, mut missed, mut changed) = (Vec::new(), Vec::new(), Vec::new());
        for file in &spec.files {
            for item in read_file(&spec.root, file) {
                statements += 1;
                if item.unlabelled.is_some() {
                    continue;
                }
                let mut any = false;
                for t in &item.targets {
                    let key = (spec.name.clone(), file.clone(), item.line, t.clone());
                    let Some((verdict, hash, notes, message)) = label.get(&key) else {
                        changed.push(format!("{file}:{} {t}: no label", item.line));
                        continue;
                    };
                    if *hash != item.hash {
                        changed.push(format!("{file}:{} {t}: the statement changed", item.line));
                        continue;
                    }
                    any = true;
                    pairs += 1;
                    let ours = &item.errors[t];
                    let place = format!("{file}:{} {t} [{notes}]", item.line);
                    // nvcc rejects the value standing in for a C++ template value.
                    let stand_in = notes.contains("imm=1") && message.contains("unexpected value");
                    match (verdict.as_str(), ours) {
                        ("accepted", Some(Flag::Error(e))) => {
                            false_errors.push(format!("{place}: {e}"))
                        }
                        ("accepted", _) => agree += 1,
                        ("rejected", Some(Flag::Error(_))) => agree += 1,
                        ("rejected", Some(Flag::Warning)) => {
                            agree += 1;
                            warned += 1;
                        }
                        ("rejected", None) if stand_in => template_values += 1,
                        ("rejected", None) => missed.push(format!("{place}: nvcc: {message}")),
                        _ => unknown += 1,
                    }
                }
                labelled += usize::from(any);
            }
        }
        println!(
            "{} {statements} {labelled} {pairs} {agree} ({warned}) {template_values} {unknown} {} {} {}",
            spec.name,
            false_errors.len(),
            missed.len(),
            changed.len()
        );
        for e in &false_errors {
            println!("  false error: {e}");
        }
        for m in &missed {
            println!("  missed: {m}");
        }
        for c in &changed {
            println!("  changed: {c}");
        }
        ok &= false_errors.is_empty() && changed.is_empty();
    }
    ok
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("emit") if args.len() >= 3 => {
            let specs: Vec<Spec> = args[2..].iter().map(|s| parse_spec(s)).collect();
            emit(Path::new(&args[1]), &specs);
        }
        Some("compare") if args.len() >= 3 => {
            let labels = read_labels(&args[1]);
            let specs: Vec<Spec> = args[2..].iter().map(|s| checkout(s, &labels)).collect();
            if !compare(&labels, &specs) {
                std::process::exit(1);
            }
        }
        _ => {
            eprintln!("usage: asm_labels emit OUT NAME=ROOT=LIST... | asm_labels compare LABELS NAME=ROOT...");
            std::process::exit(2);
        }
    }
}
