//! Warp-level matrix multiply-accumulate (`wmma`) for the m16n16k16 shape
//! with f16 inputs and f16 or f32 accumulators.
//!
//! The spec leaves the fragment layout to the implementation; this one is the
//! layout an sm_90 GPU uses, measured by the `wmma.layout` GPU fixtures: with
//! `g = laneid / 4` and `t = laneid % 4`, each register pair of a fragment
//! holds two adjacent elements of the 16×16 tile, in the same arrangement as
//! the m16n8k16 `mma` fragments, and the A and B fragments repeat their first
//! four registers in the last four.

use crate::engine::{lanes, Fault, Lanes, Machine};
use crate::ir::{Dst, Inst, Quals, Space, Src, Ty};
use crate::softfloat::{self, Rounding};
use crate::Op;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fragment {
    A,
    B,
    C,
}

#[derive(Debug, Clone, Copy)]
pub enum WmmaOp {
    Load {
        fragment: Fragment,
        row: bool,
        ty: Ty,
        space: Space,
    },
    Store {
        row: bool,
        ty: Ty,
        space: Space,
    },
    Mma {
        d: Ty,
        c: Ty,
    },
}

pub fn decode(m: &str, q: &Quals, src: &[Src]) -> Option<Result<Op, String>> {
    if m != "wmma" {
        return None;
    }
    if !q.has("m16n16k16") {
        return Some(Err("wmma: only the m16n16k16 shape is supported".into()));
    }
    let space = q.space.unwrap_or(Space::Generic);
    let row = q.has("row");
    let ty = q.types.last().copied().unwrap_or(Ty::F16);
    let op = if q.has("load") {
        let fragment = if q.has("a") {
            Fragment::A
        } else if q.has("b") {
            Fragment::B
        } else {
            Fragment::C
        };
        if fragment != Fragment::C && ty != Ty::F16 || !matches!(ty, Ty::F16 | Ty::F32) {
            return Some(Err(
                "wmma: only f16 A/B and f16/f32 accumulator fragments are supported".into(),
            ));
        }
        if src.is_empty() {
            return Some(Err("wmma.load needs an address".into()));
        }
        WmmaOp::Load {
            fragment,
            row,
            ty,
            space,
        }
    } else if q.has("store") {
        if src.len() < 2 || !matches!(ty, Ty::F16 | Ty::F32) {
            return Some(Err(
                "wmma.store needs an address and an f16/f32 fragment".into()
            ));
        }
        WmmaOp::Store { row, ty, space }
    } else if q.has("mma") {
        let (d, c) = match (q.types.first(), q.types.get(1)) {
            (Some(&d), Some(&c))
                if matches!(d, Ty::F16 | Ty::F32) && matches!(c, Ty::F16 | Ty::F32) =>
            {
                (d, c)
            }
            _ => {
                return Some(Err(
                    "wmma.mma: only f16 inputs with f16/f32 accumulators are supported".into(),
                ))
            }
        };
        if src.len() < 3 {
            return Some(Err("wmma.mma needs a, b and c fragments".into()));
        }
        WmmaOp::Mma { d, c }
    } else {
        return None;
    };
    Some(Ok(Op::Wmma(op)))
}

/// The (row, column) of the tile element that half `h` of register `i` of a
/// lane's fragment holds (for f32 accumulators `h` is 0 and `i` counts values).
fn element(fragment: Fragment, ty: Ty, lane: u32, i: usize, h: usize) -> (usize, usize) {
    let g = (lane / 4) as usize;
    let t = (lane % 4) as usize;
    match fragment {
        Fragment::A => {
            let j = i % 4;
            (g + 8 * (j & 1), 2 * t + h + 8 * (j >> 1))
        }
        Fragment::B => {
            let j = i % 4;
            (2 * t + h + 8 * (j & 1), g + 8 * (j >> 1))
        }
        Fragment::C if ty == Ty::F32 => {
            let pair = i / 2;
            (g + 8 * (pair & 1), 2 * t + i % 2 + 8 * (pair >> 1))
        }
        Fragment::C => (g + 8 * (i & 1), 2 * t + h + 8 * (i >> 1)),
    }
}

/// Registers per fragment and values per register.
fn shape(fragment: Fragment, ty: Ty) -> (usize, usize) {
    match (fragment, ty) {
        (Fragment::C, Ty::F32) => (8, 1),
        (Fragment::C, _) => (4, 2),
        _ => (8, 2),
    }
}

fn tile_offset(row: bool, r: usize, c: usize, stride: u64) -> u64 {
    if row {
        r as u64 * stride + c as u64
    } else {
        c as u64 * stride + r as u64
    }
}

