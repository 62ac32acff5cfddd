//! Correctly rounded floating-point primitives for every PTX float format.
//!
//! Arithmetic is done in `f64` together with the sign of the exact error (the
//! "tail"), which is enough to round the exact result to any narrower format
//! in any rounding mode: binary16, bfloat16, binary32, tf32, e4m3 and e5m2
//! values are all exact in `f64`, and their rounding boundaries too.

use std::cmp::Ordering;

/// An IEEE-style rounding direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounding {
    /// To nearest, ties to even (`.rn`).
    Nearest,
    /// Toward zero (`.rz`).
    Zero,
    /// Toward negative infinity (`.rm`).
    Down,
    /// Toward positive infinity (`.rp`).
    Up,
    /// To nearest, ties away from zero (`.rna`).
    NearestAway,
}

/// A binary floating-point format: exponent and fraction widths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    pub exp_bits: u32,
    pub frac_bits: u32,
    /// e4m3 has no infinities: the all-ones exponent still holds numbers.
    pub finite_only: bool,
}

pub const F16: Format = Format::ieee(5, 10);
pub const BF16: Format = Format::ieee(8, 7);
pub const F32: Format = Format::ieee(8, 23);
pub const F64: Format = Format::ieee(11, 52);
/// tf32 keeps binary32's layout; the low 13 fraction bits are zero.
pub const TF32: Format = Format::ieee(8, 10);
pub const E5M2: Format = Format::ieee(5, 2);
pub const E4M3: Format = Format {
    exp_bits: 4,
    frac_bits: 3,
    finite_only: true,
};

impl Format {
    pub const fn ieee(exp_bits: u32, frac_bits: u32) -> Format {
        Format {
            exp_bits,
            frac_bits,
            finite_only: false,
        }
    }

    pub fn bits(self) -> u32 {
        1 + self.exp_bits + self.frac_bits
    }

    fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }

    fn sign_bit(self) -> u64 {
        1 << (self.exp_bits + self.frac_bits)
    }

    fn exp_mask(self) -> u64 {
        ((1u64 << self.exp_bits) - 1) << self.frac_bits
    }

    fn frac_mask(self) -> u64 {
        (1u64 << self.frac_bits) - 1
    }

    fn all(self) -> u64 {
        if self.bits() >= 64 {
            u64::MAX
        } else {
            (1u64 << self.bits()) - 1
        }
    }

    pub fn is_nan(self, bits: u64) -> bool {
        let magnitude = bits & self.all() & !self.sign_bit();
        if self.finite_only {
            magnitude == self.exp_mask() | self.frac_mask()
        } else {
            magnitude & self.exp_mask() == self.exp_mask() && magnitude & self.frac_mask() != 0
        }
    }

    pub fn is_inf(self, bits: u64) -> bool {
        !self.finite_only && bits & self.all() & !self.sign_bit() == self.exp_mask()
    }

    pub fn is_subnormal(self, bits: u64) -> bool {
        bits & self.exp_mask() == 0 && bits & self.frac_mask() != 0
    }

    pub fn is_negative(self, bits: u64) -> bool {
        bits & self.sign_bit() != 0
    }

    pub fn sign(self, bits: u64) -> u64 {
        bits & self.sign_bit()
    }

    pub fn abs(self, bits: u64) -> u64 {
        bits & !self.sign_bit()
    }

    pub fn neg(self, bits: u64) -> u64 {
        bits ^ self.sign_bit()
    }

    pub fn zero(self, negative: bool) -> u64 {
        if negative {
            self.sign_bit()
        } else {
            0
        }
    }

    pub fn infinity(self, negative: bool) -> u64 {
        if self.finite_only {
            return self.max_finite(negative);
        }
        self.zero(negative) | self.exp_mask()
    }

    pub fn max_finite(self, negative: bool) -> u64 {
        let magnitude = if self.finite_only {
            (self.exp_mask() | self.frac_mask()) - 1
        } else {
            self.exp_mask() - 1
        };
        self.zero(negative) | magnitude
    }

    /// The quiet NaN with all fraction bits set, the GPU's canonical NaN.
    pub fn canonical_nan(self) -> u64 {
        self.exp_mask() | self.frac_mask()
    }

    /// Flushes a subnormal to a zero of the same sign.
    pub fn flush(self, bits: u64) -> u64 {
        if self.is_subnormal(bits) {
            self.sign(bits)
        } else {
            bits
        }
    }

    /// The exact value of `bits`.
    pub fn to_f64(self, bits: u64) -> f64 {
        if self == F64 {
            return f64::from_bits(bits);
        }
        if self == F32 {
            return f64::from(f32::from_bits(bits as u32));
        }
        if self == BF16 {
            return f64::from(f32::from_bits((bits as u32 & 0xffff) << 16));
        }
        let negative = self.is_negative(bits);
        let exp = ((bits & self.exp_mask()) >> self.frac_bits) as i32;
        let frac = bits & self.frac_mask();
        let magnitude = if self.is_nan(bits) {
            f64::NAN
        } else if self.is_inf(bits) {
            f64::INFINITY
        } else if exp == 0 {
            frac as f64 * pow2(1 - self.bias() - self.frac_bits as i32)
        } else {
            (frac | 1 << self.frac_bits) as f64 * pow2(exp - self.bias() - self.frac_bits as i32)
        };
        if negative {
            -magnitude
        } else {
            magnitude
        }
    }

    /// Rounds an `f64` to this format (exact input, no tail).
    pub fn encode(self, x: f64, mode: Rounding) -> u64 {
        if self == F32 && mode == Rounding::Nearest && !x.is_nan() {
            // The host conversion rounds to nearest even, subnormals included.
            return u64::from((x as f32).to_bits());
        }
        round(x, 0, mode, self)
    }
}

