//! No second rule set: a PTX line that ptxas accepts in a .ptx file gets the same verdict
//! from the checker when it sits in an asm statement whose operands carry the matching
//! constraints (`%r` → `"r"`, `%rd` → `"l"`, `%h` → `"h"`, `%f` → `"f"`, `%fd` → `"d"`,
//! `%q` → `"q"`), at the same target and PTX version.
//!
//! The lines are those of the checker's ptxas-labelled sets that ptxas 13.5 accepts: the
//! generated set (server/check/fixtures/generated/cases.tsv.gz) and the instruction lines of
//! the accepted fixture modules (server/check/fixtures/ptxas, labels.tsv), without the ones
//! that name predicates (no constraint binds a predicate), 8-bit registers, labels or
//! variables. The
//! virtual module declares the registers as nvcc does (from sm_100 on, `"f"`/`"d"` operands
//! are `.b32`/`.b64` registers, which ptxas takes wherever it takes `.f32`/`.f64` ones), so
//! any difference is a rule that judges the same instruction twice, differently.

use std::collections::BTreeMap;
use std::io::Read;

use ptx_check::{CheckOptions, Severity};
use ptx_embed::{EmbedOptions, HostDocument};
use ptx_syntax::Parse;

/// Every this-many-th usable case is checked (a deterministic subset that keeps the
/// debug-build test short); `SAME_VERDICT_ALL=1` checks all of them.
const STRIDE: usize = 4;

/// The module the generated set's lines were labelled in (as in the checker's
/// tests/generated.rs).
fn ptx_module(target: &str, version: &str, line: &str) -> String {
    let b128 = if version.parse::<f64>().unwrap_or(0.0) >= 8.3 {
        "\t.reg .b128 %q<8>;\n"
    } else {
        ""
    };
    format!(
        ".version {version}\n.target {target}\n.address_size 64\n\
         .visible .entry k()\n{{\n\
         \t.reg .b16 %h<32>;\n\t.reg .b32 %r<160>;\n\t.reg .b64 %rd<32>;\n\
         \t.reg .f32 %f<160>;\n\t.reg .f64 %fd<32>;\n\t.reg .pred %p<16>;\n{b128}\
         \t{line}\n\tret;\n}}\n"
    )
}

/// The constraint that binds a register of the generated set (`%r1`, `%fd2`, ...).
fn generated_constraint(name: &str) -> Option<Option<&'static str>> {
    let class_end = name.find(|c: char| c.is_ascii_digit())?;
    let (class, number) = name.split_at(class_end);
    if !number.bytes().all(|d| d.is_ascii_digit()) {
        return None;
    }
    Some(match class {
        "r" => Some("r"),
        "rd" => Some("l"),
        "h" => Some("h"),
        "f" => Some("f"),
        "fd" => Some("d"),
        "q" => Some("q"),
        "p" => None,
        _ => return None,
    })
}

/// The constraint that binds a register declared with `ty` (`None`: no constraint does).
fn type_constraint(ty: &str) -> Option<&'static str> {
    Some(match ty {
        ".b16" | ".u16" | ".s16" | ".f16" | ".bf16" => "h",
        ".b32" | ".u32" | ".s32" | ".f16x2" | ".bf16x2" => "r",
        ".f32" => "f",
        ".b64" | ".u64" | ".s64" => "l",
        ".f64" => "d",
        ".b128" => "q",
        _ => return None,
    })
}

/// An accepted fixture module: its target, version, register declarations and the
/// instruction lines (0-based line number, text) that an asm statement can hold.
struct Fixture {
    target: String,
    version: String,
    /// Register name (or `name<` for a `%name<N>` range) → its type.
    registers: BTreeMap<String, String>,
    lines: Vec<(usize, String)>,
}

