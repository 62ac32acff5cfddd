//! Memory instructions: `ld`, `ldu`, `st` (scalars and vectors), `atom` and
//! `red` (every operation and type), `cvta` and `isspacep`.

use crate::engine::{lanes, Fault, Machine};
use crate::float::{scalar, FloatKind, FloatOp};
use crate::ir::{mask, sext, Dst, Inst, Quals, Space, Src, Ty};
use crate::memory::{from_generic, resolve, to_generic};
use crate::softfloat::Rounding;
use crate::{need, Op};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomKind {
    And,
    Or,
    Xor,
    Cas,
    Exch,
    Add,
    Inc,
    Dec,
    Min,
    Max,
}

#[derive(Debug, Clone, Copy)]
pub enum MemOp {
    Ld {
        space: Space,
        ty: Ty,
        vector: u32,
    },
    St {
        space: Space,
        ty: Ty,
        vector: u32,
    },
    Atom {
        space: Space,
        kind: AtomKind,
        ty: Ty,
        /// `red`: no destination.
        reduce: bool,
        ftz: bool,
    },
    Cvta {
        space: Space,
        to_space: bool,
        ty: Ty,
    },
    Isspacep {
        space: Space,
    },
}

pub fn decode(m: &str, q: &Quals, src: &[Src]) -> Option<Result<Op, String>> {
    let space = q.space.unwrap_or(Space::Generic);
    let ty = q.ty().unwrap_or(Ty::B32);
    let op = match m {
        "ld" | "ldu" => {
            if let Err(e) = need(src, 1) {
                return Some(Err(e));
            }
            if ty == Ty::B128 {
                return Some(Err("128-bit loads are not supported".into()));
            }
            MemOp::Ld {
                space,
                ty,
                vector: q.vector,
            }
        }
        "st" => {
            if let Err(e) = need(src, 2) {
                return Some(Err(e));
            }
            if ty == Ty::B128 {
                return Some(Err("128-bit stores are not supported".into()));
            }
            MemOp::St {
                space,
                ty,
                vector: q.vector,
            }
        }
        "atom" | "red" => {
            let kind = [
                ("and", AtomKind::And),
                ("or", AtomKind::Or),
                ("xor", AtomKind::Xor),
                ("cas", AtomKind::Cas),
                ("exch", AtomKind::Exch),
                ("add", AtomKind::Add),
                ("inc", AtomKind::Inc),
                ("dec", AtomKind::Dec),
                ("min", AtomKind::Min),
                ("max", AtomKind::Max),
            ]
            .iter()
            .find(|(w, _)| q.has(w))
            .map(|(_, k)| *k);
            let Some(kind) = kind else {
                return Some(Err(format!("{m} needs an operation")));
            };
            if q.vector > 1 {
                return Some(Err(format!("vector {m} is not supported")));
            }
            let n = if kind == AtomKind::Cas { 3 } else { 2 };
            if let Err(e) = need(src, n) {
                return Some(Err(e));
            }
            MemOp::Atom {
                space,
                kind,
                ty,
                reduce: m == "red",
                // Shared-memory float atomics keep subnormals (GPU fixtures).
                ftz: false,
            }
        }
        "cvta" => {
            if let Err(e) = need(src, 1) {
                return Some(Err(e));
            }
            MemOp::Cvta {
                space,
                to_space: q.has("to"),
                ty,
            }
        }
        "isspacep" => {
            if let Err(e) = need(src, 1) {
                return Some(Err(e));
            }
            MemOp::Isspacep { space }
        }
        _ => return None,
    };
    Some(Ok(Op::Mem(op)))
}

fn elements(dst: Option<&Dst>) -> Vec<Dst> {
    match dst {
        Some(Dst::Vector(items)) => items.clone(),
        Some(other) => vec![other.clone()],
        None => Vec::new(),
    }
}

