//! The special-function unit of sm_90 (`MUFU.RCP`, `MUFU.SQRT`, `MUFU.RSQ`,
//! `MUFU.EX2`, `MUFU.SIN`/`MUFU.COS`) from measured tables, and the approximate PTX instructions that ptxas
//! builds from it.
//!
//! On an H100 each of these functions depends only on the fraction of its
//! input (and, for square roots, the parity of the exponent): every
//! power-of-two (power-of-four) multiple gives the same result bits, scaled.
//! So one binade (two for square roots) measured in full gives the function
//! everywhere (`ex2` splits its input into an integer and a fraction of 23
//! bits instead, and `2^-f` and `2^f` differ in their residuals, so its table
//! covers `[-1, 1)`): `data/mufu_*.bin` holds, for each input of `[1, 2)`
//! (`[1, 4)`, `[-1, 1)`),
//! the GPU's result minus the correctly rounded one, in ulps (-2..=1).
//! `tests/interp/sweeps.py approx` measures them; `tests/interp/mufu_tables.py`
//! packs them. Results below the normal range flush to zero and subnormal
//! inputs count as zero, as the unit does.
//!
//! The PTX instructions wrap the unit as ptxas compiles them for sm_90
//! (read from its machine code): `rcp.approx.f32` and `sqrt.approx.f32`
//! scale subnormal (and, for `rcp`, huge) inputs first, `div.full.f32` scales
//! both operands when the divisor is huge or subnormal and multiplies the
//! dividend by the reciprocal, `div.approx.f32` likewise without the huge
//! case; `ex2.approx.f32` halves inputs below -126 and squares the result;
//! `ex2.approx.f16`/`.bf16` run the f32 unit and cut the result toward zero
//! (overflow gives infinity).

use std::sync::OnceLock;

const RCP: &[u8] = include_bytes!("../data/mufu_rcp.bin");
const SQRT: &[u8] = include_bytes!("../data/mufu_sqrt.bin");
const RSQ: &[u8] = include_bytes!("../data/mufu_rsqrt.bin");
const EX2: &[u8] = include_bytes!("../data/mufu_ex2.bin");
const SIN: &[u8] = include_bytes!("../data/mufu_sin.bin");
const LG2: &[u8] = include_bytes!("../data/mufu_lg2.bin");
const TANH_F16: &[u8] = include_bytes!("../data/mufu_tanh_f16.bin");
const TANH_BF16: &[u8] = include_bytes!("../data/mufu_tanh_bf16.bin");
const TANH_F32: &[u8] = include_bytes!("../data/mufu_tanh_f32.bin");

struct Table {
    packed: Vec<u8>,
}

impl Table {
    fn load(data: &[u8]) -> Table {
        Table {
            packed: miniz_oxide::inflate::decompress_to_vec_zlib(data).unwrap_or_default(),
        }
    }

    /// The residual of input `index` (0 where the table is missing).
    fn residual(&self, index: usize) -> i64 {
        match self.packed.get(index / 4) {
            Some(byte) => i64::from(byte >> (2 * (index % 4)) & 3) - 2,
            None => 0,
        }
    }
}

