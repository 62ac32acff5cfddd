//! Whether an instruction exists in the file's `.version` and on its `.target` (the "PTX ISA
//! Notes" and "Target ISA Notes" of each instruction in PTX ISA 9.7).
//!
//! Errors use the knowledge base's *floor* of each instruction: the earliest version and the
//! union of the targets of all its facts. The per-qualifier facts that the spec's notes give
//! are often about later extensions of a qualifier (`.local` with `.volatile` in 9.1, not
//! `.local` itself), so blaming a qualifier would reject code that ptxas accepts. A short
//! list of qualifier rules confirmed with ptxas fixtures is checked on top (see
//! [`QUALIFIER_RULES`]).

use ptx_isa::{PtxVersion, Requirement, TargetAtom, TargetReq, Unmet};

use crate::context::{Ctx, InstInfo};
use crate::util::describe_targets;
use crate::{Diagnostic, Edit, Fix};

/// Qualifier rules confirmed with ptxas (fixtures under `fixtures/ptxas`, whose messages name
/// the feature): (instruction opcode, qualifiers that must all be written, since, targets,
/// spec section). The knowledge base has these facts too, but mixed with notes about later
/// extensions; these are the ones ptxas enforces as written.
const QUALIFIER_RULES: &[(&str, &[&str], &str, &str, &str)] = &[
    // Cluster scope and the cluster state space arrive with sm_90.
    ("atom", &["cluster"], "7.8", "sm_90+", "9.7.13.5"),
    ("red", &["cluster"], "7.8", "sm_90+", "9.7.13.6"),
    ("fence", &["cluster"], "7.8", "sm_90+", "9.7.13.4"),
    ("ld", &["cluster"], "7.8", "sm_90+", "9.7.9.8"),
    ("st", &["cluster"], "7.8", "sm_90+", "9.7.9.11"),
    ("ld", &["shared::cluster"], "7.8", "sm_90+", "9.7.9.8"),
    ("st", &["shared::cluster"], "7.8", "sm_90+", "9.7.9.11"),
    ("fence", &["proxy", "async"], "8.0", "sm_90+", "9.7.13.4"),
    // Memory-model qualifiers need sm_70.
    ("ld", &["relaxed"], "6.0", "sm_70+", "9.7.9.8"),
    ("ld", &["acquire"], "6.0", "sm_70+", "9.7.9.8"),
    ("st", &["relaxed"], "6.0", "sm_70+", "9.7.9.11"),
    ("st", &["release"], "6.0", "sm_70+", "9.7.9.11"),
    // Cache hints need sm_80.
    ("ld", &["L2::cache_hint"], "7.4", "sm_80+", "9.7.9.8"),
    ("st", &["L2::cache_hint"], "7.4", "sm_80+", "9.7.9.11"),
    // 256-bit loads and stores (ptxas: "256 bit wide load/store"): `.v8` of a 32-bit type
    // or `.v4` of a 64-bit one. `.v8` of 8- and 16-bit types is older: ptxas 13.5 takes
    // `st.global.v8.b16` with `.version 6.3` on sm_75 (and crashes on the `ld` spelling).
    ("ld", &["v8", "b32"], "8.8", "sm_100+", "9.7.9.8"),
    ("ld", &["v8", "u32"], "8.8", "sm_100+", "9.7.9.8"),
    ("ld", &["v8", "s32"], "8.8", "sm_100+", "9.7.9.8"),
    ("ld", &["v8", "f32"], "8.8", "sm_100+", "9.7.9.8"),
    ("st", &["v8", "b32"], "8.8", "sm_100+", "9.7.9.11"),
    ("st", &["v8", "u32"], "8.8", "sm_100+", "9.7.9.11"),
    ("st", &["v8", "s32"], "8.8", "sm_100+", "9.7.9.11"),
    ("st", &["v8", "f32"], "8.8", "sm_100+", "9.7.9.11"),
    ("ld", &["v4", "b64"], "8.8", "sm_100+", "9.7.9.8"),
    ("ld", &["v4", "u64"], "8.8", "sm_100+", "9.7.9.8"),
    ("ld", &["v4", "s64"], "8.8", "sm_100+", "9.7.9.8"),
    ("ld", &["v4", "f64"], "8.8", "sm_100+", "9.7.9.8"),
    ("st", &["v4", "b64"], "8.8", "sm_100+", "9.7.9.11"),
    ("st", &["v4", "u64"], "8.8", "sm_100+", "9.7.9.11"),
    ("st", &["v4", "s64"], "8.8", "sm_100+", "9.7.9.11"),
    ("st", &["v4", "f64"], "8.8", "sm_100+", "9.7.9.11"),
    // The `::entry`/`::func` parameter sub-spaces (ptxas: "Feature '::entry' requires PTX ISA
    // .version 8.3").
    ("ld", &["param::entry"], "8.3", "all", "9.7.9.8"),
    ("ld", &["param::func"], "8.3", "all", "9.7.9.8"),
    ("st", &["param::entry"], "8.3", "all", "9.7.9.11"),
    ("st", &["param::func"], "8.3", "all", "9.7.9.11"),
    // Eviction priorities and prefetch sizes arrive with PTX 7.4 (ptxas: "Modifier
    // '.evict_last' on 'ld' requires PTX ISA .version 7.4").
    ("ld", &["L1::evict_normal"], "7.4", "sm_70+", "9.7.9.8"),
    ("ld", &["L1::evict_unchanged"], "7.4", "sm_70+", "9.7.9.8"),
    ("ld", &["L1::evict_first"], "7.4", "sm_70+", "9.7.9.8"),
    ("ld", &["L1::evict_last"], "7.4", "sm_70+", "9.7.9.8"),
    ("ld", &["L1::no_allocate"], "7.4", "sm_70+", "9.7.9.8"),
    ("st", &["L1::evict_normal"], "7.4", "sm_70+", "9.7.9.11"),
    ("st", &["L1::evict_unchanged"], "7.4", "sm_70+", "9.7.9.11"),
    ("st", &["L1::evict_first"], "7.4", "sm_70+", "9.7.9.11"),
    ("st", &["L1::evict_last"], "7.4", "sm_70+", "9.7.9.11"),
    ("st", &["L1::no_allocate"], "7.4", "sm_70+", "9.7.9.11"),
    ("ld", &["L2::64B"], "7.4", "sm_75+", "9.7.9.8"),
    ("ld", &["L2::128B"], "7.4", "sm_75+", "9.7.9.8"),
    ("ld", &["L2::256B"], "7.4", "sm_75+", "9.7.9.8"),
    // `.volatile` with `.local` (ptxas: "ld/st with .local.volatile").
    ("ld", &["volatile", "local"], "9.1", "all", "9.7.9.8"),
    ("st", &["volatile", "local"], "9.1", "all", "9.7.9.11"),
    // Asynchronous copies need sm_80.
    ("cp.async", &[], "7.0", "sm_80+", "9.7.9.25.3.1"),
    // FP8 conversions need sm_89.
    ("cvt", &["e4m3x2"], "7.8", "sm_89+", "9.7.9.21"),
    ("cvt", &["e5m2x2"], "7.8", "sm_89+", "9.7.9.21"),
    // `.NaN` min/max, bf16 fma, packed 16-bit integer arithmetic.
    ("min", &["NaN"], "7.0", "sm_80+", "9.7.3.11"),
    ("max", &["NaN"], "7.0", "sm_80+", "9.7.3.12"),
    ("fma", &["bf16"], "7.0", "sm_80+", "9.7.4.4"),
    ("fma", &["bf16x2"], "7.0", "sm_80+", "9.7.4.4"),
    // `.oob` (ptxas: "Modifier '.oob' requires .target sm_90 or higher").
    ("fma", &["oob"], "8.1", "sm_90+", "9.7.4.4"),
    ("add", &["u16x2"], "8.0", "sm_90+", "9.7.1.1"),
    ("add", &["s16x2"], "8.0", "sm_90+", "9.7.1.1"),
    ("sub", &["u16x2"], "8.0", "sm_90+", "9.7.1.2"),
    ("sub", &["s16x2"], "8.0", "sm_90+", "9.7.1.2"),
    ("min", &["u16x2"], "8.0", "sm_90+", "9.7.1.12"),
    ("min", &["s16x2"], "8.0", "sm_90+", "9.7.1.12"),
    ("max", &["u16x2"], "8.0", "sm_90+", "9.7.1.13"),
    ("max", &["s16x2"], "8.0", "sm_90+", "9.7.1.13"),
    // mma shapes.
    ("mma", &["m16n8k16"], "7.0", "sm_80+", "9.7.14.5.14"),
    // Blackwell additions (ptxas: "redux.f32", "st.async/red.async with .global state space",
    // "add.f32x2").
    (
        "redux.sync",
        &["f32"],
        "8.6",
        "sm_100a | sm_100f+",
        "9.7.13.12",
    ),
    // tcgen05.mma (9.7.16.10.9, Target ISA notes): `.kind::i8` only on sm_100a and sm_110a
    // (sm_101a), and the `.scale_vec::NX` block scales only on the arch-specific targets
    // (their `.block16`/`.block32` aliases work on the family ones). ptxas 13.5: "Feature
    // '.kind::i8' not supported on .target 'sm_103a'", "Feature '.scale_vec::2X' not
    // supported on .target 'sm_100f'", for tcgen05.mma, .sp and .ws alike.
    (
        "tcgen05.mma",
        &["kind::i8"],
        "8.6",
        "sm_100a | sm_110a",
        "9.7.16.10.9.1",
    ),
    (
        "tcgen05.mma.sp",
        &["kind::i8"],
        "8.6",
        "sm_100a | sm_110a",
        "9.7.16.10.9.2",
    ),
    (
        "tcgen05.mma.ws",
        &["kind::i8"],
        "8.6",
        "sm_100a | sm_110a",
        "9.7.16.10.9.3",
    ),
    (
        "tcgen05.mma.ws.sp",
        &["kind::i8"],
        "8.6",
        "sm_100a | sm_110a",
        "9.7.16.10.9.4",
    ),
    (
        "tcgen05.mma",
        &["scale_vec::1X"],
        "8.6",
        "sm_100a | sm_103a | sm_110a",
        "9.7.16.10.9.1",
    ),
    (
        "tcgen05.mma",
        &["scale_vec::2X"],
        "8.6",
        "sm_100a | sm_103a | sm_110a",
        "9.7.16.10.9.1",
    ),
    (
        "tcgen05.mma",
        &["scale_vec::4X"],
        "8.6",
        "sm_100a | sm_103a | sm_110a",
        "9.7.16.10.9.1",
    ),
    (
        "tcgen05.mma.sp",
        &["scale_vec::1X"],
        "8.6",
        "sm_100a | sm_103a | sm_110a",
        "9.7.16.10.9.2",
    ),
    (
        "tcgen05.mma.sp",
        &["scale_vec::2X"],
        "8.6",
        "sm_100a | sm_103a | sm_110a",
        "9.7.16.10.9.2",
    ),
    (
        "tcgen05.mma.sp",
        &["scale_vec::4X"],
        "8.6",
        "sm_100a | sm_103a | sm_110a",
        "9.7.16.10.9.2",
    ),
    // `red.async` without an mbarrier (`.global` included) is `atomics`' rule.
    ("st.async", &["global"], "8.7", "sm_100+", "9.7.9.12"),
    ("add", &["f32x2"], "8.6", "sm_100+", "9.7.3.3"),
    ("sub", &["f32x2"], "8.6", "sm_100+", "9.7.3.4"),
    ("mul", &["f32x2"], "8.6", "sm_100+", "9.7.3.5"),
    ("fma", &["f32x2"], "8.6", "sm_100+", "9.7.3.6"),
    ("cvt", &["rs"], "8.7", "all", "9.7.9.21"),
    // `.satfinite` tf32 conversions with `.rn`/`.rz` (`.rna` has it since sm_80): ptxas
    // "Modifier '.satfinite' on 'cvt.tf32.f32.rn' requires .target sm_100 or higher".
    (
        "cvt",
        &["rn", "satfinite", "tf32"],
        "8.6",
        "sm_100+",
        "9.7.9.21",
    ),
    (
        "cvt",
        &["rz", "satfinite", "tf32"],
        "8.6",
        "sm_100+",
        "9.7.9.21",
    ),
    // mbarrier's transaction-count arrive (ptxas: "Feature 'mbarrier.arrive.expect_tx'
    // requires PTX ISA .version 8.0").
    (
        "mbarrier.arrive",
        &["expect_tx"],
        "8.0",
        "sm_90+",
        "9.7.13.15.13",
    ),
    (
        "mbarrier.arrive_drop",
        &["expect_tx"],
        "8.0",
        "sm_90+",
        "9.7.13.15.14",
    ),
    // tcgen05.ld.red: PTX 8.8, and not on sm_100a/sm_100f (ptxas: "Instruction
    // 'tcgen05.ld.red' not supported on .target 'sm_100a'"); sm_101*, sm_103*, sm_110* take it.
    (
        "tcgen05.ld",
        &["red"],
        "8.8",
        "sm_101a | sm_101f | sm_103a | sm_103f | sm_110a | sm_110f",
        "9.7.16.8.3",
    ),
    // min/max `.xorsign.abs` need sm_86 (ptxas: "Feature '.abs' requires .target sm_86").
    ("min", &["xorsign"], "7.2", "sm_86+", "9.7.3.11"),
    ("max", &["xorsign"], "7.2", "sm_86+", "9.7.3.12"),
    // tf32 conversions rounding to nearest or to zero need sm_90 (`.rna` has been there since
    // sm_80; ptxas: "Feature 'cvt with .tf32.f32.rn' requires .target sm_90").
    ("cvt", &["rn", "tf32"], "7.8", "sm_90+", "9.7.9.21"),
    ("cvt", &["rz", "tf32"], "7.8", "sm_90+", "9.7.9.21"),
    // The 16x16 ldmatrix shape: the spec names sm_100a/sm_101a/sm_110a/sm_120a; ptxas 13.5
    // also takes the family targets (sm_100f, sm_103a, sm_110f, sm_120f, sm_121f) and
    // rejects sm_90a and the plain sm_100 ("Feature '.m16n16' not supported on .target").
    (
        "ldmatrix",
        &["m16n16"],
        "8.6",
        "sm_100f+ | sm_110f+ | sm_120f+",
        "9.7.14.5.15",
    ),
    // The other 8-bit matrix shapes (9.7.14.5.15-16): like `.m16n16`, ptxas 13.5 takes
    // `ldmatrix .m8n16` and `stmatrix .m16n8` on the sm_100+ `a`/`f` targets only ("Feature
    // '.m16n8' not supported on .target 'sm_110'").
    (
        "ldmatrix",
        &["m8n16"],
        "8.6",
        "sm_100f+ | sm_110f+ | sm_120f+",
        "9.7.14.5.15",
    ),
    (
        "stmatrix",
        &["m16n8"],
        "8.6",
        "sm_100f+ | sm_110f+ | sm_120f+",
        "9.7.14.5.16",
    ),
    // wmma with .bf16, .tf32 and .f64 (and the tf32 shape .m16n16k8) needs sm_80 (9.7.14.4;
    // ptxas 13.5: "Feature '.bf16' requires .target sm_80 or higher", "Feature 'WMMA with
    // fp64 types' …", "Modifier '.m16n16k8' requires .target sm_80 or higher").
    ("wmma.load", &["bf16"], "7.0", "sm_80+", "9.7.14.4.3"),
    ("wmma.load", &["tf32"], "7.0", "sm_80+", "9.7.14.4.3"),
    ("wmma.load", &["f64"], "7.0", "sm_80+", "9.7.14.4.3"),
    ("wmma.load", &["m16n16k8"], "7.0", "sm_80+", "9.7.14.4.3"),
    ("wmma.store", &["f64"], "7.0", "sm_80+", "9.7.14.4.4"),
    ("wmma.store", &["m16n16k8"], "7.0", "sm_80+", "9.7.14.4.4"),
    ("wmma.mma", &["bf16"], "7.0", "sm_80+", "9.7.14.4.5"),
    ("wmma.mma", &["tf32"], "7.0", "sm_80+", "9.7.14.4.5"),
    ("wmma.mma", &["f64"], "7.0", "sm_80+", "9.7.14.4.5"),
    // Hopper additions that nvcc 13's ptxas names on sm_80 (inline-asm corpus,
    // tests/corpus/cuda: "Feature 'mbarrier.arrive.expect_tx' requires .target sm_90",
    // "Feature '.shared::cluster' …", "atom instruction with vector types" …).
    (
        "mbarrier.arrive",
        &["expect_tx"],
        "8.0",
        "sm_90+",
        "9.7.13.15.13",
    ),
    (
        "mbarrier.arrive",
        &["shared::cluster"],
        "8.0",
        "sm_90+",
        "9.7.13.15.13",
    ),
    (
        "mbarrier.arrive",
        &["cluster"],
        "8.0",
        "sm_90+",
        "9.7.13.15.13",
    ),
    // `arrive_drop` likewise ("Feature '.shared::cluster' requires .target sm_90 or higher").
    (
        "mbarrier.arrive_drop",
        &["shared::cluster"],
        "8.0",
        "sm_90+",
        "9.7.13.15.14",
    ),
    // `atom`/`red` vectors (sm_90, PTX 8.1) are `atomics`' rule.
    // FP8 mma ("mma with FP8 floating point type" requires sm_89).
    ("mma", &["e4m3"], "8.4", "sm_89+", "9.7.14.5.14"),
    ("mma", &["e5m2"], "8.4", "sm_89+", "9.7.14.5.14"),
];

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
    for &(rule_opcode, qualifiers, since, target, section) in QUALIFIER_RULES {
        if opcode != rule_opcode || !qualifiers.iter().all(|q| info.has(q)) {
            continue;
        }
        let requirement = Requirement::floor(since, target);
        let range = qualifiers
            .first()
            .and_then(|q| info.qualifier(q))
            .map_or(info.opcode_range(), |q| q.range());
        let mut subject = opcode.to_owned();
        for q in qualifiers {
            subject.push('.');
            subject.push_str(q);
        }
        for u in requirement.check(version, &targets) {
            ctx.report(describe(ctx, &subject, range.clone(), &u).section(section));
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
