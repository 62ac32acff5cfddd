//! `wmma.load` / `wmma.store` / `wmma.mma` fragment sizes (PTX ISA 9.1
//! section 9.7.14.4, "Matrix Fragments for WMMA").
//!
//! Fragments are arch-specific, so they are kept as a table rather than
//! derived from the shape. One deviation from the spec was found with ptxas:
//! the spec's `.f64` accumulator row for `.m8n8k4` says "a single `.f64`
//! register", but ptxas 13.5 only accepts two registers for C and D (which
//! matches the spec's own `wmma.store` f64 example and the `mma.m8n8k4.f64`
//! accumulator).

use crate::catalog::{t, v, Case};
use crate::{vc, Opcode, RegError, VectorCount};

/// Shapes known to wmma.
pub(crate) const SHAPES: &[&str] = &[
    "m16n16k16",
    "m8n32k16",
    "m32n8k16",
    "m16n16k8",
    "m8n8k4",
    "m8n8k32",
    "m8n8k128",
];

/// Every element type wmma fragments may name.
pub(crate) const TYPES: &[&str] = &[
    "f16", "bf16", "tf32", "f64", "s8", "u8", "s4", "u4", "b1", "f32", "s32",
];

/// Multiplicand fragments: (shape, type, A registers, B registers).
const MULTIPLICANDS: &[(&str, &str, u32, u32)] = &[
    ("m16n16k16", "f16", 8, 8),
    ("m8n32k16", "f16", 8, 8),
    ("m32n8k16", "f16", 8, 8),
    ("m16n16k16", "s8", 2, 2),
    ("m16n16k16", "u8", 2, 2),
    ("m8n32k16", "s8", 1, 4),
    ("m8n32k16", "u8", 1, 4),
    ("m32n8k16", "s8", 4, 1),
    ("m32n8k16", "u8", 4, 1),
    ("m16n16k16", "bf16", 4, 4),
    ("m8n32k16", "bf16", 2, 8),
    ("m32n8k16", "bf16", 8, 2),
    ("m16n16k8", "tf32", 4, 4),
    ("m8n8k4", "f64", 1, 1),
    ("m8n8k32", "s4", 1, 1),
    ("m8n8k32", "u4", 1, 1),
    ("m8n8k128", "b1", 1, 1),
];

/// Accumulator (C/D) fragments: (shape, type, registers).
const ACCUMULATORS: &[(&str, &str, u32)] = &[
    ("m16n16k16", "f16", 4),
    ("m8n32k16", "f16", 4),
    ("m32n8k16", "f16", 4),
    ("m16n16k16", "f32", 8),
    ("m8n32k16", "f32", 8),
    ("m32n8k16", "f32", 8),
    ("m16n16k16", "s32", 8),
    ("m8n32k16", "s32", 8),
    ("m32n8k16", "s32", 8),
    ("m16n16k8", "f32", 8),
    // Spec table: one .f64 register; ptxas 13.5 requires two.
    ("m8n8k4", "f64", 2),
    ("m8n8k32", "s32", 2),
    ("m8n8k128", "s32", 2),
    // Not in the spec (which lists only .s32 accumulators for the sub-byte
    // and single-bit shapes), but ptxas 13.5 accepts .f32 C loads and D
    // stores there, with two registers.
    ("m8n8k32", "f32", 2),
    ("m8n8k128", "f32", 2),
];

/// `wmma.mma` forms that ptxas 13.5 accepts although the spec has no such
/// type on the shape: (shape, type of all four matrices, D/A/B/C registers).
/// ptxas rejects loads and stores of these fragments at every count.
const MMA_QUIRKS: &[(&str, &str, [u32; 4])] = &[
    ("m16n16k16", "f64", [8, 8, 8, 8]),
    ("m16n16k8", "f64", [8, 4, 4, 8]),
];

/// Sub-byte and single-bit multiplicands only exist as row-major A and
/// column-major B.
const SUB_BYTE: &[&str] = &["s4", "u4", "b1"];

fn type_note(ty: &str) -> &'static str {
    match ty {
        "f16" | "bf16" => ", 2 elements each",
        "s8" | "u8" => ", 4 elements each",
        "s4" | "u4" => ", 8 elements each",
        "b1" => ", 32 elements each",
        _ => "",
    }
}

