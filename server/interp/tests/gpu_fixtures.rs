//! Holds the interpreter to results recorded on a real GPU (architecture
//! invariant 4). `fixtures/gpu_snippets.jsonl` and `fixtures/gpu_kernels.jsonl`
//! come from `tests/interp/gpu_fixtures.py --run` on an sm_90 GPU; every
//! known difference is listed, with its reason, in `fixtures/MISMATCHES.md`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use ptx_interp::{parse_arg, run_kernel, run_snippet, KernelOptions, SnippetOptions};
use ptx_syntax::Parse;
use serde_json::Value;

fn fixtures() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

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

/// Bits of a fixture value: `0x...` or a predicate digit.
fn bits(text: &str) -> u64 {
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).unwrap_or(u64::MAX),
        None => text.parse().unwrap_or(u64::MAX),
    }
}

/// The value of raw bits of an approximate-instruction format.
fn value(x: u64, format: &str) -> f64 {
    match format {
        "f64" => f64::from_bits(x),
        "f16" | "f16x2" => {
            let exp = (x >> 10) & 0x1f;
            let frac = (x & 0x3ff) as f64;
            let magnitude = if exp == 0 {
                frac * (-24f64).exp2()
            } else {
                (1024.0 + frac) * ((exp as f64) - 25.0).exp2()
            };
            if x & 0x8000 != 0 {
                -magnitude
            } else {
                magnitude
            }
        }
        _ => f64::from(f32::from_bits(x as u32)),
    }
}

fn ulps(a: u64, b: u64, format: &str) -> u64 {
    if format == "f16x2" {
        let low = ulps(a & 0xffff, b & 0xffff, "f16");
        let high = ulps(a >> 16 & 0xffff, b >> 16 & 0xffff, "f16");
        return low.max(high);
    }
    let (sign, exp_frac) = match format {
        "f16" => (1u64 << 15, (0x7c00u64, 0x3ffu64)),
        "f64" => (1u64 << 63, (0x7ff0_0000_0000_0000, 0x000f_ffff_ffff_ffff)),
        _ => (1u64 << 31, (0x7f80_0000, 0x007f_ffff)),
    };
    let all = sign | (sign - 1);
    let nan = |x: u64| x & exp_frac.0 == exp_frac.0 && x & exp_frac.1 != 0;
    if nan(a) || nan(b) {
        return if nan(a) && nan(b) { 0 } else { u64::MAX };
    }
    let key = |x: u64| {
        let magnitude = i128::from(x & all & !sign);
        if x & sign != 0 {
            -magnitude
        } else {
            magnitude
        }
    };
    (key(a) - key(b)).unsigned_abs() as u64
}

/// Known mismatches: `case.row` ids listed in MISMATCHES.md lines `- case.row: reason`.
fn known_mismatches() -> BTreeSet<String> {
    let text = std::fs::read_to_string(fixtures().join("MISMATCHES.md")).unwrap_or_default();
    text.lines()
        .filter_map(|line| line.strip_prefix("- `"))
        .filter_map(|rest| rest.split('`').next())
        .filter(|id| {
            let mut parts = id.split('.');
            let numeric = |p: Option<&str>| {
                p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            };
            numeric(parts.next()) && numeric(parts.next()) && parts.next().is_none()
        })
        .map(str::to_owned)
        .collect()
}

