//! Whether an instruction, with the qualifiers and types it uses, exists in the file's
//! `.version` and on its `.target` (the "PTX ISA Notes" and "Target ISA Notes" of each
//! instruction in PTX ISA 9.7, and the release notes of chapter 13).
//!
//! The message names the part that needs more (the instruction itself or one qualifier) and
//! what it needs: the `.version` and the targets.

use ptx_isa::{Feature, FormMatch, PtxVersion, Requirement, Unmet};

use crate::context::{Ctx, InstInfo};
use crate::util::describe_targets;
use crate::Diagnostic;

pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let resolved = info.resolved.clone();
    let matches = &resolved.outcome.matches;
    let version = ctx.version;
    let owned: Vec<String> = ctx.targets.iter().map(|t| t.name.clone()).collect();
    let targets: Vec<&str> = owned.iter().map(String::as_str).collect();
    let unmet_of = |req: &Requirement| -> Vec<Unmet> {
        req.check(version.unwrap_or(PtxVersion::new(99, 9)), &targets)
    };
    // Any form that the use satisfies makes the instruction available.
    let Some(best) = matches
        .iter()
        .min_by_key(|m| unmet_of(&m.requirement).len())
    else {
        return;
    };
    if unmet_of(&best.requirement).is_empty() {
        return;
    }
    let section = best.instruction.section.clone();
    // Blame the instruction itself first, then each qualifier feature it triggers.
    let base = unmet_of(&best.form.requirement);
    let mut blamed = false;
    for unmet in &base {
        ctx.report(describe(ctx, info, &best.instruction.opcode, info.opcode_range(), unmet).section(section.clone()));
        blamed = true;
    }
    for feature in triggered(best) {
        let mut req = Requirement::default();
        feature.apply_to(&mut req);
        for unmet in unmet_of(&req) {
            if base.contains(&unmet) {
                continue;
            }
            let range = feature_range(info, feature).unwrap_or_else(|| info.opcode_range());
            let subject = feature.subject.clone();
            ctx.report(describe(ctx, info, &subject, range, &unmet).section(section.clone()));
            blamed = true;
        }
    }
    if !blamed {
        for unmet in unmet_of(&best.requirement) {
            ctx.report(
                describe(ctx, info, &info.opcode_text(), info.opcode_range(), &unmet)
                    .section(section.clone()),
            );
        }
    }
}

/// Features of the instruction that this use triggers (every pattern token present).
fn triggered<'m>(m: &'m FormMatch<'static>) -> Vec<&'m Feature> {
    m.instruction
        .features
        .iter()
        .filter(|f| !f.pattern.is_empty() && f.pattern.iter().all(|p| token_present(p, m)))
        .collect()
}

/// Mirrors the knowledge base's own rule: `.name` is a slot name or a literal, `::x` a
/// sub-qualifier suffix, anything else a literal qualifier or one of its dotted parts.
fn token_present(token: &str, m: &FormMatch<'_>) -> bool {
    if let Some(name) = token.strip_prefix('.') {
        return m.used.iter().any(|(si, v)| {
            m.form.qualifier_slots[*si].name.trim_start_matches('.') == name || v == name
        });
    }
    if token.starts_with("::") {
        return m.used.iter().any(|(_, v)| v.ends_with(token));
    }
    m.used
        .iter()
        .any(|(_, v)| v == token || v.split('.').any(|c| c == token))
}

/// The qualifier token a feature is about, if one can be found.
fn feature_range(info: &InstInfo<'_>, feature: &Feature) -> Option<ptx_syntax::TextRange> {
    let m = info.resolved.outcome.matches.first()?;
    for token in &feature.pattern {
        let bare = token.trim_start_matches('.');
        let value = m.used.iter().find_map(|(si, v)| {
            let slot = m.form.qualifier_slots[*si].name.trim_start_matches('.');
            (slot == bare || v == bare || v.ends_with(token.as_str())).then_some(v.as_str())
        });
        let word = value.unwrap_or(bare);
        if let Some(q) = info.qualifier(word) {
            return Some(q.range());
        }
    }
    None
}

fn describe(
    ctx: &Ctx<'_>,
    _info: &InstInfo<'_>,
    subject: &str,
    range: ptx_syntax::TextRange,
    unmet: &Unmet,
) -> Diagnostic {
    let subject = subject.trim_start_matches('.');
    let subject = if subject.contains('.') || !subject.contains("::") {
        subject.to_owned()
    } else {
        format!(".{subject}")
    };
    match unmet {
        Unmet::Version { needed } => Diagnostic::error(
            "version-too-old",
            range,
            format!(
                "`{subject}` needs `.version {needed}` or newer (this file has .version {})",
                ctx.version.map_or("?".to_owned(), |v| v.to_string())
            ),
        ),
        Unmet::Target { needed } => Diagnostic::error(
            "unsupported-target",
            range,
            format!(
                "`{subject}` needs .target {} (this file targets {})",
                describe_targets(needed),
                ctx.sm_target().unwrap_or("nothing")
            ),
        ),
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
//^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error: `tcgen05.ld` needs .target sm_100a or sm_101a or …
  ret;
}
"#,
        );
    }

    #[test]
    fn instruction_needs_newer_version() {
        check_diagnostics(
            r#"
.version 7.0
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .pred %p<2>;
  elect.sync _|%p1, 0xffffffff;
//^^^^^^^^^^ error: `elect.sync` needs `.version 8.0` or newer (this file has .version 7.0)
  ret;
}
"#,
        );
    }
}