fn bits(ty: &str) -> u32 {
    if ty == "f64" {
        64
    } else {
        32
    }
}

fn shapes_for(ty: &str, accumulator: bool) -> Vec<&'static str> {
    if accumulator {
        ACCUMULATORS
            .iter()
            .filter(|r| r.1 == ty)
            .map(|r| r.0)
            .collect()
    } else {
        MULTIPLICANDS
            .iter()
            .filter(|r| r.1 == ty)
            .map(|r| r.0)
            .collect()
    }
}

/// Registers of matrix `m` (`a`, `b`, `c`, `d`) with element type `ty`.
fn fragment(
    shape: &str,
    m: &str,
    ty: &str,
    ti: usize,
    layout: Option<(usize, &str)>,
) -> Result<(u32, String), RegError> {
    let accumulator = m == "c" || m == "d";
    let count = if accumulator {
        ACCUMULATORS
            .iter()
            .find(|r| r.0 == shape && r.1 == ty)
            .map(|r| r.2)
    } else {
        MULTIPLICANDS
            .iter()
            .find(|r| r.0 == shape && r.1 == ty)
            .map(|r| if m == "a" { r.2 } else { r.3 })
    };
    let Some(count) = count else {
        let shapes = shapes_for(ty, accumulator);
        let role = if accumulator {
            "accumulator"
        } else {
            "multiplicand"
        };
        let msg = if shapes.is_empty() {
            format!("wmma has no .{ty} {role} (matrix {})", m.to_uppercase())
        } else {
            format!(
                "wmma .{shape} has no .{ty} {role} fragment; .{ty} goes with .{}",
                shapes.join(", .")
            )
        };
        return Err(RegError::at(ti, msg));
    };
    if !accumulator && SUB_BYTE.contains(&ty) {
        let need = if m == "a" { "row" } else { "col" };
        if let Some((li, l)) = layout {
            if l != need {
                return Err(RegError::at(
                    li,
                    format!(
                        "sub-byte and single-bit wmma needs matrix {} as .{need}, not .{l}",
                        m.to_uppercase()
                    ),
                ));
            }
        }
    }
    let plural = if count == 1 { "register" } else { "registers" };
    let explanation = format!(
        "wmma .{shape} .{ty} {} fragment = {count} {plural} of {} bits{}",
        m.to_uppercase(),
        bits(ty),
        type_note(ty)
    );
    Ok((count, explanation))
}