pub fn exec(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    op: &WmmaOp,
    active: u32,
) -> Result<(), Fault> {
    match *op {
        WmmaOp::Load {
            fragment,
            row,
            ty,
            space,
        } => {
            let (count, per) = shape(fragment, ty);
            let parts = Dst::elements(inst.dst.first());
            if parts.len() < count {
                return Err(Fault::new(format!(
                    "wmma.load needs {count} destination registers"
                )));
            }
            let esize = if ty == Ty::F32 { 4 } else { 2 };
            let mut values = vec![[0u64; 32]; count];
            for lane in lanes(active) {
                let base = m.read_lane(w, &inst.src[0], lane);
                let stride = inst.src.get(1).map_or(16, |s| m.read_lane(w, s, lane));
                let thread = m.thread(w, lane);
                for (i, value) in values.iter_mut().enumerate() {
                    let mut bits = 0u64;
                    for h in 0..per {
                        let (r, c) = element(fragment, ty, lane, i, h);
                        let addr = base.wrapping_add(tile_offset(row, r, c, stride) * esize);
                        let v = m
                            .mem
                            .load(thread, space, addr, esize as usize)
                            .map_err(|e| Fault::at(lane, e))?;
                        bits |= v << (16 * h);
                    }
                    value[lane as usize] = bits;
                }
            }
            for (part, value) in parts.iter().zip(&values) {
                m.write(w, part, value, active);
            }
        }
        WmmaOp::Store { row, ty, space } => {
            let (count, per) = shape(Fragment::C, ty);
            let parts = Src::elements(inst.src.get(1));
            if parts.len() < count {
                return Err(Fault::new(format!(
                    "wmma.store needs {count} source registers"
                )));
            }
            let esize = if ty == Ty::F32 { 4 } else { 2 };
            let values: Vec<Lanes> = parts.iter().map(|p| m.read(w, p)).collect();
            for lane in lanes(active) {
                let base = m.read_lane(w, &inst.src[0], lane);
                let stride = inst.src.get(2).map_or(16, |s| m.read_lane(w, s, lane));
                let thread = m.thread(w, lane);
                for (i, value) in values.iter().enumerate().take(count) {
                    for h in 0..per {
                        let (r, c) = element(Fragment::C, ty, lane, i, h);
                        let addr = base.wrapping_add(tile_offset(row, r, c, stride) * esize);
                        let bits = value[lane as usize] >> (16 * h);
                        m.mem
                            .store(thread, space, addr, esize as usize, bits)
                            .map_err(|e| Fault::at(lane, e))?;
                    }
                }
            }
        }
        WmmaOp::Mma { d, c } => {
            let gather = |m: &Machine<'_>, src: Option<&Src>, fragment: Fragment, ty: Ty| {
                let (count, per) = shape(fragment, ty);
                let regs: Vec<Lanes> = Src::elements(src).iter().map(|s| m.read(w, s)).collect();
                let mut tile = [[0f64; 16]; 16];
                for lane in 0..32u32 {
                    for (i, reg) in regs.iter().enumerate().take(count) {
                        for h in 0..per {
                            let (r, col) = element(fragment, ty, lane, i, h);
                            let bits = reg[lane as usize] >> (16 * h);
                            tile[r][col] = if ty == Ty::F32 {
                                softfloat::F32.to_f64(bits & 0xffff_ffff)
                            } else {
                                softfloat::F16.to_f64(bits & 0xffff)
                            };
                        }
                    }
                }
                tile
            };
            let a = gather(m, inst.src.first(), Fragment::A, Ty::F16);
            let b = gather(m, inst.src.get(1), Fragment::B, Ty::F16);
            let acc = gather(m, inst.src.get(2), Fragment::C, c);
            let format = if d == Ty::F32 {
                softfloat::F32
            } else {
                softfloat::F16
            };
            let mut out = [[0u64; 16]; 16];
            for (r, row) in out.iter_mut().enumerate() {
                for (col, slot) in row.iter_mut().enumerate() {
                    let sum: f64 = (0..16).map(|k| a[r][k] * b[k][col]).sum::<f64>() + acc[r][col];
                    *slot = format.encode(sum, Rounding::Nearest);
                }
            }
            let (count, per) = shape(Fragment::C, d);
            let parts = Dst::elements(inst.dst.first());
            for (i, part) in parts.iter().enumerate().take(count) {
                let mut value = [0u64; 32];
                for lane in 0..32u32 {
                    for h in 0..per {
                        let (r, col) = element(Fragment::C, d, lane, i, h);
                        value[lane as usize] |= out[r][col] << (16 * h);
                    }
                }
                m.write(w, part, &value, active);
            }
        }
    }
    Ok(())
}
