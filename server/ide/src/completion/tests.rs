//! Completion fixtures: `$0` marks the cursor.

use expect_test::{expect, Expect};
use ptx_syntax::Parse;

use super::{complete, CompletionConfig, CompletionKind};

fn items(fixture: &str, config: &CompletionConfig) -> Vec<super::CompletionItem> {
    let offset = fixture.find("$0").expect("fixture has $0");
    let text = fixture.replace("$0", "");
    complete(&Parse::new(text), offset, config)
}

/// Labels of the items of `kind`, in sort order.
fn labels(fixture: &str, kind: CompletionKind, config: &CompletionConfig) -> String {
    let mut items = items(fixture, config);
    items.sort_by(|a, b| (&a.sort_text, &a.label).cmp(&(&b.sort_text, &b.label)));
    items
        .iter()
        .filter(|i| i.kind == kind)
        .map(|i| i.label.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

fn check(fixture: &str, kind: CompletionKind, expect: Expect) {
    expect.assert_eq(&labels(fixture, kind, &CompletionConfig::default()));
}

const HEAD: &str =
    ".version 8.6\n.target sm_100a\n.entry k()\n{\n  .reg .b32 %r<3>;\n  .reg .pred %p;\n";

#[test]
fn qualifiers_after_ld_follow_the_written_ones_in_order() {
    check(&format!("{HEAD}  ld.$0"), CompletionKind::Qualifier, expect!["weak ca cg cs lu cv L2::cache_hint L2::64B L2::128B L2::256B L1::evict_normal L1::evict_unchanged L1::evict_first L1::evict_last L1::no_allocate relaxed acquire mmio L2::evict_normal L2::evict_first L2::evict_last volatile"]);
    check(&format!("{HEAD}  ld.global.$0"), CompletionKind::Qualifier, expect!["ca cg cs lu cv L2::cache_hint L2::64B L2::128B L2::256B L1::evict_normal L1::evict_unchanged L1::evict_first L1::evict_last L1::no_allocate L2::evict_normal L2::evict_first L2::evict_last"]);
    check(
        &format!("{HEAD}  ld.global.v4.$0\n  ret;\n}}"),
        CompletionKind::Type,
        expect!["b8 b16 b32 b128 u8 u16 u32 u64 s8 s16 s32 s64 f32 f64 b64"],
    );
    check(
        &format!("{HEAD}  ld.glo$0"),
        CompletionKind::StateSpace,
        expect!["global"],
    );
}

#[test]
fn qualifiers_have_descriptions_and_requirements() {
    let all = items(
        &format!("{HEAD}  tcgen05.ld.sync.aligned.16x64b.x2.$0"),
        &CompletionConfig::default(),
    );
    let pack = all
        .iter()
        .find(|i| i.label == "pack::16b")
        .expect("pack offered");
    expect![[r#"
        CompletionItem {
            label: "pack::16b",
            kind: Qualifier,
            detail: Some(
                "PTX 8.6+ · sm_100a/sm_110a/sm_100f/sm_110f",
            ),
            documentation: Some(
                "Pack two adjacent 16-bit elements of tensor memory into each 32-bit destination register (halves the register count per column pair).",
            ),
            insert_text: "pack::16b",
            is_snippet: false,
            replace_range: 114..114,
            sort_text: "00000",
        }
    "#]].assert_debug_eq(pack);
}

#[test]
fn forms_the_target_lacks_are_marked_and_last() {
    let sm80 = ".version 8.6\n.target sm_80\n.entry k()\n{\n  $0\n}\n";
    let sm100a = ".version 8.6\n.target sm_100a\n.entry k()\n{\n  $0\n}\n";
    let opcode = |src: &str, label: &str, config: &CompletionConfig| {
        items(src, config)
            .into_iter()
            .find(|i| i.label == label && i.kind == CompletionKind::Opcode)
            .unwrap_or_else(|| panic!("{label} is listed"))
    };
    let default = CompletionConfig::default();
    let on80 = opcode(sm80, "tcgen05", &default);
    expect![[r#"(Some("needs sm_100a/sm_110a/sm_100f/sm_110f"), "05000")"#]]
        .assert_eq(&format!("{:?}", (on80.detail, on80.sort_text)));
    let on100 = opcode(sm100a, "tcgen05", &default);
    assert_eq!(on100.sort_text, "00100");
    assert!(!on100.detail.unwrap().starts_with("needs"));
    assert_eq!(opcode(sm80, "mma", &default).sort_text, "00100");
    // Inside `tcgen05.` every component is listed on sm_80 too, each with what it needs.
    let render = |src: &str, config: &CompletionConfig| {
        let mut all = items(src, config);
        all.sort_by(|a, b| (&a.sort_text, &a.label).cmp(&(&b.sort_text, &b.label)));
        all.iter()
            .map(|i| format!("{} ({})", i.label, i.detail.as_deref().unwrap_or("")))
            .collect::<Vec<_>>()
            .join("\n")
    };
    expect!["alloc (needs sm_100a/sm_110a/sm_100f/sm_110f)"]
        .assert_eq(&render(&sm80.replace("$0", "tcgen05.a$0"), &default));
    expect!["alloc (PTX 8.6+ · sm_100a/sm_110a/sm_100f/sm_110f)"]
        .assert_eq(&render(&sm100a.replace("$0", "tcgen05.a$0"), &default));
    // A configured target counts as the file's.
    let overridden = CompletionConfig {
        target_override: Some("sm_100a".into()),
        version_override: None,
    };
    assert_eq!(opcode(sm80, "tcgen05", &overridden).sort_text, "00100");
    let old = CompletionConfig {
        target_override: None,
        version_override: Some("8.0".into()),
    };
    expect![[r#"Some("needs PTX 8.6")"#]]
        .assert_eq(&format!("{:?}", opcode(sm100a, "tcgen05", &old).detail));
}

/// After `ld.global.` the edit replaces only what is typed after the last dot, and the label
/// is that word, so a client that inserts the label (Eglot) never writes `ld.global..`.
#[test]
fn qualifier_edits_replace_only_the_typed_word() {
    let src = format!("{HEAD}  ld.global.L2$0");
    let offset = src.find("$0").unwrap();
    let all = items(&src, &CompletionConfig::default());
    let hint = all
        .iter()
        .find(|i| i.label == "L2::cache_hint")
        .expect("offered");
    assert_eq!(hint.replace_range, offset - 2..offset);
    assert_eq!(hint.insert_text, "L2::cache_hint");
    let kinds = |src: &str| -> String {
        let mut all = items(src, &CompletionConfig::default());
        all.sort_by(|a, b| a.label.cmp(&b.label));
        all.iter()
            .filter(|i| {
                ["global", "u32", "v4", "L2::cache_hint", "relaxed"].contains(&i.label.as_str())
            })
            .map(|i| format!("{} {:?}", i.label, i.kind))
            .collect::<Vec<_>>()
            .join(", ")
    };
    expect!["L2::cache_hint Qualifier, global StateSpace, relaxed Qualifier, u32 Type, v4 Type"]
        .assert_eq(&kinds(&format!("{HEAD}  ld.$0")));
}

#[test]
fn opcodes_and_keywords_at_statement_start() {
    check(
        &format!("{HEAD}  mb$0"),
        CompletionKind::Opcode,
        expect!["mbarrier"],
    );
    check(
        &format!("{HEAD}  .$0"),
        CompletionKind::StateSpace,
        expect![".reg .local .shared .param .pragma .loc"],
    );
    check(
        ".version 8.6\n.target sm_90\n.ma$0",
        CompletionKind::Directive,
        expect![".maxnreg .maxntid .maxnctapersm .maxclusterrank"],
    );
}

#[test]
fn snippets_size_register_vectors() {
    let all = items(&format!("{HEAD}  tcgen0$0"), &CompletionConfig::default());
    let snippets: Vec<String> = all
        .iter()
        .filter(|i| i.kind == CompletionKind::Snippet)
        .map(|i| format!("{} => {}", i.label, i.insert_text))
        .collect();
    expect![[r#"
        [
            "tcgen05.alloc.cta_group::1.sync.aligned.b32 … => tcgen05.alloc.cta_group::1.sync.aligned.b32 [${1:dst}], ${2:nCols};",
            "tcgen05.dealloc.cta_group::1.sync.aligned.b32 … => tcgen05.dealloc.cta_group::1.sync.aligned.b32 ${1:taddr}, ${2:nCols};",
            "tcgen05.ld.sync.aligned.16x64b.x1.b32 … => tcgen05.ld.sync.aligned.16x64b.x1.b32 {${1:r0}}, [${2:taddr}];",
            "tcgen05.st.sync.aligned.16x64b.x1.b32 … => tcgen05.st.sync.aligned.16x64b.x1.b32 [${1:taddr}], {${2:r0}};",
            "tcgen05.cp.cta_group::1.128x256b … => tcgen05.cp.cta_group::1.128x256b [${1:taddr}], ${2:s-desc};",
            "tcgen05.shift.cta_group::1.down … => tcgen05.shift.cta_group::1.down [${1:taddr}];",
            "tcgen05.mma.cta_group::1.kind::f16 … => tcgen05.mma.cta_group::1.kind::f16 [${1:d-tmem}], ${2:a-desc}, ${3:b-desc}, ${4:idesc}, {${5:disable-output-lane}}, ${6:enable-input-d};",
            "tcgen05.mma.sp.cta_group::1.kind::f16 … => tcgen05.mma.sp.cta_group::1.kind::f16 [${1:d-tmem}], ${2:a-desc}, ${3:b-desc}, [${4:sp-meta-tmem}], ${5:idesc}, {${6:disable-output-lane}}, ${7:enable-input-d};",
            "tcgen05.mma.ws.cta_group::1.kind::f16 … => tcgen05.mma.ws.cta_group::1.kind::f16 [${1:d-tmem}], ${2:a-desc}, ${3:b-desc}, ${4:idesc}, ${5:enable-input-d};",
            "tcgen05.mma.ws.sp.cta_group::1.kind::f16 … => tcgen05.mma.ws.sp.cta_group::1.kind::f16 [${1:d-tmem}], ${2:a-desc}, ${3:b-desc}, [${4:sp-meta-tmem}], ${5:idesc}, ${6:enable-input-d};",
            "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 … => tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [${1:mbar}];",
        ]
    "#]].assert_debug_eq(&snippets);
}

#[test]
fn operands_offer_registers_labels_and_special_registers() {
    let src = format!("{HEAD}LOOP:\n  add.s32 %r0, %$0\n}}\n.func f()\n{{\n  ret;\n}}\n");
    check(&src, CompletionKind::Register, expect!["%p %r0 %r1 %r2"]);
    let tid: Vec<String> = items(&src, &CompletionConfig::default())
        .into_iter()
        .filter(|i| i.kind == CompletionKind::SpecialRegister && i.label.starts_with("%tid"))
        .map(|i| i.label)
        .collect();
    expect![[r#"
        [
            "%tid.x",
            "%tid.y",
            "%tid.z",
        ]
    "#]]
    .assert_debug_eq(&tid);
    let bra = format!("{HEAD}LOOP:\n  @%p bra $0\n}}\n");
    check(&bra, CompletionKind::Label, expect!["LOOP"]);
    let call = format!("{HEAD}  call f$0\n}}\n.func f()\n{{\n  ret;\n}}\n");
    check(&call, CompletionKind::Function, expect!["f"]);
}

#[test]
fn declarations_and_directive_arguments() {
    check(
        &format!("{HEAD}  .reg .b$0"),
        CompletionKind::Type,
        expect![".b8 .b16 .b32 .b64 .b128"],
    );
    check(
        ".version 8.6\n.target sm_10$0",
        CompletionKind::Target,
        expect!["sm_10 sm_100 sm_100a sm_100f sm_101 sm_101a sm_101f sm_103 sm_103a sm_103f"],
    );
    check(
        ".version 8.6\n.target sm_90\n.address_size $0",
        CompletionKind::Value,
        expect!["64 32"],
    );
}

#[test]
fn nothing_in_comments() {
    assert!(items(&format!("{HEAD}  // ld.$0\n"), &CompletionConfig::default()).is_empty());
}
