//! The knowledge base against the spec by a second, independent path: this test reads the
//! instruction sections of the PTX ISA markdown itself (not through `specgen`), takes every
//! qualifier set a Syntax block defines (`.shape = { .m64n8k16, … }`) and the version in its
//! "PTX ISA Notes" ("Introduced in PTX ISA version 8.0"), and compares them with the loaded
//! model: the values of the same-named slots of the section's forms, and the section's
//! instruction version. Every difference must be listed, with the reason, in
//! `tests/fixtures/spec-differences.txt` (a model fix, an overlay measured with ptxas, or a
//! reading this test does not attempt); a listed difference that no longer occurs fails too.
//!
//! The spec is read from `$PTX_ISA_DIR` (tests/spec-tests.sh sets it).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use ptx_isa::Isa;

fn spec_dir() -> PathBuf {
    PathBuf::from(
        std::env::var_os("PTX_ISA_DIR")
            .expect("set PTX_ISA_DIR to a copy of the PTX ISA 9.1 markdown (tests/spec-tests.sh)"),
    )
}

/// One section of the instruction chapter: its number and its text.
fn sections(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir.join("9-instruction-set"))
        .expect("the spec's instruction chapter")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let text = fs::read_to_string(&file).expect("readable spec file");
        let mut current: Option<(String, String)> = None;
        for line in text.lines() {
            if let Some(number) = heading_number(line) {
                if let Some(done) = current.take() {
                    out.push(done);
                }
                current = Some((number, String::new()));
                continue;
            }
            if let Some((_, body)) = current.as_mut() {
                body.push_str(line);
                body.push('\n');
            }
        }
        out.extend(current);
    }
    out
}

/// `9.7.15.5.2` of `#####  9.7.15.5.2. [Title](…)`.
fn heading_number(line: &str) -> Option<String> {
    let rest = line.strip_prefix('#')?.trim_start_matches('#').trim_start();
    let number: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let number = number.trim_end_matches('.');
    (number.contains('.') && number.starts_with("9.7")).then(|| number.to_owned())
}

/// The text of the section's Syntax part: from a line `Syntax` to the next part heading.
fn syntax_part(body: &str) -> Option<String> {
    let mut lines = body.lines().skip_while(|l| l.trim() != "Syntax");
    lines.next()?;
    let part: Vec<&str> = lines
        .take_while(|l| {
            !matches!(
                l.trim(),
                "Description" | "Semantics" | "PTX ISA Notes" | "Target ISA Notes" | "Examples"
            )
        })
        .collect();
    Some(part.join("\n"))
}

/// Every `.name = { .a, .b }` (also `.a = .b = { … }`) of a Syntax part, values without dots.
fn set_definitions(syntax: &str) -> Vec<(String, BTreeSet<String>)> {
    let mut out = Vec::new();
    let bytes = syntax.as_bytes();
    let mut i = 0;
    while let Some(open) = syntax[i..].find('{').map(|o| o + i) {
        // The matching brace: `.space = { .shared{::cta}, .global }` nests.
        let mut depth = 0;
        let mut close = None;
        for (k, b) in bytes.iter().enumerate().skip(open) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(k);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(close) = close else {
            break;
        };
        // The names: `.x =` runs right before the brace.
        let mut names = Vec::new();
        let mut j = open;
        loop {
            let before = syntax[..j].trim_end();
            let Some(before) = before.strip_suffix('=') else {
                break;
            };
            let before = before.trim_end();
            let start = before
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == '.'))
                .map_or(0, |s| s + 1);
            let name = &before[start..];
            if !name.starts_with('.') || name.len() < 2 {
                break;
            }
            names.push(name.to_owned());
            j = start;
        }
        let mut values = BTreeSet::new();
        for item in expand_optional(&syntax[open + 1..close]).split([',', ' ', '\n', '\t']) {
            let item = item.trim();
            if item.starts_with('.') && item.len() > 1 {
                values.insert(item.trim_start_matches('.').to_owned());
            }
        }
        if !values.is_empty() {
            for name in names {
                out.push((name, values.clone()));
            }
        }
        i = close + 1;
    }
    out
}

