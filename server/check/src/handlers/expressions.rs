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
        if op.text().trim_start().starts_with("generic") && op.text().contains('(') {
            report(
                ctx,
                op,
                "`generic(name)` stands only in an initial value; `cvta` converts an address in an instruction",
            );
            continue;
        }
        match op.kind() {
            OperandKind::Address { .. } => {
                for element in op.elements() {
                    if let Some(problem) = address_part(&element) {
                        report(ctx, &element, problem);
                    } else {
                        expression(ctx, info, &element);
                    }
                }
            }
            OperandKind::Vector => {
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

/// What ptxas 13.5 refuses ("Parsing error") inside the brackets of an address: an array
/// element (`[g[4]]`: the element is an address without brackets, `g[4]`), a component
/// (`[%rd1.x]`) or `generic(…)`.
fn address_part(part: &Operand<'_>) -> Option<&'static str> {
    if part.text().trim_start().starts_with("generic") && part.text().contains('(') {
        return Some("`generic(name)` stands only in an initial value");
    }
    match part.kind() {
        OperandKind::Component { .. } => {
            Some("an address is a whole register, without a component")
        }
        _ if matches!(part.expression(), Some(Expression::Subscript { .. })) => Some(
            "an array element is an address already: write it without brackets (`g[4]`) or as `[g+16]`",
        ),
        _ => None,
    }
}

/// Whether an operand holds a register or a name other than the predefined `WARP_SZ` (an
/// integer constant, which ptxas takes anywhere a number stands: `WARP_SZ-1`, `[%rd1+WARP_SZ]`).
fn has_name(op: &Operand<'_>) -> bool {
    !op.registers().is_empty()
        || op
            .identifiers()
            .iter()
            .any(|t| !crate::handlers::names::PREDEFINED.contains(&t.text))
}

fn expression(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, op: &Operand<'_>) {
    let Some(expr) = op.expression() else {
        return;
    };
    let problem = match expr {
        // ptxas reads `%rd1+7-9` and `g+1<<4` as the register or name, `+`, then a constant
        // expression (`%rd1 + (7-9)`), while C's precedence makes the name part of the first
        // operand of the outer operator: go down the left side to the sum the name starts.
        Expression::Binary { right, .. } if has_name(&right) => {
            Some("a register or name can only come first, as in `%rd1+8`")
        }
        Expression::Binary { left, operator, .. } if has_name(&left) => {
            leading_sum(&left, operator)
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

/// The problem with `left operator …` where `left` holds the operand's register or name: none
/// when `left` is the name itself and `operator` is `+`, or when `left` is such a sum in turn
/// with only constants beside it.
fn leading_sum(left: &Operand<'_>, operator: &str) -> Option<&'static str> {
    match left.expression() {
        Some(Expression::Binary {
            left: inner,
            operator: inner_operator,
            right,
        }) => {
            if has_name(&right) {
                Some("a register or name can only come first, as in `%rd1+8`")
            } else if has_name(&inner) {
                leading_sum(&inner, inner_operator)
            } else {
                None
            }
        }
        Some(Expression::Unary { .. }) => {
            Some("a register or name cannot be negated or complemented here")
        }
        Some(Expression::Parenthesized(_)) => {
            Some("a register or name cannot stand in parentheses")
        }
        Some(Expression::Conditional { .. }) | Some(Expression::Subscript { .. }) | None => {
            (operator != "+").then_some(
                "only `+` may follow a register or name: write `%rd1+-8` for an offset below it",
            )
        }
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
  ld.global.b32 %r1, gmem[2];
  ld.global.b32 %r1, [gmem[2]];
//                    ^^^^^^^ error: `gmem[2]` is not an operand ptxas reads: an array element is an address already: write it without brackets (`g[4]`) or as `[g+16]`
  ld.global.b32 %r1, [%rd1.x];
//                    ^^^^^^ error: `%rd1.x` is not an operand ptxas reads: an address is a whole register, without a component
  mov.b64 %rd1, generic(gmem);
//              ^^^^^^^^^^^^^ error: `generic(gmem)` is not an operand ptxas reads: `generic(name)` stands only in an initial value; `cvta` converts an address in an instruction
  ret;
}
"#,
        );
    }
}
