//! A DAP client over the real `ptx-lsp dap` binary's stdio, for the
//! end-to-end tests and the latency bench.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

/// Every wait for a message gives up after this long (a hang fails the test).
pub const PATIENCE: Duration = Duration::from_secs(60);

pub fn fixtures() -> String {
    format!("{}/../../tests/fixtures/dap", env!("CARGO_MANIFEST_DIR"))
}

pub fn fixture(name: &str) -> String {
    format!("{}/{name}", fixtures())
}

/// Text with the fixtures' folder written `<fixtures>`.
pub fn portable(text: &str) -> String {
    text.replace(&fixtures(), "<fixtures>")
}

pub struct Dap {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    seq: i64,
    /// Events seen while waiting for something else.
    events: Vec<Value>,
}

impl Dap {
    pub fn spawn() -> Dap {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ptx-lsp"))
            .arg("dap")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start ptx-lsp dap");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, messages) = channel();
        std::thread::spawn(move || loop {
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(n) = line.strip_prefix("Content-Length: ") {
                    length = n.parse().unwrap();
                }
            }
            let mut body = vec![0; length];
            if stdout.read_exact(&mut body).is_err() {
                return;
            }
            if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                return;
            }
        });
        Dap {
            child,
            stdin,
            messages,
            seq: 1,
            events: Vec::new(),
        }
    }

    pub fn next(&mut self) -> Value {
        self.messages
            .recv_timeout(PATIENCE)
            .expect("a message from the debug adapter")
    }

    pub fn send(&mut self, command: &str, arguments: Value) -> i64 {
        let seq = self.seq;
        self.seq += 1;
        let body =
            json!({"seq": seq, "type": "request", "command": command, "arguments": arguments})
                .to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
        seq
    }

    /// Writes bytes as they are (for malformed input).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and returns its whole response.
    pub fn response(&mut self, command: &str, arguments: Value) -> Value {
        let seq = self.send(command, arguments);
        loop {
            let message = self.next();
            if message["type"] == "response" && message["request_seq"] == seq {
                assert_eq!(message["command"], command);
                return message;
            }
            assert_eq!(message["type"], "event", "{message}");
            self.events.push(message);
        }
    }

    /// Sends a request that must succeed and returns its body.
    pub fn request(&mut self, command: &str, arguments: Value) -> Value {
        let response = self.response(command, arguments);
        assert_eq!(response["success"], true, "{response}");
        response.get("body").cloned().unwrap_or(Value::Null)
    }

    /// Waits for an event (taking it from those already seen first).
    pub fn event(&mut self, name: &str) -> Value {
        if let Some(i) = self.events.iter().position(|e| e["event"] == name) {
            return self.events.remove(i)["body"].clone();
        }
        loop {
            let message = self.next();
            if message["type"] == "event" && message["event"] == name {
                return message.get("body").cloned().unwrap_or(Value::Null);
            }
            self.events.push(message);
        }
    }

    /// The outputs seen so far, in order, joined.
    pub fn outputs(&mut self) -> String {
        let mut out = String::new();
        self.events.retain(|e| {
            if e["event"] == "output" {
                out.push_str(e["body"]["output"].as_str().unwrap_or(""));
                false
            } else {
                true
            }
        });
        out
    }

    pub fn start(launch: Value, breakpoints: Value) -> Dap {
        Dap::start_with(launch, breakpoints, json!([]))
    }

    pub fn start_with(launch: Value, breakpoints: Value, functions: Value) -> Dap {
        let mut dap = Dap::spawn();
        let caps = dap.request(
            "initialize",
            json!({"adapterID": "ptx", "linesStartAt1": true, "columnsStartAt1": true}),
        );
        assert_eq!(caps["supportsConfigurationDoneRequest"], true);
        assert_eq!(caps["supportsConditionalBreakpoints"], true);
        dap.request("launch", launch);
        dap.event("initialized");
        let set = dap.request(
            "setBreakpoints",
            json!({"source": {"path": "x"}, "breakpoints": breakpoints}),
        );
        assert!(
            set["breakpoints"]
                .as_array()
                .unwrap()
                .iter()
                .all(|b| b["verified"] == true),
            "{set}"
        );
        let set = dap.request("setFunctionBreakpoints", json!({"breakpoints": functions}));
        assert!(
            set["breakpoints"]
                .as_array()
                .unwrap()
                .iter()
                .all(|b| b["verified"] == true),
            "{set}"
        );
        dap.request("configurationDone", json!({}));
        dap
    }

    /// Where warp `thread` (a DAP thread id) stands: `function:line` frames.
    pub fn stack(&mut self, thread: u64) -> String {
        let trace = self.request("stackTrace", json!({"threadId": thread}));
        trace["stackFrames"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| format!("{}:{}", f["name"].as_str().unwrap(), f["line"]))
            .collect::<Vec<_>>()
            .join(" < ")
    }

    pub fn frame_id(&mut self, thread: u64) -> Value {
        let trace = self.request("stackTrace", json!({"threadId": thread}));
        trace["stackFrames"][0]["id"].clone()
    }

    pub fn evaluate(&mut self, frame: &Value, expression: &str) -> String {
        let response = self.response(
            "evaluate",
            json!({"expression": expression, "frameId": frame, "context": "watch"}),
        );
        if response["success"] == true {
            response["body"]["result"].as_str().unwrap().to_owned()
        } else {
            format!("error: {}", response["message"].as_str().unwrap())
        }
    }

    pub fn variables(&mut self, reference: &Value) -> String {
        let body = self.request("variables", json!({"variablesReference": reference}));
        body["variables"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                format!(
                    "{} = {}",
                    v["name"].as_str().unwrap(),
                    v["value"].as_str().unwrap()
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    pub fn finish(mut self) {
        self.request("disconnect", json!({}));
        drop(self.stdin);
        let status = self.child.wait().unwrap();
        assert!(status.success());
    }
}
