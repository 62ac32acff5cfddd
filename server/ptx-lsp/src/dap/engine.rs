//! The engine thread: answers the requests of one debug session.

use std::collections::HashMap;
use std::sync::mpsc::Receiver;

use ptx_interp::{
    cell_text, Access, BreakpointSpec, BreakpointState, DataBreakpointSpec, DebugTarget, Outcome,
    RegView, Resume, Session, StopReason,
};
use serde_json::{json, Value};

use super::launch::{load, Loaded};
use super::{Out, PauseSlot};

/// What stays across launches and restarts.
struct Config {
    lines_start_at1: bool,
    invalidated: bool,
    /// Line breakpoints as the client sent them (request arguments).
    lines: Vec<Value>,
    functions: Vec<Value>,
    /// Data breakpoints as the client sent them.
    data: Vec<Value>,
    configured: bool,
}

/// How a launched session ended.
enum Exit {
    /// Launch again (new arguments, or the old ones).
    Restart(Option<Value>),
    Disconnect,
}

pub(super) fn main(rx: &Receiver<Value>, out: &Out, pause: &PauseSlot) {
    let mut config = Config {
        lines_start_at1: true,
        invalidated: false,
        lines: Vec::new(),
        functions: Vec::new(),
        data: Vec::new(),
        configured: false,
    };
    // The launch request to answer (none on a restart) and its arguments.
    let mut pending: Option<(Option<Value>, Value)> = None;
    loop {
        let (request, args) = match pending.take() {
            Some(p) => p,
            None => {
                let Ok(message) = rx.recv() else {
                    return;
                };
                match before_launch(&message, out, &mut config) {
                    Some(args) => (Some(message), args),
                    None if command(&message) == "disconnect" => return,
                    None => continue,
                }
            }
        };
        let loaded = match load(&args) {
            Ok(loaded) => loaded,
            Err(message) => {
                match &request {
                    Some(request) => out.respond(request, Err(message)),
                    None => {
                        out.event(
                            "output",
                            json!({"category": "stderr", "output": format!("{message}\n")}),
                        );
                        out.event("terminated", Value::Null);
                    }
                }
                continue;
            }
        };
        if let Some(request) = &request {
            out.respond(request, Ok(Value::Null));
            out.event("initialized", Value::Null);
        }
        let restarted = request.is_none();
        let mut engine = Engine::new(&loaded, out, &mut config);
        if let Ok(mut slot) = pause.lock() {
            *slot = Some(engine.session.pause_flag());
        }
        if restarted {
            engine.start();
        }
        match engine.serve(rx) {
            Exit::Restart(new) => pending = Some((None, new.unwrap_or(args))),
            Exit::Disconnect => return,
        }
    }
}

fn command(message: &Value) -> &str {
    message.get("command").and_then(Value::as_str).unwrap_or("")
}

fn arguments(message: &Value) -> &Value {
    static NULL: Value = Value::Null;
    message.get("arguments").unwrap_or(&NULL)
}

fn capabilities() -> Value {
    json!({
        "supportsConfigurationDoneRequest": true,
        "supportsFunctionBreakpoints": true,
        "supportsDataBreakpoints": true,
        "supportsConditionalBreakpoints": true,
        "supportsHitConditionalBreakpoints": true,
        "supportsLogPoints": true,
        "supportsEvaluateForHovers": true,
        "supportsSetVariable": true,
        "supportsRestartRequest": true,
        "supportsReadMemoryRequest": true,
        "supportsTerminateRequest": true,
        "supportsSingleThreadExecutionRequests": false,
        "supportTerminateDebuggee": true,
        "supportsSteppingGranularity": false,
        "exceptionBreakpointFilters": [],
    })
}

/// Answers a request that comes before a launch; the launch arguments when
/// it is the launch.
fn before_launch(message: &Value, out: &Out, config: &mut Config) -> Option<Value> {
    let args = arguments(message);
    match command(message) {
        "initialize" => {
            config.lines_start_at1 = args
                .get("linesStartAt1")
                .and_then(Value::as_bool)
                .unwrap_or(true);
            config.invalidated = args
                .get("supportsInvalidatedEvent")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            out.respond(message, Ok(capabilities()));
            None
        }
        "launch" => Some(args.clone()),
        "attach" => {
            out.respond(
                message,
                Err("ptx-lsp dap launches programs; it cannot attach".into()),
            );
            None
        }
        "setBreakpoints" => {
            config.lines = args
                .get("breakpoints")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let unverified: Vec<Value> = config
                .lines
                .iter()
                .map(|b| json!({"verified": false, "line": b.get("line"), "message": "not launched yet"}))
                .collect();
            out.respond(message, Ok(json!({ "breakpoints": unverified })));
            None
        }
        "setFunctionBreakpoints" | "setDataBreakpoints" => {
            let given = args
                .get("breakpoints")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let unverified: Vec<Value> = given
                .iter()
                .map(|_| json!({"verified": false, "message": "not launched yet"}))
                .collect();
            if command(message) == "setFunctionBreakpoints" {
                config.functions = given;
            } else {
                config.data = given;
            }
            out.respond(message, Ok(json!({ "breakpoints": unverified })));
            None
        }
        "dataBreakpointInfo" => {
            out.respond(
                message,
                Ok(json!({"dataId": null, "description": "not launched yet"})),
            );
            None
        }
        "configurationDone" => {
            config.configured = true;
            out.respond(message, Ok(Value::Null));
            None
        }
        "threads" => {
            out.respond(message, Ok(json!({"threads": []})));
            None
        }
        "disconnect" | "terminate" => {
            out.respond(message, Ok(Value::Null));
            None
        }
        other => {
            out.respond(message, Err(format!("`{other}` before a launch")));
            None
        }
    }
}

