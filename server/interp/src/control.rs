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
    /// `bar.arrive`: counts the arrival without waiting.
    pub arrive: bool,
}

/// One named barrier (0..15) of the CTA in its current phase.
#[derive(Debug, Clone, Default)]
pub struct BarrierState {
    /// Per warp: the lanes that arrived (`sync`, `red` or `arrive`).
    pub arrived: Vec<u32>,
    /// Per warp: the lanes that wait for the barrier to complete.
    pub waiting: Vec<u32>,
    /// Per warp: the instruction of its latest arrival.
    pub pcs: Vec<u32>,
    /// The thread count of this phase (`None`: every thread of the CTA).
    pub count: Option<u64>,
}

impl BarrierState {
    pub fn is_idle(&self) -> bool {
        self.arrived.iter().all(|&a| a == 0)
    }
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
        "bar" | "barrier" if q.has("warp") => Op::Nop,
        // `barrier.cluster`: src/cluster.rs.
        "barrier" if q.has("cluster") => return None,
        "bar" | "barrier" if q.has("arrive") => {
            if src.len() < 2 {
                return Some(Err("bar.arrive needs a barrier and a thread count".into()));
            }
            Op::Barrier(BarrierOp {
                reduction: None,
                arrive: true,
            })
        }
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
            Op::Barrier(BarrierOp {
                reduction,
                arrive: false,
            })
        }
        "membar" | "fence" | "prefetch" | "prefetchu" | "nanosleep" | "pmevent" | "discard"
        | "applypriority" | "griddepcontrol" | "setmaxnreg" | "createpolicy" => Op::Nop,
        _ => return None,
    }))
}

/// Records the arrival of `active` at a named barrier (and `bar.red`'s
/// votes); the engine blocks waiting lanes and releases them when the
/// barrier completes (see `Machine::release_barriers`).
pub fn barrier(
    m: &mut Machine<'_>,
    w: usize,
    pc: u32,
    inst: &Inst,
    op: &BarrierOp,
    active: u32,
) -> Result<(), Fault> {
    if active == 0 {
        return Ok(());
    }
    let lane = active.trailing_zeros();
    let id = inst.src.first().map_or(0, |s| m.read_lane(w, s, lane));
    if id > 15 {
        return Err(Fault::at(
            lane,
            format!("barrier {id} does not exist (barriers are 0 to 15)"),
        ));
    }
    // `bar.red` has the predicate last: its thread count is the middle one.
    let count_at = if op.reduction.is_some() {
        (inst.src.len() == 3).then_some(1)
    } else {
        (inst.src.len() >= 2).then_some(1)
    };
    let count = count_at.map(|i| m.read_lane(w, &inst.src[i], lane) & 0xffff_ffff);
    if let Some(c) = count {
        if c == 0 || !c.is_multiple_of(32) {
            return Err(Fault::at(
                lane,
                format!("barrier thread count {c} is not a positive multiple of 32"),
            ));
        }
    }
    let warps = m.warps.len();
    let line_of_other;
    {
        let state = &mut m.barriers[id as usize];
        if state.arrived.len() != warps {
            state.arrived = vec![0; warps];
            state.waiting = vec![0; warps];
            state.pcs = vec![0; warps];
        }
        if !state.is_idle() && state.count != count {
            let other = state
                .arrived
                .iter()
                .position(|&a| a != 0)
                .map_or(pc, |o| state.pcs[o]);
            line_of_other = Some((other, state.count));
        } else {
            line_of_other = None;
            state.count = count;
            state.arrived[w] |= active;
            if !op.arrive {
                state.waiting[w] |= active;
            }
            state.pcs[w] = pc;
        }
    }
    if let Some((other, other_count)) = line_of_other {
        let describe = |c: Option<u64>| {
            c.map_or("all threads of the CTA".to_owned(), |c| {
                format!("{c} threads")
            })
        };
        return Err(Fault::at(
            lane,
            format!(
                "barrier {id} is used here for {} but for {} at line {} (the GPU's behaviour is undefined)",
                describe(count),
                describe(other_count),
                m.prog.line_of(other)
            ),
        ));
    }
    let Some(reduction) = op.reduction else {
        return Ok(());
    };
    let reg = match inst.dst.first() {
        Some(Dst::Reg(r)) => Some(*r),
        _ => None,
    };
    let Some(pred) = inst.src.last() else {
        return Ok(());
    };
    for lane in lanes(active) {
        let value = m.read_lane(w, pred, lane) & 1 == 1;
        m.barrier_votes.entry(id as u32).or_default().push(Vote {
            warp: w,
            lane,
            reg,
            value,
            reduction,
        });
    }
    Ok(())
}
