//! `.pragma "…";` strings (PTX ISA chapter 12) against what ptxas 13.5 takes of each
//! (data/pragmas.txt): where it may stand, the `.version` it needs, and its argument.

use ptx_syntax::TextRange;

use crate::context::Ctx;
use crate::Diagnostic;

/// Where a `.pragma` stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    Module,
    /// Between a kernel's parameters and its body.
    Header,
    /// Inside a function body; `kernel` for a `.entry`'s.
    Body {
        kernel: bool,
    },
}

/// Checks each string of the `.pragma` directive at `range`.
pub(crate) fn check(ctx: &mut Ctx<'_>, range: TextRange, place: Place) {
    let text = &ctx.text[range.clone()];
    let mut strings = Vec::new();
    let mut rest = 0;
    while let Some(open) = text[rest..].find('"') {
        let start = rest + open + 1;
        let Some(close) = text[start..].find('"') else {
            break;
        };
        strings.push((range.start + start, &text[start..start + close]));
        rest = start + close + 1;
    }
    for (at, string) in strings {
        one(ctx, at - 1..at + string.len() + 1, string, place);
    }
}

fn one(ctx: &mut Ctx<'_>, range: TextRange, string: &str, place: Place) {
    let mut words = string.split(' ');
    let name = words.next().unwrap_or_default();
    let argument: Vec<&str> = words.filter(|w| !w.is_empty()).collect();
    let known = ctx
        .isa
        .pragma(name)
        .filter(|p| p.argument != "none" || argument.is_empty());
    let Some(pragma) = known else {
        if place == Place::Module {
            // ptxas 13.5: "Pragma '…' not supported".
            ctx.report(
                Diagnostic::error(
                    "directive",
                    range,
                    format!("ptxas knows no pragma \"{string}\"; at module scope it takes \"nounroll\" only"),
                )
                .section("12"),
            );
        } else {
            // ptxas 13.5 warns: "Pragma '…' unsupported".
            ctx.report(
                Diagnostic::warning(
                    "directive",
                    range,
                    format!("ptxas knows no pragma \"{string}\" and ignores it"),
                )
                .section("12"),
            );
        }
        return;
    };
    let section = "12";
    let allowed = match place {
        Place::Module => pragma.places.contains(&"module"),
        Place::Header => pragma.places.contains(&"header"),
        Place::Body { kernel } => {
            pragma.places.contains(&"body") || (kernel && pragma.places.contains(&"kernel-body"))
        }
    };
    if !allowed {
        let message = if matches!(place, Place::Body { .. }) {
            format!("the \"{name}\" pragma applies to kernels; a `.func` takes none")
        } else {
            format!("the \"{name}\" pragma goes inside a function body")
        };
        ctx.report(Diagnostic::error("directive", range, message).section(section));
        return;
    }
    if ctx.version.is_some_and(|v| v < pragma.since) {
        ctx.report(
            Diagnostic::error(
                "version-too-old",
                range.clone(),
                format!(
                    "the \"{name}\" pragma needs `.version {}` or newer",
                    pragma.since
                ),
            )
            .section(section),
        );
    }
    let value = || -> Option<u64> {
        match argument.as_slice() {
            [one] => ptx_syntax::parse_integer(one),
            _ => None,
        }
    };
    let problem = match pragma.argument {
        // ptxas 13.5 reads the mask of a `.func`'s pragma leniently, even an empty one.
        "integer" if place == (Place::Body { kernel: false }) => None,
        "integer" | "positive" if argument.is_empty() => Some(format!(
            "the \"{name}\" pragma needs a value (\"{name} N\")"
        )),
        "integer" if value().is_none() => Some(format!(
            "the \"{name}\" pragma takes one integer, not \"{}\"",
            argument.join(" ")
        )),
        "positive" if value().is_none_or(|v| v == 0) => Some(format!(
            "the \"{name}\" pragma takes one positive integer, not \"{}\"",
            argument.join(" ")
        )),
        _ => None,
    };
    if let Some(message) = problem {
        ctx.report(Diagnostic::error("directive", range, message).section(section));
    }
}
