//! Warpgroup matrix multiply-accumulate: `wgmma.fence`, `commit_group`,
//! `wait_group` and `wgmma.mma_async` (sm_90a).
//!
//! A warpgroup is four consecutive warps (threads 128g .. 128g + 127). Each
//! warp issues `mma_async` on its own; the interpreter keeps the warp's part
//! (its A fragment, accumulator registers and descriptors, read at issue)
//! and performs the operation when the fourth warp of the group issues it,
//! writing every warp's D registers. `commit_group` closes a warp's open
//! operations into a group; `wait_group N` holds the warp (its program
//! counter stays, the other warps run) until at most N of its groups have
//! operations still missing a warp, and faults when a missing warp can no
//! longer issue (it has exited, or the CTA has no such warp).
//!
//! Matrices in shared memory are read through the 64-bit matrix descriptors
//! (start address, leading and stride byte offsets, base offset, swizzle
//! mode), in the canonical K-major and MN-major layouts of the spec, with the
//! swizzle applied to the shared-memory address: bits 4.. of the address are
//! XORed with the 128-byte row number less the base offset
//! (`fixtures/wgmma_kernels.jsonl.zz`, the `start_row*` cases, show the base
//! offset subtracted). Register fragments and the accumulator follow the
//! spec's figures: warp `i` of the group holds rows 16i .. 16i + 15 in the
//! layout of the warp-level `mma` of the same K.

use std::collections::HashMap;

use crate::engine::{Fault, Lanes, Machine};
use crate::ir::{Dst, Inst, Quals, Space, Src, Ty};
use crate::Op;

#[derive(Debug, Clone)]
pub enum WgmmaOp {
    Fence,
    Commit,
    Wait(u64),
    Mma(Box<Mma>),
}

#[derive(Debug, Clone)]
pub struct Mma {
    pub n: usize,
    pub k: usize,
    pub d: Ty,
    pub a: Ty,
    pub b: Ty,
    /// A from registers (else from a descriptor).
    pub a_regs: bool,
    pub satfinite: bool,
    /// `.b1` with `.and.popc`.
    pub b1: bool,
    pub negate_a: bool,
    pub negate_b: bool,
    /// MN-major A / B (`imm-trans-a`/`imm-trans-b` = 1).
    pub trans_a: bool,
    pub trans_b: bool,
    /// `.sp`: A is sparse, packed to 64 × K/2 with a metadata register;
    /// the sparsity selector.
    pub sparse: Option<u32>,
}

/// Per-CTA state of the asynchronous operations.
#[derive(Debug, Default, Clone)]
pub struct State {
    /// `mma_async` instructions each warp has issued.
    issued: Vec<u64>,
    /// Per warp: operations issued since its last `commit_group`.
    open: Vec<Vec<u64>>,
    /// Per warp: committed groups, oldest first (sequence numbers).
    groups: Vec<Vec<Vec<u64>>>,
    /// Operations still missing a warp: (warpgroup, sequence number).
    pending: HashMap<(usize, u64), Pending>,
    /// Per warp: accumulator registers of operations issued since its last
    /// `commit_group`.
    open_acc: Vec<Vec<Accumulators>>,
    /// Per warp: those of its committed groups no `wait_group` covered yet.
    groups_acc: Vec<Vec<Vec<Accumulators>>>,
    /// Whether any warp has accumulators in flight (the engine then checks
    /// every instruction's registers against them).
    pub watching: bool,
}

/// The D registers of one `mma_async` and the byte offset of the instruction.
type Accumulators = (Vec<u32>, usize);

#[derive(Debug, Clone, Default)]
struct Pending {
    parts: [Option<Part>; 4],
}

#[derive(Debug, Clone)]
struct Part {
    a: Vec<Lanes>,
    d: Vec<Lanes>,
    /// The sparsity metadata register of `.sp` (per lane).
    meta: Lanes,
    desc_a: u64,
    desc_b: u64,
    scale_d: bool,
}

/// Single-bit elements (`.b1`): the interpreter's types have no `b1`, the
/// one-bit predicate type stands for it here.
pub const B1: Ty = Ty::Pred;

fn shape(q: &Quals) -> Option<(usize, usize)> {
    q.words.iter().find_map(|w| {
        let rest = w.strip_prefix("m64n")?;
        let (n, k) = rest.split_once('k')?;
        Some((n.parse().ok()?, k.parse().ok()?))
    })
}

