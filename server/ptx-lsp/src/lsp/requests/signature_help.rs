//! `textDocument/signatureHelp`: the operands of the matched syntax form,
//! with the one under the cursor active.

use std::sync::Arc;

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{
    Documentation, MarkupContent, MarkupKind, ParameterInformation, ParameterLabel, SignatureHelp,
    SignatureHelpParams, SignatureInformation,
};

use crate::lsp::server::State;
use crate::lsp::{dispatch, from_proto};

/// A byte offset in `label` as UTF-16 code units (parameter label offsets
/// are counted in the negotiated encoding; UTF-16 is the safe choice for
/// labels, which are ASCII in practice).
fn utf16_offset(label: &str, byte: usize) -> u32 {
    label[..byte.min(label.len())].encode_utf16().count() as u32
}

pub(crate) async fn handle(
    state: &Arc<State>,
    params: SignatureHelpParams,
) -> Result<Option<SignatureHelp>> {
    let position = params.text_document_position_params;
    let snapshot = super::snapshot(state, &position.text_document.uri)?;
    dispatch::feature("textDocument/signatureHelp", snapshot.clone(), move || {
        let offset = from_proto::offset(&snapshot, position.position);
        let help = ptx_ide::signature::signature_help(&snapshot.parse, offset)?;
        let parameters = help
            .parameters
            .iter()
            .map(|range| ParameterInformation {
                label: ParameterLabel::LabelOffsets([
                    utf16_offset(&help.label, range.start),
                    utf16_offset(&help.label, range.end),
                ]),
                documentation: None,
            })
            .collect();
        Some(SignatureHelp {
            signatures: vec![SignatureInformation {
                label: help.label.clone(),
                documentation: help.documentation.map(|value| {
                    Documentation::MarkupContent(MarkupContent {
                        kind: MarkupKind::Markdown,
                        value,
                    })
                }),
                parameters: Some(parameters),
                active_parameter: Some(help.active_parameter as u32),
            }],
            active_signature: Some(0),
            active_parameter: Some(help.active_parameter as u32),
        })
    })
    .await
}