fn read_fixture(text: &str) -> Option<Fixture> {
    let mut f = Fixture {
        target: String::new(),
        version: String::new(),
        registers: BTreeMap::new(),
        lines: Vec::new(),
    };
    // `%` names that are no registers (`.func %f`, `.global .u32 %x`, `%L:`): a line naming
    // one reads a module name, which an asm statement has not.
    let not_registers: Vec<&str> = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or("").trim())
        .filter(|l| !l.starts_with(".reg"))
        .filter(|l| l.starts_with('.') || l.ends_with(':'))
        .flat_map(|l| {
            l.split(|c: char| !(c.is_ascii_alphanumeric() || c == '%' || c == '_' || c == '$'))
        })
        .filter(|w| w.starts_with('%') && w.len() > 1)
        .collect();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split("//").next().unwrap_or("").trim();
        let names_module = not_registers.iter().any(|name| {
            line.match_indices(name).any(|(at, _)| {
                !line[at + name.len()..]
                    .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            })
        });
        if names_module {
            continue;
        }
        if let Some(rest) = line.strip_prefix(".target") {
            f.target = rest.split([',', ' ']).find(|w| !w.is_empty())?.to_string();
        } else if let Some(rest) = line.strip_prefix(".version") {
            f.version = rest.trim().to_string();
        } else if let Some(rest) = line.strip_prefix(".reg") {
            let rest = rest.trim().trim_end_matches(';');
            let (ty, mut names) = rest.split_once(char::is_whitespace)?;
            if ty.starts_with(".v") {
                // `.reg .v4 .b32 %v;`: a vector register, which no constraint binds (its
                // type is kept as `.v4`, so lines naming it are left out).
                names = names.trim().split_once(char::is_whitespace)?.1;
            }
            for name in names.split(',') {
                let name = name.trim().trim_start_matches('%');
                // `%q<4>`, also written `%q < 4 >`.
                let key = match name.split_once('<') {
                    Some((prefix, _)) => format!("{}<", prefix.trim_end()),
                    None => name.to_string(),
                };
                f.registers.insert(key, ty.to_string());
            }
        } else if line.ends_with(';')
            // An instruction starts with its mnemonic (a `;` alone ends a statement written
            // over several lines).
            && line.starts_with(|c: char| c.is_ascii_alphabetic())
            && !line.starts_with(['.', '@', '{', '}'])
            && !line.contains("ret;")
            && plain_operands(line)
        {
            f.lines.push((n, line.to_string()));
        }
    }
    Some(f)
}

/// No name in the operands but registers (no labels, variables, parameters), one statement.
fn plain_operands(line: &str) -> bool {
    let Some((_, operands)) = line.split_once(char::is_whitespace) else {
        return true;
    };
    if operands.matches(';').count() != 1 || operands.contains(':') {
        return false;
    }
    let b = operands.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'%' || c.is_ascii_digit() {
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                i += 1;
            }
        } else if c.is_ascii_alphabetic()
            || c == b'$'
            || (c == b'_' && b.get(i + 1).is_some_and(|d| d.is_ascii_alphanumeric()))
        {
            return false;
        } else {
            i += 1;
        }
    }
    true
}

impl Fixture {
    fn constraint(&self, name: &str) -> Option<Option<&'static str>> {
        let ty = self.registers.get(name).or_else(|| {
            let prefix_end = name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
            (prefix_end < name.len())
                .then(|| self.registers.get(&format!("{}<", &name[..prefix_end])))
                .flatten()
        })?;
        Some(type_constraint(ty))
    }
}

/// The asm statement for `line`: each distinct register becomes an operand, every other `%`
/// is doubled. `None` when the line names something no operand can stand for.
fn asm_statement(
    line: &str,
    n: usize,
    constraint: &dyn Fn(&str) -> Option<Option<&'static str>>,
) -> Option<String> {
    let b = line.as_bytes();
    let mut template = String::new();
    let mut operands: Vec<(String, &'static str)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'%' {
            let name_end = (i + 1..b.len())
                .find(|&j| !b[j].is_ascii_alphanumeric() && b[j] != b'_')
                .unwrap_or(b.len());
            let name = &line[i + 1..name_end];
            // `None`: not a register of the module; `Some(None)`: one no constraint binds.
            if let Some(letter) = constraint(name) {
                let letter = letter?;
                {
                    let k = match operands.iter().position(|(r, _)| r == name) {
                        Some(k) => k,
                        None => {
                            operands.push((name.to_string(), letter));
                            operands.len() - 1
                        }
                    };
                    template.push_str(&format!("%{k}"));
                    i = name_end;
                    continue;
                }
            }
            template.push_str("%%");
            i += 1;
            continue;
        }
        match c {
            b'"' => template.push_str("\\\""),
            b'\\' => template.push_str("\\\\"),
            _ => template.push(c as char),
        }
        i += 1;
    }
    if ["gmem", "smem", "cmem", "k_param"]
        .iter()
        .any(|v| line.contains(v))
    {
        return None;
    }
    let operands: Vec<String> = operands
        .iter()
        .map(|(name, letter)| format!("\"{letter}\"({name})"))
        .collect();
    Some(format!(
        "__device__ void case{n}() {{\n  asm volatile(\"{template}\" :: {});\n}}\n",
        operands.join(", ")
    ))
}

fn has_error(diagnostics: &[ptx_check::Diagnostic]) -> Option<String> {
    diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error)
        .map(|d| format!("[{}] {}", d.code, d.message))
}

