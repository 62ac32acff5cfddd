//! Named barriers: thread counts, `bar.arrive`, and deadlocks the GPU would
//! hang on (warps waiting at different barriers, counts that cannot be
//! met), which end the run with a fault naming each waiting line.

use ptx_interp::{run_snippet, RunErrorKind, SnippetOptions};
use ptx_syntax::Parse;

fn run(text: &str, threads: u32) -> Result<ptx_interp::RunResult, ptx_interp::RunError> {
    run_snippet(
        &Parse::new(text),
        &SnippetOptions {
            threads,
            ..SnippetOptions::default()
        },
    )
}

fn fault(text: &str, threads: u32) -> String {
    match run(text, threads) {
        Ok(_) => panic!("the run completed"),
        Err(e) => {
            assert_eq!(e.kind, RunErrorKind::Fault, "{}", e.message);
            e.message
        }
    }
}

fn reg(result: &ptx_interp::RunResult, thread: usize, name: &str) -> u64 {
    result.threads[thread]
        .registers
        .iter()
        .find(|r| r.name == name)
        .map_or(u64::MAX, |r| r.bits)
}

#[test]
fn warps_at_different_barriers_deadlock() {
    let text = ".reg .b32 %t;\n.reg .pred %p;\nmov.u32 %t, %tid.x;\nsetp.lt.u32 %p, %t, 32;\n@%p bra A;\nbar.sync 1;\nbra END;\nA:\nbar.sync 0;\nEND:\n";
    let message = fault(text, 64);
    assert_eq!(
        message,
        "deadlock: no barrier can complete, so the GPU would hang: threads 0-31 wait at barrier 0 on line 9 (it needs all 64 threads of the CTA that have not exited, 32 arrived); threads 32-63 wait at barrier 1 on line 6 (it needs all 64 threads of the CTA that have not exited, 32 arrived)"
    );
}

#[test]
fn a_count_larger_than_the_cta_deadlocks() {
    let message = fault("bar.sync 0, 96;\n", 64);
    assert_eq!(
        message,
        "deadlock: no barrier can complete, so the GPU would hang: threads 0-63 wait at barrier 0 on line 1 (it needs 96 threads, 64 arrived)"
    );
}

#[test]
fn a_barrier_with_different_counts_is_reported() {
    let text = ".reg .b32 %t;\n.reg .pred %p;\nmov.u32 %t, %tid.x;\nsetp.lt.u32 %p, %t, 32;\n@%p bra A;\nbar.sync 1, 64;\nbra END;\nA:\nbar.sync 1, 32;\nEND:\n";
    let message = fault(text, 64);
    assert_eq!(
        message,
        "barrier 1 is used here for 64 threads but for 32 threads at line 9 (the GPU's behaviour is undefined)"
    );
}

#[test]
fn counted_barriers_of_separate_groups_complete() {
    // Warps 0-1 meet at barrier 1, warps 2-3 at barrier 2, 64 threads each.
    let text = ".shared .b32 s[128];\n.reg .b32 %t, %a, %v, %o;\n.reg .pred %p;\nmov.u32 %t, %tid.x;\nshl.b32 %a, %t, 2;\nmov.u32 %o, s;\nadd.u32 %a, %a, %o;\nst.shared.u32 [%a], %t;\nsetp.lt.u32 %p, %t, 64;\n@%p bra LOW;\nbar.sync 2, 64;\nbra READ;\nLOW:\nbar.sync 1, 64;\nREAD:\nxor.b32 %a, %a, 0x80;\nld.shared.u32 %v, [%a];\n";
    let result = run(text, 128).expect("completes");
    assert_eq!(reg(&result, 0, "%v"), 32);
    assert_eq!(reg(&result, 100, "%v"), 68);
}

#[test]
fn producers_arrive_and_consumers_wait() {
    // Warp 1 writes and arrives at barrier 3; warp 0 waits there, then reads.
    let text = ".shared .b32 s[32];\n.reg .b32 %t, %a, %v, %o;\n.reg .pred %p;\nmov.u32 %t, %tid.x;\nmov.u32 %o, s;\nand.b32 %a, %t, 31;\nshl.b32 %a, %a, 2;\nadd.u32 %a, %a, %o;\nsetp.lt.u32 %p, %t, 32;\n@%p bra CONSUME;\nmul.lo.u32 %v, %t, 3;\nst.shared.u32 [%a], %v;\nbar.arrive 3, 64;\nbra END;\nCONSUME:\nbar.sync 3, 64;\nld.shared.u32 %v, [%a];\nEND:\n";
    let result = run(text, 64).expect("completes");
    assert_eq!(reg(&result, 5, "%v"), 37 * 3);
}

#[test]
fn exited_threads_do_not_hold_a_cta_barrier() {
    let text = ".reg .b32 %t;\n.reg .pred %p;\nmov.u32 %t, %tid.x;\nsetp.ge.u32 %p, %t, 40;\n@%p exit;\nbar.sync 0;\nadd.u32 %t, %t, 1;\n";
    let result = run(text, 96).expect("completes");
    assert_eq!(reg(&result, 39, "%t"), 40);
}
