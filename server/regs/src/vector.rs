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
    // Single fp8 elements (no vector takes them) and packed fp8 pairs and
    // quads (multimem).
    ("e4m3", 16),
    ("e5m2", 16),
    ("e4m3x2", 16),
    ("e5m2x2", 16),
    ("e4m3x4", 32),
    ("e5m2x4", 32),
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
    let sub = op.components.get(1).map(String::as_str).unwrap_or("");
    let n: u32 = vec[1..].parse().unwrap_or(2);
    match (name, sub) {
        ("multimem", _) => multimem_rule(op, vi, vec, ti, ty)?,
        ("st", "async") => st_async_rule(op, vi, vec, ty)?,
        ("red", "async") => {
            return Err(RegError::at(
                vi,
                format!(
                    "red.async has no vector forms: ptxas 13.5 rejects .{vec} with every type, also where plain `red` takes it"
                ),
            ))
        }
        _ => {}
    }
    // 256-bit loads and stores (.v8 of 32-bit, .v4 of 64-bit elements) only
    // exist for global memory, written `.global` or generic (ptxas 13.5:
    // "global state space expected for feature '256 bit wide load/store'").
    const NOT_GLOBAL: &[&str] = &[
        "shared",
        "shared::cta",
        "shared::cluster",
        "local",
        "const",
        "param",
        "param::entry",
        "param::func",
    ];
    if matches!(name, "ld" | "st") && sub != "async" && bits * n == 256 {
        if let Some((si, space)) = op.find_in(1, NOT_GLOBAL) {
            return Err(RegError::at(
                si,
                format!(
                    ".{vec}.{ty} is a 256-bit access, which only global memory has (not .{space})"
                ),
            ));
        }
    }
    let g = group(op);
    let allowed = RULES
        .iter()
        .find(|r| r.0 == g && r.1 == vec)
        .map_or(&[][..], |r| r.2);
    if name != "multimem" && !allowed.contains(&ty) {
        return Err(RegError::at(
            vi,
            format!(
                ".{vec} {name} does not take .{ty} elements (it takes .{})",
                allowed.join(", .")
            ),
        ));
    }
    let expl = format!(".{vec} = {n} registers of {bits} bits, one per .{ty} element");
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

/// `multimem.ld_reduce` / `.st` / `.red` vectors (ptxas 13.5, `fixtures/truth`): at most
/// 128 bits, no `.f64` and no single fp8 elements; `.red` takes no fp8 types and
/// `.ld_reduce` min/max no `.f32`; `.acc::f32` goes with 16-bit floats under `.add`,
/// `.acc::f16` with packed fp8 under `.add`.
fn multimem_rule(op: &Opcode, vi: usize, vec: &str, ti: usize, ty: &str) -> Result<(), RegError> {
    const FP16: &[&str] = &["f16", "bf16", "f16x2", "bf16x2"];
    const FP8: &[&str] = &["e4m3x2", "e5m2x2", "e4m3x4", "e5m2x4"];
    let sub = op.components.get(1).map(String::as_str).unwrap_or("");
    let reduce_op = op
        .find_in(2, &["add", "min", "max"])
        .map(|(_, o)| o)
        .unwrap_or("");
    let bits = TYPES.iter().find(|t| t.0 == ty).map_or(0, |t| t.1);
    let n: u32 = vec[1..].parse().unwrap_or(2);
    let fp8 = FP8.contains(&ty);
    let mut types: Vec<&str> = FP16.to_vec();
    if !(sub == "ld_reduce" && reduce_op != "add") {
        types.push("f32");
    }
    if sub != "red" {
        types.extend(FP8);
    }
    if !types.contains(&ty) {
        return Err(RegError::at(
            ti,
            format!(
                "multimem.{sub}{} vectors take .{}, not .{ty}",
                if sub == "ld_reduce" {
                    format!(".{reduce_op}")
                } else {
                    String::new()
                },
                types.join(", .")
            ),
        ));
    }
    if bits * n > 128 {
        return Err(RegError::at(
            vi,
            format!(
                ".{vec}.{ty} is {} bits; multimem vectors hold at most 128",
                bits * n
            ),
        ));
    }
    if let Some(i) = op.find("acc::f32") {
        if reduce_op != "add" || !FP16.contains(&ty) {
            return Err(RegError::at(
                i,
                ".acc::f32 only goes with .add of .f16/.bf16/.f16x2/.bf16x2",
            ));
        }
    }
    if let Some(i) = op.find("acc::f16") {
        if reduce_op != "add" || !fp8 {
            return Err(RegError::at(
                i,
                ".acc::f16 only goes with .add of packed fp8 types (.e4m3x2, .e5m2x2, .e4m3x4, .e5m2x4)",
            ));
        }
    }
    Ok(())
}

/// `st.async` vectors (ptxas 13.5, `fixtures/truth`): only the mbarrier forms take them,
/// `.v2` of 32- and 64-bit types and `.v4` of 32-bit types.
fn st_async_rule(op: &Opcode, vi: usize, vec: &str, ty: &str) -> Result<(), RegError> {
    const B32: &[&str] = &["b32", "u32", "s32", "f32"];
    const B64: &[&str] = &["b64", "u64", "s64", "f64"];
    if op.find("mbarrier::complete_tx::bytes").is_none() {
        return Err(RegError::at(
            vi,
            "st.async without an mbarrier (.release, .mmio, .global) stores one value: it has no vector forms",
        ));
    }
    let ok = match vec {
        "v2" => B32.contains(&ty) || B64.contains(&ty),
        "v4" => B32.contains(&ty),
        _ => false,
    };
    if !ok {
        return Err(RegError::at(
            vi,
            format!(
                "st.async takes .v2 of 32- or 64-bit types and .v4 of 32-bit types, not .{vec}.{ty}"
            ),
        ));
    }
    Ok(())
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
