//! Module-level rules: `.version` first and once, `.target` present and known, the version
//! new enough for the target, `.address_size` 64 (PTX ISA 11.1.1–11.1.3).

use ptx_isa::{PtxVersion, SmName};
use ptx_syntax::{DirectiveKind, Item, TextRange};

use crate::context::Ctx;
use crate::util::nearest;
use crate::{Diagnostic, Fix};

/// The newest `.version` ptxas 13.5 accepts (the 9.1 spec is older than that ptxas).
pub(crate) const NEWEST_ACCEPTED: PtxVersion = PtxVersion::new(9, 5);
/// The oldest `.version` ptxas 13.5 accepts with any target.
pub(crate) const OLDEST_ACCEPTED: PtxVersion = PtxVersion::new(2, 3);

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    if ctx.snippet {
        return;
    }
    check_version(ctx);
    check_targets(ctx);
    check_address_size(ctx);
}

fn file_start(ctx: &Ctx<'_>) -> TextRange {
    let first = ctx.module.items().first().map(|i| match i {
        Item::Function(f) => f.range(),
        Item::Variable(v) => v.range(),
        Item::Directive(d) => d.range(),
        Item::Statement(s) => s.range(),
    });
    match first {
        Some(range) => {
            range.start
                ..ctx.text[range.clone()]
                    .lines()
                    .next()
                    .map_or(range.end, |l| range.start + l.len())
        }
        None => 0..0,
    }
}

fn check_version(ctx: &mut Ctx<'_>) {
    let versions = ctx.module.directives(DirectiveKind::Version);
    let Some(first) = versions.first() else {
        let range = file_start(ctx);
        ctx.report(
            Diagnostic::error(
                "missing-version",
                range,
                "the file has no `.version` directive; ptxas needs one as the first statement (e.g. `.version 8.7`)",
            )
            .section("11.1.3")
            .with_fix(Fix::replace("Add `.version 9.0`", 0..0, ".version 9.0\n")),
        );
        return;
    };
    for extra in &versions[1..] {
        ctx.report(
            Diagnostic::error(
                "duplicate-version",
                extra.keyword().range(),
                "a second `.version` directive; a module has exactly one",
            )
            .section("11.1.3")
            .with_related(first.range(), "the first `.version`"),
        );
    }
    let is_first_item = matches!(
        ctx.module.items().iter().find(|i| !matches!(i, Item::Directive(d) if d.kind() == DirectiveKind::File || d.kind() == DirectiveKind::Pragma)),
        Some(Item::Directive(d)) if d.kind() == DirectiveKind::Version
    );
    if !is_first_item {
        ctx.report(
            Diagnostic::error(
                "missing-version",
                first.keyword().range(),
                "`.version` must be the first statement of the file",
            )
            .section("11.1.3"),
        );
    }
    let Some(value) = first.value() else { return };
    match PtxVersion::parse(value.text) {
        Some(v) if (OLDEST_ACCEPTED..=NEWEST_ACCEPTED).contains(&v) => {}
        Some(v) => {
            let message = if v > NEWEST_ACCEPTED {
                format!("`.version {v}` is newer than any PTX ISA version ptxas knows (the newest is {NEWEST_ACCEPTED})")
            } else {
                format!(
                    "`.version {v}` is too old for current tools; use {OLDEST_ACCEPTED} or newer"
                )
            };
            ctx.report(
                Diagnostic::error("unsupported-version", value.range(), message).section("11.1.3"),
            );
        }
        None => ctx.report(
            Diagnostic::error(
                "unsupported-version",
                value.range(),
                format!(
                    "`{}` is not a PTX ISA version (write MAJOR.MINOR, e.g. 8.7)",
                    value.text
                ),
            )
            .section("11.1.3"),
        ),
    }
}

fn check_targets(ctx: &mut Ctx<'_>) {
    let directives = ctx.module.directives(DirectiveKind::Target);
    if directives.is_empty() && ctx.options.target_override.is_none() {
        let range = file_start(ctx);
        ctx.report(
            Diagnostic::error(
                "missing-target",
                range,
                "the file has no `.target` directive; ptxas needs one after `.version` (e.g. `.target sm_90`)",
            )
            .section("11.1.2"),
        );
        return;
    }
    let version = ctx.version;
    let version_value = ctx
        .module
        .directives(DirectiveKind::Version)
        .first()
        .and_then(|d| d.value());
    let overridden = ctx.options.target_override.is_some();
    for token in directives.iter().flat_map(|d| d.targets()) {
        if overridden && SmName::parse(token.text).is_some() {
            continue;
        }
        let Some(info) = ctx.isa.target(token.text).filter(|t| t.ptxas_accepts) else {
            let names = ctx.isa.targets().iter().map(|t| t.name.as_str());
            let mut d = Diagnostic::error(
                "unknown-target",
                token.range(),
                format!("unknown target `{}`", token.text),
            )
            .section("11.1.2");
            if let Some(best) = nearest(token.text, names) {
                d.message.push_str(&format!("; did you mean `{best}`?"));
                d = d.with_fix(Fix::replace(
                    format!("Change to `{best}`"),
                    token.range(),
                    best,
                ));
            }
            ctx.report(d);
            continue;
        };
        if !info.ptxas_codegen {
            // 11.1.2 lists every sm_XX since sm_10, and ptxas 13.5 still checks such a file
            // when it generates code for a newer GPU (`-arch=sm_75`); it only refuses to
            // generate code for the old GPU itself ("Value 'sm_70' is not defined for option
            // 'gpu-name'"). Valid PTX, so a warning.
            let older = match info.codegen_until_cuda {
                Some(major) => format!("CUDA {major}'s ptxas still does"),
                None => "an older CUDA release's ptxas is needed for it".to_string(),
            };
            ctx.report(
                Diagnostic::warning(
                    "legacy-target",
                    token.range(),
                    format!(
                        "ptxas 13.5 no longer generates code for `{}` (its oldest GPU is sm_75); {older}",
                        token.text
                    ),
                )
                .section("11.1.2"),
            );
        }
        let needed = info.min_version();
        if let Some(v) = version.filter(|v| *v < needed) {
            let mut d = Diagnostic::error(
                "version-too-old",
                token.range(),
                format!(
                    "`.target {}` needs `.version {needed}` or newer (this file has .version {v})",
                    token.text
                ),
            )
            .section("11.1.2");
            if let Some(value) = version_value.filter(|_| ctx.options.version_override.is_none()) {
                d = d.with_fix(Fix::replace(
                    format!("Change to `.version {needed}`"),
                    value.range(),
                    needed.to_string(),
                ));
            }
            ctx.report(d);
        }
    }
    if let Some(over) = ctx.options.target_override.clone() {
        if ctx.isa.target(&over).filter(|t| t.ptxas_accepts).is_none() {
            let range = file_start(ctx);
            ctx.report(
                Diagnostic::error(
                    "unknown-target",
                    range.start..range.start,
                    format!("unknown target `{over}` given with --target"),
                )
                .section("11.1.2"),
            );
        }
    }
}

