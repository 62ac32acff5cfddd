//! Non-bulk asynchronous copies (`cp.async`) and CTA-local `mbarrier`s.
//!
//! The interpreter performs a `cp.async` when it is issued, so every
//! `commit_group`/`wait_group`/`wait_all` finds its copies complete; a
//! program that reads the destination only after waiting (the only reads the
//! spec gives a value) sees what the GPU shows. Each `mbarrier` lives in a
//! table keyed by its shared-memory offset, with its phase, pending arrival
//! count, expected arrival count and transaction count; its bytes in shared
//! memory are not modelled (the object is opaque), and neither are arrival
//! tokens' bits: a token holds the phase and pending count before the warp's
//! arrival. Waits that find their phase incomplete let the other warps run
//! before the waiting warp continues. A warp whose arrivals exceed the
//! pending count faults, as the GPU's trap does; so does any use of an
//! address without `mbarrier.init`.

use crate::engine::{lanes, Fault, Machine};
use crate::ir::{Inst, Quals, Space, Src, Ty};
use crate::memory::{resolve, split_cluster};
use crate::Op;
use std::collections::HashMap;

#[derive(Debug, Clone)]
pub enum AsyncOp {
    /// `cp.async.{ca,cg}.shared.global`: bytes per copy; whether a cache
    /// policy operand ends the operand list.
    Copy {
        size: u64,
        cache_hint: bool,
    },
    /// `commit_group`, `wait_group`, `wait_all`: complete already.
    Fence,
    /// `cp.async.mbarrier.arrive`: one arrival (`.noinc`) or none.
    CopyArrive {
        noinc: bool,
        space: Space,
    },
    Mbarrier(MbarrierOp, Space),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MbarrierOp {
    Init,
    Inval,
    Arrive { drop: bool, expect_tx: bool },
    ExpectTx,
    CompleteTx,
    TestWait { parity: bool },
    PendingCount,
}

/// One barrier's state.
#[derive(Debug, Clone, Copy)]
pub struct Mbarrier {
    phase: u32,
    pending: u32,
    expected: u32,
    tx: i64,
}

impl Mbarrier {
    /// Its state in words: phase, arrivals still pending of those expected,
    /// and the transaction count.
    pub(crate) fn describe(&self) -> String {
        format!(
            "phase {}, {} of {} arrivals pending, tx-count {}",
            self.phase, self.pending, self.expected, self.tx
        )
    }
}

pub fn decode(m: &str, q: &Quals, n_dst: usize, src: &[Src]) -> Option<Result<Op, String>> {
    let op = match m {
        "cp" if q.has("async") => {
            if q.words.iter().any(|w| w.starts_with("bulk")) || q.has("tensor") {
                return None;
            }
            if q.has("commit_group") || q.has("wait_group") || q.has("wait_all") {
                AsyncOp::Fence
            } else if q.has("mbarrier") {
                if src.is_empty() {
                    return Some(Err("cp.async.mbarrier.arrive needs an address".into()));
                }
                AsyncOp::CopyArrive {
                    noinc: q.has("noinc"),
                    space: q.space.unwrap_or(Space::Generic),
                }
            } else {
                if !(q.has("ca") || q.has("cg")) || q.space != Some(Space::Shared) {
                    return Some(Err(
                        "cp.async: only .ca/.cg.shared.global is supported".into()
                    ));
                }
                let size = match src.get(2) {
                    Some(Src::Imm(n @ (4 | 8 | 16))) => *n,
                    _ => return Some(Err("cp.async needs a cp-size of 4, 8 or 16".into())),
                };
                if q.has("cg") && size != 16 {
                    return Some(Err("cp.async.cg copies 16 bytes".into()));
                }
                AsyncOp::Copy {
                    size,
                    cache_hint: q.words.iter().any(|w| w.ends_with("cache_hint")),
                }
            }
        }
        "mbarrier" => {
            let op = if q.has("init") {
                MbarrierOp::Init
            } else if q.has("inval") {
                MbarrierOp::Inval
            } else if q.has("arrive") || q.has("arrive_drop") {
                if q.has("noComplete") {
                    return Some(Err("mbarrier.arrive.noComplete is not supported".into()));
                }
                MbarrierOp::Arrive {
                    drop: q.has("arrive_drop"),
                    expect_tx: q.has("expect_tx"),
                }
            } else if q.has("expect_tx") {
                MbarrierOp::ExpectTx
            } else if q.has("complete_tx") {
                MbarrierOp::CompleteTx
            } else if q.has("test_wait") || q.has("try_wait") {
                MbarrierOp::TestWait {
                    parity: q.has("parity"),
                }
            } else if q.has("pending_count") {
                MbarrierOp::PendingCount
            } else {
                return Some(Err("this mbarrier operation is not supported".into()));
            };
            let needs = match op {
                MbarrierOp::Init | MbarrierOp::ExpectTx | MbarrierOp::CompleteTx => 2,
                MbarrierOp::TestWait { .. } => 2,
                MbarrierOp::Arrive { expect_tx, .. } => 1 + usize::from(expect_tx),
                MbarrierOp::Inval | MbarrierOp::PendingCount => 1,
            };
            if src.len() < needs {
                return Some(Err(format!("mbarrier: expects {needs} source operands")));
            }
            if matches!(op, MbarrierOp::TestWait { .. } | MbarrierOp::PendingCount) && n_dst == 0 {
                return Some(Err("mbarrier: a destination is needed".into()));
            }
            AsyncOp::Mbarrier(op, q.space.unwrap_or(Space::Generic))
        }
        _ => return None,
    };
    Some(Ok(Op::Async(op)))
}

/// The shared-memory offset of an mbarrier or copy destination.
fn shared_offset(space: Space, addr: u64, lane: u32, what: &str) -> Result<u64, Fault> {
    match resolve(space, addr) {
        (Space::Shared, offset) => Ok(offset),
        _ => Err(Fault::at(
            lane,
            format!("{what}: address {addr:#x} is not in shared memory"),
        )),
    }
}

pub fn exec(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    op: &AsyncOp,
    active: u32,
) -> Result<(), Fault> {
    match op {
        AsyncOp::Fence => Ok(()),
        AsyncOp::Copy { size, cache_hint } => copy(m, w, inst, *size, *cache_hint, active),
        AsyncOp::CopyArrive { noinc, space } => {
            if *noinc {
                arrive(m, w, inst, *space, active, false, false)
            } else {
                // The pending count goes up by one and the finished copies
                // arrive once: no net change, but the barrier must exist.
                for lane in lanes(active) {
                    let addr = m.read_lane(w, &inst.src[0], lane);
                    let offset = shared_offset(*space, addr, lane, "cp.async.mbarrier")?;
                    barrier(m, offset, lane)?;
                }
                Ok(())
            }
        }
        AsyncOp::Mbarrier(op, space) => mbarrier(m, w, inst, *op, *space, active),
    }
}

fn copy(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    size: u64,
    cache_hint: bool,
    active: u32,
) -> Result<(), Fault> {
    let extra = inst.src.len().saturating_sub(3 + usize::from(cache_hint));
    let fourth = if extra > 0 { inst.src.get(3) } else { None };
    let ignore_src = match fourth {
        Some(Src::Reg(r)) | Some(Src::NotReg(r)) => m.prog.regs[*r as usize].ty == Ty::Pred,
        _ => false,
    };
    for lane in lanes(active) {
        let dst = m.read_lane(w, &inst.src[0], lane);
        let src = m.read_lane(w, &inst.src[1], lane);
        let keep = match fourth {
            None => size,
            Some(operand) if ignore_src => {
                if m.read_lane(w, operand, lane) & 1 == 1 {
                    0
                } else {
                    size
                }
            }
            Some(operand) => {
                let n = m.read_lane(w, operand, lane);
                if n > size {
                    return Err(Fault::at(
                        lane,
                        format!("cp.async: src-size {n} is larger than cp-size {size}"),
                    ));
                }
                n
            }
        };
        if !dst.is_multiple_of(size) || !src.is_multiple_of(size) {
            return Err(Fault::at(
                lane,
                format!("cp.async: addresses must be aligned to {size} bytes"),
            ));
        }
        let thread = m.thread(w, lane);
        let mut bytes = [0u8; 16];
        for (i, byte) in bytes.iter_mut().enumerate().take(keep as usize) {
            *byte = m
                .mem
                .load(thread, Space::Global, src + i as u64, 1)
                .map_err(|e| Fault::at(lane, e))? as u8;
        }
        for (i, byte) in bytes.iter().enumerate().take(size as usize) {
            m.mem
                .store(thread, Space::Shared, dst + i as u64, 1, u64::from(*byte))
                .map_err(|e| Fault::at(lane, e))?;
        }
    }
    Ok(())
}

/// Completes `bytes` of transactions on the mbarrier at shared (or generic)
/// address `addr`: a bulk copy's completion.
pub fn complete_tx(m: &mut Machine<'_>, addr: u64, bytes: u64, lane: u32) -> Result<(), Fault> {
    // A generic address into the shared window, or a shared-space address.
    let offset = match resolve(Space::Generic, addr) {
        (Space::Shared, offset) => offset,
        _ => addr,
    };
    let b = barrier(m, offset, lane)?;
    b.tx -= bytes as i64;
    complete_if_done(b);
    Ok(())
}

/// The mbarrier table of the CTA a shared offset is in (another CTA of the
/// cluster for a `mapa` address) and the offset inside that CTA.
fn table<'a>(
    m: &'a mut Machine<'_>,
    offset: u64,
    lane: u32,
) -> Result<(&'a mut HashMap<u64, Mbarrier>, u64), Fault> {
    let (rank, inside) = split_cluster(offset);
    match rank {
        Some(r) if r != m.rank => match m.peers.get_mut(r as usize).and_then(Option::as_mut) {
            Some(cta) => Ok((&mut cta.mbarriers, inside)),
            None => Err(Fault::at(
                lane,
                format!("mbarrier address {offset:#x} is in CTA rank {r}, outside the cluster"),
            )),
        },
        _ => Ok((&mut m.mbarriers, inside)),
    }
}

