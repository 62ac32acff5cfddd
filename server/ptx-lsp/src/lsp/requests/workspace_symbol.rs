//! `workspace/symbol`: matching symbols of every open document.

use std::sync::Arc;

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{SymbolInformation, WorkspaceSymbolParams};

use crate::lsp::server::State;
use crate::lsp::{dispatch, to_proto};

/// Enough for any symbol picker; a query that matches more is too broad.
const MAX_RESULTS: usize = 1000;

pub(crate) async fn handle(
    state: &Arc<State>,
    params: WorkspaceSymbolParams,
) -> Result<Option<Vec<SymbolInformation>>> {
    let snapshots = state.documents.all(state.encoding());
    dispatch::analysis("workspace/symbol", move || {
        let mut out = Vec::new();
        for snapshot in snapshots.iter().filter(|s| !s.host && s.analysable()) {
            for flat in ptx_ide::symbols::workspace_symbols(&snapshot.parse, &params.query) {
                #[allow(deprecated)] // `deprecated` must still be filled in.
                out.push(SymbolInformation {
                    name: flat.symbol.name,
                    kind: to_proto::symbol_kind(flat.symbol.kind),
                    tags: None,
                    deprecated: None,
                    location: to_proto::location(snapshot, &flat.symbol.selection_range),
                    container_name: flat.container,
                });
                if out.len() >= MAX_RESULTS {
                    return Some(out);
                }
            }
        }
        Some(out)
    })
    .await
}
