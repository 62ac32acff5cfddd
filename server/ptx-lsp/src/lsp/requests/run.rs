//! `ptx/run`: runs a snippet, a `// @run` region or one kernel in the
//! interpreter and returns every thread's registers and the per-line values
//! of the selected thread (clients show them next to the code).
//!
//! Parameters (all optional except `textDocument`; they mirror the CLI's
//! `run` flags):
//!
//! ```json
//! { "textDocument": {"uri": "..."},
//!   "range": {...},            // run only this region as a snippet
//!   "threads": 32, "set": [["%r1", "5"]], "maxSteps": 1000000, "hintThread": 0,
//!   "entry": "k", "grid": [1,1,1], "block": [32,1,1], "args": ["u32:5", "buf:f32:1,2"] }
//! ```
//!
//! Result: `{"threads": [{"tid", "ctaid", "registers": {"%r1": "0x00000007"}}],
//! "steps", "buffers": [{"arg", "hex"}], "lines": [{"range", "text", "executions"}],
//! "error": null | {"kind", "message", "range", "thread"}}`. A fault is part of
//! the result (with the registers so far empty), not a JSON-RPC error.
//!
//! Runs are bounded (see [`crate::lsp::runs`]): a few at a time, each stopped
//! when cancelled, when its document closes, at shutdown, or after the time
//! limit (then the fault says so).

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ptx_interp::{
    parse_arg, run_kernel_stoppable, run_snippet_stoppable, KernelOptions, RunErrorKind,
    SnippetOptions, DEFAULT_MAX_STEPS,
};
use ptx_syntax::Parse;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use tower_lsp::jsonrpc::{Error, Result};
use tower_lsp::lsp_types::{self as lsp, Range, TextDocumentIdentifier};

use crate::lsp::diagnostics::{self, RunMarks};
use crate::lsp::documents::Snapshot;
use crate::lsp::server::State;
use crate::lsp::{dispatch, from_proto, to_proto};

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct RunParams {
    pub text_document: Option<TextDocumentIdentifier>,
    pub range: Option<Range>,
    pub threads: Option<u32>,
    pub set: Vec<(String, String)>,
    pub max_steps: Option<u64>,
    pub hint_thread: Option<u32>,
    pub entry: Option<String>,
    pub grid: Option<[u32; 3]>,
    pub block: Option<[u32; 3]>,
    pub args: Vec<String>,
    /// Bytes of dynamic shared memory per CTA (kernel mode).
    pub dynamic_smem: Option<u32>,
    /// CTAs per thread-block cluster (kernel mode).
    pub cluster: Option<[u32; 3]>,
}

pub(crate) async fn handle(state: &Arc<State>, params: Value) -> Result<Value> {
    let params: RunParams = serde_json::from_value(params)
        .map_err(|error| Error::invalid_params(format!("ptx/run: {error}")))?;
    let uri = params
        .text_document
        .as_ref()
        .ok_or_else(|| Error::invalid_params("ptx/run needs a textDocument"))?
        .uri
        .clone();
    let snapshot = super::snapshot(state, &uri)?;
    let generation = snapshot.generation;
    // Dropped when this handler ends or is cancelled: that stops the run.
    let ticket = state.runs.start(&uri).map_err(request_failed)?;
    let flag = ticket.flag();
    let limit = Duration::from_millis(state.config().run.time_limit_ms);
    let mut work = Box::pin(dispatch::analysis("ptx/run", move || {
        run(&snapshot, &params, flag)
    }));
    let (outcome, timed_out) = match tokio::time::timeout(limit, &mut work).await {
        Ok(outcome) => (outcome, false),
        Err(_) => {
            // The interpreter stops within a few thousand steps.
            ticket.stop();
            (work.await, true)
        }
    };
    let (mut value, values, mut error) = outcome??;
    if timed_out {
        let message = format!(
            "stopped after {} ms, the time limit of a run (setting run.timeLimitMs)",
            limit.as_millis()
        );
        value["error"]["message"] = Value::String(message.clone());
        if let Some(diagnostic) = &mut error {
            diagnostic.message = message;
        }
    }
    drop(ticket);
    if state.documents.generation(&uri) != Some(generation) {
        // Closed or edited meanwhile: the values belong to no text on screen.
        return Ok(value);
    }
    static SERIAL: AtomicU64 = AtomicU64::new(1);
    state.diagnostics.set_run_marks(
        &uri,
        RunMarks {
            generation,
            serial: SERIAL.fetch_add(1, Ordering::Relaxed),
            values,
            error,
        },
    );
    // Show the values as inlay hints and the fault as a diagnostic.
    state.refresh_client_views();
    if state.push_diagnostics() {
        diagnostics::schedule(state, uri);
    }
    Ok(value)
}

