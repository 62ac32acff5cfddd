//! What the embed layer reads from host files: statements in macros, in macro-call
//! arguments and in broken C++, raw strings and concatenated literals, the targets from
//! guards, and the virtual documents with their source maps.

use expect_test::{expect, Expect};
use ptx_embed::{EmbedOptions, HostDocument};

fn statements(text: &str, expect: Expect) {
    let doc = HostDocument::new(text, &EmbedOptions::default());
    let mut out = String::new();
    for s in &doc.statements {
        out.push_str(&format!(
            "{:?} macro={} target={:?} ops=[{}]\n",
            s.raw.template.text,
            s.raw.in_macro,
            s.target,
            s.raw
                .operands
                .iter()
                .map(|o| format!("{}:{}", o.constraint, o.expression))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    expect.assert_eq(&out);
}

#[test]
fn forms_of_asm_statements() {
    statements(
        r#"
#define ARRIVE(bar) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" \
                                 :: "r"(bar) : "memory")
__device__ void f(unsigned x, unsigned long long p) {
  __asm__ __volatile__("mov.u32 %0, %%laneid;" : "=r"(x));
  asm("add.u32 %0, %0, 1;\n\t"
      "add.u32 %0, %0, 2;" : "+r"(x));
  asm volatile(R"(ld.global.u32 %0, [%1];)" : "=r"(x) : "l"(p));
  NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("fence.proxy.async;" ::: "memory");));
  int broken = (1 + ;
  asm volatile("membar.gl;");
}
#if __CUDA_ARCH__ >= 900
__device__ void g() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
#endif
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
__device__ void h() { asm volatile("tcgen05.fence::before_thread_sync;"); }
#endif
#if defined(__x86_64__)
void host() { asm volatile("pause"); }
#endif
"#,
        expect![[r#"
            "mbarrier.arrive.shared::cta.b64 _, [%0];" macro=true target=None ops=[r:bar]
            "mov.u32 %0, %%laneid;" macro=false target=None ops=[=r:x]
            "add.u32 %0, %0, 1;\n\tadd.u32 %0, %0, 2;" macro=false target=None ops=[+r:x]
            "ld.global.u32 %0, [%1];" macro=false target=None ops=[=r:x, l:p]
            "fence.proxy.async;" macro=false target=Some("sm_90a") ops=[]
            "membar.gl;" macro=false target=None ops=[]
            "wgmma.fence.sync.aligned;" macro=false target=Some("sm_90a") ops=[]
            "tcgen05.fence::before_thread_sync;" macro=false target=Some("sm_100a") ops=[]
        "#]],
    );
}

#[test]
fn virtual_document_and_source_map() {
    let host = "void f(float a, float b) { float c;\n  asm(\"add.f32 %0, %1,\\t%2;\" : \"=f\"(c) : \"f\"(a), \"f\"(b)); }\n";
    let doc = HostDocument::new(host, &EmbedOptions::default());
    let s = &doc.statements[0];
    expect![[r#"
        .version 9.1
        .target sm_100a
        .address_size 64
        .visible .entry __asm()
        {
        .reg .b32 %op0;
        .reg .b32 %op1;
        .reg .b32 %op2;
        add.f32 %op0, %op1,	%op2;
        }
    "#]]
    .assert_eq(s.parse.text());
    // Each placeholder maps onto its characters in the literal, the tab onto `\t`.
    let virt = s.parse.text();
    let at = virt.rfind("%op2").unwrap();
    assert_eq!(&host[s.map.to_host(at..at + 4)], "%2");
    let tab = virt.find('\t').unwrap();
    assert_eq!(&host[s.map.to_host(tab..tab + 1)], "\\t");
    let add = virt.find("add.f32").unwrap();
    assert_eq!(s.map.offset_to_host(add), host.find("add.f32"));
    assert_eq!(s.to_virtual(host.find(".f32").unwrap()), Some(add + 3));
}

#[test]
fn incremental_update_gives_the_same_diagnostics() {
    let mut text = String::new();
    for i in 0..20 {
        text.push_str(&format!(
            "__device__ void f{i}(unsigned x) {{ asm volatile(\"add.u32 %0, %0, {i};\" : \"+r\"(x)); }}\n"
        ));
    }
    let options = EmbedOptions::default();
    let first = HostDocument::new(&text, &options);
    let _ = ptx_embed::check::check(&first, &[]);
    let edited = text.replacen("add.u32 %0, %0, 7;", "ad.u32 %0, %0, 7;", 1);
    let incremental = HostDocument::new_incremental(&edited, &options, Some(&first));
    let fresh = HostDocument::new(&edited, &options);
    let a = ptx_embed::check::check(&incremental, &[]);
    let b = ptx_embed::check::check(&fresh, &[]);
    assert_eq!(a, b);
    assert_eq!(a.len(), 1);
    assert_eq!(&edited[a[0].range.clone()], "ad");
}

/// Macros inside a statement leave part of it unknown: no error is guessed from the rest.
/// (A macro the file defines as string literals is known: `#define STR(x) #x` would be read;
/// this one expands to another macro.)
#[test]
fn macro_operands_and_templates_are_not_guessed() {
    let text = r#"
#define PTR "l"
#define STR(x) STR_OF(x)
__device__ void st(long* p, long v) { asm("st.global.wb.s32 [%0], %1;" :: PTR(p), "r"(v) : "memory"); }
__device__ void op(unsigned short a) { asm("{" STR(add) ".f16 %0,%1,%1;\n}" : "=h"(a) : "h"(a)); }
"#;
    let doc = HostDocument::new(text, &EmbedOptions::default());
    assert_eq!(doc.statements.len(), 2);
    assert!(doc.statements[0].raw.operands_opaque.is_some());
    assert!(doc.statements[1].raw.opaque.is_some());
    // No error is guessed; each statement says what is not checked.
    let codes: Vec<_> = ptx_embed::check::check(&doc, &[])
        .into_iter()
        .map(|d| (d.severity, d.code))
        .collect();
    let hint = (ptx_check::Severity::Hint, "asm-not-checked");
    assert_eq!(codes, [hint, hint]);
}