fn table(which: &'static OnceLock<Table>, data: &[u8]) -> &'static Table {
    which.get_or_init(|| Table::load(data))
}

static RCP_TABLE: OnceLock<Table> = OnceLock::new();
static SQRT_TABLE: OnceLock<Table> = OnceLock::new();
static RSQ_TABLE: OnceLock<Table> = OnceLock::new();
static EX2_TABLE: OnceLock<Table> = OnceLock::new();
static TANH_F16_TABLE: OnceLock<Table> = OnceLock::new();
static TANH_BF16_TABLE: OnceLock<Table> = OnceLock::new();

static SIN_TABLE: OnceLock<Vec<i32>> = OnceLock::new();
static LG2_TABLE: OnceLock<Vec<i32>> = OnceLock::new();

/// Entries of the sine table: one per 2^-25 turn over half a turn.
const SIN_ENTRIES: usize = 1 << 24;
/// Entries of the lg2 table: every f32 of [0.5, 2).
const LG2_ENTRIES: usize = 1 << 24;
const LG2_FIRST: u32 = 0x3f00_0000;

/// Residual tables of 32-bit entries: four zigzag byte planes, lowest first,
/// zlib (`tests/interp/mufu_tables.py sin|lg2`). Empty if damaged.
fn residuals(data: &[u8], entries: usize) -> Vec<i32> {
    let planes = miniz_oxide::inflate::decompress_to_vec_zlib(data).unwrap_or_default();
    if planes.len() != 4 * entries {
        return Vec::new();
    }
    (0..entries)
        .map(|i| {
            let z = u32::from_le_bytes([
                planes[i],
                planes[entries + i],
                planes[2 * entries + i],
                planes[3 * entries + i],
            ]);
            (z >> 1) as i32 ^ -((z & 1) as i32)
        })
        .collect()
}

fn sin_table() -> &'static [i32] {
    SIN_TABLE.get_or_init(|| residuals(SIN, SIN_ENTRIES))
}

fn lg2_table() -> &'static [i32] {
    LG2_TABLE.get_or_init(|| residuals(LG2, LG2_ENTRIES))
}

/// `lg2.approx{.ftz}.f32` on positive finite non-zero inputs (`None`
/// otherwise): the measured table over [0.5, 2); elsewhere, `x = 2^e m`
/// with `m` in [1, 2), the sum `e + lg2(m)` cut toward zero, with `lg2(m)`
/// recovered from the table and a small positive value for `m = 1` (the
/// unit's result at 1 is 0 only for x = 1 itself: other powers of two come
/// out one unit toward zero). Subnormal inputs without `.ftz` are scaled by
/// 2^24 first and 24 taken off, as ptxas's code does. Outside [0.5, 2) the
/// model is checked by the sweep rows (all bit-exact), not measured densely.
pub fn lg2_approx(x: u32, ftz: bool) -> Option<u32> {
    if x == 0 || x >= INF {
        return None;
    }
    if x < MIN_NORMAL {
        if ftz {
            return None;
        }
        let y = lg2_approx(fmul(x, TWO_24, false), false)?;
        return Some((f32::from_bits(y) - 24.0).to_bits());
    }
    if let Some(y) = lg2_measured(x) {
        return Some(y);
    }
    let e = (x >> 23) as i32 - 127;
    let m = x & 0x7f_ffff;
    let l = if m == 0 {
        // Below every ulp of e + l for |e| >= 2, positive.
        2f64.powi(-30)
    } else {
        // The unit's lg2(m) is a fixed-point number with 36 fraction bits;
        // the measured f32 is it cut toward zero. Where the f32's ulp is
        // coarser, the value lies strictly inside the ulp above, and any
        // point there gives the same cut sum (|e| >= 1, so the sum's ulp is
        // no finer than lg2(m)'s).
        let g = f32::from_bits(lg2_measured(0x3f80_0000 | m)?);
        let ulp = f64::from(f32::from_bits(g.to_bits() + 1)) - f64::from(g);
        if ulp <= 2f64.powi(-36) {
            f64::from(g)
        } else {
            f64::from(g) + ulp / 2.0
        }
    };
    let sum = f64::from(e) + l;
    let near = sum as f32;
    let cut = if f64::from(near).abs() > sum.abs() {
        f32::from_bits(near.to_bits() - 1)
    } else {
        near
    };
    Some(cut.to_bits())
}

/// `lg2.approx{.ftz}.f32` where it is measured: every input of [0.5, 2)
/// (`tests/interp/sweeps.py approx`), the rounded log2 plus the table's
/// residual; `None` elsewhere. The unit works in fixed point there (every
/// measured result is a multiple of 2^-36, and its error is absolute, up to
/// 2.2e-7), so near 1 the correctly rounded value is far off in ulps.
pub fn lg2_measured(x: u32) -> Option<u32> {
    let index = x.checked_sub(LG2_FIRST)? as usize;
    let residual = *lg2_table().get(index)?;
    let rounded = (f64::from(f32::from_bits(x)).log2() as f32).to_bits();
    Some(rounded.wrapping_add(residual as u32))
}