pub fn exec(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    op: &MemOp,
    active: u32,
) -> Result<(), Fault> {
    match *op {
        MemOp::Ld { space, ty, vector } => {
            let size = ty.bytes();
            let parts = elements(inst.dst.first());
            let mut values = vec![[0u64; 32]; parts.len()];
            for lane in lanes(active) {
                let addr = m.read_lane(w, &inst.src[0], lane);
                let thread = m.thread(w, lane);
                let total = size * vector as usize;
                m.mem.note(thread, space, addr, total, false);
                let bytes = m
                    .mem
                    .slice(thread, space, addr, total, total)
                    .map_err(|e| Fault::at(lane, e))?;
                for (i, value) in values.iter_mut().enumerate() {
                    let mut buf = [0u8; 8];
                    let start = i * size;
                    if start + size <= bytes.len() {
                        buf[..size.min(8)].copy_from_slice(&bytes[start..start + size.min(8)]);
                    }
                    value[lane as usize] = u64::from_le_bytes(buf);
                }
            }
            for (part, value) in parts.iter().zip(&values) {
                m.write_typed(w, part, value, active, ty);
            }
        }
        MemOp::St { space, ty, vector } => {
            let size = ty.bytes();
            let items: Vec<Src> = match &inst.src[1] {
                Src::Vector(items) => items.clone(),
                other => vec![other.clone()],
            };
            let total = size * vector as usize;
            // Every lane's access is checked first, in lane order (a fault
            // names the first lane that makes one).
            let mut stores = Vec::new();
            for lane in lanes(active) {
                let addr = m.read_lane(w, &inst.src[0], lane);
                let thread = m.thread(w, lane);
                let values: Vec<u64> = items.iter().map(|s| m.read_lane(w, s, lane)).collect();
                m.mem.note(thread, space, addr, total, true);
                m.mem
                    .slice(thread, space, addr, total, total)
                    .map_err(|e| Fault::at(lane, e))?;
                stores.push((lane, thread, addr, values));
            }
            // Lanes of a warp that store to one global address: an H100
            // keeps, of the lanes whose stores fall in the last 128-byte
            // span of the warp's (16 lanes of 8 bytes, 32 of 4 or 1), the
            // lowest lane's value (fixtures/real_kernels.jsonl
            // `same_address_store`: bytes and words keep lane 0, 8-byte
            // words lane 16). So the spans write in order, each from its
            // highest lane down. Wider stores were not measured and keep
            // lane order.
            if space == Space::Global && total <= 8 {
                stores.sort_by_key(|&(lane, ..)| {
                    (lane as usize * total / 128, std::cmp::Reverse(lane))
                });
            }
            for (lane, thread, addr, values) in stores {
                let bytes = m
                    .mem
                    .slice(thread, space, addr, total, total)
                    .map_err(|e| Fault::at(lane, e))?;
                for (i, value) in values.iter().enumerate() {
                    let start = i * size;
                    if start + size <= bytes.len() {
                        bytes[start..start + size.min(8)]
                            .copy_from_slice(&value.to_le_bytes()[..size.min(8)]);
                    }
                }
            }
        }
        MemOp::Atom {
            space,
            kind,
            ty,
            reduce,
            ftz,
        } => {
            let size = ty.bytes();
            let mut old = [0u64; 32];
            let looped = cas_loop_lanes(m, w, inst, space, kind, ty, active);
            if looped != 0 {
                cas_loop(m, w, inst, space, (kind, ty, ftz), looped, &mut old)?;
            }
            for lane in lanes(active & !looped) {
                let addr = m.read_lane(w, &inst.src[0], lane);
                let b = m.read_lane(w, &inst.src[1], lane);
                let c = inst.src.get(2).map_or(0, |s| m.read_lane(w, s, lane));
                let thread = m.thread(w, lane);
                let current = m
                    .mem
                    .load(thread, space, addr, size)
                    .map_err(|e| Fault::at(lane, e))?;
                let new = atomic(kind, ty, current, b, c, ftz);
                m.mem
                    .store(thread, space, addr, size, new)
                    .map_err(|e| Fault::at(lane, e))?;
                old[lane as usize] = current;
            }
            if !reduce {
                if let Some(dst) = inst.dst.first() {
                    m.write_typed(w, dst, &old, active, ty);
                }
            }
        }
        MemOp::Cvta {
            space,
            to_space,
            ty,
        } => {
            let a = m.src(w, inst, 0);
            let bits = ty.bits().min(64);
            let d = std::array::from_fn(|l| {
                let v = if to_space {
                    from_generic(space, a[l])
                } else {
                    to_generic(space, a[l] & mask(bits))
                };
                v & mask(bits)
            });
            m.dst(w, inst, 0, &d, active);
        }
        MemOp::Isspacep { space } => {
            let a = m.src(w, inst, 0);
            let d = std::array::from_fn(|l| {
                let (resolved, _) = resolve(Space::Generic, a[l]);
                u64::from(resolved == space)
            });
            m.dst(w, inst, 0, &d, active);
        }
    }
    Ok(())
}