/// What a `variablesReference` stands for while the session is stopped.
#[derive(Debug, Clone)]
enum Node {
    Registers {
        warp: usize,
        lane: u32,
        pc: u32,
        predicates: bool,
    },
    Views(Vec<(String, String)>),
    Specials {
        warp: usize,
        lane: u32,
    },
    Warp(usize),
    Shared,
    Mbarriers,
    /// Static (false) or dynamic (true) shared memory as 32-bit words.
    SharedWords(bool),
    Buffers,
    /// A buffer argument: address, element count, element type.
    Buffer {
        warp: usize,
        lane: u32,
        name: String,
        addr: u64,
        count: usize,
        ty: String,
    },
    Items(Vec<String>),
    /// The CTA's Tensor Memory: its allocations.
    TensorMemory,
    /// One allocation's lanes: first column and column count.
    TensorBlock(u32, u32),
    /// One lane of an allocation, by column.
    TensorLane {
        lane: u32,
        start: u32,
        count: u32,
    },
    /// The fragment layout of the matrix instruction at `pc` for `warp`.
    Layout {
        warp: usize,
        pc: u32,
    },
    /// One matrix of a layout.
    LayoutMatrix {
        warp: usize,
        pc: u32,
        index: usize,
    },
    /// One row of a matrix of a layout.
    LayoutRow {
        warp: usize,
        pc: u32,
        index: usize,
        row: usize,
    },
}

/// Tensor Memory lanes per CTA.
const TENSOR_LANES: u32 = 128;
/// Columns shown in a Tensor Memory lane's summary.
const TENSOR_SUMMARY: u32 = 8;

/// Shown words of shared memory and elements of a buffer at most, per node.
const SHOWN: usize = 1024;

struct Engine<'t> {
    out: &'t Out,
    config: &'t mut Config,
    target: &'t DebugTarget,
    session: Session<'t>,
    path: String,
    name: String,
    stop_on_entry: bool,
    buffer_types: Vec<Option<String>>,
    kernel: bool,
    no_debug: bool,
    /// The focused lane of each warp.
    focus: HashMap<usize, u32>,
    nodes: Vec<Node>,
    /// The warp the last stop was about.
    stopped: usize,
    ended: bool,
}

