//! Warp-level matrix instructions with explicit fragments: `ldmatrix`,
//! `stmatrix`, `movmatrix` (8×8 matrices of 16-bit elements) and
//! `mma.sync.aligned` for the common shapes.
//!
//! Fragment layouts follow the spec's per-shape tables (section 9.7.14.5),
//! written here with `g = laneid / 4` and `t = laneid % 4`; the
//! `matrix.*` and `mma.*` GPU fixtures confirm them. Integer `mma` is exact.
//! Floating-point `mma` with f16/bf16/tf32 inputs uses the tensor core's
//! fused sum measured for `wgmma` (`src/accumulate.rs`); e4m3/e5m2 inputs
//! (m16n8k32) run as two f16 steps, as ptxas compiles them; `.f64` `mma` is a chain of correctly rounded fused
//! multiply-adds in `k` order, whose NaN result at each step is B's NaN operand, else the
//! running sum's, else A's (quieted), and `0xfff8000000000000` for an invalid
//! operation (`0 · ∞`, `∞ − ∞`), as the H100 gives.

use crate::accumulate;
use crate::engine::{lanes, Fault, Lanes, Machine};
use crate::ir::{Dst, Inst, Quals, Space, Src, Ty};
use crate::softfloat::{self, Rounding};
use crate::Op;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    M16n8k16,
    M16n8k8,
    M16n8k4,
    M16n8k32,
    M8n8k4,
}

impl Shape {
    fn dims(self) -> (usize, usize, usize) {
        match self {
            Shape::M16n8k16 => (16, 8, 16),
            Shape::M16n8k8 => (16, 8, 8),
            Shape::M16n8k4 => (16, 8, 4),
            Shape::M16n8k32 => (16, 8, 32),
            Shape::M8n8k4 => (8, 8, 4),
        }
    }
}

#[derive(Debug, Clone)]
pub enum MatrixOp {
    Ldmatrix {
        count: usize,
        trans: bool,
        space: Space,
    },
    Stmatrix {
        count: usize,
        trans: bool,
        space: Space,
    },
    Movmatrix,
    Mma(Mma),
}

#[derive(Debug, Clone, Copy)]
pub struct Mma {
    shape: Shape,
    d: Ty,
    a: Ty,
    b: Ty,
    c: Ty,
    satfinite: bool,
}

fn matrix_count(q: &Quals) -> Option<usize> {
    if q.has("x1") {
        Some(1)
    } else if q.has("x2") {
        Some(2)
    } else if q.has("x4") {
        Some(4)
    } else {
        None
    }
}

pub fn decode(m: &str, q: &Quals, n_dst: usize, src: &[Src]) -> Option<Result<Op, String>> {
    let op = match m {
        "ldmatrix" | "stmatrix" => {
            if !q.has("m8n8") || q.ty() != Some(Ty::B16) {
                return Some(Err(format!(
                    "{m}: only the .m8n8 shape with .b16 elements is supported"
                )));
            }
            let Some(count) = matrix_count(q) else {
                return Some(Err(format!("{m} needs .x1, .x2 or .x4")));
            };
            let space = q.space.unwrap_or(Space::Generic);
            if !matches!(space, Space::Shared | Space::Generic) {
                return Some(Err(format!("{m} works on shared memory only")));
            }
            let trans = q.has("trans");
            if m == "ldmatrix" {
                if n_dst == 0 || src.is_empty() {
                    return Some(Err("ldmatrix needs registers and an address".into()));
                }
                MatrixOp::Ldmatrix {
                    count,
                    trans,
                    space,
                }
            } else {
                if src.len() < 2 {
                    return Some(Err("stmatrix needs an address and registers".into()));
                }
                MatrixOp::Stmatrix {
                    count,
                    trans,
                    space,
                }
            }
        }
        "movmatrix" => {
            if !q.has("m8n8") || !q.has("trans") || q.ty() != Some(Ty::B16) || src.is_empty() {
                return Some(Err(
                    "movmatrix: only .m8n8.trans.b16 with one source is supported".into(),
                ));
            }
            MatrixOp::Movmatrix
        }
        "mma" => match decode_mma(q, src) {
            Ok(mma) => MatrixOp::Mma(mma),
            Err(message) => return Some(Err(message)),
        },
        _ => return None,
    };
    Some(Ok(Op::Matrix(op)))
}

