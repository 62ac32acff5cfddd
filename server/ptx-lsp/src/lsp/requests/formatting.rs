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

/// The options of the client's latest formatting request, for [`warm_up`].
static LAST_OPTIONS: std::sync::Mutex<Option<FormatOptions>> = std::sync::Mutex::new(None);

/// Documents smaller than this format fast enough from nothing.
const WARM_UP_BYTES: usize = 256 << 10;

/// After a large document was checked, formats it in the background with the options of the
/// client's latest formatting request, if there was one: the formatter remembers each
/// top-level item's output, so the next format (on save, usually) only redoes what changed
/// instead of the whole file (a first formatting of a 2 MB file takes a few hundred ms).
/// Nothing is sent; a change of the document cancels it.
pub(crate) fn warm_up(state: &Arc<State>, uri: &tower_lsp::lsp_types::Url) {
    let Some(options) = LAST_OPTIONS.lock().ok().and_then(|o| o.clone()) else {
        return;
    };
    let Some(snapshot) = state.snapshot(uri) else {
        return;
    };
    if snapshot.host || snapshot.len() < WARM_UP_BYTES {
        return;
    }
    let uri = uri.clone();
    tokio::spawn(async move {
        let _ = dispatch::analysis_of(
            "formatting warm-up",
            Some(&uri),
            dispatch::Cancel::Change,
            move || {
                if snapshot.analysable() {
                    let _ = ptx_ide::formatting::format_document(&snapshot.parse, &options);
                }
            },
        )
        .await;
    });
}

fn options(options: &FormattingOptions) -> FormatOptions {
    let chosen = chosen_options(options);
    if let Ok(mut last) = LAST_OPTIONS.lock() {
        *last = Some(chosen.clone());
    }
    chosen
}

fn chosen_options(options: &FormattingOptions) -> FormatOptions {
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
