//! The tensor core's dot products for `wgmma.mma_async`, as measured on an
//! H100 (`tests/interp/wgmma_fixtures.py`, `fixtures/WGMMA.md`); the
//! floating-point forms of `mma.sync` and `wmma.mma` use the same rule
//! ([`float`], [`float_in_steps`]), which matches every float row of their
//! GPU fixtures (`fixtures/MISMATCHES.md`).
//!
//! Floating-point forms: the products of the inputs are exact; the
//! accumulator and the products of one group are aligned to the largest
//! exponent among them, where a product's exponent is the sum of its inputs'
//! exponents (the mantissa product's carry is not counted), each term is cut
//! toward zero to whole units of 2^(emax - bits), the units are summed
//! exactly and the sum is cut toward zero to its precision (f32's, or 14
//! significant bits for fp8 inputs), which becomes the accumulator of the
//! next group. An f16 destination is the aligned sum rounded to nearest f16.
//! A subnormal input counts with its type's least normal exponent; an f32
//! sum beyond the range is an infinity, one below it +0. Integer forms are
//! exact (`.satfinite` clamps, otherwise the sum wraps); `.b1` adds the
//! population counts of `a AND b`.

use crate::ir::Ty;
use crate::softfloat::{self, Format, Rounding};
use crate::warpgroup::Mma;

/// How one input type's products are summed: products per fused group,
/// bits kept below the group's largest exponent, and bits kept below the
/// leading bit of each group's sum.
#[derive(Debug, Clone, Copy)]
pub struct Fusion {
    pub group: usize,
    pub bits: i32,
    pub precision: u32,
}

/// Measured per input type (`fixtures/WGMMA.md`): f16, bf16 and tf32 sum
/// all the products of one instruction (16 or 8) with the accumulator,
/// keeping 25 bits below the largest exponent, into an f32; e4m3 and e5m2
/// sum all 32, keeping 13 bits, and the sum keeps 13 bits below its
/// leading bit (14 significant bits) when the destination is f32.
pub fn fusion(a: Ty) -> Fusion {
    match a {
        Ty::E4m3 | Ty::E5m2 => Fusion {
            group: 32,
            bits: 13,
            precision: 13,
        },
        _ => Fusion {
            group: 16,
            bits: 25,
            precision: 23,
        },
    }
}

/// An input element as an exact `f64`.
fn input(bits: u64, ty: Ty) -> f64 {
    match ty {
        Ty::F16 => softfloat::F16.to_f64(bits),
        Ty::Bf16 => softfloat::BF16.to_f64(bits),
        // The low 13 bits of a tf32 operand are ignored.
        Ty::Tf32 => softfloat::F32.to_f64(bits & 0xffff_e000),
        Ty::E4m3 => softfloat::E4M3.to_f64(bits),
        Ty::E5m2 => softfloat::E5M2.to_f64(bits),
        _ => 0.0,
    }
}

/// The binary exponent of a finite non-zero `f64`: 2^e ≤ |x| < 2^(e+1).
fn exponent(x: f64) -> i32 {
    let bits = x.abs().to_bits();
    let biased = (bits >> 52) as i32;
    if biased == 0 {
        -1011 - bits.leading_zeros() as i32
    } else {
        biased - 1023
    }
}

/// The exponent an input contributes to the alignment: its own, or the
/// smallest normal exponent of its type for a subnormal (measured: e5m2 ×
/// subnormal e4m3 products align as if the subnormal's exponent were -6).
fn input_exponent(x: f64, ty: Ty) -> i32 {
    let least = match ty {
        Ty::F16 | Ty::E5m2 => -14,
        Ty::E4m3 => -6,
        _ => -126,
    };
    exponent(x).max(least)
}

/// One element of D: row `a` of A, column `b` of B (`flip_b` XORed into
/// each B element: `imm-scale-b = -1`), accumulator bits `acc` (used when
/// `scale_d`).
pub fn dot(mma: &Mma, a: &[u64], b: &[u64], flip_b: u64, acc: u64, scale_d: bool) -> u64 {
    match mma.d {
        Ty::S32 => int_dot(mma, a, b, acc, scale_d),
        _ => float_dot(mma, a, b, flip_b, acc, scale_d),
    }
}

fn int_dot(mma: &Mma, a: &[u64], b: &[u64], acc: u64, scale_d: bool) -> u64 {
    let value = |bits: u64, ty: Ty| -> i64 {
        match ty {
            Ty::S8 => bits as u8 as i8 as i64,
            _ => (bits & 0xff) as i64,
        }
    };
    let products: i64 = if mma.b1 {
        a.iter().zip(b).map(|(&x, &y)| (x & y & 1) as i64).sum()
    } else {
        a.iter()
            .zip(b)
            .map(|(&x, &y)| value(x, mma.a) * value(y, mma.b))
            .sum()
    };
    let c = if scale_d {
        i64::from(acc as u32 as i32)
    } else {
        0
    };
    let sum = products + c;
    let result = if mma.satfinite {
        sum.clamp(i64::from(i32::MIN), i64::from(i32::MAX))
    } else {
        sum
    };
    result as u64 & 0xffff_ffff
}

fn float_dot(mma: &Mma, a: &[u64], b: &[u64], flip_b: u64, acc: u64, scale_d: bool) -> u64 {
    let types = Types {
        d: mma.d,
        c: mma.d,
        a: mma.a,
        b: mma.b,
    };
    let b: Vec<u64> = b.iter().map(|&y| y ^ flip_b).collect();
    float(types, a, &b, scale_d.then_some(acc))
}

/// The types of a floating-point tensor-core dot product: destination,
/// accumulator and the two inputs.
#[derive(Debug, Clone, Copy)]
pub struct Types {
    pub d: Ty,
    pub c: Ty,
    pub a: Ty,
    pub b: Ty,
}