#[test]
fn accepted_lines_get_the_same_verdict_inside_asm() {
    let path = format!(
        "{}/../check/fixtures/generated/cases.tsv.gz",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&path).expect("the generated set"))
        .read_to_string(&mut text)
        .expect("gzip text");
    let all = std::env::var_os("SAME_VERDICT_ALL").is_some();
    // (target, version) → (line, host statement)
    let mut groups: BTreeMap<(&str, &str), Vec<(&str, String)>> = BTreeMap::new();
    let mut usable = 0;
    for line in text.lines() {
        let f: Vec<&str> = line.splitn(6, '\t').collect();
        if f.len() != 6 || f[4] != "A" {
            continue;
        }
        let Some(statement) = asm_statement(f[3], usable, &generated_constraint) else {
            continue;
        };
        usable += 1;
        if all || usable % STRIDE == 0 {
            groups
                .entry((f[0], f[1]))
                .or_default()
                .push((f[3], statement));
        }
    }
    let mut differences = Vec::new();
    let mut compared = 0;
    for ((target, version), cases) in &groups {
        let options = EmbedOptions {
            target: Some(target.to_string()),
            version: Some(version.to_string()),
            ..EmbedOptions::default()
        };
        for chunk in cases.chunks(200) {
            let host: String = chunk.iter().map(|(_, s)| s.as_str()).collect();
            let doc = HostDocument::new(&host, &options);
            assert_eq!(doc.statements.len(), chunk.len(), "one statement per case");
            for ((line, _), stmt) in chunk.iter().zip(&doc.statements) {
                let mut embedded = Vec::new();
                ptx_embed::check::check_statement(stmt, &mut embedded);
                let module = Parse::new(ptx_module(target, version, line));
                let plain = ptx_check::check(&module, &CheckOptions::default());
                let (ours, theirs) = (has_error(&embedded), has_error(&plain));
                compared += 1;
                if ours.is_some() != theirs.is_some() {
                    differences.push(format!(
                        "{target} {version}: {line}\n    in asm: {ours:?}\n    in .ptx: {theirs:?}"
                    ));
                }
            }
        }
    }
    // The accepted fixture modules, line by line.
    let dir = format!("{}/../check/fixtures", env!("CARGO_MANIFEST_DIR"));
    let labels = std::fs::read_to_string(format!("{dir}/labels.tsv")).expect("labels.tsv");
    let mut fixture_lines = 0;
    for label in labels.lines() {
        let mut fields = label.split('\t');
        let (Some(name), Some("accepted")) = (fields.next(), fields.next()) else {
            continue;
        };
        let text = std::fs::read_to_string(format!("{dir}/ptxas/{name}.ptx")).expect("fixture");
        let Some(fixture) = read_fixture(&text) else {
            continue;
        };
        if fixture.target.is_empty() || fixture.lines.is_empty() {
            continue;
        }
        let plain = ptx_check::check(&Parse::new(text.clone()), &CheckOptions::default());
        let index = ptx_syntax::LineIndex::new(&text);
        let error_lines: Vec<usize> = plain
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| {
                index
                    .line_col(&text, d.range.start, ptx_syntax::PositionEncoding::Chars)
                    .line as usize
            })
            .collect();
        let statements: Vec<(usize, &str, String)> = fixture
            .lines
            .iter()
            .enumerate()
            .filter_map(|(k, (n, line))| {
                asm_statement(line, k, &|r| fixture.constraint(r)).map(|s| (*n, line.as_str(), s))
            })
            .collect();
        if statements.is_empty() {
            continue;
        }
        let options = EmbedOptions {
            target: Some(fixture.target.clone()),
            version: Some(fixture.version.clone()),
            ..EmbedOptions::default()
        };
        let host: String = statements.iter().map(|(_, _, s)| s.as_str()).collect();
        let doc = HostDocument::new(&host, &options);
        assert_eq!(
            doc.statements.len(),
            statements.len(),
            "{name}: one statement per line"
        );
        for ((n, line, _), stmt) in statements.iter().zip(&doc.statements) {
            let mut embedded = Vec::new();
            ptx_embed::check::check_statement(stmt, &mut embedded);
            let ours = has_error(&embedded);
            let theirs = error_lines.contains(n);
            fixture_lines += 1;
            compared += 1;
            if ours.is_some() != theirs {
                differences.push(format!(
                    "{name}:{}: {line}\n    in asm: {ours:?}\n    in .ptx: error={theirs}",
                    n + 1
                ));
            }
        }
    }
    println!("{fixture_lines} lines of accepted fixtures compared");
    println!(
        "{compared} accepted lines compared ({usable} usable), {} differ",
        differences.len()
    );
    assert!(compared > 5_000, "only {compared} lines compared");
    assert!(
        differences.is_empty(),
        "the checker judges these lines differently inside asm:\n{}",
        differences.join("\n")
    );
}
