//! Operand negation, as ptxas 13.5 takes it (measured on the whole-module set, "operand
//! negation" family):
//! * `!p` negates a predicate register ("Illegal argument to predicate negation" for `!%r2`),
//!   and only where a predicate is read: the sources of `.pred` instructions, the last operand
//!   of `selp`, `setp`, `set` and `bar.red`, the predicate of `vote` ("Arguments mismatch" for
//!   `add.s32 %r1, !%p1, 1`);
//! * `-r` negates a register only in `vmad` (9.7.18.1.4), on `a` or `b` or on `c`, not on both
//!   sides ("Operand negation limited to either (source A xor source B) or source C"); elsewhere
//!   it is expressions.rs' report.

use ptx_syntax::{Expression, Operand, OperandKind};

use super::operand_types::{any_symbol, named_symbol, register_type, Class};
use crate::context::{Ctx, InstInfo};
use crate::scope::{Scope, SymbolKind};
use crate::Diagnostic;

pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    let last = info.operands.len().saturating_sub(1);
    let pred_instruction = info.words[1..].contains(&"pred");
    let mut negated_vmad = [false; 3];
    for (index, op) in info.operands.iter().enumerate() {
        match op.kind() {
            OperandKind::Negated => {
                let inner = op.elements();
                let name = inner.first().map(|e| e.text()).unwrap_or_default();
                let is_pred = inner
                    .first()
                    .and_then(|e| register_type(scope, e))
                    .is_some_and(|t| t.class == Class::Pred);
                if !is_pred {
                    if any_symbol(scope, name).is_some() {
                        report(
                            ctx,
                            op,
                            format!("`!` negates a predicate; `{name}` is not a `.pred` register"),
                        );
                    }
                    continue;
                }
                let reads_predicate = pred_instruction
                    || index == last
                        && match info.words[0] {
                            "selp" => true,
                            // `setp`/`set` read a predicate `c` only with a boolean operation
                            // (`setp.lt.and.s32 p, a, b, c`); `setp.lt.s32 p, a, !q` is
                            // "Arguments mismatch" (fixtures/operands).
                            "setp" | "set" => index == 3,
                            // `bar.red`'s predicate; `bar.sync a, !p` is "Arguments mismatch".
                            "bar" | "barrier" => info.words.contains(&"red"),
                            _ => false,
                        }
                    || info.words[0] == "vote" && index == 1;
                // The result is written, never negated ("Parsing error" for `mov.pred !p, q`).
                let reads_predicate =
                    reads_predicate && !(index == 0 && info.writes_first_operand());
                if !reads_predicate {
                    report(
                        ctx,
                        op,
                        format!(
                            "operand {} of `{}` is not a predicate: `!{name}` cannot stand here",
                            index + 1,
                            info.opcode_text()
                        ),
                    );
                }
            }
            OperandKind::Expression => {
                let Some(Expression::Unary {
                    operator: "-",
                    operand,
                }) = op.expression()
                else {
                    continue;
                };
                if !is_register(&operand, scope) {
                    continue;
                }
                // Elsewhere a negated register is expressions.rs' report.
                if info.words[0] == "vmad" && (1..=3).contains(&index) {
                    negated_vmad[index - 1] = true;
                }
            }
            _ => {}
        }
    }
    if (negated_vmad[0] || negated_vmad[1]) && negated_vmad[2] {
        if let Some(op) = info.operands.get(3) {
            report(
                ctx,
                op,
                "`vmad` negates `a` or `b`, or `c`, not both sides".to_owned(),
            );
        }
    }
}

fn is_register(operand: &Operand<'_>, scope: &Scope<'_>) -> bool {
    named_symbol(scope, operand).is_some_and(|(_, s)| s.kind == SymbolKind::Register)
}

fn report(ctx: &mut Ctx<'_>, op: &Operand<'_>, message: String) {
    ctx.report(Diagnostic::error("operand-kind", op.range(), message).section("9.7"));
}