fn float_add(ty: Ty, a: u64, b: u64, ftz: bool) -> u64 {
    let format = ty.format().unwrap_or(crate::softfloat::F32);
    if format == crate::softfloat::F64 && format.is_nan(a) {
        // The memory's NaN, quieted, before the operand's (measured on an
        // H100: a NaN added to a NaN word keeps the word's payload).
        return a | 1 << 51;
    }
    let op = FloatOp {
        kind: FloatKind::Add,
        ty,
        rounding: Rounding::Nearest,
        ftz: ftz && ty == Ty::F32,
        sat: false,
        relu: false,
        nan: false,
        xorsign: false,
        abs: false,
        contractible: false,
        keep_sources: false,
    };
    if ty.is_packed() {
        let lo = scalar(&op, a & 0xffff, b & 0xffff, 0, false, format);
        let hi = scalar(&op, a >> 16 & 0xffff, b >> 16 & 0xffff, 0, false, format);
        lo | hi << 16
    } else {
        scalar(&op, a, b, 0, false, format)
    }
}

fn float_min_max(ty: Ty, a: u64, b: u64, max: bool) -> u64 {
    let format = ty.format().unwrap_or(crate::softfloat::F32);
    let op = FloatOp {
        kind: if max { FloatKind::Max } else { FloatKind::Min },
        ty,
        rounding: Rounding::Nearest,
        ftz: false,
        sat: false,
        relu: false,
        nan: false,
        xorsign: false,
        abs: false,
        contractible: false,
        keep_sources: false,
    };
    if ty.is_packed() {
        let lo = scalar(&op, a & 0xffff, b & 0xffff, 0, false, format);
        let hi = scalar(&op, a >> 16 & 0xffff, b >> 16 & 0xffff, 0, false, format);
        lo | hi << 16
    } else {
        scalar(&op, a, b, 0, false, format)
    }
}

/// The new memory value of an atomic operation on `old` with operands `b`, `c`.
/// The lanes whose atomic ptxas compiles to a compare-and-swap loop: 64-bit
/// integer `and/or/xor/add/min/max` on the CTA's shared memory (directly or
/// through a generic address), seen in the H100's machine code as an `LDS.64`
/// and an `ATOMS.CAST.SPIN.64` retried until it succeeds
/// (`tests/interp/atomic_order.py`).
fn cas_loop_lanes(
    m: &Machine<'_>,
    w: usize,
    inst: &Inst,
    space: Space,
    kind: AtomKind,
    ty: Ty,
    active: u32,
) -> u32 {
    let integer = matches!(ty, Ty::B64 | Ty::U64 | Ty::S64);
    let looping = matches!(
        kind,
        AtomKind::And
            | AtomKind::Or
            | AtomKind::Xor
            | AtomKind::Add
            | AtomKind::Min
            | AtomKind::Max
    );
    if !integer || !looping || !matches!(space, Space::Shared | Space::Generic) {
        return 0;
    }
    lanes(active)
        .filter(|&lane| resolve(space, m.read_lane(w, &inst.src[0], lane)).0 == Space::Shared)
        .fold(0, |mask, lane| mask | 1 << lane)
}

