//! `textDocument/didChange`: applies the edits in order, then schedules a
//! check. This function is synchronous on purpose: the edits are applied
//! before the handler's future can yield, so two changes can never be
//! applied out of order.

use std::sync::Arc;

use tower_lsp::lsp_types::DidChangeTextDocumentParams;

use crate::lsp::server::State;
use crate::lsp::{diagnostics, dispatch, from_proto};

pub(crate) fn handle(state: &Arc<State>, params: DidChangeTextDocumentParams) {
    let uri = params.text_document.uri;
    let version = params.text_document.version;
    let edits = from_proto::text_edits(params.content_changes);
    let encoding = state.encoding();
    let applied = dispatch::catch_panic("textDocument/didChange", || {
        state.documents.change(&uri, &edits, encoding, version)
    });
    match applied {
        Ok(true) => {
            // A background check of the previous text is no longer wanted.
            dispatch::cancel_changed(&uri);
            diagnostics::prepare(state, &uri);
            diagnostics::schedule(state, uri)
        }
        Ok(false) => eprintln!("ptx-lsp: didChange for {uri}, which is not open"),
        Err(_) => {
            // The document may be half-edited: drop it rather than serve
            // results for text the client does not have.
            state.documents.close(&uri);
            eprintln!("ptx-lsp: {uri} was dropped after a failed edit; reopen it");
        }
    }
}