fn barrier<'a>(m: &'a mut Machine<'_>, offset: u64, lane: u32) -> Result<&'a mut Mbarrier, Fault> {
    let (table, inside) = table(m, offset, lane)?;
    table.get_mut(&inside).ok_or_else(|| {
        Fault::at(
            lane,
            format!("mbarrier at shared offset {inside:#x} was not initialized"),
        )
    })
}

/// Groups the active lanes by the barrier their address names.
fn by_barrier(
    m: &Machine<'_>,
    w: usize,
    inst: &Inst,
    space: Space,
    active: u32,
) -> Result<Vec<(u64, Vec<u32>)>, Fault> {
    let mut groups: Vec<(u64, Vec<u32>)> = Vec::new();
    for lane in lanes(active) {
        let addr = m.read_lane(w, &inst.src[0], lane);
        if !addr.is_multiple_of(8) {
            return Err(Fault::at(
                lane,
                format!("mbarrier address {addr:#x} is not 8-byte aligned"),
            ));
        }
        let offset = shared_offset(space, addr, lane, "mbarrier")?;
        match groups.iter_mut().find(|(o, _)| *o == offset) {
            Some((_, lanes)) => lanes.push(lane),
            None => groups.push((offset, vec![lane])),
        }
    }
    Ok(groups)
}

