//! `textDocument/documentHighlight`: the occurrences of the name under the
//! cursor, marked as read or written.

use std::sync::Arc;

use ptx_ide::navigation::Access;
use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{DocumentHighlight, DocumentHighlightKind, DocumentHighlightParams};

use crate::lsp::server::State;
use crate::lsp::{dispatch, from_proto, to_proto};

pub(crate) async fn handle(
    state: &Arc<State>,
    params: DocumentHighlightParams,
) -> Result<Option<Vec<DocumentHighlight>>> {
    let position = params.text_document_position_params;
    let snapshot = super::snapshot(state, &position.text_document.uri)?;
    dispatch::feature(
        "textDocument/documentHighlight",
        snapshot.clone(),
        move || {
            let offset = from_proto::offset(&snapshot, position.position);
            let highlights = ptx_ide::navigation::document_highlights(&snapshot.parse, offset);
            Some(
                highlights
                    .iter()
                    .map(|h| DocumentHighlight {
                        range: to_proto::range(&snapshot, &h.range),
                        kind: Some(match h.access {
                            Access::Declaration => DocumentHighlightKind::TEXT,
                            Access::Write => DocumentHighlightKind::WRITE,
                            Access::Read => DocumentHighlightKind::READ,
                        }),
                    })
                    .collect(),
            )
        },
    )
    .await
}
