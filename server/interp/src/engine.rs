//! The execution engine: warps of 32 lanes with SIMT divergence and
//! reconvergence, CTA-wide barriers, calls, the step limit and the
//! per-line record of one thread's results.
//!
//! Each warp keeps one program counter per lane. At every step it issues the
//! instruction at the smallest program counter among its runnable lanes, for
//! all lanes that are there; structured code thus reconverges at the first
//! instruction after a branch region. A converged warp skips the scan.
//! Register files are lane-major (`regs[reg * 32 + lane]`) so an instruction
//! runs as tight loops over 32-lane arrays.

use std::collections::HashMap;

use crate::decode::{Program, Slot};
use crate::ir::{mask, sext, Dst, Inst, Special, Src, Ty};
use crate::memory::{Memory, FUNCTION_BASE};
use crate::tensor::TensorMemory;
use crate::Op;

pub type Lanes = [u64; 32];

/// A run-time fault before it is tied to a thread and line.
#[derive(Debug, Clone)]
pub struct Fault {
    pub message: String,
    /// The lane that faulted, if one did.
    pub lane: Option<u32>,
}

impl Fault {
    pub fn new(message: impl Into<String>) -> Fault {
        Fault {
            message: message.into(),
            lane: None,
        }
    }

    pub fn at(lane: u32, message: impl Into<String>) -> Fault {
        Fault {
            message: message.into(),
            lane: Some(lane),
        }
    }
}

impl From<String> for Fault {
    fn from(message: String) -> Fault {
        Fault::new(message)
    }
}

#[derive(Debug, Clone)]
struct Frame {
    return_pc: u32,
    /// Caller slots that receive the callee's return values.
    rets: Vec<Slot>,
    func: u32,
    /// For a recursive call: the state of the callee's outer activation,
    /// put back when this one returns.
    saved: Option<Box<Activation>>,
}

/// One activation's registers, `.local` frame and parameter areas.
#[derive(Debug, Clone)]
struct Activation {
    regs: Vec<(u32, u64)>,
    local: Vec<u8>,
    params: Vec<Vec<u8>>,
}

/// One warp's state.
#[derive(Debug, Clone)]
pub struct Warp {
    pub regs: Vec<u64>,
    pcs: [u32; 32],
    /// When set, every runnable lane is at `pc` and `pcs` may be stale.
    converged: bool,
    pc: u32,
    /// Lanes that hold a thread.
    pub valid: u32,
    pub exited: u32,
    pub blocked: u32,
    /// Carry flag (`CC.CF`) of each lane.
    pub carry: u32,
    stacks: Vec<Vec<Frame>>,
    /// Linear thread index (in the CTA) of lane 0.
    pub base: u32,
}

impl Warp {
    fn runnable(&self) -> u32 {
        self.valid & !self.exited & !self.blocked
    }

    /// The program counter of `lane` (meaningless once it exited).
    pub(crate) fn lane_pc(&self, lane: u32) -> u32 {
        if self.converged && self.valid >> lane & 1 == 1 && self.exited >> lane & 1 == 0 {
            self.pc
        } else {
            self.pcs[lane as usize]
        }
    }

    /// The calls `lane` is inside, outermost first: the called function and
    /// the instruction the call returns to.
    pub(crate) fn calls(&self, lane: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.stacks[lane as usize]
            .iter()
            .map(|f| (f.func, f.return_pc))
    }

    /// How many calls deep `lane` is.
    pub(crate) fn depth(&self, lane: u32) -> usize {
        self.stacks[lane as usize].len()
    }

    fn materialize(&mut self) {
        if self.converged {
            for lane in 0..32 {
                if self.valid >> lane & 1 == 1 && self.exited >> lane & 1 == 0 {
                    self.pcs[lane] = self.pc;
                }
            }
            self.converged = false;
        }
    }

    /// The next program counter and the lanes that are at it.
    fn select(&mut self) -> (u32, u32) {
        let runnable = self.runnable();
        if runnable == 0 {
            return (0, 0);
        }
        if self.converged {
            return (self.pc, runnable);
        }
        let mut min = u32::MAX;
        let mut lanes = runnable;
        while lanes != 0 {
            let lane = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            min = min.min(self.pcs[lane]);
        }
        let mut at = 0;
        let mut lanes = runnable;
        while lanes != 0 {
            let lane = lanes.trailing_zeros();
            lanes &= lanes - 1;
            if self.pcs[lane as usize] == min {
                at |= 1 << lane;
            }
        }
        if at == runnable && self.blocked == 0 {
            self.converged = true;
            self.pc = min;
        }
        (min, at)
    }

    /// Moves `lanes` (all at `pc`) to `target`.
    fn jump(&mut self, pc: u32, lanes: u32, target: u32) {
        if lanes == 0 {
            return;
        }
        if self.converged && lanes == self.runnable() {
            self.pc = target;
            return;
        }
        if self.converged && pc == self.pc {
            self.materialize();
        }
        let mut rest = lanes;
        while rest != 0 {
            let lane = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            self.pcs[lane] = target;
        }
    }
}

/// Zeroes `bytes` and gives it length `len`, keeping its allocation.
fn reset(bytes: &mut Vec<u8>, len: usize) {
    bytes.clear();
    bytes.resize(len, 0);
}