fn imm(src: Option<&Src>) -> Option<i64> {
    match src {
        Some(Src::Imm(v)) => Some(*v as i64),
        _ => None,
    }
}

pub fn decode(m: &str, q: &Quals, src: &[Src]) -> Option<Result<Op, String>> {
    if m != "wgmma" {
        return None;
    }
    let op = if q.has("fence") {
        WgmmaOp::Fence
    } else if q.has("commit_group") {
        WgmmaOp::Commit
    } else if q.has("wait_group") {
        match src.first() {
            Some(Src::Imm(n)) => WgmmaOp::Wait(*n),
            _ => return Some(Err("wgmma.wait_group needs an immediate count".into())),
        }
    } else if q.has("mma_async") {
        match decode_mma(q, src) {
            Ok(mma) => WgmmaOp::Mma(Box::new(mma)),
            Err(message) => return Some(Err(message)),
        }
    } else {
        return Some(Err("this wgmma operation is not supported".into()));
    };
    Some(Ok(Op::Wgmma(op)))
}

fn decode_mma(q: &Quals, src: &[Src]) -> Result<Mma, String> {
    let sparse = q.has("sp");
    let Some((n, k)) = shape(q) else {
        return Err("wgmma.mma_async needs a .m64nNkK shape".into());
    };
    let b1 = q.words.iter().any(|w| w == "b1");
    let [d, a, b] = match q.types.as_slice() {
        [d, ..] if b1 => [*d, B1, B1],
        [d, a, b, ..] => [*d, *a, *b],
        _ => return Err("wgmma.mma_async needs .dtype.atype.btype".into()),
    };
    let want_k = match a {
        Ty::F16 | Ty::Bf16 => 16,
        Ty::Tf32 => 8,
        Ty::E4m3 | Ty::E5m2 | Ty::S8 | Ty::U8 => 32,
        B1 if sparse => return Err("wgmma.mma_async.sp has no .b1 form".into()),
        B1 => 256,
        _ => {
            return Err(format!(
                "wgmma.mma_async: .{} inputs are not supported",
                a.name()
            ))
        }
    };
    let types_ok = match a {
        Ty::F16 => b == a && matches!(d, Ty::F16 | Ty::F32),
        Ty::Bf16 | Ty::Tf32 => b == a && d == Ty::F32,
        Ty::E4m3 | Ty::E5m2 => matches!(b, Ty::E4m3 | Ty::E5m2) && matches!(d, Ty::F16 | Ty::F32),
        Ty::S8 | Ty::U8 => matches!(b, Ty::S8 | Ty::U8) && d == Ty::S32,
        _ => d == Ty::S32,
    };
    if !types_ok {
        return Err(format!(
            "wgmma.mma_async: .{}.{}.{} is not a valid type combination",
            d.name(),
            a.name(),
            b.name()
        ));
    }
    // A sparse A packs twice the K of the dense shape.
    let want_k = if sparse { 2 * want_k } else { want_k };
    if k != want_k || n == 0 || n > 256 || !n.is_multiple_of(8) {
        return Err(format!(
            "wgmma.mma_async: .m64n{n}k{k} is not a shape for .{}",
            a.name()
        ));
    }
    if b1 && !(q.has("and") && q.has("popc")) {
        return Err("wgmma.mma_async with .b1 needs .and.popc".into());
    }
    let a_regs = matches!(src.first(), Some(Src::Vector(_)));
    let float = matches!(d, Ty::F16 | Ty::F32);
    // d, a, b-desc, (sp-meta, sp-sel,) scale-d, then the immediates of the form.
    let selector = if sparse {
        let Some(sel) = imm(src.get(3)) else {
            return Err(
                "wgmma.mma_async.sp: expects a, b-desc, sp-meta, an immediate sp-sel and scale-d"
                    .into(),
            );
        };
        // 16- and 32-bit types take their metadata from a pair of threads of
        // each four (0: T0/T1, 1: T2/T3); 8-bit types from all threads.
        let most = if matches!(a, Ty::F16 | Ty::Bf16 | Ty::Tf32) {
            1
        } else {
            0
        };
        if !(0..=most).contains(&sel) {
            return Err(format!(
                "wgmma.mma_async.sp: sp-sel {sel} is undefined for .{} (0{})",
                a.name(),
                if most == 1 { " or 1" } else { " only" }
            ));
        }
        Some(sel as u32)
    } else {
        None
    };
    let fixed = if sparse { 5 } else { 3 };
    let imms = &src[fixed.min(src.len())..];
    let scale = |i: usize| imm(imms.get(i)).unwrap_or(1);
    let (negate_a, negate_b, trans_a, trans_b) = if float {
        let transposable = matches!(a, Ty::F16 | Ty::Bf16);
        let want = 2 + if transposable {
            2 - usize::from(a_regs)
        } else {
            0
        };
        if imms.len() != want || imms.iter().any(|s| !matches!(s, Src::Imm(_))) {
            return Err(format!(
                "wgmma.mma_async: expects {want} immediates after scale-d, found {}",
                imms.len()
            ));
        }
        for i in 0..2 {
            if !matches!(scale(i), 1 | -1) {
                return Err("wgmma.mma_async: imm-scale-a/b must be 1 or -1".into());
            }
        }
        let trans = |i: usize| -> Result<bool, String> {
            match imm(imms.get(i)) {
                Some(0) | None => Ok(false),
                Some(1) => Ok(true),
                Some(_) => Err("wgmma.mma_async: imm-trans-a/b must be 0 or 1".into()),
            }
        };
        let (ta, tb) = if !transposable {
            (false, false)
        } else if a_regs {
            (false, trans(2)?)
        } else {
            (trans(2)?, trans(3)?)
        };
        (scale(0) == -1, scale(1) == -1, ta, tb)
    } else {
        if !imms.is_empty() {
            return Err("wgmma.mma_async: integer forms take only scale-d".into());
        }
        (false, false, false, false)
    };
    if src.len() < fixed {
        return Err("wgmma.mma_async needs a, b-desc and scale-d".into());
    }
    Ok(Mma {
        n,
        k,
        d,
        a,
        b,
        a_regs,
        satfinite: q.has("satfinite"),
        b1,
        negate_a,
        negate_b,
        trans_a,
        trans_b,
        sparse: selector,
    })
}

