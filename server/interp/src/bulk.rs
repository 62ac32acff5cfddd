//! Bulk asynchronous copies (non-tensor): `cp.async.bulk` between global and
//! shared memory and within shared memory, `cp.reduce.async.bulk`,
//! `cp.async.bulk.prefetch`, `commit_group` and `wait_group`.
//!
//! The interpreter performs a copy when it is issued. A copy into shared
//! memory completes its bytes on the named mbarrier (`complete_tx`), so a
//! wait on the barrier's phase sees the data once the expected transaction
//! count is reached; a copy out of shared memory belongs to a bulk group
//! that `wait_group` finds complete. Sizes and addresses must be multiples
//! of 16. A CTA is its own cluster here, so `.shared::cluster` addresses are
//! the CTA's shared memory.

use crate::engine::{lanes, Fault, Machine};
use crate::ir::{Inst, Quals, Space, Src, Ty};
use crate::memory::{in_rank, resolve};
use crate::Op;

#[derive(Debug, Clone)]
pub enum BulkOp {
    /// A copy or reduction of `size` bytes: destination and source spaces,
    /// whether an mbarrier operand completes it, the reduction if any.
    Copy {
        dst: Space,
        src: Space,
        mbarrier: bool,
        reduce: Option<(Reduce, Ty)>,
        /// `.multicast::cluster`: to the same offset in every CTA of a mask.
        multicast: bool,
    },
    /// `prefetch`, `commit_group`, `wait_group`: nothing left to do.
    Nop,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduce {
    Add,
    Min,
    Max,
    Inc,
    Dec,
    And,
    Or,
    Xor,
}

/// The state spaces named by the qualifiers, in order.
fn spaces(q: &Quals) -> Vec<Space> {
    q.words
        .iter()
        .filter_map(|w| match w.as_str() {
            "global" => Some(Space::Global),
            "shared" | "shared::cta" | "shared::cluster" => Some(Space::Shared),
            _ => None,
        })
        .collect()
}

pub fn decode(m: &str, q: &Quals, src: &[Src]) -> Option<Result<Op, String>> {
    let reduce = m == "cp" && q.has("reduce");
    if m != "cp" || !q.has("async") || !q.has("bulk") {
        return None;
    }
    if q.has("tensor")
        || q.words
            .iter()
            .any(|w| w.starts_with("im2col") || w == "tile")
    {
        return Some(Err(
            "cp.async.bulk.tensor (TMA with tensor maps) is not supported by the interpreter"
                .into(),
        ));
    }
    if q.has("prefetch") || q.has("commit_group") || q.has("wait_group") {
        return Some(Ok(Op::Bulk(BulkOp::Nop)));
    }
    let multicast = q.words.iter().any(|w| w.starts_with("multicast"));
    if q.has("cp_mask") {
        return Some(Err("cp.async.bulk .cp_mask is not supported".into()));
    }
    let spaces = spaces(q);
    let [dst, from] = match spaces.as_slice() {
        [d, s] => [*d, *s],
        _ => {
            return Some(Err(
                "cp.async.bulk needs a destination and a source space".into()
            ))
        }
    };
    let mbarrier = q.words.iter().any(|w| w.starts_with("mbarrier"));
    if dst == Space::Shared && !mbarrier {
        return Some(Err(
            "cp.async.bulk into shared memory completes on an mbarrier".into(),
        ));
    }
    let reduce = if reduce {
        let op = [
            ("add", Reduce::Add),
            ("min", Reduce::Min),
            ("max", Reduce::Max),
            ("inc", Reduce::Inc),
            ("dec", Reduce::Dec),
            ("and", Reduce::And),
            ("or", Reduce::Or),
            ("xor", Reduce::Xor),
        ]
        .into_iter()
        .find(|(w, _)| q.has(w))
        .map(|(_, r)| r);
        let Some(op) = op else {
            return Some(Err(
                "cp.reduce.async.bulk needs a reduction operation".into()
            ));
        };
        let Some(ty) = q.types.last().copied() else {
            return Some(Err("cp.reduce.async.bulk needs a type".into()));
        };
        let fits = match ty {
            Ty::B32 | Ty::U32 | Ty::S32 | Ty::B64 | Ty::U64 | Ty::S64 => true,
            Ty::F32 | Ty::F64 => op == Reduce::Add,
            _ => false,
        };
        if !fits {
            return Some(Err(format!(
                "cp.reduce.async.bulk: .{} is not supported for this operation",
                ty.name()
            )));
        }
        Some((op, ty))
    } else {
        None
    };
    let needs = 3 + usize::from(mbarrier) + usize::from(multicast);
    if src.len() < needs {
        return Some(Err(format!("cp.async.bulk expects {needs} operands")));
    }
    Some(Ok(Op::Bulk(BulkOp::Copy {
        dst,
        src: from,
        mbarrier,
        reduce,
        multicast,
    })))
}

fn combine(op: Reduce, ty: Ty, old: u64, new: u64) -> u64 {
    let wide = matches!(ty, Ty::B64 | Ty::U64 | Ty::S64 | Ty::F64);
    let signed = matches!(ty, Ty::S32 | Ty::S64);
    let m = if wide { u64::MAX } else { 0xffff_ffff };
    let sx = |v: u64| -> i64 {
        if wide {
            v as i64
        } else {
            i64::from(v as u32 as i32)
        }
    };
    match (op, ty) {
        (Reduce::Add, Ty::F32) => {
            u64::from((f32::from_bits(old as u32) + f32::from_bits(new as u32)).to_bits())
        }
        (Reduce::Add, Ty::F64) => (f64::from_bits(old) + f64::from_bits(new)).to_bits(),
        (Reduce::Add, _) => old.wrapping_add(new) & m,
        (Reduce::Min, _) if signed => sx(old).min(sx(new)) as u64 & m,
        (Reduce::Max, _) if signed => sx(old).max(sx(new)) as u64 & m,
        (Reduce::Min, _) => old.min(new),
        (Reduce::Max, _) => old.max(new),
        // inc/dec as atom.inc/atom.dec: wrap at the operand.
        (Reduce::Inc, _) => {
            if old >= new {
                0
            } else {
                old + 1
            }
        }
        (Reduce::Dec, _) => {
            if old == 0 || old > new {
                new
            } else {
                old - 1
            }
        }
        (Reduce::And, _) => old & new,
        (Reduce::Or, _) => old | new,
        (Reduce::Xor, _) => old ^ new,
    }
}

pub fn exec(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    op: &BulkOp,
    active: u32,
) -> Result<(), Fault> {
    let BulkOp::Copy {
        dst,
        src,
        mbarrier,
        reduce,
        multicast,
    } = op
    else {
        return Ok(());
    };
    for lane in lanes(active) {
        let to = m.read_lane(w, &inst.src[0], lane);
        let from = m.read_lane(w, &inst.src[1], lane);
        let size = m.read_lane(w, &inst.src[2], lane) & 0xffff_ffff;
        let (to_space, to) = resolve(*dst, to);
        let (from_space, from) = resolve(*src, from);
        if to_space != *dst || from_space != *src {
            return Err(Fault::at(
                lane,
                "cp.async.bulk: an address is not in the state space the instruction names",
            ));
        }
        if !size.is_multiple_of(16) || !to.is_multiple_of(16) || !from.is_multiple_of(16) {
            return Err(Fault::at(
                lane,
                format!(
                    "cp.async.bulk: size {size} and addresses {to:#x}, {from:#x} must be multiples of 16"
                ),
            ));
        }
        let thread = m.thread(w, lane);
        if *multicast {
            let ctas = m.launch.cluster_size();
            let mask = m.read_lane(w, &inst.src[4], lane) & 0xffff;
            if mask >> ctas != 0 {
                return Err(Fault::at(
                    lane,
                    format!(
                        "cp.async.bulk: ctaMask {mask:#x} names CTAs outside the cluster of {ctas}"
                    ),
                ));
            }
            let bar = m.read_lane(w, &inst.src[3], lane);
            let bar = match resolve(Space::Generic, bar) {
                (Space::Shared, offset) => offset,
                _ => bar,
            };
            let mut bytes = vec![0u8; size as usize];
            for (i, byte) in bytes.iter_mut().enumerate() {
                *byte = m
                    .mem
                    .load(thread, *src, from + i as u64, 1)
                    .map_err(|e| Fault::at(lane, format!("cp.async.bulk source: {e}")))?
                    as u8;
            }
            for rank in (0..ctas).filter(|r| mask >> r & 1 == 1) {
                m.mem
                    .slice(thread, Space::Shared, in_rank(to, rank), bytes.len(), 1)
                    .map_err(|e| Fault::at(lane, format!("cp.async.bulk destination: {e}")))?
                    .copy_from_slice(&bytes);
                crate::asynccopy::complete_tx(m, in_rank(bar, rank), size, lane)?;
            }
            continue;
        }
        let unit = match reduce {
            Some((_, ty)) => ty.bits().min(64) as u64 / 8,
            None => 8,
        };
        let mut offset = 0;
        while offset < size {
            let value = m
                .mem
                .load(thread, *src, from + offset, unit as usize)
                .map_err(|e| Fault::at(lane, format!("cp.async.bulk source: {e}")))?;
            let value = match reduce {
                Some((r, ty)) => {
                    let old = m
                        .mem
                        .load(thread, *dst, to + offset, unit as usize)
                        .map_err(|e| Fault::at(lane, format!("cp.reduce.async.bulk: {e}")))?;
                    combine(*r, *ty, old, value)
                }
                None => value,
            };
            m.mem
                .store(thread, *dst, to + offset, unit as usize, value)
                .map_err(|e| Fault::at(lane, format!("cp.async.bulk destination: {e}")))?;
            offset += unit;
        }
        if *mbarrier {
            let bar = m.read_lane(w, &inst.src[3], lane);
            crate::asynccopy::complete_tx(m, bar, size, lane)?;
        }
    }
    Ok(())
}
