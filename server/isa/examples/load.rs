//! Loads the knowledge base N times (default 1) and prints the mean wall time of one load.
//! Used to measure the loader: `cargo run --release -p ptx-isa --example load -- 20`, or under
//! `valgrind --tool=callgrind` with no argument for the instruction count of one load.

use std::time::Instant;

fn main() {
    let n: u32 = match std::env::args().nth(1) {
        None => 1,
        Some(a) => match a.parse() {
            Ok(n) if n > 0 => n,
            _ => {
                eprintln!("usage: load [COUNT]  (COUNT a positive number of loads)");
                std::process::exit(2);
            }
        },
    };
    let start = Instant::now();
    let mut forms = 0;
    for _ in 0..n {
        let isa = ptx_isa::Isa::load().unwrap_or_else(|e| {
            eprintln!("ptx-isa data: {e}");
            std::process::exit(1);
        });
        forms += isa
            .instructions()
            .iter()
            .map(|i| i.forms.len())
            .sum::<usize>();
    }
    let total = start.elapsed();
    println!(
        "{n} loads, {} forms each, {:.3} ms per load ({:.3} ms total)",
        forms / n as usize,
        total.as_secs_f64() * 1e3 / f64::from(n),
        total.as_secs_f64() * 1e3
    );
}
