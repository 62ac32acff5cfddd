//! `textDocument/hover`: our summary of the opcode, qualifier, register,
//! directive, label or variable under the cursor, followed by the spec's own
//! text when the user has imported it (`ptx-lsp docs import`).

use std::sync::Arc;

use ptx_ide::hover::HoverConfig;
use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};

use crate::lsp::server::State;
use crate::lsp::{dispatch, from_proto, to_proto};

pub(crate) async fn handle(state: &Arc<State>, params: HoverParams) -> Result<Option<Hover>> {
    let position = params.text_document_position_params;
    let snapshot = super::snapshot(state, &position.text_document.uri)?;
    let config = state.config();
    let spec = state.spec_index();
    let state = state.clone();
    dispatch::feature("textDocument/hover", snapshot.clone(), move || {
        let offset = from_proto::offset(&snapshot, position.position);
        let spec = spec.as_ref().and_then(|lazy| lazy.get());
        let hover_config = HoverConfig {
            target_override: config.target.as_deref(),
            version_override: config.version.as_deref(),
            spec: spec.as_deref(),
            target_unknown: false,
        };
        if let Some(host) = state.host_document(&snapshot) {
            // Inside an asm template of a CUDA/C++ file; nothing elsewhere.
            let result = ptx_embed::ide::hover(&host, offset, &hover_config)?;
            return Some(Hover {
                contents: HoverContents::Markup(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value: result.markdown,
                }),
                range: Some(to_proto::range(&snapshot, &result.range)),
            });
        }
        let result = ptx_ide::hover::hover(&snapshot.parse, offset, &hover_config);
        // On a function's name, ptxas's figures for it follow (when compiled).
        let compiled = crate::lsp::compiler::hover(&state, &snapshot, offset);
        let (markdown, range) = match (result, compiled) {
            (Some(ours), Some((figures, _))) => {
                (format!("{}\n\n---\n\n{figures}", ours.markdown), ours.range)
            }
            (Some(ours), None) => (ours.markdown, ours.range),
            (None, Some((figures, range))) => (figures, range),
            (None, None) => return None,
        };
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: markdown,
            }),
            range: Some(to_proto::range(&snapshot, &range)),
        })
    })
    .await
}
