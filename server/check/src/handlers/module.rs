//! Module-level rules: `.version` first and once, `.target` present and known, the version
//! new enough for the target, `.address_size` 64 (PTX ISA 11.1.1–11.1.3).

use ptx_isa::{PtxVersion, SmName};
use ptx_syntax::{DirectiveKind, Item, TextRange};

use crate::context::Ctx;
use crate::util::nearest;
use crate::{Diagnostic, Fix};

/// The newest `.version` ptxas 13.5 accepts (the 9.1 spec is older than that ptxas).
pub(crate) const NEWEST_ACCEPTED: PtxVersion = PtxVersion::new(9, 5);
/// The oldest `.version` ptxas 13.5 accepts with any target (with sm_10 and no `.address_size`,
/// a directive of PTX 2.3).
pub(crate) const OLDEST_ACCEPTED: PtxVersion = PtxVersion::new(1, 0);

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    if ctx.snippet {
        return;
    }
    // ptxas 13.5 reads a UTF-8 byte-order mark as a stray character ("Unexpected non-ASCII
    // character encountered on line 1").
    if ctx.text.starts_with('\u{feff}') {
        ctx.report(
            Diagnostic::error(
                "syntax-error",
                0..'\u{feff}'.len_utf8(),
                "the file starts with a byte-order mark, which ptxas does not read: save it as plain ASCII",
            )
            .with_fix(Fix::replace("Remove the byte-order mark", 0..'\u{feff}'.len_utf8(), "")),
        );
    }
    check_version(ctx);
    check_targets(ctx);
    target_options(ctx);
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
    // ptxas 13.5 finds no `.version` at all when a comment stands between the keyword and its
    // number ("Missing .version directive at start of file").
    let between = ctx
        .text
        .get(first.keyword().range().end..value.range().start)
        .unwrap_or("");
    if between.contains("/*") || between.contains("//") {
        ctx.report(
            Diagnostic::error(
                "missing-version",
                value.range(),
                "ptxas 13.5 does not read a `.version` with a comment before its number; write the number right after `.version`",
            )
            .section("11.1.3"),
        );
        return;
    }
    // ptxas decides whether it knows a version by major × 10 + minor (`8.10` is taken as
    // 9.0), and compares it as written everywhere else (PtxVersion::ptxas_release).
    match PtxVersion::parse(value.text).map(|v| (v, v.ptxas_release())) {
        // A version the spec's releases skipped (8.9: after 8.8 came 9.0): "Unsupported
        // .version 8.9".
        Some((v, Some(r))) if r <= PtxVersion::SPEC && r.cuda_version().is_none() => ctx.report(
            Diagnostic::error(
                "unsupported-version",
                value.range(),
                format!("there is no PTX ISA version {v}"),
            )
            .section("11.1.3"),
        ),
        Some((_, Some(r))) if (OLDEST_ACCEPTED..=NEWEST_ACCEPTED).contains(&r) => {}
        Some((v, r)) => {
            let message = if v.minor > 9 {
                format!("`.version {v}` is read by ptxas as {} (major × 10 + minor), which it does not know", r.map_or("a number past every release".to_string(), |r| r.to_string()))
            } else if r.is_none_or(|r| r > NEWEST_ACCEPTED) {
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
    // ptxas 13.5 pairs `.target` with `.version` only when something follows the header: a
    // module of `.version`, `.target` and `.address_size` alone (what llc writes for an IR
    // module without functions or variables) assembles whatever the two say. Any declaration
    // or directive after them (`.global`, `.file`, `.pragma`) draws "PTX .version 3.2 does not
    // support .target sm_90".
    let header_only = ctx.module.items().iter().all(|item| {
        matches!(item, Item::Directive(d) if matches!(
            d.kind(),
            DirectiveKind::Version | DirectiveKind::Target | DirectiveKind::AddressSize
        ))
    });
    for token in directives.iter().flat_map(|d| d.targets()) {
        if overridden && SmName::read(token.text).is_some() {
            continue;
        }
        let reading = SmName::ptxas_reading(token.text);
        let name = reading.as_deref().unwrap_or(token.text);
        let Some(info) = ctx.isa.target(name).filter(|t| t.ptxas_accepts) else {
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
        if let Some(reading) = &reading {
            // ptxas 13.5 takes the name and ignores every character but the last after the
            // number (11.1.2 knows only the `a` and `f` suffixes).
            ctx.report(
                Diagnostic::warning(
                    "unknown-target",
                    token.range(),
                    format!(
                        "`{}` is not a target the spec names; ptxas 13.5 reads it as `{reading}`",
                        token.text
                    ),
                )
                .section("11.1.2")
                .with_fix(Fix::replace(
                    format!("Change to `{reading}`"),
                    token.range(),
                    reading.clone(),
                )),
            );
        }
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
        if let Some(v) = version.filter(|v| *v < needed && !header_only) {
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

/// What ptxas 13.5 requires of the `.target` line beyond its names: `.target` directives right
/// after `.version` (11.1.2 lets a later `.target` change the features of what follows; ptxas
/// 13.5 reads one after any other directive or declaration as a syntax error, or as no target
/// at all when it is the first), the architecture first in the list ("Target architecture not defined at start
/// of file"), one texturing mode ("Conflicting .target option"), `map_f64_to_f32` only for the
/// GPUs before sm_13 ("Directive map_f64_to_f32 is not supported with SM 1.3 or higher"), and
/// `debug` only in a module that has a `.section` of DWARF data ("Debug information not found
/// in presence of .target debug").
fn target_options(ctx: &mut Ctx<'_>) {
    let directives = ctx.module.directives(DirectiveKind::Target);
    let Some(first) = directives.first() else {
        return;
    };
    let items = ctx.module.items();
    let has_version = !ctx.module.directives(DirectiveKind::Version).is_empty();
    for (p, item) in items.iter().enumerate() {
        let Item::Directive(d) = item else { continue };
        if d.kind() != DirectiveKind::Target {
            continue;
        }
        let placed = p > 0
            && matches!(&items[p - 1], Item::Directive(b) if matches!(b.kind(), DirectiveKind::Version | DirectiveKind::Target));
        if !placed && has_version {
            ctx.report(
                Diagnostic::error(
                    "missing-target",
                    d.keyword().range(),
                    "`.target` must follow `.version` (or another `.target`) directly; ptxas 13.5 reads it nowhere else",
                )
                .section("11.1.2"),
            );
        }
    }
    let tokens = first.targets();
    if let Some(lead) = tokens.first().filter(|t| SmName::read(t.text).is_none()) {
        ctx.report(
            Diagnostic::error(
                "unknown-target",
                lead.range(),
                format!(
                    "`{}` before the architecture: the `.target` list starts with the architecture (e.g. `.target sm_90, {}`)",
                    lead.text, lead.text
                ),
            )
            .section("11.1.2"),
        );
    }
    let modes: Vec<_> = tokens
        .iter()
        .filter(|t| t.text.starts_with("texmode_"))
        .collect();
    if let [first_mode, rest @ ..] = modes.as_slice() {
        for other in rest.iter().filter(|t| t.text != first_mode.text) {
            ctx.report(
                Diagnostic::error(
                    "target-option",
                    other.range(),
                    format!(
                        "`{}` conflicts with `{}`: a module has one texturing mode",
                        other.text, first_mode.text
                    ),
                )
                .section("11.1.2"),
            );
        }
    }
    let arch = tokens.iter().find_map(|t| SmName::read(t.text));
    for option in &tokens {
        match option.text {
            "map_f64_to_f32" if arch.is_some_and(|a| a.number >= 13) => ctx.report(
                Diagnostic::error(
                    "target-option",
                    option.range(),
                    "`map_f64_to_f32` is for GPUs without double precision (before sm_13); ptxas 13.5 refuses it for this target",
                )
                .section("11.1.2"),
            ),
            "debug" if ctx.module.directives(DirectiveKind::Section).is_empty() => ctx.report(
                Diagnostic::error(
                    "target-option",
                    option.range(),
                    "`.target …, debug` declares DWARF data, but the module has no `.section` of it",
                )
                .section("11.1.2"),
            ),
            _ => {}
        }
    }
}

fn check_address_size(ctx: &mut Ctx<'_>) {
    // ptxas 13.5 reads `.address_size` once, right after `.target` (a syntax error anywhere
    // else, a second one included).
    let items = ctx.module.items();
    for (i, item) in items.iter().enumerate() {
        let Item::Directive(d) = item else { continue };
        if d.kind() != DirectiveKind::AddressSize {
            continue;
        }
        let after_target = i > 0
            && matches!(&items[i - 1], Item::Directive(p) if p.kind() == DirectiveKind::Target);
        if !after_target && !ctx.module.directives(DirectiveKind::Target).is_empty() {
            ctx.report(
                Diagnostic::error(
                    "address-size",
                    d.keyword().range(),
                    "`.address_size` goes right after `.target`, once",
                )
                .section("11.1.3"),
            );
        }
    }
    for directive in ctx.module.directives(DirectiveKind::AddressSize) {
        // ptxas: "Feature '.address_size directive' requires PTX ISA .version 2.3 or later".
        let since = ctx
            .isa
            .directive(".address_size")
            .map(|d| d.requirement.since);
        if let (Some(v), Some(since)) = (ctx.version, since) {
            if v < since {
                ctx.report(
                    Diagnostic::error(
                        "version-too-old",
                        directive.keyword().range(),
                        format!("`.address_size` needs `.version {since}` or newer (this file has .version {v})"),
                    )
                    .section("11.1.3"),
                );
            }
        }
        let Some(value) = directive.value() else {
            continue;
        };
        // ptxas reads the value as an integer literal (`0x40` is 64; `064` is octal 52).
        match ptx_syntax::parse_integer(value.text) {
            Some(64) => {}
            // ptxas 13.5 compiles no 32-bit code for any target ("32-Bit compilation is no
            // longer supported"); the spec (11.1.3) still lists 32.
            Some(32) => ctx.report(
                Diagnostic::error(
                    "address-size",
                    value.range(),
                    "ptxas 13.5 no longer compiles 32-bit code; use `.address_size 64`",
                )
                .section("11.1.3")
                .with_fix(Fix::replace("Change to 64", value.range(), "64")),
            ),
            _ => ctx.report(
                Diagnostic::error(
                    "address-size",
                    value.range(),
                    format!(
                        "`.address_size {}`: the address size is 32 or 64",
                        value.text
                    ),
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
    fn target_options_and_placement() {
        check_diagnostics(
            r#"
.version 8.0
.target debug, compute_80, texmode_unified, texmode_independent, map_f64_to_f32
//      ^^^^^ error: `debug` before the architecture: the `.target` list starts with the architecture (e.g. `.target sm_90, debug`)
//                                          ^^^^^^^^^^^^^^^^^^^ error: `texmode_independent` conflicts with `texmode_unified`: a module has one texturing mode
//                                                               ^^^^^^^^^^^^^^ error: `map_f64_to_f32` is for GPUs without double precision (before sm_13); ptxas 13.5 refuses it for this target
//      ^^^^^ error: `.target …, debug` declares DWARF data, but the module has no `.section` of it
.address_size 0x40
.visible .entry k() { ret; }
.address_size 64
// <- error: `.address_size` goes right after `.target`, once
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
