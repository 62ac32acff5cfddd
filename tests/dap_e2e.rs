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

/// The variables of the scope named `name` at frame `frame`.
fn scope_reference(dap: &mut Dap, frame: &Value, name: &str) -> Value {
    let scopes = dap.request("scopes", json!({"frameId": frame}));
    scopes["scopes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"].as_str().unwrap().starts_with(name))
        .unwrap_or_else(|| panic!("no scope {name}: {scopes}"))["variablesReference"]
        .clone()
}

#[test]
fn data_breakpoints_stop_after_the_access_with_old_and_new_values() {
    let mut launch = kernel_launch_big();
    launch["stopOnEntry"] = json!(true);
    let mut dap = Dap::start(launch, json!([]));
    assert_eq!(dap.event("stopped")["reason"], "entry");
    let caps = dap.request("initialize", json!({"adapterID": "ptx"}));
    assert_eq!(caps["supportsDataBreakpoints"], true);

    // An element of a global buffer, from the Global buffers scope.
    let frame = dap.frame_id(1);
    let buffers = scope_reference(&mut dap, &frame, "Global buffers");
    let list = dap.request("variables", json!({"variablesReference": buffers}));
    let buf = list["variables"][0]["variablesReference"].clone();
    let element = dap.request(
        "dataBreakpointInfo",
        json!({"variablesReference": buf, "name": "[37]"}),
    );
    expect![[r#"{"accessTypes":["write","read","readWrite"],"canPersist":true,"dataId":"mem:global:0x7f0000000094:4:u32|buf[37]","description":"buf[37] (4 bytes at 0x7f0000000094)"}"#]]
        .assert_eq(&element.to_string());

    // A whole buffer, from the list.
    let whole = dap.request(
        "dataBreakpointInfo",
        json!({"variablesReference": buffers, "name": "buf"}),
    );
    expect![[r#"{"accessTypes":["write","read","readWrite"],"canPersist":true,"dataId":"mem:global:0x7f0000000000:256:u32|buf","description":"buf (256 bytes at 0x7f0000000000)"}"#]].assert_eq(&whole.to_string());

    // A register of lane 3 of warp 0, from the Registers scope.
    dap.evaluate(&frame, "@lane 3");
    let frame = dap.frame_id(1);
    let registers = scope_reference(&mut dap, &frame, "Registers");
    let register = dap.request(
        "dataBreakpointInfo",
        json!({"variablesReference": registers, "name": "%r2"}),
    );
    expect![[r#"{"accessTypes":["write","read","readWrite"],"canPersist":true,"dataId":"reg:4:0:3|%r2@lane 3","description":"%r2 of warp 0 lane 3"}"#]]
        .assert_eq(&register.to_string());

    // Expressions: a place is watchable, a value is not.
    let mut infos = Vec::new();
    for name in ["[buf + 8] as u32", "%tid.x", "%r1 + 1", "[0x10]"] {
        let info = dap.request(
            "dataBreakpointInfo",
            json!({"name": name, "frameId": frame}),
        );
        infos.push(format!(
            "{name} => {} / {}",
            info["dataId"], info["description"]
        ));
    }
    expect![[r#"
        [buf + 8] as u32 => "mem:global:0x7f0000000008:4:u32|[buf + 8] as u32" / "[buf + 8] as u32 (4 bytes at 0x7f0000000008)"
        %tid.x => null / "`%tid.x` is a value, not a place: watch a register or memory `[ADDR]`"
        %r1 + 1 => null / "`%r1 + 1` is a value, not a place: watch a register or memory `[ADDR]`"
        [0x10] => null / "4-byte access at global address 0x10 is out of bounds""#]]
    .assert_eq(&infos.join("\n"));

    let set = dap.request(
        "setDataBreakpoints",
        json!({"breakpoints": [
            {"dataId": element["dataId"], "accessType": "write"},
            {"dataId": register["dataId"], "accessType": "write"},
            {"dataId": "mem:global:0x0:4:u32", "accessType": "write"},
        ]}),
    );
    expect![[r#"[{"id":1,"verified":true},{"id":2,"verified":true},{"id":3,"message":"`mem:global:0x0:4:u32` is not a data id of this session","verified":false}]"#]]
        .assert_eq(&set["breakpoints"].to_string());

    // The ret of `twice` writes the call's result into %r2 of lane 3.
    let mut stops = Vec::new();
    for _ in 0..3 {
        dap.request("continue", json!({"threadId": 1}));
        let stopped = dap.event("stopped");
        assert_eq!(stopped["reason"], "data breakpoint");
        let thread = stopped["threadId"].as_u64().unwrap();
        stops.push(format!(
            "{} {} | stopped at {}",
            stopped["hitBreakpointIds"],
            stopped["description"].as_str().unwrap(),
            dap.stack(thread)
        ));
    }
    expect![[r#"
        [2] %r2@lane 3 written by line 8 (cta (0,0,0) warp 0 lane 3): 0x00000000 → 0x00000006 | stopped at k (lane 3):18
        [1] buf[37] written by line 21 (cta (0,0,0) warp 1 lane 5): 0 → 74 | stopped at k (lane 5):22
        [2] %r2@lane 3 written by line 8 (cta (1,0,0) warp 0 lane 3): 0x00000000 → 0x00000006 | stopped at k (lane 3):18"#]]
    .assert_eq(&stops.join("\n"));

    // Reads count with readWrite: the store reads %r2.
    dap.request(
        "setDataBreakpoints",
        json!({"breakpoints": [{"dataId": register["dataId"], "accessType": "read"}]}),
    );
    dap.request("continue", json!({"threadId": 1}));
    let stopped = dap.event("stopped");
    expect!["%r2@lane 3 read by line 21 (cta (1,0,0) warp 0 lane 3): 0x00000006"]
        .assert_eq(stopped["description"].as_str().unwrap());
    dap.request("setDataBreakpoints", json!({"breakpoints": []}));
    dap.request("continue", json!({"threadId": 1}));
    assert_eq!(dap.event("exited")["exitCode"], 0);
    dap.finish();
}

#[test]
fn fragment_layout_of_an_mma_shows_each_elements_lane_and_register() {
    let mut dap = Dap::start(
        json!({"program": fixture("mma.ptx"), "threads": 32}),
        json!([{"line": 12}]),
    );
    assert_eq!(dap.event("stopped")["reason"], "breakpoint");
    let frame = dap.frame_id(1);
    let scopes = dap.request("scopes", json!({"frameId": frame}));
    let last = scopes["scopes"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["name"], "Fragment layout (line 12)");
    expect![[r#"
        line 12: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%d0, %d1}, {%a}, {%b}, {%c0, %c1};
        A: 8×4 .f64
                  col 0  col 1  col 2  col 3
           row 0  t0 %a  t1 %a  t2 %a  t3 %a
           row 1  t4 %a  t5 %a  t6 %a  t7 %a
           row 2  t8 %a  t9 %a  t10 %a t11 %a
           row 3  t12 %a t13 %a t14 %a t15 %a
           row 4  t16 %a t17 %a t18 %a t19 %a
           row 5  t20 %a t21 %a t22 %a t23 %a
           row 6  t24 %a t25 %a t26 %a t27 %a
           row 7  t28 %a t29 %a t30 %a t31 %a
        B: 4×8 .f64
                  col 0  col 1  col 2  col 3  col 4  col 5  col 6  col 7
           row 0  t0 %b  t4 %b  t8 %b  t12 %b t16 %b t20 %b t24 %b t28 %b
           row 1  t1 %b  t5 %b  t9 %b  t13 %b t17 %b t21 %b t25 %b t29 %b
           row 2  t2 %b  t6 %b  t10 %b t14 %b t18 %b t22 %b t26 %b t30 %b
           row 3  t3 %b  t7 %b  t11 %b t15 %b t19 %b t23 %b t27 %b t31 %b
        C: 8×8 .f64
                  col 0   col 1   col 2   col 3   col 4   col 5   col 6   col 7
           row 0  t0 %c0  t0 %c1  t1 %c0  t1 %c1  t2 %c0  t2 %c1  t3 %c0  t3 %c1
           row 1  t4 %c0  t4 %c1  t5 %c0  t5 %c1  t6 %c0  t6 %c1  t7 %c0  t7 %c1
           row 2  t8 %c0  t8 %c1  t9 %c0  t9 %c1  t10 %c0 t10 %c1 t11 %c0 t11 %c1
           row 3  t12 %c0 t12 %c1 t13 %c0 t13 %c1 t14 %c0 t14 %c1 t15 %c0 t15 %c1
           row 4  t16 %c0 t16 %c1 t17 %c0 t17 %c1 t18 %c0 t18 %c1 t19 %c0 t19 %c1
           row 5  t20 %c0 t20 %c1 t21 %c0 t21 %c1 t22 %c0 t22 %c1 t23 %c0 t23 %c1
           row 6  t24 %c0 t24 %c1 t25 %c0 t25 %c1 t26 %c0 t26 %c1 t27 %c0 t27 %c1
           row 7  t28 %c0 t28 %c1 t29 %c0 t29 %c1 t30 %c0 t30 %c1 t31 %c0 t31 %c1
        D: 8×8 .f64
                  col 0   col 1   col 2   col 3   col 4   col 5   col 6   col 7
           row 0  t0 %d0  t0 %d1  t1 %d0  t1 %d1  t2 %d0  t2 %d1  t3 %d0  t3 %d1
           row 1  t4 %d0  t4 %d1  t5 %d0  t5 %d1  t6 %d0  t6 %d1  t7 %d0  t7 %d1
           row 2  t8 %d0  t8 %d1  t9 %d0  t9 %d1  t10 %d0 t10 %d1 t11 %d0 t11 %d1
           row 3  t12 %d0 t12 %d1 t13 %d0 t13 %d1 t14 %d0 t14 %d1 t15 %d0 t15 %d1
           row 4  t16 %d0 t16 %d1 t17 %d0 t17 %d1 t18 %d0 t18 %d1 t19 %d0 t19 %d1
           row 5  t20 %d0 t20 %d1 t21 %d0 t21 %d1 t22 %d0 t22 %d1 t23 %d0 t23 %d1
           row 6  t24 %d0 t24 %d1 t25 %d0 t25 %d1 t26 %d0 t26 %d1 t27 %d0 t27 %d1
           row 7  t28 %d0 t28 %d1 t29 %d0 t29 %d1 t30 %d0 t30 %d1 t31 %d0 t31 %d1
    "#]]
    .assert_eq(&dap.evaluate(&frame, "layout"));

    // After the mma, the view (of the instruction just run) shows D's values.
    dap.request("next", json!({"threadId": 1}));
    dap.event("stopped");
    let frame = dap.frame_id(1);
    let layout = scope_reference(&mut dap, &frame, "Fragment layout");
    expect![[r#"
        instruction = line 12: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%d0, %d1}, {%a}, {%b}, {%c0, %c1};
        A: 8×4 .f64 = 8 rows × 4 columns: lane and register of each element
        B: 4×8 .f64 = 4 rows × 8 columns: lane and register of each element
        C: 8×8 .f64 = 8 rows × 8 columns: lane and register of each element
        D: 8×8 .f64 = 8 rows × 8 columns: lane and register of each element"#]].assert_eq(&dap.variables(&layout));
    let list = dap.request("variables", json!({"variablesReference": layout}));
    let d = list["variables"][4]["variablesReference"].clone();
    let rows = dap.request("variables", json!({"variablesReference": d}));
    let row1 = rows["variables"][1]["variablesReference"].clone();
    expect![[r#"
        col 0 = 22.0 (lane 4 %d0)
        col 1 = 22.0 (lane 4 %d1)
        col 2 = 22.0 (lane 5 %d0)
        col 3 = 22.0 (lane 5 %d1)
        col 4 = 22.0 (lane 6 %d0)
        col 5 = 22.0 (lane 6 %d1)
        col 6 = 22.0 (lane 7 %d0)
        col 7 = 22.0 (lane 7 %d1)"#]]
    .assert_eq(&dap.variables(&row1));
    let text = dap.evaluate(&frame, "layout 7");
    expect!["error: that line is not a matrix instruction (mma, wmma, wgmma, ldmatrix, stmatrix, movmatrix, tcgen05.ld/st)"].assert_eq(&text);
    dap.finish();
}

fn tmem_launch() -> Value {
    json!({
        "program": fixture("tmem.ptx"),
        "entry": "tm",
        "block": 32,
        "args": ["zeros:128"],
    })
}

#[test]
fn tensor_memory_scope_and_tcgen05_ld_layout() {
    let mut dap = Dap::start(tmem_launch(), json!([{"line": 19}]));
    assert_eq!(dap.event("stopped")["reason"], "breakpoint");
    let frame = dap.frame_id(1);
    let scopes = dap.request("scopes", json!({"frameId": frame}));
    let names: Vec<&str> = scopes["scopes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    expect![[r#"["Registers (lane 0)", "Predicates", "Special registers", "Warp 0", "Shared memory", "mbarriers", "Global buffers", "Tensor Memory", "Fragment layout (line 18)"]"#]].assert_eq(&format!("{names:?}"));
    let tmem = scope_reference(&mut dap, &frame, "Tensor Memory");
    expect!["columns 0..31 = 128 lanes × 32 columns of 32 bits"].assert_eq(&dap.variables(&tmem));
    let blocks = dap.request("variables", json!({"variablesReference": tmem}));
    let block = blocks["variables"][0]["variablesReference"].clone();
    let lanes = dap.request("variables", json!({"variablesReference": block}));
    let shown: Vec<String> = lanes["variables"]
        .as_array()
        .unwrap()
        .iter()
        .take(3)
        .map(|v| {
            format!(
                "{} = {}",
                v["name"].as_str().unwrap(),
                v["value"].as_str().unwrap()
            )
        })
        .collect();
    expect![[r#"
        lane 0 = [0x00000064, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, …]
        lane 1 = [0x00000065, 0x00000002, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, …]
        lane 2 = [0x00000066, 0x00000004, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, …]"#]].assert_eq(&shown.join("\n"));
    let lane5 = lanes["variables"][5]["variablesReference"].clone();
    let columns = dap.request("variables", json!({"variablesReference": lane5}));
    let column1 = columns["variables"][1].clone();
    expect![[r#""0x0000000a""#]].assert_eq(&column1["value"].to_string());
    expect![[r#"
        hex = 0x0000000a
        unsigned = 10
        signed = 10
        f32 = 1.4e-44
        f16x2 = (5.960464477539063e-7, 0.0)
        bf16x2 = (9.183549615799121e-40, 0.0)"#]]
    .assert_eq(&dap.variables(&column1["variablesReference"]));

    let layout = dap.evaluate(&frame, "layout");
    expect![[r#"
        line 18: tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r6, %r7}, [%r3];
        Tensor Memory tile: 32 lanes × 2 32-bit columns from the address
                  col 0   col 1
           row 0  t0 %r6  t0 %r7
           row 1  t1 %r6  t1 %r7
           row 2  t2 %r6  t2 %r7"#]]
    .assert_eq(&layout.lines().take(6).collect::<Vec<_>>().join("\n"));
    dap.finish();
}

#[test]
fn launch_target_and_cluster_are_checked() {
    let mut errors = Vec::new();
    for extra in [
        json!({"target": "sm_90a"}),
        json!({"target": "sm_100a"}),
        json!({"target": "sm_999"}),
        json!({"cluster": [2, 1, 1]}),
        json!({"cluster": [1, 1, 1], "target": "sm_100a"}),
    ] {
        let mut launch = tmem_launch();
        for (k, v) in extra.as_object().unwrap() {
            launch[k] = v.clone();
        }
        let mut dap = Dap::spawn();
        dap.request("initialize", json!({"adapterID": "ptx"}));
        let response = dap.response("launch", launch);
        errors.push(format!(
            "{extra} => {}",
            if response["success"] == true {
                "launched".to_owned()
            } else {
                portable(response["message"].as_str().unwrap())
            }
        ));
        dap.finish();
    }
    expect![[r#"
        {"target":"sm_90a"} => the program does not fit target sm_90a:
        <fixtures>/tmem.ptx:12: `tcgen05.alloc` needs .target sm_100a/sm_110a/sm_100f/sm_110f (this file targets sm_90a) [unsupported-target]
        <fixtures>/tmem.ptx:16: `tcgen05.st` needs .target sm_100a/sm_110a/sm_100f/sm_110f (this file targets sm_90a) [unsupported-target]
        <fixtures>/tmem.ptx:17: `tcgen05.wait` needs .target sm_100a/sm_110a/sm_100f/sm_110f (this file targets sm_90a) [unsupported-target]
        <fixtures>/tmem.ptx:18: `tcgen05.ld` needs .target sm_100a/sm_110a/sm_100f/sm_110f/sm_103f (this file targets sm_90a) [unsupported-target]
        <fixtures>/tmem.ptx:19: `tcgen05.wait` needs .target sm_100a/sm_110a/sm_100f/sm_110f (this file targets sm_90a) [unsupported-target]
        <fixtures>/tmem.ptx:25: `tcgen05.relinquish_alloc_permit` needs .target sm_100a/sm_110a/sm_100f/sm_110f (this file targets sm_90a) [unsupported-target]
        <fixtures>/tmem.ptx:26: `tcgen05.dealloc` needs .target sm_100a/sm_110a/sm_100f/sm_110f (this file targets sm_90a) [unsupported-target]
        {"target":"sm_100a"} => launched
        {"target":"sm_999"} => `target`: `sm_999` is not a target ptxas knows (e.g. sm_90a, sm_100a)
        {"cluster":[2,1,1]} => `cluster` [2, 1, 1]: the interpreter runs every CTA as a cluster of one (`%cluster_nctarank` is 1); launch with `cluster` [1, 1, 1] or leave it out
        {"cluster":[1,1,1],"target":"sm_100a"} => launched"#]].assert_eq(&errors.join("\n"));
}

#[test]
fn a_data_breakpoint_on_shared_memory_sees_writes_of_the_same_value_and_reads() {
    let mut launch = tmem_launch();
    launch["stopOnEntry"] = json!(true);
    let mut dap = Dap::start(launch, json!([]));
    dap.event("stopped");
    let frame = dap.frame_id(1);
    let shared = scope_reference(&mut dap, &frame, "Shared memory");
    let parts = dap.request("variables", json!({"variablesReference": shared}));
    let words = parts["variables"][0]["variablesReference"].clone();
    let info = dap.request(
        "dataBreakpointInfo",
        json!({"variablesReference": words, "name": "[0x0000]"}),
    );
    expect![[r#""shared[0x0] (4 bytes at shared offset 0x0)""#]]
        .assert_eq(&info["description"].to_string());
    dap.request(
        "setDataBreakpoints",
        json!({"breakpoints": [{"dataId": info["dataId"], "accessType": "readWrite"}]}),
    );
    let mut stops = Vec::new();
    for _ in 0..2 {
        dap.request("continue", json!({"threadId": 1}));
        let stopped = dap.event("stopped");
        stops.push(format!(
            "{} | stopped at {}",
            stopped["description"].as_str().unwrap(),
            dap.stack(1)
        ));
    }
    expect![[r#"
        shared[0x0] written by line 12 (cta (0,0,0) warp 0 lane 0): 0 → 0 | stopped at tm (lane 0):13
        shared[0x0] read by line 13 (cta (0,0,0) warp 0 lane 0): 0 | stopped at tm (lane 0):14"#]].assert_eq(&stops.join("\n"));
    dap.finish();
}

/// The Global buffers scope shows the memory of the stop it was asked at: elements read at
/// the entry stop and again after the store at a later stop show the stored values (an editor
/// keeps the scope expanded across stops and asks again).
#[test]
fn buffer_elements_are_read_again_at_each_stop() {
    let mut launch = kernel_launch_big();
    launch["stopOnEntry"] = json!(true);
    let mut dap = Dap::start(launch, json!([{"line": 22}]));
    assert_eq!(dap.event("stopped")["reason"], "entry");
    let element = |dap: &mut Dap| {
        let frame = dap.frame_id(1);
        let buffers = scope_reference(dap, &frame, "Global buffers");
        let list = dap.request("variables", json!({"variablesReference": buffers}));
        let buf = list["variables"][0]["variablesReference"].clone();
        let elements = dap.request("variables", json!({"variablesReference": buf}));
        elements["variables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == "[5]")
            .map(|v| v["value"].as_str().unwrap().to_owned())
            .unwrap()
    };
    assert_eq!(element(&mut dap), "0");
    dap.request("continue", json!({"threadId": 1}));
    assert_eq!(dap.event("stopped")["reason"], "breakpoint");
    // Warp 0 has stored 2 × %tid.x: element 5 holds 10.
    assert_eq!(element(&mut dap), "10");
    dap.request("disconnect", json!({}));
}