impl<'t> Engine<'t> {
    fn new(loaded: &'t Loaded, out: &'t Out, config: &'t mut Config) -> Engine<'t> {
        let path = loaded.path.clone();
        let name = std::path::Path::new(&path)
            .file_name()
            .map_or_else(|| path.clone(), |n| n.to_string_lossy().into_owned());
        let mut engine = Engine {
            out,
            config,
            target: &loaded.target,
            session: Session::new(&loaded.target),
            path,
            name,
            stop_on_entry: loaded.stop_on_entry,
            buffer_types: loaded.buffer_types.clone(),
            kernel: loaded.kernel,
            no_debug: loaded.no_debug,
            focus: HashMap::new(),
            nodes: Vec::new(),
            stopped: 0,
            ended: false,
        };
        engine.apply_breakpoints();
        engine
    }

    fn source(&self) -> Value {
        json!({"name": self.name, "path": self.path})
    }

    fn line_out(&self, line: usize) -> usize {
        if self.config.lines_start_at1 {
            line
        } else {
            line.saturating_sub(1)
        }
    }

    fn line_in(&self, line: u64) -> usize {
        let line = line as usize;
        if self.config.lines_start_at1 {
            line
        } else {
            line + 1
        }
    }

    fn specs(&self, list: &[Value]) -> Vec<BreakpointSpec> {
        let text = |b: &Value, key: &str| b.get(key).and_then(Value::as_str).map(str::to_owned);
        list.iter()
            .map(|b| BreakpointSpec {
                line: self.line_in(b.get("line").and_then(Value::as_u64).unwrap_or(0)),
                condition: text(b, "condition"),
                hit_condition: text(b, "hitCondition"),
                log_message: text(b, "logMessage"),
            })
            .collect()
    }

    fn states(&self, states: &[BreakpointState]) -> Value {
        Value::Array(
            states
                .iter()
                .map(|s| {
                    let mut b = json!({"id": s.id, "verified": s.verified});
                    if s.line > 0 {
                        b["line"] = json!(self.line_out(s.line));
                        b["source"] = self.source();
                    }
                    if let Some(m) = &s.message {
                        b["message"] = json!(m);
                    }
                    b
                })
                .collect(),
        )
    }

    fn apply_breakpoints(&mut self) -> (Value, Value, Value) {
        if self.no_debug {
            let off = |n: usize| {
                Value::Array(vec![
                    json!({"verified": false, "message": "running without debugging"});
                    n
                ])
            };
            return (
                off(self.config.lines.len()),
                off(self.config.functions.len()),
                off(self.config.data.len()),
            );
        }
        let lines = self.specs(&self.config.lines.clone());
        let line_states = self.session.set_breakpoints(&lines);
        let functions: Vec<(String, BreakpointSpec)> = self
            .config
            .functions
            .iter()
            .map(|b| {
                let text = |key: &str| b.get(key).and_then(Value::as_str).map(str::to_owned);
                (
                    text("name").unwrap_or_default(),
                    BreakpointSpec {
                        line: 0,
                        condition: text("condition"),
                        hit_condition: text("hitCondition"),
                        log_message: None,
                    },
                )
            })
            .collect();
        let function_states = self.session.set_function_breakpoints(&functions);
        let data: Vec<DataBreakpointSpec> = self
            .config
            .data
            .iter()
            .map(|b| {
                let text = |key: &str| b.get(key).and_then(Value::as_str).map(str::to_owned);
                DataBreakpointSpec {
                    data_id: text("dataId").unwrap_or_default(),
                    access: text("accessType")
                        .and_then(|a| Access::parse(&a))
                        .unwrap_or(Access::Write),
                    condition: text("condition"),
                    hit_condition: text("hitCondition"),
                }
            })
            .collect();
        let data_states = self.session.set_data_breakpoints(&data);
        (
            self.states(&line_states),
            self.states(&function_states),
            self.states(&data_states),
        )
    }

    fn lane(&self, warp: usize) -> u32 {
        if let Some(&lane) = self.focus.get(&warp) {
            return lane;
        }
        let view = self.session.warp(warp);
        view.groups
            .first()
            .map_or(0, |&(_, lanes)| lanes.trailing_zeros())
    }

    /// Starts the launch after configuration: stops on entry or runs.
    fn start(&mut self) {
        if self.stop_on_entry {
            self.stopped = 0;
            self.out.event(
                "stopped",
                json!({"reason": "entry", "threadId": 1, "allThreadsStopped": true}),
            );
        } else {
            self.resume(Resume::Continue, 0);
        }
    }

    fn resume(&mut self, how: Resume, focus: usize) {
        self.nodes.clear();
        let resumed = self.session.resume(how, focus);
        for line in resumed.logs {
            self.out.event(
                "output",
                json!({"category": "console", "output": format!("{line}\n")}),
            );
        }
        match resumed.outcome {
            Outcome::Finished { faulted } => self.end(faulted),
            Outcome::Stopped { reason, warp, lane } => {
                self.stopped = warp;
                self.focus.insert(warp, lane);
                let (cta, _) = self.session.cta();
                let at = format!(
                    "cta ({},{},{}) warp {warp} lane {lane}",
                    cta[0], cta[1], cta[2]
                );
                let mut body = json!({
                    "threadId": warp + 1,
                    "allThreadsStopped": true,
                    "preserveFocusHint": false,
                });
                match reason {
                    StopReason::Entry => body["reason"] = json!("entry"),
                    StopReason::Step => body["reason"] = json!("step"),
                    StopReason::Pause => body["reason"] = json!("pause"),
                    StopReason::Breakpoint(ids) => {
                        body["reason"] = json!("breakpoint");
                        body["hitBreakpointIds"] = json!(ids);
                    }
                    StopReason::Data { ids, description } => {
                        body["reason"] = json!("data breakpoint");
                        body["hitBreakpointIds"] = json!(ids);
                        body["description"] = json!(description);
                        body["text"] = json!(description);
                        self.out.event(
                            "output",
                            json!({"category": "console", "output": format!("{description}\n")}),
                        );
                    }
                    StopReason::Fault(message) => {
                        body["reason"] = json!("exception");
                        body["description"] = json!(format!("Fault in {at}"));
                        body["text"] = json!(message);
                        self.out.event(
                            "output",
                            json!({"category": "stderr", "output": format!("fault in {at}: {message}\n")}),
                        );
                    }
                }
                self.out.event("stopped", body);
            }
        }
    }

    fn end(&mut self, faulted: bool) {
        if self.ended {
            return;
        }
        self.ended = true;
        let mut summary = format!(
            "the launch {} after {} warp instructions\n",
            if faulted {
                "ended at its fault"
            } else {
                "finished"
            },
            self.session.steps()
        );
        for (_, name, addr, bytes) in self.session.buffers() {
            let shown: Vec<String> = bytes.iter().take(64).map(|b| format!("{b:02x}")).collect();
            summary.push_str(&format!(
                "buffer {name} at {addr:#x} ({} bytes): {}{}\n",
                bytes.len(),
                shown.join(""),
                if bytes.len() > 64 { "…" } else { "" }
            ));
        }
        self.out
            .event("output", json!({"category": "console", "output": summary}));
        self.out
            .event("exited", json!({"exitCode": i32::from(faulted)}));
        self.out.event("terminated", Value::Null);
    }

    fn serve(&mut self, rx: &Receiver<Value>) -> Exit {
        while let Ok(message) = rx.recv() {
            let cmd = command(&message).to_owned();
            let args = arguments(&message).clone();
            match cmd.as_str() {
                "disconnect" | "terminate" => {
                    self.out.respond(&message, Ok(Value::Null));
                    if cmd == "terminate" && !self.ended {
                        self.ended = true;
                        self.out.event("terminated", Value::Null);
                        continue;
                    }
                    return Exit::Disconnect;
                }
                "restart" => {
                    self.out.respond(&message, Ok(Value::Null));
                    let new = args.get("arguments").filter(|a| a.is_object()).cloned();
                    return Exit::Restart(new);
                }
                "continue" | "next" | "stepIn" | "stepOut" => {
                    let warp = self.warp_arg(&args).unwrap_or(self.stopped);
                    let how = match cmd.as_str() {
                        "continue" => Resume::Continue,
                        "next" => Resume::Over,
                        "stepIn" => Resume::Into,
                        _ => Resume::Out,
                    };
                    let body = if cmd == "continue" {
                        json!({"allThreadsContinued": true})
                    } else {
                        Value::Null
                    };
                    self.out.respond(&message, Ok(body));
                    if self.ended {
                        continue;
                    }
                    self.resume(how, warp);
                }
                _ => {
                    let result = self.answer(&cmd, &args);
                    self.out.respond(&message, result);
                    if cmd == "configurationDone" {
                        self.start();
                    }
                }
            }
        }
        Exit::Disconnect
    }

    fn warp_arg(&self, args: &Value) -> Option<usize> {
        let id = args.get("threadId").and_then(Value::as_u64)?;
        let warp = usize::try_from(id).ok()?.checked_sub(1)?;
        (warp < self.session.warps().len()).then_some(warp)
    }

    /// The warp and frame index a frame id names.
    fn frame_arg(&self, args: &Value) -> Option<(usize, usize)> {
        let id = args.get("frameId").and_then(Value::as_u64)?;
        let id = usize::try_from(id).ok()?.checked_sub(1)?;
        Some((id >> 16, id & 0xffff))
    }

    fn node(&mut self, node: Node) -> usize {
        self.nodes.push(node);
        self.nodes.len()
    }

    fn answer(&mut self, cmd: &str, args: &Value) -> Result<Value, String> {
        match cmd {
            "initialize" => Ok(capabilities()),
            "launch" => Err("already launched".into()),
            "configurationDone" => {
                self.config.configured = true;
                Ok(Value::Null)
            }
            "setBreakpoints" => {
                self.config.lines = args
                    .get("breakpoints")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                let (lines, _, _) = self.apply_breakpoints();
                Ok(json!({ "breakpoints": lines }))
            }
            "setFunctionBreakpoints" => {
                self.config.functions = args
                    .get("breakpoints")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                let (_, functions, _) = self.apply_breakpoints();
                Ok(json!({ "breakpoints": functions }))
            }
            "setDataBreakpoints" => {
                self.config.data = args
                    .get("breakpoints")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                let (_, _, data) = self.apply_breakpoints();
                Ok(json!({ "breakpoints": data }))
            }
            "dataBreakpointInfo" => Ok(self.data_breakpoint_info(args)),
            "setExceptionBreakpoints" => Ok(json!({"breakpoints": []})),
            "threads" => Ok(self.threads()),
            "stackTrace" => self.stack_trace(args),
            "scopes" => self.scopes(args),
            "variables" => self.variables(args),
            "evaluate" => self.evaluate(args),
            "setVariable" => self.set_variable(args),
            "readMemory" => self.read_memory(args),
            "source" => std::fs::read_to_string(&self.path)
                .map(|text| json!({"content": text}))
                .map_err(|e| format!("cannot read `{}`: {e}", self.path)),
            "loadedSources" => Ok(json!({"sources": [self.source()]})),
            other => Err(format!("`{other}` is not supported")),
        }
    }

    fn threads(&self) -> Value {
        if self.ended {
            return json!({"threads": []});
        }
        let (cta, _) = self.session.cta();
        let threads: Vec<Value> = self
            .session
            .warps()
            .iter()
            .map(|w| {
                json!({
                    "id": w.index + 1,
                    "name": format!("cta ({},{},{}) warp {}", cta[0], cta[1], cta[2], w.index),
                })
            })
            .collect();
        json!({ "threads": threads })
    }

    fn stack_trace(&self, args: &Value) -> Result<Value, String> {
        let warp = self.warp_arg(args).ok_or("no such thread")?;
        let lane = self.lane(warp);
        let frames = self.session.frames(warp, lane);
        let total = frames.len();
        let start = args.get("startFrame").and_then(Value::as_u64).unwrap_or(0) as usize;
        let levels = match args.get("levels").and_then(Value::as_u64) {
            Some(0) | None => usize::MAX,
            Some(n) => n as usize,
        };
        let frames: Vec<Value> = frames
            .iter()
            .enumerate()
            .skip(start)
            .take(levels)
            .map(|(i, f)| {
                let function = if f.function.is_empty() {
                    "snippet"
                } else {
                    &f.function
                };
                json!({
                    "id": (warp << 16 | i) + 1,
                    "name": format!("{function} (lane {lane})"),
                    "source": self.source(),
                    "line": self.line_out(f.line),
                    "column": 1,
                    "instructionPointerReference": format!("{}", f.pc),
                })
            })
            .collect();
        Ok(json!({"stackFrames": frames, "totalFrames": total}))
    }

    fn frame(&self, args: &Value) -> Result<(usize, u32, u32), String> {
        let (warp, index) = self.frame_arg(args).ok_or("no such frame")?;
        if warp >= self.session.warps().len() {
            return Err("no such frame".into());
        }
        let lane = self.lane(warp);
        let frames = self.session.frames(warp, lane);
        let frame = frames.get(index).ok_or("no such frame")?;
        Ok((warp, lane, frame.pc))
    }

    fn scopes(&mut self, args: &Value) -> Result<Value, String> {
        let (warp, lane, pc) = self.frame(args)?;
        let mut scopes = Vec::new();
        let mut scope = |engine: &mut Engine<'_>, name: String, node: Node, expensive: bool| {
            let reference = engine.node(node);
            scopes.push(json!({
                "name": name,
                "variablesReference": reference,
                "expensive": expensive,
            }));
        };
        scope(
            self,
            format!("Registers (lane {lane})"),
            Node::Registers {
                warp,
                lane,
                pc,
                predicates: false,
            },
            false,
        );
        scope(
            self,
            "Predicates".into(),
            Node::Registers {
                warp,
                lane,
                pc,
                predicates: true,
            },
            false,
        );
        scope(
            self,
            "Special registers".into(),
            Node::Specials { warp, lane },
            false,
        );
        scope(self, format!("Warp {warp}"), Node::Warp(warp), false);
        scope(self, "Shared memory".into(), Node::Shared, true);
        scope(self, "mbarriers".into(), Node::Mbarriers, false);
        if self.kernel {
            scope(self, "Global buffers".into(), Node::Buffers, true);
        }
        if !self.session.tensor_allocations().is_empty() {
            scope(self, "Tensor Memory".into(), Node::TensorMemory, true);
        }
        if let Some((pc, line)) = self.layout_at(warp, pc) {
            scope(
                self,
                format!("Fragment layout (line {})", self.line_out(line)),
                Node::Layout { warp, pc },
                false,
            );
        }
        Ok(json!({ "scopes": scopes }))
    }

