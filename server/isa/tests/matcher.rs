//! Matcher, requirements and completion, checked on representative instructions.

use expect_test::{expect, Expect};
use ptx_isa::{Isa, MatchError, PtxVersion};

fn show(tokens: &[&str]) -> String {
    let out = Isa::get().match_qualifiers(tokens);
    if let Some(m) = out.matches.first() {
        let r = &m.requirement;
        format!(
            "{} [{}] since {} targets {}",
            m.instruction.opcode, m.form.syntax, r.since, r.targets
        )
    } else {
        format!("{:?}", out.errors)
    }
}

fn check(tokens: &[&str], expect: Expect) {
    expect.assert_eq(&show(tokens));
}

#[test]
fn matches_and_requirements() {
    check(
        &["ld", "global", "v4", "f32"],
        expect![[
            r#"ld [ld{.weak}{.ss}{.cop}{.level::cache_hint}{.level::prefetch_size}{.vec}.type d, [a]{.unified}{, cache-policy};] since 1.0 targets all"#
        ]],
    );
    check(
        &["tcgen05", "ld", "sync", "aligned", "16x128b", "x4", "b32"],
        expect!["tcgen05.ld [tcgen05.ld.sync.aligned.shape128.num64{.pack}.b32 r, [taddr];] since 8.6 targets sm_100a | sm_101a | sm_110a | sm_100f+ | sm_101f+ | sm_110f+"],
    );
    check(
        &[
            "tcgen05", "ld", "red", "sync", "aligned", "32x32b", "x2", "min", "u32",
        ],
        expect![[
            r#"tcgen05.ld [tcgen05.ld.red.sync.aligned.shape3.num.redOp.type r, redval, [taddr];] since 8.8 targets sm_100a | sm_101a | sm_110a | sm_100f+ | sm_101f+ | sm_110f+ & sm_101a | sm_110a | sm_101f+ | sm_110f+ | sm_103f+"#
        ]],
    );
    check(
        &["add", "u16x2"],
        expect![[r#"add [add.type d, a, b;] since 8.0 targets sm_90+"#]],
    );
    check(
        &["wgmma", "fence", "sync", "aligned"],
        expect!["wgmma.fence [wgmma.fence.sync{.aligned};] since 8.0 targets sm_90a"],
    );
}

#[test]
fn target_semantics_on_real_entries() {
    let isa = Isa::get();
    let m = isa.match_qualifiers(&[
        "tcgen05", "ld", "red", "sync", "aligned", "32x32b", "x2", "min", "u32",
    ]);
    let req = &m.matches[0].requirement;
    let v = PtxVersion::new(8, 8);
    assert!(req.check(v, &["sm_103a"]).is_empty());
    assert!(!req.check(v, &["sm_100a"]).is_empty());
    assert!(!req.check(PtxVersion::new(8, 6), &["sm_103a"]).is_empty());
    let wg = isa.instruction("wgmma.fence").unwrap();
    assert!(wg.targets().satisfied_by("sm_90a"));
    assert!(!wg.targets().satisfied_by("sm_90"));
    assert!(!wg.targets().satisfied_by("sm_100a"));
}

#[test]
fn failures_are_structured() {
    check(
        &["ld", "global", "v4"],
        expect![[
            r#"[MissingRequired { index: 3, slot: ".type", allowed: ["b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f32", "f64"] }]"#
        ]],
    );
    check(
        &["ld", "global", "shared", "f32"],
        expect![[
            r#"[MutuallyExclusive { index: 2, qualifier: "shared", other_index: 1, slot: ".ss" }]"#
        ]],
    );
    check(
        &["ld", "v4", "global", "f32"],
        expect![[r#"[OutOfOrder { index: 2, qualifier: "global", before_index: 1 }]"#]],
    );
    check(
        &["ld", "bogus", "f32"],
        expect![[
            r#"[UnknownQualifier { index: 1, qualifier: "bogus", expected: ["b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f32", "f64"] }]"#
        ]],
    );
    let out = Isa::get().match_qualifiers(&["frobnicate"]);
    assert_eq!(
        out.errors,
        [MatchError::UnknownOpcode {
            root: "frobnicate".into()
        }]
    );
}

#[test]
fn completion_lists_next_qualifiers() {
    let isa = Isa::get();
    let next: Vec<String> = isa
        .next_qualifiers(&["tcgen05"])
        .into_iter()
        .map(|(q, _)| q)
        .collect();
    for q in [
        "alloc",
        "dealloc",
        "ld",
        "st",
        "wait::ld",
        "cp",
        "shift",
        "mma",
        "commit",
        "fence::before_thread_sync",
    ] {
        assert!(next.contains(&q.to_string()), "{q} missing from {next:?}");
    }
    let next = isa.next_qualifiers(&["tcgen05", "ld", "sync", "aligned"]);
    let names: Vec<&str> = next.iter().map(|(q, _)| q.as_str()).collect();
    expect![[r#"["16x64b", "32x32b", "16x128b", "16x256b", "16x32bx2"]"#]]
        .assert_eq(&format!("{names:?}"));
    let red = isa.next_qualifiers(&["tcgen05", "ld"]);
    let (_, req) = red.iter().find(|(q, _)| q == "red").unwrap();
    assert_eq!(req.since, PtxVersion::new(8, 8));
}

#[test]
fn lookups() {
    let isa = Isa::get();
    assert_eq!(isa.instructions_named("add").count(), 4);
    assert!(isa.instructions_with_prefix("cp.async.bulk").count() >= 5);
    assert_eq!(
        isa.instruction_for("tcgen05.ld.sync.aligned.32x32b.x2.b32")
            .unwrap()
            .opcode,
        "tcgen05.ld"
    );
    let tid = isa.special_register("%tid.x").unwrap();
    assert_eq!(tid.name, "%tid");
    assert_eq!(tid.requirement.since, PtxVersion::new(1, 0));
    let cl = isa.special_register("%clusterid").unwrap();
    assert!(cl.requirement.targets.satisfied_by("sm_90"));
    assert!(!cl.requirement.targets.satisfied_by("sm_80"));
    let d = isa.directive(".maxnreg").unwrap();
    assert_eq!(d.requirement.since, PtxVersion::new(1, 3));
    let t = isa.target("sm_101a").unwrap();
    assert_eq!(t.renamed_to.as_ref().unwrap().0, "sm_110a");
    assert_eq!(t.family().as_deref(), Some("sm_11x"));
}
