//! Running a form on the interpreter, comparing with GPU output, and the
//! summary file format.
//!
//! `fixtures/sweeps/summary.txt` has one block per form:
//!
//! ```text
//! form <index> <name>
//! rows <n> approx <format|->
//! chunks <hex digest>,<hex digest>,...
//! mismatches <count>            (rows that differ from the interpreter when recorded)
//! row <r> <column words in hex, inputs then GPU outputs>   (at most ROW_LIMIT)
//! ulp max <n> exact <fraction>   (approximate forms only)
//! ```

use std::fmt::Write as _;

use ptx_interp::{run_kernel, ArgSpec, KernelOptions};
use ptx_syntax::Parse;

use super::{chunk_digests, kernel, tables, Form, BLOCK, CHUNK};

/// Mismatching rows kept verbatim per form: every one (up to a limit) of an
/// exact form, so that a known difference can be checked row by row; a few
/// of an approximate one.
pub const ROW_LIMIT: usize = 4096;
pub const APPROX_ROW_LIMIT: usize = 16;

/// Runs `rows` rows (a multiple of the block) starting at row 0 of `form` on
/// the interpreter; returns the output words (rows × columns).
pub fn interpret(form: &Form, rows: u32) -> Result<Vec<u64>, String> {
    let text = kernel(form);
    let parse = Parse::new(&text);
    let (tab, _) = tables(form);
    let cols = form.columns();
    let options = KernelOptions {
        entry: "sweep".into(),
        grid: [rows / BLOCK, 1, 1],
        block: [BLOCK, 1, 1],
        args: vec![
            ArgSpec::Buffer(vec![0; rows as usize * cols * 8]),
            ArgSpec::Buffer(tab.iter().flat_map(|w| w.to_le_bytes()).collect()),
        ],
        max_steps: u64::MAX / 2,
        hint_thread: 0,
        dynamic_smem: None,
        contract: true,
        cluster: None,
    };
    let result = run_kernel(&parse, &options).map_err(|e| e.message)?;
    let bytes = &result.buffers.first().ok_or("no output buffer")?.bytes;
    Ok(bytes
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default()))
        .collect())
}

/// One form's record.
#[derive(Debug, Clone, Default)]
pub struct Record {
    pub index: usize,
    pub name: String,
    pub rows: u32,
    pub approx: Option<String>,
    pub chunks: Vec<u64>,
    pub mismatches: u64,
    pub rows_kept: Vec<(u32, Vec<u64>)>,
    pub ulp: Option<(u64, f64)>,
    /// Why the interpreter could not run the form, when it could not.
    pub error: Option<String>,
}

pub fn write(records: &[Record]) -> String {
    let mut s = String::new();
    for r in records {
        let _ = writeln!(s, "form {} {}", r.index, r.name);
        let _ = writeln!(
            s,
            "rows {} approx {}",
            r.rows,
            r.approx.as_deref().unwrap_or("-")
        );
        let chunks: Vec<String> = r.chunks.iter().map(|d| format!("{d:016x}")).collect();
        let _ = writeln!(s, "chunks {}", chunks.join(","));
        let _ = writeln!(s, "mismatches {}", r.mismatches);
        if let Some(e) = &r.error {
            let _ = writeln!(s, "error {}", e.replace('\n', " "));
        }
        for (row, words) in &r.rows_kept {
            let words: Vec<String> = words.iter().map(|w| format!("{w:x}")).collect();
            let _ = writeln!(s, "row {row} {}", words.join(" "));
        }
        if let Some((max, exact)) = r.ulp {
            let _ = writeln!(s, "ulp max {max} exact {exact:.6}");
        }
    }
    s
}

