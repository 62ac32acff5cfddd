//! Version and target floors of the matrix-fragment forms (mma, mma.sp, wgmma, multimem)
//! as ptxas 13.5 enforces them (the knowledge base's data/fragment-floors.txt), confirmed by
//! the labelled truth of `server/regs/fixtures/truth` (every shape × type on every target
//! group). They are matched on the written words, so they
//! also judge forms whose spelling the knowledge base's syntax does not list (ptxas takes
//! `.kind::f8f6f4` and `.tf32` on `.m16n8k16`, for instance); `form_availability` relies on that.

use ptx_isa::{FragmentFloor, Isa, PtxVersion, Unmet};

use crate::context::{Ctx, InstInfo};
use crate::util::describe_targets;
use crate::Diagnostic;

/// The floors of `words` (opcode root first): the floor's root is the written root, and
/// each of its other words is written somewhere after it (the table is the knowledge base's
/// data/fragment-floors.txt, most specific first).
pub(crate) fn matching<'w>(
    words: &'w [&'w str],
) -> impl Iterator<Item = &'static FragmentFloor> + 'w {
    Isa::get()
        .fragment_floors()
        .iter()
        .filter(move |f| f.matches(words))
}

/// Reports the first unmet floor of the instruction.
pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let version = ctx.version.unwrap_or(PtxVersion::new(99, 9));
    let targets = ctx.target_names();
    // multimem's fp8 floor is `atomics`' rule there (it reads the operands too).
    for floor in matching(&info.words).filter(|f| f.words[0] != "multimem") {
        let Some(unmet) = floor
            .requirement
            .check(version, &targets)
            .into_iter()
            .next()
        else {
            continue;
        };
        let (code, message) = match unmet {
            Unmet::Version { needed } => (
                "version-too-old",
                format!(
                    "{} needs `.version {needed}` or newer (this file has .version {})",
                    floor.feature,
                    ctx.version.map_or("?".to_owned(), |v| v.to_string())
                ),
            ),
            Unmet::Target { needed } => (
                "unsupported-target",
                format!(
                    "{} needs .target {} (this file targets {})",
                    floor.feature,
                    describe_targets(&needed),
                    ctx.sm_target().unwrap_or("nothing")
                ),
            ),
            Unmet::Removed { .. } => continue,
        };
        ctx.report(Diagnostic::error(code, info.opcode_range(), message).section(&floor.section));
        return;
    }
}
