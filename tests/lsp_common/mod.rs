//! A minimal LSP client for end-to-end tests: it runs the real `ptx-lsp`
//! binary and talks to it over stdio with real `Content-Length` framing.
//!
//! A reader thread parses frames from the server's stdout into JSON values.
//! Requests wait for their response; notifications (diagnostics) are queued
//! and can be awaited by polling; requests from the server to the client are
//! answered with `null`. The server's stderr is collected so that a failing
//! test can show it. Dropping the client kills the server if it still runs.

#![allow(dead_code)] // Each test crate uses a different part of the harness.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub const TIMEOUT: Duration = Duration::from_secs(60);

pub struct LspClient {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: Receiver<Value>,
    /// Notifications received while waiting for something else.
    pub notifications: VecDeque<Value>,
    next_id: i64,
    stderr: Arc<Mutex<String>>,
}

/// The path of a corpus file.
pub fn corpus(relative: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus")
        .join(relative)
}

pub fn file_uri(name: &str) -> String {
    format!("file:///work/{name}")
}

impl LspClient {
    /// Starts the server with extra environment variables.
    pub fn spawn_with_env(env: &[(&str, &str)]) -> Self {
        Self::spawn_with(&[], env)
    }

    /// Starts the server with command-line arguments and extra environment
    /// variables.
    pub fn spawn_with(args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut command = Command::new(
            std::env::var("PTX_LSP_BENCH_BINARY")
                .unwrap_or_else(|_| env!("CARGO_BIN_EXE_ptx-lsp").to_string()),
        );
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (key, value) in env {
            command.env(key, value);
        }
        let mut child = command.spawn().expect("the ptx-lsp binary starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_frame(&mut reader) {
                if tx.send(message).is_err() {
                    break;
                }
            }
        });
        let collected = Arc::new(Mutex::new(String::new()));
        let sink = collected.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                sink.lock().unwrap().push_str(&(line + "\n"));
            }
        });
        LspClient {
            stdin: child.stdin.take(),
            child,
            messages: rx,
            notifications: VecDeque::new(),
            next_id: 1,
            stderr: collected,
        }
    }

    pub fn spawn() -> Self {
        Self::spawn_with_env(&[])
    }

    /// Starts the server and completes the `initialize` handshake.
    pub fn initialized(capabilities: Value, options: Value) -> Self {
        let mut client = Self::spawn();
        client.initialize(capabilities, options);
        client
    }

    pub fn initialize(&mut self, capabilities: Value, options: Value) -> Value {
        let result = self.request(
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": capabilities,
                   "initializationOptions": options}),
        );
        self.notify("initialized", json!({}));
        result
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's resident memory in KiB (Linux `/proc`), if known.
    pub fn rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to server");
        stdin.flush().expect("flush");
    }

    pub fn send(&mut self, message: &Value) {
        let body = serde_json::to_vec(message).unwrap();
        let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        frame.extend(body);
        self.send_raw(&frame);
    }

    /// Sends a notification; `Value::Null` params are left out, as for `exit`.
    pub fn notify(&mut self, method: &str, params: Value) {
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.send(&message);
    }

    /// Sends a request and returns the whole response (`result` or `error`).
    pub fn request_raw(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.send(&message);
        self.response(&json!(id))
    }

    /// Sends a request and returns its result; panics on an error response.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let response = self.request_raw(method, params);
        if let Some(error) = response.get("error") {
            panic!("{method} failed: {error}\nserver log:\n{}", self.stderr());
        }
        response["result"].clone()
    }

    /// Waits for the response with `id`, queueing notifications.
    pub fn response(&mut self, id: &Value) -> Value {
        // It may have come while another response was awaited.
        if let Some(i) = self
            .notifications
            .iter()
            .position(|m| m.get("id") == Some(id) && m.get("method").is_none())
        {
            return self.notifications.remove(i).unwrap_or_default();
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let message = self.next_message(deadline).unwrap_or_else(|| {
                panic!(
                    "no response to request {id}\nserver log:\n{}",
                    self.stderr()
                )
            });
            if message.get("id") == Some(id) && message.get("method").is_none() {
                return message;
            }
            self.queue(message);
        }
    }

    fn queue(&mut self, message: Value) {
        if message.get("method").is_some() && message.get("id").is_some() {
            // A request from the server (refresh, configuration): answer it.
            let id = message["id"].clone();
            self.send(&json!({"jsonrpc": "2.0", "id": id, "result": null}));
        } else {
            self.notifications.push_back(message);
        }
    }

    fn next_message(&mut self, deadline: Instant) -> Option<Value> {
        let left = deadline.saturating_duration_since(Instant::now());
        self.messages.recv_timeout(left).ok()
    }

    /// Waits for a notification that satisfies `wanted`, removing it (and
    /// keeping the others queued).
    pub fn wait_notification(
        &mut self,
        timeout: Duration,
        wanted: impl Fn(&Value) -> bool,
    ) -> Option<Value> {
        if let Some(i) = self.notifications.iter().position(&wanted) {
            return self.notifications.remove(i);
        }
        let deadline = Instant::now() + timeout;
        while let Some(message) = self.next_message(deadline) {
            if message.get("method").is_some() && message.get("id").is_none() && wanted(&message) {
                return Some(message);
            }
            self.queue(message);
        }
        None
    }

    /// Waits for diagnostics of `uri` published for `version` (or any
    /// version when `None`); returns the diagnostics array.
    pub fn diagnostics(&mut self, uri: &str, version: Option<i64>) -> Vec<Value> {
        let message = self
            .wait_notification(TIMEOUT, |m| {
                m["method"] == "textDocument/publishDiagnostics"
                    && m["params"]["uri"] == uri
                    && version.is_none_or(|v| m["params"]["version"] == v)
            })
            .unwrap_or_else(|| {
                panic!(
                    "no diagnostics for {uri} version {version:?}\nserver log:\n{}",
                    self.stderr()
                )
            });
        message["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    pub fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "ptx", "version": 1, "text": text}}),
        );
    }

    /// `shutdown`, then `exit`; returns the exit status.
    pub fn shutdown_and_exit(mut self) -> ExitStatus {
        let result = self.request("shutdown", Value::Null);
        assert_eq!(result, Value::Null);
        self.notify("exit", Value::Null);
        self.wait_for_exit()
    }

    pub fn wait_for_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait for server") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the server did not exit\nserver log:\n{}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }
}

