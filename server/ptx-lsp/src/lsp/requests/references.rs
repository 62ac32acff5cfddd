//! `textDocument/references`: every occurrence of the name under the cursor
//! that means the same thing.

use std::sync::Arc;

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{Location, ReferenceParams};

use crate::lsp::server::State;
use crate::lsp::{dispatch, from_proto, to_proto};

pub(crate) async fn handle(
    state: &Arc<State>,
    params: ReferenceParams,
) -> Result<Option<Vec<Location>>> {
    let position = params.text_document_position;
    let include_declaration = params.context.include_declaration;
    let snapshot = super::snapshot(state, &position.text_document.uri)?;
    dispatch::feature("textDocument/references", snapshot.clone(), move || {
        let offset = from_proto::offset(&snapshot, position.position);
        let references =
            ptx_ide::navigation::find_references(&snapshot.parse, offset, include_declaration);
        Some(
            references
                .iter()
                .map(|r| to_proto::location(&snapshot, &r.range))
                .collect(),
        )
    })
    .await
}