/// `MUFU.SIN` at `k` 2^-25 turns, `k` < 2^25: the measured value over the
/// first half turn (the rounded sine plus the table's residual), negated
/// over the second.
fn sin_turns(k: u32) -> u32 {
    let h = k as usize % SIN_ENTRIES;
    let angle = h as f64 * (std::f64::consts::TAU / 33_554_432.0);
    let rounded = (angle.sin() as f32).to_bits();
    let residual = sin_table().get(h).copied().unwrap_or(0);
    let y = rounded.wrapping_add(residual as u32);
    if k as usize >= SIN_ENTRIES {
        y ^ SIGN
    } else {
        y
    }
}

/// `sin.approx{.ftz}.f32` (`cos` with `cosine`), as ptxas builds it for
/// sm_90: `FMUL.RZ` by 1/2π (in f32) gives turns; `MUFU.SIN`/`MUFU.COS` take
/// their magnitude as a fixed-point number with 25 fraction bits, cut toward
/// zero, integer part dropped. The unit's sine over half a turn is measured
/// (`data/mufu_sin.bin`); the second half turn is its exact negation, the
/// cosine is the sine a quarter turn on, and the sine of a negative angle is
/// the negated sine. Tiny arguments (below 2^-25 turns) give ±0; subnormal
/// inputs and results do not arise otherwise, so `.ftz` changes nothing.
pub fn sin_cos_approx(x: u32, cosine: bool) -> u32 {
    let ax = x & !SIGN;
    if ax >= INF {
        return NAN;
    }
    let inv_two_pi = f64::from(f32::from_bits(0x3e22_f983));
    let product = f64::from(f32::from_bits(ax)) * inv_two_pi;
    // Cut toward zero to f32: the product is exact in f64.
    let near = product as f32;
    let t = if f64::from(near) > product {
        f32::from_bits(near.to_bits() - 1)
    } else {
        near
    };
    let k = ((f64::from(t) * 33_554_432.0).trunc() % 33_554_432.0) as u32;
    if cosine {
        sin_turns((k + (1 << 23)) % (1 << 25))
    } else {
        sin_turns(k) ^ (x & SIGN)
    }
}

/// `tanh.approx.f16` / `.bf16`: every input's result, measured
/// (`tests/interp/sweeps.py tables16`), little-endian 16-bit words.
pub fn tanh16(x: u16, bf16: bool) -> u16 {
    let t = if bf16 {
        table(&TANH_BF16_TABLE, TANH_BF16)
    } else {
        table(&TANH_F16_TABLE, TANH_F16)
    };
    let at = usize::from(x) * 2;
    match t.packed.get(at..at + 2) {
        Some(b) => u16::from_le_bytes([b[0], b[1]]),
        None => 0x7fff,
    }
}

/// `MUFU.TANH` (`tanh.approx.f32`), measured for every one of the 2^32
/// inputs (`tests/interp/tanh_probe.py`): odd in its input (a NaN gives the
/// canonical NaN); below 2^-8 (subnormals too) it returns the input, from 8
/// up 1.0. In between the unit reads the input with a fixed number of
/// fraction bits per binade, cut toward zero (17 for [2^-8, 2^-5), 18 for
/// [2^-5, 2^-3), 19 for [2^-3, 1), 20 for [1, 2) and [4, 8), 21 for [2, 4)),
/// and `data/mufu_tanh_f32.bin` holds its result for each of those 6,684,928
/// inputs: per binade the first result and the cut, then the differences of
/// consecutive results (zigzag, u16), zlib.
pub fn tanh32(x: u32) -> u32 {
    let sign = x & SIGN;
    let ax = x & !SIGN;
    if ax > INF {
        return NAN;
    }
    let e = ax >> 23;
    if e < TANH_FIRST_BINADE {
        return x;
    }
    let table = TANH_F32_TABLE.get_or_init(tanh_table);
    let Some((start, cut)) = table.binades.get((e - TANH_FIRST_BINADE) as usize) else {
        return sign | 0x3f80_0000;
    };
    let index = start + ((ax & 0x7f_ffff) >> cut) as usize;
    sign | table.results.get(index).copied().unwrap_or(NAN)
}

