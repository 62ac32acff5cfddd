//! Per-instruction sweeps against a GPU (see `tests/sweep/mod.rs`).
//!
//! ```text
//! sweep gen DIR              write DIR/manifest.tsv, DIR/kN.ptx, DIR/kN.tab
//! sweep record GPU_DIR OUT   compare GPU_DIR/kN.out with the interpreter, write the summary
//! sweep interp [ROWS]        run the first rows of every form, print refusals
//! sweep check SUMMARY        run every row of every form, compare with the summary's digests
//! ```

#[path = "../tests/sweep/mod.rs"]
mod sweep;

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use sweep::record::{compare, interpret, read, write, Record};

fn threads() -> usize {
    std::env::var("SWEEP_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(1)
}

fn parallel<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let out = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads() {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let r = f(i);
                out.lock().unwrap().push((i, r));
            });
        }
    });
    let mut v = out.into_inner().unwrap();
    v.sort_by_key(|(i, _)| *i);
    v.into_iter().map(|(_, r)| r).collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let forms = sweep::forms::all();
    let only = std::env::var("SWEEP_ONLY").ok();
    let selected = |name: &str| only.as_deref().is_none_or(|o| name.contains(o));
    match args.first().map(String::as_str) {
        Some("gen") => {
            let dir = Path::new(&args[1]);
            std::fs::create_dir_all(dir).unwrap();
            let mut manifest = String::new();
            for (i, f) in forms.iter().enumerate() {
                let (tab, _) = sweep::tables(f);
                std::fs::write(dir.join(format!("k{i}.ptx")), sweep::kernel(f)).unwrap();
                let bytes: Vec<u8> = tab.iter().flat_map(|w| w.to_le_bytes()).collect();
                std::fs::write(dir.join(format!("k{i}.tab")), bytes).unwrap();
                manifest += &format!("{i}\t{}\t{}\t{}\n", sweep::ROWS, f.columns(), f.name);
            }
            std::fs::write(dir.join("manifest.tsv"), manifest).unwrap();
            eprintln!("{} forms", forms.len());
        }
        Some("record") => {
            let dir = Path::new(&args[1]);
            let records: Vec<Record> = parallel(forms.len(), |i| {
                let f = &forms[i];
                let path = dir.join(format!("k{i}.out"));
                let Ok(bytes) = std::fs::read(&path) else {
                    return Record {
                        index: i,
                        name: f.name.clone(),
                        error: Some("no GPU output".into()),
                        ..Record::default()
                    };
                };
                let gpu: Vec<u64> = bytes
                    .chunks_exact(8)
                    .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
                    .collect();
                let rows = (gpu.len() / f.columns()) as u32;
                let r = compare(i, f, &gpu, interpret(f, rows));
                if r.mismatches > 0 {
                    eprintln!("{i} {}: {} mismatches", f.name, r.mismatches);
                }
                r
            });
            std::fs::write(&args[2], write(&records)).unwrap();
        }
        Some("check") => {
            let records = read(&std::fs::read_to_string(&args[1]).unwrap());
            let results = parallel(records.len(), |k| {
                let r = &records[k];
                let Some(f) = forms.get(r.index).filter(|f| f.name == r.name) else {
                    return format!("{}: not a form any more", r.name);
                };
                if !selected(&f.name) || r.chunks.is_empty() {
                    return String::new();
                }
                match interpret(f, r.rows) {
                    Ok(mut words) => {
                        // Recorded rows of exact forms are known differences:
                        // the GPU's values stand in for them (each must
                        // still differ).
                        let cols = f.columns();
                        let mut known = 0;
                        let mut agree = 0;
                        if f.approx.is_none() {
                            for (row, kept) in &r.rows_kept {
                                let at = *row as usize * cols;
                                if words[at..at + cols] == kept[..cols] {
                                    agree += 1;
                                }
                                words[at..at + cols].copy_from_slice(&kept[..cols]);
                                known += 1;
                            }
                        }
                        let mine = sweep::chunk_digests(&words, cols);
                        let bad = mine.iter().zip(&r.chunks).filter(|(a, b)| a != b).count();
                        if bad == 0 && agree == 0 {
                            return if known > 0 {
                                format!("{}: ok ({known} known rows)", f.name)
                            } else {
                                format!("{}: ok", f.name)
                            };
                        }
                        if bad == 0 {
                            return format!("{}: {agree} known rows agree now", f.name);
                        }
                        let mut text = format!("{}: {bad} chunks differ", f.name);
                        // The recorded rows that still differ.
                        let n_in = f.inputs.len();
                        for (row, kept) in &r.rows_kept {
                            let at = *row as usize * cols;
                            let mine = &words[at..at + cols];
                            if kept.get(..cols) != Some(mine) {
                                let hex: Vec<String> =
                                    mine[n_in..].iter().map(|w| format!("{w:x}")).collect();
                                let gpu: Vec<String> =
                                    kept.iter().map(|w| format!("{w:x}")).collect();
                                text += &format!(
                                    "\n  row {row}: {} now {}",
                                    gpu[..cols.min(gpu.len())].join(" "),
                                    hex.join(" ")
                                );
                            }
                        }
                        text
                    }
                    Err(e) => format!("{}: error {e}", f.name),
                }
            });
            for line in results.iter().filter(|l| !l.is_empty()) {
                println!("{line}");
            }
        }
        Some("interp") => {
            // Runs the first ROWS rows of every form; prints the forms the
            // interpreter refuses.
            let rows: u32 = args
                .get(1)
                .and_then(|r| r.parse().ok())
                .unwrap_or(sweep::CHUNK);
            let start = std::time::Instant::now();
            let errors = parallel(forms.len(), |i| {
                let f = &forms[i];
                if !selected(&f.name) {
                    return None;
                }
                interpret(f, rows)
                    .err()
                    .map(|e| format!("{i} {}: {e}", f.name))
            });
            for e in errors.iter().flatten() {
                println!("{e}");
            }
            eprintln!("{:.1}s", start.elapsed().as_secs_f64());
        }
        _ => eprintln!("usage: sweep gen DIR | record GPU_DIR OUT | check SUMMARY"),
    }
}
