//! Occupancy against the driver and against the published limits.
//!
//! - `fixtures/occupancy_h100.tsv`: `cudaOccupancyMaxActiveBlocksPerMultiprocessor` on an H100
//!   (recorded by `fixtures/occupancy_h100.py`) for 75 kernels of 15 register counts and 5
//!   static shared memory sizes, at 13 block sizes and 9 dynamic shared memory sizes; every row
//!   must match.
//! - sm_80 and sm_100: cases worked out by hand from NVIDIA's published per-SM limits and the
//!   occupancy calculator's allocation rules (see data/sm_limits.tsv).

use ptx_toolchain::{occupancy, Limiter, SmLimits};

#[test]
fn matches_the_driver_on_an_h100() {
    let text = include_str!("../fixtures/occupancy_h100.tsv");
    let h100 = SmLimits::of("sm_90a").expect("sm_90 limits");
    // The device's own attributes, as recorded, are the table's row.
    let limits_line = text
        .lines()
        .find(|l| l.starts_with("# shared per SM"))
        .expect("the device's limits");
    assert_eq!(
        limits_line,
        format!(
            "# shared per SM {}, per block opt-in {}, reserved per block {}, registers per SM {}, blocks per SM {}, threads per SM {}",
            h100.shared_per_sm,
            h100.shared_per_block,
            h100.reserved_shared,
            h100.registers,
            h100.max_blocks,
            h100.max_warps * 32
        )
    );
    let mut rows = 0;
    let mut mismatches = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<u64> = line.split('\t').map(|v| v.parse().unwrap()).collect();
        let (registers, shared, block, want) = (f[0] as u32, f[1] + f[2], f[3] as u32, f[4] as u32);
        let got = occupancy(&h100, block, registers, shared).blocks_per_sm;
        if got != want {
            mismatches.push(format!("{line}: we say {got}"));
        }
        rows += 1;
    }
    assert!(rows > 7000, "{rows} rows");
    assert!(
        mismatches.is_empty(),
        "{} of {rows} differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

#[test]
fn published_limits_sm_80_and_sm_100() {
    // (target, threads, registers, shared bytes, blocks, limiter)
    let cases: &[(&str, u32, u32, u64, u32, Limiter)] = &[
        // 64 registers: 2048 per warp, 8 warps per sub-partition, 32 warps → 4 blocks of 8 warps.
        ("sm_80", 256, 64, 0, 4, Limiter::Registers),
        // 32 registers: 64 warps fit; 64 warps / 8 = 8 blocks, also the warp limit.
        ("sm_80", 256, 32, 0, 8, Limiter::Warps),
        // 33 registers: 1280 per warp (rounded to 256), 12 per sub-partition → 48 warps → 6.
        ("sm_80", 256, 33, 0, 6, Limiter::Registers),
        // 1 warp per block: the 32-block limit.
        ("sm_80", 32, 16, 0, 32, Limiter::Blocks),
        // 100 KB + 1 KB reserved per block: one fits in 164 KB.
        ("sm_80", 128, 32, 100 * 1024, 1, Limiter::Shared),
        // 40 KB + 1 KB: four fit in 164 KB (4 × 41 KB = 164 KB).
        ("sm_80", 128, 32, 40 * 1024, 4, Limiter::Shared),
        // over the 163 KB a block may have
        ("sm_80", 128, 32, 164 * 1024, 0, Limiter::Shared),
        // 255 registers: 8192 per warp, 2 per sub-partition → 8 warps → one block of 256.
        ("sm_100", 256, 255, 0, 1, Limiter::Registers),
        // 128 registers, 128 threads: 4 warps per sub-partition → 16 warps → 4 blocks.
        ("sm_100", 128, 128, 0, 4, Limiter::Registers),
        // 227 KB + 1 KB: exactly one in 228 KB.
        ("sm_100", 128, 32, 227 * 1024, 1, Limiter::Shared),
        // 56 KB + 1 KB: four in 228 KB.
        ("sm_100", 64, 32, 56 * 1024, 4, Limiter::Shared),
        // 1024 threads with 64 registers: 32 warps need 64 K registers → 1 block (by both).
        ("sm_100", 1024, 64, 0, 1, Limiter::Registers),
    ];
    for &(target, threads, registers, shared, blocks, limiter) in cases {
        let limits = SmLimits::of(target).unwrap();
        let o = occupancy(&limits, threads, registers, shared);
        assert_eq!(
            o.blocks_per_sm, blocks,
            "{target} {threads} threads, {registers} registers, {shared} B: {o:?}"
        );
        if blocks > 0 {
            assert_eq!(
                o.limiter, limiter,
                "{target} {threads} {registers} {shared}: {o:?}"
            );
        } else {
            assert!(o.impossible.is_some());
        }
    }
}