/// Biased exponent of the first binade `MUFU.TANH` does not pass through.
const TANH_FIRST_BINADE: u32 = 119;

struct TanhTable {
    /// Per binade from 2^-8: where its results start and the input bits cut.
    binades: Vec<(usize, u32)>,
    results: Vec<u32>,
}

static TANH_F32_TABLE: OnceLock<TanhTable> = OnceLock::new();

fn tanh_table() -> TanhTable {
    let raw = miniz_oxide::inflate::decompress_to_vec_zlib(TANH_F32).unwrap_or_default();
    let mut table = TanhTable {
        binades: Vec::new(),
        results: Vec::new(),
    };
    if raw.get(..4) != Some(b"TANH".as_slice()) || raw.len() < 8 {
        return table;
    }
    let count = u32::from_le_bytes([raw[4], raw[5], raw[6], raw[7]]) as usize;
    let mut heads = Vec::new();
    for i in 0..count {
        let at = 8 + 5 * i;
        let Some(h) = raw.get(at..at + 5) else {
            return table;
        };
        heads.push((
            u32::from_le_bytes([h[0], h[1], h[2], h[3]]),
            u32::from(h[4]),
        ));
    }
    let mut deltas = raw[8 + 5 * count..]
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]));
    for (first, cut) in heads {
        table.binades.push((table.results.len(), cut));
        let mut value = first;
        for _ in 0..(1usize << 23) >> cut {
            let z = u32::from(deltas.next().unwrap_or(0));
            let delta = (z >> 1) as i32 ^ -((z & 1) as i32);
            value = value.wrapping_add(delta as u32);
            table.results.push(value);
        }
    }
    table
}

const SIGN: u32 = 0x8000_0000;
const INF: u32 = 0x7f80_0000;
const NAN: u32 = 0x7fff_ffff;
const MIN_NORMAL: u32 = 0x0080_0000;

/// Moves the exponent of the normal result `y` by `shift`; below the
/// normal range it flushes to zero.
fn scale(y: u32, shift: i32, sign: u32) -> u32 {
    let e = (y >> 23) as i32 + shift;
    if e <= 0 {
        sign
    } else if e >= 255 {
        sign | INF
    } else {
        sign | (e as u32) << 23 | y & 0x7f_ffff
    }
}

fn add_ulps(y: f32, residual: i64) -> u32 {
    (i64::from(y.to_bits()) + residual) as u32
}

/// `MUFU.RCP`.
pub fn rcp(x: u32) -> u32 {
    let sign = x & SIGN;
    let ax = x & !SIGN;
    if ax > INF {
        return NAN;
    }
    if ax == INF {
        return sign;
    }
    if ax < MIN_NORMAL {
        return sign | INF;
    }
    let m = ax & 0x7f_ffff;
    let reduced = f64::from(f32::from_bits(0x3f80_0000 | m));
    let y = add_ulps(
        (1.0 / reduced) as f32,
        table(&RCP_TABLE, RCP).residual(m as usize),
    );
    scale(y, 127 - (ax >> 23) as i32, sign)
}

/// Splits a positive normal input into the table index over `[1, 4)`, the
/// reduced value and the even exponent taken out.
fn reduce4(ax: u32) -> (usize, f64, i32) {
    let e = (ax >> 23) as i32 - 127;
    let odd = e.rem_euclid(2);
    let m = ax & 0x7f_ffff;
    let reduced = f64::from(f32::from_bits(((127 + odd) as u32) << 23 | m));
    (((odd as u32) << 23 | m) as usize, reduced, e - odd)
}

/// `MUFU.SQRT`.
pub fn sqrt(x: u32) -> u32 {
    let sign = x & SIGN;
    let ax = x & !SIGN;
    if ax > INF {
        return NAN;
    }
    if ax < MIN_NORMAL {
        return sign;
    }
    if sign != 0 {
        return NAN;
    }
    if ax == INF {
        return INF;
    }
    let (index, reduced, even) = reduce4(ax);
    let y = add_ulps(
        reduced.sqrt() as f32,
        table(&SQRT_TABLE, SQRT).residual(index),
    );
    scale(y, even / 2, 0)
}