/// LSP's `RequestFailed`: the request was valid but cannot be served.
fn request_failed(message: String) -> Error {
    Error {
        code: tower_lsp::jsonrpc::ErrorCode::ServerError(-32803),
        message: message.into(),
        data: None,
    }
}

/// The `ptx/run` result, the per-line values to show as inlay hints (byte
/// offset, text) and the fault as a diagnostic.
type RunOutput = (Value, Vec<(usize, String)>, Option<lsp::Diagnostic>);

fn run(snapshot: &Snapshot, params: &RunParams, stop: Arc<AtomicBool>) -> Result<RunOutput> {
    // A region runs on its own text; offsets are shifted back afterwards.
    let (parse, base) = match params.range {
        Some(range) => {
            let range = from_proto::text_range(snapshot, range);
            (Parse::new(&snapshot.text()[range.clone()]), range.start)
        }
        None => (Parse::clone(&snapshot.parse), 0),
    };
    if snapshot.too_large() || parse.too_deep().is_some() {
        return Err(request_failed(format!(
            "not run: the code is larger than {} MiB or nests more than {} levels deep",
            crate::lsp::documents::MAX_ANALYZED_BYTES >> 20,
            ptx_syntax::MAX_NESTING
        )));
    }
    let max_steps = params.max_steps.unwrap_or(DEFAULT_MAX_STEPS);
    let hint_thread = params.hint_thread.unwrap_or(0);
    let result = match &params.entry {
        Some(entry) => {
            let args = params
                .args
                .iter()
                .map(|a| parse_arg(a))
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(Error::invalid_params)?;
            run_kernel_stoppable(
                &parse,
                &KernelOptions {
                    entry: entry.clone(),
                    grid: params.grid.unwrap_or([1, 1, 1]),
                    block: params.block.unwrap_or([1, 1, 1]),
                    args,
                    max_steps,
                    hint_thread,
                    dynamic_smem: params.dynamic_smem,
                    contract: true,
                    cluster: params.cluster,
                },
                Some(stop),
            )
        }
        None => run_snippet_stoppable(
            &parse,
            &SnippetOptions {
                threads: params.threads.unwrap_or(1),
                set: params.set.clone(),
                max_steps,
                hint_thread,
                contract: true,
            },
            Some(stop),
        ),
    };
    let shift = |r: &ptx_syntax::TextRange| (r.start + base)..(r.end + base);
    match result {
        Ok(result) => {
            let threads: Vec<Value> = result
                .threads
                .iter()
                .map(|t| {
                    let registers: Map<String, Value> = t
                        .registers
                        .iter()
                        .map(|r| (r.name.clone(), Value::String(r.text())))
                        .collect();
                    json!({"tid": t.tid, "ctaid": t.ctaid, "registers": registers})
                })
                .collect();
            let mut hints = Vec::new();
            let lines: Vec<Value> = result
                .lines
                .iter()
                .filter(|line| !line.values.is_empty())
                .map(|line| {
                    let mut text = String::new();
                    for (i, v) in line.values.iter().enumerate() {
                        let sep = if i == 0 { "" } else { ", " };
                        let typed = v.typed_text();
                        let _ = if typed.is_empty() {
                            write!(text, "{sep}{} = {}", v.name, v.text())
                        } else {
                            write!(text, "{sep}{} = {} ({typed})", v.name, v.text())
                        };
                    }
                    hints.push((shift(&line.range).end, text.clone()));
                    json!({"range": to_proto::range(snapshot, &shift(&line.range)),
                           "text": text, "executions": line.executions})
                })
                .collect();
            let buffers: Vec<Value> = result
                .buffers
                .iter()
                .map(|b| {
                    let hex: String = b.bytes.iter().map(|x| format!("{x:02x}")).collect();
                    // A buffer given as `buf:TYPE:…` is also shown as numbers of that type.
                    let ty = params
                        .args
                        .get(b.arg)
                        .and_then(|a| a.strip_prefix("buf:"))
                        .and_then(|a| a.split(':').next());
                    match ty.and_then(|ty| typed_values(&b.bytes, ty)) {
                        Some((ty, values, more)) => json!({
                            "arg": b.arg, "hex": hex, "type": ty, "values": values, "more": more,
                        }),
                        None => json!({"arg": b.arg, "hex": hex}),
                    }
                })
                .collect();
            Ok((
                json!({"threads": threads, "steps": result.steps, "buffers": buffers,
                      "lines": lines, "error": null}),
                hints,
                None,
            ))
        }
        Err(error) if error.kind == RunErrorKind::Usage => {
            Err(Error::invalid_params(error.message))
        }
        Err(error) => {
            let range = error
                .range
                .as_ref()
                .map(|r| to_proto::range(snapshot, &shift(r)));
            let diagnostic = range.map(|range| lsp::Diagnostic {
                range,
                severity: Some(lsp::DiagnosticSeverity::ERROR),
                code: Some(lsp::NumberOrString::String("run-fault".into())),
                source: Some("ptx-lsp run".into()),
                message: match error.thread {
                    Some(thread) => format!("thread {thread}: {}", error.message),
                    None => error.message.clone(),
                },
                ..lsp::Diagnostic::default()
            });
            Ok((
                json!({
                    "threads": [], "steps": 0, "buffers": [], "lines": [],
                    "error": {
                        "kind": if error.kind == RunErrorKind::Fault { "fault" } else { "program" },
                        "message": error.message,
                        "range": range,
                        "thread": error.thread,
                    }
                }),
                Vec::new(),
                diagnostic,
            ))
        }
    }
}

