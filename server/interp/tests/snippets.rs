//! Snippet-mode behaviour: control flow, divergence, memory, collectives
//! and errors, asserted on final register values.

use ptx_interp::{run_snippet, RunResult, SnippetOptions};
use ptx_syntax::Parse;

fn run(text: &str, threads: u32, set: &[(&str, &str)]) -> RunResult {
    let options = SnippetOptions {
        threads,
        set: set.iter().map(|(r, v)| (r.to_string(), v.to_string())).collect(),
        ..SnippetOptions::default()
    };
    match run_snippet(&Parse::new(text), &options) {
        Ok(result) => result,
        Err(error) => panic!("run failed: {error:?}"),
    }
}

fn reg(result: &RunResult, tid: usize, name: &str) -> String {
    result.threads[tid]
        .registers
        .iter()
        .find(|r| r.name == name)
        .map(|r| r.text())
        .unwrap_or_else(|| panic!("no register {name}"))
}

#[test]
fn straight_line_integer_code() {
    let r = run(
        ".reg .b32 %r<4>;\nmov.b32 %r1, 5;\nadd.s32 %r2, %r1, %r0;\nshl.b32 %r3, %r2, 4;",
        1,
        &[("%r0", "7")],
    );
    assert_eq!(reg(&r, 0, "%r2"), "0x0000000c");
    assert_eq!(reg(&r, 0, "%r3"), "0x000000c0");
    assert_eq!(r.steps, 3);
}

#[test]
fn loops_and_divergence_reconverge() {
    let text = "
.reg .b32 %r<4>;
.reg .pred %p<2>;
    mov.u32 %r0, %tid.x;
    mov.u32 %r1, 0;
    mov.u32 %r2, 0;
LOOP:
    add.u32 %r1, %r1, %r2;
    add.u32 %r2, %r2, 1;
    setp.le.u32 %p0, %r2, %r0;
@%p0 bra LOOP;
    activemask.b32 %r3;
";
    let r = run(text, 40, &[]);
    // Thread t sums 0..=t.
    assert_eq!(reg(&r, 5, "%r1"), "0x0000000f");
    assert_eq!(reg(&r, 39, "%r1"), format!("{:#010x}", 39 * 40 / 2));
    assert_eq!(reg(&r, 3, "%r3"), "0xffffffff");
    assert_eq!(reg(&r, 35, "%r3"), "0x000000ff");
}

#[test]
fn shared_memory_and_barrier() {
    let text = "
.reg .b32 %r<4>;
.shared .b32 buf[64];
    mov.u32 %r0, %tid.x;
    shl.b32 %r1, %r0, 2;
    st.shared.u32 [buf+%r1], %r0;
    bar.sync 0;
    xor.b32 %r2, %r0, 63;
    shl.b32 %r2, %r2, 2;
    ld.shared.u32 %r3, [buf+%r2];
";
    let r = run(text, 64, &[]);
    assert_eq!(reg(&r, 0, "%r3"), "0x0000003f");
    assert_eq!(reg(&r, 40, "%r3"), "0x00000017");
}

#[test]
fn shuffles_and_votes() {
    let text = "
.reg .b32 %r<5>;
.reg .pred %p<2>;
    mov.u32 %r0, %laneid;
    shfl.sync.bfly.b32 %r1, %r0, 1, 0x1f, 0xffffffff;
    shfl.sync.up.b32 %r2|%p0, %r0, 3, 0, 0xffffffff;
    setp.lt.u32 %p1, %r0, 10;
    vote.sync.ballot.b32 %r3, %p1, 0xffffffff;
    redux.sync.add.u32 %r4, %r0, 0xffffffff;
";
    let r = run(text, 32, &[]);
    assert_eq!(reg(&r, 4, "%r1"), "0x00000005");
    assert_eq!(reg(&r, 4, "%r2"), "0x00000001");
    assert_eq!(reg(&r, 1, "%r2"), "0x00000001");
    assert_eq!(reg(&r, 1, "%p0"), "0");
    assert_eq!(reg(&r, 0, "%r3"), "0x000003ff");
    assert_eq!(reg(&r, 9, "%r4"), format!("{:#010x}", 31 * 32 / 2));
}