fn size_warps(state: &mut State, warps: usize) {
    if state.issued.len() < warps {
        state.issued.resize(warps, 0);
        state.open.resize(warps, Vec::new());
        state.groups.resize(warps, Vec::new());
        state.open_acc.resize(warps, Vec::new());
        state.groups_acc.resize(warps, Vec::new());
    }
}

/// Executes `fence`, `commit_group` and `mma_async`; `wait_group` is
/// [`ready`]'s.
pub fn exec(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    op: &WgmmaOp,
    active: u32,
) -> Result<(), Fault> {
    let warps = m.warps.len();
    size_warps(&mut m.wgmma, warps);
    match op {
        WgmmaOp::Fence | WgmmaOp::Wait(_) => Ok(()),
        WgmmaOp::Commit => {
            let open = std::mem::take(&mut m.wgmma.open[w]);
            m.wgmma.groups[w].push(open);
            let acc = std::mem::take(&mut m.wgmma.open_acc[w]);
            m.wgmma.groups_acc[w].push(acc);
            Ok(())
        }
        WgmmaOp::Mma(mma) => issue(m, w, inst, mma, active),
    }
}

fn read_dst(m: &Machine<'_>, w: usize, dst: &Dst) -> Lanes {
    let mut out = [0u64; 32];
    if let Dst::Reg(r) = dst {
        out.copy_from_slice(&m.warps[w].regs[*r as usize * 32..*r as usize * 32 + 32]);
    }
    out
}

fn d_registers(mma: &Mma) -> usize {
    if mma.d == Ty::F16 {
        mma.n / 4
    } else {
        mma.n / 2
    }
}