/// The most elements of a buffer listed as numbers (the hex has them all).
const MAX_TYPED_VALUES: usize = 1024;

/// `bytes` as numbers of `ty` (`f32`, `s32`, `u8`, …): the type, the first
/// [`MAX_TYPED_VALUES`] values as text, and how many more there are. `None` for types
/// without a plain number form.
fn typed_values(bytes: &[u8], ty: &str) -> Option<(String, Vec<String>, usize)> {
    let size = match ty {
        "u8" | "s8" | "b8" => 1,
        "u16" | "s16" | "b16" | "f16" => 2,
        "u32" | "s32" | "b32" | "f32" => 4,
        "u64" | "s64" | "b64" | "f64" => 8,
        _ => return None,
    };
    let count = bytes.len() / size;
    let values = bytes
        .chunks_exact(size)
        .take(MAX_TYPED_VALUES)
        .map(|c| {
            let mut raw = [0u8; 8];
            raw[..size].copy_from_slice(c);
            let bits = u64::from_le_bytes(raw);
            let signed = |width: u32| (((bits << (64 - width)) as i64) >> (64 - width)).to_string();
            match ty {
                "f32" => format!("{:?}", f32::from_bits(bits as u32)),
                "f64" => format!("{:?}", f64::from_bits(bits)),
                "f16" => format!("{:?}", half_to_f32(bits as u16)),
                "s8" => signed(8),
                "s16" => signed(16),
                "s32" => signed(32),
                "s64" => signed(64),
                _ => bits.to_string(),
            }
        })
        .collect();
    Some((
        ty.to_owned(),
        values,
        count.saturating_sub(MAX_TYPED_VALUES),
    ))
}

/// An IEEE half-precision value as `f32` (exact).
fn half_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from((h >> 10) & 0x1f);
    let mantissa = f32::from(h & 0x3ff);
    match exponent {
        0 => sign * mantissa * 2f32.powi(-24),
        31 if mantissa == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        e => sign * (1.0 + mantissa / 1024.0) * 2f32.powi(e - 15),
    }
}

#[cfg(test)]
mod typed_tests {
    use super::*;

    #[test]
    fn buffers_as_numbers() {
        let bytes: Vec<u8> = [1.5f32, -2.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        assert_eq!(
            typed_values(&bytes, "f32"),
            Some(("f32".into(), vec!["1.5".into(), "-2.0".into()], 0))
        );
        assert_eq!(
            typed_values(&[0xff, 0x7f, 0x00, 0x3c], "f16").unwrap().1,
            ["NaN", "1.0"]
        );
        assert_eq!(typed_values(&[0xff, 1], "s8").unwrap().1, ["-1", "1"]);
        let many = vec![0u8; 4 * (MAX_TYPED_VALUES + 5)];
        let (_, values, more) = typed_values(&many, "u32").unwrap();
        assert_eq!((values.len(), more), (MAX_TYPED_VALUES, 5));
        assert_eq!(typed_values(&bytes, "hex"), None);
    }
}