    fn reg_variable(&mut self, r: &RegView) -> Value {
        let views: Vec<(String, String)> = r
            .views()
            .into_iter()
            .map(|(n, v)| (n.to_owned(), v))
            .collect();
        let reference = if views.is_empty() {
            0
        } else {
            self.node(Node::Views(views))
        };
        json!({
            "name": r.name,
            "value": r.text(),
            "type": format!(".{}", r.ty),
            "evaluateName": r.name,
            "variablesReference": reference,
        })
    }

    fn variables(&mut self, args: &Value) -> Result<Value, String> {
        let reference = args
            .get("variablesReference")
            .and_then(Value::as_u64)
            .unwrap_or(0) as usize;
        let node = reference
            .checked_sub(1)
            .and_then(|i| self.nodes.get(i))
            .cloned()
            .ok_or("the variables are gone: the session ran on")?;
        let plain = |name: String, value: String| json!({"name": name, "value": value, "variablesReference": 0});
        let vars: Vec<Value> = match node {
            Node::Registers {
                warp,
                lane,
                pc,
                predicates,
            } => {
                let regs = self.session.registers(warp, lane, pc, predicates);
                regs.iter().map(|r| self.reg_variable(r)).collect()
            }
            Node::Views(views) => views.into_iter().map(|(n, v)| plain(n, v)).collect(),
            Node::Items(items) => items
                .into_iter()
                .enumerate()
                .map(|(i, v)| plain(format!("[{i}]"), v))
                .collect(),
            Node::Specials { warp, lane } => self
                .session
                .specials(warp, lane)
                .into_iter()
                .map(|(n, v)| plain(n, v.to_string()))
                .collect(),
            Node::Warp(warp) => self.warp_variables(warp),
            Node::TensorMemory
            | Node::TensorBlock(..)
            | Node::TensorLane { .. }
            | Node::Layout { .. }
            | Node::LayoutMatrix { .. }
            | Node::LayoutRow { .. } => self.matrix_variables(&node),
            Node::Shared => {
                let (fixed, dynamic) = self.session.shared();
                let (fixed, dynamic) = (fixed.len(), dynamic.len());
                let mut out = Vec::new();
                for (name, is_dynamic, len) in
                    [("static", false, fixed), ("dynamic", true, dynamic)]
                {
                    let reference = if len == 0 {
                        0
                    } else {
                        self.node(Node::SharedWords(is_dynamic))
                    };
                    out.push(json!({
                        "name": name,
                        "value": format!("{len} bytes"),
                        "variablesReference": reference,
                    }));
                }
                out
            }
            Node::Mbarriers => self
                .session
                .mbarriers()
                .into_iter()
                .map(|(offset, state)| plain(format!("shared {offset:#x}"), state))
                .collect(),
            Node::SharedWords(dynamic) => {
                let (fixed, dyn_bytes) = self.session.shared();
                let bytes = if dynamic { dyn_bytes } else { fixed };
                let mut out: Vec<Value> = bytes
                    .chunks(4)
                    .take(SHOWN)
                    .enumerate()
                    .map(|(i, c)| {
                        let mut word = [0u8; 4];
                        word[..c.len()].copy_from_slice(c);
                        plain(
                            format!("[{:#06x}]", i * 4),
                            format!("{:#010x}", u32::from_le_bytes(word)),
                        )
                    })
                    .collect();
                if bytes.len() > SHOWN * 4 {
                    out.push(plain(
                        "…".into(),
                        format!(
                            "{} more bytes (readMemory or evaluate `[ADDR] as u32[N]`)",
                            bytes.len() - SHOWN * 4
                        ),
                    ));
                }
                out
            }
            Node::Buffers => {
                let warp = self.stopped;
                let lane = self.lane(warp);
                let list: Vec<(usize, String, u64, usize)> = self
                    .session
                    .buffers()
                    .into_iter()
                    .map(|(i, n, a, b)| (i, n, a, b.len()))
                    .collect();
                let mut out = Vec::new();
                for (arg, name, addr, len) in list {
                    let ty = self
                        .buffer_types
                        .get(arg)
                        .cloned()
                        .flatten()
                        .unwrap_or_else(|| "u32".to_owned());
                    let size = element_bytes(&ty);
                    let count = len / size;
                    let reference = self.node(Node::Buffer {
                        warp,
                        lane,
                        name: name.clone(),
                        addr,
                        count,
                        ty: ty.clone(),
                    });
                    out.push(json!({
                        "name": name,
                        "value": format!("{ty}[{count}] at {addr:#x}"),
                        "type": format!(".{ty}[{count}]"),
                        "evaluateName": format!("[{name}] as {ty}[{}]", count.clamp(1, 4096)),
                        "variablesReference": reference,
                        "indexedVariables": count,
                        "memoryReference": format!("{addr:#x}"),
                    }));
                }
                out
            }
            Node::Buffer {
                warp,
                lane,
                addr,
                count,
                ty,
                ..
            } => {
                let start = args.get("start").and_then(Value::as_u64).unwrap_or(0) as usize;
                let want = args
                    .get("count")
                    .and_then(Value::as_u64)
                    .map_or(SHOWN, |c| c as usize)
                    .min(4096);
                let n = want.min(count.saturating_sub(start));
                if n == 0 {
                    Vec::new()
                } else {
                    let size = element_bytes(&ty) as u64;
                    let at = addr + start as u64 * size;
                    let expr = format!("[{at:#x}] as {ty}[{n}]");
                    let pc = self.session.pc_of(warp, lane);
                    let items = self.session.evaluate(&expr, warp, lane, pc)?.items;
                    items
                        .into_iter()
                        .enumerate()
                        .map(|(i, v)| plain(format!("[{}]", start + i), v))
                        .collect()
                }
            }
        };
        Ok(json!({ "variables": vars }))
    }

