//! Inlay hints: how many registers each vector operand needs.
//!
//! For instructions whose vector sizes follow from their qualifiers (tcgen05
//! loads and stores, mma/wmma/wgmma fragments, ldmatrix, vector loads ...),
//! a hint after each vector operand shows the count and width that
//! `ptx-regs` computes, e.g. `64×b32` after the destination of
//! `tcgen05.ld.sync.aligned.16x256b.x16.b32`. An instruction written without
//! its operands gets the hints after its opcode.

use ptx_syntax::{Instruction, OperandKind, Parse, TextRange};

/// One hint, shown at `offset`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlayHint {
    pub offset: usize,
    pub label: String,
    /// How the count arises.
    pub tooltip: String,
}

/// Mnemonics whose operands are fragments even when no brace is written yet.
const FRAGMENT_FAMILIES: &[&str] = &[
    "tcgen05",
    "wmma",
    "mma",
    "wgmma",
    "ldmatrix",
    "stmatrix",
    "movmatrix",
];

/// The hints of the instructions that overlap `range`.
pub fn inlay_hints(parse: &Parse, range: TextRange) -> Vec<InlayHint> {
    parse
        .module()
        .instructions_in(range)
        .into_iter()
        .flat_map(instruction_hints)
        .collect()
}

fn instruction_hints(instruction: Instruction<'_>) -> Vec<InlayHint> {
    let (Some(opcode), Some(name), Some(mnemonic)) = (
        instruction.opcode(),
        instruction.opcode_name(),
        instruction.mnemonic(),
    ) else {
        return Vec::new();
    };
    let operands = instruction.operands();
    let has_vector = operands.iter().any(|o| o.kind() == OperandKind::Vector);
    if !has_vector && !FRAGMENT_FAMILIES.contains(&mnemonic.text) {
        return Vec::new();
    }
    let Ok(counts) = ptx_regs::register_counts(&name) else {
        return Vec::new();
    };
    counts
        .vectors
        .iter()
        .filter_map(|vector| {
            let label = format!("{}×b{}", vector.registers, vector.register_bits);
            match operands.get(vector.operand) {
                Some(operand) if operand.kind() == OperandKind::Vector => Some(InlayHint {
                    offset: operand.range().end,
                    label,
                    tooltip: vector.explanation.clone(),
                }),
                // A scalar where a vector goes is the checker's business.
                Some(_) => None,
                None if operands.is_empty() => Some(InlayHint {
                    offset: opcode.end,
                    label: format!("{}: {label}", vector.role),
                    tooltip: vector.explanation.clone(),
                }),
                None => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{expect, Expect};

    fn check(text: &str, expect: Expect) {
        let parse = Parse::new(text);
        let out: String = inlay_hints(&parse, 0..text.len())
            .iter()
            .map(|h| {
                format!(
                    "{:?} {}\n",
                    &text[..h.offset].lines().last().unwrap_or(""),
                    h.label
                )
            })
            .collect();
        expect.assert_eq(&out);
    }

    #[test]
    fn vector_operands_get_their_register_counts() {
        check(
            r#".entry k() {
  tcgen05.ld.sync.aligned.16x64b.x2.b32 {%r1, %r2}, [%r0];
  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];
  ld.global.f32 %f1, [%rd1];
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f1,%f2,%f3,%f4};
}
"#,
            expect![[r#"
                "  tcgen05.ld.sync.aligned.16x64b.x2.b32 {%r1, %r2}" 2×b32
                "  ld.global.v4.f32 {%f1, %f2, %f3, %f4}" 4×b32
                "  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}" 4×b32
                "  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}" 4×b32
                "  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}" 2×b32
                "  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f1,%f2,%f3,%f4}" 4×b32
            "#]],
        );
    }

    #[test]
    fn an_opcode_without_operands_gets_hints_after_it() {
        check(
            "tcgen05.ld.sync.aligned.16x256b.x16.b32;\nwmma.bogus;\n",
            expect![[r#"
                "tcgen05.ld.sync.aligned.16x256b.x16.b32" r: 64×b32
            "#]],
        );
    }

    #[test]
    fn only_the_requested_range() {
        let text = "ld.global.v2.f32 {%f1, %f2}, [%rd1];\nld.global.v2.f32 {%f1, %f2}, [%rd1];\n";
        let parse = Parse::new(text);
        let second = text.find('\n').unwrap() + 1;
        let hints = inlay_hints(&parse, second..text.len());
        assert_eq!(hints.len(), 1);
        assert!(hints[0].offset > second);
    }
}