fn decode_mma(q: &Quals, src: &[Src]) -> Result<Mma, String> {
    let shape = if q.has("m16n8k16") {
        Shape::M16n8k16
    } else if q.has("m16n8k8") {
        Shape::M16n8k8
    } else if q.has("m16n8k4") {
        Shape::M16n8k4
    } else if q.has("m16n8k32") {
        Shape::M16n8k32
    } else if q.has("m8n8k4") {
        Shape::M8n8k4
    } else {
        return Err("mma: this shape is not supported by the interpreter".into());
    };
    if !q.has("row") || !q.has("col") || q.words.iter().any(|w| w.starts_with("sp")) {
        return Err("mma: only the .row.col layout without sparsity is supported".into());
    }
    if q.words
        .iter()
        .any(|w| w.starts_with("kind") || w.starts_with("block_scale"))
    {
        return Err("mma: .kind and block scaling are not supported".into());
    }
    let [d, a, b, c] = match q.types.as_slice() {
        [d, a, b, c] => [*d, *a, *b, *c],
        _ => return Err("mma needs .dtype.atype.btype.ctype".into()),
    };
    let supported = match shape {
        Shape::M16n8k16 | Shape::M16n8k8 if a == b && matches!(a, Ty::F16) => {
            matches!(d, Ty::F16 | Ty::F32) && c == d
        }
        Shape::M16n8k16 | Shape::M16n8k8 if a == b && a == Ty::Bf16 => d == Ty::F32 && c == d,
        Shape::M16n8k8 | Shape::M16n8k4 if a == b && a == Ty::Tf32 => d == Ty::F32 && c == d,
        Shape::M16n8k32 if matches!(a, Ty::E4m3 | Ty::E5m2) && matches!(b, Ty::E4m3 | Ty::E5m2) => {
            d == Ty::F32 && c == d
        }
        Shape::M16n8k16 | Shape::M16n8k32 => {
            matches!(a, Ty::S8 | Ty::U8) && matches!(b, Ty::S8 | Ty::U8) && d == Ty::S32 && c == d
        }
        Shape::M8n8k4 => [d, a, b, c].iter().all(|t| *t == Ty::F64),
        _ => false,
    };
    if !supported {
        return Err(format!(
            "mma: .{}.{}.{}.{} with this shape is not supported by the interpreter",
            d.name(),
            a.name(),
            b.name(),
            c.name()
        ));
    }
    if src.len() < 3 {
        return Err("mma needs a, b and c fragments".into());
    }
    Ok(Mma {
        shape,
        d,
        a,
        b,
        c,
        satfinite: q.has("satfinite"),
    })
}

fn need_full_warp(active: u32, what: &str) -> Result<(), Fault> {
    if active != u32::MAX {
        return Err(Fault::new(format!(
            "{what} needs all 32 lanes of the warp (only {} are active)",
            active.count_ones()
        )));
    }
    Ok(())
}

/// Lane and half (0 = low 16 bits) holding element (row, col) of an 8×8
/// matrix in the `ldmatrix` layout, or its transpose.
fn holder(row: usize, col: usize, trans: bool) -> (usize, usize) {
    let (r, c) = if trans { (col, row) } else { (row, col) };
    (4 * r + c / 2, c % 2)
}

