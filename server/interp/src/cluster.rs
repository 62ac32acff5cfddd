//! Thread-block clusters: the CTAs of a cluster run interleaved on one
//! machine, which holds the running CTA's state and keeps the others' in
//! [`CtaContext`]s (their shared memory stays reachable through
//! `Memory::peer_shared`). A round lets every CTA run its warps until they
//! wait or end, so a CTA spinning on an mbarrier that another CTA completes,
//! or waiting at `barrier.cluster.wait`, lets the others go on.
//!
//! Distributed shared memory: `mapa` puts the target rank into bits 26..31 of
//! a shared-memory address (`memory::CLUSTER_RANK_SHIFT`); `ld/st/atom/red`,
//! bulk copies and mbarrier operations on such an address reach that CTA.
//! A launch without clusters runs every CTA as a cluster of one.

use std::collections::HashMap;

use crate::engine::{lanes, Fault, Located, Machine, Warp};
use crate::ir::{Inst, Quals, Space, Src};
use crate::memory::{in_rank, resolve, split_cluster, to_generic};
use crate::Op;

#[derive(Debug, Clone)]
pub enum ClusterOp {
    /// `mapa`: the address in another CTA; `generic` without `.shared::cluster`.
    Mapa { generic: bool },
    /// `getctarank`: the rank an address is in.
    Getctarank { generic: bool },
    /// `barrier.cluster.arrive`.
    Arrive,
    /// `barrier.cluster.wait` (the engine blocks the waiting lanes).
    Wait,
}

pub fn decode(m: &str, q: &Quals, src: &[Src]) -> Option<Result<Op, String>> {
    let generic = !q.has("shared::cluster");
    let op = match m {
        "mapa" => {
            if src.len() < 2 {
                return Some(Err("mapa needs an address and a CTA rank".into()));
            }
            ClusterOp::Mapa { generic }
        }
        "getctarank" => {
            if src.is_empty() {
                return Some(Err("getctarank needs an address".into()));
            }
            ClusterOp::Getctarank { generic }
        }
        "barrier" if q.has("cluster") && q.has("arrive") => ClusterOp::Arrive,
        "barrier" if q.has("cluster") && q.has("wait") => ClusterOp::Wait,
        "barrier" if q.has("cluster") => {
            return Some(Err("barrier.cluster needs .arrive or .wait".into()))
        }
        _ => return None,
    };
    Some(Ok(Op::Cluster(op)))
}

/// The state of a CTA of the cluster while another one runs.
#[derive(Debug, Default)]
pub struct CtaContext {
    warps: Vec<Warp>,
    local: Vec<Vec<u8>>,
    func_params: Vec<Vec<u8>>,
    tensor: crate::tensor::TensorMemory,
    wgmma: crate::warpgroup::State,
    barrier_votes: HashMap<u32, Vec<crate::control::Vote>>,
    barriers: Vec<crate::control::BarrierState>,
    pub mbarriers: HashMap<u64, crate::asynccopy::Mbarrier>,
    yielded: bool,
    ctaid: [u32; 3],
}

/// The cluster barrier (`barrier.cluster.arrive/wait`), per rank and warp.
#[derive(Debug, Clone, Default)]
pub struct ClusterBarrier {
    /// Lanes that arrived in the current phase.
    arrived: Vec<Vec<u32>>,
    /// Lanes whose arrival's phase completed and that have not waited yet.
    passed: Vec<Vec<u32>>,
    /// Lanes blocked in `barrier.cluster.wait`.
    pub waiting: Vec<Vec<u32>>,
    /// The instruction of each warp's latest wait.
    pub pcs: Vec<Vec<u32>>,
}

impl ClusterBarrier {
    pub fn new(ranks: u32) -> ClusterBarrier {
        let n = ranks as usize;
        ClusterBarrier {
            arrived: vec![Vec::new(); n],
            passed: vec![Vec::new(); n],
            waiting: vec![Vec::new(); n],
            pcs: vec![Vec::new(); n],
        }
    }

    /// Fresh state for rank `rank` with `warps` warps.
    pub fn reset_rank(&mut self, rank: u32, warps: usize) {
        let r = rank as usize;
        if self.arrived.len() <= r {
            *self = ClusterBarrier::new(rank + 1);
        }
        for v in [
            &mut self.arrived,
            &mut self.passed,
            &mut self.waiting,
            &mut self.pcs,
        ] {
            v[r].clear();
            v[r].resize(warps, 0);
        }
    }

    /// Threads (rank, warp, lanes) that arrived in the current phase.
    pub fn arrived_count(&self) -> u32 {
        self.arrived.iter().flatten().map(|a| a.count_ones()).sum()
    }
}

