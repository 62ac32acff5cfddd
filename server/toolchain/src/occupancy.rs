//! Resident blocks and warps per SM, as NVIDIA's occupancy calculator counts them.
//!
//! For a block of `T` threads using `R` registers per thread and `S` bytes of shared memory
//! (static + dynamic), on an architecture with the limits of `data/sm_limits.tsv`:
//!
//! - warps per block: `ceil(T / 32)`;
//! - by warps: `floor(max warps / warps per block)`; by blocks: the architecture's block limit;
//! - by registers: each warp takes `ceil(R * 32 / 256) * 256` registers; the SM's four
//!   sub-partitions each hold `floor((registers / 4) / per warp)` warps, so
//!   `floor(4 * that / warps per block)` blocks (none when `R` exceeds the per-thread limit);
//! - by shared memory: each block takes `ceil((S + reserved) / unit) * unit` bytes of the largest
//!   carveout (what the runtime uses with no carveout preference); none when `S` exceeds the
//!   per-block limit.
//!
//! The smallest of the four is the number of resident blocks; the one that gives it is the limiter.

use serde::Serialize;

/// One row of `data/sm_limits.tsv`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SmLimits {
    pub arch: String,
    pub max_warps: u32,
    pub max_blocks: u32,
    pub registers: u32,
    pub max_registers_per_thread: u32,
    pub register_unit: u32,
    pub warp_group: u32,
    pub shared_per_sm: u64,
    pub shared_per_block: u64,
    pub shared_unit: u64,
    pub reserved_shared: u64,
    /// Shared memory capacities the carveout can take, in KB.
    pub carveouts: Vec<u32>,
}

const TABLE: &str = include_str!("../data/sm_limits.tsv");

impl SmLimits {
    /// Every row of the table.
    pub fn all() -> Vec<SmLimits> {
        TABLE
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| parse_row(l).unwrap_or_else(|| panic!("bad row in sm_limits.tsv: {l}")))
            .collect()
    }

    /// The limits of a target (`sm_90a` and `sm_90f` read `sm_90`'s row); `None` for targets the
    /// table does not know (no occupancy is shown then, rather than a guess).
    pub fn of(target: &str) -> Option<SmLimits> {
        let base = target.trim_end_matches(['a', 'f']);
        SmLimits::all().into_iter().find(|l| l.arch == base)
    }
}

fn parse_row(line: &str) -> Option<SmLimits> {
    let f: Vec<&str> = line.split('\t').collect();
    if f.len() != 12 {
        return None;
    }
    Some(SmLimits {
        arch: f[0].to_owned(),
        max_warps: f[1].parse().ok()?,
        max_blocks: f[2].parse().ok()?,
        registers: f[3].parse().ok()?,
        max_registers_per_thread: f[4].parse().ok()?,
        register_unit: f[5].parse().ok()?,
        warp_group: f[6].parse().ok()?,
        shared_per_sm: f[7].parse().ok()?,
        shared_per_block: f[8].parse().ok()?,
        shared_unit: f[9].parse().ok()?,
        reserved_shared: f[10].parse().ok()?,
        carveouts: f[11]
            .split(',')
            .map(|c| c.parse().ok())
            .collect::<Option<_>>()?,
    })
}

/// What bounds the number of resident blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Limiter {
    Warps,
    Blocks,
    Registers,
    Shared,
}

impl Limiter {
    pub fn name(self) -> &'static str {
        match self {
            Limiter::Warps => "warps",
            Limiter::Blocks => "blocks",
            Limiter::Registers => "registers",
            Limiter::Shared => "shared memory",
        }
    }
}

/// The result for one block size.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Occupancy {
    pub block_threads: u32,
    pub blocks_per_sm: u32,
    pub warps_per_sm: u32,
    pub max_warps: u32,
    /// `warps_per_sm / max_warps`.
    pub fraction: f64,
    pub by_warps: u32,
    pub by_blocks: u32,
    pub by_registers: u32,
    pub by_shared: u32,
    pub limiter: Limiter,
    /// Why nothing fits, when `blocks_per_sm` is 0.
    pub impossible: Option<String>,
    /// What would let one more block in, when registers or shared memory limit it
    /// (`128 registers would allow 2`).
    pub advice: Option<String>,
}