/// 2^e as an `f64` (exact for -1074 ≤ e ≤ 1023).
pub fn pow2(e: i32) -> f64 {
    if e >= -1022 {
        f64::from_bits(((e + 1023).clamp(0, 2046) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e + 1074).clamp(0, 51))
    }
}

/// Rounds the exact value `x + ε` to `format`, where ε is infinitesimal with
/// the sign of `tail` (-1, 0 or 1). `x` must not be NaN; infinities pass.
pub fn round(x: f64, tail: i32, mode: Rounding, format: Format) -> u64 {
    round_scaled(x, 0, tail, mode, format)
}

/// Rounds `x · 2^scale + ε` (see [`round`]); the scale lets results that
/// over- or underflow `f64` itself round correctly.
pub fn round_scaled(x: f64, scale: i32, tail: i32, mode: Rounding, format: Format) -> u64 {
    let negative = x.is_sign_negative();
    if x.is_nan() {
        return format.canonical_nan();
    }
    if x.is_infinite() {
        return format.infinity(negative);
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let (mantissa, e) = if exp == 0 {
        (bits & ((1 << 52) - 1), -1074 + scale)
    } else {
        ((bits & ((1 << 52) - 1)) | 1 << 52, exp - 1075 + scale)
    };
    if mantissa == 0 {
        // An exact zero; a nonzero tail cannot happen for correctly rounded
        // f64 intermediates, but keep directed modes honest anyway.
        return match (tail.cmp(&0), mode) {
            (Ordering::Greater, Rounding::Up) => 1,
            (Ordering::Less, Rounding::Down) => format.sign_bit() | 1,
            _ => format.zero(negative),
        };
    }
    let fb = format.frac_bits as i32;
    let emin = 1 - format.bias();
    let msb = 63 - mantissa.leading_zeros() as i32;
    let log2 = msb + e;
    let mut q = (log2 - fb).max(emin - fb);
    let k = q - e;
    // Position of the dropped bits relative to half an ulp.
    let (mut kept, position) = if k <= 0 {
        (mantissa << (-k).min(63), Ordering::Less)
    } else if k > 60 {
        (0, Ordering::Less)
    } else {
        let kept = mantissa >> k;
        let rem = mantissa & ((1u64 << k) - 1);
        let half = 1u64 << (k - 1);
        (kept, rem.cmp(&half))
    };
    let exact = k <= 0 || (k <= 60 && mantissa & ((1u64 << k) - 1) == 0);
    let exact = exact && (k <= 60);
    let tail = if negative { -tail } else { tail };
    let away_mode = match mode {
        Rounding::Up => !negative,
        Rounding::Down => negative,
        _ => false,
    };
    let toward_zero = match mode {
        Rounding::Zero => true,
        Rounding::Up => negative,
        Rounding::Down => !negative,
        _ => false,
    };
    let mut step_down = false;
    let round_up = if exact {
        if tail < 0 && toward_zero {
            step_down = true;
        }
        away_mode && tail > 0
    } else if away_mode {
        true
    } else if toward_zero {
        false
    } else {
        match position {
            Ordering::Greater => true,
            Ordering::Less => false,
            Ordering::Equal => match tail.cmp(&0) {
                Ordering::Greater => true,
                Ordering::Less => false,
                Ordering::Equal => mode == Rounding::NearestAway || kept & 1 == 1,
            },
        }
    };
    if round_up {
        kept += 1;
        if kept == 1 << (fb + 1) {
            kept >>= 1;
            q += 1;
        }
    } else if step_down {
        if kept == 1 << fb && q > emin - fb {
            kept = (1 << (fb + 1)) - 1;
            q -= 1;
        } else {
            kept -= 1;
        }
    }
    let sign = format.zero(negative);
    if kept == 0 {
        return sign;
    }
    let magnitude = if kept < 1 << fb {
        kept
    } else {
        let biased = q + fb + format.bias();
        if biased >= (1 << format.exp_bits) - 1 + i32::from(format.finite_only) {
            return overflow(negative, mode, format);
        }
        (biased as u64) << fb | (kept - (1 << fb))
    };
    if format.finite_only && magnitude > format.max_finite(false) {
        return overflow(negative, mode, format);
    }
    sign | magnitude
}

fn overflow(negative: bool, mode: Rounding, format: Format) -> u64 {
    let to_infinity = match mode {
        Rounding::Nearest | Rounding::NearestAway => true,
        Rounding::Zero => false,
        Rounding::Up => !negative,
        Rounding::Down => negative,
    };
    if to_infinity {
        format.infinity(negative)
    } else {
        format.max_finite(negative)
    }
}

/// `a + b` exactly, as the rounded sum and its error.
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    (s, err)
}

