//! Hover snapshots over fixtures with a `$0` cursor, without and with an imported spec index.
//!
//! With an index, only the structure is asserted (a rule, the imported section's heading and
//! link), so that no text of the PTX ISA document ends up in this repository.

use std::path::PathBuf;

use expect_test::{expect, Expect};
use ptx_syntax::Parse;

use super::{hover, HoverConfig, HoverKind, HoverResult};

const SRC: &str = r#".version 8.6
.target sm_100a
.address_size 64
.global .align 16 .b8 table[256];
.func (.reg .b32 rv) helper(.reg .b32 x)
{
  mov.b32 rv, x;
  ret;
}
.visible .entry k(.param .u64 out)
.maxntid 128, 1, 1
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  .reg .pred %p;
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [out];
  ld.global.L2::cache_hint.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1], %rd2;
  tcgen05.ld.sync.aligned.16x32bx2.x2.pack::16b.b32 {%r5, %r6}, [%r7], 8;
  cvt.rn.f32.s32 %r8, %r9;
  mov.u32 %r10, %ctaid.y;
LOOP:
  @%p bra LOOP;
  call (%r11), helper, (%r12);
  add .s32 %r13, %r14, 1;
  ret;
}
"#;

/// The hover at the `n`-th occurrence of `needle` (plus `shift` bytes) in [`SRC`].
fn at(needle: &str, shift: usize, config: &HoverConfig<'_>) -> Option<HoverResult> {
    let offset = SRC
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} not in SRC"))
        + shift;
    hover(&Parse::new(SRC), offset, config)
}

fn check(needle: &str, shift: usize, expect: Expect) {
    let rendered = match at(needle, shift, &HoverConfig::default()) {
        Some(h) => format!("{:?} {:?}\n{}", h.kind, &SRC[h.range.clone()], h.markdown),
        None => "none".to_string(),
    };
    expect.assert_eq(&rendered);
}

/// Only the first `n` lines, for hovers whose whole text another snapshot already shows.
fn check_head(needle: &str, shift: usize, n: usize, expect: Expect) {
    let h = at(needle, shift, &HoverConfig::default()).expect("a hover");
    let head: Vec<&str> = h.markdown.lines().take(n).collect();
    expect.assert_eq(&format!(
        "{:?} {:?}\n{}",
        h.kind,
        &SRC[h.range.clone()],
        head.join("\n")
    ));
}