/// One line's record for the selected thread.
#[derive(Debug, Clone, Default)]
pub struct LineRecord {
    pub values: Vec<(u32, u64)>,
    pub executions: u64,
}

/// Shape of the launch.
#[derive(Debug, Clone, Copy)]
pub struct Launch {
    pub ntid: [u32; 3],
    pub nctaid: [u32; 3],
    pub ctaid: [u32; 3],
    /// Bytes of dynamic shared memory per CTA.
    pub dynamic_smem: u32,
    /// CTAs per cluster in each dimension (`[1, 1, 1]` without clusters).
    pub cluster: [u32; 3],
    /// Whether the launch gave a cluster shape (`%is_explicit_cluster`).
    pub explicit_cluster: bool,
}

impl Launch {
    /// CTAs per cluster.
    pub fn cluster_size(&self) -> u32 {
        self.cluster.iter().product()
    }

    /// The `%ctaid` of rank `rank` of the cluster whose first CTA is `first`.
    pub fn cta_of_rank(&self, first: [u32; 3], rank: u32) -> [u32; 3] {
        let [cx, cy, _] = self.cluster;
        [
            first[0] + rank % cx,
            first[1] + rank / cx % cy,
            first[2] + rank / (cx * cy),
        ]
    }
}

/// The machine running one CTA at a time.
#[derive(Debug)]
pub struct Machine<'p> {
    pub prog: &'p Program,
    pub warps: Vec<Warp>,
    pub mem: Memory,
    pub launch: Launch,
    pub steps: u64,
    pub max_steps: u64,
    pub thread_instructions: u64,
    pub clock: u64,
    /// The selected thread (warp, lane) whose per-line values are recorded.
    pub hint: Option<(usize, u32)>,
    pub lines: HashMap<u32, LineRecord>,
    pub tensor: TensorMemory,
    /// `wgmma` operations in flight.
    pub wgmma: crate::warpgroup::State,
    /// Predicates offered to `bar.red` by each thread, by barrier.
    pub barrier_votes: HashMap<u32, Vec<crate::control::Vote>>,
    /// The CTA's named barriers 0..15.
    pub barriers: Vec<crate::control::BarrierState>,
    /// The CTA's mbarriers by shared-memory offset.
    pub mbarriers: HashMap<u64, crate::asynccopy::Mbarrier>,
    /// Set by a wait that found its phase incomplete: the warp stops issuing
    /// so that the others can run.
    pub yielded: bool,
    /// Set by another thread to end the run early (checked every
    /// [`STOP_CHECK_STEPS`] steps).
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// The running CTA's rank in its cluster.
    pub rank: u32,
    /// The other CTAs of the cluster by rank (`None` for the running one);
    /// empty for clusters of one.
    pub peers: Vec<Option<crate::cluster::CtaContext>>,
    /// `barrier.cluster.arrive/wait` of the cluster.
    pub cluster_barrier: crate::cluster::ClusterBarrier,
    /// The hint of rank 0 while a cluster of several CTAs runs.
    pub cluster_hint: Option<(usize, u32)>,
}

/// How often a run looks at its stop flag: rarely enough to cost nothing,
/// often enough to stop within a millisecond or so.
pub const STOP_CHECK_STEPS: u64 = 4096;

/// What one [`Machine::issue`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Issue {
    /// An instruction ran.
    Issued,
    /// The warp waits (an incomplete mbarrier phase) so that others run.
    Yielded,
    /// No lane of the warp can run: all exited or wait at a barrier.
    Idle,
}

/// A fault tied to its instruction and thread.
#[derive(Debug, Clone)]
pub struct Located {
    pub message: String,
    pub pc: u32,
    pub thread: u32,
}

