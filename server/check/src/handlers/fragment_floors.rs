//! Version and target floors of the matrix-fragment forms (mma, mma.sp, wgmma, multimem)
//! as ptxas 13.5 enforces them, confirmed by the labelled truth of `server/regs/fixtures/truth`
//! (every shape × type on every target group). They are matched on the written words, so they
//! also judge forms whose spelling the knowledge base's syntax does not list (ptxas takes
//! `.kind::f8f6f4` and `.tf32` on `.m16n8k16`, for instance); `form_availability` relies on that.

use ptx_isa::{PtxVersion, Requirement, Unmet};

use crate::context::{Ctx, InstInfo};
use crate::util::describe_targets;
use crate::Diagnostic;

/// One floor: every word must be written (the opcode root counts as a word).
pub(crate) struct Floor {
    pub words: &'static [&'static str],
    pub since: &'static str,
    pub targets: &'static str,
    /// What needs it, in words, for the message.
    pub feature: &'static str,
    pub section: &'static str,
}

const MMA: &str = "9.7.14.5.14";
const MMA_SP: &str = "9.7.14.6";

/// The floors, most specific first (only the first unmet one is reported).
pub(crate) const FLOORS: &[Floor] = &[
    // Sparse f16 accumulation of fp8 inputs (kind or not) and the sparse fp4 block scales:
    // only the sm_120 family (ptxas: "Instruction 'mma with with F16 accumulator and F8
    // floating point type' not supported on .target 'sm_89'"); `mxf4`/`mxf4nvf4` sparse
    // forms only on the `a` targets (ptxas rejects sm_120f).
    Floor {
        words: &["mma", "sp::ordered_metadata", "f16", "e4m3"],
        since: "8.7",
        targets: "sm_120f+",
        feature: "sparse `mma` with .f16 accumulators and fp8 inputs",
        section: MMA_SP,
    },
    Floor {
        words: &["mma", "sp::ordered_metadata", "f16", "e5m2"],
        since: "8.7",
        targets: "sm_120f+",
        feature: "sparse `mma` with .f16 accumulators and fp8 inputs",
        section: MMA_SP,
    },
    Floor {
        words: &["mma", "sp::ordered_metadata", "kind::mxf4"],
        since: "8.7",
        targets: "sm_120a | sm_121a",
        feature: "sparse `mma` with `.kind::mxf4`",
        section: MMA_SP,
    },
    Floor {
        words: &["mma", "sp::ordered_metadata", "kind::mxf4nvf4"],
        since: "8.7",
        targets: "sm_120a | sm_121a",
        feature: "sparse `mma` with `.kind::mxf4nvf4`",
        section: MMA_SP,
    },
    // fp6/fp4 inputs and block scaling: the sm_120 family.
    Floor {
        words: &["mma", "e3m2"],
        since: "8.7",
        targets: "sm_120f+",
        feature: "`mma` with .e3m2 inputs",
        section: MMA,
    },
    Floor {
        words: &["mma", "e2m3"],
        since: "8.7",
        targets: "sm_120f+",
        feature: "`mma` with .e2m3 inputs",
        section: MMA,
    },
    Floor {
        words: &["mma", "e2m1"],
        since: "8.7",
        targets: "sm_120f+",
        feature: "`mma` with .e2m1 inputs",
        section: MMA,
    },
    Floor {
        words: &["mma", "block_scale"],
        since: "8.7",
        targets: "sm_120f+",
        feature: "block-scaled `mma`",
        section: MMA,
    },
    // `.kind::f8f6f4` with fp8 inputs: the spec names sm_120a, ptxas 13.5 also takes the
    // sm_100 and sm_110 `a`/`f` targets.
    Floor {
        words: &["mma", "kind::f8f6f4"],
        since: "8.7",
        targets: "sm_100f+ | sm_110f+ | sm_120f+",
        feature: "`mma` with `.kind::f8f6f4`",
        section: MMA,
    },
    Floor {
        words: &["mma", "e4m3"],
        since: "8.4",
        targets: "sm_89+",
        feature: "`mma` with fp8 inputs",
        section: MMA,
    },
    Floor {
        words: &["mma", "e5m2"],
        since: "8.4",
        targets: "sm_89+",
        feature: "`mma` with fp8 inputs",
        section: MMA,
    },
    // Ampere additions: .bf16 and .tf32 inputs, .f64 on m8n8k4, the single-bit `.and`.
    Floor {
        words: &["mma", "bf16"],
        since: "7.0",
        targets: "sm_80+",
        feature: "`mma` with .bf16 inputs",
        section: MMA,
    },
    Floor {
        words: &["mma", "tf32"],
        since: "7.0",
        targets: "sm_80+",
        feature: "`mma` with .tf32 inputs",
        section: MMA,
    },
    Floor {
        words: &["mma", "m8n8k4", "f64"],
        since: "7.0",
        targets: "sm_80+",
        feature: "`mma` .m8n8k4 with .f64",
        section: MMA,
    },
    Floor {
        words: &["mma", "and", "popc"],
        since: "7.1",
        targets: "sm_80+",
        feature: "single-bit `mma` with `.and`",
        section: MMA,
    },
    // .f64 on the m16n8 shapes needs sm_90; the other m16n8 shapes (but .m16n8k8, which
    // Turing has for .f16) sm_80.
    Floor {
        words: &["mma", "m16n8k4", "f64"],
        since: "7.8",
        targets: "sm_90+",
        feature: "`mma` .f64 on an m16n8 shape",
        section: MMA,
    },
    Floor {
        words: &["mma", "m16n8k8", "f64"],
        since: "7.8",
        targets: "sm_90+",
        feature: "`mma` .f64 on an m16n8 shape",
        section: MMA,
    },
    Floor {
        words: &["mma", "m16n8k16", "f64"],
        since: "7.8",
        targets: "sm_90+",
        feature: "`mma` .f64 on an m16n8 shape",
        section: MMA,
    },
    Floor {
        words: &["mma", "m16n8k4"],
        since: "7.0",
        targets: "sm_80+",
        feature: "`mma` .m16n8k4",
        section: MMA,
    },
    Floor {
        words: &["mma", "m16n8k16"],
        since: "7.0",
        targets: "sm_80+",
        feature: "`mma` .m16n8k16",
        section: MMA,
    },
    Floor {
        words: &["mma", "m16n8k32"],
        since: "7.0",
        targets: "sm_80+",
        feature: "`mma` .m16n8k32",
        section: MMA,
    },
    Floor {
        words: &["mma", "m16n8k64"],
        since: "7.0",
        targets: "sm_80+",
        feature: "`mma` .m16n8k64",
        section: MMA,
    },
    Floor {
        words: &["mma", "m16n8k128"],
        since: "7.0",
        targets: "sm_80+",
        feature: "`mma` .m16n8k128",
        section: MMA,
    },
    Floor {
        words: &["mma", "m16n8k256"],
        since: "7.0",
        targets: "sm_80+",
        feature: "`mma` .m16n8k256",
        section: MMA,
    },
    // wgmma is sm_90a only, every shape and type (ptxas: "Instruction 'wgmma.mma_async
    // with integer types' not supported on .target 'sm_100a'").
    Floor {
        words: &["wgmma", "mma_async"],
        since: "8.0",
        targets: "sm_90a",
        feature: "`wgmma.mma_async`",
        section: "9.7.15.5.2",
    },
    // multimem's fp8 types (9.7.9.14): the sm_100 and sm_110 `a`/`f` targets and sm_120a/
    // sm_121a; ptxas 13.5 rejects sm_120f ("Feature '.e4m3x4' not supported on .target").
    Floor {
        words: &["multimem", "e4m3x2"],
        since: "8.6",
        targets: "sm_100f+ | sm_110f+ | sm_120a | sm_121a",
        feature: "`multimem` with fp8 types",
        section: "9.7.9.14",
    },
    Floor {
        words: &["multimem", "e4m3x4"],
        since: "8.6",
        targets: "sm_100f+ | sm_110f+ | sm_120a | sm_121a",
        feature: "`multimem` with fp8 types",
        section: "9.7.9.14",
    },
    Floor {
        words: &["multimem", "e5m2x2"],
        since: "8.6",
        targets: "sm_100f+ | sm_110f+ | sm_120a | sm_121a",
        feature: "`multimem` with fp8 types",
        section: "9.7.9.14",
    },
    Floor {
        words: &["multimem", "e5m2x4"],
        since: "8.6",
        targets: "sm_100f+ | sm_110f+ | sm_120a | sm_121a",
        feature: "`multimem` with fp8 types",
        section: "9.7.9.14",
    },
];

/// The floors of `words` (opcode root first): the floor's root is the written root, and
/// each of its other words is written somewhere after it.
pub(crate) fn matching<'w>(words: &'w [&'w str]) -> impl Iterator<Item = &'static Floor> + 'w {
    FLOORS.iter().filter(move |f| {
        words.first() == f.words.first() && f.words[1..].iter().all(|w| words[1..].contains(w))
    })
}

/// Reports the first unmet floor of the instruction.
pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let version = ctx.version.unwrap_or(PtxVersion::new(99, 9));
    let targets = ctx.target_names();
    // multimem's fp8 floor is `atomics`' rule there (it reads the operands too).
    for floor in matching(&info.words).filter(|f| f.words[0] != "multimem") {
        let requirement = Requirement::floor(floor.since, floor.targets);
        let Some(unmet) = requirement.check(version, &targets).into_iter().next() else {
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
        ctx.report(Diagnostic::error(code, info.opcode_range(), message).section(floor.section));
        return;
    }
}