fn sign_of(x: f64) -> i32 {
    if x > 0.0 {
        1
    } else if x < 0.0 {
        -1
    } else {
        0
    }
}

/// The sign of the exact sum of `values` (Shewchuk's grow-expansion).
pub fn exact_sum_sign(values: &[f64]) -> i32 {
    let mut expansion: Vec<f64> = Vec::with_capacity(values.len() * 2);
    for &value in values {
        let mut q = value;
        let mut next = Vec::with_capacity(expansion.len() + 1);
        for &component in &expansion {
            let (s, e) = two_sum(q, component);
            if e != 0.0 {
                next.push(e);
            }
            q = s;
        }
        next.push(q);
        expansion = next;
    }
    expansion
        .iter()
        .rev()
        .map(|&c| sign_of(c))
        .find(|&s| s != 0)
        .unwrap_or(0)
}

/// An exactly known real: `value · 2^scale` plus an infinitesimal with the
/// sign of `tail`.
#[derive(Debug, Clone, Copy)]
pub struct Exact {
    pub value: f64,
    pub scale: i32,
    pub tail: i32,
}

impl Exact {
    fn plain(value: f64) -> Exact {
        Exact {
            value,
            scale: 0,
            tail: 0,
        }
    }

    pub fn round(self, mode: Rounding, format: Format) -> u64 {
        round_scaled(self.value, self.scale, self.tail, mode, format)
    }