fn issue(m: &mut Machine<'_>, w: usize, inst: &Inst, mma: &Mma, active: u32) -> Result<(), Fault> {
    if active != u32::MAX {
        return Err(Fault::new(format!(
            "wgmma.mma_async needs all 32 lanes of the warp (only {} are active)",
            active.count_ones()
        )));
    }
    let group = w / 4;
    if m.warps.len() < 4 * group + 4
        || m.warps[4 * group..4 * group + 4]
            .iter()
            .any(|x| x.valid != u32::MAX)
    {
        return Err(Fault::new(
            "wgmma.mma_async needs a whole warpgroup (four full warps, 128 threads)",
        ));
    }
    let d_parts = Dst::elements(inst.dst.first());
    if d_parts.len() != d_registers(mma) {
        return Err(Fault::new(format!(
            "wgmma.mma_async: the D fragment needs {} registers, found {}",
            d_registers(mma),
            d_parts.len()
        )));
    }
    let a = if mma.a_regs {
        let parts = Src::elements(inst.src.first());
        if parts.len() != 4 {
            return Err(Fault::new(format!(
                "wgmma.mma_async: the A fragment needs 4 registers, found {}",
                parts.len()
            )));
        }
        parts.iter().map(|p| m.read(w, p)).collect()
    } else {
        Vec::new()
    };
    let scale_at = if mma.sparse.is_some() { 4 } else { 2 };
    let part = Part {
        a,
        d: d_parts.iter().map(|p| read_dst(m, w, p)).collect(),
        meta: if mma.sparse.is_some() {
            m.read(w, &inst.src[2])
        } else {
            [0; 32]
        },
        desc_a: if mma.a_regs {
            0
        } else {
            m.read_lane(w, &inst.src[0], 0)
        },
        desc_b: m.read_lane(w, &inst.src[1], 0),
        scale_d: m.read_lane(w, &inst.src[scale_at], 0) & 1 == 1,
    };
    let regs: Vec<u32> = d_parts
        .iter()
        .filter_map(|d| match d {
            Dst::Reg(r) => Some(*r),
            _ => None,
        })
        .collect();
    m.wgmma.open_acc[w].push((regs, inst.range.start));
    m.wgmma.watching = true;
    let seq = m.wgmma.issued[w];
    m.wgmma.issued[w] += 1;
    m.wgmma.open[w].push(seq);
    let pending = m.wgmma.pending.entry((group, seq)).or_default();
    pending.parts[w % 4] = Some(part);
    if pending.parts.iter().all(Option::is_some) {
        let Some(pending) = m.wgmma.pending.remove(&(group, seq)) else {
            return Ok(());
        };
        let parts: Vec<Part> = pending.parts.into_iter().flatten().collect();
        let result = compute(m, w, mma, &parts)?;
        for (i, values) in result.iter().enumerate() {
            for (r, dst) in d_parts.iter().enumerate() {
                m.write(4 * group + i, dst, &values[r], u32::MAX);
            }
        }
    }
    Ok(())
}

/// The dense column (of K) of each packed element of a sparse A, row by row.
/// Measured on the GPU (`wgmma_sp_kernels`'s
/// probes, an identity B): row `r` of a warp's 16 (`g = r % 8`, `hi = r /
/// 8`) takes chunk `j`'s indices from a 4-bit group of the metadata of one
/// lane of the warp. For 16-bit types (chunks of four elements, packed
/// elements 2j and 2j+1) and tf32 (chunks of two, packed element j, the
/// group holding 2-bit positions of 16-bit halves: 0b0100 is the first
/// element, 0b1110 the second), lane `4g + 2·selector + j / 4`, group
/// `j % 4 + 4·hi`; for 8-bit types (chunks of four, 16 per row), lane
/// `4g + hi + 2·(j / 8)`, group `j % 8`. The low two bits of a group place
/// the first packed element, the high two the second.
fn sparse_positions(
    ty: Ty,
    selector: u32,
    parts: &[Part],
    k: usize,
) -> Result<Vec<Vec<usize>>, Fault> {
    let eight_bit = !matches!(ty, Ty::F16 | Ty::Bf16 | Ty::Tf32);
    let mut out = vec![vec![0usize; k / 2]; 64];
    for (row, line) in out.iter_mut().enumerate() {
        let (g, hi) = (row % 16 % 8, row % 16 / 8);
        let meta = &parts[row / 16].meta;
        let chunks = if ty == Ty::Tf32 { k / 2 } else { k / 4 };
        for j in 0..chunks {
            let (lane, group) = if eight_bit {
                (4 * g + hi + 2 * (j / 8), j % 8)
            } else {
                (4 * g + 2 * selector as usize + j / 4, j % 4 + 4 * hi)
            };
            let nibble = meta[lane] >> (4 * group) & 15;
            let (i0, i1) = ((nibble & 3) as usize, (nibble >> 2) as usize);
            let row_number = row;
            let bad = |what: &str| {
                Fault::new(format!(
                    "wgmma.mma_async.sp: metadata {:#x} of lane {lane} (warp {} of the warpgroup) \
                     gives {what} for row {row_number}, chunk {j}; the result is undefined",
                    meta[lane] & 0xffff_ffff,
                    row / 16
                ))
            };
            if ty == Ty::Tf32 {
                let position = match nibble {
                    0b0100 => 0,
                    0b1110 => 1,
                    _ => {
                        return Err(bad(&format!(
                            "{nibble:#06b} (only 0b0100 and 0b1110 are defined)"
                        )))
                    }
                };
                line[j] = 2 * j + position;
            } else {
                if i0 == i1 {
                    return Err(bad(&format!("the same position twice ({nibble:#06b})")));
                }
                line[2 * j] = 4 * j + i0;
                line[2 * j + 1] = 4 * j + i1;
            }
        }
    }
    Ok(out)
}

