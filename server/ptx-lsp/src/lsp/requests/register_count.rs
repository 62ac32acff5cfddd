//! `ptx/registerCount`: the `regs` result for the instruction at a position.
//!
//! Parameters: `{ "textDocument": { "uri": ... }, "position": { ... } }`.
//! Result: `null` when no instruction is there, else the JSON of the CLI's
//! `regs --format json` (`{"instruction", "vectors": [...]}`), or, when the
//! combination is impossible, `{"instruction", "error": "..."}`.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{json, Value};
use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{Position, TextDocumentIdentifier};

use crate::lsp::server::State;
use crate::lsp::{dispatch, from_proto};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Params {
    pub text_document: TextDocumentIdentifier,
    pub position: Position,
}

pub(crate) async fn handle(state: &Arc<State>, params: Params) -> Result<Value> {
    let snapshot = super::snapshot(state, &params.text_document.uri)?;
    dispatch::feature("ptx/registerCount", snapshot.clone(), move || {
        let offset = from_proto::offset(&snapshot, params.position);
        let instruction = snapshot
            .parse
            .module()
            .instructions()
            .into_iter()
            .find(|i| i.range().start <= offset && offset <= i.range().end);
        let Some(opcode) = instruction.and_then(|i| i.opcode_name()) else {
            return Value::Null;
        };
        match ptx_regs::register_counts(&opcode) {
            Ok(counts) => serde_json::to_value(&counts).unwrap_or(Value::Null),
            Err(error) => json!({ "instruction": opcode, "error": error.message }),
        }
    })
    .await
}