fn complete_if_done(barrier: &mut Mbarrier) {
    if barrier.pending == 0 && barrier.tx == 0 {
        barrier.phase = barrier.phase.wrapping_add(1);
        barrier.pending = barrier.expected;
    }
}

fn token(barrier: &Mbarrier) -> u64 {
    u64::from(barrier.phase) << 32 | u64::from(barrier.pending)
}

fn arrive(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    space: Space,
    active: u32,
    drop: bool,
    expect_tx: bool,
) -> Result<(), Fault> {
    let with_count = inst.src.len() > 1 + usize::from(expect_tx);
    let mut tokens = [0u64; 32];
    for (offset, group) in by_barrier(m, w, inst, space, active)? {
        let mut count = 0u64;
        let mut tx = 0i64;
        for &lane in &group {
            count += if with_count {
                m.read_lane(w, &inst.src[1 + usize::from(expect_tx)], lane) & 0xffff_ffff
            } else {
                1
            };
            if expect_tx {
                tx += (m.read_lane(w, &inst.src[1], lane) & 0xffff_ffff) as i64;
            }
        }
        let first = group[0];
        let b = barrier(m, offset, first)?;
        b.tx += tx;
        let before = token(b);
        if count > u64::from(b.pending) {
            return Err(Fault::at(
                first,
                format!(
                    "mbarrier: {count} arrivals exceed the {} pending in this phase (the GPU traps)",
                    b.pending
                ),
            ));
        }
        if drop {
            if count > u64::from(b.expected) {
                return Err(Fault::at(first, "mbarrier.arrive_drop below a zero count"));
            }
            b.expected -= count as u32;
        }
        b.pending -= count as u32;
        complete_if_done(b);
        for lane in group {
            tokens[lane as usize] = before;
        }
    }
    if let Some(dst) = inst.dst.first() {
        m.write(w, dst, &tokens, active);
    }
    Ok(())
}

