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
    let sass_counts_on = state.config().compiler.sass_counts;
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
        // SASS instructions per PTX line, at the end of the line.
        let sass = if sass_counts_on && !snapshot.host {
            crate::lsp::compiler::sass_counts(&state, &snapshot).unwrap_or_default()
        } else {
            Default::default()
        };
        let text = snapshot.text();
        // The end of each line (before its `\r\n` or `\n`), when there are counts to place.
        let mut ends = Vec::new();
        if !sass.is_empty() {
            let bytes = text.as_bytes();
            for (i, b) in bytes.iter().enumerate() {
                if *b == b'\n' {
                    ends.push(if i > 0 && bytes[i - 1] == b'\r' {
                        i - 1
                    } else {
                        i
                    });
                }
            }
            ends.push(text.len());
        }
        let line_ends: Vec<(usize, u32)> = sass
            .iter()
            .filter_map(|(line, n)| Some((*ends.get((*line as usize).checked_sub(1)?)?, *n)))
            .filter(|(offset, _)| range.contains(offset) || *offset == range.end)
            .collect();
        let sass_hints = line_ends.into_iter().map(|(offset, n)| InlayHint {
            position: to_proto::position(&snapshot, offset),
            label: InlayHintLabel::String(format!("{n} SASS")),
            kind: None,
            text_edits: None,
            tooltip: Some(InlayHintTooltip::String(
                "machine instructions ptxas made of this line".into(),
            )),
            padding_left: Some(true),
            padding_right: None,
            data: None,
        });
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
                .chain(sass_hints)
                .collect(),
        )
    })
    .await
}
