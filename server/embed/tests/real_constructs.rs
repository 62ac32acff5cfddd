//! Constructs of third-party CUDA headers that once gave false errors: asm labels on
//! declarations, `"C"` string-constant operands spliced into the template, guards whose
//! alternatives name another compiler or continue over lines, and statements guarded for
//! other targets than the one given on the command line. Every fixture here is written for
//! this test.

use expect_test::{expect, Expect};
use ptx_embed::{check::check, EmbedOptions, HostDocument};

fn report(text: &str, target: Option<&str>, expect: Expect) {
    let options = EmbedOptions {
        target: target.map(str::to_string),
        ..EmbedOptions::default()
    };
    let doc = HostDocument::new(text, &options);
    let mut out = String::new();
    for s in &doc.statements {
        out.push_str(&format!(
            "{:?} opaque={} target={:?}\n",
            s.raw.template.text,
            s.raw.opaque.is_some(),
            s.target
        ));
    }
    for d in check(&doc, &[]) {
        out.push_str(&format!(
            "{:?} {} {:?}: {}\n",
            d.severity,
            d.code,
            &text[d.range.clone()],
            d.message
        ));
    }
    expect.assert_eq(&out);
}

#[test]
fn asm_labels_of_declarations_are_not_statements() {
    report(
        r#"
extern "C" {
extern __device__ int my_counter(void) asm("my_counter_impl");
extern __device__ int my_counter2(void)
#if defined(SOME_OS)
asm("my_counter_impl2")
#endif
;
}
register int pinned asm("r7");
__device__ void g(int x) {
  if (x) asm("trapp;");
  if constexpr (sizeof(int) == 4) asm("exit;");
  else asm("exit;");
}
"#,
        None,
        expect![[r#"
            "trapp;" opaque=false target=None
            "exit;" opaque=false target=None
            "exit;" opaque=false target=None
            Error unknown-opcode "trapp": unknown instruction `trapp`; did you mean `trap`?
        "#]],
    );
}

#[test]
fn string_constant_operands_leave_the_template_unknown() {
    report(
        r#"
template <const char* Shape, int N>
__device__ void ld(float* d, int addr) {
  asm volatile("tcgen05.ld.sync.aligned%2.x%3.b32 {%0}, [%1];"
               : "=f"(d[0]) : "r"(addr), "C"(Shape), "n"(N));
}
"#,
        None,
        expect![[r#"
            "tcgen05.ld.sync.aligned%2.x%3.b32 {%0}, [%1];" opaque=true target=None
            Hint asm-not-checked "asm": this asm statement is not checked: operand %2 is a `"C"` string constant spliced into the template, whose text is known only where it is used
        "#]],
    );
}

const GUARDED: &str = r#"
__device__ void f(unsigned a) {
# if _CCCL_CUDA_COMPILER(NVHPC) || __CUDA_ARCH_FEAT_SM100_ALL || __CUDA_ARCH_FEAT_SM101_ALL
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
# endif
# if _CCCL_CUDA_COMPILER(NVHPC) || __CUDA_ARCH_FEAT_SM90_ALL \
   || __CUDA_ARCH_FEAT_SM100_ALL
  asm volatile("setmaxnreg.inc.sync.aligned.u32 240;");
# endif
# if _CCCL_CUDA_COMPILER(NVHPC) || __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async;" ::: "memory");
# endif
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#endif
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
}
"#;

#[test]
fn guards_naming_another_compiler_still_give_the_target() {
    report(
        GUARDED,
        None,
        expect![[r#"
            "tcgen05.fence::before_thread_sync;" opaque=false target=Some("sm_100a")
            "setmaxnreg.inc.sync.aligned.u32 240;" opaque=false target=Some("sm_90a")
            "fence.proxy.async;" opaque=false target=Some("sm_90a")
            "wgmma.fence.sync.aligned;" opaque=false target=Some("sm_90a")
            "tcgen05.fence::after_thread_sync;" opaque=false target=None
        "#]],
    );
}

#[test]
fn a_given_target_applies_only_where_the_guard_admits_it() {
    // nvcc -arch=sm_90a drops the sm_100a-only branches: they are checked for sm_100a.
    // The unguarded tcgen05 statement is compiled for sm_90a, and is an error there.
    report(
        GUARDED,
        Some("sm_90a"),
        expect![[r#"
            "tcgen05.fence::before_thread_sync;" opaque=false target=Some("sm_100a")
            "setmaxnreg.inc.sync.aligned.u32 240;" opaque=false target=Some("sm_90a")
            "fence.proxy.async;" opaque=false target=Some("sm_90a")
            "wgmma.fence.sync.aligned;" opaque=false target=Some("sm_90a")
            "tcgen05.fence::after_thread_sync;" opaque=false target=Some("sm_90a")
            Error unsupported-target "tcgen05.fence::after_thread_sync": `tcgen05.fence` needs .target sm_100a/sm_110a/sm_100f/sm_110f (this file targets sm_90a)
        "#]],
    );
    // With sm_100a, the sm_90a-specific branch (wgmma) is not compiled: checked for sm_90a.
    report(
        GUARDED,
        Some("sm_100a"),
        expect![[r#"
            "tcgen05.fence::before_thread_sync;" opaque=false target=Some("sm_100a")
            "setmaxnreg.inc.sync.aligned.u32 240;" opaque=false target=Some("sm_90a")
            "fence.proxy.async;" opaque=false target=Some("sm_100a")
            "wgmma.fence.sync.aligned;" opaque=false target=Some("sm_90a")
            "tcgen05.fence::after_thread_sync;" opaque=false target=Some("sm_100a")
        "#]],
    );
}

#[test]
fn statements_for_a_newer_ptx_isa_are_not_judged() {
    // The branch needs PTX ISA 9.9 (`__cccl_ptx_isa >= 990`), newer than the facts known
    // here: an instruction unknown to them says nothing. An older requirement changes nothing.
    report(
        r#"
#if __cccl_ptx_isa >= 990
__device__ void f(unsigned a) { asm volatile("someday.newop.b32 %0;" :: "r"(a)); }
#endif
#if __cccl_ptx_isa >= 800
__device__ void g(unsigned a) { asm volatile("someday.newop.b32 %0;" :: "r"(a)); }
#endif
#if __cccl_ptx_isa >= 990 || defined(OTHER)
__device__ void h(unsigned a) { asm volatile("someday.newop.b32 %0;" :: "r"(a)); }
#endif
"#,
        None,
        expect![[r#"
            "someday.newop.b32 %0;" opaque=false target=None
            "someday.newop.b32 %0;" opaque=false target=None
            "someday.newop.b32 %0;" opaque=false target=None
            Warning unknown-opcode "someday": not judged: this may need PTX ISA 9.9 or newer, which this tool does not know (it knows PTX ISA 9.1; under 9.1 it would be: unknown instruction `someday`)
            Error unknown-opcode "someday": unknown instruction `someday`
            Error unknown-opcode "someday": unknown instruction `someday`
        "#]],
    );
}

#[test]
fn immediates_from_template_parameters_are_not_judged_by_a_stand_in_value() {
    report(
        r#"
template <int Regs>
__device__ void grow() { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" :: "n"(Regs)); }
__device__ void grow_bad() { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" :: "n"(7)); }
"#,
        Some("sm_90a"),
        expect![[r#"
            "setmaxnreg.inc.sync.aligned.u32 %0;" opaque=false target=Some("sm_90a")
            "setmaxnreg.inc.sync.aligned.u32 %0;" opaque=false target=Some("sm_90a")
            Error immediate-range "%0": `setmaxnreg.inc.sync.aligned.u32`: the register count must be a multiple of 8 from 24 to 256, not 7
        "#]],
    );
}

#[test]
fn host_architecture_branches_hold_host_assembly() {
    report(
        r#"
#if _CCCL_HOST_ARCH(ARM64) && _CCCL_OS(LINUX)
#  define MY_YIELD (asm volatile("yield" :: :);)
#elif _CCCL_HOST_ARCH(X86_64)
#  define MY_YIELD (asm volatile("pause" :: :);)
#endif
"#,
        None,
        expect![""],
    );
}

#[test]
fn a_block_opened_by_one_statement_and_closed_by_another_is_not_checked_piecewise() {
    report(
        r#"
__device__ unsigned first_x(unsigned long long lo, unsigned long long hi) {
  unsigned r;
  asm volatile("{\n\t.reg .b128 held;");
  asm volatile("mov.b128 held, {%0, %1};" : : "l"(lo), "l"(hi));
  asm volatile("clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %0, held;" : "=r"(r));
  asm volatile("}");
  return r;
}
__device__ void unclosed() { asm volatile("{\n\t.reg .b32 t;\n\tmov.b32 t, 1;"); }
"#,
        None,
        expect![[r#"
            "{\n\t.reg .b128 held;" opaque=true target=None
            "mov.b128 held, {%0, %1};" opaque=true target=None
            "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %0, held;" opaque=true target=None
            "}" opaque=true target=None
            "{\n\t.reg .b32 t;\n\tmov.b32 t, 1;" opaque=false target=None
            Hint asm-not-checked "asm": this asm statement is not checked: it shares a `{ }` block with the asm statements around it (nvcc emits them into one body), so it is not checked alone
            Hint asm-not-checked "asm": this asm statement is not checked: it shares a `{ }` block with the asm statements around it (nvcc emits them into one body), so it is not checked alone
            Hint asm-not-checked "asm": this asm statement is not checked: it shares a `{ }` block with the asm statements around it (nvcc emits them into one body), so it is not checked alone
            Hint asm-not-checked "asm": this asm statement is not checked: it shares a `{ }` block with the asm statements around it (nvcc emits them into one body), so it is not checked alone
            Error syntax-error "asm": expected `}` to close the block here
        "#]],
    );
}

#[test]
fn the_toolkit_at_least_macro_is_a_guard() {
    // Under --target sm_80 the branch is not compiled: checked for sm_90 instead.
    report(
        r#"
__device__ unsigned relu_max(unsigned a, unsigned b) {
  unsigned res;
#ifdef __CUDA_AND_AT_LEAST_SM_90__
  asm("{max.s16x2.relu %0, %1, %2;}" : "=r"(res) : "r"(a), "r"(b));
#endif
  return res;
}
"#,
        Some("sm_80"),
        expect![[r#"
            "{max.s16x2.relu %0, %1, %2;}" opaque=false target=Some("sm_90a")
        "#]],
    );
}

/// A form that needs a newer target than the one given is an error in code nvcc always
/// compiles (a kernel, a plain `__device__` function), and a warning in code it compiles only
/// where it is used (templates, inline and static functions, class members), unless a guard
/// says which targets compile it.
#[test]
fn availability_in_code_compiled_on_use_is_a_warning() {
    report(
        r#"
__global__ void k(unsigned* p) {
  asm volatile("{ .reg .pred %%p1; elect.sync %0|%%p1, 0xffffffff; }" : "=r"(p[0]));
}
template <int N> __device__ void t(unsigned* p) {
  asm volatile("{ .reg .pred %%p1; elect.sync %0|%%p1, 0xffffffff; }" : "=r"(p[0]));
}
static __device__ __forceinline__ void f(unsigned* p) {
  asm volatile("{ .reg .pred %%p1; elect.sync %0|%%p1, 0xffffffff; }" : "=r"(p[0]));
}
struct S { __device__ void m(unsigned* p) {
  asm volatile("{ .reg .pred %%p1; elect.sync %0|%%p1, 0xffffffff; }" : "=r"(p[0]));
} };
"#,
        Some("sm_80"),
        expect![[r#"
            "{ .reg .pred %%p1; elect.sync %0|%%p1, 0xffffffff; }" opaque=false target=Some("sm_80")
            "{ .reg .pred %%p1; elect.sync %0|%%p1, 0xffffffff; }" opaque=false target=Some("sm_80")
            "{ .reg .pred %%p1; elect.sync %0|%%p1, 0xffffffff; }" opaque=false target=Some("sm_80")
            "{ .reg .pred %%p1; elect.sync %0|%%p1, 0xffffffff; }" opaque=false target=Some("sm_80")
            Error unsupported-target "elect.sync": `elect.sync` needs .target sm_90 or newer (this file targets sm_80)
            Warning unsupported-target "elect.sync": `elect.sync` needs .target sm_90 or newer (this file targets sm_80) (a warning: this template, inline function or macro is compiled only where it is used, and no `#if` guard says for which targets)
            Warning unsupported-target "elect.sync": `elect.sync` needs .target sm_90 or newer (this file targets sm_80) (a warning: this template, inline function or macro is compiled only where it is used, and no `#if` guard says for which targets)
            Warning unsupported-target "elect.sync": `elect.sync` needs .target sm_90 or newer (this file targets sm_80) (a warning: this template, inline function or macro is compiled only where it is used, and no `#if` guard says for which targets)
        "#]],
    );
}

/// CUDA's `<nv/target>` macros guard a branch for the targets their query admits.
#[test]
fn nv_target_branches_are_guards() {
    report(
        r#"
__global__ void k(unsigned long long* bar, unsigned* out) {
  NV_IF_TARGET(NV_PROVIDES_SM_90,
    unsigned done = 0;
    asm volatile("{ .reg .pred p; mbarrier.try_wait.shared.b64 p, [%1], 0; selp.b32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"((unsigned)(size_t)bar));
    out[0] = done;
  )
  NV_IF_ELSE_TARGET(NV_HAS_FEATURE_SM_90a,
    (asm volatile("setmaxnreg.inc.sync.aligned.u32 240;");),
    (asm volatile("nanosleep.u32 20;");))
}
"#,
        Some("sm_80"),
        expect![[r#"
            "{ .reg .pred p; mbarrier.try_wait.shared.b64 p, [%1], 0; selp.b32 %0, 1, 0, p; }" opaque=false target=Some("sm_90a")
            "setmaxnreg.inc.sync.aligned.u32 240;" opaque=false target=Some("sm_90a")
            "nanosleep.u32 20;" opaque=false target=Some("sm_80")
        "#]],
    );
}

/// PTX newer than the facts: a guard that requires it sets the statement's version, and a
/// packed or small-float qualifier in a statement of no known version is a warning that
/// names the next version; a misspelt qualifier stays an error.
#[test]
fn newer_ptx_gets_a_warning_naming_the_version() {
    report(
        r#"
__device__ unsigned f(unsigned a, unsigned b, unsigned short h) {
  unsigned r;
  asm("add.u8x4 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  asm("cvt.rn.bf16x2.e4m3x2 %0, %1;" : "=r"(r) : "h"(h));
  asm("add.reed.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
#if __cccl_ptx_isa >= 930
  asm("add.reed.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
#endif
  return r;
}
"#,
        None,
        expect![[r#"
            "add.u8x4 %0, %1, %2;" opaque=false target=None
            "cvt.rn.bf16x2.e4m3x2 %0, %1;" opaque=false target=None
            "add.reed.u32 %0, %1, %2;" opaque=false target=None
            "add.reed.u32 %0, %1, %2;" opaque=false target=None
            Warning unknown-qualifier ".u8x4": not judged: this may need PTX ISA 9.2 or newer, which this tool does not know (it knows PTX ISA 9.1; under 9.1 it would be: `add` has no qualifier `.u8x4`; expected .f32)
            Warning invalid-qualifier ".e4m3x2": not judged: this may need PTX ISA 9.2 or newer, which this tool does not know (it knows PTX ISA 9.1; under 9.1 it would be: `.e4m3x2` is not allowed here in `cvt.rn.bf16x2.e4m3x2`; expected .s2f6x2)
            Error unknown-qualifier ".reed": `add` has no qualifier `.reed`; expected .f32
            Warning unknown-qualifier ".reed": not judged: this may need PTX ISA 9.3 or newer, which this tool does not know (it knows PTX ISA 9.1; under 9.1 it would be: `add` has no qualifier `.reed`; expected .f32)
        "#]],
    );
}

/// Inline-ness as nvcc sees it: a function marked inline through a project macro (defined in
/// the file or given from its headers), and a template after a top-level macro invocation
/// without `;`, are compiled only where used: availability there is a warning.
#[test]
fn inline_through_macros_and_templates_after_macro_invocations() {
    let text = r#"
#define MY_DEVICE __forceinline__ __device__
#define MY_DEVICE2 MY_DEVICE
MY_DEVICE void a(unsigned* p) { asm volatile("elect.sync %0|_, 0xffffffff;" : "=r"(p[0])); }
MY_DEVICE2 void b(unsigned* p) { asm volatile("elect.sync %0|_, 0xffffffff;" : "=r"(p[0])); }
HEADER_DEVICE void c(unsigned* p) { asm volatile("elect.sync %0|_, 0xffffffff;" : "=r"(p[0])); }
MY_NAMESPACE_BEGIN(detail)
template <int N>
__device__ void d(unsigned* p) { asm volatile("elect.sync %0|_, 0xffffffff;" : "=r"(p[0])); }
__global__ void k(unsigned* p) { asm volatile("elect.sync %0|_, 0xffffffff;" : "=r"(p[0])); }
"#;
    let options = EmbedOptions {
        target: Some("sm_80".into()),
        inline_macros: vec!["HEADER_DEVICE".into()],
        ..EmbedOptions::default()
    };
    let doc = HostDocument::new(text, &options);
    let severities: Vec<String> = check(&doc, &[])
        .iter()
        .map(|d| format!("{:?} {}", d.severity, d.code))
        .collect();
    expect![[r#"
        [
            "Warning unsupported-target",
            "Warning unsupported-target",
            "Warning unsupported-target",
            "Warning unsupported-target",
            "Error unsupported-target",
        ]
    "#]]
    .assert_debug_eq(&severities);
}

/// `NV_DISPATCH_TARGET(query, (code), query, (code), ...)`: each branch is compiled for what
/// its query admits.
#[test]
fn nv_dispatch_target_branches_are_guards() {
    report(
        r#"
__global__ void k(unsigned* out) {
  NV_DISPATCH_TARGET(
    NV_PROVIDES_SM_90, (asm volatile("elect.sync %0|_, 0xffffffff;" : "=r"(out[0]));),
    NV_PROVIDES_SM_80, (asm volatile("nanosleep.u32 20;");),
    NV_ANY_TARGET, (asm volatile("membar.gl;");))
}
"#,
        Some("sm_80"),
        expect![[r#"
            "elect.sync %0|_, 0xffffffff;" opaque=false target=Some("sm_90a")
            "nanosleep.u32 20;" opaque=false target=Some("sm_80")
            "membar.gl;" opaque=false target=Some("sm_80")
        "#]],
    );
}

/// Branches compiled only for AMD GPUs (HIP builds of CUDA code: PyTorch's `USE_ROCM`,
/// ggml's `GGML_USE_HIP` and the macros it defines from it, `__gfx906__`) hold AMD GPU
/// assembly, which nvcc never sees: not read as PTX. The CUDA branches beside them are.
#[test]
fn amd_gpu_branches_are_not_ptx() {
    report(
        r#"
#if defined(GGML_USE_HIP) && (defined(RDNA2) || defined(__gfx906__))
#define LIB_V_DOT2_AVAILABLE
#endif
__device__ __forceinline__ void mad(float& acc, unsigned v, unsigned u) {
#ifdef LIB_V_DOT2_AVAILABLE
    asm volatile("v_dot2_f32_f16 %0, %1, %2, %0" : "+v"(acc) : "v"(v), "v"(u));
#else
    asm volatile("fma.rn.f32 %0, %1, %2, %0;" : "+f"(acc) : "f"(__int_as_float(v)), "f"(__int_as_float(u)));
#endif
}
__device__ __forceinline__ unsigned lop(unsigned x) {
  unsigned r;
#if defined(USE_ROCM)
  asm volatile("v_and_or_b32 %0, %1, %2, %3" : "=v"(r) : "v"(x), "v"(15), "v"(7));
#else
  asm volatile("lop3.b32 %0, %1, %2, %3, 0xea;" : "=r"(r) : "r"(x), "n"(15), "n"(7));
#endif
#if !defined(USE_ROCM)
  asm volatile("add.u32 %0, %0, 1;" : "+r"(r));
#else
  asm volatile("v_add_u32 %0, %0, 1" : "+v"(r));
#endif
#ifndef __HIP_PLATFORM_AMD__
  asm volatile("add.u32 %0, %0, 2;" : "+r"(r));
#else
  asm volatile("v_add_u32 %0, %0, 2" : "+v"(r));
#endif
#if defined(USE_ROCM) && defined(NOT_AMD_AT_ALL) || defined(SOMETHING_ELSE)
  asm volatile("add.u32 %0, %0, 3;" : "+r"(r));
#endif
  return r;
}
"#,
        None,
        expect![[r#"
            "fma.rn.f32 %0, %1, %2, %0;" opaque=false target=None
            "lop3.b32 %0, %1, %2, %3, 0xea;" opaque=false target=None
            "add.u32 %0, %0, 1;" opaque=false target=None
            "add.u32 %0, %0, 2;" opaque=false target=None
            "add.u32 %0, %0, 3;" opaque=false target=None
        "#]],
    );
}

/// A header's inline function under a guard that admits older targets than its instruction
/// needs (`#if __CUDA_ARCH__ >= 800` around an sm_90 `mbarrier.try_wait`): nvcc compiles it
/// only where a kernel uses it, so for sm_80 it is a warning. A kernel under the same guard
/// is compiled for sm_80 where it stands: an error.
#[test]
fn guarded_code_compiled_on_use_gets_availability_warnings() {
    let text = r#"
struct Waiter {
  __forceinline__ __device__ unsigned peek(unsigned bar, unsigned phase) {
    unsigned done = 0;
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800)
    asm volatile("{\n .reg .pred q;\n mbarrier.try_wait.parity.shared.b64 q, [%1], %2;\n selp.b32 %0, 1, 0, q;\n}"
                 : "=r"(done) : "r"(bar), "r"(phase));
#endif
    return done;
  }
};
__global__ void waiting_kernel(unsigned bar, unsigned* out) {
#if __CUDA_ARCH__ >= 800
  asm volatile("{\n .reg .pred q;\n mbarrier.try_wait.parity.shared.b64 q, [%1], 0;\n selp.b32 %0, 1, 0, q;\n}"
               : "=r"(out[0]) : "r"(bar));
#endif
}
"#;
    for target in [None, Some("sm_80")] {
        let options = EmbedOptions {
            target: target.map(str::to_string),
            ..EmbedOptions::default()
        };
        let doc = HostDocument::new(text, &options);
        let severities: Vec<String> = check(&doc, &[])
            .iter()
            .map(|d| format!("{:?} {}", d.severity, d.code))
            .collect();
        expect![[r#"
            [
                "Warning unsupported-target",
                "Error unsupported-target",
            ]
        "#]]
        .assert_debug_eq(&severities);
    }
}

/// A template in a macro body that stringizes a macro parameter between its pieces
/// (`"max." #type " %0, [%1];"`), with an operand whose constraint is pasted from a macro:
/// the template's text is known only after preprocessing, so the statement carries a hint
/// instead of being read without the stringized piece.
#[test]
fn stringized_parameters_between_template_pieces_leave_it_unknown() {
    report(
        r#"
#define LOAD_REDUCED(T, ty, Size) \
  __device__ __forceinline__ T load_max(unsigned long long addr) { \
    T value; \
    if (addr) { \
      asm volatile("multimem.ld_reduce.relaxed.sys.global.max." #ty " %0, [%1];" \
                   : "=" CONSTRAINT_OF_##Size(value) \
                   : "l"(addr) \
                   : "memory"); \
    } \
    return value; \
  }
"#,
        None,
        expect![[r#"
            "multimem.ld_reduce.relaxed.sys.global.max." opaque=true target=None
            Hint asm-not-checked "asm": this asm statement is not checked: `#ty " %0, [%1];"` follows the template's literals, so its text is known only after preprocessing
        "#]],
    );
}

/// Host assembly: branches that only a host compiler takes (`#if !defined(__NVCC__)`,
/// `#ifndef __CUDACC__`, the `#else` of `#ifdef __CUDA_ARCH__`) and host architectures
/// (`__PPC__`) are not read as PTX; the device branches beside them are.
#[test]
fn host_compiler_branches_are_not_ptx() {
    report(
        r#"
#if !defined(__NVCC__)
#if defined(__PPC__)
static inline void store_fence(void) { asm volatile("sync" : : : "memory"); }
#endif
#endif
#ifndef __CUDACC__
static inline void pause_cpu(void) { asm volatile("pause"); }
#endif
__host__ __device__ inline void relax() {
#ifdef __CUDA_ARCH__
  asm volatile("nanosleep.u32 32;");
#else
  asm volatile("yield");
#endif
#if defined(__CUDA_ARCH__)
  asm volatile("membar.gl;");
#elif defined(__aarch64__) || defined(SOME_OTHER_HOST)
  asm volatile("dmb ish");
#endif
}
"#,
        None,
        expect![[r#"
            "nanosleep.u32 32;" opaque=false target=None
            "membar.gl;" opaque=false target=None
        "#]],
    );
}

/// A HIP source (it includes a `hip/` header or calls `__builtin_amdgcn_…` outside every
/// `#if`) holds AMD GPU assembly: none of its statements is read as PTX. A file that
/// includes HIP headers only under an `#if` is CUDA in its other branches.
#[test]
fn hip_sources_hold_no_ptx() {
    report(
        r#"#pragma once
#include "common.h"
__device__ void set_m0(unsigned v) {
  asm volatile("s_mov_b32 m0, %0" : : "s"(v) : "memory");
}
__device__ unsigned first_lane(unsigned v) { return __builtin_amdgcn_readfirstlane(v); }
__device__ void wait_all() { asm volatile("s_waitcnt vmcnt(0)"); }
"#,
        None,
        expect![""],
    );
    report(
        r#"#ifndef MY_HEADER_H
#define MY_HEADER_H
#include <hip/hip_runtime.h>
__device__ void wait_all() { asm volatile("s_waitcnt lgkmcnt(0)"); }
#endif
"#,
        None,
        expect![""],
    );
    report(
        r#"#ifdef USE_ROCM
#include <hip/hip_runtime.h>
#endif
__device__ void fence() { asm volatile("fence.acq_rel.gpu;"); }
"#,
        None,
        expect![[r#"
            "fence.acq_rel.gpu;" opaque=false target=None
        "#]],
    );
}

/// CUTLASS's and CuTe's function qualifier macros (`CUTLASS_DEVICE`, `CUTE_HOST_DEVICE`)
/// expand to `__forceinline__`; projects built on CUTLASS use them where its headers are
/// not in the workspace. Their functions are compiled only where used.
#[test]
fn cutlass_qualifier_macros_are_inline_without_their_headers() {
    let text = r#"
namespace lib {
CUTLASS_DEVICE void fence_before() { asm volatile("tcgen05.fence::before_thread_sync;"); }
CUTE_DEVICE
void add_pair(unsigned long long& d, unsigned long long a) {
  asm volatile("add.f32x2 %0, %0, %1;" : "+l"(d) : "l"(a));
}
__global__ void k() { asm volatile("tcgen05.fence::before_thread_sync;"); }
}
"#;
    let options = EmbedOptions {
        target: Some("sm_90a".into()),
        ..EmbedOptions::default()
    };
    let doc = HostDocument::new(text, &options);
    let severities: Vec<String> = check(&doc, &[])
        .iter()
        .map(|d| format!("{:?} {}", d.severity, d.code))
        .collect();
    expect![[r#"
        [
            "Warning unsupported-target",
            "Warning unsupported-target",
            "Error unsupported-target",
        ]
    "#]]
    .assert_debug_eq(&severities);
}

/// A function head the C++ parser cannot make out (after macro invocations without `;`, with
/// a debugging `#if 0` block that splits braces inside): the heads of every enclosing `{` are
/// read, not only the innermost `if (...) {`.
#[test]
fn template_heads_beyond_the_innermost_brace_mark_code_compiled_on_use() {
    let text = r#"
DEFINE_PACK_OP(+)
DEFINE_PACK_OP(*)
using Grain = Pack<unsigned, 4>;
template <int N>
__device__ inline Pack<unsigned, N * 2> load_pairs(const void* row) {
  unsigned a, b;
  if constexpr (N == 1) {
    if (row) {
      asm("ldmatrix.sync.aligned.m16n16.x1.trans.shared::cta.b8 {%0, %1}, [%2];"
          : "=r"(a), "=r"(b) : "l"(row));
    }
#if 0
    debug_check(a);
  } else {
#endif
  }
  return {a, b};
}
"#;
    let options = EmbedOptions {
        target: Some("sm_80".into()),
        ..EmbedOptions::default()
    };
    let doc = HostDocument::new(text, &options);
    let severities: Vec<String> = check(&doc, &[])
        .iter()
        .map(|d| format!("{:?} {}", d.severity, d.code))
        .collect();
    expect![[r#"
        [
            "Warning unsupported-target",
        ]
    "#]]
    .assert_debug_eq(&severities);
}

/// CPU code beside CUDA code (a library's RISC-V, Power or x86 kernels, in `.cpp` files and
/// headers): a file with no sign of CUDA holds host assembly, unless a template reads as
/// PTX (an instruction whose every qualifier PTX knows, a `.reg` declaration). In a CUDA file
/// a template with no PTX opcode, no `;` and no brace is host assembly too; a misspelt PTX
/// instruction ending in `;` is still PTX.
#[test]
fn host_assembly_is_not_ptx() {
    report(
        r#"
static inline void quantize_rows(const float* src, signed char* dst) {
  __asm__ volatile(
      "vsetvli t0, zero, e32, m4\n\t"
      "add t1, %[src], 0\n\t"
      "fence.i\n\t"
      : : [src] "r"(src), [dst] "r"(dst) : "t0", "t1");
}
static inline void barrier_cpu() { __asm__ volatile("dmb ish" ::: "memory"); }
TL_DEVICE void copy16(unsigned dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(src));
}
"#,
        None,
        expect![[r#"
            "cp.async.cg.shared.global [%0], [%1], 16;" opaque=false target=None
        "#]],
    );
    report(
        r#"
#if defined(__CUDACC__)
__device__ void device_side(unsigned* p) { asm volatile("trapp;"); }
#endif
static inline float half_to_float(unsigned short h) {
  float f; double d;
  __asm__("mtfprd %0,%2\n" "xscvhpdp %0,%0\n" "frsp %1,%0\n" : "=d"(d), "=f"(f) : "r"(h));
  return f;
}
"#,
        None,
        expect![[r#"
            "trapp;" opaque=false target=None
            Error unknown-opcode "trapp": unknown instruction `trapp`; did you mean `trap`?
        "#]],
    );
}

/// The host branches of CUDA's `<nv/target>` macros (`NV_IF_TARGET(NV_IS_HOST, ...)`, the
/// `else` of `NV_IF_ELSE_TARGET(NV_IS_DEVICE, ...)`) hold host assembly: a compiler barrier
/// with a constraint nvcc would reject in device code (`"+r,m"`) is no PTX statement. The
/// device branches stay statements.
#[test]
fn host_branches_of_nv_target_macros_hold_host_assembly() {
    report(
        r#"
template <class T> void keep(T& value) {
  NV_IF_TARGET(NV_IS_HOST, ({ asm volatile("" : "+r,m"(value) : : "memory"); }))
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, ({ asm volatile("membar.gl;" ::: "memory"); }),
                    ({ asm volatile("mfence" ::: "memory"); }))
  NV_IF_TARGET(NV_IS_DEVICE, ({ asm volatile("" ::"l"(&value) : "memory"); }))
}
"#,
        None,
        expect![[r#"
            "membar.gl;" opaque=false target=None
            "" opaque=false target=None
        "#]],
    );
}

/// An `"n"` operand printed inside a word: `mma.sync.aligned.m16n8k%4` with `"n"(K)` is
/// `…m16n8k64` in the PTX nvcc writes. The value of a constant the file defines (`constexpr`,
/// `#define`, arithmetic on them) is printed, so the shape is checked; a value not known here
/// (a template parameter) leaves the word unjudged instead of making `.m16n8k0`.
#[test]
fn immediates_printed_inside_a_word() {
    report(
        r#"
#define HALF_K 32
template <int N> __device__ void tile(unsigned* d, const unsigned* a) {
  static constexpr int K = 64;
  asm volatile("mma.sync.aligned.m16n8k%4.row.col.s32.s4.s4.s32 {%0,%1,%2,%3}, "
               "{%5,%6,%7,%8}, {%9,%10}, {%0,%1,%2,%3};"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "n"(K), "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(a[4]), "r"(a[5]));
  asm volatile("mma.sync.aligned.m8n8k%2.row.col.s32.s4.s4.s32 {%0,%1}, {%3}, {%4}, {%0,%1};"
               : "+r"(d[0]), "+r"(d[1]) : "n"(K / 2), "r"(a[0]), "r"(a[1]));
  asm volatile("mma.sync.aligned.m8n8k%2.row.col.s32.s4.s4.s32 {%0,%1}, {%3}, {%4}, {%0,%1};"
               : "+r"(d[0]), "+r"(d[1]) : "n"(HALF_K - 1), "r"(a[0]), "r"(a[1]));
  asm volatile("mma.sync.aligned.m8n8k%2.row.col.s32.s4.s4.s32 {%0,%1}, {%3}, {%4}, {%0,%1};"
               : "+r"(d[0]), "+r"(d[1]) : "n"(N), "r"(a[0]), "r"(a[1]));
}
"#,
        Some("sm_80"),
        expect![[r#"
            "mma.sync.aligned.m16n8k%4.row.col.s32.s4.s4.s32 {%0,%1,%2,%3}, {%5,%6,%7,%8}, {%9,%10}, {%0,%1,%2,%3};" opaque=false target=Some("sm_80")
            "mma.sync.aligned.m8n8k%2.row.col.s32.s4.s4.s32 {%0,%1}, {%3}, {%4}, {%0,%1};" opaque=false target=Some("sm_80")
            "mma.sync.aligned.m8n8k%2.row.col.s32.s4.s4.s32 {%0,%1}, {%3}, {%4}, {%0,%1};" opaque=false target=Some("sm_80")
            "mma.sync.aligned.m8n8k%2.row.col.s32.s4.s4.s32 {%0,%1}, {%3}, {%4}, {%0,%1};" opaque=false target=Some("sm_80")
            Error unknown-qualifier ".m8n8k%2": `mma` has no qualifier `.m8n8k31`; did you mean `.m8n8k32`?
        "#]],
    );
}

/// Macros the file defines as string literals, between or after a template's literals: an
/// object-like one naming the instruction (`#define LOAD_NC "ld.global.nc.u32"`) and a
/// function-like one that stringizes its argument into a qualifier (`HINT(128)` →
/// `.L2::128B`). Their text is known, so the template is checked, and a diagnostic inside
/// the macro's text lands on its invocation. A macro with a definition of another kind
/// stays unknown.
#[test]
fn string_macros_in_templates() {
    report(
        r#"
#if __CUDA_ARCH__ >= 800
#define LOAD_NC "ld.global.nc.u32"
#define HINT(bytes) ".L2::" #bytes "B"
#define BAD_HINT(bytes) ".L2::" #bytes "X"
#else
#define LOAD_NC "ld.global.u32"
#define HINT(bytes)
#define BAD_HINT(bytes)
#endif
#define OPAQUE some_function()
__device__ unsigned load(const unsigned* p, unsigned s) {
  unsigned v;
  asm volatile(LOAD_NC " %0, [%1];" : "=r"(v) : "l"(p));
  asm volatile("cp.async.cg.shared.global" HINT(128) " [%0], [%1], 16;" ::"r"(s), "l"(p));
  asm volatile("cp.async.cg.shared.global" BAD_HINT(128) " [%0], [%1], 16;" ::"r"(s), "l"(p));
  asm volatile("ld.global.u32" OPAQUE " %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}
"#,
        Some("sm_80"),
        expect![[r#"
            "ld.global.nc.u32 %0, [%1];" opaque=false target=Some("sm_80")
            "cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" opaque=false target=Some("sm_80")
            "cp.async.cg.shared.global.L2::128X [%0], [%1], 16;" opaque=false target=Some("sm_80")
            "ld.global.u32 %0, [%1];" opaque=true target=Some("sm_80")
            Error unknown-qualifier "BAD_HINT(128)": `cp` has no qualifier `.L2::128X`; did you mean `.L2::128B`?
            Hint asm-not-checked "asm": this asm statement is not checked: the template includes `OPAQUE`, whose text is known only after preprocessing
        "#]],
    );
}

/// A C header with x86 assembly whose identifiers happen to contain a CUDA qualifier
/// (`process__device__reroute`, as in an audio library's job table) is no CUDA file: its
/// assembly is host assembly. A qualifier written as a word still makes the file CUDA.
#[test]
fn cuda_qualifiers_inside_identifiers_are_no_sign_of_cuda() {
    report(
        r#"
static int job_process__device__reroute(void* job);
static void cpu_info(int fid, int info[4]) {
  __asm__ __volatile__("xchg{l} {%%}ebx, %k1;" "cpuid;" "xchg{l} {%%}ebx, %k1;"
                       : "=a"(info[0]), "=&r"(info[1]), "=c"(info[2]), "=d"(info[3]) : "a"(fid), "c"(0));
}
static long swap64(volatile long* p, long v) {
  __asm__ __volatile__("lock; xchg %0, %1" : "+r"(v), "+m"(*p));
  return v;
}
"#,
        None,
        expect![""],
    );
    report(
        r#"
static int job_process__device__reroute(void* job);
__device__ void f() { asm volatile("trapp;"); }
"#,
        None,
        expect![[r#"
            "trapp;" opaque=false target=None
            Error unknown-opcode "trapp": unknown instruction `trapp`; did you mean `trap`?
        "#]],
    );
}
