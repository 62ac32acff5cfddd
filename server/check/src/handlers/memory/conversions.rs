//! Conversions (PTX ISA 9.7.9.21–22): `.ftz`/`.sat` as ptxas 13.5 takes them, the packed
//! small-float modifiers, and the register class of each operand per conversion.

use ptx_syntax::{Operand, OperandKind};

use super::register_type;
use crate::context::{Ctx, InstInfo};
use crate::handlers::operand_types::{Class, RegTy};
use crate::scope::Scope;
use crate::Diagnostic;

/// 9.7.9.21 `.ftz` and `.sat` on cvt, as ptxas 13.5 takes them:
/// * `.ftz` only when the source or the destination is `.f32` ("Illegal modifier '.ftz'" for
///   integer conversions, "Modifier '.ftz' does not apply to this type of convert operation"
///   for the other float ones);
/// * `.sat` never with `.bf16`, and not between integers when the destination holds every
///   value of the source (`cvt.sat.s64.u32`: "Illegal modifier '.sat' for instruction 'cvt'").
pub(super) fn conversion_modifiers(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let Some((dtype, atype)) = conversion_types(ctx, info) else {
        return;
    };
    let int = |t: &str| -> Option<(bool, u32)> {
        let (kind, digits) = t.split_at_checked(1)?;
        let bits: u32 = digits.parse().ok()?;
        match kind {
            "s" => Some((true, bits)),
            "u" => Some((false, bits)),
            _ => None,
        }
    };
    let fundamental = |t: &str| int(t).is_some() || matches!(t, "f16" | "f32" | "f64" | "bf16");
    if !fundamental(dtype) || !fundamental(atype) {
        return;
    }
    let opcode = info.opcode_text();
    if let Some(ftz) = info.qualifier("ftz") {
        if dtype != "f32" && atype != "f32" {
            ctx.report(
                Diagnostic::error(
                    "invalid-qualifier",
                    ftz.range(),
                    format!("`.ftz` applies to conversions from or to .f32; `{opcode}` has none"),
                )
                .section("9.7.9.21"),
            );
        }
    }
    if let Some(sat) = info.qualifier("sat") {
        let covered = match (int(dtype), int(atype)) {
            (Some((ds, db)), Some((as_, ab))) => (ds == as_ && db >= ab) || (ds && !as_ && db > ab),
            _ => false,
        };
        let message = if dtype == "bf16" || atype == "bf16" {
            "`.sat` does not apply to conversions from or to .bf16".to_owned()
        } else if covered {
            format!("every .{atype} value fits .{dtype}: `{opcode}` takes no `.sat`")
        } else {
            return;
        };
        ctx.report(
            Diagnostic::error("invalid-qualifier", sat.range(), message).section("9.7.9.21"),
        );
    }
}

/// 9.7.9.21: the packed small-float conversions' modifiers, as ptxas 13.5 checks them:
/// * to an fp8/fp6/fp4 pair (and `.s2f6x2`) `.satfinite` is required ("'.satfinite' modifier
///   required for instruction 'cvt' with destination type '.e5m2x2'");
/// * from those pairs to `.f16x2` it is not allowed ("Unexpected instruction types");
/// * `.bf16x2` from the fp8/fp6/fp4 pairs is PTX 9.2 ("Feature 'cvt.bf16x2.e4m3x2' requires PTX
///   ISA .version 9.2"), past what this checker knows; from `.ue8m0x2` it rounds with `.rn`.
pub(super) fn packed_conversion_modifiers(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let n = info.words.len();
    if info.words[0] != "cvt" || n < 3 {
        return;
    }
    let (dtype, atype) = (info.words[n - 2], info.words[n - 1]);
    let small = |t: &str| matches!(t, "e4m3x2" | "e5m2x2" | "e2m3x2" | "e3m2x2" | "e2m1x2");
    let opcode = info.opcode_text();
    let mut problems: Vec<(ptx_syntax::TextRange, String)> = Vec::new();
    if (small(dtype) || dtype == "s2f6x2") && !info.has("satfinite") && !info.has("rs") {
        problems.push((
            info.opcode_range(),
            format!("`{opcode}` needs `.satfinite`: conversions to .{dtype} saturate to the finite range"),
        ));
    }
    if dtype == "f16x2" && small(atype) {
        if let Some(q) = info.qualifier("satfinite") {
            problems.push((
                q.range(),
                format!("`.satfinite` does not apply to `{opcode}`: every .{atype} value is finite in .f16x2"),
            ));
        }
    }
    if dtype == "bf16x2" && small(atype) {
        problems.push((
            info.opcode_range(),
            format!("`cvt.bf16x2.{atype}` needs PTX ISA 9.2, newer than this checker's 9.1; convert to .f16x2"),
        ));
    }
    if dtype == "bf16x2" && atype == "ue8m0x2" {
        for mode in ["rz", "rp", "rm", "rna", "rs"] {
            if let Some(q) = info.qualifier(mode) {
                problems.push((
                    q.range(),
                    format!("`{opcode}` rounds with `.rn` only, not `.{mode}`"),
                ));
            }
        }
    }
    for (range, message) in problems {
        ctx.report(Diagnostic::error("invalid-qualifier", range, message).section("9.7.9.21"));
    }
}

