//! `cvt.pack.sat`: two signed 32-bit integers saturated to a narrow integer
//! type (`.u16`/`.s16`, or `.u8`/`.s8`/`.u4`/`.s4`/`.u2`/`.s2` with a third
//! source) and packed into the low bits of the destination, `b` lowest, `a`
//! above it; with a third source `c`, the bits above the pair are the low
//! bits of `c`.

use crate::engine::{lanes, Fault, Machine};
use crate::ir::{Inst, Quals, Src};
use crate::{need, Op};

#[derive(Debug, Clone, Copy)]
pub struct PackOp {
    /// Bits of one converted value.
    bits: u32,
    signed: bool,
}

pub fn decode(m: &str, q: &Quals, src: &[Src]) -> Option<Result<Op, String>> {
    if m != "cvt" || !q.has("pack") {
        return None;
    }
    let target = q.words.iter().find_map(|w| {
        Some(match w.as_str() {
            "u16" => (16, false),
            "s16" => (16, true),
            "u8" => (8, false),
            "s8" => (8, true),
            "u4" => (4, false),
            "s4" => (4, true),
            "u2" => (2, false),
            "s2" => (2, true),
            _ => return None,
        })
    });
    let Some((bits, signed)) = target else {
        return Some(Err(
            "cvt.pack converts to .u16/.s16/.u8/.s8/.u4/.s4/.u2/.s2".into(),
        ));
    };
    if let Err(e) = need(src, if bits == 16 { 2 } else { 3 }) {
        return Some(Err(e));
    }
    Some(Ok(Op::Pack(PackOp { bits, signed })))
}

/// `x` saturated to the target type, as its low `bits` bits.
fn saturate(x: i32, op: &PackOp) -> u32 {
    let (min, max) = if op.signed {
        (-(1i64 << (op.bits - 1)), (1i64 << (op.bits - 1)) - 1)
    } else {
        (0, (1i64 << op.bits) - 1)
    };
    (i64::from(x).clamp(min, max) as u32) & ((1u32 << op.bits) - 1)
}

pub fn exec(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    op: &PackOp,
    active: u32,
) -> Result<(), Fault> {
    let a = m.src(w, inst, 0);
    let b = m.src(w, inst, 1);
    let c = m.src(w, inst, 2);
    let mut out = [0u64; 32];
    for lane in lanes(active) {
        let l = lane as usize;
        let pair = saturate(a[l] as u32 as i32, op) << op.bits | saturate(b[l] as u32 as i32, op);
        let high = if op.bits == 16 {
            0
        } else {
            (c[l] as u32) << (2 * op.bits)
        };
        out[l] = u64::from(pair | high);
    }
    if let Some(dst) = inst.dst.first() {
        m.write(w, dst, &out, active);
    }
    Ok(())
}