pub(crate) fn counts(op: &Opcode) -> Result<Vec<VectorCount>, RegError> {
    let kind = op.components.get(1).map(String::as_str).unwrap_or("");
    let (si, shape) = op.find_in(2, SHAPES).ok_or_else(|| {
        RegError::at(
            op.last(),
            format!("missing wmma shape (.{})", SHAPES.join(", .")),
        )
    })?;
    let types = op.all_in(2, TYPES);
    match kind {
        "load" | "store" => {
            let (mi, m) = op
                .find_in(2, &["a", "b", "c", "d"])
                .ok_or_else(|| RegError::at(1, "wmma.load/store needs .a, .b, .c or .d"))?;
            if kind == "store" && m != "d" {
                return Err(RegError::at(mi, "wmma.store only stores matrix D (.d)"));
            }
            if kind == "load" && m == "d" {
                return Err(RegError::at(mi, "wmma.load loads .a, .b or .c, not .d"));
            }
            let &(ti, ty) = types
                .last()
                .ok_or_else(|| RegError::at(op.last(), "missing element type"))?;
            let layout = op.find_in(2, &["row", "col"]);
            let (n, expl) = fragment(shape, m, ty, ti, layout)?;
            let _ = si;
            let operand = usize::from(kind == "store");
            Ok(vec![vc(operand, m, n, bits(ty), expl)])
        }
        "mma" => {
            let layouts = op.all_in(2, &["row", "col"]);
            if layouts.len() != 2 {
                return Err(RegError::at(
                    si,
                    "wmma.mma needs two layouts (.alayout.blayout)",
                ));
            }
            let after: Vec<(usize, &str)> = types.into_iter().filter(|(i, _)| *i > si).collect();
            let (d, a, b, c) = match after.as_slice() {
                [d, c] => (*d, (c.0, "f16"), (c.0, "f16"), *c),
                [d, a, b, c] => (*d, *a, *b, *c),
                _ => {
                    return Err(RegError::at(
                        op.last(),
                        "wmma.mma needs .dtype.ctype or .dtype.atype.btype.ctype",
                    ))
                }
            };
            if a.1 != b.1 {
                return Err(RegError::at(
                    b.0,
                    format!(
                        "wmma.mma needs the same A and B type, got .{} and .{}",
                        a.1, b.1
                    ),
                ));
            }
            let mut out = Vec::new();
            let quirk = MMA_QUIRKS
                .iter()
                .find(|q| q.0 == shape && [d.1, a.1, b.1, c.1].iter().all(|t| *t == q.1));
            if let Some((_, ty, regs)) = quirk {
                for (operand, m) in ["d", "a", "b", "c"].into_iter().enumerate() {
                    let expl = format!(
                        "wmma .{shape} .{ty} {} = {} registers of 64 bits (accepted by ptxas 13.5, not in the spec's fragment tables)",
                        m.to_uppercase(),
                        regs[operand]
                    );
                    out.push(vc(operand, m, regs[operand], 64, expl));
                }
                return Ok(out);
            }
            for (operand, m, (ti, ty), layout) in [
                (0, "d", d, None),
                (1, "a", a, Some(layouts[0])),
                (2, "b", b, Some(layouts[1])),
                (3, "c", c, None),
            ] {
                let (n, expl) = fragment(shape, m, ty, ti, layout)?;
                out.push(vc(operand, m, n, bits(ty), expl));
            }
            let integer = ["s8", "u8", "s4", "u4", "b1"].contains(&a.1);
            if integer && (d.1 != "s32" || c.1 != "s32") {
                return Err(RegError::at(d.0, "integer wmma.mma accumulates in .s32"));
            }
            if ["bf16", "tf32"].contains(&a.1) && (d.1 != "f32" || c.1 != "f32") {
                return Err(RegError::at(
                    d.0,
                    format!(".{} wmma.mma accumulates in .f32", a.1),
                ));
            }
            Ok(out)
        }
        _ => Err(RegError::at(1, "wmma has .load, .store and .mma forms")),
    }
}

/// Catalogue: every shape × matrix × type × layout, valid or not.
pub(crate) fn cases() -> Vec<Case> {
    const PROBES: &[u32] = &[1, 2, 3, 4, 8, 16];
    let mut out = Vec::new();
    for shape in SHAPES {
        for ty in TYPES {
            let b = bits(ty);
            for layout in ["row", "col"] {
                for m in ["a", "b", "c"] {
                    let op = format!("wmma.load.{m}.sync.aligned.{layout}.{shape}.{ty}");
                    out.push(Case::new(
                        "wmma",
                        "sm_80",
                        op,
                        vec![v(b), t("[%ad]")],
                        PROBES,
                    ));
                }
                let op = format!("wmma.store.d.sync.aligned.{layout}.{shape}.{ty}");
                out.push(Case::new(
                    "wmma",
                    "sm_80",
                    op,
                    vec![t("[%ad]"), v(b)],
                    PROBES,
                ));
            }
        }
        let sigs = [
            "f16.f16",
            "f32.f16",
            "f16.f32",
            "f32.f32",
            "f32.bf16.bf16.f32",
            "f32.tf32.tf32.f32",
            "f64.f64.f64.f64",
            "s32.s8.s8.s32",
            "s32.u8.u8.s32",
            "s32.s4.s4.s32",
            "s32.u4.u4.s32",
            "s32.b1.b1.s32",
        ];
        for sig in sigs {
            let b = if sig.starts_with("f64") { 64 } else { 32 };
            let head = if sig.contains("b1") {
                "wmma.mma.xor.popc"
            } else {
                "wmma.mma"
            };
            for (al, bl) in [
                ("row", "col"),
                ("row", "row"),
                ("col", "col"),
                ("col", "row"),
            ] {
                let op = format!("{head}.sync.aligned.{al}.{bl}.{shape}.{sig}");
                out.push(Case::new(
                    "wmma",
                    "sm_80",
                    op,
                    vec![v(b), v(b), v(b), v(b)],
                    PROBES,
                ));
            }
        }
    }
    out
}
