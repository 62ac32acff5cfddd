//! `textDocument/codeAction`: the checker's quick fixes for the diagnostics
//! in the requested range.

use std::collections::HashMap;
use std::sync::Arc;

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, CodeActionResponse,
    WorkspaceEdit,
};

use crate::lsp::server::State;
use crate::lsp::{diagnostics, dispatch, from_proto, to_proto};

pub(crate) async fn handle(
    state: &Arc<State>,
    params: CodeActionParams,
) -> Result<Option<CodeActionResponse>> {
    let snapshot = super::snapshot(state, &params.text_document.uri)?;
    let checked = diagnostics::for_snapshot(state, snapshot.clone()).await?;
    dispatch::analysis("textDocument/codeAction", move || {
        let range = from_proto::text_range(&snapshot, params.range);
        let mut actions = Vec::new();
        for (diagnostic, lsp_diagnostic) in checked.diagnostics.iter().zip(checked.lsp.iter()) {
            let overlaps =
                diagnostic.range.start <= range.end && range.start <= diagnostic.range.end;
            if !overlaps {
                continue;
            }
            for (i, fix) in diagnostic.fixes.iter().enumerate() {
                let edits = fix
                    .edits
                    .iter()
                    .map(|e| to_proto::text_edit(&snapshot, &e.range, e.new_text.clone()))
                    .collect();
                actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: fix.title.clone(),
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![lsp_diagnostic.clone()]),
                    edit: Some(WorkspaceEdit {
                        changes: Some(HashMap::from([(snapshot.uri.clone(), edits)])),
                        ..Default::default()
                    }),
                    is_preferred: Some(i == 0 && diagnostic.fixes.len() == 1),
                    ..Default::default()
                }));
            }
        }
        Some(actions)
    })
    .await
}
