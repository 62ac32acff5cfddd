//! Integer, bit-manipulation, logic, move and select instructions, and the
//! comparisons (`setp`, `set`, `slct`, `selp`) of every type.

use crate::engine::{lanes, Fault, Lanes, Machine};
use crate::float::compare;
use crate::ir::{mask, sext, BoolOp, Cmp, Dst, Inst, Quals, Src, Ty};
use crate::{need, Op};

/// Multiplication result selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Half {
    Lo,
    Hi,
    Wide,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrmtMode {
    Generic,
    F4e,
    B4e,
    Rc8,
    Ecl,
    Ecr,
    Rc16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntKind {
    Add,
    Sub,
    /// `addc`/`subc`: with carry-in.
    AddC,
    SubC,
    Mul(Half),
    Mad(Half),
    MadC(Half),
    Mul24(bool),
    Mad24(bool),
    Sad,
    Div,
    Rem,
    Abs,
    Neg,
    Min,
    Max,
    Popc,
    Clz,
    Bfind(bool),
    Fns,
    Brev,
    /// `folded`: position and length are both immediates (ptxas folds
    /// them, see [`exec`]).
    Bfe {
        folded: bool,
    },
    Bfi {
        folded: bool,
    },
    Szext(bool),
    Bmsk(bool),
    Dp4a(bool, bool),
    Dp2a(bool, bool, bool),
    And,
    Or,
    Xor,
    Not,
    Cnot,
    Lop3,
    Shl,
    Shr,
    Shf(bool, bool),
    Prmt(PrmtMode),
    Mov,
    Selp,
    Slct,
    Setp(Cmp, Option<BoolOp>),
    Set(Cmp, Option<BoolOp>),
}

/// An integer-family operation with its type and modifiers.
#[derive(Debug, Clone, Copy)]
pub struct IntOp {
    pub kind: IntKind,
    pub ty: Ty,
    /// Second type: `set`'s and `slct`'s source type, `dp4a`'s.
    pub ty2: Ty,
    pub sat: bool,
    pub cc: bool,
    pub ftz: bool,
    pub relu: bool,
}

pub fn decode(m: &str, q: &Quals, n_dst: usize, src: &[Src]) -> Option<Result<Op, String>> {
    let ty = q.ty().unwrap_or(Ty::B32);
    let float = ty.is_float() && !matches!(m, "mov" | "selp" | "setp" | "set" | "slct");
    if float && !matches!(m, "and" | "or" | "xor" | "not") {
        return None;
    }
    let half = || {
        if q.has("hi") {
            Half::Hi
        } else if q.has("wide") {
            Half::Wide
        } else {
            Half::Lo
        }
    };
    let (kind, n) = match m {
        "add" => (Int(IntKind::Add), 2),
        "sub" => (Int(IntKind::Sub), 2),
        "addc" => (Int(IntKind::AddC), 2),
        "subc" => (Int(IntKind::SubC), 2),
        "mul" => (Int(IntKind::Mul(half())), 2),
        "mad" => (Int(IntKind::Mad(half())), 3),
        "madc" => (Int(IntKind::MadC(half())), 3),
        "mul24" => (Int(IntKind::Mul24(q.has("hi"))), 2),
        "mad24" => (Int(IntKind::Mad24(q.has("hi"))), 3),
        "sad" => (Int(IntKind::Sad), 3),
        "div" => (Int(IntKind::Div), 2),
        "rem" => (Int(IntKind::Rem), 2),
        "abs" => (Int(IntKind::Abs), 1),
        "neg" => (Int(IntKind::Neg), 1),
        "min" => (Int(IntKind::Min), 2),
        "max" => (Int(IntKind::Max), 2),
        "popc" => (Int(IntKind::Popc), 1),
        "clz" => (Int(IntKind::Clz), 1),
        "bfind" => (Int(IntKind::Bfind(q.has("shiftamt"))), 1),
        "fns" => (Int(IntKind::Fns), 3),
        "brev" => (Int(IntKind::Brev), 1),
        "bfe" => (
            Int(IntKind::Bfe {
                folded: immediates(src, 1..3),
            }),
            3,
        ),
        "bfi" => (
            Int(IntKind::Bfi {
                folded: immediates(src, 2..4),
            }),
            4,
        ),
        "szext" => (Int(IntKind::Szext(q.has("clamp"))), 2),
        "bmsk" => (Int(IntKind::Bmsk(q.has("clamp"))), 2),
        "dp4a" => {
            let a = q.types.first().is_some_and(|t| t.is_signed());
            let b = q.types.get(1).is_some_and(|t| t.is_signed());
            (Int(IntKind::Dp4a(a, b)), 3)
        }
        "dp2a" => {
            let a = q.types.first().is_some_and(|t| t.is_signed());
            let b = q.types.get(1).is_some_and(|t| t.is_signed());
            (Int(IntKind::Dp2a(q.has("hi"), a, b)), 3)
        }
        "and" => (Int(IntKind::And), 2),
        "or" => (Int(IntKind::Or), 2),
        "xor" => (Int(IntKind::Xor), 2),
        "not" => (Int(IntKind::Not), 1),
        "cnot" => (Int(IntKind::Cnot), 1),
        "lop3" => (Int(IntKind::Lop3), 4),
        "shl" => (Int(IntKind::Shl), 2),
        "shr" => (Int(IntKind::Shr), 2),
        "shf" => (Int(IntKind::Shf(q.has("l"), q.has("clamp"))), 3),
        "prmt" => {
            let mode = if q.has("f4e") {
                PrmtMode::F4e
            } else if q.has("b4e") {
                PrmtMode::B4e
            } else if q.has("rc8") {
                PrmtMode::Rc8
            } else if q.has("ecl") {
                PrmtMode::Ecl
            } else if q.has("ecr") {
                PrmtMode::Ecr
            } else if q.has("rc16") {
                PrmtMode::Rc16
            } else {
                PrmtMode::Generic
            };
            (Int(IntKind::Prmt(mode)), 3)
        }
        "mov" => (Int(IntKind::Mov), 1),
        "selp" => (Int(IntKind::Selp), 3),
        "slct" => (Int(IntKind::Slct), 3),
        "setp" | "set" => {
            let cmp = q.words.iter().find_map(|w| Cmp::parse(w));
            let Some(cmp) = cmp else {
                return Some(Err(format!("{m} needs a comparison operator")));
            };
            let bool_op = q.words.iter().find_map(|w| BoolOp::parse(w));
            let n = if bool_op.is_some() { 3 } else { 2 };
            if m == "setp" {
                (Int(IntKind::Setp(cmp, bool_op)), n)
            } else {
                (Int(IntKind::Set(cmp, bool_op)), n)
            }
        }
        _ => return None,
    };
    let Int(kind) = kind;
    if let Err(e) = need(src, n) {
        return Some(Err(e));
    }
    if n_dst == 0 {
        return Some(Err("expects a destination".into()));
    }
    if matches!(kind, IntKind::Dp4a(..) | IntKind::Dp2a(..)) {
        return Some(Ok(Op::Int(IntOp {
            kind,
            ty: Ty::U32,
            ty2: Ty::U32,
            sat: false,
            cc: false,
            ftz: false,
            relu: false,
        })));
    }
    if ty == Ty::B128 {
        return Some(Err("128-bit registers are not supported".into()));
    }
    let cc = q.has("cc") || matches!(m, "addc" | "subc" | "madc") && q.has("cc");
    Some(Ok(Op::Int(IntOp {
        kind,
        ty,
        ty2: q.types.get(1).copied().unwrap_or(ty),
        sat: q.has("sat"),
        cc,
        ftz: q.has("ftz"),
        relu: q.has("relu"),
    })))
}

/// Whether the sources in `range` are all immediates.
fn immediates(src: &[Src], range: std::ops::Range<usize>) -> bool {
    src.get(range)
        .is_some_and(|s| s.iter().all(|s| matches!(s, Src::Imm(_))))
}

/// Wrapper so the match above reads as a table.
struct Int(IntKind);

fn clamp_signed(v: i128, bits: u32) -> u64 {
    let max = (1i128 << (bits - 1)) - 1;
    let min = -(1i128 << (bits - 1));
    v.clamp(min, max) as u64 & mask(bits)
}

/// Runs `f` over every lane of two sources into destination 0.
#[inline]
fn map2(m: &mut Machine<'_>, w: usize, inst: &Inst, active: u32, f: impl Fn(u64, u64) -> u64) {
    let a = m.src(w, inst, 0);
    let b = m.src(w, inst, 1);
    let mut d = [0u64; 32];
    for l in 0..32 {
        d[l] = f(a[l], b[l]);
    }
    m.dst(w, inst, 0, &d, active);
}

#[inline]
fn map1(m: &mut Machine<'_>, w: usize, inst: &Inst, active: u32, f: impl Fn(u64) -> u64) {
    let a = m.src(w, inst, 0);
    let mut d = [0u64; 32];
    for l in 0..32 {
        d[l] = f(a[l]);
    }
    m.dst(w, inst, 0, &d, active);
}

#[inline]
fn map3(m: &mut Machine<'_>, w: usize, inst: &Inst, active: u32, f: impl Fn(u64, u64, u64) -> u64) {
    let a = m.src(w, inst, 0);
    let b = m.src(w, inst, 1);
    let c = m.src(w, inst, 2);
    let mut d = [0u64; 32];
    for l in 0..32 {
        d[l] = f(a[l], b[l], c[l]);
    }
    m.dst(w, inst, 0, &d, active);
}

/// Applies `f` to each 16-bit half of packed operands.
fn packed2(a: u64, b: u64, f: impl Fn(u64, u64) -> u64) -> u64 {
    let lo = f(a & 0xffff, b & 0xffff) & 0xffff;
    let hi = f(a >> 16 & 0xffff, b >> 16 & 0xffff) & 0xffff;
    lo | hi << 16
}

pub fn exec(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    op: &IntOp,
    active: u32,
) -> Result<(), Fault> {
    let ty = op.ty;
    let bits = ty.bits().min(64);
    let mk = mask(bits);
    let signed = ty.is_signed();
    let sx = move |v: u64| sext(v, bits);
    match op.kind {
        IntKind::Add | IntKind::Sub if ty.is_packed() => {
            let sub = op.kind == IntKind::Sub;
            let sat = op.sat;
            let s = signed;
            map2(m, w, inst, active, move |a, b| {
                packed2(a, b, |x, y| {
                    let (x, y) = if s {
                        (sext(x, 16) as i128, sext(y, 16) as i128)
                    } else {
                        (x as i128, y as i128)
                    };
                    let r = if sub { x - y } else { x + y };
                    if sat && s {
                        clamp_signed(r, 16)
                    } else if sat {
                        r.clamp(0, 0xffff) as u64
                    } else {
                        r as u64
                    }
                })
            });
        }
        IntKind::Add if !op.cc && !op.sat => {
            map2(m, w, inst, active, move |a, b| a.wrapping_add(b) & mk)
        }
        IntKind::Sub if !op.cc && !op.sat => {
            map2(m, w, inst, active, move |a, b| a.wrapping_sub(b) & mk)
        }
        IntKind::Mul(Half::Lo) => map2(m, w, inst, active, move |a, b| a.wrapping_mul(b) & mk),
        IntKind::Mad(Half::Lo) if !op.cc && !op.sat => map3(m, w, inst, active, move |a, b, c| {
            a.wrapping_mul(b).wrapping_add(c) & mk
        }),
        IntKind::Add | IntKind::Sub | IntKind::AddC | IntKind::SubC => {
            let sub = matches!(op.kind, IntKind::Sub | IntKind::SubC);
            let with_carry = matches!(op.kind, IntKind::AddC | IntKind::SubC);
            let a = m.src(w, inst, 0);
            let b = m.src(w, inst, 1);
            let carry_in = m.warps[w].carry;
            let mut d = [0u64; 32];
            let mut carry_out = 0u32;
            for l in 0..32 {
                let x = a[l] & mk;
                let y = if sub { !b[l] & mk } else { b[l] & mk };
                let cin = if with_carry {
                    u64::from(carry_in >> l & 1)
                } else {
                    u64::from(sub)
                };
                let wide = u128::from(x) + u128::from(y) + u128::from(cin);
                if wide >> bits & 1 == 1 {
                    carry_out |= 1 << l;
                }
                d[l] = if op.sat && signed {
                    let r = if sub {
                        i128::from(sx(a[l])) - i128::from(sx(b[l]))
                    } else {
                        i128::from(sx(a[l])) + i128::from(sx(b[l]))
                    };
                    clamp_signed(r, bits)
                } else {
                    wide as u64 & mk
                };
            }
            m.dst(w, inst, 0, &d, active);
            if op.cc {
                let warp = &mut m.warps[w];
                warp.carry = warp.carry & !active | carry_out & active;
            }
        }
        IntKind::Mul(half) => {
            map2(m, w, inst, active, move |a, b| {
                mul(a, b, bits, signed, half)
            });
        }
        IntKind::Mad(half) | IntKind::MadC(half) => {
            let with_carry = matches!(op.kind, IntKind::MadC(_));
            let out_bits = if half == Half::Wide {
                (bits * 2).min(64)
            } else {
                bits
            };
            let omk = mask(out_bits);
            let a = m.src(w, inst, 0);
            let b = m.src(w, inst, 1);
            let c = m.src(w, inst, 2);
            let carry_in = m.warps[w].carry;
            let mut d = [0u64; 32];
            let mut carry_out = 0u32;
            for l in 0..32 {
                let p = mul(a[l], b[l], bits, signed, half) & omk;
                let cin = if with_carry {
                    u64::from(carry_in >> l & 1)
                } else {
                    0
                };
                let wide = u128::from(p) + u128::from(c[l] & omk) + u128::from(cin);
                if wide >> out_bits & 1 == 1 {
                    carry_out |= 1 << l;
                }
                d[l] = if op.sat && signed && half == Half::Hi {
                    let r = i128::from(sext(p, bits)) + i128::from(sext(c[l], bits));
                    clamp_signed(r, bits)
                } else {
                    wide as u64 & omk
                };
            }
            m.dst(w, inst, 0, &d, active);
            if op.cc {
                let warp = &mut m.warps[w];
                warp.carry = warp.carry & !active | carry_out & active;
            }
        }
        IntKind::Mul24(hi) | IntKind::Mad24(hi) => {
            let mad = matches!(op.kind, IntKind::Mad24(_));
            let sat = op.sat;
            map3(m, w, inst, active, move |a, b, c| {
                let (x, y) = if signed {
                    (sext(a, 24) as i128, sext(b, 24) as i128)
                } else {
                    ((a & 0xff_ffff) as i128, (b & 0xff_ffff) as i128)
                };
                let p = x * y;
                let r = if hi { (p >> 16) as u64 } else { p as u64 } & 0xffff_ffff;
                if !mad {
                    return r;
                }
                if sat && signed {
                    clamp_signed(i128::from(sext(r, 32)) + i128::from(sext(c, 32)), 32)
                } else {
                    r.wrapping_add(c) & 0xffff_ffff
                }
            });
        }
        IntKind::Sad => map3(m, w, inst, active, move |a, b, c| {
            let diff = if signed {
                (i128::from(sx(a)) - i128::from(sx(b))).unsigned_abs() as u64
            } else {
                (a & mk).abs_diff(b & mk)
            };
            c.wrapping_add(diff) & mk
        }),
        IntKind::Div => map2(m, w, inst, active, move |a, b| {
            if signed {
                let (x, y) = (sx(a), sx(b));
                if y == 0 {
                    // Division by zero gives all ones on the GPU.
                    return mk;
                }
                (i128::from(x) / i128::from(y)) as u64 & mk
            } else {
                // Division by zero gives all ones on the GPU.
                (a & mk).checked_div(b & mk).unwrap_or(mk)
            }
        }),
        IntKind::Rem => map2(m, w, inst, active, move |a, b| {
            if signed {
                let (x, y) = (sx(a), sx(b));
                if y == 0 {
                    return mk;
                }
                (i128::from(x) % i128::from(y)) as u64 & mk
            } else {
                let (x, y) = (a & mk, b & mk);
                if y == 0 {
                    mk
                } else {
                    x % y
                }
            }
        }),
        IntKind::Abs if ty.is_packed() => map1(m, w, inst, active, |a| {
            packed2(a, 0, |x, _| (sext(x, 16).unsigned_abs()) & 0xffff)
        }),
        IntKind::Abs => map1(m, w, inst, active, move |a| sx(a).unsigned_abs() & mk),
        IntKind::Neg => map1(m, w, inst, active, move |a| a.wrapping_neg() & mk),
        IntKind::Min | IntKind::Max => {
            let is_max = op.kind == IntKind::Max;
            let relu = op.relu;
            let packed = ty.is_packed();
            let lane_bits = if packed { 16 } else { bits };
            let pick = move |a: u64, b: u64| {
                let a_first = if signed {
                    (sext(a, lane_bits) < sext(b, lane_bits)) != is_max
                } else {
                    ((a & mask(lane_bits)) < (b & mask(lane_bits))) != is_max
                };
                let r = if a_first { a } else { b };
                if relu && sext(r, lane_bits) < 0 {
                    0
                } else {
                    r & mask(lane_bits)
                }
            };
            if packed {
                map2(m, w, inst, active, move |a, b| packed2(a, b, pick));
            } else {
                map2(m, w, inst, active, pick);
            }
        }
        IntKind::Popc => map1(m, w, inst, active, move |a| {
            u64::from((a & mk).count_ones())
        }),
        IntKind::Clz => map1(m, w, inst, active, move |a| {
            u64::from((a & mk).leading_zeros() - (64 - bits))
        }),
        IntKind::Bfind(shiftamt) => map1(m, w, inst, active, move |a| {
            let mut v = a & mk;
            if signed && v >> (bits - 1) & 1 == 1 {
                v = !v & mk;
            }
            if v == 0 {
                return 0xffff_ffff;
            }
            let pos = u64::from(63 - v.leading_zeros());
            if shiftamt {
                u64::from(bits - 1) - pos
            } else {
                pos
            }
        }),
        IntKind::Fns => map3(m, w, inst, active, |maskv, base, offset| {
            let base = base as u32;
            let offset = sext(offset, 32);
            if offset == i64::from(i32::MIN) {
                // The GPU's answer for the one offset whose negation overflows.
                return 0;
            }
            if offset == 0 {
                return if base < 32 && maskv >> base & 1 == 1 {
                    u64::from(base)
                } else {
                    0xffff_ffff
                };
            }
            let mut pos = i64::from(base);
            let mut count = offset.unsigned_abs() - 1;
            let inc = if offset > 0 { 1 } else { -1 };
            while (0..32).contains(&pos) {
                if maskv >> pos & 1 == 1 {
                    if count == 0 {
                        return pos as u64;
                    }
                    count -= 1;
                }
                pos += inc;
            }
            0xffff_ffff
        }),
        IntKind::Brev => map1(m, w, inst, active, move |a| {
            (a & mk).reverse_bits() >> (64 - bits)
        }),
        IntKind::Bfe { folded } => map3(m, w, inst, active, move |a, b, c| {
            let msb = bits - 1;
            // The 64-bit forms do not reduce position and length to 8 bits.
            let field = if bits == 64 { 0xffff_ffff } else { 0xff };
            let pos = (b & field) as u32;
            let len = (c & field) as u32;
            // What ptxas makes of immediates past the word: `bfe.s32` with
            // a position of 32 or more and a length of 1 or more gives all
            // ones, whatever the source (every position and length 0..255
            // measured: fixtures/bitfield_immediates.bin.zz).
            if folded && signed && bits == 32 && pos >= 32 && len >= 1 {
                return 0xffff_ffff;
            }
            let sbit = if !signed || len == 0 {
                0
            } else {
                a >> pos.saturating_add(len - 1).min(msb) & 1
            };
            let mut d = 0u64;
            for i in 0..bits {
                let bit = if i < len && pos.saturating_add(i) <= msb {
                    a >> (pos + i) & 1
                } else {
                    sbit
                };
                d |= bit << i;
            }
            d
        }),
        IntKind::Bfi { folded } => {
            let a = m.src(w, inst, 0);
            let b = m.src(w, inst, 1);
            let c = m.src(w, inst, 2);
            let e = m.src(w, inst, 3);
            let mut d = [0u64; 32];
            for l in 0..32 {
                let field = if bits == 64 { 0xffff_ffff } else { 0xff };
                let pos = (c[l] & field) as u32;
                let mut len = (e[l] & field) as u32;
                // ptxas compiles `bfi.b32` with an immediate position that
                // is not a multiple of 8 and an immediate length so that
                // the length counts modulo 32 (32 inserts nothing, 33 one
                // bit); at positions 0, 8, 16 and 24 it clamps as the spec
                // says (every position and length 0..255 measured:
                // fixtures/bitfield_immediates.bin.zz).
                if folded && bits == 32 && pos < 32 && !pos.is_multiple_of(8) {
                    len %= 32;
                }
                let mut f = b[l] & mk;
                let mut i = 0;
                while i < len && pos.saturating_add(i) < bits {
                    f = f & !(1 << (pos + i)) | (a[l] >> i & 1) << (pos + i);
                    i += 1;
                }
                d[l] = f;
            }
            m.dst(w, inst, 0, &d, active);
        }
        IntKind::Szext(clamp) => map2(m, w, inst, active, move |a, b| {
            let b1 = (b & 0x1f) as u32;
            let too_large = b >= 32 && clamp;
            let msk: u32 = if too_large { 0 } else { u32::MAX << b1 };
            let sign_pos = b1.wrapping_sub(1) & 0x1f;
            let sign = !(b1 == 0 || too_large || !signed) && a >> sign_pos & 1 == 1;
            let a = a as u32;
            u64::from(a & !msk | if sign { msk } else { 0 })
        }),
        IntKind::Bmsk(clamp) => map2(m, w, inst, active, move |a, b| {
            let a1 = (a & 0x1f) as u32;
            let mut mask0 = u32::MAX << a1;
            let b1 = (b & 0x1f) as u32;
            let sum = a1 + b1;
            let mut mask1 = if sum >= 32 { 0 } else { u32::MAX << sum };
            let mut overflow = sum >= 32;
            if clamp {
                if a >= 32 {
                    overflow = true;
                    mask0 = 0;
                }
                if b >= 32 {
                    overflow = true;
                }
            }
            if overflow {
                mask1 = 0;
            } else if b1 == 0 {
                mask1 = u32::MAX;
            }
            u64::from(mask0 & !mask1)
        }),
        IntKind::Dp4a(sa, sb) => map3(m, w, inst, active, move |a, b, c| {
            let mut d = c as u32;
            for i in 0..4 {
                let x = byte(a, i, sa);
                let y = byte(b, i, sb);
                d = d.wrapping_add(x.wrapping_mul(y) as u32);
            }
            u64::from(d)
        }),
        IntKind::Dp2a(hi, sa, sb) => map3(m, w, inst, active, move |a, b, c| {
            let mut d = c as u32;
            let select = if hi { 2 } else { 0 };
            for i in 0..2 {
                let x = if sa {
                    sext(a >> (16 * i) & 0xffff, 16)
                } else {
                    (a >> (16 * i) & 0xffff) as i64
                };
                let y = byte(b, select + i, sb);
                d = d.wrapping_add(x.wrapping_mul(y) as u32);
            }
            u64::from(d)
        }),
        IntKind::And => map2(m, w, inst, active, |a, b| a & b),
        IntKind::Or => map2(m, w, inst, active, |a, b| a | b),
        IntKind::Xor => map2(m, w, inst, active, |a, b| a ^ b),
        IntKind::Not if ty == Ty::Pred => map1(m, w, inst, active, |a| !a & 1),
        IntKind::Not => map1(m, w, inst, active, move |a| !a & mk),
        IntKind::Cnot => map1(m, w, inst, active, move |a| u64::from(a & mk == 0)),
        IntKind::Lop3 => {
            let a = m.src(w, inst, 0);
            let b = m.src(w, inst, 1);
            let c = m.src(w, inst, 2);
            let lut = m.src(w, inst, 3);
            let mut d = [0u64; 32];
            for l in 0..32 {
                // The union of the minterms the table selects.
                let mut r = 0u64;
                for minterm in 0..8 {
                    if lut[l] >> minterm & 1 == 1 {
                        let x = if minterm & 4 != 0 { a[l] } else { !a[l] };
                        let y = if minterm & 2 != 0 { b[l] } else { !b[l] };
                        let z = if minterm & 1 != 0 { c[l] } else { !c[l] };
                        r |= x & y & z;
                    }
                }
                d[l] = r & mk;
            }
            m.dst(w, inst, 0, &d, active);
        }
        IntKind::Shl => map2(m, w, inst, active, move |a, b| {
            let n = b as u32;
            if n >= bits {
                0
            } else {
                (a << n) & mk
            }
        }),
        IntKind::Shr => map2(m, w, inst, active, move |a, b| {
            let n = (b as u32).min(bits);
            if signed {
                (sx(a) >> n.min(63)) as u64 & mk
            } else if n >= bits {
                0
            } else {
                (a & mk) >> n
            }
        }),
        IntKind::Shf(left, clamp) => map3(m, w, inst, active, move |a, b, c| {
            let n = if clamp {
                (c as u32).min(32)
            } else {
                c as u32 & 0x1f
            };
            let wide = (b & 0xffff_ffff) << 32 | (a & 0xffff_ffff);
            if left {
                (wide << n) >> 32 & 0xffff_ffff
            } else {
                (wide >> n) & 0xffff_ffff
            }
        }),
        IntKind::Prmt(mode) => map3(m, w, inst, active, move |a, b, c| prmt(a, b, c, mode)),
        IntKind::Mov => mov(m, w, inst, active, ty),
        IntKind::Selp => map3(m, w, inst, active, |a, b, c| if c & 1 == 1 { a } else { b }),
        IntKind::Slct => {
            let cty = op.ty2;
            let ftz = op.ftz;
            map3(m, w, inst, active, move |a, b, c| {
                let take_a = if cty == Ty::F32 {
                    let format = crate::softfloat::F32;
                    let c = if ftz {
                        format.flush(c & 0xffff_ffff)
                    } else {
                        c & 0xffff_ffff
                    };
                    format.to_f64(c) >= 0.0
                } else {
                    sext(c, 32) >= 0
                };
                if take_a {
                    a
                } else {
                    b
                }
            });
        }
        IntKind::Setp(cmp, bool_op) => {
            let a = m.src(w, inst, 0);
            let b = m.src(w, inst, 1);
            let mut p = [0u64; 32];
            if ty.is_packed() {
                // Two halves: the first destination gets the low half's
                // comparison, the second the high half's.
                let element = if ty == Ty::Bf16x2 { Ty::Bf16 } else { Ty::F16 };
                let c = m.src(w, inst, 2);
                let mut q = [0u64; 32];
                for l in lanes(active) {
                    let l = l as usize;
                    let (lo, hi) = (a[l] & 0xffff, b[l] & 0xffff);
                    let low = compare(cmp, lo, hi, element, op.ftz);
                    let high = compare(
                        cmp,
                        a[l] >> 16 & 0xffff,
                        b[l] >> 16 & 0xffff,
                        element,
                        op.ftz,
                    );
                    let other = c[l] & 1 == 1;
                    let (low, high) = match bool_op {
                        Some(bop) => (bop.apply(low, other), bop.apply(high, other)),
                        None => (low, high),
                    };
                    p[l] = u64::from(low);
                    q[l] = u64::from(high);
                }
                m.dst(w, inst, 0, &p, active);
                if inst.dst.len() > 1 {
                    m.dst(w, inst, 1, &q, active);
                }
                return Ok(());
            }
            if ty.is_float() {
                for l in lanes(active) {
                    let l = l as usize;
                    p[l] = u64::from(compare(cmp, a[l], b[l], ty, op.ftz));
                }
            } else {
                int_compare(cmp, &a, &b, bits, signed, &mut p);
            }
            let mut q = [0u64; 32];
            match bool_op {
                Some(bop) => {
                    let c = m.src(w, inst, 2);
                    for l in 0..32 {
                        let (t, other) = (p[l] == 1, c[l] & 1 == 1);
                        p[l] = u64::from(bop.apply(t, other));
                        q[l] = u64::from(bop.apply(!t, other));
                    }
                }
                None => {
                    for l in 0..32 {
                        q[l] = p[l] ^ 1;
                    }
                }
            }
            m.dst(w, inst, 0, &p, active);
            if inst.dst.len() > 1 {
                m.dst(w, inst, 1, &q, active);
            }
        }
        IntKind::Set(cmp, bool_op) => {
            // `set.cmp.dtype.stype`: the comparison is of the source type.
            let stype = op.ty2;
            let dtype = op.ty;
            let a = m.src(w, inst, 0);
            let b = m.src(w, inst, 1);
            let c = m.src(w, inst, 2);
            let mut d = [0u64; 32];
            let one = match dtype {
                Ty::F32 => 0x3f80_0000,
                Ty::F16 => 0x3c00,
                Ty::Bf16 => 0x3f80,
                Ty::F16x2 => 0x3c00_3c00,
                Ty::Bf16x2 => 0x3f80_3f80,
                _ => mask(dtype.bits().min(64)),
            };
            for l in lanes(active) {
                let l = l as usize;
                d[l] = if stype.is_packed() && stype.is_float() {
                    let lo = compare(cmp, a[l] & 0xffff, b[l] & 0xffff, half_of(stype), op.ftz);
                    let hi = compare(
                        cmp,
                        a[l] >> 16 & 0xffff,
                        b[l] >> 16 & 0xffff,
                        half_of(stype),
                        op.ftz,
                    );
                    let combine = |t: bool| match bool_op {
                        Some(bop) => bop.apply(t, c[l] & 1 == 1),
                        None => t,
                    };
                    let unit = if dtype.is_packed() {
                        0xffff & one
                    } else {
                        0xffff
                    };
                    (if combine(lo) { unit } else { 0 })
                        | (if combine(hi) { unit } else { 0 }) << 16
                } else {
                    let t = compare(cmp, a[l], b[l], stype, op.ftz);
                    let t = match bool_op {
                        Some(bop) => bop.apply(t, c[l] & 1 == 1),
                        None => t,
                    };
                    if t {
                        one
                    } else {
                        0
                    }
                };
            }
            m.dst(w, inst, 0, &d, active);
        }
    }
    Ok(())
}

/// Integer comparison of every lane, with the operator chosen once.
fn int_compare(cmp: Cmp, a: &Lanes, b: &Lanes, bits: u32, signed: bool, out: &mut Lanes) {
    let mk = mask(bits);
    // Order-preserving unsigned keys: flipping the sign bit orders signed values.
    let key = |v: u64| {
        if signed {
            (sext(v, bits) as u64) ^ (1 << 63)
        } else {
            v & mk
        }
    };
    let unsigned = |v: u64| v & mk;
    macro_rules! each {
        ($k:expr, $op:tt) => {
            for l in 0..32 {
                out[l] = u64::from($k(a[l]) $op $k(b[l]));
            }
        };
    }
    match cmp {
        Cmp::Eq | Cmp::Equ => each!(unsigned, ==),
        Cmp::Ne | Cmp::Neu => each!(unsigned, !=),
        Cmp::Lt | Cmp::Ltu => each!(key, <),
        Cmp::Le | Cmp::Leu => each!(key, <=),
        Cmp::Gt | Cmp::Gtu => each!(key, >),
        Cmp::Ge | Cmp::Geu => each!(key, >=),
        Cmp::Lo => each!(unsigned, <),
        Cmp::Ls => each!(unsigned, <=),
        Cmp::Hi => each!(unsigned, >),
        Cmp::Hs => each!(unsigned, >=),
        Cmp::Num => *out = [1; 32],
        Cmp::Nan => *out = [0; 32],
    }
}

fn half_of(ty: Ty) -> Ty {
    match ty {
        Ty::Bf16x2 => Ty::Bf16,
        _ => Ty::F16,
    }
}

fn byte(v: u64, i: u32, signed: bool) -> i64 {
    let b = v >> (8 * i) & 0xff;
    if signed {
        sext(b, 8)
    } else {
        b as i64
    }
}

fn mul(a: u64, b: u64, bits: u32, signed: bool, half: Half) -> u64 {
    let p: i128 = if signed {
        i128::from(sext(a, bits)) * i128::from(sext(b, bits))
    } else {
        (u128::from(a & mask(bits)) * u128::from(b & mask(bits))) as i128
    };
    match half {
        Half::Lo => p as u64 & mask(bits),
        Half::Hi => (p >> bits) as u64 & mask(bits),
        Half::Wide => p as u64 & mask((bits * 2).min(64)),
    }
}

fn prmt(a: u64, b: u64, c: u64, mode: PrmtMode) -> u64 {
    let bytes = (b & 0xffff_ffff) << 32 | (a & 0xffff_ffff);
    let get = |i: u64| bytes >> (8 * (i & 7)) & 0xff;
    let s = c & 3;
    let select: [u64; 4] = match mode {
        PrmtMode::Generic => {
            let mut d = 0;
            for i in 0..4 {
                let ctl = c >> (4 * i) & 0xf;
                let mut v = get(ctl & 7);
                if ctl & 8 != 0 {
                    v = if v & 0x80 != 0 { 0xff } else { 0 };
                }
                d |= v << (8 * i);
            }
            return d;
        }
        PrmtMode::F4e => [s, s + 1, s + 2, s + 3],
        PrmtMode::B4e => [s, (s + 7) & 7, (s + 6) & 7, (s + 5) & 7],
        PrmtMode::Rc8 => [s; 4],
        PrmtMode::Ecl => [s, s.max(1), s.max(2), 3],
        PrmtMode::Ecr => [0, s.min(1), s.min(2), s],
        PrmtMode::Rc16 => {
            let base = (s & 1) * 2;
            [base, base + 1, base, base + 1]
        }
    };
    select
        .iter()
        .enumerate()
        .map(|(i, &sel)| get(sel) << (8 * i))
        .fold(0, |acc, v| acc | v)
}

/// `mov`, including packing `{a, b}` into a wide register and unpacking.
fn mov(m: &mut Machine<'_>, w: usize, inst: &Inst, active: u32, ty: Ty) {
    let bits = ty.bits().min(64);
    match (inst.dst.first(), inst.src.first()) {
        (Some(Dst::Vector(parts)), Some(src)) => {
            let value = m.read(w, src);
            let n = parts.len().max(1) as u32;
            let part_bits = bits / n;
            for (i, part) in parts.iter().enumerate() {
                let shifted: Lanes = std::array::from_fn(|l| {
                    (value[l] >> (part_bits * i as u32).min(63)) & mask(part_bits)
                });
                m.write(w, part, &shifted, active);
            }
        }
        (Some(_), Some(Src::Vector(parts))) => {
            let n = parts.len().max(1) as u32;
            let part_bits = bits / n;
            let mut d = [0u64; 32];
            for (i, part) in parts.iter().enumerate() {
                let v = m.read(w, part);
                for l in 0..32 {
                    d[l] |= (v[l] & mask(part_bits)) << (part_bits * i as u32).min(63);
                }
            }
            m.dst(w, inst, 0, &d, active);
        }
        _ => {
            let a = m.src(w, inst, 0);
            m.dst(w, inst, 0, &a, active);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prmt_modes() {
        assert_eq!(
            prmt(0x3322_1100, 0x7766_5544, 0x3210, PrmtMode::Generic),
            0x3322_1100
        );
        assert_eq!(
            prmt(0x3322_1100, 0x7766_5544, 0x7654, PrmtMode::Generic),
            0x7766_5544
        );
        assert_eq!(prmt(0x8022_1100, 0, 0x0b00, PrmtMode::Generic), 0x00ff_0000);
        assert_eq!(
            prmt(0x3322_1100, 0x7766_5544, 1, PrmtMode::F4e),
            0x4433_2211
        );
        assert_eq!(
            prmt(0x3322_1100, 0x7766_5544, 1, PrmtMode::B4e),
            0x6677_0011
        );
        assert_eq!(
            prmt(0x3322_1100, 0x7766_5544, 1, PrmtMode::Ecl),
            0x3322_1111
        );
        assert_eq!(
            prmt(0x3322_1100, 0x7766_5544, 2, PrmtMode::Ecr),
            0x2222_1100
        );
        assert_eq!(
            prmt(0x3322_1100, 0x7766_5544, 1, PrmtMode::Rc16),
            0x3322_3322
        );
    }

    #[test]
    fn wide_and_high_products() {
        assert_eq!(mul(0xffff_ffff, 2, 32, false, Half::Hi), 1);
        assert_eq!(mul(0xffff_ffff, 2, 32, true, Half::Hi), 0xffff_ffff);
        assert_eq!(
            mul(0xffff_ffff, 0xffff_ffff, 32, false, Half::Wide),
            0xffff_fffe_0000_0001
        );
    }
}
