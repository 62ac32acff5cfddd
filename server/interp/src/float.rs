//! Floating-point arithmetic of every float type (f16, bf16, their packed
//! pairs, f32, f64): correctly rounded operations in every rounding mode,
//! `.ftz`, `.sat`, `.relu`, the GPU's NaN rules, min/max variants, the
//! approximate functions, `copysign`, `testp` and float comparisons.

use crate::engine::{Fault, Lanes, Machine};
use crate::ir::{Cmp, Inst, Quals, Src, Ty};
use crate::math;
use crate::mufu;
use crate::softfloat::{self, Exact, Format, Rounding};
use crate::{need, Op};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatKind {
    Add,
    Sub,
    Mul,
    Fma,
    Div,
    DivFull,
    DivApprox,
    Abs,
    Neg,
    Min,
    Max,
    Rcp,
    RcpApprox,
    Sqrt,
    SqrtApprox,
    Rsqrt,
    Sin,
    Cos,
    Lg2,
    Ex2,
    Tanh,
    Copysign,
    Testp(TestKind),
    /// A multiply (`divide`: `Some(full)` for `div.full`/`div.approx`)
    /// fused with the add or subtract that uses it (`crate::contract`):
    /// sources are the multiply's two operands and the addend.
    Contracted {
        negate_product: bool,
        negate_addend: bool,
        divide: Option<bool>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestKind {
    Finite,
    Infinite,
    Number,
    NotANumber,
    Normal,
    Subnormal,
}

#[derive(Debug, Clone, Copy)]
pub struct FloatOp {
    pub kind: FloatKind,
    pub ty: Ty,
    pub rounding: Rounding,
    pub ftz: bool,
    pub sat: bool,
    pub relu: bool,
    /// `.NaN` on min/max.
    pub nan: bool,
    /// `.xorsign.abs` (or `.abs`) on min/max.
    pub xorsign: bool,
    pub abs: bool,
    /// No rounding modifier written: ptxas may fuse it (`crate::contract`).
    pub contractible: bool,
    /// Also copies the two sources into destinations 1 and 2 (for an add
    /// fused with this multiply after a source register changed).
    pub keep_sources: bool,
}

pub fn decode(m: &str, q: &Quals, src: &[Src]) -> Option<Result<Op, String>> {
    let ty = q.ty()?;
    if !ty.is_float() {
        return None;
    }
    let approx = q.has("approx");
    let (kind, n) = match m {
        "add" => (FloatKind::Add, 2),
        "sub" => (FloatKind::Sub, 2),
        "mul" => (FloatKind::Mul, 2),
        "fma" | "mad" => (FloatKind::Fma, 3),
        "div" if approx => (FloatKind::DivApprox, 2),
        "div" if q.has("full") => (FloatKind::DivFull, 2),
        "div" => (FloatKind::Div, 2),
        "abs" => (FloatKind::Abs, 1),
        "neg" => (FloatKind::Neg, 1),
        "min" => (FloatKind::Min, 2),
        "max" => (FloatKind::Max, 2),
        "rcp" if approx => (FloatKind::RcpApprox, 1),
        "rcp" => (FloatKind::Rcp, 1),
        "sqrt" if approx => (FloatKind::SqrtApprox, 1),
        "sqrt" => (FloatKind::Sqrt, 1),
        "rsqrt" => (FloatKind::Rsqrt, 1),
        "sin" => (FloatKind::Sin, 1),
        "cos" => (FloatKind::Cos, 1),
        "lg2" => (FloatKind::Lg2, 1),
        "ex2" => (FloatKind::Ex2, 1),
        "tanh" => (FloatKind::Tanh, 1),
        "copysign" => (FloatKind::Copysign, 2),
        "testp" => {
            let test = if q.has("finite") {
                TestKind::Finite
            } else if q.has("infinite") {
                TestKind::Infinite
            } else if q.has("number") {
                TestKind::Number
            } else if q.has("notanumber") {
                TestKind::NotANumber
            } else if q.has("normal") {
                TestKind::Normal
            } else if q.has("subnormal") {
                TestKind::Subnormal
            } else {
                return Some(Err("testp needs a test".into()));
            };
            (FloatKind::Testp(test), 1)
        }
        _ => return None,
    };
    if let Err(e) = need(src, n) {
        return Some(Err(e));
    }
    // ptxas compiles `min`/`max` of a register with itself (f16, f32, f64;
    // no `.ftz`, `.NaN`, `.xorsign` or `.relu`) to a move, so a NaN keeps
    // its own bits, signalling ones too (measured: fixtures/gpu_patterns.jsonl).
    let plain = !["ftz", "NaN", "xorsign", "relu"].iter().any(|w| q.has(w));
    if matches!(kind, FloatKind::Min | FloatKind::Max)
        && matches!(ty, Ty::F16 | Ty::F32 | Ty::F64)
        && plain
        && matches!(src[0], Src::Reg(_))
        && src[0] == src[1]
    {
        return crate::int::decode("mov", q, 1, &src[..1]);
    }
    Some(Ok(Op::Float(FloatOp {
        kind,
        ty,
        rounding: q.rounding.unwrap_or(Rounding::Nearest),
        ftz: q.has("ftz"),
        sat: q.has("sat"),
        relu: q.has("relu"),
        nan: q.has("NaN"),
        xorsign: q.has("xorsign"),
        contractible: q.rounding.is_none(),
        keep_sources: false,
        abs: q.has("abs"),
    })))
}

pub fn exec(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    op: &FloatOp,
    active: u32,
) -> Result<(), Fault> {
    let a = m.src(w, inst, 0);
    let b = m.src(w, inst, 1);
    let c = m.src(w, inst, 2);
    let three = inst.src.len() >= 3;
    let mut d = [0u64; 32];
    let ty = op.ty;
    let format = ty.format().unwrap_or(softfloat::F32);
    if op.keep_sources {
        m.dst(w, inst, 1, &a, active);
        m.dst(w, inst, 2, &b, active);
    }
    if let FloatKind::Contracted {
        negate_product,
        negate_addend,
        divide,
    } = op.kind
    {
        let fma = FloatOp {
            kind: FloatKind::Fma,
            rounding: Rounding::Nearest,
            ..*op
        };
        if ty == Ty::F32 && divide.is_none() && !op.ftz && !op.sat {
            // The host's fused multiply-add rounds once, as FFMA does; a
            // NaN result is the GPU's canonical one.
            for l in 0..32 {
                let x = f32::from_bits(a[l] as u32);
                let x = if negate_product { -x } else { x };
                let z = f32::from_bits(c[l] as u32);
                let z = if negate_addend { -z } else { z };
                let r = x.mul_add(f32::from_bits(b[l] as u32), z);
                d[l] = u64::from(if r.is_nan() { 0x7fff_ffff } else { r.to_bits() });
            }
            m.dst(w, inst, 0, &d, active);
            return Ok(());
        }
        let width = format.bits();
        let mut sign = 1u64 << (width - 1);
        if ty.is_packed() {
            sign |= sign << width;
        }
        for l in 0..32 {
            let (mut x, mut y) = (a[l], b[l]);
            if format == softfloat::F64 {
                // A NaN operand passes through DFMA with its own sign: the
                // negation of the product or the addend does not reach it
                // (held-out snippets: `0 - NaN` gives the NaN unchanged).
                if let Some(&first) = [y, c[l], x].iter().find(|&&v| format.is_nan(v)) {
                    d[l] = first | 1 << 51;
                    continue;
                }
            }
            if let Some(full) = divide {
                let (r, s) = mufu::div_parts(x as u32, y as u32, full, op.ftz);
                (x, y) = (u64::from(r), u64::from(s));
            }
            if negate_product {
                x ^= sign;
            }
            let z = if negate_addend { c[l] ^ sign } else { c[l] };
            d[l] = if ty.is_packed() {
                let half = (1u64 << width) - 1;
                let lo = scalar(&fma, x & half, y & half, z & half, true, format);
                let hi = scalar(
                    &fma,
                    x >> width & half,
                    y >> width & half,
                    z >> width & half,
                    true,
                    format,
                );
                lo | hi << width
            } else {
                scalar(&fma, x, y, z, true, format)
            };
        }
        m.dst(w, inst, 0, &d, active);
        return Ok(());
    }
    if let FloatKind::Testp(test) = op.kind {
        for l in 0..32 {
            d[l] = u64::from(testp(test, a[l], format));
        }
        m.dst(w, inst, 0, &d, active);
        return Ok(());
    }
    if ty == Ty::F32 && op.rounding == Rounding::Nearest && fast_f32(op, &a, &b, &c, &mut d) {
        m.dst(w, inst, 0, &d, active);
        return Ok(());
    }
    if ty.is_packed() {
        let width = format.bits();
        let lane_mask = (1u64 << width) - 1;
        for l in 0..32 {
            let lo = scalar(
                op,
                a[l] & lane_mask,
                b[l] & lane_mask,
                c[l] & lane_mask,
                three,
                format,
            );
            let hi = scalar(
                op,
                a[l] >> width & lane_mask,
                b[l] >> width & lane_mask,
                c[l] >> width & lane_mask,
                three,
                format,
            );
            d[l] = lo | hi << width;
        }
    } else {
        for l in 0..32 {
            d[l] = scalar(op, a[l], b[l], c[l], three, format);
        }
    }
    m.dst(w, inst, 0, &d, active);
    Ok(())
}

/// Round-to-nearest binary32 arithmetic on the host's own floats, which
/// round exactly as the GPU does; only NaNs need the canonical pattern.
fn fast_f32(op: &FloatOp, a: &Lanes, b: &Lanes, c: &Lanes, d: &mut Lanes) -> bool {
    let ftz = op.ftz;
    let load = |bits: u64| {
        let x = f32::from_bits(bits as u32);
        if ftz && x.is_subnormal() {
            0.0f32.copysign(x)
        } else {
            x
        }
    };
    let sat = op.sat;
    let store = |r: f32| -> u64 {
        let r = if ftz && r.is_subnormal() {
            0.0f32.copysign(r)
        } else {
            r
        };
        if sat {
            // NaN and every negative value (-0 too) saturate to +0.
            return if r.is_nan() || r <= 0.0 {
                0
            } else {
                u64::from(r.min(1.0).to_bits())
            };
        }
        if r.is_nan() {
            return 0x7fff_ffff;
        }
        let r = if ftz && r.is_subnormal() {
            0.0f32.copysign(r)
        } else {
            r
        };
        u64::from(r.to_bits())
    };
    macro_rules! lanes {
        (|$x:ident, $y:ident, $z:ident| $e:expr) => {
            for l in 0..32 {
                let ($x, $y, $z) = (load(a[l]), load(b[l]), load(c[l]));
                let _ = (&$y, &$z);
                let r: f32 = $e;
                d[l] = if ftz && r.abs() == f32::MIN_POSITIVE {
                    // It may have rounded up from below the normal range.
                    scalar(op, a[l], b[l], c[l], false, softfloat::F32)
                } else {
                    store(r)
                };
            }
        };
    }
    match op.kind {
        FloatKind::Add => lanes!(|x, y, z| x + y),
        FloatKind::Sub => lanes!(|x, y, z| x - y),
        FloatKind::Mul => lanes!(|x, y, z| x * y),
        FloatKind::Fma => lanes!(|x, y, z| x.mul_add(y, z)),
        FloatKind::Div => lanes!(|x, y, z| x / y),
        FloatKind::Sqrt => lanes!(|x, y, z| x.sqrt()),
        _ => return false,
    }
    true
}

/// One float operation on raw bits of `format`.
pub fn scalar(op: &FloatOp, a: u64, b: u64, c: u64, three: bool, format: Format) -> u64 {
    let mk = if format.bits() >= 64 {
        u64::MAX
    } else {
        (1u64 << format.bits()) - 1
    };
    let (a, b, c) = (a & mk, b & mk, c & mk);
    let (a, b, c) = if op.ftz {
        (format.flush(a), format.flush(b), format.flush(c))
    } else {
        (a, b, c)
    };
    let nan = format.canonical_nan();
    let value = |bits: u64| format.to_f64(bits);
    let rnd = op.rounding;
    if format == softfloat::F64 {
        // Double precision propagates the first NaN operand of the machine
        // instruction, quieted; an invalid operation gives the negative
        // default NaN. ptxas may order the operands of a commutative
        // operation either way; this is the order it picks for straight-line
        // code such as a snippet (`fixtures/sweeps/README.md`).
        let by_priority: &[u64] = match op.kind {
            FloatKind::Add | FloatKind::Sub | FloatKind::Mul => &[b, a],
            FloatKind::Div => &[a, b],
            FloatKind::Fma => &[b, c, a],
            FloatKind::Rcp | FloatKind::Sqrt => &[a],
            _ => &[],
        };
        if let Some(&first) = by_priority.iter().find(|&&x| format.is_nan(x)) {
            return first | 1 << 51;
        }
        if matches!(op.kind, FloatKind::Abs | FloatKind::Neg) && format.is_nan(a) {
            return a | 1 << 51;
        }
    }
    if format == softfloat::F64 {
        match op.kind {
            FloatKind::RcpApprox => return mufu::rcp_approx_f64(a),
            FloatKind::Rsqrt => return mufu::rsqrt_approx_f64(a, op.ftz),
            _ => {}
        }
    }
    if format == softfloat::F32 {
        // The special-function unit, from measured tables.
        let (x, y) = (a as u32, b as u32);
        let unit = match op.kind {
            FloatKind::RcpApprox => Some(mufu::rcp_approx(x, op.ftz)),
            FloatKind::SqrtApprox => Some(mufu::sqrt_approx(x, op.ftz, false)),
            FloatKind::Rsqrt => Some(mufu::sqrt_approx(x, op.ftz, true)),
            FloatKind::DivFull => Some(mufu::div(x, y, true, op.ftz)),
            FloatKind::DivApprox => Some(mufu::div(x, y, false, op.ftz)),
            FloatKind::Ex2 => Some(mufu::ex2_approx(x, op.ftz)),
            FloatKind::Sin => Some(mufu::sin_cos_approx(x, false)),
            FloatKind::Cos => Some(mufu::sin_cos_approx(x, true)),
            FloatKind::Lg2 => mufu::lg2_approx(x, op.ftz),
            FloatKind::Tanh => Some(mufu::tanh32(x)),
            _ => None,
        };
        if let Some(r) = unit {
            return u64::from(r);
        }
    }
    if op.kind == FloatKind::Tanh && (format == softfloat::F16 || format == softfloat::BF16) {
        return u64::from(mufu::tanh16(a as u16, format == softfloat::BF16));
    }
    if op.kind == FloatKind::Ex2 && (format == softfloat::F16 || format == softfloat::BF16) {
        // The f32 unit on the widened input, its result cut toward zero.
        if format.is_nan(a) {
            return nan;
        }
        let x = softfloat::F32.encode(value(a), Rounding::Nearest) as u32;
        let y = f64::from(f32::from_bits(mufu::ex2(x)));
        // Cut toward zero, except that an overflow is infinite.
        let r = if y > format.to_f64(format.max_finite(false)) {
            format.infinity(false)
        } else {
            format.encode(y, Rounding::Zero)
        };
        return finish(op, r, format);
    }
    let result = match op.kind {
        FloatKind::Abs if format.is_nan(a) => nan,
        FloatKind::Neg if format.is_nan(a) => nan,
        FloatKind::Abs => return format.abs(a),
        FloatKind::Neg => return format.neg(a),
        FloatKind::Copysign => return format.abs(b) | format.sign(a),
        FloatKind::Min | FloatKind::Max => {
            let mut r = min_max(op, a, b, format);
            if three {
                r = min_max(op, r, c, format);
            }
            r
        }
        _ => {
            let (exact, addends): (Exact, Option<(f64, f64)>) = match op.kind {
                FloatKind::Add => (
                    softfloat::add(value(a), value(b)),
                    Some((value(a), value(b))),
                ),
                FloatKind::Sub => (
                    softfloat::add(value(a), -value(b)),
                    Some((value(a), -value(b))),
                ),
                FloatKind::Mul => (softfloat::mul(value(a), value(b)), None),
                FloatKind::Fma => {
                    let product = value(a) * value(b);
                    (
                        softfloat::fma(value(a), value(b), value(c)),
                        Some((product, value(c))),
                    )
                }
                FloatKind::Div => (softfloat::div(value(a), value(b)), None),
                FloatKind::Rcp => (softfloat::div(1.0, value(a)), None),
                FloatKind::Sqrt => (softfloat::sqrt(value(a)), None),
                _ => {
                    return finish(
                        op,
                        math::approximate(op.kind, value(a), value(b), format),
                        format,
                    )
                }
            };
            if exact.value.is_nan() {
                if format == softfloat::F64 {
                    0xfff8_0000_0000_0000
                } else {
                    nan
                }
            } else if exact.is_zero() && rnd == Rounding::Down && addends.is_some() {
                // An exact zero sum is -0 when rounding down, unless both addends are +0.
                let (x, y) = addends.unwrap_or((0.0, 0.0));
                let both_positive_zero =
                    x == 0.0 && y == 0.0 && x.is_sign_positive() && y.is_sign_positive();
                format.zero(!both_positive_zero)
            } else if op.ftz && below_normal(exact, format) {
                // Flushing looks at the result rounded to the format's
                // precision with an unbounded exponent: a value just under
                // the smallest normal that rounds up to it is kept.
                let wide = softfloat::Format::ieee(format.exp_bits + 3, format.frac_bits);
                let rounded = wide.to_f64(exact.round(rnd, wide));
                if rounded.abs() < format.to_f64(1 << format.frac_bits) {
                    format.zero(exact.value < 0.0)
                } else {
                    exact.round(rnd, format)
                }
            } else {
                exact.round(rnd, format)
            }
        }
    };
    finish(op, result, format)
}

/// Whether an exact nonzero result lies below the smallest normal of `format`.
fn below_normal(exact: Exact, format: Format) -> bool {
    if exact.value == 0.0 || !exact.value.is_finite() {
        return false;
    }
    let magnitude = exact.value.abs() * softfloat::pow2(exact.scale.clamp(-1000, 1000));
    let min_normal = format.to_f64(1 << format.frac_bits);
    let tail = if exact.value < 0.0 {
        -exact.tail
    } else {
        exact.tail
    };
    magnitude < min_normal || magnitude == min_normal && tail < 0
}

/// Applies `.ftz`, `.sat` and `.relu` to a result.
fn finish(op: &FloatOp, bits: u64, format: Format) -> u64 {
    let mut r = bits;
    let keeps_payload =
        matches!(op.kind, FloatKind::Min | FloatKind::Max) || format == softfloat::F64;
    if format.is_nan(r) && !keeps_payload {
        r = format.canonical_nan();
    }
    if op.ftz {
        r = format.flush(r);
    }
    if op.sat {
        if format.is_nan(r) || format.is_negative(r) {
            r = 0;
        } else if format.to_f64(r) > 1.0 {
            r = format.encode(1.0, Rounding::Nearest);
        }
    }
    if op.relu && !format.is_nan(r) && format.is_negative(r) {
        r = 0;
    }
    r
}

fn min_max(op: &FloatOp, a: u64, b: u64, format: Format) -> u64 {
    let is_max = op.kind == FloatKind::Max;
    let nan = format.canonical_nan();
    let (an, bn) = (format.is_nan(a), format.is_nan(b));
    if an && bn && format == softfloat::F64 {
        return b | 1 << 51;
    }
    if an && bn || op.nan && (an || bn) {
        return nan;
    }
    let sign = format.sign(a) ^ format.sign(b);
    if an || bn {
        let other = if an { b } else { a };
        return if op.xorsign {
            format.abs(other) | sign
        } else {
            other
        };
    }
    let (x, y) = if op.abs {
        (format.abs(a), format.abs(b))
    } else {
        (a, b)
    };
    let (vx, vy) = (format.to_f64(x), format.to_f64(y));
    // -0.0 orders below +0.0.
    let x_less = vx < vy || vx == vy && format.is_negative(x) && !format.is_negative(y);
    let r = if x_less != is_max { x } else { y };
    if op.xorsign {
        format.abs(r) | sign
    } else {
        r
    }
}

fn testp(test: TestKind, bits: u64, format: Format) -> bool {
    let nan = format.is_nan(bits);
    let inf = format.is_inf(bits);
    let sub = format.is_subnormal(bits);
    match test {
        TestKind::Finite => !nan && !inf,
        TestKind::Infinite => inf,
        TestKind::Number => !nan,
        TestKind::NotANumber => nan,
        // The GPU counts zeros as normal.
        TestKind::Normal => !nan && !inf && !sub,
        TestKind::Subnormal => sub,
    }
}

/// The comparison of `setp`/`set` on values of type `ty`.
pub fn compare(cmp: Cmp, a: u64, b: u64, ty: Ty, ftz: bool) -> bool {
    if let Some(format) = ty.format().filter(|_| !ty.is_packed()) {
        let (a, b) = if ftz {
            (format.flush(a), format.flush(b))
        } else {
            (a, b)
        };
        let (x, y) = (format.to_f64(a), format.to_f64(b));
        let unordered = x.is_nan() || y.is_nan();
        return match cmp {
            Cmp::Eq => !unordered && x == y,
            Cmp::Ne => !unordered && x != y,
            Cmp::Lt | Cmp::Lo => !unordered && x < y,
            Cmp::Le | Cmp::Ls => !unordered && x <= y,
            Cmp::Gt | Cmp::Hi => !unordered && x > y,
            Cmp::Ge | Cmp::Hs => !unordered && x >= y,
            Cmp::Equ => unordered || x == y,
            Cmp::Neu => unordered || x != y,
            Cmp::Ltu => unordered || x < y,
            Cmp::Leu => unordered || x <= y,
            Cmp::Gtu => unordered || x > y,
            Cmp::Geu => unordered || x >= y,
            Cmp::Num => !unordered,
            Cmp::Nan => unordered,
        };
    }
    let bits = ty.bits().min(64);
    let signed = ty.is_signed();
    let ord = if signed {
        crate::ir::sext(a, bits).cmp(&crate::ir::sext(b, bits))
    } else {
        (a & crate::ir::mask(bits)).cmp(&(b & crate::ir::mask(bits)))
    };
    let (ua, ub) = (a & crate::ir::mask(bits), b & crate::ir::mask(bits));
    match cmp {
        Cmp::Eq | Cmp::Equ => ord.is_eq(),
        Cmp::Ne | Cmp::Neu => ord.is_ne(),
        Cmp::Lt | Cmp::Ltu => ord.is_lt(),
        Cmp::Le | Cmp::Leu => ord.is_le(),
        Cmp::Gt | Cmp::Gtu => ord.is_gt(),
        Cmp::Ge | Cmp::Geu => ord.is_ge(),
        Cmp::Lo => ua < ub,
        Cmp::Ls => ua <= ub,
        Cmp::Hi => ua > ub,
        Cmp::Hs => ua >= ub,
        Cmp::Num => true,
        Cmp::Nan => false,
    }
}