/// Warp `w` passed `wgmma.wait_group n`: the accumulators of all but its
/// newest `n` committed groups may be read.
pub fn covered(m: &mut Machine<'_>, w: usize, n: u64) {
    let state = &mut m.wgmma;
    if let Some(groups) = state.groups_acc.get_mut(w) {
        let keep = (n as usize).min(groups.len());
        groups.drain(..groups.len() - keep);
    }
    state.watching = state.groups_acc.iter().flatten().any(|g| !g.is_empty())
        || state.open_acc.iter().any(|o| !o.is_empty());
}

/// Faults when `inst` (not itself a `wgmma.mma_async`) reads or writes an
/// accumulator register of an `mma_async` that no `wait_group` covered yet:
/// the GPU's value is undefined until then.
pub fn check_accumulators(m: &Machine<'_>, w: usize, inst: &Inst) -> Result<(), Fault> {
    if matches!(inst.op, crate::Op::Wgmma(WgmmaOp::Mma(_))) {
        return Ok(());
    }
    let state = &m.wgmma;
    let inflight = state
        .open_acc
        .get(w)
        .into_iter()
        .chain(state.groups_acc.get(w).into_iter().flatten())
        .flatten();
    let mut used = Vec::new();
    for src in &inst.src {
        src_regs(src, &mut used);
    }
    for dst in &inst.dst {
        for d in Dst::elements(Some(dst)) {
            if let Dst::Reg(r) = d {
                used.push(r);
            }
        }
    }
    if used.is_empty() {
        return Ok(());
    }
    for (regs, at) in inflight {
        if let Some(r) = used.iter().find(|r| regs.contains(r)) {
            let line = m.prog.line_starts.partition_point(|&s| s <= *at).max(1);
            return Err(Fault::new(format!(
                "`{}` is an accumulator of the wgmma.mma_async on line {line}, used before a \
                 wgmma.wait_group covers it (the GPU's value is undefined until then)",
                m.prog.regs[*r as usize].name
            )));
        }
    }
    Ok(())
}

fn src_regs(src: &Src, out: &mut Vec<u32>) {
    match src {
        Src::Reg(r) | Src::NotReg(r) => out.push(*r),
        Src::Addr(a) => out.extend(a.base),
        Src::Vector(items) => items.iter().for_each(|i| src_regs(i, out)),
        _ => {}
    }
}

/// Whether warp `w` must wait before issuing another `wgmma.mma_async`: an
/// operation it issued still misses another warp of its warpgroup. The
/// tensor core runs a warpgroup's operations in order, so a chained
/// operation reads the accumulator the earlier one writes; here that one is
/// computed when its last warp issues it, so the warp waits for that first.
pub fn behind(m: &Machine<'_>, w: usize) -> Result<bool, Fault> {
    let group = w / 4;
    for ((g, _), pending) in &m.wgmma.pending {
        if *g != group || pending.parts[w % 4].is_none() {
            continue;
        }
        for (i, part) in pending.parts.iter().enumerate() {
            let peer = 4 * group + i;
            let gone = m.warps.get(peer).is_none_or(|x| x.valid & !x.exited == 0);
            if part.is_none() && gone {
                return Err(Fault::new(format!(
                    "wgmma.mma_async: warp {peer} of the warpgroup exited without issuing \
                     the wgmma.mma_async this warp issued before"
                )));
            }
        }
        return Ok(true);
    }
    Ok(false)
}

