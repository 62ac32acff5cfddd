//! `tcgen05.ld` / `tcgen05.st` (including `tcgen05.ld.red`): Tensor Memory
//! to register vectors.
//!
//! The vector length is the registers-per-repeat of the data-movement shape
//! times the `.num` repeat factor (PTX ISA 9.1, tables 49 and 50). Cells that
//! would exceed 128 registers are `NA` in the tables and rejected by ptxas.
//! `.pack::16b` / `.unpack::16b` do not change the register count (checked
//! with ptxas).

use crate::{vc, Opcode, RegError, VectorCount};

/// Data-movement shapes: (name, table column).
pub(crate) const SHAPES: &[(&str, usize)] = &[
    ("16x32bx2", 0),
    ("16x64b", 0),
    ("32x32b", 0),
    ("16x128b", 1),
    ("16x256b", 2),
];

/// Repeat factors in table order.
pub(crate) const NUMS: &[&str] = &["x1", "x2", "x4", "x8", "x16", "x32", "x64", "x128"];

/// Tables 49/50: vector length per `.num` row and shape column
/// (`.16x32bx2`/`.16x64b`/`.32x32b`, `.16x128b`, `.16x256b`); `None` = NA.
const TABLE: [[Option<u32>; 3]; 8] = [
    [Some(1), Some(2), Some(4)],
    [Some(2), Some(4), Some(8)],
    [Some(4), Some(8), Some(16)],
    [Some(8), Some(16), Some(32)],
    [Some(16), Some(32), Some(64)],
    [Some(32), Some(64), Some(128)],
    [Some(64), Some(128), None],
    [Some(128), None, None],
];

/// Shapes allowed with `tcgen05.ld.red`.
pub(crate) const RED_SHAPES: &[&str] = &["32x32b", "16x32bx2"];

pub(crate) fn counts(op: &Opcode) -> Result<Vec<VectorCount>, RegError> {
    let is_ld = op.components[1] == "ld";
    let red = op.components.get(2).map(String::as_str) == Some("red");
    let shape_names: Vec<&str> = SHAPES.iter().map(|s| s.0).collect();
    let (si, shape) = op.find_in(2, &shape_names).ok_or_else(|| {
        RegError::at(
            op.last(),
            "missing data-movement shape (.16x64b, .16x128b, .16x256b, .32x32b or .16x32bx2)",
        )
    })?;
    let (ni, num) = op
        .find_in(2, NUMS)
        .ok_or_else(|| RegError::at(op.last(), "missing repeat factor .num (.x1 … .x128)"))?;
    let column = SHAPES.iter().find(|s| s.0 == shape).map_or(0, |s| s.1);
    let row = NUMS.iter().position(|n| *n == num).unwrap_or(0);
    if !is_ld {
        if let Some(i) = op.find("pack::16b") {
            return Err(RegError::at(
                i,
                "tcgen05.st unpacks with .unpack::16b, not .pack::16b",
            ));
        }
    } else if let Some(i) = op.find("unpack::16b") {
        return Err(RegError::at(
            i,
            "tcgen05.ld packs with .pack::16b, not .unpack::16b",
        ));
    }
    if red {
        if !RED_SHAPES.contains(&shape) {
            return Err(RegError::at(
                si,
                format!("tcgen05.ld.red only supports .32x32b and .16x32bx2, not .{shape}"),
            ));
        }
        if num == "x1" {
            return Err(RegError::at(
                ni,
                "tcgen05.ld.red needs at least two columns to reduce: use .x2 or more",
            ));
        }
        if let Some(i) = op.find("pack::16b") {
            return Err(RegError::at(i, "tcgen05.ld.red has no .pack::16b form"));
        }
    }
    let per_repeat = TABLE[0][column].unwrap_or(1);
    let registers = TABLE[row][column].ok_or_else(|| {
        RegError::at(
            ni,
            format!(
                ".{shape} with .{num} would need {} registers, over the 128-register limit of one vector (NA in the table)",
                per_repeat * (1 << row)
            ),
        )
    })?;
    let unit = if shape == "16x32bx2" {
        "1 register per repeat (two 16x32b halves)".to_owned()
    } else if per_repeat == 1 {
        "1 register per repeat".to_owned()
    } else {
        format!("{per_repeat} registers per repeat")
    };
    let packing = if op.find("pack::16b").is_some() {
        "; .pack::16b packs two 16-bit values per register without changing the count"
    } else if op.find("unpack::16b").is_some() {
        "; .unpack::16b splits each register into two 16-bit values without changing the count"
    } else {
        ""
    };
    let explanation = format!("{shape} = {unit} × {num} = {registers}{packing}");
    let split = usize::from(shape == "16x32bx2");
    let mut out = Vec::new();
    if is_ld {
        out.push(vc(0, "r", registers, 32, explanation));
        if red {
            out.push(vc(
                1,
                "redval",
                1,
                32,
                "redval is one 32-bit register holding the reduction result",
            ));
        }
    } else {
        // [taddr], {immHalfSplitoff,} r
        out.push(vc(1 + split, "r", registers, 32, explanation));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::register_counts;
    use expect_test::{expect, Expect};

    fn check(text: &str, expect: Expect) {
        let out = match register_counts(text) {
            Ok(rc) => rc
                .vectors
                .iter()
                .map(|v| {
                    format!(
                        "#{} {} {}x{}b: {}",
                        v.operand, v.role, v.registers, v.register_bits, v.explanation
                    )
                })
                .collect::<Vec<_>>()
                .join("\n"),
            Err(e) => format!("error at {:?}: {}", e.component, e.message),
        };
        expect.assert_eq(&out);
    }

    #[test]
    fn explanations() {
        check(
            "tcgen05.ld.sync.aligned.16x256b.x16.b32",
            expect!["#0 r 64x32b: 16x256b = 4 registers per repeat × x16 = 64"],
        );
        check(
            "tcgen05.st.sync.aligned.16x32bx2.x4.unpack::16b.b32 [%r1], 8, {%r2}",
            expect!["#2 r 4x32b: 16x32bx2 = 1 register per repeat (two 16x32b halves) × x4 = 4; .unpack::16b splits each register into two 16-bit values without changing the count"],
        );
        check(
            "tcgen05.ld.red.sync.aligned.32x32b.x8.max.u32",
            expect![[r#"
                #0 r 8x32b: 32x32b = 1 register per repeat × x8 = 8
                #1 redval 1x32b: redval is one 32-bit register holding the reduction result"#]],
        );
    }

    #[test]
    fn errors() {
        check(
            "tcgen05.ld.sync.aligned.16x256b.x64.b32",
            expect!["error at Some(5): .16x256b with .x64 would need 256 registers, over the 128-register limit of one vector (NA in the table)"],
        );
        check(
            "tcgen05.ld.red.sync.aligned.16x64b.x2.max.u32",
            expect![
                "error at Some(5): tcgen05.ld.red only supports .32x32b and .16x32bx2, not .16x64b"
            ],
        );
        check(
            "tcgen05.ld.red.sync.aligned.32x32b.x1.max.u32",
            expect!["error at Some(6): tcgen05.ld.red needs at least two columns to reduce: use .x2 or more"],
        );
    }
}
