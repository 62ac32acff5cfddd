//! End-to-end tests of `ptx-lsp dap`: the real binary over stdio, driven
//! through a whole debug session as an editor drives it (initialize, launch,
//! breakpoints, configurationDone, stops, threads, stack, scopes, variables,
//! evaluate, steps, continue to the end), plus conditional, hit-count and
//! log breakpoints, a fault, a pause and a restart.

#[path = "dap_common/mod.rs"]
mod common;

use std::time::Duration;

use common::*;
use expect_test::expect;
use serde_json::{json, Value};

fn kernel_launch() -> Value {
    json!({
        "program": fixture("kernel.ptx"),
        "entry": "k",
        "grid": [2, 1, 1],
        "block": "64",
        "args": [format!("buf:u32:{}", vec!["0"; 64].join(",")), "u32:64"],
    })
}

fn kernel_launch_big() -> Value {
    let mut launch = kernel_launch();
    launch["args"] = json!(["zeros:256", "u32:64"]);
    launch
}

#[test]
fn a_whole_session_on_a_kernel() {
    let mut dap = Dap::start(kernel_launch_big(), json!([{"line": 7}, {"line": 21}]));
    let stopped = dap.event("stopped");
    assert_eq!(stopped["reason"], "breakpoint");
    assert_eq!(stopped["threadId"], 1);
    let threads = dap.request("threads", json!({}));
    expect![[r#"[{"id":1,"name":"cta (0,0,0) warp 0"},{"id":2,"name":"cta (0,0,0) warp 1"}]"#]]
        .assert_eq(&threads["threads"].to_string());
    expect!["twice (lane 0):7 < k (lane 0):17"].assert_eq(&dap.stack(1));

    let frame = dap.frame_id(1);
    let scopes = dap.request("scopes", json!({"frameId": frame}));
    let names: Vec<&str> = scopes["scopes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    expect![[r#"["Registers (lane 0)", "Predicates", "Special registers", "Warp 0", "Shared memory", "mbarriers", "Global buffers"]"#]]
        .assert_eq(&format!("{names:?}"));
    let registers = scopes["scopes"][0]["variablesReference"].clone();
    expect![[r#"
        out = 0
        in = 0"#]]
    .assert_eq(&dap.variables(&registers));
    let warp = scopes["scopes"][3]["variablesReference"].clone();
    expect![[r#"
        focused lane = 0
        active mask = 0xffffffff
        threads = 0xffffffff
        exited = 0x00000000
        waiting at a barrier = 0x00000000
        line 7 = lanes 0-31 (issues next)
        divergence = none: all live lanes are together"#]]
    .assert_eq(&dap.variables(&warp));

    let mut evaluated = Vec::new();
    for e in ["in", "in@lane 7", "in * 2 + 1", "%tid.x"] {
        evaluated.push(format!("{e} => {}", dap.evaluate(&frame, e)));
    }
    expect![[r#"
        in => 0
        in@lane 7 => 7
        in * 2 + 1 => 1
        %tid.x => 0"#]]
    .assert_eq(&evaluated.join("\n"));

    // Step over the add to the ret, out to the caller, then one instruction.
    dap.request("next", json!({"threadId": 1}));
    assert_eq!(dap.event("stopped")["reason"], "step");
    expect!["twice (lane 0):8 < k (lane 0):17"].assert_eq(&dap.stack(1));
    dap.request("stepOut", json!({"threadId": 1}));
    assert_eq!(dap.event("stopped")["reason"], "step");
    expect!["k (lane 0):18"].assert_eq(&dap.stack(1));
    dap.request("stepIn", json!({"threadId": 1}));
    assert_eq!(dap.event("stopped")["reason"], "step");
    expect!["k (lane 0):19"].assert_eq(&dap.stack(1));

    dap.request("continue", json!({"threadId": 1}));
    let stopped = dap.event("stopped");
    assert_eq!(stopped["reason"], "breakpoint");
    expect!["k (lane 0):21"].assert_eq(&dap.stack(1));
    let frame = dap.frame_id(1);
    expect!["[0, 0, 0, 0]"].assert_eq(&dap.evaluate(&frame, "[buf] as u32[4]"));
    expect!["(0.0, 0.0)"].assert_eq(&dap.evaluate(&frame, "%r2 as f16x2"));

    // Global buffers: typed elements, and the memory behind them.
    let scopes = dap.request("scopes", json!({"frameId": frame}));
    let buffers = scopes["scopes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "Global buffers")
        .unwrap()["variablesReference"]
        .clone();
    let list = dap.request("variables", json!({"variablesReference": buffers}));
    let buf = list["variables"][0].clone();
    expect![[r#""u32[64] at 0x7f0000000000""#]].assert_eq(&buf["value"].to_string());
    let page = dap.request(
        "variables",
        json!({"variablesReference": buf["variablesReference"], "filter": "indexed", "start": 2, "count": 3}),
    );
    expect![[r#"[{"name":"[2]","value":"0","variablesReference":0},{"name":"[3]","value":"0","variablesReference":0},{"name":"[4]","value":"0","variablesReference":0}]"#]].assert_eq(&page["variables"].to_string());
    let memory = dap.request(
        "readMemory",
        json!({"memoryReference": buf["memoryReference"], "offset": 4, "count": 8}),
    );
    expect![[r#"{"address":"0x7f0000000004","data":"AAAAAAAAAAA="}"#]]
        .assert_eq(&memory.to_string());

    // setVariable on a register of the focused lane.
    let registers = scopes["scopes"][0]["variablesReference"].clone();
    let set = dap.request(
        "setVariable",
        json!({"variablesReference": registers, "name": "%r2", "value": "0x1234"}),
    );
    assert_eq!(set["value"], "0x00001234");
    assert_eq!(dap.evaluate(&frame, "%r2"), "0x00001234");

    dap.request(
        "setBreakpoints",
        json!({"source": {"path": "x"}, "breakpoints": []}),
    );
    dap.request("continue", json!({"threadId": 1}));
    assert_eq!(dap.event("exited")["exitCode"], 0);
    dap.event("terminated");
    expect![[r#"
        the launch finished after 50 warp instructions
        buffer buf at 0x7f0000000000 (256 bytes): 00000000020000000400000006000000080000000a0000000c0000000e00000010000000120000001400000016000000180000001a0000001c0000001e000000…
    "#]].assert_eq(&dap.outputs());
    dap.finish();
}

#[test]
fn conditional_hit_count_and_log_breakpoints() {
    let mut dap = Dap::start(
        kernel_launch_big(),
        json!([
            {"line": 19, "condition": "%tid.x == 37 && %r2 > 10"},
            {"line": 18, "logMessage": "tid {%tid.x}: r2={%r2 as u}", "hitCondition": "% 2"},
            {"line": 26, "hitCondition": "3"},
        ]),
    );
    let stopped = dap.event("stopped");
    assert_eq!(stopped["reason"], "breakpoint");
    assert_eq!(stopped["threadId"], 2);
    expect!["k (lane 5):19"].assert_eq(&dap.stack(2));
    expect![[r#"
        tid 32: r2=64
    "#]]
    .assert_eq(&dap.outputs());
    dap.request("continue", json!({"threadId": 2}));
    dap.event("stopped");
    expect!["k (lane 0):26"].assert_eq(&dap.stack(1));
    let threads = dap.request("threads", json!({}));
    expect![[r#"[{"id":1,"name":"cta (1,0,0) warp 0"},{"id":2,"name":"cta (1,0,0) warp 1"}]"#]]
        .assert_eq(&threads["threads"].to_string());

    // A condition that does not compile is an unverified breakpoint.
    let set = dap.request(
        "setBreakpoints",
        json!({"source": {"path": "x"}, "breakpoints": [{"line": 19, "condition": "%tid.x =="}]}),
    );
    expect![[r#"[{"id":7,"line":19,"message":"condition: the expression ends too early","source":{"name":"kernel.ptx","path":"<fixtures>/kernel.ptx"},"verified":false}]"#]].assert_eq(&portable(&set["breakpoints"].to_string()));
    dap.finish();
}

#[test]
fn function_breakpoints_stop_at_a_func() {
    let mut dap = Dap::start_with(
        kernel_launch(),
        json!([]),
        json!([{"name": "twice", "condition": "in == 33"}]),
    );
    assert_eq!(dap.event("stopped")["reason"], "breakpoint");
    expect!["twice (lane 1):7 < k (lane 1):17"].assert_eq(&dap.stack(2));
    let set = dap.request(
        "setFunctionBreakpoints",
        json!({"breakpoints": [{"name": "k"}, {"name": "missing"}]}),
    );
    expect![[r#"[{"id":2,"line":16,"source":{"name":"kernel.ptx","path":"<fixtures>/kernel.ptx"},"verified":true},{"id":3,"message":"no kernel or .func named `missing`","verified":false}]"#]].assert_eq(&portable(&set["breakpoints"].to_string()));
    dap.request("continue", json!({"threadId": 2}));
    assert_eq!(dap.event("stopped")["reason"], "breakpoint");
    expect!["k (lane 0):16"].assert_eq(&dap.stack(1));
    dap.finish();
}

#[test]
fn a_fault_stops_at_its_line_with_the_reason() {
    let mut dap = Dap::start(
        json!({"program": fixture("fault.ptx"), "threads": 2}),
        json!([]),
    );
    let stopped = dap.event("stopped");
    expect![[r#"{"allThreadsStopped":true,"description":"Fault in cta (0,0,0) warp 0 lane 0","preserveFocusHint":false,"reason":"exception","text":"4-byte access at global address 0xc is out of bounds","threadId":1}"#]].assert_eq(&stopped.to_string());
    expect!["snippet (lane 0):5"].assert_eq(&dap.stack(1));
    dap.request("continue", json!({"threadId": 1}));
    assert_eq!(dap.event("exited")["exitCode"], 1);
    dap.event("terminated");
    dap.finish();
}

#[test]
fn pause_stop_on_entry_and_restart() {
    let mut dap = Dap::start(
        json!({"program": fixture("loop.ptx"), "stopOnEntry": true, "maxSteps": 4000000000u64}),
        json!([]),
    );
    assert_eq!(dap.event("stopped")["reason"], "entry");
    expect!["snippet (lane 0):3"].assert_eq(&dap.stack(1));
    dap.request("continue", json!({"threadId": 1}));
    std::thread::sleep(Duration::from_millis(100));
    dap.request("pause", json!({"threadId": 1}));
    assert_eq!(dap.event("stopped")["reason"], "pause");
    let frame = dap.frame_id(1);
    let i: u64 = dap.evaluate(&frame, "%i as u").parse().unwrap();
    assert!(i > 0);
    dap.request("restart", json!({}));
    assert_eq!(dap.event("stopped")["reason"], "entry");
    let frame = dap.frame_id(1);
    assert_eq!(dap.evaluate(&frame, "%i as u"), "0");
    dap.finish();
}

#[test]
fn run_without_debugging_ignores_breakpoints() {
    let mut launch = kernel_launch_big();
    launch["noDebug"] = json!(true);
    let mut dap = Dap::spawn();
    dap.request("initialize", json!({"adapterID": "ptx"}));
    dap.request("launch", launch);
    dap.event("initialized");
    let set = dap.request(
        "setBreakpoints",
        json!({"source": {"path": "x"}, "breakpoints": [{"line": 16}]}),
    );
    assert_eq!(set["breakpoints"][0]["verified"], false);
    dap.request("configurationDone", json!({}));
    assert_eq!(dap.event("exited")["exitCode"], 0);
    dap.event("terminated");
    dap.finish();
}

#[test]
fn a_bad_launch_is_an_error_response() {
    let mut dap = Dap::spawn();
    dap.request("initialize", json!({"adapterID": "ptx"}));
    let response = dap.response(
        "launch",
        json!({"program": fixture("kernel.ptx"), "entry": "nope"}),
    );
    assert_eq!(response["success"], false);
    expect!["<fixtures>/kernel.ptx: no .entry named `nope` (entries: k)"]
        .assert_eq(&portable(response["message"].as_str().unwrap()));
    let response = dap.response("launch", json!({}));
    expect!["the launch configuration needs `program`: the PTX file to debug"]
        .assert_eq(&portable(response["message"].as_str().unwrap()));
    dap.finish();
}

#[test]
fn malformed_and_out_of_place_requests_get_errors_not_a_crash() {
    let mut dap = Dap::spawn();
    dap.send_raw(b"Content-Length: 5\r\n\r\nhello");
    let output = dap.event("output");
    assert_eq!(output["category"], "stderr");
    let early = dap.response("stackTrace", json!({"threadId": 1}));
    expect!["`stackTrace` before a launch"].assert_eq(early["message"].as_str().unwrap());
    dap.request("initialize", json!({"adapterID": "ptx"}));
    dap.request("launch", kernel_launch_big());
    dap.event("initialized");
    dap.request("configurationDone", json!({}));
    dap.event("terminated");
    let mut errors = Vec::new();
    for (command, arguments) in [
        ("bogus", json!({})),
        ("stackTrace", json!({"threadId": 999})),
        ("scopes", json!({"frameId": 123456789})),
        ("variables", json!({"variablesReference": 4242})),
        (
            "setVariable",
            json!({"variablesReference": 1, "name": "%r1", "value": "1"}),
        ),
        ("readMemory", json!({"memoryReference": "zz", "count": 4})),
        ("evaluate", json!({"expression": "%r1"})),
    ] {
        let response = dap.response(command, arguments);
        assert_eq!(response["success"], false, "{response}");
        errors.push(format!(
            "{command}: {}",
            response["message"].as_str().unwrap()
        ));
    }
    expect![[r#"
        bogus: `bogus` is not supported
        stackTrace: no such thread
        scopes: no such frame
        variables: the variables are gone: the session ran on
        setVariable: the variables are gone: the session ran on
        readMemory: bad address `zz`
        evaluate: the launch has ended"#]]
    .assert_eq(&errors.join("\n"));
    dap.finish();
}

#[test]
fn bad_watch_expressions_are_errors() {
    let mut dap = Dap::start(
        json!({"program": fixture("fault.ptx"), "stopOnEntry": true}),
        json!([]),
    );
    dap.event("stopped");
    let frame = dap.frame_id(1);
    let mut out = Vec::new();
    for e in [
        "",
        "(",
        "%v +",
        "[%a] as q9",
        "%v@lane 99",
        "1 / 0",
        "-%v",
        "%v as f32[2]",
        "é",
        "[0x10]",
        "%v == -2147483648 * 2",
    ] {
        out.push(format!("{e:?} => {}", dap.evaluate(&frame, e)));
    }
    expect![[r#"
        "" => error: the expression ends too early
        "(" => error: the expression ends too early
        "%v +" => error: the expression ends too early
        "[%a] as q9" => error: unknown view `q9`
        "%v@lane 99" => error: `@lane 99`: a lane is 0 to 31
        "1 / 0" => error: division by zero
        "-%v" => 0
        "%v as f32[2]" => error: a count (`as f32[8]`) needs a memory operand `[ADDR]`
        "é" => error: unexpected `é` in `é`
        "[0x10]" => error: 4-byte access at global address 0x10 is out of bounds
        "%v == -2147483648 * 2" => 0"#]]
    .assert_eq(&out.join("\n"));
    dap.finish();
}
