//! Whether an instruction exists in the file's `.version` and on its `.target` (the "PTX ISA
//! Notes" and "Target ISA Notes" of each instruction in PTX ISA 9.7).
//!
//! Errors use the knowledge base's *floor* of each instruction: the earliest version and the
//! union of the targets of all its facts. The per-qualifier facts that the spec's notes give
//! are often about later extensions of a qualifier (`.local` with `.volatile` in 9.1, not
//! `.local` itself), so blaming a qualifier would reject code that ptxas accepts. A short
//! list of qualifier rules confirmed with ptxas fixtures is checked on top (the knowledge
//! base's data/qualifier-rules.txt).

use ptx_isa::{PtxVersion, TargetAtom, TargetReq, Unmet};

use crate::context::{Ctx, InstInfo};
use crate::util::describe_targets;
use crate::{Diagnostic, Edit, Fix};

pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let resolved = info.resolved.clone();
    let matches = &resolved.outcome.matches;
    let Some(first) = matches.first() else { return };
    let version = ctx.version.unwrap_or(PtxVersion::new(99, 9));
    let owned: Vec<String> = ctx.targets.iter().map(|t| t.name.clone()).collect();
    let targets: Vec<&str> = owned.iter().map(String::as_str).collect();
    // Any matched instruction that the file can use makes the opcode available.
    let best = matches
        .iter()
        .map(|m| (m, m.instruction.floor.check(version, &targets)))
        .min_by_key(|(_, unmet)| unmet.len());
    let mut reported = false;
    if let Some((m, unmet)) = best {
        let subject = m.instruction.opcode.clone();
        for u in unmet {
            ctx.report(
                describe(ctx, &subject, info.opcode_range(), &u)
                    .section(m.instruction.section.clone()),
            );
            reported = true;
        }
    }
    if reported {
        return;
    }
    let opcode = first.instruction.opcode.as_str();
    let isa = ctx.isa;
    for rule in isa.qualifier_rules() {
        let qualifiers = &rule.qualifiers;
        if opcode != rule.opcode || !qualifiers.iter().all(|q| info.has(q)) {
            continue;
        }
        let range = qualifiers
            .first()
            .and_then(|q| info.qualifier(q))
            .map_or(info.opcode_range(), |q| q.range());
        let mut subject = opcode.to_owned();
        for q in qualifiers {
            subject.push('.');
            subject.push_str(q);
        }
        for u in rule.requirement.check(version, &targets) {
            ctx.report(describe(ctx, &subject, range.clone(), &u).section(rule.section.clone()));
        }
    }
    // `shfl` without `.sync` likewise (9.7.9.5; ptxas: "shfl is not supported on .target
    // sm_70 and higher from PTX ISA version 6.4").
    if opcode == "shfl" && !info.has("sync") && version >= PtxVersion::new(6, 4) {
        let modern = ctx
            .sm_target()
            .and_then(ptx_isa::SmName::parse)
            .is_some_and(|sm| sm.canonical_number() >= 70);
        if modern {
            ctx.report(
                Diagnostic::error(
                    "unsupported-target",
                    info.opcode_range(),
                    "`shfl` without `.sync` is not supported on sm_70 and newer from `.version 6.4` on; write `shfl.sync` with a member mask",
                )
                .section("9.7.9.5"),
            );
        }
    }
    // `vote` without `.sync` is gone on sm_70 and newer from PTX ISA 6.4 (9.7.13.8, ptxas).
    if opcode == "vote" && !info.has("sync") && version >= PtxVersion::new(6, 4) {
        let modern = ctx
            .sm_target()
            .and_then(ptx_isa::SmName::parse)
            .is_some_and(|sm| sm.canonical_number() >= 70);
        if modern {
            ctx.report(
                Diagnostic::error(
                    "unsupported-target",
                    info.opcode_range(),
                    "`vote` without `.sync` is not supported on sm_70 and newer from `.version 6.4` on; write `vote.sync` with a member mask",
                )
                .section("9.7.13.8"),
            );
        }
    }
    // wmma's `.aligned` (9.7.14.4.3-5) is implicit before PTX 6.3 (where it may not be written,
    // a qualifier rule) and required from 6.3 on (ptxas 13.5: ".aligned modifier required for
    // instruction 'wmma.load.a'").
    if opcode.starts_with("wmma.") && !info.has("aligned") && version >= PtxVersion::new(6, 3) {
        if let Some(sync) = info.qualifier("sync") {
            let at = sync.range().end;
            ctx.report(
                Diagnostic::error(
                    "missing-qualifier",
                    sync.range(),
                    format!(
                        "`{opcode}` needs `.aligned` after `.sync` from `.version 6.3` on (older versions imply it)"
                    ),
                )
                .section(first.instruction.section.clone())
                .with_fix(Fix::replace("Add `.aligned`", at..at, ".aligned")),
            );
        }
    }
}

