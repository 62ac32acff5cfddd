//! `ptx/registerCount`: the `regs` result for the instruction at a position.
//!
//! Parameters: `{ "textDocument": { "uri": ... }, "position": { ... } }`.
//! Result: `null` when no instruction is there, else the JSON of the CLI's
//! `regs --format json` (`{"instruction", "vectors": [...]}`), or, when the
//! combination is impossible, `{"instruction", "error": "..."}`. The written
//! operands take part (a wgmma A operand given as a descriptor is no fragment).
//! When the document names a `.target`, the result also carries the verdict on
//! it, judged on the form in hand as `check` judges it:
//! `"target": {"name": "sm_80", "available": true, "verdict": "..."}`.

use std::sync::Arc;

use ptx_syntax::DirectiveKind;
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
        let module = snapshot.parse.module();
        let Some(instruction) = module.instructions_in(offset..offset).into_iter().next() else {
            return Value::Null;
        };
        let Some(opcode) = instruction.opcode_name() else {
            return Value::Null;
        };
        let operands: Vec<&str> = instruction.operands().iter().map(|o| o.text()).collect();
        let written = format!("{opcode} {}", operands.join(", "));
        let mut result = match ptx_regs::register_counts(&written) {
            Ok(counts) => serde_json::to_value(&counts).unwrap_or(Value::Null),
            Err(error) => return json!({ "instruction": opcode, "error": error.message }),
        };
        let target = module
            .directives(DirectiveKind::Target)
            .iter()
            .flat_map(|d| d.targets())
            .map(|t| t.text.to_owned())
            .find(|t| ptx_isa::SmName::parse(t).is_some());
        if let (Some(target), Some(object)) = (target, result.as_object_mut()) {
            let verdict =
                match ptx_check::form_availability::register_counts_on(&written, Some(&target)) {
                    Ok(_) => json!({
                        "name": target,
                        "available": true,
                        "verdict": ptx_check::form_availability::availability(&written)
                            .verdict(&target),
                    }),
                    Err(error) => json!({
                        "name": target,
                        "available": false,
                        "verdict": error.message,
                    }),
                };
            object.insert("target".to_owned(), verdict);
        }
        result
    })
    .await
}