    /// The matrix instruction whose layout a stop at `pc` shows: the one at
    /// `pc`, or else the one just before it (stopped after it); with its line.
    fn layout_at(&self, warp: usize, pc: u32) -> Option<(u32, usize)> {
        [Some(pc), pc.checked_sub(1)]
            .into_iter()
            .flatten()
            .find_map(|pc| self.session.layout(warp, pc).map(|l| (pc, l.line)))
    }

    fn matrix_variables(&mut self, node: &Node) -> Vec<Value> {
        let plain = |name: String, value: String| json!({"name": name, "value": value, "variablesReference": 0});
        match *node {
            Node::TensorMemory => {
                let blocks = self.session.tensor_allocations();
                let mut out = Vec::new();
                for (start, count) in blocks {
                    let reference = self.node(Node::TensorBlock(start, count));
                    out.push(json!({
                        "name": format!("columns {start}..{}", start + count - 1),
                        "value": format!("{TENSOR_LANES} lanes × {count} columns of 32 bits"),
                        "variablesReference": reference,
                        "evaluateName": format!("tmem {start}"),
                    }));
                }
                out
            }
            Node::TensorBlock(start, count) => (0..TENSOR_LANES)
                .map(|lane| {
                    let words: Vec<String> = (start..start + count.min(TENSOR_SUMMARY))
                        .map(|c| {
                            self.session
                                .tensor_word(lane, c)
                                .map_or("-".into(), |w| format!("{w:#010x}"))
                        })
                        .collect();
                    let more = if count > TENSOR_SUMMARY { ", …" } else { "" };
                    let reference = self.node(Node::TensorLane { lane, start, count });
                    json!({
                        "name": format!("lane {lane}"),
                        "value": format!("[{}{more}]", words.join(", ")),
                        "variablesReference": reference,
                        "indexedVariables": count,
                    })
                })
                .collect(),
            Node::TensorLane { lane, start, count } => (start..start + count)
                .map(|column| {
                    let bits = self.session.tensor_word(lane, column).unwrap_or(0);
                    let r = RegView {
                        name: format!("column {column}"),
                        ty: "b32",
                        bits: u64::from(bits),
                        width: 32,
                    };
                    self.reg_variable(&r)
                })
                .collect(),
            Node::Layout { warp, pc } => {
                let Some(layout) = self.session.layout(warp, pc) else {
                    return Vec::new();
                };
                let mut out = vec![plain(
                    "instruction".into(),
                    format!(
                        "line {}: {}",
                        self.line_out(layout.line),
                        layout.instruction
                    ),
                )];
                for (index, m) in layout.matrices.iter().enumerate() {
                    let reference = self.node(Node::LayoutMatrix { warp, pc, index });
                    let rows = m.cells.len();
                    let cols = m.cells.first().map_or(0, Vec::len);
                    out.push(json!({
                        "name": m.name,
                        "value": format!("{rows} rows × {cols} columns: lane and register of each element"),
                        "variablesReference": reference,
                    }));
                }
                out
            }
            Node::LayoutMatrix { warp, pc, index } => {
                let Some(layout) = self.session.layout(warp, pc) else {
                    return Vec::new();
                };
                let Some(m) = layout.matrices.get(index) else {
                    return Vec::new();
                };
                let mut out = Vec::new();
                for (row, cells) in m.cells.iter().enumerate() {
                    let reference = self.node(Node::LayoutRow {
                        warp,
                        pc,
                        index,
                        row,
                    });
                    let summary: Vec<String> = cells.iter().map(|c| cell_text(c)).collect();
                    out.push(json!({
                        "name": format!("row {}", m.first_row + row),
                        "value": summary.join(" | "),
                        "variablesReference": reference,
                    }));
                }
                out
            }
            Node::LayoutRow {
                warp,
                pc,
                index,
                row,
            } => {
                let Some(layout) = self.session.layout(warp, pc) else {
                    return Vec::new();
                };
                let Some(m) = layout.matrices.get(index) else {
                    return Vec::new();
                };
                m.cells
                    .get(row)
                    .map(|cells| {
                        cells
                            .iter()
                            .enumerate()
                            .map(|(col, cell)| {
                                let value = if cell.is_empty() {
                                    "-".to_owned()
                                } else {
                                    cell.iter()
                                        .map(|c| {
                                            format!("{} (lane {} {})", c.value, c.lane, c.register)
                                        })
                                        .collect::<Vec<_>>()
                                        .join(" / ")
                                };
                                plain(format!("col {}", m.first_col + col), value)
                            })
                            .collect()
                    })
                    .unwrap_or_default()
            }
            _ => Vec::new(),
        }
    }