impl<'p> Machine<'p> {
    fn stash(&mut self) -> CtaContext {
        let old = self.rank as usize;
        if let Some((shared, dynamic)) = self.mem.peer_shared.get_mut(old) {
            std::mem::swap(&mut self.mem.shared, shared);
            std::mem::swap(&mut self.mem.dynamic_shared, dynamic);
        }
        CtaContext {
            warps: std::mem::take(&mut self.warps),
            local: std::mem::take(&mut self.mem.local),
            func_params: std::mem::take(&mut self.mem.func_params),
            tensor: std::mem::take(&mut self.tensor),
            wgmma: std::mem::take(&mut self.wgmma),
            barrier_votes: std::mem::take(&mut self.barrier_votes),
            barriers: std::mem::take(&mut self.barriers),
            mbarriers: std::mem::take(&mut self.mbarriers),
            yielded: std::mem::take(&mut self.yielded),
            ctaid: self.launch.ctaid,
        }
    }

    fn unstash(&mut self, rank: u32, ctx: CtaContext) {
        self.rank = rank;
        self.mem.rank = rank;
        if let Some((shared, dynamic)) = self.mem.peer_shared.get_mut(rank as usize) {
            std::mem::swap(&mut self.mem.shared, shared);
            std::mem::swap(&mut self.mem.dynamic_shared, dynamic);
        }
        self.warps = ctx.warps;
        self.mem.local = ctx.local;
        self.mem.func_params = ctx.func_params;
        self.tensor = ctx.tensor;
        self.wgmma = ctx.wgmma;
        self.barrier_votes = ctx.barrier_votes;
        self.barriers = ctx.barriers;
        self.mbarriers = ctx.mbarriers;
        self.yielded = ctx.yielded;
        self.launch.ctaid = ctx.ctaid;
        self.hint = if rank == 0 { self.cluster_hint } else { None };
    }

    /// Makes rank `rank` of the cluster the running CTA.
    pub fn switch_cta(&mut self, rank: u32) {
        if rank == self.rank || rank as usize >= self.peers.len() {
            return;
        }
        let old = self.rank as usize;
        let ctx = self.stash();
        self.peers[old] = Some(ctx);
        let ctx = self.peers[rank as usize].take().unwrap_or_default();
        self.unstash(rank, ctx);
    }

    /// Prepares every CTA of the cluster whose first CTA is `first`; rank 0 runs first.
    pub fn start_cluster(&mut self, first: [u32; 3]) {
        let n = self.launch.cluster_size();
        self.peers = (0..n).map(|_| None).collect();
        self.mem.peer_shared = vec![Default::default(); n as usize];
        self.cluster_barrier = ClusterBarrier::new(n);
        self.rank = 0;
        self.mem.rank = 0;
        for rank in 0..n {
            if rank > 0 {
                let ctx = self.stash();
                self.peers[rank as usize - 1] = Some(ctx);
                self.rank = rank;
                self.mem.rank = rank;
            }
            self.start_cta(self.launch.cta_of_rank(first, rank));
        }
        self.hint = None;
        self.switch_cta(0);
    }

    /// Runs the current cluster to completion, its CTAs interleaved. A fault
    /// comes with the rank of the CTA it happened in.
    pub fn run_cluster(&mut self) -> Result<(), (Located, u32)> {
        let n = self.launch.cluster_size();
        loop {
            let before = self.steps;
            let mut moved = false;
            for rank in 0..n {
                self.switch_cta(rank);
                for w in 0..self.warps.len() {
                    moved |= self.run_warp(w).map_err(|e| (e, rank))?;
                }
                moved |= self.release();
            }
            if moved || self.steps != before {
                continue;
            }
            for rank in 0..n {
                self.switch_cta(rank);
                if self.warps.iter().any(|w| w.blocked != 0) {
                    return Err((self.deadlock_fault(), rank));
                }
            }
            self.switch_cta(0);
            return Ok(());
        }
    }

    /// The warps of rank `rank` (the running CTA's or a stashed one's).
    fn rank_warps(&self, rank: usize) -> &[Warp] {
        if rank == self.rank as usize {
            &self.warps
        } else {
            self.peers
                .get(rank)
                .and_then(Option::as_ref)
                .map_or(&[], |c| &c.warps)
        }
    }

    fn rank_warps_mut(&mut self, rank: usize) -> &mut [Warp] {
        if rank == self.rank as usize {
            &mut self.warps
        } else {
            match self.peers.get_mut(rank).and_then(Option::as_mut) {
                Some(c) => &mut c.warps,
                None => &mut [],
            }
        }
    }