/// `MUFU.RSQ`.
pub fn rsqrt(x: u32) -> u32 {
    let sign = x & SIGN;
    let ax = x & !SIGN;
    if ax > INF {
        return NAN;
    }
    if ax < MIN_NORMAL {
        return sign | INF;
    }
    if sign != 0 {
        return NAN;
    }
    if ax == INF {
        return 0;
    }
    let (index, reduced, even) = reduce4(ax);
    let y = add_ulps(
        (1.0 / reduced.sqrt()) as f32,
        table(&RSQ_TABLE, RSQ).residual(index),
    );
    scale(y, -even / 2, 0)
}

/// `MUFU.EX2`: the input as a fixed-point number with 23 fraction bits
/// (cut toward zero), `2^-frac` or `2^frac` from the table over `[-1, 1)`,
/// scaled by the integer part.
pub fn ex2(x: u32) -> u32 {
    let sign = x & SIGN;
    let ax = x & !SIGN;
    if ax > INF {
        return NAN;
    }
    let v = f64::from(f32::from_bits(ax));
    if sign == 0 && v >= 128.0 {
        return INF;
    }
    if sign != 0 && v >= 160.0 {
        return 0;
    }
    let fixed = (v * 8_388_608.0).trunc() as i64;
    let (int, frac) = ((fixed >> 23) as i32, fixed & 0x7f_ffff);
    let (index, t) = if sign == 0 {
        ((1 << 23) + frac, frac)
    } else {
        ((1 << 23) - frac, -frac)
    };
    let base = (t as f64 / 8_388_608.0).exp2() as f32;
    let y = add_ulps(base, table(&EX2_TABLE, EX2).residual(index as usize));
    scale(y, if sign == 0 { int } else { -int }, 0)
}

/// `ex2.approx{.ftz}.f32`: inputs below -126 are halved and the result
/// squared, so that subnormal results survive.
pub fn ex2_approx(x: u32, ftz: bool) -> u32 {
    let v = f32::from_bits(x);
    // The comparison `x >= -126` holds for NaN too (unordered).
    if ftz || v.is_nan() || v >= -126.0 {
        return ex2(x);
    }
    let y = ex2(fmul(x, 0x3f00_0000, false));
    fmul(y, y, false)
}

/// `MUFU.RCP64H`: the high word of a double's reciprocal from the high word
/// of its input, through the f32 unit (the fraction cut to 20 bits).
pub fn rcp64h(hi: u32) -> u32 {
    let sign = hi & SIGN;
    let a = hi & !SIGN;
    if a > 0x7ff0_0000 {
        return NAN;
    }
    if a == 0x7ff0_0000 {
        return sign;
    }
    if a < 0x0010_0000 {
        return sign | 0x7ff0_0000;
    }
    let y = rcp(0x3f80_0000 | (a & 0xf_ffff) << 3);
    let e = (y >> 23) as i32 - 127 + 1023 - ((a >> 20) as i32 - 1023);
    if e <= 0 {
        return sign;
    }
    sign | (e as u32) << 20 | (y & 0x7f_ffff) >> 3
}

/// `MUFU.RSQ64H`, like [`rcp64h`].
pub fn rsq64h(hi: u32) -> u32 {
    let sign = hi & SIGN;
    let a = hi & !SIGN;
    if a > 0x7ff0_0000 {
        return NAN;
    }
    if a < 0x0010_0000 {
        return sign | 0x7ff0_0000;
    }
    if sign != 0 {
        return NAN;
    }
    if a == 0x7ff0_0000 {
        return 0;
    }
    let e = (a >> 20) as i32 - 1023;
    let odd = e.rem_euclid(2);
    let y = rsqrt(((127 + odd) as u32) << 23 | (a & 0xf_ffff) << 3);
    let e64 = (y >> 23) as i32 - 127 + 1023 - (e - odd) / 2;
    (e64 as u32) << 20 | (y & 0x7f_ffff) >> 3
}

