//! Approximate functions (`sin.approx`, `ex2.approx`, `rcp.approx` ...).
//!
//! The GPU computes these with its special-function unit to a documented
//! error bound; we compute the exact function in `f64` and round to nearest.
//! The GPU fixtures measure the remaining difference in ulps.

use crate::float::FloatKind;
use crate::softfloat::{Format, Rounding};

/// The value of approximate operation `kind` on `x` (and `y` for division).
pub fn approximate(kind: FloatKind, x: f64, y: f64, format: Format) -> u64 {
    let value = match kind {
        FloatKind::DivFull | FloatKind::DivApprox => x / y,
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
    format.from_f64(value, Rounding::Nearest)
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

/// Distance in units in the last place between two values of `format`
/// (0 when both are NaN; `u64::MAX` when only one is).
pub fn ulp_distance(a: u64, b: u64, format: Format) -> u64 {
    if format.is_nan(a) || format.is_nan(b) {
        return if format.is_nan(a) && format.is_nan(b) { 0 } else { u64::MAX };
    }
    let key = |bits: u64| -> i128 {
        let magnitude = i128::from(format.abs(bits));
        if format.is_negative(bits) {
            -magnitude
        } else {
            magnitude
        }
    };
    (key(a) - key(b)).unsigned_abs() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::softfloat::F32;

    #[test]
    fn ulps_cross_zero() {
        assert_eq!(ulp_distance(0x3f80_0000, 0x3f80_0001, F32), 1);
        assert_eq!(ulp_distance(0x8000_0000, 0x0000_0000, F32), 0);
        assert_eq!(ulp_distance(0x8000_0001, 0x0000_0001, F32), 2);
    }
}
