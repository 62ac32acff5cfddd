//! Special registers (PTX ISA chapter 10): each one exists from some `.version` and on some
//! targets (`%cluster_ctarank` needs 7.8 and sm_90).

use ptx_isa::PtxVersion;
use ptx_isa::Unmet;

use crate::context::{Ctx, InstInfo};
use crate::util::describe_targets;
use crate::Diagnostic;

/// Instructions that may read a special register directly (ptxas rejects the others with
/// "Special register argument not allowed"; the spec reads them with `mov` and `cvt`).
const READERS: &[&str] = &["mov", "cvt"];

pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let version = ctx.version.unwrap_or(PtxVersion::new(99, 9));
    for &(_, register) in &info.registers {
        {
            let Some(sreg) = ctx.isa.special_register(register.text) else {
                continue;
            };
            if !READERS.contains(&info.words[0]) {
                ctx.report(
                    Diagnostic::error(
                        "special-register-operand",
                        register.range(),
                        format!(
                            "`{}` cannot be an operand of `{}`; copy it to a register with `mov` first",
                            register.text, info.words[0]
                        ),
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