pub fn exec(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    op: &MatrixOp,
    active: u32,
) -> Result<(), Fault> {
    match *op {
        MatrixOp::Ldmatrix {
            count,
            trans,
            space,
        } => {
            need_full_warp(active, "ldmatrix")?;
            let parts = Dst::elements(inst.dst.first());
            if parts.len() != count {
                return Err(Fault::new(format!(
                    "ldmatrix needs {count} destination registers"
                )));
            }
            for (j, part) in parts.iter().enumerate() {
                let mut tile = [[0u64; 8]; 8];
                for (r, row) in tile.iter_mut().enumerate() {
                    let lane = (8 * j + r) as u32;
                    let base = m.read_lane(w, &inst.src[0], lane);
                    if !base.is_multiple_of(16) {
                        return Err(Fault::at(
                            lane,
                            format!("ldmatrix row address {base:#x} is not 16-byte aligned"),
                        ));
                    }
                    let thread = m.thread(w, lane);
                    for (c, slot) in row.iter_mut().enumerate() {
                        *slot = m
                            .mem
                            .load(thread, space, base + 2 * c as u64, 2)
                            .map_err(|e| Fault::at(lane, e))?;
                    }
                }
                let mut value = [0u64; 32];
                for (r, row) in tile.iter().enumerate() {
                    for (c, element) in row.iter().enumerate() {
                        let (lane, half) = holder(r, c, trans);
                        value[lane] |= element << (16 * half);
                    }
                }
                m.write(w, part, &value, active);
            }
        }
        MatrixOp::Stmatrix {
            count,
            trans,
            space,
        } => {
            need_full_warp(active, "stmatrix")?;
            let parts = Src::elements(inst.src.get(1));
            if parts.len() != count {
                return Err(Fault::new(format!(
                    "stmatrix needs {count} source registers"
                )));
            }
            let values: Vec<Lanes> = parts.iter().map(|p| m.read(w, p)).collect();
            for (j, value) in values.iter().enumerate() {
                for r in 0..8 {
                    let lane = (8 * j + r) as u32;
                    let base = m.read_lane(w, &inst.src[0], lane);
                    if !base.is_multiple_of(16) {
                        return Err(Fault::at(
                            lane,
                            format!("stmatrix row address {base:#x} is not 16-byte aligned"),
                        ));
                    }
                    let thread = m.thread(w, lane);
                    for c in 0..8 {
                        let (holder_lane, half) = holder(r, c, trans);
                        let bits = value[holder_lane] >> (16 * half) & 0xffff;
                        m.mem
                            .store(thread, space, base + 2 * c as u64, 2, bits)
                            .map_err(|e| Fault::at(lane, e))?;
                    }
                }
            }
        }
        MatrixOp::Movmatrix => {
            need_full_warp(active, "movmatrix")?;
            let source = m.read(w, &inst.src[0]);
            let mut value = [0u64; 32];
            for r in 0..8 {
                for c in 0..8 {
                    let (from, from_half) = holder(r, c, false);
                    let (to, to_half) = holder(r, c, true);
                    value[to] |= (source[from] >> (16 * from_half) & 0xffff) << (16 * to_half);
                }
            }
            if let Some(dst) = inst.dst.first() {
                m.write(w, dst, &value, active);
            }
        }
        MatrixOp::Mma(mma) => {
            need_full_warp(active, "mma")?;
            exec_mma(m, w, inst, &mma, active)?;
        }
    }
    Ok(())
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operand {
    A,
    B,
    C,
}

/// Elements per register of a fragment of type `ty`.
fn per_register(ty: Ty) -> usize {
    match ty {
        Ty::S8 | Ty::U8 | Ty::E4m3 | Ty::E5m2 => 4,
        Ty::F16 | Ty::Bf16 => 2,
        _ => 1,
    }
}

/// (row, column) of element `i` of `lane`'s fragment.
fn element(shape: Shape, operand: Operand, ty: Ty, lane: usize, i: usize) -> (usize, usize) {
    let g = lane / 4;
    let t = lane % 4;
    let hi = |cond: bool| if cond { 8 } else { 0 };
    match (operand, ty, shape) {
        (Operand::C, _, Shape::M8n8k4) => (g, 2 * t + i),
        (Operand::C, _, _) => (g + hi(i >= 2), 2 * t + (i & 1)),
        (Operand::A, Ty::F64, _) => (g, t),
        (Operand::B, Ty::F64, _) => (t, g),
        (Operand::A, Ty::F16 | Ty::Bf16, Shape::M16n8k16) => {
            (g + hi(i % 4 >= 2), 2 * t + (i & 1) + hi(i >= 4))
        }
        (Operand::A, Ty::F16 | Ty::Bf16, _) => (g + hi(i >= 2), 2 * t + (i & 1)),
        (Operand::B, Ty::F16 | Ty::Bf16, Shape::M16n8k16) => (2 * t + (i & 1) + hi(i >= 2), g),
        (Operand::B, Ty::F16 | Ty::Bf16, _) => (2 * t + (i & 1), g),
        (Operand::A, Ty::Tf32, Shape::M16n8k8) => (g + hi(i & 1 == 1), t + 4 * (i / 2)),
        (Operand::A, Ty::Tf32, _) => (g + hi(i == 1), t),
        (Operand::B, Ty::Tf32, Shape::M16n8k8) => (t + 4 * i, g),
        (Operand::B, Ty::Tf32, _) => (t, g),
        (Operand::A, _, Shape::M16n8k32) => (g + hi(i % 8 >= 4), 4 * t + (i & 3) + 2 * hi(i >= 8)),
        (Operand::A, _, _) => (g + hi(i >= 4), 4 * t + (i & 3)),
        (Operand::B, _, Shape::M16n8k32) => (4 * t + (i & 3) + 2 * hi(i >= 4), g),
        (Operand::B, _, _) => (4 * t + i, g),
    }
}

/// Registers per lane of a fragment.
fn registers(shape: Shape, operand: Operand, ty: Ty) -> usize {
    let (rows, cols, k) = shape.dims();
    let elements = match operand {
        Operand::A => rows * k,
        Operand::B => k * cols,
        Operand::C => rows * cols,
    };
    elements / 32 / per_register(ty)
}

/// A matrix of raw element bits.
type Tile = Vec<Vec<u64>>;

fn gather(
    m: &Machine<'_>,
    w: usize,
    src: Option<&Src>,
    shape: Shape,
    operand: Operand,
    ty: Ty,
) -> Result<Tile, Fault> {
    let (rows, cols, k) = shape.dims();
    let (r, c) = match operand {
        Operand::A => (rows, k),
        Operand::B => (k, cols),
        Operand::C => (rows, cols),
    };
    let count = registers(shape, operand, ty);
    let parts = Src::elements(src);
    if parts.len() != count {
        return Err(Fault::new(format!(
            "mma: the {} fragment needs {count} registers",
            match operand {
                Operand::A => "A",
                Operand::B => "B",
                Operand::C => "C",
            }
        )));
    }
    let per = per_register(ty);
    let width: u32 = match (per, ty) {
        (4, _) => 8,
        (2, _) => 16,
        (_, Ty::F64) => 64,
        _ => 32,
    };
    let mut tile = vec![vec![0u64; c]; r];
    for (index, part) in parts.iter().enumerate() {
        let values = m.read(w, part);
        for (lane, value) in values.iter().enumerate() {
            for h in 0..per {
                let (row, col) = element(shape, operand, ty, lane, index * per + h);
                tile[row][col] = value >> (width as usize * h) & crate::ir::mask(width);
            }
        }
    }
    Ok(tile)
}

fn exec_mma(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    mma: &Mma,
    active: u32,
) -> Result<(), Fault> {
    let (rows, cols, k) = mma.shape.dims();
    let a = gather(m, w, inst.src.first(), mma.shape, Operand::A, mma.a)?;
    let b = gather(m, w, inst.src.get(1), mma.shape, Operand::B, mma.b)?;
    let c = gather(m, w, inst.src.get(2), mma.shape, Operand::C, mma.c)?;
    let mut d = vec![vec![0u64; cols]; rows];
    for (r, row) in d.iter_mut().enumerate() {
        for (col, slot) in row.iter_mut().enumerate() {
            let a_row: Vec<u64> = (0..k).map(|i| a[r][i]).collect();
            let b_col: Vec<u64> = (0..k).map(|i| b[i][col]).collect();
            *slot = match mma.d {
                Ty::S32 => int_dot(mma, &a_row, &b_col, c[r][col]),
                Ty::F64 => f64_dot(&a_row, &b_col, c[r][col], Rounding::Nearest),
                _ => float_dot(mma, &a_row, &b_col, c[r][col]),
            };
        }
    }
    let parts = Dst::elements(inst.dst.first());
    let count = registers(mma.shape, Operand::C, mma.d);
    if parts.len() != count {
        return Err(Fault::new(format!(
            "mma: the D fragment needs {count} registers"
        )));
    }
    let per = per_register(mma.d);
    for (index, part) in parts.iter().enumerate() {
        let mut value = [0u64; 32];
        for lane in lanes(active) {
            for h in 0..per {
                let (row, col) =
                    element(mma.shape, Operand::C, mma.d, lane as usize, index * per + h);
                value[lane as usize] |= d[row][col] << (16 * h);
            }
        }
        m.write(w, part, &value, active);
    }
    Ok(())
}

fn int_dot(mma: &Mma, a: &[u64], b: &[u64], c: u64) -> u64 {
    let value = |bits: u64, ty: Ty| -> i64 {
        if ty == Ty::S8 {
            bits as u8 as i8 as i64
        } else {
            (bits & 0xff) as i64
        }
    };
    let sum: i64 = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| value(x, mma.a) * value(y, mma.b))
        .sum::<i64>()
        + c as u32 as i32 as i64;
    let result = if mma.satfinite {
        sum.clamp(i64::from(i32::MIN), i64::from(i32::MAX))
    } else {
        sum
    };
    result as u64 & 0xffff_ffff
}