impl Occupancy {
    /// `registers: 168/thread → 1 block of 256 per SM (8/64 warps, 13%); 128 would allow 2`.
    pub fn summary(&self, registers: u32, shared: u64) -> String {
        if let Some(why) = &self.impossible {
            return format!("no block of {} fits: {why}", self.block_threads);
        }
        let what = match self.limiter {
            Limiter::Registers => format!("registers: {registers}/thread"),
            Limiter::Shared => format!("shared memory: {} per block", bytes(shared)),
            Limiter::Warps => format!("warps: {} per block", self.block_threads.div_ceil(32)),
            Limiter::Blocks => "blocks per SM".to_owned(),
        };
        let plural = if self.blocks_per_sm == 1 { "" } else { "s" };
        let mut text = format!(
            "{what} → {} block{plural} of {} per SM ({}/{} warps, {:.0}%)",
            self.blocks_per_sm,
            self.block_threads,
            self.warps_per_sm,
            self.max_warps,
            self.fraction * 100.0
        );
        if let Some(advice) = &self.advice {
            text.push_str("; ");
            text.push_str(advice);
        }
        text
    }
}

/// `1 KB`, `4.5 KB`, `100 B`.
pub fn bytes(n: u64) -> String {
    if n >= 1024 {
        let kb = n as f64 / 1024.0;
        if n.is_multiple_of(1024) {
            format!("{} KB", n / 1024)
        } else {
            format!("{kb:.1} KB")
        }
    } else {
        format!("{n} B")
    }
}

/// Resident blocks per SM of blocks of `block_threads` threads using `registers` registers per
/// thread and `shared` bytes of shared memory (static + dynamic) per block.
pub fn occupancy(limits: &SmLimits, block_threads: u32, registers: u32, shared: u64) -> Occupancy {
    let warps_per_block = block_threads.div_ceil(32).max(1);
    let by_warps = limits.max_warps / warps_per_block;
    let by_blocks = limits.max_blocks;
    let by_registers = blocks_by_registers(limits, warps_per_block, registers);
    let by_shared = blocks_by_shared(limits, shared);
    let candidates = [
        (by_warps, Limiter::Warps),
        (by_blocks, Limiter::Blocks),
        (by_registers, Limiter::Registers),
        (by_shared, Limiter::Shared),
    ];
    // The smallest; on a tie the order above (warps, blocks, registers, shared) names it.
    let (blocks, limiter) = candidates
        .iter()
        .copied()
        .min_by_key(|(n, _)| *n)
        .expect("four candidates");
    let impossible = if block_threads == 0 || block_threads > 1024 {
        Some(format!(
            "a block has 1 to 1024 threads, not {block_threads}"
        ))
    } else if registers > limits.max_registers_per_thread {
        Some(format!(
            "{registers} registers per thread is over the limit of {}",
            limits.max_registers_per_thread
        ))
    } else if shared > limits.shared_per_block {
        Some(format!(
            "{} of shared memory per block is over the limit of {}",
            bytes(shared),
            bytes(limits.shared_per_block)
        ))
    } else if by_registers == 0 {
        Some(format!(
            "{registers} registers × {block_threads} threads do not fit the {} registers of an SM",
            limits.registers
        ))
    } else {
        None
    };
    let blocks = if impossible.is_some() { 0 } else { blocks };
    let warps = blocks * warps_per_block;
    let advice = if impossible.is_some() {
        None
    } else {
        match limiter {
            Limiter::Registers => (0..registers)
                .rev()
                .find(|r| blocks_by_registers(limits, warps_per_block, *r) > blocks)
                .filter(|_| by_warps.min(by_blocks).min(by_shared) > blocks)
                .map(|r| {
                    let more = blocks_by_registers(limits, warps_per_block, r)
                        .min(by_warps)
                        .min(by_blocks)
                        .min(by_shared);
                    format!("{r} would allow {more}")
                }),
            Limiter::Shared => {
                let want = blocks + 1;
                let fits = (limits.shared_per_sm / u64::from(want))
                    .saturating_sub(limits.reserved_shared)
                    / limits.shared_unit
                    * limits.shared_unit;
                (by_warps.min(by_blocks).min(by_registers) > blocks && fits > 0)
                    .then(|| format!("{} per block would allow {want}", bytes(fits)))
            }
            Limiter::Warps | Limiter::Blocks => None,
        }
    };
    Occupancy {
        block_threads,
        blocks_per_sm: blocks,
        warps_per_sm: warps,
        max_warps: limits.max_warps,
        fraction: f64::from(warps) / f64::from(limits.max_warps),
        by_warps,
        by_blocks,
        by_registers,
        by_shared,
        limiter,
        impossible,
        advice,
    }
}