/// A compare-and-swap loop run by the lanes of `looped` at once, as the
/// H100 runs it: in each pass every lane still looping loads the word (for
/// `min`/`max`, a lane whose result would leave it unchanged leaves the loop
/// with it there, as the machine code branches around the swap); then, per
/// address, the lowest remaining lane of lanes 0-15 and after it the lowest
/// of lanes 16-31 each store their result if the word still holds what they
/// loaded, and leave the loop with it; the others load again. (Measured:
/// with results that all change the word, lanes apply in ascending order;
/// lanes whose result leaves the word unchanged show the two half-warps.)
fn cas_loop(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    space: Space,
    (kind, ty, ftz): (AtomKind, Ty, bool),
    looped: u32,
    old: &mut [u64; 32],
) -> Result<(), Fault> {
    let mut pending = looped;
    while pending != 0 {
        let mut loaded = [0u64; 32];
        let mut first = std::collections::BTreeMap::<u64, [Option<u32>; 2]>::new();
        for lane in lanes(pending) {
            let addr = m.read_lane(w, &inst.src[0], lane);
            let thread = m.thread(w, lane);
            let seen = m
                .mem
                .load(thread, space, addr, 8)
                .map_err(|e| Fault::at(lane, e))?;
            loaded[lane as usize] = seen;
            if matches!(kind, AtomKind::Min | AtomKind::Max) {
                let b = m.read_lane(w, &inst.src[1], lane);
                if atomic(kind, ty, seen, b, 0, ftz) == seen {
                    old[lane as usize] = seen;
                    pending &= !(1 << lane);
                    continue;
                }
            }
            let halves = first.entry(addr).or_default();
            halves[lane as usize / 16].get_or_insert(lane);
        }
        for (addr, halves) in first {
            for lane in halves.into_iter().flatten() {
                let thread = m.thread(w, lane);
                let current = m
                    .mem
                    .load(thread, space, addr, 8)
                    .map_err(|e| Fault::at(lane, e))?;
                let seen = loaded[lane as usize];
                if current == seen {
                    let b = m.read_lane(w, &inst.src[1], lane);
                    let new = atomic(kind, ty, seen, b, 0, ftz);
                    m.mem
                        .store(thread, space, addr, 8, new)
                        .map_err(|e| Fault::at(lane, e))?;
                    old[lane as usize] = seen;
                    pending &= !(1 << lane);
                }
            }
        }
    }
    Ok(())
}

pub fn atomic(kind: AtomKind, ty: Ty, old: u64, b: u64, c: u64, ftz: bool) -> u64 {
    let bits = ty.bits().min(64);
    let mk = mask(bits);
    let (old, b, c) = (old & mk, b & mk, c & mk);
    match kind {
        AtomKind::And => old & b,
        AtomKind::Or => old | b,
        AtomKind::Xor => old ^ b,
        AtomKind::Exch => b,
        AtomKind::Cas => {
            if old == b {
                c
            } else {
                old
            }
        }
        AtomKind::Add if ty.is_float() => float_add(ty, old, b, ftz),
        AtomKind::Add => old.wrapping_add(b) & mk,
        AtomKind::Inc => {
            if old >= b {
                0
            } else {
                old + 1
            }
        }
        AtomKind::Dec => {
            if old == 0 || old > b {
                b
            } else {
                old - 1
            }
        }
        AtomKind::Min | AtomKind::Max if ty.is_float() => {
            float_min_max(ty, old, b, kind == AtomKind::Max)
        }
        AtomKind::Min | AtomKind::Max => {
            let less = if ty.is_signed() {
                sext(old, bits) < sext(b, bits)
            } else {
                old < b
            };
            if less == (kind == AtomKind::Min) {
                old
            } else {
                b
            }
        }
    }
}
