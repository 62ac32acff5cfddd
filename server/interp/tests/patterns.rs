//! Operand patterns recorded on the GPU: identical operands, immediates at
//! and past the spec's ranges, and member masks held in registers inside
//! divergent branches for every warp-level instruction
//! (`fixtures/gpu_patterns.jsonl`, from `tests/interp/operand_patterns.py`).
//! Every row must be bit-exact.

use std::path::Path;

use ptx_interp::{run_snippet, SnippetOptions};
use ptx_syntax::Parse;
use serde_json::Value;

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn operand_patterns_agree_with_the_gpu() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/gpu_patterns.jsonl");
    let text = std::fs::read_to_string(path).expect("fixtures/gpu_patterns.jsonl");
    let (mut rows, mut values) = (0usize, 0usize);
    let mut mismatches = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("a JSON line");
        let family = case["family"].as_str().unwrap_or("");
        let snippet = case["snippet"].as_str().unwrap_or("");
        let threads = case["threads"].as_u64().unwrap_or(1) as u32;
        let inputs = strings(&case["inputs"]);
        let outputs = strings(&case["outputs"]);
        let parse = Parse::new(snippet);
        for row in case["rows"].as_array().into_iter().flatten() {
            rows += 1;
            let set: Vec<(String, String)> =
                inputs.iter().cloned().zip(strings(&row["set"])).collect();
            let options = SnippetOptions {
                threads,
                set: set.clone(),
                max_steps: 100_000,
                hint_thread: 0,
                contract: true,
            };
            let result = run_snippet(&parse, &options);
            let mut first = None;
            for (t, expected) in row["expect"].as_array().into_iter().flatten().enumerate() {
                for (name, want) in outputs.iter().zip(strings(expected)) {
                    values += 1;
                    let got = match &result {
                        Ok(r) => r
                            .threads
                            .get(t)
                            .and_then(|th| th.registers.iter().find(|reg| &reg.name == name))
                            .map(|g| g.text())
                            .unwrap_or_default(),
                        Err(e) => format!("error: {}", e.message),
                    };
                    if got != want && first.is_none() {
                        first = Some(format!("thread {t} {name}: got {got}, GPU {want}"));
                    }
                }
            }
            if let Some(detail) = first {
                let code = snippet.lines().last().unwrap_or("").trim();
                mismatches.push(format!("{family}: {code} {set:?}: {detail}"));
            }
        }
    }
    println!(
        "{rows} rows, {values} values compared, {} rows differ",
        mismatches.len()
    );
    let mut by_family = std::collections::BTreeMap::new();
    for m in &mismatches {
        let family = m.split(' ').take(2).collect::<Vec<_>>().join(" ");
        let entry = by_family.entry(family.to_owned()).or_insert((0, m.clone()));
        entry.0 += 1;
    }
    for (family, (count, example)) in &by_family {
        println!("  {family}: {count} rows, e.g. {example}");
    }
    assert!(rows > 5000, "the fixture file lost its rows");
    assert!(
        mismatches.is_empty(),
        "{} rows differ from the GPU",
        mismatches.len()
    );
}
