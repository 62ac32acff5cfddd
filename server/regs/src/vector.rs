//! Vector operands of memory instructions (`ld`, `st`, `ldu`, `atom`, `red`,
//! `multimem.*`) written with `.v2` / `.v4` / `.v8`, and the packed forms of
//! `mov.b32` / `mov.b64` / `mov.b128` (`mov.b64 %rd1, {%r1, %r2}`).

use crate::catalog::{t, v, Case};
use crate::{vc, Opcode, RegError, VectorCount};

const VECS: &[&str] = &["v2", "v4", "v8"];

/// Element types and their register width in bits.
const TYPES: &[(&str, u32)] = &[
    ("b8", 16),
    ("u8", 16),
    ("s8", 16),
    ("b16", 16),
    ("u16", 16),
    ("s16", 16),
    ("f16", 16),
    ("bf16", 16),
    ("b32", 32),
    ("u32", 32),
    ("s32", 32),
    ("f32", 32),
    ("f16x2", 32),
    ("bf16x2", 32),
    ("b64", 64),
    ("u64", 64),
    ("s64", 64),
    ("f64", 64),
    ("b128", 128),
];

/// Which vector widths each instruction group allows with which element
/// types: (group, vector, types).
const INTS: &[&str] = &[
    "b8", "u8", "s8", "b16", "u16", "s16", "b32", "u32", "s32", "f32",
];
const ALL_LDST: &[&str] = &[
    "b8", "u8", "s8", "b16", "u16", "s16", "b32", "u32", "s32", "f32", "b64", "u64", "s64", "f64",
];

/// Which vector widths each instruction group allows with which element
/// types: (group, vector, types). From ptxas 13.5: `ld`/`st` take no
/// `.f16`/`.f16x2` element types (use `.b16`/`.b32`), `.v8` also works
/// with 8- and 16-bit elements (the spec only describes `.v8` with 32-bit
/// types), and `ldu` stays within 128 bits and has no `.v8`.
const RULES: &[(&str, &str, &[&str])] = &[
    ("ldst", "v2", ALL_LDST),
    ("ldst", "v4", ALL_LDST),
    ("ldst", "v8", INTS),
    ("ldu", "v2", ALL_LDST),
    ("ldu", "v4", INTS),
    ("atomic", "v2", &["f32", "f16", "bf16", "f16x2", "bf16x2"]),
    ("atomic", "v4", &["f32", "f16", "bf16", "f16x2", "bf16x2"]),
    ("atomic", "v8", &["f16", "bf16"]),
];

fn group(op: &Opcode) -> &'static str {
    match op.components[0].as_str() {
        "atom" | "red" | "multimem" => "atomic",
        "ldu" => "ldu",
        _ => "ldst",
    }
}

pub(crate) fn counts(op: &Opcode) -> Result<Vec<VectorCount>, RegError> {
    let name = op.components[0].as_str();
    let type_names: Vec<&str> = TYPES.iter().map(|t| t.0).collect();
    let (ti, ty) = op
        .all_in(1, &type_names)
        .last()
        .copied()
        .ok_or_else(|| RegError::at(op.last(), "missing element type"))?;
    let bits = TYPES.iter().find(|t| t.0 == ty).map_or(32, |t| t.1);
    if name == "mov" {
        let half = bits / 2;
        if !matches!(ty, "b32" | "b64" | "b128") {
            return Err(RegError::at(
                ti,
                "only mov.b32, mov.b64 and mov.b128 pack vectors",
            ));
        }
        let operand = usize::from(!op.operands.trim_start().starts_with('{'));
        let expl = format!(
            "a .{ty} value packs 2 × {half}-bit registers{}",
            if ty == "b32" {
                ""
            } else if ty == "b64" {
                " (or 4 × 16-bit)"
            } else {
                " (or 4 × 32-bit)"
            }
        );
        return Ok(vec![vc(operand, "packed", 2, half, expl)]);
    }
    let Some((vi, vec)) = op.find_in(1, VECS) else {
        return Err(RegError::at(
            op.last(),
            format!(
                "{} has no .v2/.v4/.v8 qualifier, so no vector operand",
                op.text
            ),
        ));
    };
    let g = group(op);
    let allowed = RULES
        .iter()
        .find(|r| r.0 == g && r.1 == vec)
        .map_or(&[][..], |r| r.2);
    if !allowed.contains(&ty) {
        return Err(RegError::at(
            vi,
            format!(
                ".{vec} {name} does not take .{ty} elements (it takes .{})",
                allowed.join(", .")
            ),
        ));
    }
    let n: u32 = vec[1..].parse().unwrap_or(2);
    let expl = format!(".{vec} = {n} registers of {bits} bits, one per .{ty} element");
    let sub = op.components.get(1).map(String::as_str).unwrap_or("");
    let operands: &[(usize, &str)] = match (name, sub) {
        ("ld" | "ldu", _) | ("multimem", "ld_reduce") => &[(0, "d")],
        ("atom", _) => &[(0, "d"), (2, "b")],
        _ => &[(1, "b")],
    };
    Ok(operands
        .iter()
        .map(|&(i, role)| vc(i, role, n, bits, expl.clone()))
        .collect())
}

/// Catalogue: vector widths × element types for each instruction group.
pub(crate) fn cases() -> Vec<Case> {
    const PROBES: &[u32] = &[1, 2, 3, 4, 8];
    let mut out = Vec::new();
    let bits_of = |ty: &str| TYPES.iter().find(|t| t.0 == ty).map_or(32, |t| t.1);
    for vec in VECS {
        for ty in ["u8", "b16", "f16", "b32", "f32", "f16x2", "b64", "f64"] {
            let b = bits_of(ty);
            for (op, operands) in [
                (format!("ld.global.{vec}.{ty}"), vec![v(b), t("[%ad]")]),
                (format!("ldu.global.{vec}.{ty}"), vec![v(b), t("[%ad]")]),
                (format!("st.global.{vec}.{ty}"), vec![t("[%ad]"), v(b)]),
            ] {
                out.push(Case::new("ld/st", "sm_100a", op, operands, PROBES));
            }
        }
        for ty in ["f32", "f16", "bf16", "f16x2", "bf16x2"] {
            let b = bits_of(ty);
            let noftz = if ty == "f32" { "" } else { ".noftz" };
            for (family, op, operands) in [
                (
                    "atom/red",
                    format!("atom.global.add{noftz}.{vec}.{ty}"),
                    vec![v(b), t("[%ad]"), v(b)],
                ),
                (
                    "atom/red",
                    format!("red.global.add{noftz}.{vec}.{ty}"),
                    vec![t("[%ad]"), v(b)],
                ),
                (
                    "multimem",
                    format!("multimem.ld_reduce.relaxed.sys.global.add.{vec}.{ty}"),
                    vec![v(b), t("[%ad]")],
                ),
                (
                    "multimem",
                    format!("multimem.st.relaxed.sys.global.{vec}.{ty}"),
                    vec![t("[%ad]"), v(b)],
                ),
                (
                    "multimem",
                    format!("multimem.red.relaxed.sys.global.add.{vec}.{ty}"),
                    vec![t("[%ad]"), v(b)],
                ),
            ] {
                out.push(Case::new(family, "sm_100a", op, operands, PROBES));
            }
        }
    }
    for (ty, dst, half) in [("b32", "%s", 16), ("b64", "%ad", 32), ("b128", "%q", 64)] {
        let op = format!("mov.{ty}");
        out.push(Case::new(
            "mov",
            "sm_100a",
            op,
            vec![t(dst), v(half)],
            PROBES,
        ));
    }
    out
}