/// One element of `D = A·B + C` from a row of A, a column of B and an
/// element of C (raw bits), for `wmma.mma`, whose tensor-core arithmetic is
/// that of `mma.sync` with the same types; `rounding` applies to `.f64`,
/// `step` is the number of floating-point products summed in one tensor-core
/// step (the result of each step is the next one's f32 accumulator).
#[allow(clippy::too_many_arguments)]
pub(crate) fn dot(
    d: Ty,
    a: Ty,
    b: Ty,
    c: Ty,
    satfinite: bool,
    rounding: Rounding,
    a_row: &[u64],
    b_col: &[u64],
    acc: u64,
    step: usize,
) -> u64 {
    // The products read only the types; the shape is not used.
    let mma = Mma {
        shape: Shape::M16n8k16,
        d,
        a,
        b,
        c,
        satfinite,
    };
    match d {
        Ty::S32 => int_dot(&mma, a_row, b_col, acc),
        Ty::F64 => f64_dot(a_row, b_col, acc, rounding),
        _ => {
            let types = accumulate::Types { d, c, a, b };
            accumulate::float_in_steps(types, a_row, b_col, Some(acc), step)
        }
    }
}

/// The tensor core's floating-point dot product, as measured for `wgmma`
/// (`src/accumulate.rs`).
fn float_dot(mma: &Mma, a: &[u64], b: &[u64], c: u64) -> u64 {
    let types = accumulate::Types {
        d: mma.d,
        c: mma.c,
        a: mma.a,
        b: mma.b,
    };
    if matches!(mma.a, Ty::E4m3 | Ty::E5m2) {
        return fp8_dot(mma, a, b, c);
    }
    accumulate::float(types, a, b, Some(c))
}

