//! The debug session: breakpoints (line, function, conditional, hit count,
//! log), steps over / into / out of a `.func`, pause, faults that stop at
//! their line, and what a stopped session shows (warps, frames, registers,
//! watch expressions, memory).

use std::fmt::Write as _;

use expect_test::{expect, Expect};
use ptx_interp::{
    parse_arg, BreakpointSpec, DebugTarget, KernelOptions, Outcome, Resume, Session,
    SnippetOptions, StopReason,
};
use ptx_syntax::Parse;

const KERNEL: &str = "\
.version 8.0
.target sm_90
.address_size 64

.func (.reg .u32 out) twice(.reg .u32 in)
{
    add.u32 out, in, in;
    ret;
}

.visible .entry k(.param .u64 buf, .param .u32 n)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    .reg .pred %p<2>;
    mov.u32 %r1, %tid.x;
    call (%r2), twice, (%r1);
    ld.param.u64 %rd1, [buf];
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    setp.lt.u32 %p1, %r1, 40;
@%p1 bra SKIP;
    add.u32 %r2, %r2, 1;
SKIP:
    bar.sync 0;
    ret;
}
";

fn kernel() -> DebugTarget {
    let options = KernelOptions {
        entry: "k".to_owned(),
        grid: [2, 1, 1],
        block: [64, 1, 1],
        args: vec![
            parse_arg("zeros:256").unwrap(),
            parse_arg("u32:64").unwrap(),
        ],
        ..KernelOptions::default()
    };
    DebugTarget::kernel(&Parse::new(KERNEL), &options).unwrap()
}

fn snippet(text: &str, threads: u32) -> DebugTarget {
    snippet_limited(text, threads, ptx_interp::DEFAULT_MAX_STEPS)
}

fn snippet_limited(text: &str, threads: u32, max_steps: u64) -> DebugTarget {
    let options = SnippetOptions {
        threads,
        max_steps,
        ..SnippetOptions::default()
    };
    DebugTarget::snippet(&Parse::new(text), &options).unwrap()
}

/// Resumes and describes where the session stopped.
fn go(s: &mut Session<'_>, how: Resume, focus: usize) -> String {
    let resumed = s.resume(how, focus);
    let mut out = String::new();
    for log in &resumed.logs {
        writeln!(out, "log: {log}").unwrap();
    }
    match resumed.outcome {
        Outcome::Finished { faulted } => write!(out, "finished (faulted: {faulted})").unwrap(),
        Outcome::Stopped { reason, warp, lane } => {
            let frames = s.frames(warp, lane);
            let (cta, _) = s.cta();
            let stack: Vec<String> = frames
                .iter()
                .map(|f| format!("{}:{}", f.function, f.line))
                .collect();
            write!(
                out,
                "{reason:?} cta {cta:?} warp {warp} lane {lane} at {}",
                stack.join(" < ")
            )
            .unwrap();
        }
    }
    out
}

fn check(actual: String, expect: Expect) {
    expect.assert_eq(&actual);
}

