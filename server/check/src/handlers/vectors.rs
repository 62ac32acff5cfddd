//! Register vector lengths (`{%r1, %r2, ...}`) against what the opcode needs: `.v2/.v4/.v8`
//! of ld/st (PTX ISA 9.7.9.8–9.7.9.9), tcgen05.ld/st `.num` and shape (9.7.16.8.3), matrix
//! fragments of wmma/mma/wgmma/ldmatrix. The counts come from `ptx-regs`, whose tables are
//! labelled with ptxas; the fix rewrites the vector with the right number of registers.

use ptx_syntax::OperandKind;

use crate::context::{Ctx, InstInfo};
use crate::{Diagnostic, Fix};

pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let Ok(counts) = ptx_regs::register_counts(&info.opcode_text()) else {
        return;
    };
    let section = info
        .resolved
        .outcome
        .matches
        .first()
        .map(|m| m.instruction.section.clone())
        .unwrap_or_default();
    for vector in counts.vectors {
        let Some(operand) = info.operands.get(vector.operand) else {
            continue;
        };
        let wanted = vector.registers as usize;
        let written: Vec<String> = match operand.kind() {
            OperandKind::Vector => operand
                .elements()
                .iter()
                .map(|e| e.text().to_owned())
                .collect(),
            OperandKind::Register(_) | OperandKind::Identifier(_) | OperandKind::Sink => {
                vec![operand.text().to_owned()]
            }
            _ => continue,
        };
        let is_vector = matches!(operand.kind(), OperandKind::Vector);
        // A single register is legal where the count is 1, and also in place of a packed
        // vector (`mov.b32 %r1, %r2`, a wgmma A descriptor): only `.vN` loads and stores
        // insist on braces.
        let vector_qualifier = info.words[1..]
            .iter()
            .any(|w| matches!(*w, "v2" | "v4" | "v8"));
        let insists_on_braces =
            vector_qualifier && matches!(info.words[0], "ld" | "st" | "ldu" | "atom" | "red");
        if is_vector && written.len() == wanted || !is_vector && (wanted == 1 || !insists_on_braces)
        {
            continue;
        }
        let refs: Vec<&str> = written.iter().map(String::as_str).collect();
        let replacement = ptx_regs::rewrite_vector(&refs, wanted);
        let new_text = format!("{{{}}}", replacement.join(", "));
        let found = if is_vector {
            format!(
                "{} register{}",
                written.len(),
                if written.len() == 1 { "" } else { "s" }
            )
        } else {
            "a single register".to_owned()
        };
        ctx.report(
            Diagnostic::error(
                "vector-length",
                operand.range(),
                format!(
                    "`{}` needs {wanted} registers in operand {} ({}), found {found}",
                    info.opcode_text(),
                    vector.operand + 1,
                    vector.explanation
                ),
            )
            .section(section.clone())
            .with_fix(Fix::replace(
                format!("Use {wanted} registers"),
                operand.range(),
                new_text,
            )),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::{check_diagnostics, check_fix};
    use expect_test::expect;

    const LD_V4: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.global.v4.u32 {%r1, %r2}, [%rd1];
//                 ^^^^^^^^^^ error: `ld.global.v4.u32` needs 4 registers in operand 1 (.v4 = 4 registers of 32 bits, one per .u32 element), found 2 registers
  ret;
}
"#;

    #[test]
    fn ld_vector_too_short() {
        check_diagnostics(LD_V4);
    }

    #[test]
    fn fix_extends_the_vector() {
        check_fix(
            LD_V4,
            "vector-length",
            expect![[r#"ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1];"#]],
        );
    }
}