/// What one operand of a conversion takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// Exactly a bit-size register of this many bits (packed values with no register type of
    /// their own: `.bf16`, `.bf16x2`, `.tf32`, the fp8/fp6/fp4 pairs, scale factors, `rbits`).
    Bits(u32),
    /// Any 16-bit register (the `.s2f6x2` destination).
    AnyOf(u32),
    /// A `.f32` or `.b32` register or a floating-point constant.
    F32,
    /// A `.f16x2` or `.b32` register.
    HalfPair,
    /// A register of exactly the type's size: ints take integer, bit-size (and for 32 bits
    /// `.f16x2`) registers and integer constants, floats take their float or bit-size register.
    Exact(char, u32),
}

/// The destination and source types of a cvt: the last two type words, since ptxas 13.5
/// also takes a modifier after them (`cvt.rs.e2m1x4.satfinite.f32`).
fn conversion_types<'a>(ctx: &Ctx<'_>, info: &InstInfo<'a>) -> Option<(&'a str, &'a str)> {
    let types: Vec<&'a str> = info.words[1..]
        .iter()
        .copied()
        .filter(|w| packed_width(w).is_some() || ctx.isa.types().iter().any(|t| &t.name[1..] == *w))
        .collect();
    match types.as_slice() {
        [.., dtype, atype] => Some((dtype, atype)),
        _ => None,
    }
}

/// The packed small-float types (9.7.9.21) and the bits their pair or quadruple occupies.
fn packed_width(ty: &str) -> Option<u32> {
    Some(match ty {
        "e2m1x2" => 8,
        "e4m3x2" | "e5m2x2" | "e2m3x2" | "e3m2x2" | "ue8m0x2" | "s2f6x2" | "e2m1x4" => 16,
        "e4m3x4" | "e5m2x4" | "e2m3x4" | "e3m2x4" => 32,
        _ => return None,
    })
}

/// The slot of a fundamental type written as a cvt type (`s32`, `f16`, `bf16`), exact sizes.
fn exact_slot(ty: &str) -> Option<Slot> {
    if ty == "bf16" {
        return Some(Slot::Bits(16));
    }
    let (kind, digits) = ty.split_at_checked(1)?;
    let bits: u32 = digits.parse().ok()?;
    let kind = kind.chars().next()?;
    matches!(kind, 's' | 'u' | 'f').then_some(Slot::Exact(kind, bits))
}

/// 9.7.9.21: the conversions that involve `.bf16`, `.bf16x2`, `.tf32` or the packed small
/// floats type their operands exactly (ptxas 13.5 "Arguments mismatch" for a wider register,
/// which the classic integer/float conversions take, Table 28); no cvt takes a vector except
/// the four sources of the `.rs` x4 forms ("Vector operand is not allowed for instruction
/// 'cvt'"). The classic conversions' register sizes are `types.rs`'s relaxed rules.
pub(super) fn conversion_operands(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    let Some((dtype, atype)) = conversion_types(ctx, info) else {
        return;
    };
    let x4 = matches!(dtype, "e4m3x4" | "e5m2x4" | "e2m3x4" | "e3m2x4" | "e2m1x4");
    let section = info.section();
    // Vectors: only the x4 forms' second operand.
    for (index, op) in info.operands.iter().enumerate() {
        if matches!(op.kind(), OperandKind::Vector) && !(x4 && index == 1) {
            ctx.report(
                Diagnostic::error(
                    "operand-type",
                    op.range(),
                    format!(
                        "`{}` takes no vector operand here; operand {} is one value",
                        info.opcode_text(),
                        index + 1
                    ),
                )
                .section(section.clone()),
            );
        }
    }
    let strict = |t: &str| matches!(t, "bf16" | "bf16x2" | "tf32") || packed_width(t).is_some();
    // Classic conversions between the fundamental types keep the relaxed rules, except that
    // a `.f16` source takes no constant at all (ptxas: `cvt.f32.f16 %f1, 1.0` is rejected)
    // and the random bits of `cvt.rs.f16x2.f32 d, a, b, rbits` are one .b32 register.
    if !strict(dtype) && !strict(atype) {
        if info.has("rs") {
            if let Some(op) = info.operands.get(3) {
                check_slot(ctx, info, scope, 3, op, Slot::Bits(32), &section);
            }
        }
        if atype == "f16" {
            if let Some(op) = info.operands.get(1) {
                if matches!(op.kind(), OperandKind::Float(_)) {
                    ctx.report(
                        Diagnostic::error(
                            "operand-type",
                            op.range(),
                            format!(
                                "`{}` takes its .f16 source from a register, not a constant",
                                info.opcode_text()
                            ),
                        )
                        .section(section.clone()),
                    );
                }
            }
        }
        return;
    }
    let destination = match dtype {
        "bf16x2" | "tf32" => Slot::Bits(32),
        "s2f6x2" => Slot::AnyOf(16),
        "f16x2" if atype == "f32" => return,
        "f16x2" => Slot::HalfPair,
        t => match packed_width(t).map(Slot::Bits).or_else(|| exact_slot(t)) {
            Some(slot) => slot,
            None => return,
        },
    };
    let source = match atype {
        "f32" => Slot::F32,
        "bf16x2" => Slot::Bits(32),
        "f16x2" => Slot::HalfPair,
        t => match packed_width(t).map(Slot::Bits).or_else(|| exact_slot(t)) {
            Some(slot) => slot,
            None => return,
        },
    };
    let mut slots = vec![(0, destination)];
    let extra = info.operands.len().saturating_sub(2);
    if x4 {
        // `d, {a, b, e, f}, rbits`: four .f32 sources (ptxas 13.5 takes .f32 and .b32
        // registers and float constants there, as nvcc's untyped registers for `"f"` operands
        // from sm_100 on need), 32-bit random bits.
        if let Some(vector) = info.operands.get(1) {
            if matches!(vector.kind(), OperandKind::Vector) {
                for element in vector.elements() {
                    check_slot(ctx, info, scope, 1, &element, Slot::F32, &section);
                }
            } else {
                ctx.report(
                    Diagnostic::error(
                        "operand-type",
                        vector.range(),
                        format!(
                            "`{}` converts four values: operand 2 is a vector of four .f32 registers",
                            info.opcode_text()
                        ),
                    )
                    .section(section.clone()),
                );
            }
        }
        slots.push((2, Slot::Bits(32)));
    } else {
        slots.push((1, source));
        let two_sources = dtype.ends_with("x2") && atype == "f32";
        let mut next = 2;
        if two_sources && extra >= 1 {
            slots.push((2, source));
            next = 3;
        }
        if info.has("rs") {
            slots.push((next, Slot::Bits(32)));
        } else if info.has("scaled::n2::ue8m0") {
            slots.push((next, Slot::Bits(16)));
        }
    }
    for (index, slot) in slots {
        if let Some(op) = info.operands.get(index) {
            check_slot(ctx, info, scope, index, op, slot, &section);
        }
    }
}

