//! `textDocument/inlayHint`: register counts after vector operands.

use std::sync::Arc;

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{
    InlayHint, InlayHintKind, InlayHintLabel, InlayHintParams, InlayHintTooltip,
};

use crate::lsp::server::State;
use crate::lsp::{dispatch, from_proto, to_proto};

pub(crate) async fn handle(
    state: &Arc<State>,
    params: InlayHintParams,
) -> Result<Option<Vec<InlayHint>>> {
    if !state.config().inlay_hints.register_counts {
        return Ok(Some(Vec::new()));
    }
    let snapshot = super::snapshot(state, &params.text_document.uri)?;
    dispatch::analysis("textDocument/inlayHint", move || {
        let range = from_proto::text_range(&snapshot, params.range);
        let hints = ptx_ide::inlay_hints::inlay_hints(&snapshot.parse, range);
        Some(
            hints
                .into_iter()
                .map(|hint| InlayHint {
                    position: to_proto::position(&snapshot, hint.offset),
                    label: InlayHintLabel::String(hint.label),
                    kind: Some(InlayHintKind::TYPE),
                    text_edits: None,
                    tooltip: Some(InlayHintTooltip::String(hint.tooltip)),
                    padding_left: Some(true),
                    padding_right: None,
                    data: None,
                })
                .collect(),
        )
    })
    .await
}
