//! `textDocument/documentSymbol`: the hierarchical outline.

use std::sync::Arc;

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{DocumentSymbolParams, DocumentSymbolResponse};

use crate::lsp::server::State;
use crate::lsp::{dispatch, to_proto};

pub(crate) async fn handle(
    state: &Arc<State>,
    params: DocumentSymbolParams,
) -> Result<Option<DocumentSymbolResponse>> {
    let snapshot = super::snapshot(state, &params.text_document.uri)?;
    dispatch::feature("textDocument/documentSymbol", snapshot.clone(), move || {
        let symbols = ptx_ide::symbols::document_symbols(&snapshot.parse)
            .into_iter()
            .map(|symbol| to_proto::document_symbol(&snapshot, symbol))
            .collect();
        Some(DocumentSymbolResponse::Nested(symbols))
    })
    .await
}