    fn warp_variables(&mut self, warp: usize) -> Vec<Value> {
        let view = self.session.warp(warp);
        let plain = |name: String, value: String| json!({"name": name, "value": value, "variablesReference": 0});
        let next = view
            .groups
            .first()
            .filter(|&&(_, l)| l & !view.blocked != 0)
            .map_or(0, |&(_, l)| l);
        let mut out = vec![
            plain("focused lane".into(), self.lane(warp).to_string()),
            plain("active mask".into(), format!("{next:#010x}")),
            plain("threads".into(), format!("{:#010x}", view.valid)),
            plain("exited".into(), format!("{:#010x}", view.exited)),
            plain(
                "waiting at a barrier".into(),
                format!("{:#010x}", view.blocked),
            ),
        ];
        let diverged = view.groups.len() > 1;
        for &(pc, lanes) in &view.groups {
            let line = self.target.line_of(pc);
            let state = if lanes & view.blocked == lanes {
                " (waiting at a barrier)"
            } else if lanes == next {
                " (issues next)"
            } else {
                ""
            };
            out.push(plain(
                format!("line {}", self.line_out(line)),
                format!("lanes {}{state}", lane_ranges(lanes)),
            ));
        }
        if !diverged {
            out.push(plain(
                "divergence".into(),
                "none: all live lanes are together".into(),
            ));
        }
        out
    }

