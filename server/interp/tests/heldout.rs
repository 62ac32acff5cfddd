//! A held-out style measurement: 2,000 seeded warp snippets of every kind
//! (`tests/interp/heldout_snippets.py`), recorded on an H100 and kept as
//! `fixtures/heldout_snippets.jsonl.zz`. Every snippet must agree bit for bit
//! in every thread and row, except those listed under "Held-out snippets" in
//! `fixtures/MISMATCHES.md` (which must still differ).

use std::collections::{BTreeMap, BTreeSet};
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

/// The ids listed as known differences: lines `- `heldout.N`: reason` of the
/// section "## Held-out snippets".
fn listed() -> BTreeSet<u64> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/MISMATCHES.md");
    let text = std::fs::read_to_string(path).expect("fixtures/MISMATCHES.md");
    let mut inside = false;
    let mut ids = BTreeSet::new();
    for line in text.lines() {
        if line.starts_with("## ") {
            inside = line.trim() == "## Held-out snippets";
            continue;
        }
        if let Some(rest) = line.strip_prefix("- `heldout.").filter(|_| inside) {
            let id = rest.split('`').next().unwrap_or("");
            ids.insert(id.parse().expect("a snippet id"));
        }
    }
    ids
}

/// The first difference of one row (`None` when every value agrees), the
/// number of values compared and the number that differ.
fn compare_row(parse: &Parse, case: &Value, row: &Value) -> (Option<String>, usize, usize) {
    let threads = case["threads"].as_u64().unwrap_or(32) as u32;
    let inputs = strings(&case["inputs"]);
    let outputs = strings(&case["outputs"]);
    let set: Vec<(String, String)> = inputs.into_iter().zip(strings(&row["set"])).collect();
    let options = SnippetOptions {
        threads,
        set,
        max_steps: 200_000,
        hint_thread: 0,
        contract: true,
    };
    let result = run_snippet(parse, &options);
    // HELDOUT_DUMP=ID prints every value of that snippet's rows.
    if std::env::var("HELDOUT_DUMP").ok().as_deref() == case["id"].to_string().as_str().into() {
        for (t, expected) in row["expect"].as_array().into_iter().flatten().enumerate() {
            for (name, want) in outputs.iter().zip(strings(expected)) {
                let got = result.as_ref().ok().and_then(|r| {
                    r.threads[t]
                        .registers
                        .iter()
                        .find(|reg| &reg.name == name)
                        .map(|g| g.text())
                });
                println!("thread {t} {name}: got {got:?}, GPU {want}");
            }
        }
    }
    let (mut first, mut values, mut differ) = (None, 0, 0);
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
            if got != want {
                differ += 1;
                first.get_or_insert(format!("thread {t} {name}: got {got}, GPU {want}"));
            }
        }
    }
    (first, values, differ)
}