#[test]
fn line_breakpoints_stop_every_warp_then_every_cta() {
    let target = kernel();
    let mut s = Session::new(&target);
    let states = s.set_breakpoints(&[
        BreakpointSpec {
            line: 19,
            ..Default::default()
        },
        BreakpointSpec {
            line: 3,
            ..Default::default()
        },
        BreakpointSpec {
            line: 100,
            ..Default::default()
        },
    ]);
    check(
        format!("{states:?}"),
        expect![[
            r#"[BreakpointState { id: 1, verified: true, line: 19, message: None }, BreakpointState { id: 2, verified: true, line: 7, message: None }, BreakpointState { id: 3, verified: false, line: 100, message: Some("no instruction on line 100 or after it") }]"#
        ]],
    );
    let mut trace = Vec::new();
    for _ in 0..7 {
        trace.push(go(&mut s, Resume::Continue, 0));
    }
    check(
        trace.join("\n"),
        expect![[r#"
            Breakpoint([2]) cta [0, 0, 0] warp 0 lane 0 at twice:7 < k:17
            Breakpoint([1]) cta [0, 0, 0] warp 0 lane 0 at k:19
            Breakpoint([2]) cta [0, 0, 0] warp 1 lane 0 at twice:7 < k:17
            Breakpoint([1]) cta [0, 0, 0] warp 1 lane 0 at k:19
            Breakpoint([2]) cta [1, 0, 0] warp 0 lane 0 at twice:7 < k:17
            Breakpoint([1]) cta [1, 0, 0] warp 0 lane 0 at k:19
            Breakpoint([2]) cta [1, 0, 0] warp 1 lane 0 at twice:7 < k:17"#]],
    );
    s.set_breakpoints(&[]);
    check(
        go(&mut s, Resume::Continue, 0),
        expect!["finished (faulted: false)"],
    );
    let (_, _, _, bytes) = s.buffers()[0];
    assert_eq!(&bytes[4..8], &[2, 0, 0, 0]);
    assert_eq!(&bytes[252..256], &[126, 0, 0, 0]);
}

#[test]
fn conditions_hit_counts_and_logpoints() {
    let target = kernel();
    let mut s = Session::new(&target);
    s.set_breakpoints(&[
        BreakpointSpec {
            line: 19,
            condition: Some("%tid.x == 37 && %r2 > 10".to_owned()),
            ..Default::default()
        },
        BreakpointSpec {
            line: 18,
            log_message: Some("tid {%tid.x} r2={%r2} rd1={%rd1 as hex}".to_owned()),
            hit_condition: Some("% 2".to_owned()),
            ..Default::default()
        },
    ]);
    check(
        go(&mut s, Resume::Continue, 0),
        expect![[r#"
            log: tid 32 r2=0x00000040 rd1=0x0000000000000000
            Breakpoint([1]) cta [0, 0, 0] warp 1 lane 5 at k:19"#]],
    );
    check(
        s.evaluate("%r2", 1, 5, s.frames(1, 5)[0].pc).unwrap().text,
        expect!["0x0000004a"],
    );
    s.set_breakpoints(&[BreakpointSpec {
        line: 16,
        hit_condition: Some("== 2".to_owned()),
        ..Default::default()
    }]);
    check(
        go(&mut s, Resume::Continue, 0),
        expect!["Breakpoint([3]) cta [1, 0, 0] warp 1 lane 0 at k:16"],
    );
    let bad = s.set_breakpoints(&[BreakpointSpec {
        line: 16,
        condition: Some("%nope == 1".to_owned()),
        ..Default::default()
    }]);
    check(
        format!("{:?}", bad[0].message),
        expect![[r#"Some("condition: no register `%nope`")"#]],
    );
}

#[test]
fn steps_over_into_and_out_of_a_func() {
    let target = kernel();
    let mut s = Session::new(&target);
    s.set_function_breakpoints(&[("k".to_owned(), BreakpointSpec::default())]);
    let mut trace = vec![go(&mut s, Resume::Continue, 0)];
    trace.push(go(&mut s, Resume::Over, 0));
    trace.push(go(&mut s, Resume::Into, 0));
    trace.push(go(&mut s, Resume::Into, 0));
    trace.push(go(&mut s, Resume::Out, 0));
    trace.push(go(&mut s, Resume::Over, 0));
    // Another warp's breakpoint stops a step of warp 0 that reaches the barrier.
    s.set_function_breakpoints(&[("twice".to_owned(), BreakpointSpec::default())]);
    for _ in 0..6 {
        trace.push(go(&mut s, Resume::Over, 0));
    }
    check(
        trace.join("\n"),
        expect![[r#"
            Breakpoint([1]) cta [0, 0, 0] warp 0 lane 0 at k:16
            Step cta [0, 0, 0] warp 0 lane 0 at k:17
            Step cta [0, 0, 0] warp 0 lane 0 at twice:7 < k:17
            Step cta [0, 0, 0] warp 0 lane 0 at twice:8 < k:17
            Step cta [0, 0, 0] warp 0 lane 0 at k:18
            Step cta [0, 0, 0] warp 0 lane 0 at k:19
            Step cta [0, 0, 0] warp 0 lane 0 at k:20
            Step cta [0, 0, 0] warp 0 lane 0 at k:21
            Step cta [0, 0, 0] warp 0 lane 0 at k:22
            Step cta [0, 0, 0] warp 0 lane 0 at k:23
            Step cta [0, 0, 0] warp 0 lane 0 at k:26
            Breakpoint([2]) cta [0, 0, 0] warp 1 lane 0 at twice:7 < k:17"#]],
    );
    check(
        format!("{:?}", s.warp(0)),
        expect!["WarpView { index: 0, valid: 4294967295, exited: 0, blocked: 4294967295, groups: [(12, 4294967295)] }"],
    );
}

#[test]
fn a_stopped_session_shows_registers_views_and_memory() {
    let target = kernel();
    let mut s = Session::new(&target);
    s.set_breakpoints(&[BreakpointSpec {
        line: 23,
        ..Default::default()
    }]);
    check(
        go(&mut s, Resume::Continue, 0),
        expect!["Breakpoint([1]) cta [0, 0, 0] warp 0 lane 0 at k:23"],
    );
    let pc = s.frames(0, 3)[0].pc;
    let regs: Vec<String> = s
        .registers(0, 3, pc, false)
        .iter()
        .map(|r| format!("{} .{} = {}", r.name, r.ty, r.text()))
        .collect();
    check(
        regs.join("; "),
        expect!["%r0 .b32 = 0x00000000; %r1 .b32 = 0x00000003; %r2 .b32 = 0x00000006; %r3 .b32 = 0x00000000; %r4 .b32 = 0x00000000; %r5 .b32 = 0x00000000; %rd0 .b64 = 0x0000000000000000; %rd1 .b64 = 0x00007f0000000000; %rd2 .b64 = 0x000000000000000c; %rd3 .b64 = 0x00007f000000000c"],
    );
    let preds: Vec<String> = s
        .registers(0, 3, pc, true)
        .iter()
        .map(|r| format!("{} = {}", r.name, r.text()))
        .collect();
    check(preds.join("; "), expect!["%p0 = 0; %p1 = 1"]);
    let mut lines = Vec::new();
    for text in [
        "%r2",
        "%r2 as hex",
        "%r2@lane 7",
        "%r1 * 2 + 1 == %r2 + 1",
        "%rd1 as hex",
        "[buf+8] as u32[4]",
        "[buf] as f32[2]",
        "n - 1",
        "%r2 as f16x2",
        "%r2 as bf16x2",
        "%r2 as f32",
        "%tid.x",
        "%r9",
        "[buf+4096]",
        "%r2@lane 40",
    ] {
        let out = match s.evaluate(text, 0, 3, pc) {
            Ok(v) => v.text,
            Err(e) => format!("error: {e}"),
        };
        lines.push(format!("{text} => {out}"));
    }
    check(
        lines.join("\n"),
        expect![[r#"
        %r2 => 0x00000006
        %r2 as hex => 0x00000006
        %r2@lane 7 => 0x0000000e
        %r1 * 2 + 1 == %r2 + 1 => 1
        %rd1 as hex => 0x00007f0000000000
        [buf+8] as u32[4] => [4, 6, 8, 10]
        [buf] as f32[2] => [0.0, 3e-45]
        n - 1 => 63
        %r2 as f16x2 => (3.5762786865234375e-7, 0.0)
        %r2 as bf16x2 => (5.510129769479473e-40, 0.0)
        %r2 as f32 => 8e-45
        %tid.x => 3
        %r9 => error: no register `%r9`
        [buf+4096] => error: 4-byte access at global address 0x7f0000001000 is out of bounds
        %r2@lane 40 => error: `@lane 40`: a lane is 0 to 31"#]],
    );
    let views = s.registers(0, 3, pc, false)[2].views();
    check(
        format!("{views:?}"),
        expect![[
            r#"[("hex", "0x00000006"), ("unsigned", "6"), ("signed", "6"), ("f32", "8e-45"), ("f16x2", "(3.5762786865234375e-7, 0.0)"), ("bf16x2", "(5.510129769479473e-40, 0.0)")]"#
        ]],
    );
    let set = s.set_register("%r2", "-1", 0, 3, pc).unwrap();
    check(
        format!("{} {}", set.text(), set.views()[0].1),
        expect!["0xffffffff 0xffffffff"],
    );
    assert!(s.set_register("%r2", "x", 0, 3, pc).is_err());
    let memory = s.read_memory(0, 0, 0x7f00_0000_0000, 12).unwrap();
    check(
        format!("{memory:?}"),
        expect!["[0, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0]"],
    );
    let specials: Vec<String> = s
        .specials(0, 3)
        .iter()
        .map(|(n, v)| format!("{n}={v}"))
        .collect();
    check(specials.join(" "), expect!["%tid.x=3 %tid.y=0 %tid.z=0 %ntid.x=64 %ntid.y=1 %ntid.z=1 %ctaid.x=0 %ctaid.y=0 %ctaid.z=0 %nctaid.x=2 %nctaid.y=1 %nctaid.z=1 %laneid=3 %warpid=0 %nwarpid=2 %lanemask_lt=7 %clock64=9 %dynamic_smem_size=0"]);
}

#[test]
fn divergence_shows_which_lanes_are_where() {
    let target = kernel();
    let mut s = Session::new(&target);
    s.set_breakpoints(&[BreakpointSpec {
        line: 24,
        ..Default::default()
    }]);
    check(
        go(&mut s, Resume::Continue, 1),
        expect!["Breakpoint([1]) cta [0, 0, 0] warp 1 lane 8 at k:24"],
    );
    check(format!("{:?}", s.warp(1)), expect!["WarpView { index: 1, valid: 4294967295, exited: 0, blocked: 0, groups: [(11, 4294967040), (12, 255)] }"]);
    check(
        go(&mut s, Resume::Over, 1),
        expect!["Step cta [0, 0, 0] warp 1 lane 0 at k:26"],
    );
}

#[test]
fn faults_stop_at_their_line() {
    let cases = [
        (
            ".reg .b64 %a;\n.reg .b32 %v;\nmov.u64 %a, 12;\nld.global.u32 %v, [%a];\n",
            1,
        ),
        (
            ".shared .b32 s[4];\n.reg .b32 %v;\nmov.u32 %v, 1;\nst.shared.u32 [s+2], %v;\n",
            1,
        ),
        (
            ".reg .b32 %t;\n.reg .pred %p;\nmov.u32 %t, %tid.x;\nsetp.lt.u32 %p, %t, 32;\n@%p bra A;\nbar.sync 1;\nbra END;\nA:\nbar.sync 0;\nEND:\n",
            64,
        ),
        (".reg .b32 %v;\nmov.u32 %v, 1;\nbrkpt;\n", 1),
        (
            ".reg .b32 %v;\nmov.u32 %v, 1;\ntcgen05.fence::before_thread_sync;\n",
            1,
        ),
    ];
    let mut out = Vec::new();
    for (text, threads) in cases {
        let target = snippet(text, threads);
        let mut s = Session::new(&target);
        out.push(go(&mut s, Resume::Continue, 0));
        out.push(go(&mut s, Resume::Continue, 0));
    }
    check(
        out.join("\n"),
        expect![[r#"
            Fault("4-byte access at global address 0xc is out of bounds") cta [0, 0, 0] warp 0 lane 0 at :4
            finished (faulted: true)
            Fault("misaligned 4-byte access at shared address 0x2") cta [0, 0, 0] warp 0 lane 0 at :4
            finished (faulted: true)
            Fault("deadlock: no barrier can complete, so the GPU would hang: threads 0-31 wait at barrier 0 on line 9 (it needs all 64 threads of the CTA that have not exited, 32 arrived); threads 32-63 wait at barrier 1 on line 6 (it needs all 64 threads of the CTA that have not exited, 32 arrived)") cta [0, 0, 0] warp 0 lane 0 at :9
            finished (faulted: true)
            Fault("`brkpt` stops the kernel") cta [0, 0, 0] warp 0 lane 0 at :3
            finished (faulted: true)
            Fault("`tcgen05.fence::before_thread_sync` is not supported by the interpreter") cta [0, 0, 0] warp 0 lane 0 at :3
            finished (faulted: true)"#]],
    );
}

#[test]
fn pause_stops_a_long_loop() {
    // Without the pause, the step limit would end it with a fault.
    let target = snippet_limited(
        ".reg .b32 %i;\n.reg .pred %p;\nmov.u32 %i, 0;\nL:\nadd.u32 %i, %i, 1;\nsetp.lt.u32 %p, %i, 100000000;\n@%p bra L;\n",
        1,
        60_000_000,
    );
    let mut s = Session::new(&target);
    let flag = s.pause_flag();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        flag.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    let resumed = s.resume(Resume::Continue, 0);
    stopper.join().unwrap();
    match resumed.outcome {
        Outcome::Stopped {
            reason: StopReason::Pause,
            warp: 0,
            ..
        } => {}
        other => panic!("{other:?}"),
    }
    let pc = s.frames(0, 0)[0].pc;
    let i: u64 = s
        .evaluate("%i as u", 0, 0, pc)
        .unwrap()
        .text
        .parse()
        .unwrap();
    assert!(i > 0 && i < 100_000_000, "{i}");
}

#[test]
fn mbarrier_states_are_shown() {
    let target = snippet(
        ".shared .align 8 .b64 mb;\n.reg .b32 %n;\n.reg .b64 %st;\n    mov.u32 %n, 32;\n    mbarrier.init.shared.b64 [mb], %n;\n    mbarrier.arrive.shared.b64 %st, [mb];\n    mov.u32 %n, 0;\n",
        1,
    );
    let mut s = Session::new(&target);
    s.set_breakpoints(&[BreakpointSpec {
        line: 7,
        ..Default::default()
    }]);
    check(
        go(&mut s, Resume::Continue, 0),
        expect!["Breakpoint([1]) cta [0, 0, 0] warp 0 lane 0 at :7"],
    );
    check(
        format!("{:?}", s.mbarriers()),
        expect![[r#"[(0, "phase 0, 31 of 32 arrivals pending, tx-count 0")]"#]],
    );
}

/// The fragment-layout view agrees with what `ldmatrix` does: each element
/// of the matrices in shared memory (element `64j + 8r + c` of matrix `j`,
/// row `r`, column `c` holds that number) is found in the lane and register
/// half the view names, with and without `.trans`.
#[test]
fn the_ldmatrix_layout_names_where_each_element_landed() {
    const LDMATRIX: &str = "\
.version 8.0
.target sm_90
.address_size 64

.visible .entry lm()
{
    .shared .align 16 .b16 tile[128];
    .reg .b32 %r<8>;
    .reg .b32 %addr;
    .reg .b16 %h;
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    mov.u32 %addr, tile;
    shl.b32 %r3, %r2, 1;
    add.u32 %r3, %r3, %addr;
    cvt.u16.u32 %h, %r2;
    st.shared.u16 [%r3], %h;
    add.u32 %r4, %r2, 1;
    cvt.u16.u32 %h, %r4;
    st.shared.u16 [%r3+2], %h;
    add.u32 %r4, %r2, 2;
    cvt.u16.u32 %h, %r4;
    st.shared.u16 [%r3+4], %h;
    add.u32 %r4, %r2, 3;
    cvt.u16.u32 %h, %r4;
    st.shared.u16 [%r3+6], %h;
    bar.sync 0;
    and.b32 %r5, %r1, 15;
    shl.b32 %r5, %r5, 4;
    add.u32 %r5, %r5, %addr;
    ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r6, %r7}, [%r5];
    ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r6, %r7}, [%r5];
    ret;
}
";
    let options = KernelOptions {
        entry: "lm".to_owned(),
        block: [32, 1, 1],
        ..KernelOptions::default()
    };
    let target = DebugTarget::kernel(&Parse::new(LDMATRIX), &options).unwrap();
    let mut session = Session::new(&target);
    let (plain, _) = target.resolve_line(31).unwrap();
    let (trans, _) = target.resolve_line(32).unwrap();
    assert!(
        session.layout(0, plain - 1).is_none(),
        "not a matrix instruction"
    );
    session.set_breakpoints(&[
        BreakpointSpec {
            line: 32,
            ..BreakpointSpec::default()
        },
        BreakpointSpec {
            line: 33,
            ..BreakpointSpec::default()
        },
    ]);
    for pc in [plain, trans] {
        let resumed = session.resume(Resume::Continue, 0);
        assert!(matches!(resumed.outcome, Outcome::Stopped { .. }));
        let layout = session.layout(0, pc).unwrap();
        assert_eq!(layout.matrices.len(), 2);
        for (j, matrix) in layout.matrices.iter().enumerate() {
            assert_eq!(matrix.name, format!("matrix {j}: 8×8 .b16"));
            for (r, row) in matrix.cells.iter().enumerate() {
                for (c, cell) in row.iter().enumerate() {
                    assert_eq!(cell.len(), 1);
                    let value = u64::from_str_radix(&cell[0].value[2..], 16).unwrap();
                    assert_eq!(
                        value,
                        (64 * j + 8 * r + c) as u64,
                        "{pc} {j} {r} {c} {cell:?}"
                    );
                    assert!(cell[0].register.starts_with(["%r6", "%r7"][j]));
                }
            }
        }
    }
    let layout = session.layout(0, plain).unwrap();
    check(
        layout.text().lines().take(5).collect::<Vec<_>>().join("\n"),
        expect![[r#"
            line 31: ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r6, %r7}, [%r5];
            matrix 0: 8×8 .b16
                      col 0      col 1      col 2      col 3      col 4      col 5      col 6      col 7
               row 0  t0 %r6.lo  t0 %r6.hi  t1 %r6.lo  t1 %r6.hi  t2 %r6.lo  t2 %r6.hi  t3 %r6.lo  t3 %r6.hi
               row 1  t4 %r6.lo  t4 %r6.hi  t5 %r6.lo  t5 %r6.hi  t6 %r6.lo  t6 %r6.hi  t7 %r6.lo  t7 %r6.hi"#]],
    );
}
