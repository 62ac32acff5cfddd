//! Approximate functions (`sin.approx`, `ex2.approx`, `rcp.approx` ...).
//!
//! The GPU computes these with its special-function unit to a documented
//! error bound; we compute the exact function in `f64` and round to nearest.
//! The GPU fixtures measure the remaining difference in ulps.

use crate::float::FloatKind;
use crate::softfloat::{Format, Rounding, F32};

/// Reduces an f32 angle the way the GPU does before its sine unit: the
/// argument is scaled by 1/2π in single precision, rounded toward zero (an
/// `FMUL.RZ` in ptxas's sm_90 code), so large arguments lose their fraction
/// entirely. The unit then takes the turns as a fixed-point number with 25
/// fraction bits, cut toward zero (on the GPU fixtures, arguments below
/// 2^-25 turns give ±0 and small ones come out of a 2^-25 grid).
fn turns(x: f64) -> f64 {
    let inv_two_pi = f64::from(f32::from_bits(0x3e22_f983));
    let t = F32.to_f64(F32.encode(x * inv_two_pi, Rounding::Zero));
    let t = (t * 33_554_432.0).trunc() / 33_554_432.0;
    t - t.round()
}

/// sin or cos of a fraction of a turn, exact at quarter turns.
fn sin_cos_turns(turn: f64, cosine: bool) -> f64 {
    let quarter = turn * 4.0;
    if quarter == quarter.round() {
        let k = (quarter.round() as i64 + if cosine { 1 } else { 0 }).rem_euclid(4);
        return [0.0, 1.0, 0.0, -1.0][k as usize];
    }
    let angle = turn * std::f64::consts::TAU;
    if cosine {
        angle.cos()
    } else {
        angle.sin()
    }
}

/// The value of approximate operation `kind` on `x` (and `y` for division).
pub fn approximate(kind: FloatKind, x: f64, y: f64, format: Format) -> u64 {
    let value = match kind {
        FloatKind::DivFull => x / y,
        FloatKind::DivApprox => {
            // a × rcp(b), where a reciprocal below the normal range flushes to zero.
            let r = F32.to_f64(F32.encode(1.0 / y, Rounding::Nearest));
            let r = if r.abs() < f64::from(f32::MIN_POSITIVE) {
                0.0f64.copysign(r)
            } else {
                r
            };
            x * r
        }
        FloatKind::RcpApprox => 1.0 / x,
        FloatKind::SqrtApprox => x.sqrt(),
        FloatKind::Rsqrt => 1.0 / x.sqrt(),
        FloatKind::Sin if format == F32 && x.is_finite() && x != 0.0 => {
            let turn = turns(x);
            if turn == 0.0 {
                0.0f64.copysign(x)
            } else {
                sin_cos_turns(turn, false)
            }
        }
        FloatKind::Cos if format == F32 && x.is_finite() => sin_cos_turns(turns(x), true),
        FloatKind::Sin => x.sin(),
        FloatKind::Cos => x.cos(),
        FloatKind::Lg2 => x.log2(),
        FloatKind::Ex2 => x.exp2(),
        FloatKind::Tanh => x.tanh(),
        _ => f64::NAN,
    };
    if value.is_nan() {
        return format.canonical_nan();
    }
    format.encode(value, Rounding::Nearest)
}

/// Rounds `x` to an integral value in the given mode.
pub fn round_integral(x: f64, mode: Rounding) -> f64 {
    match mode {
        Rounding::Nearest => x.round_ties_even(),
        Rounding::NearestAway => x.round(),
        Rounding::Zero => x.trunc(),
        Rounding::Down => x.floor(),
        Rounding::Up => x.ceil(),
    }
}
