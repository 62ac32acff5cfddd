//! Special registers (PTX ISA chapter 10): each one exists from some `.version` and on some
//! targets (`%cluster_ctarank` needs 7.8 and sm_90).

use ptx_isa::PtxVersion;
use ptx_isa::Unmet;

use crate::context::{Ctx, InstInfo};
use crate::scope::Scope;
use crate::util::describe_targets;
use crate::Diagnostic;

/// Instructions that may read a special register directly (ptxas rejects the others with
/// "Special register argument not allowed"; the spec reads them with `mov` and `cvt`).
const READERS: &[&str] = &["mov", "cvt"];

/// Whether `cvt` converts between integer types only (`cvt.s64.s32`, `cvt.sat.u8.s32`).
fn integer_cvt(info: &InstInfo<'_>) -> bool {
    info.words[1..]
        .iter()
        .filter(|w| w.len() >= 2 && w.as_bytes()[1].is_ascii_digit())
        .all(|w| (w.starts_with('s') || w.starts_with('u')) && !w.contains('x'))
}

pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    let version = ctx.version.unwrap_or(PtxVersion::new(99, 9));
    for &(index, register) in &info.registers {
        {
            let Some(sreg) = ctx.isa.special_register(register.text) else {
                continue;
            };
            // A name the module declares itself is no special register: ptxas 13.5 takes
            // `.reg .b32 %tid;` and writes it with `mov.u32 %tid, 1;`.
            if super::operand_types::any_symbol(scope, register.text).is_some() {
                continue;
            }
            // ptxas 13.5 reads a special register in `cvt.s64.s32` or `cvt.u16.u32` and refuses
            // it in a conversion from or to a floating-point type ("Special register argument
            // not allowed for instruction 'cvt'" for `cvt.rn.f32.s32 d, %tid.x` and for the
            // second source of `cvt.rn.f16x2.f32 d, a, %tid.x`; fixtures/operands). The first
            // source is memory.rs' report ("reads no special register").
            if info.words[0] == "cvt" && index == 2 && !integer_cvt(info) {
                ctx.report(
                    Diagnostic::error(
                        "special-register-operand",
                        register.range(),
                        format!(
                            "`{}` reads no special register: copy `{}` to a register with `mov` first",
                            info.opcode_text(),
                            register.text
                        ),
                    )
                    .section("10"),
                );
            }
            let reader = READERS.contains(&info.words[0]);
            // Operand 0 of `mov` and `cvt` is what they write: a special register is read-only
            // (ptxas 13.5 "Read-only special register cannot be destination argument" for
            // `mov`, "Special register argument not allowed" for `cvt`).
            if reader && index == 0 && info.writes_first_operand() {
                ctx.report(
                    Diagnostic::error(
                        "special-register-operand",
                        register.range(),
                        format!(
                            "`{}` is a read-only special register; `{}` cannot write it",
                            register.text, info.words[0]
                        ),
                    )
                    .section("10"),
                );
            } else if reader && info.words[0] == "cvt" {
                // A vector register is read one component at a time ("Vector operand is not
                // allowed for instruction 'cvt'" for `%tid`).
                let whole = info
                    .operands
                    .get(index)
                    .is_some_and(|op| matches!(op.kind(), ptx_syntax::OperandKind::Register(_)));
                // A predicate special register is read by `mov.pred` only ("Arguments mismatch
                // for instruction 'cvt'" for `cvt.s64.s32 d, %is_explicit_cluster`;
                // fixtures/operands). Other conversions read no special register at all (the
                // rule above and memory.rs').
                if integer_cvt(info) && sreg.ty.split_whitespace().last() == Some(".pred") {
                    ctx.report(
                        Diagnostic::error(
                            "special-register-operand",
                            register.range(),
                            format!(
                                "`{}` is a predicate special register; `cvt` converts no predicate (read it with `mov.pred`)",
                                register.text
                            ),
                        )
                        .section("10"),
                    );
                }
                if whole && sreg.ty.split_whitespace().any(|w| w.starts_with(".v")) {
                    ctx.report(
                        Diagnostic::error(
                            "special-register-operand",
                            register.range(),
                            format!(
                                "`{}` is a vector special register; `cvt` reads one component (`{}.x`)",
                                register.text, register.text
                            ),
                        )
                        .section("10"),
                    );
                }
            }
            if !reader {
                ctx.report(
                    Diagnostic::error(
                        "special-register-operand",
                        register.range(),
                        if index == 0 && info.writes_first_operand() {
                            format!(
                                "`{}` is a read-only special register; `{}` cannot write it",
                                register.text, info.words[0]
                            )
                        } else {
                            format!(
                                "`{}` cannot be an operand of `{}`; copy it to a register with `mov` first",
                                register.text, info.words[0]
                            )
                        },
                    )
                    .section("10"),
                );
            }
            let unmet = sreg.requirement.check(version, &ctx.target_names());
            for u in unmet {
                let d = match u {
                    Unmet::Version { needed } => Diagnostic::error(
                        "version-too-old",
                        register.range(),
                        format!(
                            "`{}` needs `.version {needed}` or newer (this file has .version {})",
                            sreg.name,
                            ctx.version.map_or("?".to_owned(), |v| v.to_string())
                        ),
                    ),
                    Unmet::Target { needed } => Diagnostic::error(
                        "unsupported-target",
                        register.range(),
                        format!(
                            "`{}` needs .target {} (this file targets {})",
                            sreg.name,
                            describe_targets(&needed),
                            ctx.sm_target().unwrap_or("nothing")
                        ),
                    ),
                    Unmet::Removed { since, on } => Diagnostic::error(
                        "unsupported-target",
                        register.range(),
                        format!(
                            "`{}` is not available on {} from `.version {since}` on",
                            sreg.name,
                            describe_targets(&on)
                        ),
                    ),
                };
                ctx.report(d.section(sreg.section.clone()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::check_diagnostics;

    #[test]
    fn cluster_registers_need_hopper() {
        check_diagnostics(
            r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<4>;
  mov.u32 %r1, %cluster_ctarank;
//             ^^^^^^^^^^^^^^^^ error: `%cluster_ctarank` needs .target sm_90 or newer (this file targets sm_80)
  mov.u32 %r1, %tid.x;
  add.u32 %r1, %tid.x, 1;
//             ^^^^ error: `%tid` cannot be an operand of `add`; copy it to a register with `mov` first
  ret;
}
"#,
        );
    }
}
