//! `textDocument/didOpen`: stores the document and checks it.

use std::sync::Arc;

use tower_lsp::lsp_types::DidOpenTextDocumentParams;

use crate::lsp::server::State;
use crate::lsp::{diagnostics, dispatch};

pub(crate) fn handle(state: &Arc<State>, params: DidOpenTextDocumentParams) {
    let document = params.text_document;
    let opened = dispatch::catch_panic("textDocument/didOpen", || {
        state.documents.open(
            document.uri.clone(),
            &document.text,
            document.version,
            &document.language_id,
            &state.config().host_extensions,
        )
    });
    if opened.is_ok() {
        crate::lsp::compiler::schedule(state, &document.uri);
        diagnostics::schedule(state, document.uri);
    }
}
