//! `textDocument/didOpen`: stores the document and checks it.

use std::sync::Arc;

use tower_lsp::lsp_types::DidOpenTextDocumentParams;

use crate::lsp::diagnostics;
use crate::lsp::server::State;

pub(crate) fn handle(state: &Arc<State>, params: DidOpenTextDocumentParams) {
    let document = params.text_document;
    state
        .documents
        .open(document.uri.clone(), &document.text, document.version);
    diagnostics::schedule(state, document.uri);
}
