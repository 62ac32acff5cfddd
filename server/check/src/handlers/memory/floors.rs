//! Version and target floors of the data-movement and synchronization features that ptxas
//! 13.5 enforces as written ([`FEATURE_FLOORS`]), checked once per opcode spelling.

use crate::context::{Ctx, InstInfo};

/// Version and target floors of qualifiers and operand forms, as ptxas 13.5 enforces them
/// (its messages: "Feature '.rs' not supported on .target 'sm_100'", "Modifier '.async'
/// requires .target sm_90 or higher", "Feature '::cluster' requires .target sm_90"):
/// (opcode words, qualifiers that must all be written, PTX version, targets, spec section).
/// The knowledge base keeps the spec's notes; these are the ones ptxas checks as written.
const FEATURE_FLOORS: &[(&str, &[&str], &str, &str, &str)] = &[
    // cvt (9.7.9.21): the stochastic-rounding forms are sm_100a/sm_103a only; the bf16,
    // tf32 and packed-half conversions need sm_80.
    ("cvt", &["rs"], "8.7", "sm_100a | sm_103a", "9.7.9.21"),
    ("cvt", &["bf16"], "7.0", "sm_80+", "9.7.9.21"),
    ("cvt", &["bf16x2"], "7.0", "sm_80+", "9.7.9.21"),
    ("cvt", &["tf32"], "7.0", "sm_80+", "9.7.9.21"),
    ("cvt", &["f16x2", "f32"], "7.0", "sm_80+", "9.7.9.21"),
    ("cvt", &["relu"], "7.0", "sm_80+", "9.7.9.21"),
    // The fp6/fp4 and ue8m0 pairs are Blackwell features of the `a`/`f` targets; `.s2f6x2`
    // (PTX 9.1) of the `a` targets only (ptxas 13.5 rejects sm_100f, sm_120f).
    (
        "cvt",
        &["e2m1x2"],
        "8.6",
        "sm_100f | sm_110f | sm_120f",
        "9.7.9.21",
    ),
    (
        "cvt",
        &["e2m3x2"],
        "8.6",
        "sm_100f | sm_110f | sm_120f",
        "9.7.9.21",
    ),
    (
        "cvt",
        &["e3m2x2"],
        "8.6",
        "sm_100f | sm_110f | sm_120f",
        "9.7.9.21",
    ),
    (
        "cvt",
        &["ue8m0x2"],
        "8.6",
        "sm_100f | sm_110f | sm_120f",
        "9.7.9.21",
    ),
    (
        "cvt",
        &["s2f6x2"],
        "9.1",
        "sm_100a | sm_103a | sm_110a | sm_120a | sm_121a",
        "9.7.9.21",
    ),
    // The fp8 pairs from `.bf16x2` (PTX 9.1; ptxas 13.5 rejects sm_90a, sm_100, sm_120).
    (
        "cvt",
        &["e4m3x2", "bf16x2"],
        "9.1",
        "sm_100f | sm_110f | sm_120f",
        "9.7.9.21",
    ),
    (
        "cvt",
        &["e5m2x2", "bf16x2"],
        "9.1",
        "sm_100f | sm_110f | sm_120f",
        "9.7.9.21",
    ),
    // The `.shared::cluster` window (9.7.9.19–20).
    ("cvta", &["shared::cluster"], "7.8", "sm_90+", "9.7.9.20"),
    (
        "isspacep",
        &["shared::cluster"],
        "7.8",
        "sm_90+",
        "9.7.9.19",
    ),
    // mbarrier (9.7.13.15): memory orders and scopes arrive with PTX 8.0 (`.relaxed` with 8.6);
    // `.relaxed` and the cluster scope need sm_90 (`.release.cta` and `.acquire.cta` assemble
    // for sm_80).
    ("mbarrier", &["release"], "8.0", "all", "9.7.13.15"),
    ("mbarrier", &["acquire"], "8.0", "all", "9.7.13.15"),
    ("mbarrier", &["relaxed"], "8.6", "sm_90+", "9.7.13.15"),
    ("mbarrier", &["cta"], "8.0", "all", "9.7.13.15"),
    ("mbarrier", &["cluster"], "8.0", "sm_90+", "9.7.13.15"),
    // Byte-masked bulk stores (9.7.9.25.4.1; "Feature '.cp_mask' requires .target sm_100 or
    // higher", "... requires PTX ISA .version 8.6").
    ("cp", &["bulk", "cp_mask"], "8.6", "sm_100+", "9.7.9.25.4.1"),
    // fence (9.7.13.4).
    ("fence", &["async"], "8.0", "sm_90+", "9.7.13.4"),
    // `.acquire`/`.release` and the restrictions are PTX 8.6, except on the proxy and
    // mbarrier_init fences (8.3, 8.0), whose own floors these are (see `feature_floors`).
    ("fence", &["acquire"], "8.6", "sm_90+", "9.7.13.4"),
    ("fence", &["release"], "8.6", "sm_90+", "9.7.13.4"),
    (
        "fence",
        &["sync_restrict::shared::cta"],
        "8.6",
        "sm_90+",
        "9.7.13.4",
    ),
    (
        "fence",
        &["sync_restrict::shared::cluster"],
        "8.6",
        "sm_90+",
        "9.7.13.4",
    ),
    ("fence", &["proxy"], "7.5", "sm_70+", "9.7.13.4"),
    ("fence", &["mbarrier_init"], "8.0", "sm_90+", "9.7.13.4"),
    (
        "fence",
        &["tensormap::generic"],
        "8.3",
        "sm_90+",
        "9.7.13.4",
    ),
    ("fence", &["async::generic"], "8.6", "sm_90+", "9.7.13.4"),
    ("membar", &["async"], "8.0", "sm_90+", "9.7.13.4"),
    // st.async to global memory (9.7.9.12).
    ("st", &["async", "mmio"], "8.7", "sm_100+", "9.7.9.12"),
    ("st", &["async", "release"], "8.7", "sm_100+", "9.7.9.12"),
    // Bulk tensor copies by CTA pairs (9.7.9.25.5.1) and the multicast cancel
    // (9.7.13.17): the `a`/`f` targets of the families that have them.
    (
        "cp",
        &["tensor", "cta_group::1"],
        "8.6",
        "sm_100f | sm_110f",
        "9.7.9.25.5.1",
    ),
    (
        "cp",
        &["tensor", "cta_group::2"],
        "8.6",
        "sm_100f | sm_110f",
        "9.7.9.25.5.1",
    ),
    // The gather4/scatter4 and `::w` im2col modes of bulk tensor copies and prefetches:
    // Blackwell datacenter `a`/`f` targets (ptxas 13.5 rejects sm_90a, sm_100 and sm_120*),
    // except a gather4 into `.shared::cta`, which every target from sm_100 on takes
    // (`…shared::cta.global.tile::gather4…` assembles for sm_100, sm_120a and sm_121f).
    (
        "cp",
        &["tensor", "tile::gather4", "shared::cluster"],
        "8.6",
        "sm_100f | sm_110f",
        "9.7.9.25.5.1",
    ),
    (
        "cp",
        &["tensor", "tile::gather4", "shared::cta"],
        "8.6",
        "sm_100+",
        "9.7.9.25.5.1",
    ),
    (
        "cp",
        &["prefetch", "tensor", "tile::gather4"],
        "8.6",
        "sm_100f | sm_110f",
        "9.7.9.25.5.1",
    ),
    (
        "cp",
        &["tensor", "tile::scatter4"],
        "8.6",
        "sm_100f | sm_110f",
        "9.7.9.25.5.1",
    ),
    (
        "cp",
        &["tensor", "im2col::w"],
        "8.6",
        "sm_100f | sm_110f",
        "9.7.9.25.5.1",
    ),
    (
        "cp",
        &["tensor", "im2col::w::128"],
        "8.6",
        "sm_100f | sm_110f",
        "9.7.9.25.5.1",
    ),
    (
        "clusterlaunchcontrol",
        &["multicast::cluster::all"],
        "8.6",
        "sm_100f | sm_110f | sm_120f",
        "9.7.13.17",
    ),
    // Prefetch sizes on cp.async (9.7.9.25.3.1), tensor-map and eviction prefetches (9.7.9.15).
    ("cp", &["async", "L2::64B"], "7.4", "sm_80+", "9.7.9.25.3.1"),
    (
        "cp",
        &["async", "L2::128B"],
        "7.4",
        "sm_80+",
        "9.7.9.25.3.1",
    ),
    (
        "cp",
        &["async", "L2::256B"],
        "7.4",
        "sm_80+",
        "9.7.9.25.3.1",
    ),
    ("prefetch", &["tensormap"], "8.0", "sm_90+", "9.7.9.15"),
    // The 256-byte L2 prefetch size of `ld` needs sm_80 (64B and 128B assemble for sm_75).
    ("ld", &["L2::256B"], "7.4", "sm_80+", "9.7.9.8"),
    ("membar", &["proxy"], "7.5", "sm_60+", "9.7.13.4"),
    // `ld.global.nc` (`ld.nc` here) takes the cache qualifiers of `ld` with the same floors
    // (ptxas: "Modifier '.evict_last' on 'ld' requires PTX ISA .version 7.4", "Modifier
    // '.L2::cache_hint' requires .target sm_80").
    ("ld.nc", &["L1::evict_normal"], "7.4", "sm_70+", "9.7.9.9"),
    (
        "ld.nc",
        &["L1::evict_unchanged"],
        "7.4",
        "sm_70+",
        "9.7.9.9",
    ),
    ("ld.nc", &["L1::evict_first"], "7.4", "sm_70+", "9.7.9.9"),
    ("ld.nc", &["L1::evict_last"], "7.4", "sm_70+", "9.7.9.9"),
    ("ld.nc", &["L1::no_allocate"], "7.4", "sm_70+", "9.7.9.9"),
    ("ld.nc", &["L2::64B"], "7.4", "sm_75+", "9.7.9.9"),
    ("ld.nc", &["L2::128B"], "7.4", "sm_75+", "9.7.9.9"),
    ("ld.nc", &["L2::cache_hint"], "7.4", "sm_80+", "9.7.9.9"),
    ("prefetch", &["L2::evict_last"], "7.4", "sm_80+", "9.7.9.15"),
    (
        "prefetch",
        &["L2::evict_normal"],
        "7.4",
        "sm_80+",
        "9.7.9.15",
    ),
];

