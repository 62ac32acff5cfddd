//! The PTX rule checker: every validity rule of the PTX ISA that this project knows, as
//! diagnostics with precise ranges, stable codes and quick fixes.
//!
//! [`check`] is a pure function of a [`Parse`] and [`CheckOptions`]; it never fails and never
//! panics on broken input (a tree with errors yields partial results). Each family of rules
//! lives in its own module under `handlers/` and names the spec section it comes from.
//!
//! Errors follow ptxas 13.5 where it is more lenient than the spec (qualifier order, `.b32`
//! registers with `.f32` instructions, ...): a file that ptxas accepts must not get an error.
//! Warnings report what the spec forbids but ptxas does not check.
//!
//! ```
//! let parse = ptx_syntax::Parse::new(
//!     ".version 8.0\n.target sm_90\n.address_size 64\n.entry k() { ad.s32 %r1, 1, 2; ret; }\n",
//! );
//! let diagnostics = ptx_check::check(&parse, &ptx_check::CheckOptions::default());
//! assert_eq!(diagnostics[0].code, "unknown-opcode");
//! ```

mod constexpr;
mod context;
mod diagnostic;
pub mod form_availability;
mod handlers;
mod incremental;
mod memo;
mod scope;
#[cfg(test)]
mod test_support;
mod util;

pub use diagnostic::{Diagnostic, Edit, Fix, Severity};
pub use incremental::CheckCache;
use ptx_syntax::Parse;

/// What the checker should assume beyond the file itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct CheckOptions {
    /// Check as if the file said `.target` this (e.g. `sm_100a`).
    pub target_override: Option<String>,
    /// Check as if the file said `.version` this (e.g. `8.7`).
    pub version_override: Option<String>,
    /// Codes (see [`CODES`]) that are not reported.
    pub disabled_codes: Vec<String>,
}

/// Every diagnostic code the checker can produce, with a one-line description.
pub const CODES: &[(&str, &str)] = &[
    ("syntax-error", "the text does not parse as PTX"),
    (
        "missing-version",
        "no `.version` directive before the first statement",
    ),
    ("duplicate-version", "more than one `.version` directive"),
    (
        "unsupported-version",
        "a `.version` that ptxas does not know",
    ),
    ("missing-target", "no `.target` directive"),
    (
        "unknown-target",
        "a `.target` name that no architecture has",
    ),
    (
        "version-too-old",
        "a feature, target or special register needs a newer `.version`",
    ),
    (
        "unsupported-target",
        "a feature or special register is not available on the target",
    ),
    (
        "legacy-target",
        "a target GPU that ptxas 13.5 no longer generates code for (valid PTX; older ptxas releases assemble it)",
    ),
    (
        "address-size",
        "an `.address_size` other than 64 (ptxas 13.5 compiles no 32-bit code)",
    ),
    ("unknown-opcode", "no instruction has this name"),
    (
        "unknown-qualifier",
        "no form of the instruction has this qualifier",
    ),
    (
        "invalid-qualifier",
        "a known qualifier that is not allowed in this combination",
    ),
    ("missing-qualifier", "a mandatory qualifier is missing"),
    ("exclusive-qualifiers", "two qualifiers fill the same slot"),
    (
        "qualifier-order",
        "qualifiers in an order other than the spec's (ptxas accepts it)",
    ),
    (
        "ignored-qualifier",
        "a qualifier the instruction has no use for, which ptxas drops without a word",
    ),
    ("operand-count", "too many or too few operands"),
    (
        "operand-kind",
        "an address where a value is expected, or the other way round",
    ),
    (
        "operand-type",
        "a register or constant whose type does not fit the instruction",
    ),
    (
        "state-space",
        "a variable of one state space accessed as another (`ld.global` of a .shared variable)",
    ),
    ("vector-length", "a register vector of the wrong length"),
    ("undeclared-register", "a register that is not declared"),
    (
        "undeclared-name",
        "a label, variable or function that is not declared",
    ),
    (
        "duplicate-register",
        "a register declared twice in one scope",
    ),
    (
        "duplicate-variable",
        "a variable declared twice in one scope",
    ),
    ("duplicate-label", "a label defined twice in one block"),
    ("duplicate-function", "a function defined twice"),
    (
        "initializer",
        "an initial value where ptxas allows none (a .shared, .local or .extern variable, .f16)",
    ),
    (
        "constant-expression",
        "a constant expression ptxas refuses to evaluate (a division by zero, an integer and a float under one operator)",
    ),
    (
        "directive",
        "a directive ptxas rejects in this form or place (a removed one, a zero thread count, a reused .file index)",
    ),
    (
        "alias",
        "an .alias whose names are not a declared function and a defined one of the same prototype",
    ),
    (
        "parameter",
        "a parameter ptxas refuses: a kernel's that is not .param or an unsized array, an array of two dimensions, more bytes than a kernel may take",
    ),
    (
        "call-sequence",
        "a call's .param variable used out of its call: its address taken, or read in a kernel before a call returns into it",
    ),
    (
        "call-signature",
        "a call whose callee, arguments or results do not fit the called function",
    ),
    (
        "extern-definition",
        "a body for a function declared .extern",
    ),
    (
        "special-register-operand",
        "a special register read by an instruction other than mov/cvt",
    ),
    (
        "immediate-range",
        "a constant outside the range the instruction allows",
    ),
    (
        "tcgen05-mixed-cta-group",
        "tcgen05 instructions of one kernel use different .cta_group",
    ),
    (
        "tcgen05-alloc-after-relinquish",
        "tcgen05.alloc after relinquish_alloc_permit",
    ),
    (
        "tcgen05-alloc-without-dealloc",
        "tensor memory allocated but never freed",
    ),
    (
        "tcgen05-ld-without-wait",
        "a register loaded by tcgen05.ld read before tcgen05.wait::ld",
    ),
    (
        "tcgen05-st-without-wait",
        "tensor memory read after tcgen05.st without tcgen05.wait::st",
    ),
];