    /// Whether the exact value is zero.
    pub fn is_zero(self) -> bool {
        self.value == 0.0 && self.tail == 0
    }
}

/// `x = m · 2^e` with `0.5 ≤ |m| < 1`, for finite nonzero `x`.
fn frexp(x: f64) -> (f64, i32) {
    let (x, bias) = if x.abs() < f64::MIN_POSITIVE {
        (x * pow2(64), -64)
    } else {
        (x, 0)
    };
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let m = f64::from_bits(bits & !(0x7ff << 52) | (1022u64 << 52));
    (m, exp - 1022 + bias)
}

fn special(x: f64) -> bool {
    !x.is_finite() || x == 0.0
}

pub fn add(a: f64, b: f64) -> Exact {
    let (s, e) = two_sum(a, b);
    if s.is_infinite() && a.is_finite() && b.is_finite() {
        // Overflow: halving is exact for operands this large.
        let (s, e) = two_sum(a * 0.5, b * 0.5);
        return Exact {
            value: s,
            scale: 1,
            tail: sign_of(e),
        };
    }
    Exact {
        value: s,
        scale: 0,
        tail: if s.is_finite() { sign_of(e) } else { 0 },
    }
}

pub fn mul(a: f64, b: f64) -> Exact {
    if special(a) || special(b) {
        return Exact::plain(a * b);
    }
    let (ma, ea) = frexp(a);
    let (mb, eb) = frexp(b);
    let p = ma * mb;
    Exact {
        value: p,
        scale: ea + eb,
        tail: sign_of(ma.mul_add(mb, -p)),
    }
}

pub fn fma(a: f64, b: f64, c: f64) -> Exact {
    if !a.is_finite() || !b.is_finite() || !c.is_finite() {
        return Exact::plain(a.mul_add(b, c));
    }
    if a == 0.0 || b == 0.0 {
        return add(a * b, c);
    }
    let (ma, ea) = frexp(a);
    let (mb, eb) = frexp(b);
    let ep = ea + eb;
    if c == 0.0 {
        return mul(a, b);
    }
    let (_, ec) = frexp(c);
    // A `c` far below the product only breaks ties and sets the direction: any nonzero value
    // under the exact product's last bit (2^-106 at the product's scale) rounds the same way,
    // so it stands in for `c` (the exact product can be a tie between two f64 values).
    let c_far_below = ec < ep - 200;
    if ep < ec - 200 {
        return Exact {
            value: c,
            scale: 0,
            tail: sign_of(a) * sign_of(b),
        };
    }
    // Work at the product's scale, where nothing over- or underflows.
    let c_scaled = if c_far_below {
        sign_of(c) as f64 * pow2(-150)
    } else {
        c * pow2(-ep.clamp(-1000, 1000)) * pow2(-(ep - ep.clamp(-1000, 1000)))
    };
    let s = ma.mul_add(mb, c_scaled);
    let p = ma * mb;
    let p_lo = ma.mul_add(mb, -p);
    Exact {
        value: s,
        scale: ep,
        tail: exact_sum_sign(&[p, p_lo, c_scaled, -s]),
    }
}

pub fn div(a: f64, b: f64) -> Exact {
    if special(a) || special(b) {
        return Exact::plain(a / b);
    }
    let (ma, ea) = frexp(a);
    let (mb, eb) = frexp(b);
    let q = ma / mb;
    let r = (-q).mul_add(mb, ma);
    Exact {
        value: q,
        scale: ea - eb,
        tail: sign_of(r) * sign_of(mb),
    }
}