fn check_slot(
    ctx: &mut Ctx<'_>,
    info: &InstInfo<'_>,
    scope: &Scope<'_>,
    index: usize,
    op: &Operand<'_>,
    slot: Slot,
    section: &str,
) {
    let opcode = info.opcode_text();
    let wanted = match slot {
        Slot::Bits(b) => format!("a .b{b} register"),
        Slot::AnyOf(b) => format!("a {b}-bit register"),
        Slot::F32 => "a .f32 or .b32 register or a floating-point constant".to_owned(),
        Slot::HalfPair => "a .f16x2 or .b32 register".to_owned(),
        Slot::Exact('f', b) => format!("a .f{b} or .b{b} register"),
        Slot::Exact(_, b) => format!("a .b{b}, .u{b} or .s{b} register"),
    };
    let problem = match op.kind() {
        OperandKind::Register(name) | OperandKind::Identifier(name) => {
            let Some((ty, reg)) = register_type(scope, name) else {
                return;
            };
            let fits = match slot {
                Slot::Bits(b) => {
                    reg == RegTy {
                        class: Class::Bits,
                        bits: b,
                    }
                }
                Slot::AnyOf(b) => {
                    reg.class != Class::Pred && reg.class != Class::HalfPair && reg.bits == b
                }
                Slot::F32 => matches!(
                    reg,
                    RegTy {
                        class: Class::Bits,
                        bits: 32
                    } | RegTy {
                        class: Class::Float,
                        bits: 32
                    }
                ),
                Slot::HalfPair => matches!(
                    reg,
                    RegTy {
                        class: Class::Bits,
                        bits: 32
                    } | RegTy {
                        class: Class::HalfPair,
                        ..
                    }
                ),
                Slot::Exact('f', b) => {
                    reg == RegTy {
                        class: Class::Bits,
                        bits: b,
                    } || reg
                        == RegTy {
                            class: Class::Float,
                            bits: b,
                        }
                }
                Slot::Exact(_, b) => {
                    matches!(reg, RegTy { class: Class::Bits, bits: x } | RegTy { class: Class::Int, bits: x } if x == b)
                        || (b == 32 && reg.class == Class::HalfPair)
                }
            };
            if fits {
                return;
            }
            format!(
                "`{name}` is a {ty} register; operand {} of `{opcode}` needs {wanted}",
                index + 1
            )
        }
        OperandKind::Integer(text) => {
            let fits = matches!(slot, Slot::Exact(k, _) if k != 'f');
            if fits {
                return;
            }
            format!(
                "operand {} of `{opcode}` needs {wanted}, not the constant `{text}`",
                index + 1
            )
        }
        OperandKind::Float(text) => {
            let fits = matches!(slot, Slot::F32) || matches!(slot, Slot::Exact('f', b) if b != 16);
            if fits {
                return;
            }
            format!(
                "operand {} of `{opcode}` needs {wanted}, not the constant `{text}`",
                index + 1
            )
        }
        _ => return,
    };
    ctx.report(Diagnostic::error("operand-type", op.range(), problem).section(section.to_owned()));
}
