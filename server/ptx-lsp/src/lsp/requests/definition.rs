//! `textDocument/definition`: where the name under the cursor is declared.

use std::sync::Arc;

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{GotoDefinitionParams, GotoDefinitionResponse, LocationLink};

use crate::lsp::server::State;
use crate::lsp::{dispatch, from_proto, to_proto};

pub(crate) async fn handle(
    state: &Arc<State>,
    params: GotoDefinitionParams,
) -> Result<Option<GotoDefinitionResponse>> {
    let position = params.text_document_position_params;
    let snapshot = super::snapshot(state, &position.text_document.uri)?;
    dispatch::feature("textDocument/definition", snapshot.clone(), move || {
        let offset = from_proto::offset(&snapshot, position.position);
        let token = ptx_ide::navigation::name_range_at(&snapshot.parse, offset);
        let targets = ptx_ide::navigation::goto_definition(&snapshot.parse, offset);
        if targets.is_empty() {
            return None;
        }
        let links = targets
            .iter()
            .map(|target| LocationLink {
                origin_selection_range: token.as_ref().map(|r| to_proto::range(&snapshot, r)),
                target_uri: snapshot.uri.clone(),
                target_range: to_proto::range(&snapshot, &target.full_range),
                target_selection_range: to_proto::range(&snapshot, &target.name_range),
            })
            .collect();
        Some(GotoDefinitionResponse::Link(links))
    })
    .await
}