#[test]
fn snippets_agree_with_the_gpu() {
    let text = std::fs::read_to_string(fixtures().join("gpu_snippets.jsonl"))
        .expect("fixtures/gpu_snippets.jsonl");
    let mut exact_rows = 0usize;
    let mut total_rows = 0usize;
    let mut mismatches: Vec<(String, String)> = Vec::new();
    let mut approx_max: BTreeMap<String, (u64, usize, String, f64, usize)> = BTreeMap::new();
    let mut families: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("a JSON line");
        let id = case["id"].to_string();
        let family = case["family"].as_str().unwrap_or("").to_owned();
        let snippet = case["snippet"].as_str().unwrap_or("");
        let threads = case["threads"].as_u64().unwrap_or(1) as u32;
        let approx = case["approx"].as_str().map(str::to_owned);
        let inputs = strings(&case["inputs"]);
        let outputs = strings(&case["outputs"]);
        let instruction = snippet.lines().last().unwrap_or("").trim().to_owned();
        let parse = Parse::new(snippet);
        for (r, row) in case["rows"].as_array().into_iter().flatten().enumerate() {
            let row_id = format!("{id}.{r}");
            let set: Vec<(String, String)> =
                inputs.iter().cloned().zip(strings(&row["set"])).collect();
            let options = SnippetOptions {
                threads,
                set: set.clone(),
                max_steps: 100_000,
                hint_thread: 0,
                contract: true,
            };
            let expect = row["expect"].as_array().cloned().unwrap_or_default();
            let result = run_snippet(&parse, &options);
            let mut worst_ulp = 0u64;
            let mut differs = false;
            let mut worst_abs = 0f64;
            let mut worst = String::new();
            let mut detail = String::new();
            match &result {
                Err(error) => detail = format!("error: {}", error.message),
                Ok(result) => {
                    for (t, expected) in expect.iter().enumerate() {
                        let expected = strings(expected);
                        for (name, want) in outputs.iter().zip(&expected) {
                            let got = result
                                .threads
                                .get(t)
                                .and_then(|th| th.registers.iter().find(|reg| &reg.name == name));
                            let got_text = got.map(|g| g.text()).unwrap_or_default();
                            if got_text != *want {
                                differs = true;
                                if let Some(format) = &approx {
                                    let distance = ulps(bits(&got_text), bits(want), format);
                                    let (x, y) =
                                        (value(bits(&got_text), format), value(bits(want), format));
                                    if x.is_finite() && y.is_finite() {
                                        worst_abs = worst_abs.max((x - y).abs());
                                    }
                                    if distance > worst_ulp {
                                        worst_ulp = distance;
                                        worst = format!("{set:?}: {got_text} vs GPU {want}");
                                    }
                                } else if detail.is_empty() {
                                    detail =
                                        format!("thread {t} {name}: got {got_text}, GPU {want}");
                                }
                            }
                        }
                    }
                }
            }
            if let Some(_format) = &approx {
                if result.is_err() {
                    worst_ulp = u64::MAX;
                }
                let entry =
                    approx_max
                        .entry(instruction.clone())
                        .or_insert((0, 0, String::new(), 0.0, 0));
                entry.3 = entry.3.max(worst_abs);
                if result.is_ok() && !differs {
                    entry.4 += 1;
                }
                if worst_ulp > entry.0 || entry.2.is_empty() && !worst.is_empty() {
                    entry.0 = worst_ulp;
                    entry.2 = worst;
                }
                entry.1 += 1;
                continue;
            }
            total_rows += 1;
            let family_entry = families.entry(family.clone()).or_insert((0, 0));
            family_entry.1 += 1;
            if detail.is_empty() {
                exact_rows += 1;
                family_entry.0 += 1;
            } else {
                let inputs: Vec<String> = set.iter().map(|(n, v)| format!("{n}={v}")).collect();
                mismatches.push((
                    row_id,
                    format!("{instruction} [{}] {detail}", inputs.join(" ")),
                ));
            }
        }
    }
    let percent = 100.0 * exact_rows as f64 / total_rows.max(1) as f64;
    println!("bit-exact {exact_rows}/{total_rows} = {percent:.2}%");
    for (family, (ok, all)) in &families {
        println!("  {family}: {ok}/{all}");
    }
    println!("approximate instructions (max ulp difference from the GPU over rows):");
    for (instruction, (ulp, n, example, absolute, exact)) in &approx_max {
        let shown = if *ulp == u64::MAX {
            "special-value mismatch".to_owned()
        } else {
            ulp.to_string()
        };
        println!(
            "  {instruction}: {exact}/{n} rows exact, max {shown} ulp, max absolute {absolute:.3e} {example}"
        );
    }
    let known = known_mismatches();
    let unexplained: Vec<_> = mismatches
        .iter()
        .filter(|(id, _)| !known.contains(id))
        .collect();
    for (id, what) in &unexplained {
        println!("unexplained mismatch {id}: {what}");
    }
    let found: BTreeSet<_> = mismatches.iter().map(|(id, _)| id.clone()).collect();
    let stale: Vec<_> = known.difference(&found).collect();
    assert!(
        percent >= 99.5,
        "bit-exact agreement {percent:.2}% is below 99.5%"
    );
    assert!(
        unexplained.is_empty(),
        "{} mismatches are not listed in MISMATCHES.md",
        unexplained.len()
    );
    assert!(
        stale.is_empty(),
        "MISMATCHES.md lists rows that now agree: {stale:?}"
    );
}

#[test]
fn kernels_agree_with_the_gpu() {
    let text = std::fs::read_to_string(fixtures().join("gpu_kernels.jsonl"))
        .expect("fixtures/gpu_kernels.jsonl");
    let kernels = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/interp/kernels");
    let mut runs = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let run: Value = serde_json::from_str(line).expect("a JSON line");
        assert!(run.get("error").is_none(), "the GPU run failed: {run}");
        let file = run["file"].as_str().unwrap_or("");
        let source = std::fs::read_to_string(kernels.join(file)).expect("kernel source");
        let dims = |key: &str| -> [u32; 3] {
            let v: Vec<u32> = run[key]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|d| d.as_u64().map(|d| d as u32))
                .collect();
            [v[0], v[1], v[2]]
        };
        let options = KernelOptions {
            entry: run["entry"].as_str().unwrap_or("").to_owned(),
            grid: dims("grid"),
            block: dims("block"),
            args: strings(&run["args"])
                .iter()
                .map(|a| parse_arg(a).expect("argument"))
                .collect(),
            max_steps: 10_000_000,
            hint_thread: 0,
            dynamic_smem: None,
            contract: true,
            cluster: None,
        };
        let result =
            run_kernel(&Parse::new(source), &options).unwrap_or_else(|e| panic!("{file}: {e:?}"));
        for buffer in run["buffers"].as_array().into_iter().flatten() {
            let arg = buffer["arg"].as_u64().unwrap_or(0) as usize;
            let want = buffer["hex"].as_str().unwrap_or("");
            let got = result
                .buffers
                .iter()
                .find(|b| b.arg == arg)
                .map(|b| {
                    b.bytes
                        .iter()
                        .map(|x| format!("{x:02x}"))
                        .collect::<String>()
                })
                .unwrap_or_default();
            assert_eq!(got, want, "{file} {} argument {arg}", options.entry);
        }
        runs += 1;
    }
    println!("{runs} kernel runs agree with the GPU");
    assert!(runs >= 6);
}