fn blocks_by_registers(limits: &SmLimits, warps_per_block: u32, registers: u32) -> u32 {
    if registers > limits.max_registers_per_thread {
        return 0;
    }
    if registers == 0 {
        return limits.max_blocks;
    }
    let per_warp = (registers * 32).div_ceil(limits.register_unit) * limits.register_unit;
    let per_group = limits.registers / limits.warp_group;
    let warps = (per_group / per_warp) * limits.warp_group;
    warps / warps_per_block
}

fn blocks_by_shared(limits: &SmLimits, shared: u64) -> u32 {
    if shared > limits.shared_per_block {
        return 0;
    }
    let per_block =
        (shared + limits.reserved_shared).div_ceil(limits.shared_unit) * limits.shared_unit;
    if per_block == 0 {
        return limits.max_blocks;
    }
    let capacity = u64::from(*limits.carveouts.iter().max().unwrap_or(&0)) * 1024;
    u32::try_from(capacity.min(limits.shared_per_sm) / per_block).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_rows_parse_and_variants_share_them() {
        let all = SmLimits::all();
        assert!(all.len() >= 7);
        assert_eq!(SmLimits::of("sm_90a").unwrap().arch, "sm_90");
        assert_eq!(SmLimits::of("sm_100f").unwrap().arch, "sm_100");
        assert_eq!(SmLimits::of("sm_120"), None);
    }

    #[test]
    fn the_issue_example() {
        let h100 = SmLimits::of("sm_90").unwrap();
        let o = occupancy(&h100, 256, 168, 0);
        assert_eq!(o.blocks_per_sm, 1);
        assert_eq!(o.limiter, Limiter::Registers);
        assert_eq!(
            o.summary(168, 0),
            "registers: 168/thread → 1 block of 256 per SM (8/64 warps, 12%); 128 would allow 2"
        );
    }

    #[test]
    fn limits_each_bite() {
        let a100 = SmLimits::of("sm_80").unwrap();
        // 32 threads, few registers: 32 blocks (the block limit), 32 of 64 warps.
        let o = occupancy(&a100, 32, 16, 0);
        assert_eq!((o.blocks_per_sm, o.limiter), (32, Limiter::Blocks));
        // 1024 threads: 2 blocks by warps.
        let o = occupancy(&a100, 1024, 32, 0);
        assert_eq!((o.blocks_per_sm, o.limiter), (2, Limiter::Warps));
        // 48 KB static shared per block: (48 KB + 1 KB) → 3 of 164 KB.
        let o = occupancy(&a100, 128, 32, 48 * 1024);
        assert_eq!((o.blocks_per_sm, o.limiter), (3, Limiter::Shared));
        assert_eq!(o.advice.as_deref(), Some("40 KB per block would allow 4"));
        // Over the limits.
        assert!(occupancy(&a100, 128, 256, 0).impossible.is_some());
        assert!(occupancy(&a100, 2048, 16, 0).impossible.is_some());
        assert!(occupancy(&a100, 128, 16, 200 * 1024).impossible.is_some());
        assert_eq!(occupancy(&a100, 1024, 255, 0).blocks_per_sm, 0);
    }
}
