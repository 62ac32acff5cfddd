//! `textDocument/prepareRename` and `textDocument/rename`: scope-aware
//! renaming of registers, labels, functions, variables and parameters.

use std::collections::HashMap;
use std::sync::Arc;

use tower_lsp::jsonrpc::{Error, Result};
use tower_lsp::lsp_types::{
    PrepareRenameResponse, RenameParams, TextDocumentPositionParams, WorkspaceEdit,
};

use crate::lsp::server::State;
use crate::lsp::{dispatch, from_proto, to_proto};

pub(crate) async fn prepare(
    state: &Arc<State>,
    params: TextDocumentPositionParams,
) -> Result<Option<PrepareRenameResponse>> {
    let snapshot = super::snapshot(state, &params.text_document.uri)?;
    dispatch::analysis("textDocument/prepareRename", move || {
        if !snapshot.analysable() {
            return Ok(None);
        }
        let offset = from_proto::offset(&snapshot, params.position);
        match ptx_ide::navigation::prepare_rename(&snapshot.parse, offset) {
            Ok(range) => Ok(Some(PrepareRenameResponse::Range(to_proto::range(
                &snapshot, &range,
            )))),
            Err(error) => Err(Error::invalid_params(error.0)),
        }
    })
    .await?
}

pub(crate) async fn handle(
    state: &Arc<State>,
    params: RenameParams,
) -> Result<Option<WorkspaceEdit>> {
    let position = params.text_document_position;
    let snapshot = super::snapshot(state, &position.text_document.uri)?;
    let new_name = params.new_name;
    dispatch::analysis("textDocument/rename", move || {
        if !snapshot.analysable() {
            return Ok(None);
        }
        let offset = from_proto::offset(&snapshot, position.position);
        let edits = ptx_ide::navigation::rename(&snapshot.parse, offset, &new_name)
            .map_err(|error| Error::invalid_params(error.0))?;
        let edits = edits
            .into_iter()
            .map(|(range, text)| to_proto::text_edit(&snapshot, &range, text))
            .collect();
        Ok(Some(WorkspaceEdit {
            changes: Some(HashMap::from([(snapshot.uri.clone(), edits)])),
            ..Default::default()
        }))
    })
    .await?
}
