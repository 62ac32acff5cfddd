//! `ptx/sass` and `ptx/toolchain`: the compiler view's requests.
//!
//! `ptx/sass` parameters: `{ "textDocument": { "uri" }, "kernel"?: "name" }`. Result:
//! `{ "target", "text", "lines": [PTX line (1-based) or null, one per line of text],
//!    "functions": [{ "name", "first_line", "last_line", "instructions" }],
//!    "counts": [{ "line", "instructions" }] }`
//! or `{ "error": "..." }` when there is no SASS to show (no ptxas or nvdisasm, ptxas rejected
//! the text, no such kernel). The document's current text is compiled (or the cached result of
//! the same text is used) with the background compilation's options.
//!
//! `ptx/toolchain` (no parameters): `{ "ptxas": { "path", "source", "version" } | null,
//! "cuobjdump": …, "nvdisasm": … }`.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{json, Value};
use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::TextDocumentIdentifier;

use crate::lsp::compiler;
use crate::lsp::dispatch;
use crate::lsp::server::State;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Params {
    pub text_document: TextDocumentIdentifier,
    #[serde(default)]
    pub kernel: Option<String>,
}

pub(crate) async fn handle(state: &Arc<State>, params: Params) -> Result<Value> {
    let snapshot = super::snapshot(state, &params.text_document.uri)?;
    let state = state.clone();
    // Compiling and disassembling can take seconds: the blocking pool, not a request slot's
    // analysis thread.
    let answer = tokio::task::spawn_blocking(move || {
        if snapshot.host {
            return json!({"error": "the SASS view is for PTX files"});
        }
        if !state.config().compiler.enable {
            return json!({"error": "the compiler view is turned off (ptx.compiler.enable)"});
        }
        let Some(done) = compiler::ensure(&state, &snapshot) else {
            return json!({"error": "nothing to compile: no `.target sm_XX` in the file and no target setting"});
        };
        if let Some(error) = &done.error {
            return json!({"error": error});
        }
        let errors: Vec<String> = done
            .report
            .diagnostics
            .iter()
            .filter(|d| d.severity == ptx_toolchain::PtxasSeverity::Error)
            .map(|d| match d.line {
                Some(line) => format!("line {line}: {}", d.message),
                None => d.message.clone(),
            })
            .collect();
        if !errors.is_empty() {
            return json!({"error": format!("ptxas rejected the file: {}", errors.join("; "))});
        }
        let sass = match done.sass(&state) {
            Ok(sass) => sass,
            Err(error) => return json!({"error": error}),
        };
        let sass = match &params.kernel {
            Some(name) => match sass.only(name) {
                Some(one) => Arc::new(one),
                None => return json!({"error": format!("no function `{name}` in the machine code")}),
            },
            None => sass,
        };
        json!({
            "target": done.target,
            "text": sass.text,
            "lines": sass.lines.iter().map(|l| l.ptx_line.filter(|_| l.instruction)).collect::<Vec<_>>(),
            "functions": sass.functions,
            "counts": sass
                .counts_per_ptx_line()
                .into_iter()
                .map(|(line, n)| json!({"line": line, "instructions": n}))
                .collect::<Vec<_>>(),
        })
    })
    .await;
    answer.map_err(|error| dispatch::internal_error("ptx/sass", &error.to_string()))
}

pub(crate) async fn toolchain(state: &Arc<State>) -> Result<Value> {
    let state = state.clone();
    tokio::task::spawn_blocking(move || {
        let tools = state
            .compiler
            .toolchain(state.config().compiler.path.as_deref());
        serde_json::to_value(tools.as_ref()).unwrap_or(Value::Null)
    })
    .await
    .map_err(|error| dispatch::internal_error("ptx/toolchain", &error.to_string()))
}