impl Drop for LspClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads one `Content-Length` framed message; `None` at end of stream.
fn read_frame(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length:") {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// An LSP position (UTF-16 columns) of a byte offset.
pub fn position(text: &str, offset: usize) -> Value {
    let index = ptx_syntax::LineIndex::new(text);
    let lc = index.line_col(text, offset, ptx_syntax::PositionEncoding::Utf16);
    json!({"line": lc.line, "character": lc.col})
}

/// The byte offset of the `nth` occurrence of `needle`.
pub fn offset_of(text: &str, needle: &str, nth: usize) -> usize {
    text.match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("`{needle}` occurs fewer than {} times", nth + 1))
        .0
}

/// Applies LSP text edits (UTF-16 ranges) to a text.
pub fn apply_edits(text: &str, edits: &[Value]) -> String {
    let index = ptx_syntax::LineIndex::new(text);
    let offset = |p: &Value| {
        index.offset(
            text,
            ptx_syntax::LineCol {
                line: p["line"].as_u64().unwrap() as u32,
                col: p["character"].as_u64().unwrap() as u32,
            },
            ptx_syntax::PositionEncoding::Utf16,
        )
    };
    let mut spans: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            (
                offset(&e["range"]["start"]),
                offset(&e["range"]["end"]),
                e["newText"].as_str().unwrap(),
            )
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_owned();
    for (start, end, new_text) in spans {
        out.replace_range(start..end, new_text);
    }
    out
}

/// The checker's diagnostics of a text as the server publishes them:
/// `(start line, start character, end line, end character, code, message)`.
pub fn expected_diagnostics(text: &str) -> Vec<(u64, u64, u64, u64, String, String)> {
    let index = ptx_syntax::LineIndex::new(text);
    ptx_check::check_text(text, &ptx_check::CheckOptions::default())
        .into_iter()
        .map(|d| {
            let start = index.line_col(text, d.range.start, ptx_syntax::PositionEncoding::Utf16);
            let end = index.line_col(text, d.range.end, ptx_syntax::PositionEncoding::Utf16);
            let message = if d.source.is_empty() {
                d.message
            } else {
                format!("{} (PTX ISA {})", d.message, d.source)
            };
            (
                start.line as u64,
                start.col as u64,
                end.line as u64,
                end.col as u64,
                d.code.to_owned(),
                message,
            )
        })
        .collect()
}

/// The same tuple for published LSP diagnostics.
pub fn published(diagnostics: &[Value]) -> Vec<(u64, u64, u64, u64, String, String)> {
    diagnostics
        .iter()
        .map(|d| {
            let r = &d["range"];
            (
                r["start"]["line"].as_u64().unwrap(),
                r["start"]["character"].as_u64().unwrap(),
                r["end"]["line"].as_u64().unwrap(),
                r["end"]["character"].as_u64().unwrap(),
                d["code"].as_str().unwrap_or_default().to_owned(),
                d["message"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// The `p` quantile (0 to 1) of `samples`, which it sorts: the sample at that rank.
pub fn percentile(samples: &mut [std::time::Duration], p: f64) -> std::time::Duration {
    samples.sort();
    samples[((samples.len() as f64 - 1.0) * p).round() as usize]
}
