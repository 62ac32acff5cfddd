//! Where registers and names may stand inside an operand expression (PTX ISA 6.4.1 and
//! 6.4.3: an address is `[reg]`, `[reg+imm]`, `[var]`, `[var+imm]` or `[imm]`; a value operand
//! may also be `reg+imm`). ptxas 13.5 stops with "Parsing error" on everything else that
//! mixes a register or a name into an expression: `cache-policy` (two registers),
//! `[%rd1-8]` and `gmem-4` (a name then `-`: write `+-8`), `[4+%rd1]` (the name after the
//! constant), `(%r3+1)` (parentheses), `%r3*2`, `~%r3`; and rejects `-%r3` ("Operand
//! negation not allowed") except where a form writes `{-}a` (`vmad`).

use ptx_syntax::{Expression, Operand, OperandKind};

use crate::context::{Ctx, InstInfo};
use crate::Diagnostic;

pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    for op in &info.operands {
        match op.kind() {
            OperandKind::Address { .. } | OperandKind::Vector => {
                for element in op.elements() {
                    expression(ctx, info, &element);
                }
            }
            OperandKind::Expression => expression(ctx, info, op),
            // `(%r3+1)` reads as an argument list, which only `call` takes.
            OperandKind::ArgumentList if info.words[0] != "call" && has_name(op) => {
                report(ctx, op, "a register or name cannot stand in parentheses");
            }
            _ => {}
        }
    }
}

fn has_name(op: &Operand<'_>) -> bool {
    !op.registers().is_empty() || !op.identifiers().is_empty()
}

fn expression(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, op: &Operand<'_>) {
    let Some(expr) = op.expression() else {
        return;
    };
    let problem = match expr {
        Expression::Binary {
            left,
            operator,
            right,
        } => {
            if has_name(&right) {
                Some("a register or name can only come first, as in `%rd1+8`")
            } else if has_name(&left) {
                if operator != "+" {
                    Some("only `+` may follow a register or name: write `%rd1+-8` for an offset below it")
                } else {
                    // `%rd1+4+4`: the left part is itself a sum.
                    expression(ctx, info, &left);
                    None
                }
            } else {
                None
            }
        }
        Expression::Unary { operator, operand } if has_name(&operand) => (operator != "-"
            || info.words[0] != "vmad")
            .then_some("a register or name cannot be negated or complemented here"),
        Expression::Parenthesized(inner) if has_name(&inner) => {
            Some("a register or name cannot stand in parentheses")
        }
        _ => None,
    };
    if let Some(problem) = problem {
        report(ctx, op, problem);
    }
}

fn report(ctx: &mut Ctx<'_>, op: &Operand<'_>, problem: &str) {
    ctx.report(
        Diagnostic::error(
            "operand-expression",
            op.range(),
            format!("`{}` is not an operand ptxas reads: {problem}", op.text()),
        )
        .section("6.4".to_owned()),
    );
}

#[cfg(test)]
mod tests {
    use crate::test_support::check_diagnostics;

    /// Each line confirmed alone with ptxas 13.5 on sm_90.
    #[test]
    fn registers_in_expressions() {
        check_diagnostics(
            r#"
.version 9.1
.target sm_90
.address_size 64
.global .b32 gmem[8];
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  .reg .b32 cache, policy;
  add.s32 %r1, %r2, %r3+1;
  ld.global.b32 %r1, [%rd1+-8];
  ld.global.b32 %r1, [gmem+4];
  ld.global.b32 %r1, [%rd1+4+4];
  vmad.s32.s32.s32 %r1, -%r2, %r3, %r1;
  mov.u32 %r1, cache-policy;
//             ^^^^^^^^^^^^ error: `cache-policy` is not an operand ptxas reads: a register or name can only come first, as in `%rd1+8`
  ld.global.b32 %r1, [%rd1-8];
//                    ^^^^^^ error: `%rd1-8` is not an operand ptxas reads: only `+` may follow a register or name: write `%rd1+-8` for an offset below it
  ld.global.b32 %r1, [4+%rd1];
//                    ^^^^^^ error: `4+%rd1` is not an operand ptxas reads: a register or name can only come first, as in `%rd1+8`
  add.s32 %r1, %r2, (%r3+1);
//                  ^^^^^^^ error: `(%r3+1)` is not an operand ptxas reads: a register or name cannot stand in parentheses
  mov.b32 %r1, -%r2;
//             ^^^^ error: `-%r2` is not an operand ptxas reads: a register or name cannot be negated or complemented here
  ret;
}
"#,
        );
    }
}