/// [`float`] over `step` products at a time, as a tensor core that issues
/// one instruction as several: each step's f32 result is the accumulator of
/// the next, the last step writes the destination type.
pub fn float_in_steps(types: Types, a: &[u64], b: &[u64], acc: Option<u64>, step: usize) -> u64 {
    let step = step.max(1);
    let mut types = types;
    let mut acc = acc;
    let mut start = 0;
    while a.len() - start > step {
        let end = start + step;
        let partial = Types {
            d: Ty::F32,
            ..types
        };
        acc = Some(float(partial, &a[start..end], &b[start..end], acc));
        types.c = Ty::F32;
        start = end;
    }
    float(types, &a[start..], &b[start..], acc)
}

/// One element of `D = A·B + C` for the floating-point forms of `wgmma`,
/// `mma.sync` and `wmma.mma`: a row of A and a column of B (raw bits) and
/// the accumulator's bits (`None`: no accumulator, as `scale-d = 0`).
pub fn float(types: Types, a: &[u64], b: &[u64], acc: Option<u64>) -> u64 {
    let out: Format = if types.d == Ty::F16 {
        softfloat::F16
    } else {
        softfloat::F32
    };
    let c = match acc {
        None => 0.0,
        Some(acc) if types.c == Ty::F16 => softfloat::F16.to_f64(acc),
        Some(acc) => softfloat::F32.to_f64(acc),
    };
    let xs: Vec<f64> = a.iter().map(|&x| input(x, types.a)).collect();
    let ys: Vec<f64> = b.iter().map(|&y| input(y, types.b)).collect();
    // A zero times a non-zero (subnormal) input is +0 whatever the signs, as
    // products below the range are (held-out snippet: 2^-127 · -0 + -0
    // summed to +0 on the H100).
    let products: Vec<f64> = xs
        .iter()
        .zip(&ys)
        .map(|(&x, &y)| {
            if (x == 0.0) != (y == 0.0) && x.is_finite() && y.is_finite() {
                0.0
            } else {
                x * y
            }
        })
        .collect();
    // Special values: any NaN (or 0 × ∞, ∞ - ∞) gives the canonical NaN, an
    // infinity of one sign that infinity.
    if c.is_nan() || products.iter().any(|p| p.is_nan()) {
        return out.canonical_nan();
    }
    let infinities: Vec<f64> = products
        .iter()
        .copied()
        .chain([c])
        .filter(|t| t.is_infinite())
        .collect();
    if let Some(&first) = infinities.first() {
        if infinities.iter().any(|&t| t != first) {
            return out.canonical_nan();
        }
        return out.infinity(first < 0.0);
    }
    let mut fusion = fusion(types.a);
    if types.d == Ty::F16 {
        // Measured: an f16 destination rounds the whole aligned sum, uncut
        // (ties of the f32 cut show it; fp8 inputs keep more than 14 bits).
        fusion.precision = 127;
    }
    let mut accumulator = c;
    let mut bits = 0u64;
    // The last group's exact aligned sum; `None` when every term was zero.
    let mut exact: Option<f64> = None;
    let mut negative_zero = false;
    let mut start = 0;
    while start < products.len() {
        let end = (start + fusion.group).min(products.len());
        let mut emax: Option<i32> = None;
        for i in start..end {
            if products[i] != 0.0 {
                let e = input_exponent(xs[i], types.a) + input_exponent(ys[i], types.b);
                emax = Some(emax.map_or(e, |m| m.max(e)));
            }
        }
        if accumulator != 0.0 {
            let e = exponent(accumulator);
            emax = Some(emax.map_or(e, |m| m.max(e)));
        }
        bits = match emax {
            None => {
                // Only zeros: -0 when every term is -0.
                negative_zero = products[start..end]
                    .iter()
                    .chain([&accumulator])
                    .all(|t| t.is_sign_negative());
                exact = None;
                softfloat::F32.zero(negative_zero)
            }
            Some(emax) => {
                let unit = emax - fusion.bits;
                let scale = softfloat::pow2(-unit);
                let mut sum: i128 = products[start..end]
                    .iter()
                    .chain([&accumulator])
                    .map(|t| (t * scale).trunc() as i128)
                    .sum();
                // Cut to `precision` bits below the leading bit, toward zero.
                let lead = 127u32.saturating_sub(sum.unsigned_abs().leading_zeros());
                if sum != 0 && lead > fusion.precision {
                    let drop = lead - fusion.precision;
                    sum = (sum.unsigned_abs() >> drop << drop) as i128 * sum.signum();
                }
                let value = sum as f64 * softfloat::pow2(unit);
                exact = Some(value);
                if sum == 0 {
                    0
                } else if value.abs() >= softfloat::pow2(128) {
                    // Measured: a sum beyond the f32 range is an infinity,
                    // though in-range sums are cut toward zero.
                    softfloat::F32.infinity(value < 0.0)
                } else {
                    // A sum below the f32 range is +0 (measured: tf32
                    // products of two subnormals).
                    let bits = softfloat::F32.encode(value, Rounding::Zero);
                    if bits & 0x7fff_ffff == 0 {
                        0
                    } else {
                        bits
                    }
                }
            }
        };
        accumulator = softfloat::F32.to_f64(bits);
        start = end;
    }
    if types.d == Ty::F16 {
        // Measured: the aligned sum itself is rounded to nearest f16 (not
        // its f32 cut, which differs at ties).
        return match exact {
            Some(value) if value != 0.0 => softfloat::F16.encode(value, Rounding::Nearest),
            Some(_) => 0,
            None => softfloat::F16.zero(negative_zero),
        };
    }
    bits
}
