//! `cvt`: conversions between every pair of integer and float types, with
//! rounding, saturation (`.sat`, `.satfinite`), `.relu`, `.ftz`, and the
//! packed forms (`f16x2`, `bf16x2`, `e4m3x2`, `e5m2x2`).

use crate::engine::{Fault, Lanes, Machine};
use crate::ir::{mask, sext, Inst, Quals, Src, Ty};
use crate::math::round_integral;
use crate::softfloat::{self, Format, Rounding};
use crate::{need, Op};

#[derive(Debug, Clone, Copy)]
pub struct CvtOp {
    pub dst: Ty,
    pub src: Ty,
    pub rounding: Option<Rounding>,
    pub int_rounding: Option<Rounding>,
    pub ftz: bool,
    pub sat: bool,
    pub relu: bool,
    pub satfinite: bool,
}

pub fn decode(m: &str, q: &Quals, src: &[Src]) -> Option<Result<Op, String>> {
    if m != "cvt" {
        return None;
    }
    let (Some(&dst), Some(&from)) = (q.types.first(), q.types.get(1)) else {
        return Some(Err("cvt needs a destination and a source type".into()));
    };
    // Two f32 sources pack into one x2 destination.
    let n = if dst.is_packed() && from == Ty::F32 {
        2
    } else {
        1
    };
    if let Err(e) = need(src, n) {
        return Some(Err(e));
    }
    if dst == Ty::B128 || from == Ty::B128 {
        return Some(Err("128-bit conversions are not supported".into()));
    }
    Some(Ok(Op::Cvt(CvtOp {
        dst,
        src: from,
        rounding: q.rounding,
        int_rounding: q.int_rounding,
        ftz: q.has("ftz"),
        sat: q.has("sat"),
        relu: q.has("relu"),
        satfinite: q.has("satfinite"),
    })))
}

pub fn exec(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    op: &CvtOp,
    active: u32,
) -> Result<(), Fault> {
    let a = m.src(w, inst, 0);
    let mut d: Lanes = [0; 32];
    if op.dst.is_packed() && op.src == Ty::F32 {
        let b = m.src(w, inst, 1);
        let element = element_of(op.dst);
        let width = element.bits();
        for l in 0..32 {
            let hi = convert(op, a[l], Ty::F32, element);
            let lo = convert(op, b[l], Ty::F32, element);
            d[l] = hi << width | lo;
        }
    } else if op.dst.is_packed() || op.src.is_packed() {
        // Element-wise: e4m3x2 → f16x2, f16x2 → e4m3x2 and the like.
        let (from, to) = (element_of(op.src), element_of(op.dst));
        let (fw, tw) = (from.bits(), to.bits());
        for l in 0..32 {
            let lo = convert(op, a[l] & mask(fw), from, to);
            let hi = convert(op, a[l] >> fw & mask(fw), from, to);
            d[l] = hi << tw | lo;
        }
    } else {
        for l in 0..32 {
            d[l] = convert(op, a[l], op.src, op.dst);
        }
    }
    if let Some(dst) = inst.dst.first() {
        m.write_typed(w, dst, &d, active, op.dst);
    }
    Ok(())
}

fn element_of(ty: Ty) -> Ty {
    match ty {
        Ty::F16x2 => Ty::F16,
        Ty::Bf16x2 => Ty::Bf16,
        Ty::E4m3x2 => Ty::E4m3,
        Ty::E5m2x2 => Ty::E5m2,
        Ty::U16x2 => Ty::U16,
        Ty::S16x2 => Ty::S16,
        other => other,
    }
}