    /// Completes the cluster barrier when every thread of the cluster that
    /// has not exited arrived; true if it did.
    pub fn release_cluster_barrier(&mut self) -> bool {
        if self.cluster_barrier.arrived_count() == 0 {
            return false;
        }
        let ranks = self.cluster_barrier.arrived.len();
        for rank in 0..ranks {
            for (w, warp) in self.rank_warps(rank).iter().enumerate() {
                let live = warp.valid & !warp.exited;
                let arrived = self.cluster_barrier.arrived[rank].get(w).copied();
                if live & !arrived.unwrap_or(0) != 0 {
                    return false;
                }
            }
        }
        for rank in 0..ranks {
            let warps = self.cluster_barrier.arrived[rank].len();
            for w in 0..warps {
                let cb = &mut self.cluster_barrier;
                cb.passed[rank][w] |= cb.arrived[rank][w];
                cb.arrived[rank][w] = 0;
                let waiting = std::mem::take(&mut cb.waiting[rank][w]);
                cb.passed[rank][w] &= !waiting;
                if let Some(warp) = self.rank_warps_mut(rank).get_mut(w) {
                    warp.blocked &= !waiting;
                }
            }
        }
        true
    }

    /// `barrier.cluster.wait` for `active`: lanes whose arrival's phase
    /// completed go on; lanes still waiting for it are returned (to block).
    pub fn cluster_wait(&mut self, w: usize, pc: u32, active: u32) -> Result<u32, Fault> {
        let r = self.rank as usize;
        let cb = &mut self.cluster_barrier;
        let passed = cb.passed[r][w] & active;
        let pending = cb.arrived[r][w] & active & !passed;
        let never = active & !passed & !pending;
        if never != 0 {
            return Err(Fault::at(
                never.trailing_zeros(),
                "barrier.cluster.wait without a barrier.cluster.arrive before it: the thread \
                 would wait for its own arrival (the GPU would hang)",
            ));
        }
        cb.passed[r][w] &= !passed;
        cb.waiting[r][w] |= pending;
        if pending != 0 {
            cb.pcs[r][w] = pc;
        }
        Ok(pending)
    }
}

/// The rank an address names and the mapped address in rank `rank`.
fn map_to(m: &Machine<'_>, offset: u64, rank: u32) -> u64 {
    if rank == m.rank {
        split_cluster(offset).1
    } else {
        in_rank(offset, rank)
    }
}

pub fn exec(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    op: &ClusterOp,
    active: u32,
) -> Result<(), Fault> {
    let ctas = m.launch.cluster_size();
    let mut out = [0u64; 32];
    match op {
        ClusterOp::Arrive => {
            let r = m.rank as usize;
            let arrived = &mut m.cluster_barrier.arrived[r][w];
            if *arrived & active != 0 {
                return Err(Fault::at(
                    (*arrived & active).trailing_zeros(),
                    "barrier.cluster.arrive twice before the barrier completed",
                ));
            }
            *arrived |= active;
            return Ok(());
        }
        ClusterOp::Wait => return Ok(()),
        ClusterOp::Mapa { generic } => {
            for lane in lanes(active) {
                let addr = m.read_lane(w, &inst.src[0], lane);
                let rank = (m.read_lane(w, &inst.src[1], lane) & 0xffff_ffff) as u32;
                if rank >= ctas {
                    return Err(Fault::at(
                        lane,
                        format!("mapa: CTA rank {rank} is outside the cluster of {ctas} CTAs"),
                    ));
                }
                out[lane as usize] = if *generic {
                    match resolve(Space::Generic, addr) {
                        (Space::Shared, offset) => {
                            to_generic(Space::Shared, map_to(m, offset, rank))
                        }
                        _ => {
                            return Err(Fault::at(
                                lane,
                                format!("mapa: generic address {addr:#x} is not in shared memory"),
                            ))
                        }
                    }
                } else {
                    map_to(m, addr & 0xffff_ffff, rank)
                };
            }
        }
        ClusterOp::Getctarank { generic } => {
            for lane in lanes(active) {
                let addr = m.read_lane(w, &inst.src[0], lane);
                let offset = if *generic {
                    match resolve(Space::Generic, addr) {
                        (Space::Shared, offset) => offset,
                        _ => {
                            return Err(Fault::at(
                                lane,
                                format!(
                                    "getctarank: generic address {addr:#x} is not in shared memory"
                                ),
                            ))
                        }
                    }
                } else {
                    addr
                };
                out[lane as usize] = u64::from(split_cluster(offset).0.unwrap_or(m.rank));
            }
        }
    }
    if let Some(dst) = inst.dst.first() {
        m.write(w, dst, &out, active);
    }
    Ok(())
}