#[test]
fn opcode() {
    check(
        "ld.global",
        1,
        expect![[r#"
            Opcode "ld"
            ```ptx
            ld.global.L2::cache_hint.v4.u32
            ```

            **ld** — Loads a scalar or a vector (`.v2`, `.v4`, `.v8`) from memory into registers. The state space (`.global`, `.shared`, `.local`, `.param`, `.const`) may be omitted for generic addressing. Memory-model qualifiers (`.relaxed`/`.acquire` with a scope, `.volatile`, `.mmio`) order the load relative to other threads, and cache qualifiers tune how the line is kept in L1/L2.

            **Availability**: this form needs sm_80 or newer and PTX 7.4

            ✓ available on this target (`.target sm_100a`)

            **Registers**

            - operand 1 (`d`): 4 × 32-bit — .v4 = 4 registers of 32 bits, one per .u32 element

            **Syntax**

            ```ptx
            ld{.weak}{.ss}{.cop}{.level::cache_hint}{.level::prefetch_size}{.vec}.type d, [a]{.unified}{, cache-policy};
            ld{.weak}{.ss}{.level1::eviction_priority}{.level2::eviction_priority}{.level::cache_hint}{.level::prefetch_size}{.vec}.type d, [a]{.unified}{, cache-policy};
            ld.volatile{.ss}{.level::prefetch_size}{.vec}.type d, [a];
            ld.relaxed.scope{.ss}{.level1::eviction_priority}{.level2::eviction_priority}{.level::cache_hint}{.level::prefetch_size}{.vec}.type d, [a]{, cache-policy};
            ld.acquire.scope{.ss}{.level1::eviction_priority}{.level2::eviction_priority}{.level::cache_hint}{.level::prefetch_size}{.vec}.type d, [a]{, cache-policy};
            ld.mmio.relaxed.sys{.global}.type d, [a];
            ld{.weak}{.ss}{.cop}.level2::eviction_priority{.level::cache_hint}{.level::prefetch_size}{.vec}.type d, [a]{.unified}{, cache-policy};
            ```

            **Qualifiers**

            ```ptx
            .ss = { .const, .global, .local, .param, .param::entry, .param::func, .shared, .shared::cta, .shared::cluster }
            .cop = { .ca, .cg, .cs, .lu, .cv }
            .level::cache_hint = { .L2::cache_hint }
            .level::prefetch_size = { .L2::64B, .L2::128B, .L2::256B }
            .vec = { .v2, .v4, .v8 }
            .type = { .b8, .b16, .b32, .b64, .b128, .u8, .u16, .u32, .u64, .s8, .s16, .s32, .s64, .f32, .f64 }
            ```

            **Example**

            ```ptx
            ld.global.f32 %f1, [%rd1];
            ld.shared.v4.b32 {%r1, %r2, %r3, %r4}, [%r5+16];
            ```

            [PTX ISA §9.7.9.8 ld](https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-ld)
        "#]],
    );
}

#[test]
fn qualifiers() {
    check(
        ".pack::16b",
        2,
        expect![[r#"
            Qualifier ".pack::16b"
            `.pack::16b` on `tcgen05.ld`

            Pack two adjacent 16-bit elements of tensor memory into each 32-bit destination register (halves the register count per column pair).

            One of `.pack = { .pack::16b }` (optional).

            **Availability**: this form needs sm_100a, sm_100f, sm_103a, sm_103f, sm_110a or sm_110f and PTX 8.6

            ✓ available on this target (`.target sm_100a`)

            **Registers**

            - operand 1 (`r`): 2 × 32-bit — 16x32bx2 = 1 register per repeat (two 16x32b halves) × x2 = 2; .pack::16b packs two 16-bit values per register without changing the count

            [PTX ISA §9.7.16.8.3 tcgen05.ld](https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instructions-tcgen05-ld)
        "#]],
    );
    check_head(
        ".L2::cache_hint",
        1,
        3,
        expect![[r#"
        Qualifier ".L2::cache_hint"
        `.L2::cache_hint` on `ld`

        Attach a 64-bit cache policy (made by `createpolicy`) given as the last operand."#]],
    );
    check_head(
        "cvt.rn",
        4,
        3,
        expect![[r#"
        Qualifier ".rn"
        `.rn` on `cvt`

        Round to nearest even when the result cannot hold the exact value."#]],
    );
    check_head(
        ".16x32bx2",
        1,
        5,
        expect![[r#"
        Qualifier ".16x32bx2"
        `.16x32bx2` on `tcgen05.ld`

        Two accesses of 16 lanes x 32 bits each; the second starts `immHalfSplitoff` columns after the first.

        One of `.shape2 = { .16x32bx2 }`."#]],
    );
}

#[test]
fn opcode_component_names_the_instruction() {
    check_head(
        "tcgen05.ld",
        8,
        5,
        expect![[r#"
        Opcode ".ld"
        ```ptx
        tcgen05.ld.sync.aligned.16x32bx2.x2.pack::16b.b32
        ```

        **tcgen05.ld** — Warp-collective load from tensor memory into registers. The shape (`.16x64b`, `.16x128b`, `.16x256b`, `.32x32b`, `.16x32bx2`) says which lanes and bits of tensor memory each access covers, and `.num` (`.x1` ... `.x128`) how often it repeats along the columns; together they fix how many 32-bit registers the destination vector needs. The `.red` variant also reduces the loaded values (min or max) into `redval`."#]],
    );
}

#[test]
fn registers_and_special_registers() {
    check(
        "%r9;",
        1,
        expect![[r#"
        Register "%r9"
        ```ptx
        .reg .b32 %r<16>
        ```

        `%r9` — register in `.reg` of type `.b32`, one of 16 numbered registers

        Declared on line 13.
    "#]],
    );
    check(
        "%ctaid.y",
        3,
        expect![[r#"
            SpecialRegister "%ctaid.y"
            ```ptx
            .sreg .u32 %ctaid.y;
            ```

            **%ctaid.y** — special register. The index of this CTA within the grid, per dimension.

            **Requires** PTX ISA 1.0+ · targets: any target

            ✓ supported on `.target sm_100a`

            [PTX ISA §10.6 %ctaid](https://docs.nvidia.com/cuda/parallel-thread-execution/#special-registers-ctaid)
        "#]],
    );
    check_head(
        "@%p",
        2,
        4,
        expect![[r#"
        Register "%p"
        ```ptx
        .reg .pred %p
        ```
    "#]],
    );
}

#[test]
fn directives_types_and_spaces() {
    check_head(
        ".maxntid",
        2,
        3,
        expect![[r#"
        Directive ".maxntid"
        **.maxntid** — directive. Declares the largest CTA size (threads per dimension) the kernel will be launched with, so registers can be budgeted for it.

        **Syntax**"#]],
    );
    check_head(
        ".shared .align",
        2,
        3,
        expect![[r#"
        StateSpace ".shared"
        **.shared** — state space. Shared memory: fast on-chip memory owned by a CTA and visible to its threads (and, with `::cluster`, to other CTAs of the cluster).

        Sub-qualified forms: .shared::cta, .shared::cluster"#]],
    );
    check_head(
        ".b64 bar",
        2,
        3,
        expect![[r#"
        Type ".b64"
        **.b64** — type. Untyped 64 bits.

        64 bits"#]],
    );
    check_head(
        "sm_100a",
        2,
        3,
        expect![[r#"
        Target "sm_100a"
        **sm_100a** — target architecture

        Introduced in PTX ISA 8.6"#]],
    );
}

#[test]
fn labels_variables_and_functions() {
    check(
        "LOOP;",
        1,
        expect![[r#"
        Label "LOOP"
        `LOOP` — label, defined on line 22; 1 reference.
    "#]],
    );
    check(
        "bar;",
        1,
        expect![[r#"
        Variable "bar"
        ```ptx
        .shared .align 8 .b64 bar
        ```

        `bar` — variable in `.shared` of type `.b64`, aligned to 8 bytes

        Declared on line 16.
    "#]],
    );
    check(
        "[out]",
        2,
        expect![[r#"
        Variable "out"
        ```ptx
        .param .u64 out
        ```

        `out` — parameter in `.param` of type `.u64`

        Declared on line 10.
    "#]],
    );
    check(
        "helper, (",
        2,
        expect![[r#"
        Function "helper"
        ```ptx
        .func (.reg .b32 rv) helper(.reg .b32 x)
        ```

        device function (`.func`)
    "#]],
    );
    check(
        "table",
        1,
        expect![[r#"
        Variable "table"
        ```ptx
        .global .align 16 .b8 table[256]
        ```

        `table` — variable in `.global` of type `.b8`, aligned to 16 bytes, array [256]

        Declared on line 4.
    "#]],
    );
}

#[test]
fn nothing_on_blank_space_or_punctuation() {
    assert_eq!(
        at("\n{\n  .reg .b32 %r<16>", 1, &HoverConfig::default()),
        None
    );
}

#[test]
fn override_target_marks_unsupported() {
    let config = HoverConfig {
        target_override: Some("sm_90a"),
        ..HoverConfig::default()
    };
    let h = at("tcgen05.ld", 1, &config).unwrap();
    assert!(
        h.markdown.contains("✗ not available on `.target sm_90a`"),
        "{}",
        h.markdown
    );
    let h = at("tcgen05.ld", 1, &HoverConfig::default()).unwrap();
    assert!(
        h.markdown
            .contains("✓ available on this target (`.target sm_100a`)"),
        "{}",
        h.markdown
    );
}

#[test]
fn broken_code_still_hovers() {
    let src = ".version 8.6\n.target sm_100a\n.entry k()\n{\n  .reg .b32 %r<4>;\n  ld.global.f32 %r1, [\n  tcgen05.ld.sync\n  add.s32 %r1, %r2\n}\n";
    let parse = Parse::new(src);
    let h = hover(&parse, src.find("add").unwrap(), &HoverConfig::default());
    assert_eq!(h.map(|h| h.kind), Some(HoverKind::Opcode));
    let h = hover(
        &parse,
        src.find("%r2").unwrap() + 1,
        &HoverConfig::default(),
    )
    .unwrap();
    assert_eq!(h.kind, HoverKind::Register);
}

/// The spec index built from the sections written for `ptx-docs`'s tests in the document's
/// markdown exports (`server/docs/tests/fixtures/export`), in memory.
fn seed_index() -> ptx_docs::SpecIndex {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/tests/fixtures/export");
    ptx_docs::parse_input(&dir)
        .expect("the fixture sections import")
        .0
}

/// The part of a hover that came from the index: after the rule.
fn imported(h: &HoverResult) -> &str {
    let (ours, spec) = h
        .markdown
        .split_once("\n\n---\n\n")
        .unwrap_or_else(|| panic!("no imported part in:\n{}", h.markdown));
    assert!(ours.contains("[PTX ISA §"), "our part keeps its link");
    spec
}

#[test]
fn with_an_imported_index_the_spec_text_follows() {
    let index = seed_index();
    let config = HoverConfig {
        spec: Some(&index),
        target_unknown: false,
        ..HoverConfig::default()
    };
    // The opcode: the section's heading, its text, and its link.
    let h = at("tcgen05.ld", 1, &config).unwrap();
    let spec = imported(&h);
    assert!(spec.starts_with("*From your copy of the PTX ISA"), "{spec}");
    assert!(spec.contains("**9.7.16.8.3** "), "{spec}");
    assert!(spec.trim_end().ends_with(")"), "{spec}");
    assert!(spec.contains("[PTX ISA §9.7.16.8.3 "), "{spec}");
    // Our own part is unchanged by the index.
    let plain = at("tcgen05.ld", 1, &HoverConfig::default()).unwrap();
    assert!(h.markdown.starts_with(&plain.markdown));

    // A qualifier: the sentences that mention it, headed by the qualifier.
    for (needle, shift, q) in [
        (".pack::16b", 2, ".pack::16b"),
        (".16x32bx2", 1, ".16x32bx2"),
    ] {
        let h = at(needle, shift, &config).unwrap();
        assert_eq!(h.kind, HoverKind::Qualifier);
        let spec = imported(&h);
        assert!(spec.contains(&format!("**`tcgen05.ld`** `{q}`")), "{spec}");
        assert!(
            spec.lines().any(|l| l.starts_with("- ")),
            "{q}: no sentence in {spec}"
        );
    }
    // `ld` is in the fixtures too; `cvt` is not, so its hover has no imported part.
    let h = at("ld.global", 1, &config).unwrap();
    assert!(imported(&h).contains("**9.7.9.8** "));
    let h = at("cvt.rn", 1, &config).unwrap();
    assert!(!h.markdown.contains("From your copy"));
}

#[test]
fn availability_of_the_form_in_hand_in_words() {
    // Other `.m16n8k16` forms need newer targets; this bf16 one runs on sm_80 (ptxas 13.5).
    let src = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n  .reg .b32 %r<16>;\n  mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}, {%r8, %r9}, {%r0, %r1, %r2, %r3};\n  mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}, {%r8, %r9}, {%r0, %r1, %r2, %r3};\n  ret;\n}\n";
    let parse = Parse::new(src);
    let shape = src.find("m16n8k16").unwrap();
    for offset in [src.find("mma").unwrap(), shape] {
        let h = hover(&parse, offset, &HoverConfig::default()).unwrap();
        assert!(
            h.markdown.contains(
                "**Availability**: this form needs sm_80 or newer and PTX 7.0\n\n✓ available on this target (`.target sm_80`)"
            ),
            "{}",
            h.markdown
        );
        assert!(!h.markdown.contains(" & "), "{}", h.markdown);
    }
    let fp8 = src.find("m16n8k32").unwrap();
    let h = hover(&parse, fp8, &HoverConfig::default()).unwrap();
    assert!(
        h.markdown.contains(
            "**Availability**: this form needs sm_89 or newer and PTX 8.4\n\n✗ needs `.version 8.4` or later (this file has 8.0)\n\n✗ not available on `.target sm_80`"
        ),
        "{}",
        h.markdown
    );
}

/// Blanks before a qualifier (`add .s32`, which ptxas takes): each part keeps its own hover.
#[test]
fn blanks_before_a_qualifier() {
    check_head(
        ".s32 %r13",
        1,
        2,
        expect![[r#"
        Qualifier ".s32"
        `.s32` on `add`
    "#]],
    );
    check_head(
        "add .s32",
        1,
        2,
        expect![[r#"
        Opcode "add"
        ```ptx
        add.s32"#]],
    );
}

#[test]
fn mangled_function_names_are_shown_demangled() {
    let src = ".version 8.0\n.target sm_80\n.func _Z6helperfi(.param .b32 x)\n{\n  ret;\n}\n.entry k()\n{\n  call _Z6helperfi, (1);\n  ret;\n}\n";
    let parse = Parse::new(src);
    let h = hover(
        &parse,
        src.rfind("_Z6helperfi").unwrap() + 2,
        &HoverConfig::default(),
    )
    .unwrap();
    assert_eq!(h.kind, HoverKind::Function);
    assert!(
        h.markdown
            .starts_with("**`helper(float, int)`** (C++)\n\n```ptx\n"),
        "{}",
        h.markdown
    );
    assert!(h.markdown.contains("_Z6helperfi"), "{}", h.markdown);
}

/// A wgmma whose A operand is a shared-memory descriptor (a 64-bit register) has no A
/// fragment; given in registers (`{…}`), A is a 4-register fragment.
#[test]
fn wgmma_descriptor_a_is_no_fragment() {
    let registers_of = |a: &str| {
        let src = format!(
            ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{{\n  \
             .reg .f32 %f<9>;\n  .reg .b32 %r<5>;\n  .reg .b64 %rd<3>;\n  \
             wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 \
             {{%f1, %f2, %f3, %f4}}, {a}, %rd2, 1, 1, 1, 1;\n  ret;\n}}\n"
        );
        let offset = src.find("wgmma").unwrap() + 1;
        let h = hover(&Parse::new(&src), offset, &HoverConfig::default()).expect("a hover");
        let start = h
            .markdown
            .find("**Registers**")
            .expect("a register section");
        h.markdown[start..]
            .lines()
            .filter(|l| l.starts_with("- operand"))
            .map(|l| l.split(" — ").next().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        registers_of("%rd1"),
        ["- operand 1 (`d`): 4 × 32-bit"],
        "descriptor A"
    );
    assert_eq!(
        registers_of("{%r1, %r2, %r3, %r4}"),
        [
            "- operand 1 (`d`): 4 × 32-bit",
            "- operand 2 (`a`): 4 × 32-bit"
        ],
        "A in registers"
    );
}