/// `rcp.approx.ftz.f64`: the unit's high word, a zero low word.
pub fn rcp_approx_f64(x: u64) -> u64 {
    u64::from(rcp64h((x >> 32) as u32)) << 32
}

/// `rsqrt.approx{.ftz}.f64`: with `.ftz` the unit's high word; without,
/// one Newton step in double precision after it (and scaling for subnormal
/// inputs), as ptxas compiles it.
pub fn rsqrt_approx_f64(x: u64, ftz: bool) -> u64 {
    if ftz {
        return u64::from(rsq64h((x >> 32) as u32)) << 32;
    }
    let v = f64::from_bits(x);
    let hi = (x >> 32) as u32;
    if hi.wrapping_sub(0x10_0000) < 0x7fe0_0000 {
        return newton(v);
    }
    if v == 0.0 {
        return (x & 1 << 63) | 0x7ff0_0000_0000_0000;
    }
    if v.is_nan() {
        return x | 1 << 51;
    }
    if x >> 63 != 0 {
        return 0xfff8_0000_0000_0000;
    }
    if v.is_infinite() {
        return 0;
    }
    // Subnormal: scaled up by 2^54, the result by 2^27.
    (f64::from_bits(newton(v * 2f64.powi(54))) * 2f64.powi(27)).to_bits()
}

/// One refinement of the unit's estimate: y + (3/8 e + 1/2)(y e), e = 1 - x y².
fn newton(x: f64) -> u64 {
    let y = f64::from_bits(u64::from(rsq64h((x.to_bits() >> 32) as u32)) << 32);
    let e = x.mul_add(-(y * y), 1.0);
    let c = e.mul_add(0.375, 0.5);
    c.mul_add(y * e, y).to_bits()
}

/// `FMUL` (round to nearest), with `.FTZ` flushing subnormal inputs and any
/// result that, rounded with an unbounded exponent, is below the normal range.
pub fn fmul(a: u32, b: u32, ftz: bool) -> u32 {
    let flush = |x: u32| {
        if ftz && x & INF == 0 {
            x & SIGN
        } else {
            x
        }
    };
    let (a, b) = (f32::from_bits(flush(a)), f32::from_bits(flush(b)));
    let product = f64::from(a) * f64::from(b);
    if product.is_nan() {
        return NAN;
    }
    if ftz && product != 0.0 && product.abs() < f64::from(f32::MIN_POSITIVE) {
        let wide = (product * 2f64.powi(100)) as f32;
        if wide.abs() < f32::MIN_POSITIVE * 2f32.powi(100) {
            return if product < 0.0 { SIGN } else { 0 };
        }
    }
    (product as f32).to_bits()
}

fn magnitude(x: u32) -> f32 {
    f32::from_bits(x & !SIGN)
}

const TWO_24: u32 = 0x4b80_0000;
const QUARTER: u32 = 0x3e80_0000;

/// `rcp.approx{.ftz}.f32`.
pub fn rcp_approx(x: u32, ftz: bool) -> u32 {
    if ftz {
        return rcp(x);
    }
    // |x| ≥ 2^-126 is false for subnormals only (NaN compares true).
    let tiny = magnitude(x) < f32::MIN_POSITIVE;
    let huge = magnitude(x) > 2f32.powi(126);
    let s = if huge {
        QUARTER
    } else if tiny {
        TWO_24
    } else {
        0x3f80_0000
    };
    fmul(s, rcp(fmul(x, s, false)), false)
}

/// `sqrt.approx{.ftz}.f32` (`rsqrt` with `reciprocal`).
pub fn sqrt_approx(x: u32, ftz: bool, reciprocal: bool) -> u32 {
    let unit = if reciprocal { rsqrt } else { sqrt };
    if ftz {
        return unit(x);
    }
    if magnitude(x) < f32::MIN_POSITIVE {
        let y = unit(fmul(x, TWO_24, false));
        // 2^-12 or 2^12 undoes the scaling.
        let back = if reciprocal { 0x4580_0000 } else { 0x3980_0000 };
        fmul(y, back, false)
    } else {
        unit(x)
    }
}