impl<'p> Machine<'p> {
    pub fn new(prog: &'p Program, mem: Memory, launch: Launch, max_steps: u64) -> Machine<'p> {
        Machine {
            prog,
            warps: Vec::new(),
            mem,
            launch,
            steps: 0,
            max_steps,
            thread_instructions: 0,
            clock: 0,
            hint: None,
            lines: HashMap::new(),
            tensor: TensorMemory::default(),
            wgmma: Default::default(),
            barrier_votes: HashMap::new(),
            barriers: vec![Default::default(); 16],
            mbarriers: HashMap::new(),
            yielded: false,
            stop: None,
            rank: 0,
            peers: Vec::new(),
            cluster_barrier: crate::cluster::ClusterBarrier::new(1),
            cluster_hint: None,
        }
    }

    pub fn threads_per_cta(&self) -> u32 {
        self.launch.ntid.iter().product()
    }

    /// Prepares fresh warps, shared and local memory for CTA `ctaid`.
    pub fn start_cta(&mut self, ctaid: [u32; 3]) {
        self.launch.ctaid = ctaid;
        let threads = self.threads_per_cta();
        let warps = threads.div_ceil(32);
        let nregs = self.prog.regs.len();
        let start = self.prog.functions[self.prog.main].start;
        // The previous CTA's register files and memories are zeroed and
        // reused: for a large kernel, fresh allocations cost more in page
        // faults than the CTA's own work.
        let mut old = std::mem::take(&mut self.warps);
        self.warps = (0..warps)
            .map(|w| {
                let count = (threads - w * 32).min(32);
                let regs = match old.pop() {
                    Some(mut warp) if warp.regs.len() == nregs * 32 => {
                        warp.regs.fill(0);
                        warp.regs
                    }
                    _ => vec![0; nregs * 32],
                };
                Warp {
                    regs,
                    pcs: [start; 32],
                    converged: true,
                    pc: start,
                    valid: mask(count) as u32,
                    exited: 0,
                    blocked: 0,
                    carry: 0,
                    stacks: vec![Vec::new(); 32],
                    base: w * 32,
                }
            })
            .collect();
        reset(&mut self.mem.shared, self.prog.shared_size);
        reset(
            &mut self.mem.dynamic_shared,
            self.launch.dynamic_smem as usize,
        );
        self.mem.local.resize_with(threads as usize, Vec::new);
        for local in &mut self.mem.local {
            reset(local, self.prog.local_size);
        }
        self.mem.func_params.resize_with(threads as usize, Vec::new);
        for params in &mut self.mem.func_params {
            reset(params, self.prog.func_param_size);
        }
        self.tensor = TensorMemory::default();
        self.wgmma = Default::default();
        self.barrier_votes.clear();
        self.barriers = vec![Default::default(); 16];
        self.mbarriers.clear();
        self.yielded = false;
        self.cluster_barrier.reset_rank(self.rank, warps as usize);
    }

    /// Runs the current CTA to completion.
    pub fn run_cta(&mut self) -> Result<(), Located> {
        loop {
            let mut yielded = false;
            for w in 0..self.warps.len() {
                yielded |= self.run_warp(w)?;
            }
            // A waiting warp goes on after the others had their turn;
            // barriers that completed release their threads.
            let released = self.release();
            if yielded || released {
                continue;
            }
            if self.warps.iter().all(|w| w.blocked == 0) {
                return Ok(());
            }
            return Err(self.deadlock());
        }
    }

    /// Completes every barrier whose threads have all arrived: a warp
    /// arrives when all its lanes that have not exited did; a barrier
    /// without a thread count waits for every warp that has such lanes, one
    /// with a count for count / 32 warps. True if some thread was released.
    fn release_barriers(&mut self) -> bool {
        let mut released = false;
        for id in 0..self.barriers.len() {
            if self.barriers[id].is_idle() {
                continue;
            }
            let state = &self.barriers[id];
            let mut arrived_warps = 0u64;
            let mut every = true;
            for (w, warp) in self.warps.iter().enumerate() {
                let live = warp.valid & !warp.exited;
                let arrived = state.arrived.get(w).copied().unwrap_or(0);
                if arrived != 0 && arrived & live == live {
                    arrived_warps += 1;
                } else if live != 0 {
                    every = false;
                }
            }
            let complete = match state.count {
                None => every,
                Some(count) => arrived_warps * 32 >= count,
            };
            if !complete {
                continue;
            }
            let state = std::mem::take(&mut self.barriers[id]);
            for (w, waiting) in state.waiting.iter().enumerate() {
                if let Some(warp) = self.warps.get_mut(w) {
                    released |= warp.blocked & waiting != 0;
                    warp.blocked &= !waiting;
                }
            }
            let votes = self.barrier_votes.remove(&(id as u32)).unwrap_or_default();
            let count = votes.iter().filter(|v| v.value).count() as u64;
            let all = votes.iter().all(|v| v.value);
            let any = votes.iter().any(|v| v.value);
            for vote in &votes {
                let Some(reg) = vote.reg else {
                    continue;
                };
                let value = match vote.reduction {
                    crate::control::Reduction::Popc => count,
                    crate::control::Reduction::And => u64::from(all),
                    crate::control::Reduction::Or => u64::from(any),
                };
                self.warps[vote.warp].regs[reg as usize * 32 + vote.lane as usize] = value;
            }
        }
        released
    }

    /// Every thread that has not exited waits at a barrier that cannot
    /// complete: the GPU would hang. Names each waiting group's barrier and line.
    fn deadlock(&self) -> Located {
        let mut groups: Vec<(usize, u32, Vec<u32>)> = Vec::new();
        for (id, state) in self.barriers.iter().enumerate() {
            for (w, &waiting) in state.waiting.iter().enumerate() {
                if waiting == 0 {
                    continue;
                }
                let pc = state.pcs[w];
                let threads = lanes(waiting).map(|l| self.warps[w].base + l);
                match groups.iter_mut().find(|g| g.0 == id && g.1 == pc) {
                    Some(g) => g.2.extend(threads),
                    None => groups.push((id, pc, threads.collect())),
                }
            }
        }
        let parts: Vec<String> = groups
            .iter()
            .map(|(id, pc, threads)| {
                let state = &self.barriers[*id];
                let arrived: u32 = state
                    .arrived
                    .iter()
                    .zip(&self.warps)
                    .map(|(a, w)| (a & w.valid).count_ones())
                    .sum();
                let wanted = match state.count {
                    Some(c) => format!("{c} threads, {arrived} arrived"),
                    None => format!(
                        "all {} threads of the CTA that have not exited, {arrived} arrived",
                        self.warps
                            .iter()
                            .map(|w| (w.valid & !w.exited).count_ones())
                            .sum::<u32>()
                    ),
                };
                let name = format!("barrier {id}");
                format!(
                    "threads {} wait at {name} on line {} (it needs {wanted})",
                    ranges(threads),
                    self.prog.line_of(*pc)
                )
            })
            .collect();
        let mut parts = parts;
        let r = self.rank as usize;
        let cb = &self.cluster_barrier;
        let mut cluster_threads = Vec::new();
        let mut cluster_pc = 0;
        for (w, &waiting) in cb.waiting.get(r).into_iter().flatten().enumerate() {
            if waiting != 0 {
                cluster_pc = cb.pcs[r][w];
                cluster_threads.extend(lanes(waiting).map(|l| self.warps[w].base + l));
            }
        }
        if !cluster_threads.is_empty() {
            parts.push(format!(
                "threads {} wait at barrier.cluster.wait on line {} (it needs every thread of \
                 the cluster's {} CTAs that has not exited to arrive, {} arrived)",
                ranges(&cluster_threads),
                self.prog.line_of(cluster_pc),
                self.launch.cluster_size(),
                cb.arrived_count()
            ));
            groups.push((usize::MAX, cluster_pc, cluster_threads));
        }
        let (pc, thread) = groups
            .first()
            .map_or((0, 0), |g| (g.1, g.2.first().copied().unwrap_or(0)));
        Located {
            message: format!(
                "deadlock: no barrier can complete, so the GPU would hang: {}",
                parts.join("; ")
            ),
            pc,
            thread,
        }
    }

    /// Runs warp `w` until it blocks or ends; true when it stopped to wait.
    pub(crate) fn run_warp(&mut self, w: usize) -> Result<bool, Located> {
        loop {
            match self.issue(w)? {
                Issue::Issued => {}
                Issue::Yielded => return Ok(true),
                Issue::Idle => return Ok(false),
            }
        }
    }

    /// Where warp `w` issues next: the program counter and the lanes there
    /// (no lanes when none can run).
    pub fn next_issue(&mut self, w: usize) -> (u32, u32) {
        self.warps[w].select()
    }

    /// Issues one instruction of warp `w` (the body of [`Machine::run_warp`],
    /// also driven one at a time by a debug session).
    #[inline(always)]
    pub fn issue(&mut self, w: usize) -> Result<Issue, Located> {
        let prog = self.prog;
        if std::mem::take(&mut self.yielded) {
            return Ok(Issue::Yielded);
        }
        let (pc, lanes) = self.warps[w].select();
        if lanes == 0 {
            return Ok(Issue::Idle);
        }
        let Some(inst) = prog.insts.get(pc as usize) else {
            // Cannot happen: every body ends in `ret` or `exit`.
            self.warps[w].exited |= lanes;
            return Ok(Issue::Issued);
        };
        if !inst.implicit {
            self.steps += 1;
            self.clock += 1;
            self.thread_instructions += u64::from(lanes.count_ones());
        }
        let stopped = self.steps.is_multiple_of(STOP_CHECK_STEPS)
            && self
                .stop
                .as_ref()
                .is_some_and(|stop| stop.load(std::sync::atomic::Ordering::Relaxed));
        if stopped {
            return Err(self.locate(w, pc, lanes, Fault::new("the run was stopped")));
        }
        if self.steps > self.max_steps {
            return Err(self.locate(
                w,
                pc,
                lanes,
                Fault::new(format!(
                    "step limit of {} instructions reached",
                    self.max_steps
                )),
            ));
        }
        let active = self.guarded(w, inst, lanes);
        if self.wgmma.watching && active != 0 {
            if let Err(fault) = crate::warpgroup::check_accumulators(self, w, inst) {
                return Err(self.locate(w, pc, active, fault));
            }
        }
        if let Err(fault) = self.step(w, pc, inst, lanes, active) {
            return Err(self.locate(w, pc, active, fault));
        }
        if let Some((hw, hl)) = self.hint {
            if hw == w && active >> hl & 1 == 1 {
                self.record(w, pc, hl, inst);
            }
        }
        Ok(Issue::Issued)
    }

    /// The lanes of `lanes` whose guard predicate lets `inst` run.
    #[inline(always)]
    pub fn guarded(&self, w: usize, inst: &Inst, lanes: u32) -> u32 {
        match inst.guard {
            Some((reg, negated)) => {
                let regs = &self.warps[w].regs[reg as usize * 32..reg as usize * 32 + 32];
                let mut on = 0u32;
                for (lane, value) in regs.iter().enumerate() {
                    if (*value & 1 == 1) != negated {
                        on |= 1 << lane;
                    }
                }
                lanes & on
            }
            None => lanes,
        }
    }

    /// Completes the barriers whose threads have all arrived (see
    /// [`Machine::run_cta`]); true if some thread was released.
    pub fn release(&mut self) -> bool {
        let named = self.release_barriers();
        self.release_cluster_barrier() || named
    }

    /// The fault of a CTA whose live threads all wait at barriers that
    /// cannot complete.
    pub fn deadlock_fault(&self) -> Located {
        self.deadlock()
    }

    fn locate(&self, w: usize, pc: u32, lanes: u32, fault: Fault) -> Located {
        let lane = fault.lane.unwrap_or(lanes.trailing_zeros().min(31));
        Located {
            message: fault.message,
            pc,
            thread: self.warps[w].base + lane,
        }
    }

    fn record(&mut self, w: usize, pc: u32, lane: u32, inst: &Inst) {
        let warp = &self.warps[w];
        let entry = self.lines.entry(pc).or_default();
        entry.values.clear();
        fn collect(dst: &Dst, warp: &Warp, lane: u32, out: &mut Vec<(u32, u64)>) {
            match dst {
                Dst::Reg(r) => out.push((*r, warp.regs[*r as usize * 32 + lane as usize])),
                Dst::Vector(items) => items.iter().for_each(|d| collect(d, warp, lane, out)),
                Dst::Sink => {}
            }
        }
        for dst in &inst.dst {
            collect(dst, warp, lane, &mut entry.values);
        }
        entry.executions += 1;
    }

    /// Executes one instruction for `lanes` (guard true on `active`) and
    /// advances their program counters.
    fn step(
        &mut self,
        w: usize,
        pc: u32,
        inst: &'p Inst,
        lanes: u32,
        active: u32,
    ) -> Result<(), Fault> {
        match &inst.op {
            Op::Bra => {
                let target = match inst.src.first() {
                    Some(Src::Target(t)) => *t,
                    _ => return Err(Fault::new("bra needs a label")),
                };
                let warp = &mut self.warps[w];
                if active == lanes {
                    warp.jump(pc, lanes, target);
                } else {
                    warp.materialize();
                    warp.jump(pc, active, target);
                    warp.jump(pc, lanes & !active, pc + 1);
                }
                return Ok(());
            }
            Op::Exit => {
                let warp = &mut self.warps[w];
                if active != lanes {
                    warp.jump(pc, lanes & !active, pc + 1);
                }
                warp.exited |= active;
                return Ok(());
            }
            Op::Ret => return self.ret(w, pc, lanes, active),
            Op::Call { func, rets, args } => {
                return self.call(w, pc, lanes, active, *func, rets, args);
            }
            Op::CallIndirect { reg, rets, args } => {
                return self.call_indirect(w, pc, lanes, active, *reg, rets, args);
            }
            Op::Wgmma(crate::warpgroup::WgmmaOp::Wait(n)) => {
                // The warp stays at the wait, letting the others run, until
                // its groups' operations have been issued by every warp.
                if active != 0 && !crate::warpgroup::ready(self, w, *n)? {
                    self.yielded = true;
                    return Ok(());
                }
                if active != 0 {
                    crate::warpgroup::covered(self, w, *n);
                }
                self.warps[w].jump(pc, lanes, pc + 1);
                return Ok(());
            }
            Op::Wgmma(crate::warpgroup::WgmmaOp::Mma(_))
                if active != 0 && crate::warpgroup::behind(self, w)? =>
            {
                self.yielded = true;
                return Ok(());
            }
            Op::Cluster(crate::cluster::ClusterOp::Wait) => {
                let pending = self.cluster_wait(w, pc, active)?;
                let warp = &mut self.warps[w];
                if pending != 0 && pending != warp.runnable() {
                    warp.materialize();
                }
                warp.jump(pc, lanes, pc + 1);
                warp.blocked |= pending;
                return Ok(());
            }
            Op::Barrier(barrier) => {
                crate::control::barrier(self, w, pc, inst, barrier, active)?;
                let warp = &mut self.warps[w];
                if barrier.arrive {
                    warp.jump(pc, lanes, pc + 1);
                    return Ok(());
                }
                if active != 0 && active != warp.runnable() {
                    warp.materialize();
                }
                warp.jump(pc, lanes, pc + 1);
                warp.blocked |= active;
                return Ok(());
            }
            _ => {}
        }
        if active != 0 {
            self.exec(w, inst, active)?;
        }
        self.warps[w].jump(pc, lanes, pc + 1);
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn call(
        &mut self,
        w: usize,
        pc: u32,
        lanes: u32,
        active: u32,
        func: u32,
        rets: &[Slot],
        args: &[Slot],
    ) -> Result<(), Fault> {
        let prog = self.prog;
        let Some(callee) = prog.functions.get(func as usize) else {
            return Err(Fault::new("call of an unknown function"));
        };
        if args.len() != callee.params.len() || rets.len() != callee.returns.len() {
            return Err(Fault::new(format!(
                "`{}` takes {} arguments and {} results; the call gives {} and {}",
                callee.name,
                callee.params.len(),
                callee.returns.len(),
                args.len(),
                rets.len()
            )));
        }
        let mut rest = active;
        while rest != 0 {
            let lane = rest.trailing_zeros();
            rest &= rest - 1;
            let recursive = self.warps[w].stacks[lane as usize]
                .iter()
                .any(|f| f.func == func);
            let saved = recursive.then(|| Box::new(self.save_activation(w, lane, func)));
            for (arg, param) in args.iter().zip(&callee.params) {
                let bytes = self
                    .slot_bytes(w, lane, *arg)
                    .map_err(|m| Fault::at(lane, m))?;
                self.set_slot(w, lane, *param, &bytes)
                    .map_err(|m| Fault::at(lane, m))?;
            }
            let stack = &mut self.warps[w].stacks[lane as usize];
            if stack.len() >= 1024 {
                return Err(Fault::at(lane, "call stack overflow"));
            }
            stack.push(Frame {
                return_pc: pc + 1,
                rets: rets.to_vec(),
                func,
                saved,
            });
        }
        let warp = &mut self.warps[w];
        if active != lanes {
            warp.materialize();
            warp.jump(pc, lanes & !active, pc + 1);
        }
        warp.jump(pc, active, callee.start);
        Ok(())
    }

    fn ret(&mut self, w: usize, pc: u32, lanes: u32, active: u32) -> Result<(), Fault> {
        let prog = self.prog;
        if active != lanes {
            self.warps[w].materialize();
            self.warps[w].jump(pc, lanes & !active, pc + 1);
        }
        let mut targets = Vec::new();
        let mut rest = active;
        while rest != 0 {
            let lane = rest.trailing_zeros();
            rest &= rest - 1;
            let Some(frame) = self.warps[w].stacks[lane as usize].pop() else {
                self.warps[w].exited |= 1 << lane;
                continue;
            };
            let callee = &prog.functions[frame.func as usize];
            let mut values = Vec::new();
            for formal in &callee.returns {
                values.push(
                    self.slot_bytes(w, lane, *formal)
                        .map_err(|m| Fault::at(lane, m))?,
                );
            }
            if let Some(saved) = frame.saved {
                self.restore_activation(w, lane, frame.func, *saved);
            }
            for (slot, bytes) in frame.rets.iter().zip(&values) {
                self.set_slot(w, lane, *slot, bytes)
                    .map_err(|m| Fault::at(lane, m))?;
            }
            targets.push((lane, frame.return_pc));
        }
        let warp = &mut self.warps[w];
        let uniform = targets.windows(2).all(|p| p[0].1 == p[1].1);
        let returning: u32 = targets.iter().map(|(l, _)| 1u32 << l).sum();
        if uniform && !targets.is_empty() {
            warp.jump(pc, returning, targets[0].1);
        } else {
            warp.materialize();
            for (lane, target) in targets {
                warp.pcs[lane as usize] = target;
            }
        }
        Ok(())
    }

    /// Copies function `func`'s registers, `.local` frame and parameter
    /// areas of one thread, before a recursive call reuses them.
    fn save_activation(&self, w: usize, lane: u32, func: u32) -> Activation {
        let prog = self.prog;
        let info = &prog.functions[func as usize];
        let thread = (self.warps[w].base + lane) as usize;
        let regs = (0..prog.regs.len() as u32)
            .filter(|&r| prog.regs[r as usize].function == func as usize)
            .map(|r| (r, self.warps[w].regs[r as usize * 32 + lane as usize]))
            .collect();
        let local = self
            .mem
            .local
            .get(thread)
            .and_then(|l| l.get(info.frame_local.clone()))
            .map(<[u8]>::to_vec)
            .unwrap_or_default();
        let params = info
            .frame_params
            .iter()
            .map(|range| {
                self.mem
                    .func_params
                    .get(thread)
                    .and_then(|p| p.get(range.clone()))
                    .map(<[u8]>::to_vec)
                    .unwrap_or_default()
            })
            .collect();
        Activation {
            regs,
            local,
            params,
        }
    }

    fn restore_activation(&mut self, w: usize, lane: u32, func: u32, saved: Activation) {
        let prog = self.prog;
        let info = &prog.functions[func as usize];
        let thread = (self.warps[w].base + lane) as usize;
        for (r, bits) in saved.regs {
            self.warps[w].regs[r as usize * 32 + lane as usize] = bits;
        }
        if let Some(area) = self
            .mem
            .local
            .get_mut(thread)
            .and_then(|l| l.get_mut(info.frame_local.clone()))
        {
            if area.len() == saved.local.len() {
                area.copy_from_slice(&saved.local);
            }
        }
        for (range, bytes) in info.frame_params.iter().zip(saved.params) {
            if let Some(area) = self
                .mem
                .func_params
                .get_mut(thread)
                .and_then(|p| p.get_mut(range.clone()))
            {
                if area.len() == bytes.len() {
                    area.copy_from_slice(&bytes);
                }
            }
        }
    }

    /// `call` through a register: the lanes go to the functions whose
    /// addresses they hold.
    #[allow(clippy::too_many_arguments)]
    fn call_indirect(
        &mut self,
        w: usize,
        pc: u32,
        lanes: u32,
        active: u32,
        reg: u32,
        rets: &[Slot],
        args: &[Slot],
    ) -> Result<(), Fault> {
        let mut groups: Vec<(u32, u32)> = Vec::new();
        for lane in crate::engine::lanes(active) {
            let value = self.warps[w].regs[reg as usize * 32 + lane as usize];
            let func = value
                .checked_sub(FUNCTION_BASE)
                .filter(|&f| (f as usize) < self.prog.functions.len())
                .ok_or_else(|| {
                    Fault::at(
                        lane,
                        format!("call through {value:#x}, which is not a function's address"),
                    )
                })? as u32;
            match groups.iter_mut().find(|g| g.0 == func) {
                Some(group) => group.1 |= 1 << lane,
                None => groups.push((func, 1 << lane)),
            }
        }
        if let [(func, group)] = groups[..] {
            return self.call(w, pc, lanes, group, func, rets, args);
        }
        self.warps[w].materialize();
        for (func, group) in groups {
            self.call(w, pc, group, group, func, rets, args)?;
        }
        self.warps[w].jump(pc, lanes & !active, pc + 1);
        Ok(())
    }

    fn slot_bytes(&mut self, w: usize, lane: u32, slot: Slot) -> Result<Vec<u8>, String> {
        let thread = (self.warps[w].base + lane) as usize;
        Ok(match slot {
            Slot::Reg(r) => {
                let bytes = self.prog.regs[r as usize].ty.bytes().min(8);
                self.warps[w].regs[r as usize * 32 + lane as usize].to_le_bytes()[..bytes].to_vec()
            }
            Slot::Imm(v) => v.to_le_bytes().to_vec(),
            Slot::Param { addr, size } => self
                .mem
                .slice(thread, crate::ir::Space::Param, addr, size as usize, 1)?
                .to_vec(),
        })
    }

    fn set_slot(&mut self, w: usize, lane: u32, slot: Slot, bytes: &[u8]) -> Result<(), String> {
        let thread = (self.warps[w].base + lane) as usize;
        match slot {
            Slot::Reg(r) => {
                let mut buf = [0u8; 8];
                let n = bytes.len().min(8);
                buf[..n].copy_from_slice(&bytes[..n]);
                let bits = self.prog.regs[r as usize].bits();
                self.warps[w].regs[r as usize * 32 + lane as usize] =
                    u64::from_le_bytes(buf) & mask(bits);
            }
            Slot::Imm(_) => {}
            Slot::Param { addr, size } => {
                let area =
                    self.mem
                        .slice(thread, crate::ir::Space::Param, addr, size as usize, 1)?;
                let n = area.len().min(bytes.len());
                area[..n].copy_from_slice(&bytes[..n]);
            }
        }
        Ok(())
    }

    fn exec(&mut self, w: usize, inst: &'p Inst, active: u32) -> Result<(), Fault> {
        match &inst.op {
            Op::Int(op) => crate::int::exec(self, w, inst, op, active),
            Op::Float(op) => crate::float::exec(self, w, inst, op, active),
            Op::Cvt(op) => crate::cvt::exec(self, w, inst, op, active),
            Op::Pack(op) => crate::pack::exec(self, w, inst, op, active),
            Op::ScalarVideo(op) => crate::video::exec_scalar(self, w, inst, op, active),
            Op::Mem(op) => crate::mem::exec(self, w, inst, op, active),
            Op::Warp(op) => crate::warp::exec(self, w, inst, op, active),
            Op::Tensor(op) => crate::tensor::exec(self, w, inst, op, active),
            Op::Wmma(op) => crate::wmma::exec(self, w, inst, op, active),
            Op::Matrix(op) => crate::matrix::exec(self, w, inst, op, active),
            Op::Wgmma(op) => crate::warpgroup::exec(self, w, inst, op, active),
            Op::Async(op) => crate::asynccopy::exec(self, w, inst, op, active),
            Op::Bulk(op) => crate::bulk::exec(self, w, inst, op, active),
            Op::Tma(op) => crate::tma::exec(self, w, inst, op, active),
            Op::Cluster(op) => crate::cluster::exec(self, w, inst, op, active),
            Op::Video(op) => crate::video::exec(self, w, inst, op, active),
            Op::MovVector => {
                let sources = Src::elements(inst.src.first());
                let targets = Dst::elements(inst.dst.first());
                if sources.len() != targets.len() {
                    return Err(Fault::new(format!(
                        "mov of {} elements into {}",
                        sources.len(),
                        targets.len()
                    )));
                }
                let values: Vec<Lanes> = sources.iter().map(|s| self.read(w, s)).collect();
                for (dst, value) in targets.iter().zip(&values) {
                    self.write(w, dst, value, active);
                }
                Ok(())
            }
            Op::Nop => Ok(()),
            Op::Unsupported(message) => Err(Fault::new(message.clone())),
            Op::Bra
            | Op::Exit
            | Op::Ret
            | Op::Call { .. }
            | Op::CallIndirect { .. }
            | Op::Barrier(_) => Ok(()),
        }
    }

    // ---------------------------------------------------------------- operand access

    /// The linear thread index (in the CTA) of `lane`.
    pub fn thread(&self, w: usize, lane: u32) -> usize {
        (self.warps[w].base + lane) as usize
    }

    pub fn special(&self, w: usize, lane: u32, special: Special) -> u64 {
        let linear = self.warps[w].base + lane;
        let [nx, ny, _] = self.launch.ntid;
        let tid = [linear % nx, linear / nx % ny, linear / (nx * ny)];
        u64::from(match special {
            Special::Tid(d) => tid[d as usize],
            Special::Ntid(d) => self.launch.ntid[d as usize],
            Special::Ctaid(d) => self.launch.ctaid[d as usize],
            Special::Nctaid(d) => self.launch.nctaid[d as usize],
            Special::Laneid => lane,
            Special::Warpid => w as u32,
            Special::Nwarpid => self.warps.len() as u32,
            Special::LanemaskEq => 1 << lane,
            Special::LanemaskLe => (mask(lane + 1)) as u32,
            Special::LanemaskLt => (mask(lane)) as u32,
            Special::LanemaskGe => !(mask(lane) as u32),
            Special::LanemaskGt => !(mask(lane + 1) as u32),
            Special::Clock => self.clock as u32,
            Special::Clock64 | Special::GlobalTimer => return self.clock,
            Special::DynamicSmemSize => self.launch.dynamic_smem,
            // Static and dynamic, in the 128-byte allocation units of sm_8x
            // and sm_9x; the aggregate adds the 1 KiB an sm_8x/sm_9x GPU
            // reserves per CTA (spec §10.30–10.31; not yet checked on a GPU).
            Special::TotalSmemSize => (self.prog.shared_size as u32)
                .saturating_add(self.launch.dynamic_smem)
                .div_ceil(128)
                .saturating_mul(128),
            Special::AggrSmemSize => (self.prog.shared_size as u32)
                .saturating_add(self.launch.dynamic_smem)
                .div_ceil(128)
                .saturating_mul(128)
                .saturating_add(1024),
            Special::Smid | Special::Gridid | Special::Zero => 0,
            Special::Nsmid => 1,
            Special::ClusterCtaid(d) => {
                self.launch.ctaid[d as usize] % self.launch.cluster[d as usize]
            }
            Special::ClusterNctaid(d) => self.launch.cluster[d as usize],
            Special::ClusterCtarank => self.rank,
            Special::ClusterNctarank => self.launch.cluster.iter().product(),
            Special::Clusterid(d) => {
                self.launch.ctaid[d as usize] / self.launch.cluster[d as usize]
            }
            Special::Nclusterid(d) => {
                self.launch.nctaid[d as usize] / self.launch.cluster[d as usize]
            }
            Special::IsExplicitCluster => u32::from(self.launch.explicit_cluster),
        })
    }

    /// One lane's value of a scalar source.
    pub fn read_lane(&self, w: usize, src: &Src, lane: u32) -> u64 {
        match src {
            Src::Reg(r) => self.warps[w].regs[*r as usize * 32 + lane as usize],
            Src::NotReg(r) => {
                u64::from(self.warps[w].regs[*r as usize * 32 + lane as usize] & 1 == 0)
            }
            Src::Imm(v) => *v,
            Src::Special(s) => self.special(w, lane, *s),
            Src::Target(t) => u64::from(*t),
            Src::Addr(a) => {
                let base = a
                    .base
                    .map_or(0, |r| self.warps[w].regs[r as usize * 32 + lane as usize]);
                base.wrapping_add(a.offset as u64)
            }
            Src::Vector(items) => items.first().map_or(0, |s| self.read_lane(w, s, lane)),
            Src::Sink => 0,
        }
    }

    /// A scalar source for every lane.
    pub fn read(&self, w: usize, src: &Src) -> Lanes {
        match src {
            Src::Reg(r) => {
                let mut out = [0u64; 32];
                out.copy_from_slice(&self.warps[w].regs[*r as usize * 32..*r as usize * 32 + 32]);
                out
            }
            Src::Imm(v) => [*v; 32],
            _ => std::array::from_fn(|lane| self.read_lane(w, src, lane as u32)),
        }
    }

    /// Source `index` of `inst` for every lane (zero when missing).
    pub fn src(&self, w: usize, inst: &Inst, index: usize) -> Lanes {
        match inst.src.get(index) {
            Some(src) => self.read(w, src),
            None => [0; 32],
        }
    }

    /// Writes `values` into a destination register for `lanes`, truncated
    /// to the register's width.
    pub fn write(&mut self, w: usize, dst: &Dst, values: &Lanes, lanes: u32) {
        let Dst::Reg(r) = dst else {
            if let Dst::Vector(items) = dst {
                if let Some(first) = items.first() {
                    self.write(w, first, values, lanes);
                }
            }
            return;
        };
        let bits = self.prog.regs[*r as usize].bits();
        let m = mask(bits);
        let regs = &mut self.warps[w].regs[*r as usize * 32..*r as usize * 32 + 32];
        if lanes == u32::MAX {
            for (slot, value) in regs.iter_mut().zip(values) {
                *slot = value & m;
            }
        } else {
            let mut rest = lanes;
            while rest != 0 {
                let lane = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                regs[lane] = values[lane] & m;
            }
        }
    }

    /// Writes a value of type `ty` to a possibly wider register, sign- or
    /// zero-extending as the type says.
    pub fn write_typed(&mut self, w: usize, dst: &Dst, values: &Lanes, lanes: u32, ty: Ty) {
        let bits = ty.bits().min(64);
        if let Dst::Reg(r) = dst {
            let reg_bits = self.prog.regs[*r as usize].bits();
            if reg_bits > bits {
                let extended: Lanes = std::array::from_fn(|l| {
                    if ty.is_signed() {
                        sext(values[l], bits) as u64
                    } else {
                        values[l] & mask(bits)
                    }
                });
                return self.write(w, dst, &extended, lanes);
            }
        }
        self.write(w, dst, values, lanes)
    }

    /// Writes destination `index` of `inst`.
    pub fn dst(&mut self, w: usize, inst: &Inst, index: usize, values: &Lanes, lanes: u32) {
        if let Some(dst) = inst.dst.get(index) {
            self.write(w, dst, values, lanes);
        }
    }
}

/// Iterates the set lanes of a mask.
pub fn lanes(mask: u32) -> impl Iterator<Item = u32> {
    let mut rest = mask;
    std::iter::from_fn(move || {
        if rest == 0 {
            None
        } else {
            let lane = rest.trailing_zeros();
            rest &= rest - 1;
            Some(lane)
        }
    })
}

/// Thread indices as ranges: `0-31, 40, 64-95`.
fn ranges(threads: &[u32]) -> String {
    let mut sorted = threads.to_vec();
    sorted.sort_unstable();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(", ")
}