#[test]
fn heldout_snippets_agree_with_the_gpu() {
    // HELDOUT_FIXTURE=PATH replays another recorded set (one drawn with HELDOUT_SEED).
    let path = std::env::var("HELDOUT_FIXTURE").map_or_else(
        |_| Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/heldout_snippets.jsonl.zz"),
        std::path::PathBuf::from,
    );
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let text = miniz_oxide::inflate::decompress_to_vec_zlib(&bytes).expect("zlib data");
    let text = String::from_utf8(text).expect("UTF-8");
    let mut by_kind: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut differ = BTreeMap::new();
    let (mut snippets, mut rows, mut values, mut values_differ) = (0usize, 0usize, 0usize, 0usize);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("a JSON line");
        let id = case["id"].as_u64().expect("an id");
        let kind = case["kind"].as_str().unwrap_or("").to_owned();
        let parse = Parse::new(case["snippet"].as_str().unwrap_or(""));
        snippets += 1;
        let mut first = None;
        for row in case["rows"].as_array().into_iter().flatten() {
            rows += 1;
            let (detail, n, d) = compare_row(&parse, &case, row);
            values += n;
            values_differ += d;
            if first.is_none() {
                first = detail;
            }
        }
        let entry = by_kind.entry(kind.clone()).or_default();
        entry.1 += 1;
        match first {
            None => entry.0 += 1,
            Some(detail) => {
                let code = case["snippet"]
                    .as_str()
                    .unwrap_or("")
                    .lines()
                    .rev()
                    .find(|l| !l.ends_with(':'))
                    .unwrap_or("")
                    .to_owned();
                differ.insert(id, format!("{kind} #{id}: {detail} ({code})"));
            }
        }
    }
    let agree: usize = by_kind.values().map(|v| v.0).sum();
    println!(
        "{agree}/{snippets} snippets agree ({:.2}%), {rows} rows, {values_differ} of {values} values differ",
        100.0 * agree as f64 / snippets.max(1) as f64
    );
    for (kind, (a, n)) in &by_kind {
        println!("  {kind}: {a}/{n}");
    }
    for detail in differ.values() {
        println!("  differs: {detail}");
    }
    assert_eq!(snippets, 2000, "the fixture lost snippets");
    let listed = listed();
    let found: BTreeSet<u64> = differ.keys().copied().collect();
    let new: Vec<_> = found.difference(&listed).take(20).collect();
    let fixed: Vec<_> = listed.difference(&found).take(20).collect();
    assert!(
        new.is_empty(),
        "snippets that differ and are not listed: {new:?}"
    );
    assert!(
        fixed.is_empty(),
        "listed snippets that agree now: {fixed:?}"
    );
}

/// `fixtures/atomic_order.json` (`tests/interp/atomic_order.py` on an H100):
/// every lane of a warp applies a same-address shared-memory atomic with its
/// own bit, so the old values name the order the lanes completed in. The
/// same snippet must give the same old values here.
#[test]
fn same_address_atomics_complete_in_the_gpus_order() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/atomic_order.json");
    let text = std::fs::read_to_string(path).expect("fixtures/atomic_order.json");
    let cases: Value = serde_json::from_str(&text).expect("JSON");
    let mut checked = 0;
    for case in cases.as_array().expect("a list") {
        let op = case["op"].as_str().expect("op");
        let slots = case["slots"].as_u64().expect("slots");
        let runs = case["runs"].as_array().expect("runs");
        assert_eq!(runs[0], runs[1], "{op}: the two GPU launches differ");
        let bits = if op.ends_with("64") { 64 } else { 32 };
        let (init, value) = match op.split('.').next() {
            Some("and") => ("-1", format!("not.b{bits} %v, %v;")),
            Some("min") => ("-1", format!("sub.u{bits} %v, -1, %v;")),
            _ => ("0", String::new()),
        };
        let snippet = format!(
            ".shared .align 8 .b8 sm[256];\n.reg .b{bits} %v, %d, %one;\n.reg .b32 %l, %s, %sa, %s0;\n\
             mov.u32 %l, %laneid;\nand.b32 %s, %l, {slots};\nmul.lo.u32 %s, %s, 8;\nmov.u32 %s0, sm;\n\
             add.u32 %s, %s, %s0;\nmul.lo.u32 %sa, %l, 8;\nadd.u32 %sa, %sa, %s0;\n\
             st.shared.b{bits} [%sa], {init};\nbar.warp.sync -1;\nmov.b{bits} %one, 1;\n\
             shl.b{bits} %v, %one, %l;\n{value}\natom.shared.{op} %d, [%s], %v;\n"
        );
        let parse = Parse::new(&snippet);
        let options = SnippetOptions {
            threads: 32,
            set: Vec::new(),
            max_steps: 10_000,
            hint_thread: 0,
            contract: true,
        };
        let result = run_snippet(&parse, &options).expect("the probe runs");
        for (lane, want) in strings(&runs[0]).iter().enumerate() {
            let got = result.threads[lane]
                .registers
                .iter()
                .find(|r| r.name == "%d")
                .map(|r| r.bits)
                .expect("%d");
            let want = u64::from_str_radix(want.trim_start_matches("0x"), 16).expect("hex");
            assert_eq!(got, want, "{op} slots {slots} lane {lane}");
            checked += 1;
        }
    }
    assert_eq!(checked, 30 * 32);
}