/// Whether warp `w` may pass `wgmma.wait_group n`: at most `n` of its
/// committed groups hold an operation that a warp of its group has not
/// issued yet. Faults when such a warp can no longer issue it.
pub fn ready(m: &mut Machine<'_>, w: usize, n: u64) -> Result<bool, Fault> {
    let warps = m.warps.len();
    size_warps(&mut m.wgmma, warps);
    let group = w / 4;
    let state = &mut m.wgmma;
    state.groups[w].retain(|ops| {
        ops.iter()
            .any(|seq| state.pending.contains_key(&(group, *seq)))
    });
    if state.groups[w].len() as u64 <= n {
        return Ok(true);
    }
    for ops in &state.groups[w] {
        for seq in ops {
            if let Some(p) = state.pending.get(&(group, *seq)) {
                for (i, part) in p.parts.iter().enumerate() {
                    let peer = 4 * group + i;
                    let gone = m.warps.get(peer).is_none_or(|x| x.valid & !x.exited == 0);
                    if part.is_none() && gone {
                        return Err(Fault::new(format!(
                            "wgmma.wait_group: warp {peer} of the warpgroup exited without issuing \
                             the wgmma.mma_async this warp waits for"
                        )));
                    }
                }
            }
        }
    }
    Ok(false)
}

/// Bytes per element of a multiplicand (0 for `.b1`).
fn element_bytes(ty: Ty) -> u64 {
    match ty {
        Ty::F16 | Ty::Bf16 => 2,
        Ty::Tf32 => 4,
        B1 => 0,
        _ => 1,
    }
}

/// A decoded matrix descriptor.
#[derive(Debug, Clone, Copy)]
struct Descriptor {
    start: u64,
    leading: u64,
    stride: u64,
    base: u64,
    /// Swizzle width in bytes (0: none).
    swizzle: u64,
}

impl Descriptor {
    fn new(bits: u64) -> Descriptor {
        Descriptor {
            start: (bits & 0x3fff) << 4,
            leading: (bits >> 16 & 0x3fff) << 4,
            stride: (bits >> 32 & 0x3fff) << 4,
            base: bits >> 49 & 7,
            swizzle: match bits >> 62 {
                1 => 128,
                2 => 64,
                3 => 32,
                _ => 0,
            },
        }
    }

    /// The shared-memory address of element (`mn`, `k`) of a matrix whose
    /// elements are `size` bytes (0: single bits, eight to a byte; `k` is
    /// then a multiple of 8), K-major or MN-major.
    fn address(&self, mn: u64, k: u64, size: u64, mn_major: bool) -> u64 {
        // Elements in 16 bytes (single bits: 128).
        let per16 = 16u64.checked_div(size).unwrap_or(128);
        let offset = if !mn_major {
            let kb = if size == 0 { k / 8 } else { k * size };
            if self.swizzle == 0 {
                (mn % 8) * 16 + (mn / 8) * self.stride + kb % 16 + (kb / 16) * self.leading
            } else {
                (mn % 8) * self.swizzle + (mn / 8) * self.stride + kb
            }
        } else if self.swizzle == 0 {
            (mn % per16) * size + (mn / per16) * self.stride + (k % 8) * 16 + (k / 8) * self.leading
        } else {
            let s = self.swizzle / 16;
            (mn % per16) * size
                + (mn / per16 % s) * 16
                + (mn / (per16 * s)) * self.leading
                + (k % 8) * self.swizzle
                + (k / 8) * self.stride
        };
        let addr = self.start + offset;
        if self.swizzle == 0 {
            return addr;
        }
        let mask = self.swizzle / 16 - 1;
        let row = (addr >> 7).wrapping_sub(self.base) & mask;
        addr ^ row << 4
    }
}

