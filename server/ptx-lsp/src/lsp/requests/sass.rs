//! `ptx/sass` and `ptx/toolchain`: the compiler view's requests.
//!
//! `ptx/sass` parameters: `{ "textDocument": { "uri" }, "kernel"?: "name" }`; in a CUDA
//! document the functions are its asm statements, named `asm statement, line N`, and the
//! lines are host lines. Result:
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
        if !state.config().compiler.enable {
            return json!({"error": "the compiler view is turned off (ptx.compiler.enable)"});
        }
        if snapshot.host {
            return host(&state, &snapshot, params.kernel.as_deref());
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
        let sass = match done.sass() {
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

/// `ptx/sass` on a CUDA document: the machine code of its asm statements, each a function
/// of the view named `asm statement, line N`, the view's lines linked to host lines (see
/// `crate::machine_code`). With `kernel`, only that statement.
fn host(
    state: &Arc<State>,
    snapshot: &crate::lsp::documents::Snapshot,
    kernel: Option<&str>,
) -> Value {
    let tools = state
        .compiler
        .toolchain(state.config().compiler.path.as_deref());
    if tools.ptxas.is_none() || tools.nvdisasm.is_none() {
        return json!({"error": "no ptxas and nvdisasm found (ptx.compiler.path, CUDA_HOME, PATH)"});
    }
    if state.host_document(snapshot).is_none() {
        return json!({"error": "the document is not read as CUDA C++"});
    }
    // Compiled in the background after opening and saving: usually at hand.
    let Some(statements) = compiler::host_statements(state, snapshot) else {
        return json!({"error": "the compilation was replaced by one of a newer text"});
    };
    let mut view = ptx_toolchain::Sass::default();
    let mut targets: Vec<&str> = Vec::new();
    for statement in statements.iter() {
        let name = statement_name(statement.line);
        if kernel.is_some_and(|k| k != name) {
            continue;
        }
        if !targets.contains(&statement.target.as_str()) {
            targets.push(&statement.target);
        }
        let first_line = view.lines.len();
        let mut push = |text: &str, line: ptx_toolchain::SassLine| {
            view.text.push_str(text);
            view.text.push('\n');
            view.lines.push(line);
        };
        let header = ptx_toolchain::SassLine {
            ptx_line: Some(statement.line),
            instruction: false,
        };
        push(&format!("// {name} ({})", statement.target), header.clone());
        let instructions = match &statement.outcome {
            Ok(sass) => {
                // The kernel's own header comment is replaced by the one above.
                for (text, line) in sass.text.lines().zip(&sass.lines).skip(1) {
                    push(text, line.clone());
                }
                sass.functions.iter().map(|f| f.instructions).sum()
            }
            Err(error) => {
                push(&format!("// {error}"), header);
                0
            }
        };
        push(
            "",
            ptx_toolchain::SassLine {
                ptx_line: None,
                instruction: false,
            },
        );
        view.functions.push(ptx_toolchain::SassFunction {
            name,
            first_line,
            last_line: view.lines.len() - 1,
            instructions,
        });
    }
    if view.functions.is_empty() {
        return json!({"error": match kernel {
            Some(k) => format!("no {k} in this file"),
            None => "no asm statements in this file".to_owned(),
        }});
    }
    json!({
        "target": targets.join(", "),
        "text": view.text,
        "lines": view.lines.iter().map(|l| l.ptx_line.filter(|_| l.instruction)).collect::<Vec<_>>(),
        "functions": view.functions,
        "counts": view
            .counts_per_ptx_line()
            .into_iter()
            .map(|(line, n)| json!({"line": line, "instructions": n}))
            .collect::<Vec<_>>(),
    })
}

/// The name of the statement starting on host line `line` (1-based) in `ptx/sass` views
/// and the SASS code lens.
pub(crate) fn statement_name(line: u32) -> String {
    format!("asm statement, line {line}")
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