/// Converts one value of type `from` (raw bits) to type `to`.
pub fn convert(op: &CvtOp, bits: u64, from: Ty, to: Ty) -> u64 {
    let from_bits = from.bits().min(64);
    let to_bits = to.bits().min(64);
    let bits = bits & mask(from_bits);
    match (from.format(), to.format()) {
        (None, None) => {
            if op.sat {
                let v = if from.is_signed() {
                    i128::from(sext(bits, from_bits))
                } else {
                    i128::from(bits)
                };
                let (lo, hi) = int_range(to);
                v.clamp(lo, hi) as u64 & mask(to_bits)
            } else if from.is_signed() {
                sext(bits, from_bits) as u64 & mask(to_bits)
            } else {
                bits & mask(to_bits)
            }
        }
        (Some(format), None) => {
            let bits = if op.ftz { format.flush(bits) } else { bits };
            let x = format.to_f64(bits);
            if x.is_nan() {
                // NaN converts to 0, except from f64 or to 64-bit integers:
                // then to the destination's sign bit alone.
                return if to_bits == 64 || format == softfloat::F64 {
                    1 << (to_bits - 1)
                } else {
                    0
                };
            }
            let mode = op.int_rounding.or(op.rounding).unwrap_or(Rounding::Zero);
            let r = round_integral(x, mode);
            let (lo, hi) = int_range(to);
            let v = if r <= lo as f64 {
                lo
            } else if r >= hi as f64 {
                hi
            } else {
                r as i128
            };
            v as u64 & mask(to_bits)
        }
        (None, Some(format)) => {
            let v = if from.is_signed() {
                i128::from(sext(bits, from_bits))
            } else {
                i128::from(bits)
            };
            let x = v as f64;
            let tail = (v - x as i128).signum() as i32;
            let mode = op.rounding.unwrap_or(Rounding::Nearest);
            let r = softfloat::round(x, tail, mode, format);
            finish(op, r, format)
        }
        (Some(ff), Some(tf)) => {
            // `.ftz` flushes f32 sources, except toward f16, whose
            // subnormals cover the f32 subnormals' results anyway: the GPU
            // rounds those (`cvt.rp.ftz.f16.f32` of the smallest f32
            // subnormal is the smallest f16 subnormal).
            let bits = if op.ftz && ff == softfloat::F32 && tf != softfloat::F16 {
                ff.flush(bits)
            } else {
                bits
            };
            let x = ff.to_f64(bits);
            if x.is_nan() {
                if op.ftz && !op.sat {
                    // With `.ftz` the value passes the f32 unit, which
                    // gives its canonical NaN.
                    if ff == softfloat::BF16 && tf == softfloat::F32 {
                        return softfloat::F32.canonical_nan();
                    }
                    if ff == softfloat::F32 && tf == softfloat::F64 {
                        return 0x7fff_ffff_e000_0000;
                    }
                }
                return nan_of(op, bits, ff, tf, to);
            }
            let r = if let Some(mode) = op.int_rounding {
                tf.encode(round_integral(x, mode), Rounding::Nearest)
            } else if op.satfinite && x.is_infinite() {
                tf.max_finite(x < 0.0)
            } else {
                let mode = op.rounding.unwrap_or(Rounding::Nearest);
                let r = softfloat::round(x, 0, mode, tf);
                if op.satfinite && tf.is_inf(r) {
                    tf.max_finite(x < 0.0)
                } else {
                    r
                }
            };
            let r = if to == Ty::Tf32 { r << 13 } else { r };
            let format = if to == Ty::Tf32 { softfloat::F32 } else { tf };
            finish(op, r, format)
        }
    }
}

/// The result of converting a NaN, as the GPU does it: `.sat` gives +0;
/// conversions to f64 and from f64 keep the payload (quieted); bf16 → f32 is
/// a plain shift; tf32 drops the low bits with `.rna` and is the canonical
/// NaN with `.rn`/`.rz`; everything else gives the canonical NaN.
fn nan_of(op: &CvtOp, bits: u64, from: Format, to: Format, to_ty: Ty) -> u64 {
    if op.sat {
        return 0;
    }
    if to_ty == Ty::Tf32 && op.rounding != Some(Rounding::NearestAway) {
        // The `.rn`/`.rz` forms give the canonical NaN in tf32's bits.
        return 0x7fff_e000;
    }
    if to_ty == Ty::Tf32 {
        // `.satfinite` turns the all-ones exponent into the largest finite
        // one: one tf32 unit less, payload bits kept.
        return if op.satfinite {
            (bits & !0x1fff) - 0x2000
        } else {
            bits & !0x1fff
        };
    }
    if from == softfloat::BF16 && to == softfloat::F32 {
        return bits << 16;
    }
    if to == softfloat::F64 || from == softfloat::F64 {
        let sign = u64::from(from.is_negative(bits)) << (to.bits() - 1);
        let fraction = bits & ((1 << from.frac_bits) - 1);
        let payload = if to.frac_bits >= from.frac_bits {
            // (Same width included: f64 to f64 keeps the whole payload.)
            fraction << (to.frac_bits - from.frac_bits)
        } else {
            fraction >> (from.frac_bits - to.frac_bits)
        };
        let quiet = 1 << (to.frac_bits - 1);
        return sign | to.infinity(false) | payload | quiet;
    }
    to.canonical_nan()
}

fn finish(op: &CvtOp, bits: u64, format: Format) -> u64 {
    let mut r = bits;
    if op.ftz && format == softfloat::F32 {
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

fn int_range(ty: Ty) -> (i128, i128) {
    let bits = ty.bits().min(64);
    if ty.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(dst: Ty, src: Ty) -> CvtOp {
        CvtOp {
            dst,
            src,
            rounding: None,
            int_rounding: None,
            ftz: false,
            sat: false,
            relu: false,
            satfinite: false,
        }
    }

    #[test]
    fn float_to_int_saturates_and_nan_is_zero() {
        let mut o = op(Ty::U8, Ty::F32);
        o.int_rounding = Some(Rounding::Nearest);
        assert_eq!(convert(&o, 0x4380_0000, Ty::F32, Ty::U8), 255); // 256.0
        assert_eq!(convert(&o, 0xbf80_0000, Ty::F32, Ty::U8), 0);
        assert_eq!(convert(&o, 0x7fc0_0000, Ty::F32, Ty::U8), 0);
        assert_eq!(convert(&o, 0x3fc0_0000, Ty::F32, Ty::U8), 2); // 1.5 → 2
        let o = op(Ty::F32, Ty::U64);
        assert_eq!(convert(&o, u64::MAX, Ty::U64, Ty::F32), 0x5f80_0000);
    }
}
