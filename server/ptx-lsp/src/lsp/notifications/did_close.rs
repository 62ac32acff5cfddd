//! `textDocument/didClose`: forgets the document, stops its runs, cancels its analyses in
//! progress and clears its diagnostics.

use std::sync::Arc;

use tower_lsp::lsp_types::DidCloseTextDocumentParams;

use crate::lsp::server::State;

pub(crate) async fn handle(state: &Arc<State>, params: DidCloseTextDocumentParams) {
    let uri = params.text_document.uri;
    // Synchronously first, so that no later message sees the closed document.
    state.documents.close(&uri);
    state.runs.stop_document(&uri);
    crate::lsp::dispatch::cancel_closed(&uri);
    state.compiler.forget(&uri);
    state.semantic_caches.remove(&uri);
    state.diagnostics.forget(&uri);
    state.forget_host(&uri);
    if state.push_diagnostics() {
        state
            .client
            .publish_diagnostics(uri, Vec::new(), None)
            .await;
    }
}