    fn evaluate(&mut self, args: &Value) -> Result<Value, String> {
        let expression = args
            .get("expression")
            .and_then(Value::as_str)
            .ok_or("evaluate needs an expression")?
            .trim()
            .to_owned();
        let (warp, lane, pc) = match self.frame(args) {
            Ok(f) => f,
            Err(_) => {
                let warp = self.stopped;
                let lane = self.lane(warp);
                (warp, lane, self.session.pc_of(warp, lane))
            }
        };
        if self.ended {
            return Err("the launch has ended".into());
        }
        // `@lane N` alone focuses a lane of the warp.
        if let Some(n) = expression.strip_prefix("@lane") {
            let n: u32 = n
                .trim()
                .parse()
                .ok()
                .filter(|&l| l < 32)
                .ok_or("`@lane N`: a lane is 0 to 31")?;
            if self.session.warp(warp).valid >> n & 1 == 0 {
                return Err(format!("lane {n} of warp {warp} holds no thread"));
            }
            self.focus.insert(warp, n);
            if self.config.invalidated {
                self.out.event(
                    "invalidated",
                    json!({"areas": ["stacks", "variables"], "threadId": warp + 1}),
                );
            }
            return Ok(json!({
                "result": format!("focused lane {n} of warp {warp}"),
                "variablesReference": 0,
            }));
        }
        // `layout` (or `layout LINE`): the fragment layout of a matrix
        // instruction, as a grid of `tLANE REGISTER` cells.
        if let Some(rest) = expression.strip_prefix("layout") {
            let at = match rest.trim() {
                "" => self
                    .layout_at(warp, pc)
                    .map(|(pc, _)| pc)
                    .ok_or("no matrix instruction here or just before: `layout LINE` names one")?,
                line => {
                    let line: u64 = line
                        .parse()
                        .map_err(|_| format!("`layout {line}`: expected a line number"))?;
                    let (at, _) = self
                        .target
                        .resolve_line(self.line_in(line))
                        .ok_or_else(|| format!("no instruction on line {line} or after it"))?;
                    at
                }
            };
            let layout = self
                .session
                .layout(warp, at)
                .ok_or("that line is not a matrix instruction (mma, wmma, wgmma, ldmatrix, stmatrix, movmatrix, tcgen05.ld/st)")?;
            let reference = self.node(Node::Layout { warp, pc: at });
            return Ok(json!({"result": layout.text(), "variablesReference": reference}));
        }
        let value = self.session.evaluate(&expression, warp, lane, pc)?;
        let reference = if value.items.is_empty() {
            0
        } else {
            self.node(Node::Items(value.items.clone()))
        };
        let mut body = json!({
            "result": value.text,
            "variablesReference": reference,
        });
        if !value.items.is_empty() {
            body["indexedVariables"] = json!(value.items.len());
        }
        if let Some(addr) = value.address {
            body["memoryReference"] = json!(format!("{addr:#x}"));
        }
        Ok(body)
    }

