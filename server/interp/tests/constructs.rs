//! Declarations, scopes, memory and calls in kernel and snippet mode: the
//! outcomes the GPU-checked kernels of `tests/interp/kernels/constructs.ptx`
//! do not reach (faults, limits, defaults, deep recursion).

use expect_test::{expect, Expect};
use ptx_interp::{parse_arg, run_kernel, run_snippet, KernelOptions, SnippetOptions};
use ptx_syntax::Parse;

const HEADER: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

fn kernel(body: &str, block: u32, args: &[&str], dynamic_smem: Option<u32>) -> String {
    let parse = Parse::new(format!("{HEADER}{body}"));
    let options = KernelOptions {
        entry: "k".into(),
        block: [block, 1, 1],
        args: args
            .iter()
            .map(|a| parse_arg(a).expect("argument"))
            .collect(),
        dynamic_smem,
        ..KernelOptions::default()
    };
    match run_kernel(&parse, &options) {
        Ok(result) => result
            .buffers
            .iter()
            .map(|b| {
                b.bytes
                    .chunks(4)
                    .map(|w| u32::from_le_bytes(w.try_into().unwrap_or([0; 4])).to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Err(error) => format!("{:?}: {}", error.kind, error.message),
    }
}

fn check(actual: String, expect: Expect) {
    expect.assert_eq(&actual);
}

const DYNAMIC: &str = "
.extern .shared .align 16 .b8 smem[];
.shared .align 4 .b32 fixed[10];
.visible .entry k(.param .u64 out, .param .u32 at)
{
    .reg .u32 %r<4>;
    .reg .u64 %rd<2>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [at];
    mov.u32 %r2, smem;
    add.u32 %r2, %r2, %r1;
    st.shared.u32 [%r2], 7;
    mov.u32 %r3, %dynamic_smem_size;
    st.global.u32 [%rd1], %r3;
    mov.u32 %r3, %total_smem_size;
    st.global.u32 [%rd1+4], %r3;
    ret;
}
";

#[test]
fn dynamic_shared_memory_defaults_to_what_static_use_leaves() {
    // 227 KiB less the 40 bytes of `fixed`.
    check(
        kernel(DYNAMIC, 1, &["zeros:8", "u32:0"], None),
        expect!["232408 232448"],
    );
    check(
        kernel(DYNAMIC, 1, &["zeros:8", "u32:12"], Some(16)),
        expect!["16 128"],
    );
}

#[test]
fn dynamic_shared_faults_name_the_array_and_offset() {
    check(
        kernel(DYNAMIC, 1, &["zeros:8", "u32:16"], Some(16)),
        expect!["Fault: 4-byte access at offset 16 of `smem` is out of bounds: the launch gives it 16 bytes of dynamic shared memory (--dynamic-smem)"],
    );
    check(
        kernel(DYNAMIC, 1, &["zeros:8", "u32:0"], Some(232_412)),
        expect!["Usage: --dynamic-smem 232412: with 40 bytes of static shared memory, at most 232408 bytes fit in the 232448 bytes a CTA may use"],
    );
}

#[test]
fn recursion_keeps_a_frame_per_call() {
    // Each activation keeps its argument in its own .local slot and its own
    // registers across the recursive call: sum(n) = n + sum(n - 1).
    let body = "
.func (.reg .u32 r) sum(.reg .u32 n)
{
    .local .align 4 .u32 saved;
    .reg .pred %p;
    .reg .u32 %a, %b;
    st.local.u32 [saved], n;
    mov.u32 %a, n;
    setp.eq.u32 %p, n, 0;
    @%p bra DONE;
    sub.u32 %b, n, 1;
    call (%b), sum, (%b);
    ld.local.u32 r, [saved];
    add.u32 r, r, %b;
    add.u32 r, r, %a;
    sub.u32 r, r, n;
    ret;
DONE:
    mov.u32 r, 0;
    ret;
}
.visible .entry k(.param .u64 out)
{
    .reg .u32 %r<3>;
    .reg .u64 %rd<3>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    add.u32 %r1, %r1, 100;
    call (%r2), sum, (%r1);
    mul.wide.u32 %rd2, %tid.x, 4;
    add.u64 %rd1, %rd1, %rd2;
    st.global.u32 [%rd1], %r2;
    ret;
}
";
    check(
        kernel(body, 3, &["zeros:12"], None),
        expect!["5050 5151 5253"],
    );
}

#[test]
fn a_call_through_a_bad_address_faults() {
    let body = "
.visible .entry k(.param .u64 out)
{
    .reg .u32 %r;
    .reg .u64 %rd;
    mov.u64 %rd, 12345;
    proto: .callprototype (.reg .u32 _) _ (.reg .u32 _);
    call (%r), %rd, (%r), proto;
    ret;
}
";
    check(
        kernel(body, 1, &["zeros:4"], None),
        expect!["Fault: call through 0x3039, which is not a function's address"],
    );
}

#[test]
fn snippets_see_vector_registers_warp_size_and_scopes() {
    let parse = Parse::new(
        "
.reg .v4 .u32 %v;
.reg .u32 %r<3>;
mov.u32 %v.r, WARP_SZ;
add.u32 %v.g, %v.x, 1;
mov.v4.u32 {%v.z, %v.w, %v.x, %v.y}, %v;
mov.u32 %r1, 1;
{
    .reg .u32 %r1;
    mov.u32 %r1, 40;
    add.u32 %r2, %r1, %v.b;
}
add.u32 %r2, %r2, %r1;
",
    );
    let result = run_snippet(&parse, &SnippetOptions::default()).expect("runs");
    let text: Vec<String> = result.threads[0]
        .registers
        .iter()
        .map(|r| format!("{}={}", r.name, r.bits))
        .collect();
    expect!["%v.x=0 %v.y=0 %v.z=32 %v.w=33 %r0=0 %r1=1 %r2=73"].assert_eq(&text.join(" "));
}

#[test]
fn an_operand_form_not_modelled_faults_only_when_reached() {
    let body = "
.visible .entry k(.param .u64 out, .param .u32 take)
{
    .reg .u32 %r<2>;
    .reg .f32 %f<6>;
    .reg .u64 %rd<3>;
    .reg .pred %p;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [take];
    setp.ne.u32 %p, %r1, 0;
    @!%p bra SKIP;
    tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd2, {%f5, %f5}];
SKIP:
    st.global.u32 [%rd1], 9;
    ret;
}
";
    check(kernel(body, 1, &["zeros:4", "u32:0"], None), expect!["9"]);
    check(
        kernel(body, 1, &["zeros:4", "u32:1"], None),
        expect!["Fault: `tex.2d.v4.f32.f32` is not supported by the interpreter"],
    );
}

#[test]
fn vector_registers_pass_through_calls_element_by_element() {
    // `.reg .v2`/`.v4` parameters and return values, called with whole
    // vector registers: each element travels in its own slot.
    let body = "
.func (.reg .v4 .b32 r) rotate(.reg .v4 .b32 v, .reg .b32 k)
{
    add.u32 r.x, v.y, k;
    add.u32 r.y, v.z, k;
    add.u32 r.z, v.w, k;
    add.u32 r.w, v.x, k;
    ret;
}
.func (.reg .v2 .u32 s) sums(.reg .v2 .u32 a, .reg .v2 .u32 b)
{
    add.u32 s.x, a.x, b.x;
    add.u32 s.y, a.y, b.y;
    ret;
}
.visible .entry k(.param .u64 out)
{
    .reg .u64 %rd;
    .reg .v4 .b32 q;
    .reg .v2 .u32 p, t;
    ld.param.u64 %rd, [out];
    mov.v4.b32 q, {1, 2, 3, 4};
    call (q), rotate, (q, 100);
    st.global.v4.b32 [%rd], q;
    mov.v2.u32 p, {5, 6};
    mov.v2.u32 t, {70, 80};
    call (p), sums, (p, t);
    st.global.v2.u32 [%rd+16], p;
    ret;
}";
    check(
        kernel(body, 1, &["zeros:24"], None),
        expect![[r#"102 103 104 101 75 86"#]],
    );
}

#[test]
fn a_register_plus_constant_is_a_value_operand() {
    // `r + c` where a value is expected is the sum, in any state space's store.
    let body = "
.visible .entry k(.param .u64 out)
{
    .local .align 8 .b8 slot[8];
    .reg .u64 %rd, %v;
    .reg .u32 %w;
    ld.param.u64 %rd, [out];
    mov.u64 %v, 41;
    st.local.u64 [slot], %v + 1;
    ld.local.u64 %v, [slot];
    st.global.u64 [%rd], %v;
    mov.u32 %w, 7;
    st.global.u32 [%rd+8], %w + -3;
    ret;
}";
    check(kernel(body, 1, &["zeros:12"], None), expect![[r#"42 0 4"#]]);
}

/// Labels declared in a `{ }` block belong to that block: inline asm repeats
/// the same `{ WAIT: ... bra WAIT; DONE: }` names many times in one function
/// (CUTLASS's mbarrier waits), and a branch inside a block goes to its own
/// block's label, or to the enclosing one's when the block has none.
#[test]
fn labels_in_blocks_are_local_to_their_block() {
    let body = "
.visible .entry k(.param .u64 out)
{
    .reg .u32 %r<4>;
    .reg .u64 %rd<2>;
    .reg .pred %p;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, 0;
    mov.u32 %r2, 0;
    {
    LOOP:
        add.u32 %r1, %r1, 1;
        setp.lt.u32 %p, %r1, 3;
        @%p bra LOOP;
        bra DONE;
        mov.u32 %r1, 99;
    DONE:
    }
    {
    LOOP:
        add.u32 %r2, %r2, 10;
        setp.lt.u32 %p, %r2, 50;
        @%p bra LOOP;
        bra OUT;
    }
    mov.u32 %r2, 77;
OUT:
    st.global.u32 [%rd1], %r1;
    st.global.u32 [%rd1+4], %r2;
    ret;
}
";
    check(kernel(body, 1, &["zeros:8"], None), expect!["3 50"]);
}

/// A `struct:` argument: a by-value parameter whose fields hold the address
/// of a buffer given after the parameters, and a tensor map over it.
#[test]
fn struct_arguments_carry_buffer_addresses_and_tensor_maps() {
    let body = "
.visible .entry k(.param .align 64 .b8 p[256])
{
    .reg .u32 %r<4>;
    .reg .u64 %rd<4>;
    ld.param.u64 %rd1, [p+8];
    ld.param.u32 %r1, [p];
    ld.param.u64 %rd2, [p+16];
    ld.global.u32 %r2, [%rd2];
    st.global.u32 [%rd1], %r1;
    st.global.u32 [%rd1+4], %r2;
    ld.param.u32 %r3, [p+128];
    st.global.u32 [%rd1+8], %r3;
    ret;
}
";
    let bytes = "2a000000".to_owned() + &"00".repeat(252);
    let args = [
        format!("struct:{bytes};8=&1;16=&2+4;128=tmap:u32:16:-:16:0:2"),
        "zeros:12".to_owned(),
        "buf:u32:5,6".to_owned(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // 42 from the struct's own bytes, 6 through the address field, and the
    // first word of the interpreter's tensor-map object ("TMAP").
    check(
        kernel(body, 1, &args, None),
        expect!["42 6 1346456916\n5 6"],
    );
    // Fields must fit, name buffers, and extra arguments must be buffers.
    check(
        kernel(body, 1, &[&format!("struct:{bytes};8=&0"), "zeros:4"], None),
        expect!["Usage: --arg 0: the field at byte 8 names argument 0, which is not a buffer"],
    );
    assert!(parse_arg(&format!("struct:{bytes};250=&1")).is_err());
    assert!(parse_arg("struct:0a0;0=&1").is_err());
    assert!(parse_arg(&format!("struct:{bytes};8=x")).is_err());
    check(
        kernel(body, 1, &[&format!("struct:{bytes}"), "u32:1"], None),
        expect!["Usage: `k` takes 1 parameters, 2 --arg given (more only as buffers that struct: or tmap: arguments name)"],
    );
}
