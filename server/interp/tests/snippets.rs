//! Snippet-mode behaviour: control flow, divergence, memory, collectives
//! and errors, asserted on final register values.

use ptx_interp::{run_snippet, RunResult, SnippetOptions};
use ptx_syntax::Parse;

fn run(text: &str, threads: u32, set: &[(&str, &str)]) -> RunResult {
    let options = SnippetOptions {
        threads,
        set: set
            .iter()
            .map(|(r, v)| (r.to_string(), v.to_string()))
            .collect(),
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

#[test]
fn tensor_memory_round_trip_through_every_shape() {
    // Store lane·1000 + column with .32x32b (thread t owns lane t), then read
    // it back with the 16-lane shapes and check where each value came from.
    let text = "
.shared .b32 slot;
.reg .b32 %r<8>, %t, %l, %a;
    mov.u32 %l, %laneid;
    mov.u32 %a, slot;
    tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%a], 32;
    ld.shared.b32 %t, [slot];
    mul.lo.u32 %r0, %l, 1000;
    add.u32 %r1, %r0, 1;
    add.u32 %r2, %r0, 2;
    add.u32 %r3, %r0, 3;
    tcgen05.st.sync.aligned.32x32b.x4.b32 [%t], {%r0, %r1, %r2, %r3};
    tcgen05.wait::st.sync.aligned;
    tcgen05.ld.sync.aligned.16x256b.x1.b32 {%r4, %r5, %r6, %r7}, [%t];
    tcgen05.ld.sync.aligned.16x64b.x1.b32 {%r0}, [%t];
    tcgen05.ld.sync.aligned.16x64b.x1.pack::16b.b32 {%r1}, [%t];
    tcgen05.dealloc.cta_group::1.sync.aligned.b32 %t, 32;
    tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
";
    let r = run(text, 32, &[]);
    // .16x256b: thread 5 → lanes 1 and 9, columns 2 and 3.
    assert_eq!(reg(&r, 5, "%r4"), format!("{:#010x}", 1002));
    assert_eq!(reg(&r, 5, "%r5"), format!("{:#010x}", 1003));
    assert_eq!(reg(&r, 5, "%r6"), format!("{:#010x}", 9002));
    // .16x64b: thread 3 → lane 8, column 1.
    assert_eq!(reg(&r, 3, "%r0"), format!("{:#010x}", 8001));
    // pack::16b: thread 3 → lane 8, columns 2 and 3 in the two halves.
    assert_eq!(reg(&r, 3, "%r1"), format!("{:#010x}", (8003 << 16) | 8002));
}

#[test]
fn unallocated_tensor_memory_is_a_fault() {
    let text = ".reg .b32 %r0;\ntcgen05.ld.sync.aligned.32x32b.x1.b32 {%r0}, [0];\n";
    let error = run_snippet(&Parse::new(text), &SnippetOptions::default()).unwrap_err();
    assert!(error.message.contains("not allocated"), "{error:?}");
    assert_eq!(error.thread, Some(0));
    assert_eq!(error.range, Some(15..text.len() - 1));
}

/// A `.16x32bx2` split offset past the last column reaches columns that
/// are not allocated: a fault, for every offset up to the largest.
#[test]
fn a_split_offset_past_the_last_column_is_a_fault() {
    for offset in ["512", "0xffffffff"] {
        let text = format!(
            ".shared .b32 slot;\n.reg .b32 %r<2>, %t, %a;\nmov.u32 %a, slot;\ntcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%a], 32;\nld.shared.b32 %t, [slot];\ntcgen05.ld.sync.aligned.16x32bx2.x2.pack::16b.b32 {{%r0, %r1}}, [%t], {offset};\n"
        );
        let options = SnippetOptions {
            threads: 32,
            ..SnippetOptions::default()
        };
        let error = run_snippet(&Parse::new(&text), &options).unwrap_err();
        assert!(
            error.message.contains("not allocated"),
            "{offset}: {error:?}"
        );
    }
}

#[test]
fn per_line_values_follow_the_selected_thread() {
    let text = ".reg .b32 %r<3>;\n.reg .pred %p;\nmov.u32 %r0, %tid.x;\nmov.u32 %r1, 0;\nL:\nadd.u32 %r1, %r1, %r0;\nadd.u32 %r2, %r2, 1;\nsetp.lt.u32 %p, %r2, 4;\n@%p bra L;\n";
    let options = SnippetOptions {
        threads: 8,
        hint_thread: 5,
        ..SnippetOptions::default()
    };
    let result = run_snippet(&Parse::new(text), &options).expect("runs");
    let add = result
        .lines
        .iter()
        .find(|l| text[l.range.clone()].starts_with("add.u32 %r1"))
        .expect("a record for the loop body");
    assert_eq!(add.executions, 4);
    assert_eq!(add.values[0].name, "%r1");
    assert_eq!(add.values[0].text(), "0x00000014");
    let setp = result
        .lines
        .iter()
        .find(|l| text[l.range.clone()].starts_with("setp"))
        .expect("setp record");
    assert_eq!(setp.values[0].text(), "0");
    // Lines come in source order.
    assert!(result
        .lines
        .windows(2)
        .all(|w| w[0].range.start < w[1].range.start));
}

#[test]
fn calls_with_register_parameters_and_divergent_returns() {
    let text = "
.func (.reg .b32 out) twice_or_negate(.reg .b32 x)
{
    .reg .pred %odd;
    .reg .b32 %t;
    and.b32 %t, x, 1;
    setp.ne.u32 %odd, %t, 0;
@%odd bra ODD;
    shl.b32 out, x, 1;
    ret;
ODD:
    neg.s32 out, x;
    ret;
}
.reg .b32 %r<3>;
    mov.u32 %r0, %tid.x;
    call (%r1), twice_or_negate, (%r0);
    activemask.b32 %r2;
";
    let r = run(text, 6, &[]);
    assert_eq!(reg(&r, 4, "%r1"), "0x00000008");
    assert_eq!(reg(&r, 3, "%r1"), "0xfffffffd");
    // Both return paths reconverge before activemask.
    assert_eq!(reg(&r, 0, "%r2"), "0x0000003f");
}

const MBARRIER_DECLS: &str = "
.shared .align 8 .b64 mb;
.shared .align 4 .b32 data[32];
.reg .b32 %l, %x, %v, %d, %n;
.reg .b64 %st;
.reg .pred %c, %p, %q;
    mov.u32 %l, %tid.x;
    setp.eq.u32 %c, %l, 0;
@%c mbarrier.init.shared.b64 [mb], %n;
    bar.sync 0;
";

#[test]
fn mbarrier_waits_let_the_producer_warp_run() {
    // Warp 0 waits (try_wait.parity) for warp 1, which runs after it.
    let text = format!(
        "{MBARRIER_DECLS}
    setp.ge.u32 %c, %l, 32;
@%c bra PRODUCE;
WAIT:
    mbarrier.try_wait.parity.shared.b64 %p, [mb], 0;
@!%p bra WAIT;
    mov.u32 %x, data;
    mad.lo.u32 %x, %l, 4, %x;
    ld.shared.b32 %d, [%x];
    bra DONE;
PRODUCE:
    and.b32 %v, %l, 31;
    mul.lo.u32 %d, %v, 3;
    mov.u32 %x, data;
    mad.lo.u32 %x, %v, 4, %x;
    st.shared.b32 [%x], %d;
    mbarrier.arrive.shared.b64 %st, [mb];
    mbarrier.test_wait.shared.b64 %q, [mb], %st;
DONE:
    mbarrier.pending_count.b64 %n, %st;
"
    );
    let r = run(&text, 64, &[("%n", "32")]);
    assert_eq!(reg(&r, 7, "%d"), "0x00000015");
    assert_eq!(reg(&r, 7, "%p"), "1");
    assert_eq!(reg(&r, 40, "%q"), "1");
    // The token holds the pending count before the warp's arrival.
    assert_eq!(reg(&r, 40, "%n"), "0x00000020");
}

#[test]
fn mbarrier_phases_drops_and_transactions() {
    let text = format!(
        "{MBARRIER_DECLS}
    @%c mbarrier.expect_tx.shared.b64 [mb], 16;
    setp.lt.u32 %c, %l, 2;
    @%c mbarrier.arrive_drop.shared.b64 %st, [mb];
    @%c mbarrier.arrive.shared.b64 %st, [mb];
    mbarrier.test_wait.parity.shared.b64 %p, [mb], 0;
    setp.eq.u32 %c, %l, 0;
    @%c mbarrier.complete_tx.shared.b64 [mb], 16;
    mbarrier.test_wait.parity.shared.b64 %q, [mb], 0;
    @%c mbarrier.arrive.shared.b64 %st, [mb], 2;
    mbarrier.pending_count.b64 %v, %st;
"
    );
    // Four arrivals complete the count, the transactions hold the phase;
    // the drops leave 2 expected arrivals for phase 1.
    let r = run(&text, 32, &[("%n", "4")]);
    assert_eq!(reg(&r, 0, "%p"), "0");
    assert_eq!(reg(&r, 0, "%q"), "1");
    assert_eq!(reg(&r, 0, "%v"), "0x00000002");
    let text = text.replace(
        "[mb], 16;\n    setp.lt.u32 %c, %l, 2;",
        "[mb], 0;\n    setp.lt.u32 %c, %l, 8;",
    );
    let error = run_snippet(
        &Parse::new(&text),
        &SnippetOptions {
            threads: 32,
            set: vec![("%n".into(), "4".into())],
            ..SnippetOptions::default()
        },
    )
    .expect_err("8 arrivals on a count of 4");
    assert!(error.message.contains("exceed"), "{}", error.message);
}

#[test]
fn cp_async_zero_fills_and_bulk_copies_complete_on_their_barrier() {
    let text = "
.global .align 16 .b32 src[4] = {1, 2, 3, 4};
.shared .align 16 .b32 dst[4];
.reg .b32 %a, %b, %c, %d, %n;
.reg .b64 %g;
    mov.u64 %g, src;
    cp.async.ca.shared.global [dst], [%g], 16, %n;
    cp.async.commit_group;
    cp.async.wait_group 0;
    ld.shared.v4.b32 {%a, %b, %c, %d}, [dst];
";
    let r = run(text, 1, &[("%n", "6")]);
    assert_eq!(reg(&r, 0, "%a"), "0x00000001");
    assert_eq!(reg(&r, 0, "%b"), "0x00000002");
    assert_eq!(reg(&r, 0, "%c"), "0x00000000");
    // The phase completes when the copy's bytes meet the expected count.
    let bulk = "
.global .align 16 .b32 src[4] = {1, 2, 3, 4};
.shared .align 16 .b32 dst[4];
.shared .align 8 .b64 mb;
.reg .b32 %a;
.reg .b64 %g, %s;
.reg .pred %before, %after;
    mov.u64 %g, src;
    mbarrier.init.shared.b64 [mb], 1;
    mbarrier.arrive.expect_tx.shared.b64 %s, [mb], 16;
    mbarrier.test_wait.parity.shared.b64 %before, [mb], 0;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [%g], 16, [mb];
    mbarrier.test_wait.parity.shared.b64 %after, [mb], 0;
    ld.shared.b32 %a, [dst+12];
";
    let r = run(bulk, 1, &[]);
    assert_eq!(reg(&r, 0, "%before"), "0");
    assert_eq!(reg(&r, 0, "%after"), "1");
    assert_eq!(reg(&r, 0, "%a"), "0x00000004");
    // A tensor-map copy (TMA) reads its tensor map (a kernel argument,
    // `tmap:`; tests/clusters.rs and the cluster fixtures run them).
    let tensor = "
.shared .align 16 .b32 dst[4];
.shared .align 8 .b64 mb;
.reg .b32 %x;
.reg .b64 %g;
    cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [%g, {%x}], [mb];
";
    let error = run_snippet(&Parse::new(tensor), &SnippetOptions::default()).expect_err("tensor");
    assert_eq!(
        error.message,
        "tensor map: 128-byte access at global address 0x0 is out of bounds"
    );
    assert!(error.range.is_some());
}

#[test]
fn cvt_pack_saturates_both_values_and_keeps_the_low_bits_of_c() {
    // a = -300 and b = 200 saturate to the target range; b lands lowest,
    // a above it, and the bits above the pair come from the low bits of c.
    let text = "
.reg .b32 %r<10>;
    cvt.pack.sat.u8.s32.b32 %r3, %r0, %r1, %r2;
    cvt.pack.sat.s8.s32.b32 %r4, %r0, %r1, %r2;
    cvt.pack.sat.s16.s32 %r5, %r0, %r1;
    cvt.pack.sat.u16.s32 %r6, %r1, %r0;
    cvt.pack.sat.s4.s32.b32 %r7, %r0, %r1, %r2;
    cvt.pack.sat.u2.s32.b32 %r8, %r1, %r0, %r2;
";
    let r = run(
        text,
        1,
        &[("%r0", "-300"), ("%r1", "200"), ("%r2", "0x12345678")],
    );
    assert_eq!(reg(&r, 0, "%r3"), "0x567800c8");
    assert_eq!(reg(&r, 0, "%r4"), "0x5678807f");
    assert_eq!(reg(&r, 0, "%r5"), "0xfed400c8");
    assert_eq!(reg(&r, 0, "%r6"), "0x00c80000");
    assert_eq!(reg(&r, 0, "%r7"), "0x34567887");
    assert_eq!(reg(&r, 0, "%r8"), "0x2345678c");
}