pub(crate) fn describe(
    ctx: &Ctx<'_>,
    subject: &str,
    range: ptx_syntax::TextRange,
    unmet: &Unmet,
) -> Diagnostic {
    match unmet {
        Unmet::Version { needed } => {
            let mut d = Diagnostic::error(
                "version-too-old",
                range,
                format!(
                    "`{subject}` needs `.version {needed}` or newer (this file has .version {})",
                    ctx.version.map_or("?".to_owned(), |v| v.to_string())
                ),
            );
            if let Some(fix) = raise_version(ctx, *needed) {
                d.fixes.push(fix);
            }
            d
        }
        Unmet::Target { needed } => {
            let mut d = Diagnostic::error(
                "unsupported-target",
                range,
                format!(
                    "`{subject}` needs .target {} (this file targets {})",
                    describe_targets(needed),
                    ctx.sm_target().unwrap_or("nothing")
                ),
            );
            if let Some(fix) = raise_target(ctx, needed) {
                d.fixes.push(fix);
            }
            d
        }
        Unmet::Removed { since, on } => Diagnostic::error(
            "unsupported-target",
            range,
            format!(
                "`{subject}` is no longer supported on {} from `.version {since}` on",
                describe_targets(on)
            ),
        ),
    }
}

/// The quick fix "raise .version to N" (when the file's own `.version` is the one in force).
pub(crate) fn raise_version(ctx: &Ctx<'_>, needed: PtxVersion) -> Option<Fix> {
    let token = ctx.version_token.clone()?;
    Some(Fix::replace(
        format!("Raise .version to {needed}"),
        token,
        needed.to_string(),
    ))
}

/// The quick fix "raise .target to sm_N…": the first target the requirement names that
/// satisfies it, with `.version` raised too when that target needs a newer one.
pub(crate) fn raise_target(ctx: &Ctx<'_>, needed: &TargetReq) -> Option<Fix> {
    let token = ctx.target_token.clone()?;
    let candidates: Vec<String> = match needed {
        TargetReq::All => return None,
        TargetReq::AnyOf(atoms) => atoms
            .iter()
            .filter_map(|a| match a {
                TargetAtom::AtLeast(n) => Some(format!("sm_{n}")),
                TargetAtom::Arch(n) => Some(format!("sm_{n}a")),
                TargetAtom::Family(n) => Some(format!("sm_{n}f")),
                TargetAtom::Option(_) => None,
            })
            .collect(),
        TargetReq::AllOf(_) => needed
            .min_baseline()
            .map(|n| format!("sm_{n}"))
            .into_iter()
            .collect(),
    };
    let target = candidates.into_iter().find(|t| needed.satisfied_by(t))?;
    let info = ctx.isa.targets().iter().find(|t| t.name == target)?;
    let mut fix = Fix::replace(format!("Raise .target to {target}"), token, target.clone());
    let floor = info.min_version();
    if let (Some(version), Some(vtoken)) = (ctx.version, ctx.version_token.clone()) {
        if version < floor {
            fix.title = format!("Raise .target to {target} (and .version to {floor})");
            fix.edits.push(Edit {
                range: vtoken,
                new_text: floor.to_string(),
            });
        }
    }
    Some(fix)
}

#[cfg(test)]
mod tests {
    use crate::test_support::check_diagnostics;

    #[test]
    fn tcgen05_needs_blackwell() {
        check_diagnostics(
            r#"
.version 8.7
.target sm_90a
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<4>;
  tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1, %r2}, [%r3];
//^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error: `tcgen05.ld` needs .target sm_100a/sm_110a/sm_100f/sm_110f/sm_103f (this file targets sm_90a)
  tcgen05.wait::ld.sync.aligned;
//^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error: `tcgen05.wait` needs .target sm_100a/sm_110a/sm_100f/sm_110f (this file targets sm_90a)
  ret;
}
"#,
        );
    }

    #[test]
    fn integer_and_block_scaled_mma_need_arch_specific_targets() {
        check_diagnostics(
            r#"
.version 9.1
.target sm_100f
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p;
  tcgen05.mma.ws.cta_group::1.kind::i8 [%r1], %rd2, %rd3, %r4, %p;
//                           ^^^^^^^^^ error: `tcgen05.mma.ws.kind::i8` needs .target sm_100a/sm_110a (this file targets sm_100f)
  tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X [%r1], %rd2, %rd3, %r4, [%r5], [%r6], %p;
//                                               ^^^^^^^^^^^^^^ error: `tcgen05.mma.scale_vec::2X` needs .target sm_100a/sm_103a/sm_110a (this file targets sm_100f)
  tcgen05.mma.cta_group::1.kind::mxf4.block_scale.block32 [%r1], %rd2, %rd3, %r4, [%r5], [%r6], %p;
  ret;
}
"#,
        );
    }

    #[test]
    fn cluster_barriers_and_masked_bulk_stores_need_their_targets() {
        check_diagnostics(
            r#"
.version 9.1
.target sm_90a
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .b16 %h<2>;
  mbarrier.arrive_drop.shared::cluster.b64 _, [%rd1];
  cp.async.bulk.global.shared::cta.bulk_group.cp_mask [%rd1], [%r2], %r3, %h1;
//                                           ^^^^^^^^ error: `cp.bulk.cp_mask` needs .target sm_100 or newer (this file targets sm_90a)
  ret;
}
"#,
        );
    }

    #[test]
    fn instruction_needs_newer_version() {
        check_diagnostics(
            r#"
.version 7.8
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .pred %p<2>;
  elect.sync _|%p1, 0xffffffff;
//^^^^^^^^^^ error: `elect.sync` needs `.version 8.0` or newer (this file has .version 7.8)
  ret;
}
"#,
        );
    }

    #[test]
    fn cluster_scope_needs_sm_90() {
        check_diagnostics(
            r#"
.version 8.0
.target sm_80
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  atom.global.cluster.add.u32 %r1, [%rd1], 1;
//           ^^^^^^^^ error: `atom.cluster` needs .target sm_90 or newer (this file targets sm_80)
  ret;
}
"#,
        );
    }
}