/// `mma.sync.m16n8k32` with e4m3/e5m2 inputs as ptxas compiles it for the
/// H100 (its machine code: `F2FP.F16.E4M3.UNPACK_B` and two
/// `HMMA.16816.F32`, then an `FADD`): the inputs become f16 (exactly); the
/// products of `k % 4 < 2` (each register's low two bytes) are summed by an
/// f16 tensor-core step from zero, those of `k % 4 >= 2` by a second step
/// accumulating onto the first; `C` is added last, rounded to nearest.
fn fp8_dot(mma: &Mma, a: &[u64], b: &[u64], c: u64) -> u64 {
    let half = |bits: u64, ty: Ty| {
        let format = if ty == Ty::E4m3 {
            softfloat::E4M3
        } else {
            softfloat::E5M2
        };
        softfloat::F16.encode(format.to_f64(bits), Rounding::Nearest)
    };
    let split = |low: bool| -> (Vec<u64>, Vec<u64>) {
        (0..a.len().min(b.len()))
            .filter(|k| (k % 4 < 2) == low)
            .map(|k| (half(a[k], mma.a), half(b[k], mma.b)))
            .unzip()
    };
    let types = accumulate::Types {
        d: Ty::F32,
        c: Ty::F32,
        a: Ty::F16,
        b: Ty::F16,
    };
    let (a_low, b_low) = split(true);
    let (a_high, b_high) = split(false);
    let first = accumulate::float(types, &a_low, &b_low, None);
    let products = accumulate::float(types, &a_high, &b_high, Some(first));
    let sum = f32::from_bits(c as u32) + f32::from_bits(products as u32);
    if sum.is_nan() {
        0x7fff_ffff
    } else {
        u64::from(sum.to_bits())
    }
}

