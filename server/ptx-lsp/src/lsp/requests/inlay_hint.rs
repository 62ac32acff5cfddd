//! `textDocument/inlayHint`: register counts after vector operands, and
//! the values each line wrote in the latest `ptx/run` of the same text.

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
    let register_counts = state.config().inlay_hints.register_counts;
    let snapshot = super::snapshot(state, &params.text_document.uri)?;
    let run = state
        .diagnostics
        .run_marks(&params.text_document.uri, snapshot.generation);
    let state = state.clone();
    dispatch::feature("textDocument/inlayHint", snapshot.clone(), move || {
        let range = from_proto::text_range(&snapshot, params.range);
        let host = state.host_document(&snapshot);
        let hints = match (register_counts, host) {
            (false, _) => Vec::new(),
            // Register counts of the asm statements of a CUDA/C++ file.
            (true, Some(host)) => ptx_embed::ide::inlay_hints(&host, range.clone())
                .into_iter()
                .map(|h| ptx_ide::inlay_hints::InlayHint {
                    offset: h.offset,
                    label: h.label,
                    tooltip: h.tooltip,
                })
                .collect(),
            (true, None) => ptx_ide::inlay_hints::inlay_hints(&snapshot.parse, range.clone()),
        };
        let run_values = run
            .iter()
            .flat_map(|marks| marks.values.iter())
            .filter(|(offset, _)| range.contains(offset) || *offset == range.end)
            .map(|(offset, text)| InlayHint {
                position: to_proto::position(&snapshot, *offset),
                label: InlayHintLabel::String(format!("→ {text}")),
                kind: None,
                text_edits: None,
                tooltip: Some(InlayHintTooltip::String(
                    "value written in the latest run".into(),
                )),
                padding_left: Some(true),
                padding_right: None,
                data: None,
            });
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
                .chain(run_values)
                .collect(),
        )
    })
    .await
}
