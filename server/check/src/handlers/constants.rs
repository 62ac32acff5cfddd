//! Constant expressions in instruction operands that ptxas 13.5 refuses to evaluate (PTX ISA
//! 4.5.4–4.5.6, read as ptxas reads them, see `constexpr`): a division or remainder by zero,
//! an integer and a floating-point operand under one operator, a floating-point operand of an
//! integer-only operator or of `?:`, a `0f` value inside an operation, a cast to a type other
//! than `.s64`/`.u64`. An address offset (`[%rd1+1/0]`, `[g+1.0-1]`) is checked the same way:
//! ptxas reads what follows the register or name and its `+` as one constant expression.

use ptx_syntax::{Operand, OperandKind};

use crate::constexpr::evaluate;
use crate::context::{Ctx, InstInfo};
use crate::Diagnostic;

pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    for op in &info.operands {
        match op.kind() {
            OperandKind::Address { .. } | OperandKind::Vector => {
                for element in op.elements() {
                    operand(ctx, &element);
                }
            }
            OperandKind::Expression
            | OperandKind::Integer(_)
            | OperandKind::Float(_)
            | OperandKind::ArgumentList
                if info.words[0] != "call" =>
            {
                operand(ctx, op)
            }
            _ => {}
        }
    }
}

fn operand(ctx: &mut Ctx<'_>, op: &Operand<'_>) {
    let text = op.text();
    let Some(Err(problem)) = evaluate(constant_part(text)) else {
        return;
    };
    ctx.report(
        Diagnostic::error("constant-expression", op.range(), problem.message(text))
            .section("4.5.4".to_owned()),
    );
}

/// The constant expression of an operand: all of it, or what follows a leading register or
/// name and its `+` (`%rd1+4-8` gives `4-8`).
pub(crate) fn constant_part(text: &str) -> &str {
    let t = text.trim_start();
    let name_len = t
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_alphanumeric() || matches!(c, '_' | '$') || (i == 0 && c == '%'))
        })
        .map_or(t.len(), |(i, _)| i);
    let name = &t[..name_len];
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) || name == "WARP_SZ" {
        return text;
    }
    match t[name_len..].trim_start().strip_prefix('+') {
        Some(rest) => rest,
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::check_diagnostics;

    /// Each line confirmed alone with ptxas 13.5 on sm_90a.
    #[test]
    fn constant_expressions_ptxas_refuses() {
        check_diagnostics(
            r#"
.version 8.8
.target sm_90a
.address_size 64
.global .b32 g[8];
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  .reg .f64 %fd<3>;
  mov.u32 %r1, 1.0<2.0;
  mov.u32 %r1, (1U-2)>>63;
  ld.global.u32 %r1, [%rd1+4-8];
  ld.global.u32 %r1, [g+WARP_SZ*2];
  mov.u32 %r1, 1/0;
//             ^^^ error: `1/0` divides by zero; a constant expression must not
  mov.f64 %fd1, 1.0+1;
//              ^^^^^ error: `1.0+1` applies `+` to an integer and a floating-point operand; PTX converts neither: write both as integers or both as floating-point constants (`2.0`)
  mov.u32 %r1, ~1.0;
//             ^^^^ error: `~1.0` gives `~` a floating-point operand; `~` takes integers only
  mov.f64 %fd1, 1?1.0:2.0;
//              ^^^^^^^^^ error: `1?1.0:2.0` gives `?:` a floating-point operand; `?:` takes integers only
  ld.global.u32 %r1, [%rd1+0/0];
//                    ^^^^^^^^ error: `%rd1+0/0` divides by zero; a constant expression must not
  ret;
}
"#,
        );
    }
}
