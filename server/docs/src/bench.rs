//! A small timing of the lookups a hover makes, for the CLI's bench command and the
//! `import_stats` example (no benchmark harness needed).

use crate::index::SpecIndex;
use crate::model::Part;
use std::time::{Duration, Instant};

/// Timings of [`measure_lookups`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookupTiming {
    /// Number of hovers timed (each: opcode lookup, qualifier sentences, hover markdown).
    pub hovers: usize,
    /// Mean time of a name lookup alone (`instruction`, `directive`, `special_register`).
    pub mean_lookup: Duration,
    /// Mean time of a whole hover, markdown included.
    pub mean_hover: Duration,
    /// 99th percentile of a hover.
    pub p99_hover: Duration,
    /// Slowest single hover (on a busy machine, often a preempted one).
    pub max_hover: Duration,
    /// The instruction name of the slowest hover.
    pub slowest: String,
}

/// Times lookups and hovers over every name in the index, `rounds` times.
pub fn measure_lookups(index: &SpecIndex, rounds: usize) -> LookupTiming {
    let instr: Vec<&str> = index.instruction_names();
    let dirs: Vec<&str> = index.directive_names();
    let regs: Vec<&str> = index.special_register_names();
    let rounds = rounds.max(1);
    let mut found = 0usize;
    let t = Instant::now();
    for _ in 0..rounds {
        for n in &instr {
            found += usize::from(index.instruction(n).is_some());
        }
        for n in &dirs {
            found += usize::from(index.directive(n).is_some());
        }
        for n in &regs {
            found += usize::from(index.special_register(n).is_some());
        }
    }
    let lookups = rounds * (instr.len() + dirs.len() + regs.len());
    let mean_lookup = t.elapsed() / lookups.max(1) as u32;
    let mut hovers = 0;
    let mut max_hover = Duration::ZERO;
    let mut slowest = String::new();
    let mut all = Vec::new();
    let mut total = Duration::ZERO;
    let mut bytes = 0usize;
    for _ in 0..rounds {
        for n in &instr {
            let t = Instant::now();
            let opcode = format!("{n}.sync.aligned.b32");
            if let Some(e) = index.lookup(&opcode) {
                bytes += e.hover_markdown(Part::Opcode).len();
                if let Some(q) = e.qualifiers.keys().next() {
                    bytes += index.qualifier(n, q).len();
                    bytes += e.hover_markdown(Part::Qualifier(q)).len();
                }
            }
            let d = t.elapsed();
            total += d;
            all.push(d);
            if d > max_hover {
                max_hover = d;
                slowest = n.to_string();
            }
            hovers += 1;
        }
    }
    std::hint::black_box((found, bytes));
    LookupTiming {
        hovers,
        mean_lookup,
        mean_hover: total / hovers.max(1) as u32,
        p99_hover: {
            all.sort_unstable();
            all.get(all.len() * 99 / 100).copied().unwrap_or_default()
        },
        max_hover,
        slowest,
    }
}
