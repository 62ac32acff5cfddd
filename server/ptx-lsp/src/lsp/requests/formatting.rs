//! `textDocument/formatting` and `textDocument/rangeFormatting`.
//!
//! A file with syntax errors is not formatted (the answer is no edits, and
//! the log says why): reformatting text the parser does not understand could
//! change its meaning.

use std::sync::Arc;

use ptx_ide::formatting::{FormatEdit, FormatOptions};
use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{
    DocumentFormattingParams, DocumentRangeFormattingParams, FormattingOptions, TextEdit,
};

use crate::lsp::documents::Snapshot;
use crate::lsp::server::State;
use crate::lsp::{dispatch, from_proto, to_proto};

fn options(options: &FormattingOptions) -> FormatOptions {
    if options.insert_spaces {
        FormatOptions {
            indent: " ".repeat(options.tab_size.clamp(1, 16) as usize),
        }
    } else {
        FormatOptions::default()
    }
}

fn convert(snapshot: &Snapshot, edits: Option<Vec<FormatEdit>>) -> Option<Vec<TextEdit>> {
    match edits {
        Some(edits) => Some(
            edits
                .into_iter()
                .map(|e| to_proto::text_edit(snapshot, &e.range, e.new_text))
                .collect(),
        ),
        None => {
            eprintln!(
                "ptx-lsp: not formatting {}: it has syntax errors",
                snapshot.uri
            );
            None
        }
    }
}

pub(crate) async fn document(
    state: &Arc<State>,
    params: DocumentFormattingParams,
) -> Result<Option<Vec<TextEdit>>> {
    let snapshot = super::snapshot(state, &params.text_document.uri)?;
    let options = options(&params.options);
    dispatch::feature("textDocument/formatting", snapshot.clone(), move || {
        let edits = ptx_ide::formatting::format_document(&snapshot.parse, &options);
        convert(&snapshot, edits)
    })
    .await
}

pub(crate) async fn range(
    state: &Arc<State>,
    params: DocumentRangeFormattingParams,
) -> Result<Option<Vec<TextEdit>>> {
    let snapshot = super::snapshot(state, &params.text_document.uri)?;
    let options = options(&params.options);
    dispatch::feature(
        "textDocument/rangeFormatting",
        snapshot.clone(),
        move || {
            let range = from_proto::text_range(&snapshot, params.range);
            let edits = ptx_ide::formatting::format_range(&snapshot.parse, range, &options);
            convert(&snapshot, edits)
        },
    )
    .await
}