pub fn sqrt(a: f64) -> Exact {
    if special(a) || a < 0.0 {
        return Exact::plain(a.sqrt());
    }
    let (mut m, mut e) = frexp(a);
    if e % 2 != 0 {
        m *= 2.0;
        e -= 1;
    }
    let s = m.sqrt();
    Exact {
        value: s,
        scale: e / 2,
        tail: sign_of((-s).mul_add(s, m)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary32_rounding_matches_the_host_in_nearest_mode() {
        for &x in &[
            1.0f64,
            1.0 + 1e-9,
            3.4e38,
            3.5e38,
            1e-40,
            1e-46,
            -2.5e-45,
            0.1,
        ] {
            assert_eq!(
                round(x, 0, Rounding::Nearest, F32),
                u64::from((x as f32).to_bits())
            );
        }
    }

    #[test]
    fn directed_modes_use_the_tail() {
        let one = 1.0f64;
        assert_eq!(round(one, -1, Rounding::Zero, F32), 0x3f7f_ffff);
        assert_eq!(round(one, -1, Rounding::Nearest, F32), 0x3f80_0000);
        assert_eq!(round(one, 1, Rounding::Up, F32), 0x3f80_0001);
        assert_eq!(round(-one, 1, Rounding::Zero, F32), 0xbf7f_ffff);
        assert_eq!(
            round(1.0 + pow2(-24), 0, Rounding::Nearest, F32),
            0x3f80_0000
        );
        assert_eq!(
            round(1.0 + pow2(-24), 1, Rounding::Nearest, F32),
            0x3f80_0001
        );
        assert_eq!(round(65520.0, 0, Rounding::Nearest, F16), 0x7c00);
        assert_eq!(round(65520.0, 0, Rounding::Zero, F16), 0x7bff);
        assert_eq!(round(1000.0, 0, Rounding::Nearest, E4M3), 0x7e);
        assert_eq!(round(448.0, 0, Rounding::Nearest, E4M3), 0x7e);
        assert_eq!(F16.to_f64(0x0001), pow2(-24));
        assert_eq!(BF16.to_f64(0x3f80), 1.0);
    }

    #[test]
    fn fma_tail_is_exact() {
        let r = fma(1.0 + pow2(-30), 1.0 + pow2(-30), -1.0);
        assert_eq!(
            r.round(Rounding::Nearest, F64),
            (pow2(-29) + pow2(-60)).to_bits()
        );
        assert_eq!(r.tail, 0);
        // A product below the smallest subnormal still rounds away in directed modes.
        let tiny = fma(pow2(-1074), -0.5, 0.0);
        assert_eq!(tiny.round(Rounding::Down, F64), 0x8000_0000_0000_0001);
        assert_eq!(tiny.round(Rounding::Nearest, F64), 0x8000_0000_0000_0000);
        let big = mul(f64::MAX, 1.5);
        assert_eq!(big.round(Rounding::Zero, F64), f64::MAX.to_bits());
        assert_eq!(
            div(0.1, -pow2(-1074)).round(Rounding::Zero, F64),
            (-f64::MAX).to_bits()
        );
        assert_eq!(exact_sum_sign(&[1e300, -1e300, 1e-300]), 1);
    }

    #[test]
    fn a_far_smaller_addend_breaks_a_tie_of_the_product() {
        // a · 1.5 lies exactly between two f64 values; the smallest normal added to it
        // tips it upward (the H100 gives ...439; rounding the product alone gave ...438).
        let a = f64::from_bits(0x47f0_74f8_c4d3_cd7b);
        let r = fma(a, 1.5, f64::MIN_POSITIVE);
        assert_eq!(r.round(Rounding::Nearest, F64), 0x47f8_af75_273d_b439);
        let r = fma(a, 1.5, -f64::MIN_POSITIVE);
        assert_eq!(r.round(Rounding::Nearest, F64), 0x47f8_af75_273d_b438);
        assert_eq!(r.round(Rounding::Zero, F64), 0x47f8_af75_273d_b438);
        let r = fma(a, 1.5, 0.0);
        assert_eq!(r.round(Rounding::Nearest, F64), 0x47f8_af75_273d_b438);
    }
}