/// `.shared{::cta, ::cluster}` inside a set: the value alone and with each optional part
/// (`.shared, .shared::cta, .shared::cluster`).
fn expand_optional(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| c + open) else {
            break;
        };
        let before = &rest[..open];
        let start = before
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == '.'))
            .map_or(0, |s| s + 1);
        let head = &before[start..];
        out.push_str(&before[..start]);
        out.push_str(head);
        for alternative in rest[open + 1..close].split(',') {
            out.push_str(", ");
            out.push_str(head);
            out.push_str(alternative.trim());
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// "Introduced in PTX ISA version 8.0." of the PTX ISA Notes.
fn introduced(body: &str) -> Option<String> {
    let notes = body.split("PTX ISA Notes").nth(1)?;
    let notes = notes.split("Target ISA Notes").next()?;
    let at = notes.find("Introduced in PTX ISA version ")?;
    let version: String = notes[at + "Introduced in PTX ISA version ".len()..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    Some(version.trim_end_matches('.').to_owned())
}

/// "Requires `sm_90` or higher." (as `sm_90+`) or "Requires `sm_90a`." as the first line of the
/// Target ISA Notes: what the whole instruction needs.
fn required_target(body: &str) -> Option<String> {
    let notes = body.split("Target ISA Notes").nth(1)?;
    let first = notes.lines().map(str::trim).find(|l| !l.is_empty())?;
    let rest = first.strip_prefix("Requires `")?;
    let (target, tail) = rest.split_once('`')?;
    match tail.trim() {
        "or higher." => Some(format!("{target}+")),
        "." => Some(target.to_owned()),
        _ => None,
    }
}

/// Every difference between the spec (read here) and the loaded model, one line each.
fn differences(isa: &Isa, dir: &Path) -> (BTreeSet<String>, [usize; 3]) {
    let mut by_section: BTreeMap<&str, Vec<&ptx_isa::Instruction>> = BTreeMap::new();
    for i in isa.instructions() {
        by_section.entry(i.section.as_str()).or_default().push(i);
    }
    let mut out = BTreeSet::new();
    // How many sets, target notes and version notes were compared.
    let mut compared = [0; 3];
    for (number, body) in sections(dir) {
        let Some(instructions) = by_section.get(number.as_str()) else {
            continue;
        };
        if let Some(syntax) = syntax_part(&body) {
            // The union of the spec's definitions of one name in the section (a section may
            // define `.shape` once per group of forms).
            let mut spec: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
            for (name, values) in set_definitions(&syntax) {
                spec.entry(name).or_default().extend(values);
            }
            // Every value any form of the section accepts at any position: the model may
            // spell a set out in separate forms (`wmma.mma….s32.s8.s8.s32`) or rename it.
            let anywhere: BTreeSet<&str> = instructions
                .iter()
                .flat_map(|i| &i.forms)
                .flat_map(|f| &f.qualifier_slots)
                .flat_map(|s| s.values.iter().map(String::as_str))
                .collect();
            for (name, values) in spec {
                compared[0] += 1;
                let model: BTreeSet<String> = instructions
                    .iter()
                    .flat_map(|i| &i.forms)
                    .flat_map(|f| &f.qualifier_slots)
                    .filter(|s| s.name == name)
                    .flat_map(|s| s.values.iter().cloned())
                    .collect();
                for v in values.iter().filter(|v| !anywhere.contains(v.as_str())) {
                    out.insert(format!(
                        "{number} {name}: .{v} in the spec, in no form of the model"
                    ));
                }
                for v in model.difference(&values) {
                    out.insert(format!(
                        "{number} {name}: .{v} in the model, not in the spec"
                    ));
                }
            }
        }
        if let Some(target) = required_target(&body) {
            compared[1] += 1;
            let model: BTreeSet<String> = instructions
                .iter()
                .map(|i| i.requirement.targets.to_string())
                .collect();
            if !model.contains(&target) {
                out.insert(format!(
                    "{number} requires {target} per the spec; the model says {}",
                    model.into_iter().collect::<Vec<_>>().join(", ")
                ));
            }
        }
        if let Some(version) = introduced(&body) {
            compared[2] += 1;
            let model: BTreeSet<String> = instructions
                .iter()
                .map(|i| i.requirement.since.to_string())
                .collect();
            if !model.contains(&version) {
                out.insert(format!(
                    "{number} introduced in {version} per the spec; the model says {}",
                    model.into_iter().collect::<Vec<_>>().join(", ")
                ));
            }
        }
    }
    (out, compared)
}

/// The listed differences: each line `DIFFERENCE  # reason`.
fn explained() -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/spec-differences.txt");
    let text = fs::read_to_string(&path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (diff, why) = l.split_once("  # ").unwrap_or((l, ""));
            (diff.trim().to_owned(), why.trim().to_owned())
        })
        .collect()
}

#[test]
fn knowledge_base_agrees_with_the_spec_or_says_why() {
    let dir = spec_dir();
    assert!(
        dir.join("9-instruction-set").is_dir(),
        "the PTX ISA markdown is missing at {} (set PTX_ISA_DIR)",
        dir.display()
    );
    let isa = Isa::load().expect("the embedded data loads");
    let (found, compared) = differences(&isa, &dir);
    println!(
        "compared {} sets, {} target notes, {} version notes",
        compared[0], compared[1], compared[2]
    );
    // The reading sees the spec: most instruction sections define sets and have notes.
    assert!(
        compared[0] > 300 && compared[1] > 50 && compared[2] > 150,
        "too little of the spec was read: {compared:?}"
    );
    let listed = explained();
    let unexplained: Vec<&String> = found.iter().filter(|d| !listed.contains_key(*d)).collect();
    let stale: Vec<&String> = listed.keys().filter(|d| !found.contains(*d)).collect();
    let no_reason: Vec<&String> = listed
        .iter()
        .filter(|(_, why)| why.is_empty())
        .map(|(d, _)| d)
        .collect();
    for d in &unexplained {
        println!("{d}");
    }
    assert!(
        unexplained.is_empty() && stale.is_empty() && no_reason.is_empty(),
        "{} differences between the spec and the model are not explained in \
         tests/fixtures/spec-differences.txt (printed above), {} listed ones no longer occur \
         ({stale:?}), {} have no reason ({no_reason:?})",
        unexplained.len(),
        stale.len(),
        no_reason.len()
    );
}
