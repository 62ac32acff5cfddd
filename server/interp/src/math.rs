//! Approximate functions (`sin.approx`, `ex2.approx`, `rcp.approx` ...).
//!
//! The GPU computes these with its special-function unit; the f32 forms it
//! reproduces bit for bit come from `mufu` (measured tables). What reaches
//! this module (special inputs, `tanh.approx.f32`) is the exact function in
//! `f64`, rounded to nearest; the GPU fixtures measure the remaining
//! difference in ulps.

use crate::float::FloatKind;
use crate::softfloat::{Format, Rounding, F32};

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
