//! Constants outside the range an instruction allows (each rule checked against ptxas):
//! * `tcgen05.alloc` / `tcgen05.dealloc` column count: a power of two in [32, 512]
//!   (PTX ISA 9.7.16.7.1);
//! * `bar`/`barrier` barrier number: 0 to 15 (9.7.13.1);
//! * `setmaxnreg` register count: a multiple of 8 in [24, 256] (9.7.19.5);
//! * `pmevent` event number: 0 to 15 (9.7.19.3);
//! * `mbarrier.init` count: 1 to 2^20 - 1; `mbarrier.arrive`/`arrive_drop` count: above 0;
//!   `mbarrier.test_wait`/`try_wait.parity` phase parity: 0 or 1 (9.7.13.15; ptxas 13.5 takes
//!   any `expect_tx` transaction count).

use crate::context::{Ctx, InstInfo};
use crate::Diagnostic;

/// Says what is wrong with a constant, if anything.
type Rule = fn(i128) -> Option<String>;

pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let second = info.words.get(1).copied().unwrap_or("");
    let section = info.section();
    let rule: Option<(usize, Rule)> = match (info.words[0], second) {
        ("tcgen05", "alloc" | "dealloc") => Some((1, columns)),
        // `bar.warp.sync` takes a member mask, not a barrier number.
        ("bar" | "barrier", "warp") => None,
        // `bar.cta.red…` likewise: the barrier number follows the result.
        ("bar" | "barrier", _) if info.has("red") => Some((1, barrier)),
        ("bar" | "barrier", _) => Some((0, barrier)),
        ("setmaxnreg", _) => Some((0, max_registers)),
        // `pmevent.mask` takes a mask of events instead.
        ("pmevent", "mask") => None,
        ("pmevent", _) => Some((0, event)),
        ("mbarrier", "init") => Some((1, barrier_count)),
        ("mbarrier", "arrive" | "arrive_drop") if !info.has("expect_tx") => {
            Some((2, arrival_count))
        }
        ("mbarrier", "test_wait" | "try_wait") if info.has("parity") => Some((2, parity)),
        _ => None,
    };
    let Some((index, rule)) = rule else { return };
    let Some(operand) = info.operands.get(index) else {
        return;
    };
    let Some(value) = operand.integer_value() else {
        return;
    };
    if let Some(problem) = rule(value) {
        ctx.report(
            Diagnostic::error(
                "immediate-range",
                operand.range(),
                format!("`{}`: {problem}", info.opcode_text()),
            )
            .section(section),
        );
    }
}

fn columns(n: i128) -> Option<String> {
    let ok = (32..=512).contains(&n) && n.count_ones() == 1;
    (!ok).then(|| {
        format!("the column count must be a power of two from 32 to 512 (32, 64, 128, 256 or 512), not {n}")
    })
}

fn barrier(n: i128) -> Option<String> {
    // ptxas 13.5 reads the number as 32 bits: `bar.sync 4294967296` is barrier 0.
    (!(0..=15).contains(&n.rem_euclid(1 << 32)))
        .then(|| format!("the barrier number must be 0 to 15, not {n}"))
}

fn event(n: i128) -> Option<String> {
    (!(0..=15).contains(&n)).then(|| format!("the event number must be 0 to 15, not {n}"))
}

fn barrier_count(n: i128) -> Option<String> {
    (!(1..=(1 << 20) - 1).contains(&n))
        .then(|| format!("the expected arrival count must be 1 to 1048575, not {n}"))
}

fn arrival_count(n: i128) -> Option<String> {
    (n < 1).then(|| format!("the arrival count must be positive, not {n}"))
}

fn parity(n: i128) -> Option<String> {
    (!(0..=1).contains(&n)).then(|| format!("the phase parity is 0 or 1, not {n}"))
}

fn max_registers(n: i128) -> Option<String> {
    let ok = (24..=256).contains(&n) && n % 8 == 0;
    (!ok).then(|| format!("the register count must be a multiple of 8 from 24 to 256, not {n}"))
}

#[cfg(test)]
mod tests {
    use crate::test_support::check_diagnostics;

    #[test]
    fn tcgen05_alloc_columns() {
        check_diagnostics(
            r#"
.version 8.6
.target sm_100a
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%rd1], 48;
//                                                                ^^ error: `tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32`: the column count must be a power of two from 32 to 512 (32, 64, 128, 256 or 512), not 48
  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 64;
  bar.sync 16;
//         ^^ error: `bar.sync`: the barrier number must be 0 to 15, not 16
  mbarrier.init.shared::cta.b64 [%rd1], 0;
//                                      ^ error: `mbarrier.init.shared::cta.b64`: the expected arrival count must be 1 to 1048575, not 0
  mbarrier.arrive.shared::cta.b64 %rd2, [%rd1], -1;
//                                              ^^ error: `mbarrier.arrive.shared::cta.b64`: the arrival count must be positive, not -1
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%rd1], 0;
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [%rd1], 2;
//                                                      ^ error: `mbarrier.try_wait.parity.shared::cta.b64`: the phase parity is 0 or 1, not 2
  ret;
}
"#,
        );
    }
}
