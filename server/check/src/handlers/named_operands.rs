//! Operands whose role the spec names the same way wherever they appear: matrix descriptors,
//! instruction descriptors, accumulate predicates and the constants that must be written as
//! constants (9.7.15.5.1 and 9.7.16.10.9; ptxas 13.5 "Arguments mismatch").
//!
//! * `a-desc`, `b-desc`, `zero-column-mask-desc`: a 64-bit integer or bit-size register (a
//!   `.f64` or 32-bit register is rejected) or a constant;
//! * `idesc`: a 32-bit integer or bit-size register or a constant;
//! * `scale-d` (wgmma) and `enable-input-d` (tcgen05.mma): a predicate or a constant;
//! * `imm-scale-a/b`, `imm-trans-a/b`, `scale-input-d`: a constant, never a register;
//! * `disable-output-lane` of tcgen05.mma: 4 registers with `.cta_group::1`, 8 with `::2`
//!   ("Argument vector size mismatch").

use ptx_syntax::OperandKind;

use crate::context::{Ctx, InstInfo};
use crate::scope::{Scope, SymbolKind};
use crate::Diagnostic;

/// What an operand of a given name must be.
#[derive(Clone, Copy)]
enum Role {
    /// An integer or bit-size register of this many bits, or a constant.
    Integer(u32),
    /// A predicate register or a constant.
    Predicate,
    /// A constant only.
    Constant,
}

fn role(name: &str) -> Option<Role> {
    Some(match name {
        "a-desc" | "b-desc" | "zero-column-mask-desc" => Role::Integer(64),
        "idesc" => Role::Integer(32),
        "scale-d" | "enable-input-d" => Role::Predicate,
        "imm-scale-a" | "imm-scale-b" | "imm-trans-a" | "imm-trans-b" | "scale-input-d" => {
            Role::Constant
        }
        _ => return None,
    })
}

pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    if !matches!(info.words[0], "wgmma" | "tcgen05") {
        return;
    }
    let Some((_, specs)) = super::operands::fitting_form(info) else {
        return;
    };
    let section = info
        .resolved
        .outcome
        .matches
        .first()
        .map(|m| m.instruction.section.clone())
        .unwrap_or_default();
    for (index, (op, spec)) in info.operands.iter().zip(&specs).enumerate() {
        if spec.name == "disable-output-lane" {
            let wanted = if info.has("cta_group::2") { 8 } else { 4 };
            let found = op.elements().len();
            if matches!(op.kind(), OperandKind::Vector) && found != wanted {
                ctx.report(
                    Diagnostic::error(
                        "vector-length",
                        op.range(),
                        format!(
                            "operand {} of `{}` (disable-output-lane) has {wanted} registers with this `.cta_group`, found {found}",
                            index + 1,
                            info.opcode_text()
                        ),
                    )
                    .section(section.clone()),
                );
            }
            continue;
        }
        let Some(role) = role(&spec.name) else {
            continue;
        };
        let (OperandKind::Register(name) | OperandKind::Identifier(name)) = op.kind() else {
            continue;
        };
        let Some(symbol) = scope.lookup(name) else {
            continue;
        };
        if symbol.kind != SymbolKind::Register || symbol.vector.is_some() {
            continue;
        }
        let Some(ty) = symbol.ty.map(|t| t.trim_start_matches('.')) else {
            continue;
        };
        let bits: Option<u32> = ty.get(1..).and_then(|d| d.parse().ok());
        let integer = matches!(ty.as_bytes().first(), Some(b'b' | b'u' | b's'));
        let needs = match role {
            Role::Integer(size) if !(integer && bits == Some(size)) => {
                format!("a {size}-bit integer register or a constant")
            }
            Role::Predicate if ty != "pred" => "a predicate or a constant".to_owned(),
            Role::Constant => "a constant, not a register".to_owned(),
            _ => continue,
        };
        ctx.report(
            Diagnostic::error(
                "operand-type",
                op.range(),
                format!(
                    "`{name}` is a .{ty} register; operand {} of `{}` ({}) needs {needs}",
                    index + 1,
                    info.opcode_text(),
                    spec.name
                ),
            )
            .section(section.clone()),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::check_diagnostics;

    #[test]
    fn descriptors_predicates_and_constants() {
        check_diagnostics(
            r#"
.version 9.1
.target sm_100a
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<9>;
  .reg .u64 %ud<3>;
  .reg .b64 %rd<4>;
  .reg .f64 %fd<3>;
  .reg .pred %p<2>;
  tcgen05.mma.cta_group::1.kind::f16 [%r1], %ud1, %rd3, 5, 1;
  tcgen05.mma.cta_group::1.kind::f16 [%r1], %fd1, %rd3, %r4, %p1;
//                                          ^^^^ error: `%fd1` is a .f64 register; operand 2 of `tcgen05.mma.cta_group::1.kind::f16` (a-desc) needs a 64-bit integer register or a constant
  tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd3, %rd1, %p1;
//                                                      ^^^^ error: `%rd1` is a .b64 register; operand 4 of `tcgen05.mma.cta_group::1.kind::f16` (idesc) needs a 32-bit integer register or a constant
  tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd3, %r4, %r5;
//                                                           ^^^ error: `%r5` is a .b32 register; operand 5 of `tcgen05.mma.cta_group::1.kind::f16` (enable-input-d) needs a predicate or a constant
  tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd3, %r4, %p1, %r5;
//                                                                ^^^ error: `%r5` is a .b32 register; operand 6 of `tcgen05.mma.cta_group::1.kind::f16` (scale-input-d) needs a constant, not a register
  ret;
}
.visible .entry k2()
{
  .reg .b32 %r<9>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  tcgen05.mma.cta_group::2.kind::f16 [%r1], %rd2, %rd3, %r4, {%r5, %r6, %r7, %r8}, %p1;
//                                                           ^^^^^^^^^^^^^^^^^^^^ error: operand 5 of `tcgen05.mma.cta_group::2.kind::f16` (disable-output-lane) has 8 registers with this `.cta_group`, found 4
  ret;
}
"#,
        );
    }
}