fn check_address_size(ctx: &mut Ctx<'_>) {
    for directive in ctx.module.directives(DirectiveKind::AddressSize) {
        let Some(value) = directive.value() else {
            continue;
        };
        match value.text {
            "64" => {}
            // ptxas 13.5 compiles no 32-bit code for any target ("32-Bit compilation is no
            // longer supported"); the spec (11.1.3) still lists 32.
            "32" => ctx.report(
                Diagnostic::error(
                    "address-size",
                    value.range(),
                    "ptxas 13.5 no longer compiles 32-bit code; use `.address_size 64`",
                )
                .section("11.1.3")
                .with_fix(Fix::replace("Change to 64", value.range(), "64")),
            ),
            other => ctx.report(
                Diagnostic::error(
                    "address-size",
                    value.range(),
                    format!("`.address_size {other}`: the address size is 32 or 64"),
                )
                .section("11.1.3")
                .with_fix(Fix::replace("Change to 64", value.range(), "64")),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::check_diagnostics;

    #[test]
    fn version_too_old_for_target() {
        check_diagnostics(
            r#"
.version 8.0
.target sm_100a
//      ^^^^^^^ error: `.target sm_100a` needs `.version 8.6` or newer (this file has .version 8.0)
.address_size 64
.visible .entry k() { ret; }
"#,
        );
    }

    #[test]
    fn unknown_target_and_address_size() {
        check_diagnostics(
            r#"
.version 8.0
.target sm_91
//      ^^^^^ error: unknown target `sm_91`; did you mean `sm_90`?
.address_size 48
//            ^^ error: `.address_size 48`: the address size is 32 or 64
.visible .entry k() { ret; }
"#,
        );
    }

    #[test]
    fn targets_ptxas_no_longer_assembles() {
        check_diagnostics(
            r#"
.version 7.0
.target sm_70
//      ^^^^^ warning: ptxas 13.5 no longer generates code for `sm_70` (its oldest GPU is sm_75); CUDA 12's ptxas still does
.address_size 64
.visible .entry k() { ret; }
"#,
        );
    }

    #[test]
    fn old_targets_are_valid_ptx() {
        check_diagnostics(
            r#"
.version 4.0
.target sm_50
//      ^^^^^ warning: ptxas 13.5 no longer generates code for `sm_50` (its oldest GPU is sm_75); CUDA 12's ptxas still does
.address_size 64
.visible .entry k() { ret; }
"#,
        );
        check_diagnostics(
            r#"
.version 3.1
.target sm_35
//      ^^^^^ warning: ptxas 13.5 no longer generates code for `sm_35` (its oldest GPU is sm_75); CUDA 11's ptxas still does
.address_size 64
.visible .entry k() { ret; }
"#,
        );
        check_diagnostics(
            r#"
.version 3.0
.target sm_30
//      ^^^^^ warning: ptxas 13.5 no longer generates code for `sm_30` (its oldest GPU is sm_75); an older CUDA release's ptxas is needed for it
.address_size 64
.visible .entry k() { ret; }
"#,
        );
    }

    #[test]
    fn old_target_needs_its_version() {
        check_diagnostics(
            r#"
.version 6.0
.target sm_72
//      ^^^^^ warning: ptxas 13.5 no longer generates code for `sm_72` (its oldest GPU is sm_75); CUDA 12's ptxas still does
//      ^^^^^ error: `.target sm_72` needs `.version 6.1` or newer (this file has .version 6.0)
.address_size 64
.visible .entry k() { ret; }
"#,
        );
    }

    #[test]
    fn duplicate_and_unsupported_version() {
        check_diagnostics(
            r#"
.version 9.6
//       ^^^ error: `.version 9.6` is newer than any PTX ISA version ptxas knows (the newest is 9.5)
.version 8.0
// <- error: a second `.version` directive; a module has exactly one
.target sm_90
.visible .entry k() { ret; }
"#,
        );
    }
}
