//! CTA barriers (`bar.sync`, `barrier.sync`, `bar.red`) and the
//! instructions that have no effect in a sequential interpreter (fences,
//! prefetches, hints). Branches, calls and exits live in the engine.

use crate::engine::{lanes, Fault, Machine};
use crate::ir::{Dst, Inst, Quals, Src};
use crate::Op;

/// `bar.red`'s reduction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduction {
    Popc,
    And,
    Or,
}

#[derive(Debug, Clone, Copy)]
pub struct BarrierOp {
    pub reduction: Option<Reduction>,
}

/// One thread's arrival at a reducing barrier.
#[derive(Debug, Clone, Copy)]
pub struct Vote {
    pub warp: usize,
    pub lane: u32,
    pub reg: Option<u32>,
    pub value: bool,
    pub reduction: Reduction,
}

pub fn decode(m: &str, q: &Quals, src: &[Src]) -> Option<Result<Op, String>> {
    Some(Ok(match m {
        "bra" => {
            if !matches!(src.first(), Some(Src::Target(_))) {
                return Some(Err("bra needs a label".into()));
            }
            Op::Bra
        }
        "exit" => Op::Exit,
        "ret" => Op::Ret,
        "trap" | "brkpt" => Op::Unsupported(format!("`{m}` stops the kernel")),
        "bar" | "barrier" if q.has("warp") || q.has("arrive") || q.has("cluster") => Op::Nop,
        "bar" | "barrier" => {
            let reduction = if q.has("red") {
                if src.len() < 2 {
                    return Some(Err("bar.red needs a barrier and a predicate".into()));
                }
                Some(if q.has("popc") {
                    Reduction::Popc
                } else if q.has("and") {
                    Reduction::And
                } else {
                    Reduction::Or
                })
            } else {
                None
            };
            Op::Barrier(BarrierOp { reduction })
        }
        "membar" | "fence" | "prefetch" | "prefetchu" | "nanosleep" | "pmevent" | "discard"
        | "applypriority" | "griddepcontrol" | "setmaxnreg" | "createpolicy" => Op::Nop,
        _ => return None,
    }))
}

/// Records `bar.red` votes; the engine blocks the lanes and releases them
/// once every thread of the CTA has arrived or exited.
pub fn barrier(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    op: &BarrierOp,
    active: u32,
) -> Result<(), Fault> {
    let Some(reduction) = op.reduction else {
        return Ok(());
    };
    let id = inst.src.first().map_or(0, |s| m.read_lane(w, s, 0)) as u32;
    let reg = match inst.dst.first() {
        Some(Dst::Reg(r)) => Some(*r),
        _ => None,
    };
    let Some(pred) = inst.src.last() else {
        return Ok(());
    };
    for lane in lanes(active) {
        let value = m.read_lane(w, pred, lane) & 1 == 1;
        m.barrier_votes.entry(id).or_default().push(Vote {
            warp: w,
            lane,
            reg,
            value,
            reduction,
        });
    }
    Ok(())
}