/// Reads an operand (rows × cols of element bits, `mn` first) from shared memory.
fn load_matrix(
    m: &mut Machine<'_>,
    w: usize,
    bits: u64,
    mn: usize,
    k: usize,
    ty: Ty,
    mn_major: bool,
) -> Result<Vec<Vec<u64>>, Fault> {
    let mut desc = Descriptor::new(bits);
    // A descriptor holds 18 address bits. The interpreter's dynamic shared
    // memory starts at DYNAMIC_SHARED_BASE (a multiple of 2^18), so its
    // offsets are what a descriptor built from its addresses keeps: an
    // address past the static shared memory is in the dynamic one.
    if desc.start >= m.prog.shared_size as u64 && !m.mem.dynamic_shared.is_empty() {
        desc.start += crate::memory::DYNAMIC_SHARED_BASE;
    }
    let size = element_bytes(ty);
    let thread = m.thread(w, 0);
    let mut out = vec![vec![0u64; k]; mn];
    for (x, row) in out.iter_mut().enumerate() {
        if size == 0 {
            for byte in 0..k / 8 {
                let addr = desc.address(x as u64, 8 * byte as u64, 0, false);
                let v = m.mem.load(thread, Space::Shared, addr, 1).map_err(|e| {
                    Fault::new(format!("wgmma.mma_async: descriptor {bits:#018x}: {e}"))
                })?;
                for j in 0..8 {
                    row[8 * byte + j] = v >> j & 1;
                }
            }
            continue;
        }
        for (y, slot) in row.iter_mut().enumerate() {
            let addr = desc.address(x as u64, y as u64, size, mn_major);
            *slot = m
                .mem
                .load(thread, Space::Shared, addr, size as usize)
                .map_err(|e| {
                    Fault::new(format!("wgmma.mma_async: descriptor {bits:#018x}: {e}"))
                })?;
        }
    }
    Ok(out)
}

/// (register, position) of A element (row r of the warp's 16, column `k`)
/// in a lane's fragment, with the lane.
fn a_holder(ty: Ty, r: usize, k: usize) -> (usize, usize, usize) {
    let (g, hi) = (r % 8, r / 8);
    match ty {
        Ty::F16 | Ty::Bf16 => (4 * g + (k % 8) / 2, hi + 2 * (k / 8), k % 2),
        Ty::Tf32 => (4 * g + k % 4, hi + 2 * (k / 4), 0),
        B1 => (4 * g + (k % 128) / 32, hi + 2 * (k / 128), k % 32),
        _ => (4 * g + (k % 16) / 4, hi + 2 * (k / 16), k % 4),
    }
}

/// (lane, register, half) of D element (row r of the warp's 16, column n).
fn d_holder(d: Ty, r: usize, n: usize) -> (usize, usize, usize) {
    let (g, hi) = (r % 8, r / 8);
    let (j, c) = (n / 8, n % 8);
    let index = 4 * j + 2 * hi + c % 2;
    let lane = 4 * g + c / 2;
    if d == Ty::F16 {
        (lane, index / 2, index % 2)
    } else {
        (lane, index, 0)
    }
}

fn element_width(ty: Ty) -> usize {
    match ty {
        B1 => 1,
        Ty::F16 | Ty::Bf16 => 16,
        Ty::Tf32 => 32,
        _ => 8,
    }
}

fn sign_bit(ty: Ty) -> u64 {
    1 << (element_width(ty) - 1)
}

