//! `ldmatrix` / `stmatrix` / `movmatrix` register counts (PTX ISA 9.1
//! sections 9.7.14.5.15 to 9.7.14.5.17): one or two 32-bit registers per
//! 8x8 / 16x16 / 8x16 / 16x8 matrix, times the `.num` matrix count.

use crate::catalog::{t, v, Case, Slot};
use crate::{vc, Opcode, RegError, VectorCount};

/// (instruction, shape, element formats, registers per matrix, allowed
/// `.num`, `.trans`: Some(true) required / Some(false) forbidden / None optional).
type Form = (
    &'static str,
    &'static str,
    &'static [&'static str],
    u32,
    &'static [&'static str],
    Option<bool>,
);

const FORMS: &[Form] = &[
    ("ldmatrix", "m8n8", &["b16"], 1, &["x1", "x2", "x4"], None),
    (
        "ldmatrix",
        "m16n16",
        &["b8", "b6x16_p32", "b4x16_p64"],
        2,
        &["x1", "x2"],
        Some(true),
    ),
    (
        "ldmatrix",
        "m8n16",
        &["b6x16_p32", "b4x16_p64"],
        1,
        &["x1", "x2", "x4"],
        Some(false),
    ),
    ("stmatrix", "m8n8", &["b16"], 1, &["x1", "x2", "x4"], None),
    (
        "stmatrix",
        "m16n8",
        &["b8"],
        1,
        &["x1", "x2", "x4"],
        Some(true),
    ),
];

const SHAPES: &[&str] = &["m8n8", "m16n16", "m8n16", "m16n8"];
const FORMATS: &[&str] = &["b16", "b8", "b6x16_p32", "b4x16_p64"];
const NUMS: &[&str] = &["x1", "x2", "x4"];

pub(crate) fn counts(op: &Opcode) -> Result<Vec<VectorCount>, RegError> {
    let name = op.components[0].as_str();
    let (si, shape) = op
        .find_in(1, SHAPES)
        .ok_or_else(|| RegError::at(op.last(), format!("missing {name} shape")))?;
    if name == "movmatrix" {
        if shape != "m8n8" {
            return Err(RegError::at(si, "movmatrix only has the .m8n8 shape"));
        }
        if op.find("trans").is_none() {
            return Err(RegError::at(op.last(), "movmatrix needs .trans"));
        }
        if op.find("b16").is_none() {
            return Err(RegError::at(
                op.last(),
                format!(
                    "movmatrix moves .b16 elements, not .{}",
                    op.components[op.last()]
                ),
            ));
        }
        let e = "one 32-bit register (two .b16 elements of the 8x8 matrix)";
        return Ok(vec![vc(0, "d", 1, 32, e), vc(1, "a", 1, 32, e)]);
    }
    let (fi, format) = op
        .all_in(1, FORMATS)
        .last()
        .copied()
        .ok_or_else(|| RegError::at(op.last(), "missing element type (.b16 or .b8)"))?;
    let on_shape: Vec<&Form> = FORMS
        .iter()
        .filter(|f| f.0 == name && f.1 == shape)
        .collect();
    let Some(&&(_, _, _, per, nums, trans)) = on_shape.iter().find(|f| f.2.contains(&format))
    else {
        if on_shape.is_empty() {
            return Err(RegError::at(si, format!("{name} has no .{shape} shape")));
        }
        let allowed: Vec<&str> = on_shape.iter().flat_map(|f| f.2.iter().copied()).collect();
        return Err(RegError::at(
            fi,
            format!(
                "{name}.{shape} takes .{}, not .{format}",
                allowed.join("/.")
            ),
        ));
    };
    let (ni, num) = op
        .find_in(1, NUMS)
        .ok_or_else(|| RegError::at(op.last(), "missing matrix count (.x1, .x2 or .x4)"))?;
    if !nums.contains(&num) {
        return Err(RegError::at(
            ni,
            format!(
                "{name}.{shape} loads at most {} matrices: .{num} is not allowed",
                nums.len()
            ),
        ));
    }
    let has_trans = op.find("trans");
    match (trans, has_trans) {
        (Some(true), None) => {
            return Err(RegError::at(si, format!("{name}.{shape} requires .trans")));
        }
        (Some(false), Some(i)) => {
            return Err(RegError::at(
                i,
                format!("{name}.{shape} has no .trans form"),
            ));
        }
        _ => {}
    }
    if format != "b16" && format != "b8" && op.find("b8x16").is_none() {
        return Err(RegError::at(
            fi,
            format!(".{format} needs the .b8x16 destination format before it"),
        ));
    }
    let matrices: u32 = num[1..].parse().unwrap_or(1);
    let regs = matrices * per;
    let unit = if per == 1 {
        "1 register".to_owned()
    } else {
        format!("{per} registers")
    };
    let expl = format!(".{shape} = {unit} per matrix × {num} = {regs}");
    let operand = usize::from(name == "stmatrix");
    Ok(vec![vc(operand, "r", regs, 32, expl)])
}

/// Catalogue: every instruction × shape × num × trans × type.
pub(crate) fn cases() -> Vec<Case> {
    const PROBES: &[u32] = &[1, 2, 3, 4, 8];
    let mut out = Vec::new();
    let types = ["b16", "b8", "b8x16.b6x16_p32", "b8x16.b4x16_p64"];
    for shape in SHAPES {
        for num in NUMS {
            for trans in ["", ".trans"] {
                for ty in types {
                    let op = format!("ldmatrix.sync.aligned.{shape}.{num}{trans}.shared.{ty}");
                    out.push(Case::new(
                        "ldmatrix",
                        "sm_100a",
                        op,
                        vec![v(32), t("[%ad]")],
                        PROBES,
                    ));
                }
                for ty in ["b16", "b8"] {
                    let op = format!("stmatrix.sync.aligned.{shape}.{num}{trans}.shared.{ty}");
                    out.push(Case::new(
                        "stmatrix",
                        "sm_100a",
                        op,
                        vec![t("[%ad]"), v(32)],
                        PROBES,
                    ));
                }
            }
        }
        for trans in ["", ".trans"] {
            for ty in ["b16", "b8"] {
                let op = format!("movmatrix.sync.aligned.{shape}{trans}.{ty}");
                let ops = vec![Slot::Scalar { bits: 32 }, Slot::Scalar { bits: 32 }];
                out.push(Case::new("movmatrix", "sm_100a", op, ops, PROBES));
            }
        }
    }
    out
}