/// Reads only the spelling, `.version` and `.target`: run once per spelling with the other
/// opcode rules (handlers/mod.rs).
pub(crate) fn feature_floors(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    use ptx_isa::{PtxVersion, Requirement};
    let version = ctx.version.unwrap_or(PtxVersion::new(99, 9));
    let owned: Vec<String> = ctx.targets.iter().map(|t| t.name.clone()).collect();
    let targets: Vec<&str> = owned.iter().map(String::as_str).collect();
    let mut rules: Vec<(String, ptx_syntax::TextRange, Requirement, &str)> = Vec::new();
    let nc = info.words[0] == "ld" && info.has("nc");
    for &(opcode, qualifiers, since, target, section) in FEATURE_FLOORS {
        let applies = info.words[0] == opcode || (nc && opcode == "ld.nc");
        if !applies || !qualifiers.iter().all(|q| info.has(q)) {
            continue;
        }
        // `mbarrier.expect_tx`/`complete_tx` came with PTX 8.0 and `.relaxed` with them.
        let since = if opcode == "mbarrier"
            && qualifiers == ["relaxed"]
            && matches!(
                info.words.get(1).copied(),
                Some("expect_tx" | "complete_tx")
            ) {
            "8.0"
        } else if opcode == "fence"
            && matches!(qualifiers, ["acquire"] | ["release"])
            && (info.has("proxy") || info.has("mbarrier_init"))
        {
            // `fence.proxy.tensormap::generic.release` (8.3), `fence.mbarrier_init.release` (8.0).
            "8.0"
        } else {
            since
        };
        let requirement = Requirement::floor(since, target);
        let range = qualifiers
            .last()
            .and_then(|q| info.qualifier(q))
            .map_or(info.opcode_range(), |q| q.range());
        let subject = format!("{opcode}.{}", qualifiers.join("."));
        rules.push((subject, range, requirement, section));
    }
    // `cvt` between `.bf16` and a type other than `.f32` (integers, `.f16`, `.f64`, `.bf16`
    // itself) needs sm_90 and PTX 7.8 ("Feature 'cvt with .bf16.u32' requires .target sm_90").
    let n = info.words.len();
    if info.words[0] == "cvt" && n >= 3 {
        let (d, a) = (info.words[n - 2], info.words[n - 1]);
        let fundamental = |t: &str| {
            matches!(
                t,
                "u8" | "u16"
                    | "u32"
                    | "u64"
                    | "s8"
                    | "s16"
                    | "s32"
                    | "s64"
                    | "f16"
                    | "f64"
                    | "bf16"
            )
        };
        if (d == "bf16" && fundamental(a)) || (a == "bf16" && fundamental(d)) {
            rules.push((
                format!("cvt.{d}.{a}"),
                info.opcode_range(),
                Requirement::floor("7.8", "sm_90+"),
                "9.7.9.21",
            ));
        }
    }
    // The fp6/fp4 pairs converted from `.f16x2`/`.bf16x2` are PTX 9.1 ("Feature
    // 'cvt.e2m3x2.f16x2' requires PTX ISA .version 9.1"); the other direction is older.
    if info.words[0] == "cvt" && n >= 3 {
        let (d, a) = (info.words[n - 2], info.words[n - 1]);
        if matches!(d, "e2m1x2" | "e2m3x2" | "e3m2x2") && matches!(a, "f16x2" | "bf16x2") {
            rules.push((
                format!("cvt.{d}.{a}"),
                info.opcode_range(),
                Requirement::floor("9.1", "sm_100f | sm_110f | sm_120f"),
                "9.7.9.21",
            ));
        }
    }
    // `mbarrier.arrive{_drop} state, [addr], count` (an arrival count) without `.noComplete`
    // needs sm_90.
    if info.words[0] == "mbarrier"
        && matches!(info.words.get(1).copied(), Some("arrive" | "arrive_drop"))
        && !info.has("expect_tx")
        && !info.has("noComplete")
        && info.operands.len() == 3
    {
        rules.push((
            format!("{} with an arrival count", info.words[..2].join(".")),
            info.opcode_range(),
            Requirement::floor("7.8", "sm_90+"),
            "9.7.13.15.13",
        ));
    }
    // 256-bit `ld.global.nc` (`.v8` of a 32-bit type, `.v4` of a 64-bit one) needs sm_100 and
    // PTX 8.8, as plain `ld` does ("Feature '256 bit wide load/store' requires .target sm_100").
    if info.words[0] == "ld" && info.has("nc") {
        let bits = info
            .words
            .last()
            .and_then(|t| t.get(1..))
            .and_then(|d| d.parse::<u32>().ok());
        let wide = matches!(
            (info.has("v8"), info.has("v4"), bits),
            (true, _, Some(32)) | (_, true, Some(64))
        );
        if wide {
            rules.push((
                "256-bit ld.global.nc".to_owned(),
                info.opcode_range(),
                Requirement::floor("8.8", "sm_100+"),
                "9.7.9.9",
            ));
        }
    }
    for (subject, range, requirement, section) in rules {
        for unmet in requirement.check(version, &targets) {
            let d = crate::handlers::availability::describe(ctx, &subject, range.clone(), &unmet);
            ctx.report(d.section(section));
        }
    }
}