/// Checks a parsed document; the diagnostics are sorted by position. A large document is
/// checked on as many threads as the machine has cores (see [`check_with_threads`]).
pub fn check(parse: &Parse, options: &CheckOptions) -> Vec<Diagnostic> {
    /// Below this many bytes per thread, a thread costs more than it saves.
    const MIN_PART: usize = 128 * 1024;
    let parts = parse.text().len() / MIN_PART;
    if parts < 2 {
        // Most documents (and every asm statement's): no need to ask how many cores there
        // are, which reads the cgroup files on Linux.
        return check_with_threads(parse, options, 1);
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    check_with_threads(parse, options, cores.min(parts))
}

/// Like [`check`], with the functions shared out between up to `threads` threads, each
/// taking a run of consecutive functions of about the same size (functions are independent
/// once the module's directives and names are known). The result is the same for any
/// number of threads.
pub fn check_with_threads(
    parse: &Parse,
    options: &CheckOptions,
    threads: usize,
) -> Vec<Diagnostic> {
    if let Some(diagnostics) = too_deep(parse) {
        return diagnostics;
    }
    if threads > 1 {
        if let Some(diagnostics) = handlers::run_parallel(parse, options, threads) {
            return finish(diagnostics);
        }
    }
    run(parse, options, None)
}

/// Like [`check`], reusing the results of functions that the edits since the
/// previous call with the same `cache` did not touch (see [`CheckCache`]).
/// The result is the same as [`check`]'s.
pub fn check_incremental(
    parse: &Parse,
    options: &CheckOptions,
    cache: &mut CheckCache,
) -> Vec<Diagnostic> {
    if let Some(diagnostics) = too_deep(parse) {
        return diagnostics;
    }
    cache.begin();
    let diagnostics = run(parse, options, Some(&mut *cache));
    // A cancelled check saw only some functions: the cache keeps the others' results.
    if !ptx_syntax::cancel::cancelled() {
        cache.end();
    }
    diagnostics
}

fn run(parse: &Parse, options: &CheckOptions, cache: Option<&mut CheckCache>) -> Vec<Diagnostic> {
    let mut ctx = context::Ctx::new(parse, options);
    handlers::run_all(&mut ctx, cache);
    finish(ctx.finish())
}

/// Like [`check`] on one thread, running every rule on every instruction: without the
/// memory of instructions already found clean (see `memo.rs`). The result is the same as
/// [`check`]'s; tests compare the two.
#[doc(hidden)]
pub fn check_every_instruction(parse: &Parse, options: &CheckOptions) -> Vec<Diagnostic> {
    if let Some(diagnostics) = too_deep(parse) {
        return diagnostics;
    }
    let mut ctx = context::Ctx::new(parse, options);
    ctx.memo = None;
    handlers::run_all(&mut ctx, None);
    finish(ctx.finish())
}

/// A tree nesting deeper than [`ptx_syntax::MAX_NESTING`] is not walked (the rules recurse
/// into blocks and expressions): one error says where the nesting goes past the limit.
fn too_deep(parse: &Parse) -> Option<Vec<Diagnostic>> {
    let range = parse.too_deep()?;
    Some(vec![Diagnostic::new(
        "nesting-too-deep",
        Severity::Error,
        range,
        format!(
            "the code nests more than {} levels deep here (blocks, parentheses or operators); \
             the file is not checked",
            ptx_syntax::MAX_NESTING
        ),
    )])
}

/// Sorts by position and drops repeats.
fn finish(mut diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diagnostics.sort_by(|a, b| {
        (a.range.start, a.range.end, a.severity).cmp(&(b.range.start, b.range.end, b.severity))
    });
    diagnostics.dedup_by(|a, b| a.range == b.range && a.code == b.code && a.message == b.message);
    merge_one_mistake(diagnostics)
}

/// One diagnostic per mistake: two errors on the same range that are one mistake seen by two
/// rules (the same code, or a form that needs both a newer `.version` and another `.target`)
/// become one, the other's message kept as related information and its quick fixes added.
fn merge_one_mistake(diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    fn rank(d: &Diagnostic) -> (bool, bool, bool, usize) {
        (
            d.code == "unsupported-target",
            !d.fixes.is_empty(),
            !d.related.is_empty(),
            d.message.len(),
        )
    }
    let same_mistake = |a: &Diagnostic, b: &Diagnostic| {
        a.range == b.range
            && a.severity == Severity::Error
            && b.severity == Severity::Error
            && (a.code == b.code
                || matches!(
                    (a.code, b.code),
                    ("version-too-old", "unsupported-target")
                        | ("unsupported-target", "version-too-old")
                ))
    };
    let mut out: Vec<Diagnostic> = Vec::with_capacity(diagnostics.len());
    for d in diagnostics {
        // Diagnostics are sorted by range: a partner can only be among those of the same range.
        let partner = out
            .iter_mut()
            .rev()
            .take_while(|o| o.range == d.range)
            .find(|o| same_mistake(o, &d));
        let Some(partner) = partner else {
            out.push(d);
            continue;
        };
        let (mut keep, other) = if rank(&d) > rank(partner) {
            (
                d,
                std::mem::replace(partner, Diagnostic::error("", 0..0, "")),
            )
        } else {
            (
                std::mem::replace(partner, Diagnostic::error("", 0..0, "")),
                d,
            )
        };
        keep.related.push((other.range.clone(), other.message));
        keep.related.extend(other.related);
        for fix in other.fixes {
            if !keep.fixes.iter().any(|f| f.title == fix.title) {
                keep.fixes.push(fix);
            }
        }
        *partner = keep;
    }
    out
}

/// Convenience: parses `text` and checks it.
pub fn check_text(text: &str, options: &CheckOptions) -> Vec<Diagnostic> {
    check(&Parse::new(text), options)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TCGEN05: &str = ".version 8.6\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<4>;\n\ttcgen05.ld.sync.aligned.32x32b.x1.b32 {%r1}, [%r2];\n\ttcgen05.wait::ld.sync.aligned;\n\tret;\n}\n";

    /// A module of a PTX ISA newer than the facts: what they do not know is a warning that
    /// names the version; the same lines in a 9.1 module are errors.
    #[test]
    fn newer_versions_get_warnings_for_what_is_unknown() {
        let module = |version: &str| {
            format!(
                ".version {version}\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{{\n\t.reg .b32 %r<4>;\n\t.reg .b16 %h<2>;\n\tadd.u8x4 %r1, %r2, %r3;\n\tcvt.rn.bf16x2.e4m3x2 %r1, %h1;\n\tret;\n}}\n"
            )
        };
        let shown = |version: &str| {
            check_text(&module(version), &CheckOptions::default())
                .iter()
                .map(|d| format!("{} {}: {}", d.severity.as_str(), d.code, d.message))
                .collect::<Vec<_>>()
                .join("\n")
        };
        expect_test::expect![[r#"
            error unknown-qualifier: `add` has no qualifier `.u8x4`; expected .f32
            error invalid-qualifier: `.e4m3x2` is not allowed here in `cvt.rn.bf16x2.e4m3x2`; expected .s2f6x2"#]].assert_eq(&shown("9.1"));
        expect_test::expect![[r#"
            warning unknown-qualifier: not judged: this may need PTX ISA 9.2 or newer, which this tool does not know (it knows PTX ISA 9.1; under 9.1 it would be: `add` has no qualifier `.u8x4`; expected .f32)
            warning invalid-qualifier: not judged: this may need PTX ISA 9.2 or newer, which this tool does not know (it knows PTX ISA 9.1; under 9.1 it would be: `.e4m3x2` is not allowed here in `cvt.rn.bf16x2.e4m3x2`; expected .s2f6x2)"#]].assert_eq(&shown("9.2"));
    }

    fn codes(options: &CheckOptions) -> Vec<&'static str> {
        check_text(TCGEN05, options)
            .iter()
            .map(|d| d.code)
            .collect()
    }

    #[test]
    fn overrides_replace_the_files_target_and_version() {
        assert!(codes(&CheckOptions::default()).is_empty());
        let older = CheckOptions {
            target_override: Some("sm_90a".into()),
            ..CheckOptions::default()
        };
        assert_eq!(codes(&older), ["unsupported-target", "unsupported-target"]);
        let old_version = CheckOptions {
            version_override: Some("8.5".into()),
            ..CheckOptions::default()
        };
        assert!(codes(&old_version).contains(&"version-too-old"));
    }

    #[test]
    fn disabled_codes_are_not_reported() {
        let options = CheckOptions {
            target_override: Some("sm_90a".into()),
            disabled_codes: vec!["unsupported-target".into()],
            ..CheckOptions::default()
        };
        assert!(codes(&options).is_empty());
    }

    #[test]
    fn every_reported_code_is_listed() {
        for (code, description) in CODES {
            assert!(!description.is_empty(), "{code}");
        }
        let bad = check_text(".version 8.0\n.target sm_91\n", &CheckOptions::default());
        assert!(bad.iter().all(|d| CODES.iter().any(|(c, _)| *c == d.code)));
    }
}