fn f64_dot(a: &[u64], b: &[u64], c: u64, rounding: Rounding) -> u64 {
    let mut acc = c;
    for (&x, &y) in a.iter().zip(b) {
        let (x, y, z) = (f64::from_bits(x), f64::from_bits(y), f64::from_bits(acc));
        acc = if x.is_nan() || y.is_nan() || z.is_nan() {
            // B's NaN, else the accumulator's, else A's, quieted: the
            // order of a scalar DFMA (fits all 1,196 NaN results of the
            // three held-out recordings; B, A, accumulator fits 1,156).
            let nan = [y, z, x]
                .into_iter()
                .find(|v| v.is_nan())
                .unwrap_or(f64::NAN);
            nan.to_bits() | 1 << 51
        } else if (x.is_infinite() && y == 0.0)
            || (x == 0.0 && y.is_infinite())
            || ((x.is_infinite() || y.is_infinite())
                && z.is_infinite()
                && (x.is_sign_negative() != y.is_sign_negative()) != z.is_sign_negative())
        {
            // An invalid operation: the tensor core's default NaN.
            0xfff8_0000_0000_0000
        } else {
            let exact = softfloat::fma(x, y, z);
            if exact.is_zero() {
                // An exact zero: both addends' sign when they agree (±0 + ±0),
                // otherwise -0 rounding down and +0 in the other modes.
                let product = (x * y).is_sign_negative();
                let negative = if x * y == 0.0 && z == 0.0 && product == z.is_sign_negative() {
                    product
                } else {
                    rounding == Rounding::Down
                };
                if negative {
                    1 << 63
                } else {
                    0
                }
            } else {
                exact.round(rounding, softfloat::F64)
            }
        };
    }
    acc
}

/// The holders of every matrix element of `op`'s operands, from the same
/// mappings [`exec`] uses (the fragment-layout view of a debug session).
pub(crate) fn fragments(op: &MatrixOp) -> Vec<crate::debug::Fragment> {
    use crate::debug::{Fragment, Holder, Place};
    let tile = |name: String, place: Place, reg: usize, trans: bool| Fragment {
        name,
        place,
        rows: 8,
        cols: 8,
        ty: Ty::B16,
        bits: 16,
        first_row: 0,
        first_col: 0,
        holders: (0..8)
            .flat_map(|row| (0..8).map(move |col| (row, col)))
            .map(|(row, col)| {
                let (lane, half) = holder(row, col, trans);
                Holder {
                    row,
                    col,
                    lane: lane as u32,
                    reg,
                    part: half as u32,
                }
            })
            .collect(),
    };
    match *op {
        MatrixOp::Ldmatrix { count, trans, .. } => (0..count)
            .map(|j| tile(format!("matrix {j}: 8×8 .b16"), Place::Dst(0), j, trans))
            .collect(),
        MatrixOp::Stmatrix { count, trans, .. } => (0..count)
            .map(|j| tile(format!("matrix {j}: 8×8 .b16"), Place::Src(1), j, trans))
            .collect(),
        MatrixOp::Movmatrix => vec![
            tile("source: 8×8 .b16".into(), Place::Src(0), 0, false),
            tile("result: 8×8 .b16".into(), Place::Dst(0), 0, true),
        ],
        MatrixOp::Mma(mma) => {
            let (m, n, k) = mma.shape.dims();
            [
                ("A", Place::Src(0), Operand::A, mma.a, (m, k)),
                ("B", Place::Src(1), Operand::B, mma.b, (k, n)),
                ("C", Place::Src(2), Operand::C, mma.c, (m, n)),
                ("D", Place::Dst(0), Operand::C, mma.d, (m, n)),
            ]
            .into_iter()
            .map(|(name, place, operand, ty, (rows, cols))| {
                let per = per_register(ty);
                let bits = match (per, ty) {
                    (4, _) => 8,
                    (2, _) => 16,
                    (_, Ty::F64) => 64,
                    _ => 32,
                };
                let count = registers(mma.shape, operand, ty) * per;
                let holders = (0..32usize)
                    .flat_map(|lane| (0..count).map(move |i| (lane, i)))
                    .map(|(lane, i)| {
                        let (row, col) = element(mma.shape, operand, ty, lane, i);
                        Holder {
                            row,
                            col,
                            lane: lane as u32,
                            reg: i / per,
                            part: (i % per) as u32,
                        }
                    })
                    .collect();
                Fragment {
                    name: format!("{name}: {rows}×{cols} .{}", ty.name()),
                    place,
                    rows,
                    cols,
                    ty,
                    bits,
                    first_row: 0,
                    first_col: 0,
                    holders,
                }
            })
            .collect()
        }
    }
}