    /// Which variable or expression a data breakpoint can watch: a register
    /// of the Registers scope, an element of a global buffer, a word of
    /// shared memory, or an expression (`%r1`, `[buf+8] as f32`, an address
    /// with `asAddress`).
    fn data_breakpoint_info(&mut self, args: &Value) -> Value {
        let name = args
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim();
        let reference = args
            .get("variablesReference")
            .and_then(Value::as_u64)
            .unwrap_or(0) as usize;
        let warp = self.stopped;
        let lane = self.lane(warp);
        let mut at = (warp, lane, self.session.pc_of(warp, lane));
        let index = |name: &str| {
            name.strip_prefix('[')
                .and_then(|n| n.strip_suffix(']'))
                .and_then(|n| match n.strip_prefix("0x") {
                    Some(hex) => u64::from_str_radix(hex, 16).ok(),
                    None => n.parse().ok(),
                })
        };
        let found: Result<(String, Option<String>), String> = if self.ended {
            Err("the launch has ended".into())
        } else if reference == 0 {
            if let Ok(frame) = self.frame(args) {
                at = frame;
            }
            match args.get("asAddress").and_then(Value::as_bool) {
                Some(true) => {
                    let bytes = args.get("bytes").and_then(Value::as_u64).unwrap_or(4);
                    Ok((format!("[{name}] as u8[{bytes}]"), Some(name.to_owned())))
                }
                _ => Ok((name.to_owned(), None)),
            }
        } else {
            match reference.checked_sub(1).and_then(|i| self.nodes.get(i)) {
                Some(Node::Registers { warp, lane, pc, .. }) => {
                    at = (*warp, *lane, *pc);
                    Ok((name.to_owned(), Some(format!("{name}@lane {lane}"))))
                }
                Some(Node::Buffer {
                    addr,
                    count,
                    ty,
                    name: buffer,
                    ..
                }) => match index(name).filter(|&i| i < *count as u64) {
                    Some(i) => Ok((
                        format!("[{:#x}] as {ty}", addr + i * element_bytes(ty) as u64),
                        Some(format!("{buffer}[{i}]")),
                    )),
                    None => Err(format!("`{name}` is not an element of `{buffer}`")),
                },
                Some(Node::SharedWords(dynamic)) => match index(name) {
                    Some(offset) => {
                        let addr = self.session.shared_address(*dynamic, offset);
                        let space = if *dynamic { "dynamic shared" } else { "shared" };
                        Ok((
                            format!("[{addr:#x}] as u32"),
                            Some(format!("{space}[{offset:#x}]")),
                        ))
                    }
                    None => Err(format!("`{name}` is not a word of shared memory")),
                },
                Some(Node::Buffers) => {
                    let found = self
                        .session
                        .buffers()
                        .into_iter()
                        .find(|(_, n, _, _)| n == name)
                        .map(|(arg, _, addr, bytes)| (arg, addr, bytes.len()));
                    match found {
                        Some((arg, addr, len)) => {
                            let ty = self
                                .buffer_types
                                .get(arg)
                                .cloned()
                                .flatten()
                                .unwrap_or_else(|| "u32".to_owned());
                            let count = len / element_bytes(&ty);
                            Ok((
                                format!("[{addr:#x}] as {ty}[{count}]"),
                                Some(name.to_owned()),
                            ))
                        }
                        None => Err(format!("no buffer `{name}`")),
                    }
                }
                Some(_) => Err(format!("`{name}` cannot be watched: it is not a place")),
                None => Err("the variables are gone: the session ran on".into()),
            }
        };
        let info = found.and_then(|(expr, label)| {
            let (warp, lane, pc) = at;
            self.session
                .data_info(&expr, label.as_deref(), warp, lane, pc)
        });
        match info {
            Ok(info) => json!({
                "dataId": info.data_id,
                "description": info.description,
                "accessTypes": ["write", "read", "readWrite"],
                "canPersist": true,
            }),
            Err(message) => json!({"dataId": null, "description": message}),
        }
    }

    fn set_variable(&mut self, args: &Value) -> Result<Value, String> {
        let reference = args
            .get("variablesReference")
            .and_then(Value::as_u64)
            .unwrap_or(0) as usize;
        let node = reference
            .checked_sub(1)
            .and_then(|i| self.nodes.get(i))
            .cloned()
            .ok_or("the variables are gone: the session ran on")?;
        let Node::Registers { warp, lane, pc, .. } = node else {
            return Err("only registers can be set".into());
        };
        let name = args.get("name").and_then(Value::as_str).unwrap_or("");
        let value = args.get("value").and_then(Value::as_str).unwrap_or("");
        let set = self.session.set_register(name, value, warp, lane, pc)?;
        Ok(json!({"value": set.text(), "type": format!(".{}", set.ty)}))
    }

    fn read_memory(&mut self, args: &Value) -> Result<Value, String> {
        let reference = args
            .get("memoryReference")
            .and_then(Value::as_str)
            .ok_or("readMemory needs a memoryReference")?;
        let base = parse_address(reference).ok_or_else(|| format!("bad address `{reference}`"))?;
        let offset = args.get("offset").and_then(Value::as_i64).unwrap_or(0);
        let count = args
            .get("count")
            .and_then(Value::as_u64)
            .unwrap_or(0)
            .min(1 << 20) as usize;
        let addr = base.wrapping_add_signed(offset);
        let warp = self.stopped;
        let lane = self.lane(warp);
        // Read in chunks; stop at the first byte that cannot be read.
        let mut data = Vec::with_capacity(count);
        'chunks: while data.len() < count {
            let at = addr.wrapping_add(data.len() as u64);
            let n = (count - data.len()).min(4096);
            match self.session.read_memory(warp, lane, at, n) {
                Ok(bytes) => data.extend_from_slice(&bytes),
                Err(_) => {
                    for i in 0..n as u64 {
                        match self.session.read_memory(warp, lane, at.wrapping_add(i), 1) {
                            Ok(b) => data.extend_from_slice(&b),
                            Err(_) => break 'chunks,
                        }
                    }
                }
            }
        }
        let mut body = json!({
            "address": format!("{addr:#x}"),
            "data": base64(&data),
        });
        if data.len() < count {
            body["unreadableBytes"] = json!(count - data.len());
        }
        Ok(body)
    }
}

fn parse_address(text: &str) -> Option<u64> {
    let t = text.trim();
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => t.parse().ok(),
    }
}

fn element_bytes(ty: &str) -> usize {
    match ty {
        "u8" | "s8" | "b8" | "e4m3" | "e5m2" => 1,
        "u16" | "s16" | "b16" | "f16" | "bf16" => 2,
        "u64" | "s64" | "b64" | "f64" => 8,
        _ => 4,
    }
}

/// Lane numbers as ranges: `0-7, 12`.
fn lane_ranges(mask: u32) -> String {
    let mut parts = Vec::new();
    let mut lane = 0;
    while lane < 32 {
        if mask >> lane & 1 == 0 {
            lane += 1;
            continue;
        }
        let start = lane;
        while lane < 32 && mask >> lane & 1 == 1 {
            lane += 1;
        }
        parts.push(if lane - 1 == start {
            start.to_string()
        } else {
            format!("{start}-{}", lane - 1)
        });
    }
    parts.join(", ")
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_and_lane_ranges() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foob"), "Zm9vYg==");
        assert_eq!(lane_ranges(0xff), "0-7");
        assert_eq!(lane_ranges(0x1_00ff | 1 << 31), "0-7, 16, 31");
    }
}