/// The whole operation once every warp has issued it: D of each warp.
fn compute(
    m: &mut Machine<'_>,
    w: usize,
    mma: &Mma,
    parts: &[Part],
) -> Result<Vec<Vec<Lanes>>, Fault> {
    let (n, k) = (mma.n, mma.k);
    // A sparse A is packed: 64 × K/2 in the layout of a dense K/2 operand.
    let packed = if mma.sparse.is_some() { k / 2 } else { k };
    let a: Vec<Vec<u64>> = if mma.a_regs {
        let width = element_width(mma.a);
        let mask = crate::ir::mask(width as u32);
        let mut a = vec![vec![0u64; packed]; 64];
        for (row, line) in a.iter_mut().enumerate() {
            let part = &parts[row / 16];
            for (col, slot) in line.iter_mut().enumerate() {
                let (lane, reg, pos) = a_holder(mma.a, row % 16, col);
                *slot = part.a[reg][lane] >> (width * pos) & mask;
            }
        }
        a
    } else {
        load_matrix(m, w, parts[0].desc_a, 64, packed, mma.a, mma.trans_a)?
    };
    // A sparse A: the dense column of each packed element. The tensor core
    // multiplies the packed elements by the B rows they select, one group of
    // K/2 products (measured: summing the zeros' places as a dense K-wide
    // operation would cut differently).
    let positions = match mma.sparse {
        Some(selector) => Some(sparse_positions(mma.a, selector, parts, k)?),
        None => None,
    };
    let b = load_matrix(m, w, parts[0].desc_b, n, k, mma.b, mma.trans_b)?;
    let scale_d = parts[0].scale_d;
    let mut out: Vec<Vec<Lanes>> = vec![vec![[0u64; 32]; d_registers(mma)]; 4];
    let flip_a = if mma.negate_a { sign_bit(mma.a) } else { 0 };
    let flip_b = if mma.negate_b { sign_bit(mma.b) } else { 0 };
    let mut a_row = vec![0u64; packed];
    let mut b_sel = vec![0u64; packed];
    for (row, a_line) in a.iter().enumerate() {
        let part = &parts[row / 16];
        for (slot, &x) in a_row.iter_mut().zip(a_line) {
            *slot = x ^ flip_a;
        }
        for (col, b_line) in b.iter().enumerate() {
            let b_line = match &positions {
                Some(positions) => {
                    for (slot, &at) in b_sel.iter_mut().zip(&positions[row]) {
                        *slot = b_line[at];
                    }
                    &b_sel
                }
                None => b_line,
            };
            let (lane, reg, half) = d_holder(mma.d, row % 16, col);
            let acc = if scale_d {
                part.d[reg][lane] >> (16 * half)
                    & if mma.d == Ty::F16 {
                        0xffff
                    } else {
                        0xffff_ffff
                    }
            } else {
                0
            };
            let value = crate::accumulate::dot(mma, &a_row, b_line, flip_b, acc, scale_d);
            out[row / 16][reg][lane] |= value << (16 * half);
        }
    }
    Ok(out)
}

/// The holders of the elements warp `w` keeps in registers for `op` (its
/// 16 rows of D, and of A when A comes from registers), from the mappings
/// the operation uses (the fragment-layout view of a debug session).
pub(crate) fn fragments(op: &WgmmaOp, w: usize) -> Option<Vec<crate::debug::Fragment>> {
    use crate::debug::{Fragment, Holder, Place};
    let WgmmaOp::Mma(mma) = op else {
        return None;
    };
    let band = 16 * (w % 4);
    let mut out = Vec::new();
    let d_bits = if mma.d == Ty::F16 { 16 } else { 32 };
    let mut holders = Vec::new();
    for r in 0..16 {
        for n in 0..mma.n {
            let (lane, reg, half) = d_holder(mma.d, r, n);
            holders.push(Holder {
                row: r,
                col: n,
                lane: lane as u32,
                reg,
                part: half as u32,
            });
        }
    }
    out.push(Fragment {
        name: format!(
            "D (rows {band}..{} of 64×{}): .{}",
            band + 15,
            mma.n,
            mma.d.name()
        ),
        place: Place::Dst(0),
        rows: 16,
        cols: mma.n,
        ty: mma.d,
        bits: d_bits,
        first_row: band,
        first_col: 0,
        holders,
    });
    if mma.a_regs {
        let bits = element_width(mma.a) as u32;
        // A sparse A's registers hold the packed 64 × K/2 matrix.
        let cols = if mma.sparse.is_some() {
            mma.k / 2
        } else {
            mma.k
        };
        let mut holders = Vec::new();
        for r in 0..16 {
            for k in 0..cols {
                let (lane, reg, pos) = a_holder(mma.a, r, k);
                holders.push(Holder {
                    row: r,
                    col: k,
                    lane: lane as u32,
                    reg,
                    part: pos as u32,
                });
            }
        }
        out.push(Fragment {
            name: format!(
                "A (rows {band}..{} of 64×{}{}): .{}",
                band + 15,
                cols,
                if mma.sparse.is_some() { ", packed" } else { "" },
                mma.a.name()
            ),
            place: Place::Src(0),
            rows: 16,
            cols,
            ty: if bits == 1 { Ty::B8 } else { mma.a },
            bits,
            first_row: band,
            first_col: 0,
            holders,
        });
    }
    Some(out)
}