fn mbarrier(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    op: MbarrierOp,
    space: Space,
    active: u32,
) -> Result<(), Fault> {
    match op {
        MbarrierOp::Arrive { drop, expect_tx } => {
            return arrive(m, w, inst, space, active, drop, expect_tx)
        }
        MbarrierOp::PendingCount => {
            let values = m.read(w, &inst.src[0]);
            let counts: [u64; 32] = std::array::from_fn(|l| values[l] & 0xffff_ffff);
            if let Some(dst) = inst.dst.first() {
                m.write(w, dst, &counts, active);
            }
            return Ok(());
        }
        _ => {}
    }
    let mut results = [0u64; 32];
    let mut waiting = false;
    for (offset, group) in by_barrier(m, w, inst, space, active)? {
        let first = group[0];
        match op {
            MbarrierOp::Init => {
                for &lane in &group {
                    let count = m.read_lane(w, &inst.src[1], lane) & 0xffff_ffff;
                    if count == 0 || count >= 1 << 20 {
                        return Err(Fault::at(
                            lane,
                            format!("mbarrier.init: count {count} is outside 1..2^20-1"),
                        ));
                    }
                    let (table, inside) = table(m, offset, lane)?;
                    table.insert(
                        inside,
                        Mbarrier {
                            phase: 0,
                            pending: count as u32,
                            expected: count as u32,
                            tx: 0,
                        },
                    );
                }
            }
            MbarrierOp::Inval => {
                barrier(m, offset, first)?;
                let (table, inside) = table(m, offset, first)?;
                table.remove(&inside);
            }
            MbarrierOp::ExpectTx | MbarrierOp::CompleteTx => {
                let mut tx = 0i64;
                for &lane in &group {
                    tx += (m.read_lane(w, &inst.src[1], lane) & 0xffff_ffff) as i64;
                }
                let b = barrier(m, offset, first)?;
                if op == MbarrierOp::ExpectTx {
                    b.tx += tx;
                } else {
                    b.tx -= tx;
                    complete_if_done(b);
                }
            }
            MbarrierOp::TestWait { parity } => {
                let phase = barrier(m, offset, first)?.phase;
                for lane in group {
                    let operand = m.read_lane(w, &inst.src[1], lane);
                    let done = if parity {
                        u64::from(phase & 1) != operand & 1
                    } else {
                        (operand >> 32) as u32 != phase
                    };
                    results[lane as usize] = u64::from(done);
                    waiting |= !done;
                }
            }
            MbarrierOp::Arrive { .. } | MbarrierOp::PendingCount => {}
        }
    }
    if let MbarrierOp::TestWait { .. } = op {
        if let Some(dst) = inst.dst.first() {
            m.write(w, dst, &results, active);
        }
        if waiting {
            m.yielded = true;
        }
    }
    Ok(())
}