pub fn read(text: &str) -> Vec<Record> {
    let mut out: Vec<Record> = Vec::new();
    for line in text.lines() {
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        if key == "form" {
            let (index, name) = rest.split_once(' ').unwrap_or((rest, ""));
            out.push(Record {
                index: index.parse().unwrap_or(usize::MAX),
                name: name.to_owned(),
                ..Record::default()
            });
            continue;
        }
        let Some(r) = out.last_mut() else { continue };
        match key {
            "rows" => {
                let mut w = rest.split(' ');
                r.rows = w.next().and_then(|x| x.parse().ok()).unwrap_or(0);
                r.approx = w.nth(1).filter(|a| *a != "-").map(str::to_owned);
            }
            "chunks" => {
                r.chunks = rest
                    .split(',')
                    .filter_map(|d| u64::from_str_radix(d, 16).ok())
                    .collect();
            }
            "mismatches" => r.mismatches = rest.parse().unwrap_or(0),
            "error" => r.error = Some(rest.to_owned()),
            "row" => {
                let mut w = rest.split(' ');
                let row = w.next().and_then(|x| x.parse().ok()).unwrap_or(0);
                let words = w.filter_map(|x| u64::from_str_radix(x, 16).ok()).collect();
                r.rows_kept.push((row, words));
            }
            "ulp" => {
                let w: Vec<&str> = rest.split(' ').collect();
                if let (Some(max), Some(exact)) = (w.get(1), w.get(3)) {
                    r.ulp = Some((max.parse().unwrap_or(0), exact.parse().unwrap_or(0.0)));
                }
            }
            _ => {}
        }
    }
    out
}

/// Distance in ulps between two results of `format` (0 for two NaNs,
/// `u64::MAX` for a NaN and a number); packed formats take the larger half.
pub fn ulps(a: u64, b: u64, format: &str) -> u64 {
    match format {
        "f16x2" | "bf16x2" => {
            let e = if format == "f16x2" { "f16" } else { "bf16" };
            ulps(a & 0xffff, b & 0xffff, e).max(ulps(a >> 16 & 0xffff, b >> 16 & 0xffff, e))
        }
        _ => {
            let (width, exp_mask, frac_mask) = match format {
                "f16" => (16, 0x7c00u64, 0x3ffu64),
                "bf16" => (16, 0x7f80, 0x7f),
                "f64" => (64, 0x7ff0_0000_0000_0000, 0x000f_ffff_ffff_ffff),
                _ => (32, 0x7f80_0000, 0x007f_ffff),
            };
            let sign = 1u64 << (width - 1);
            let nan = |x: u64| x & exp_mask == exp_mask && x & frac_mask != 0;
            if nan(a) || nan(b) {
                return if nan(a) && nan(b) { 0 } else { u64::MAX };
            }
            let key = |x: u64| {
                let m = i128::from(x & (sign - 1));
                if x & sign != 0 {
                    -m
                } else {
                    m
                }
            };
            (key(a) - key(b)).unsigned_abs().min(u128::from(u64::MAX)) as u64
        }
    }
}

/// Compares the GPU's words with the interpreter's for one form.
pub fn compare(index: usize, form: &Form, gpu: &[u64], interp: Result<Vec<u64>, String>) -> Record {
    let cols = form.columns();
    let rows = (gpu.len() / cols) as u32;
    let mut record = Record {
        index,
        name: form.name.clone(),
        rows,
        approx: form.approx.map(str::to_owned),
        chunks: chunk_digests(gpu, cols),
        ..Record::default()
    };
    let mine = match interp {
        Ok(words) => words,
        Err(e) => {
            record.error = Some(e);
            record.mismatches = u64::from(rows);
            for row in (0..rows)
                .step_by((CHUNK / 2) as usize)
                .take(APPROX_ROW_LIMIT)
            {
                let at = row as usize * cols;
                record.rows_kept.push((row, gpu[at..at + cols].to_vec()));
            }
            return record;
        }
    };
    let n_in = form.inputs.len();
    let mut max_ulp = 0;
    let mut exact = 0u64;
    for row in 0..rows as usize {
        let g = &gpu[row * cols..(row + 1) * cols];
        let m = mine.get(row * cols..(row + 1) * cols).unwrap_or(&[]);
        if g != m {
            record.mismatches += 1;
            let limit = if form.approx.is_some() {
                APPROX_ROW_LIMIT
            } else {
                ROW_LIMIT
            };
            if record.rows_kept.len() < limit {
                let mut words = g.to_vec();
                words.extend_from_slice(m.get(n_in..).unwrap_or(&[]));
                record.rows_kept.push((row as u32, words));
            }
        } else {
            exact += 1;
        }
        if let Some(format) = form.approx {
            if g[..n_in] == m[..n_in.min(m.len())] {
                for (k, &gk) in g.iter().enumerate().skip(n_in) {
                    max_ulp = max_ulp.max(ulps(gk, m.get(k).copied().unwrap_or(0), format));
                }
            }
        }
    }
    if form.approx.is_some() {
        record.ulp = Some((max_ulp, exact as f64 / f64::from(rows.max(1))));
    }
    record
}