/// `div.full{.ftz}.f32` and `div.approx{.ftz}.f32`.
pub fn div(a: u32, b: u32, full: bool, ftz: bool) -> u32 {
    let (r, a) = div_parts(a, b, full, ftz);
    fmul(r, a, ftz)
}

/// The reciprocal and the dividend that `div` multiplies, after its scaling
/// (a fused add takes them: `crate::contract`).
pub fn div_parts(a: u32, b: u32, full: bool, ftz: bool) -> (u32, u32) {
    let (mut a, mut b) = (a, b);
    let flushed = |x: u32| if ftz && x & INF == 0 { x & SIGN } else { x };
    if full && magnitude(flushed(b)) > 2f32.powi(126) {
        a = fmul(a, QUARTER, ftz);
        b = fmul(b, QUARTER, ftz);
    }
    if !ftz && magnitude(b) < f32::MIN_POSITIVE {
        a = fmul(a, TWO_24, false);
        b = fmul(b, TWO_24, false);
    }
    (rcp(b), a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_load_and_scale() {
        assert_eq!(table(&RCP_TABLE, RCP).packed.len(), 1 << 21);
        assert_eq!(table(&SQRT_TABLE, SQRT).packed.len(), 1 << 22);
        assert_eq!(table(&RSQ_TABLE, RSQ).packed.len(), 1 << 22);
        assert_eq!(table(&EX2_TABLE, EX2).packed.len(), 1 << 22);
        assert_eq!(tanh32(0x3f80_0000), 0x3f42_f848); // tanh(1), measured
        assert_eq!(tanh32(0x3f7f_ffff), 0x3f42_f788);
        assert_eq!(tanh32(0xbf80_0000), 0xbf42_f848);
        assert_eq!(tanh32(0x0000_0001), 0x0000_0001);
        assert_eq!(tanh32(0x4100_0000), 0x3f80_0000);
        assert_eq!(tanh32(0xffc0_0000), 0x7fff_ffff);
        assert_eq!(tanh16(0, false), 0);
        assert_eq!(tanh16(0x7c00, false), 0x3c00); // tanh(inf) = 1
        assert_eq!(tanh16(0xff80, true), 0xbf80); // tanh(-inf) = -1
        assert_eq!(rcp(0x4000_0000), 0x3f00_0000); // 1/2
        assert_eq!(rcp(0x0080_0000 | SIGN), SIGN | 0x7e80_0000); // -2^126
        assert_eq!(rcp(0x7f00_0000), 0); // 2^127 → 2^-127 flushes
        assert_eq!(sqrt(0x4080_0000), 0x4000_0000); // √4
        assert_eq!(rsqrt(0x4080_0000), 0x3f00_0000); // 1/√4
        assert_eq!(sin_cos_approx(0x0000_0001, false), 0); // tiny: +0
        assert_eq!(sin_cos_approx(SIGN | 1, false), SIGN); // -0
        assert_eq!(sin_cos_approx(0, true), 0x3f80_0000); // cos 0 = 1
        assert_eq!(sin_cos_approx(INF, false), NAN);
    }

    /// The decoded sine table is the one `mufu_tables.py sin` packed: the sum
    /// of its entries' bits that the script printed.
    #[test]
    fn sine_table_sum() {
        assert_eq!(sin_table().len(), SIN_ENTRIES);
        let sum: u64 = (0..1u32 << 24).map(|k| u64::from(sin_turns(k))).sum();
        assert_eq!(sum, 17_726_004_535_380_684);
    }

    /// Likewise for the lg2 table.
    #[test]
    fn lg2_table_sum() {
        assert_eq!(lg2_table().len(), LG2_ENTRIES);
        let sum: u64 = (0..LG2_ENTRIES as u32)
            .map(|i| u64::from(lg2_measured(LG2_FIRST + i).unwrap_or(0)))
            .sum();
        assert_eq!(sum, 35_675_624_599_873_791);
        assert_eq!(lg2_measured(0x3f80_0000), Some(0)); // lg2 1 = 0
        assert_eq!(lg2_measured(0x4000_0000), None);
    }
}
