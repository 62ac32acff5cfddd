//! `workspace/didChangeConfiguration`: new settings; every open document is
//! checked again and the client is asked to refresh what depends on them.

use std::sync::Arc;

use tower_lsp::lsp_types::DidChangeConfigurationParams;

use crate::lsp::config::Config;
use crate::lsp::diagnostics;
use crate::lsp::server::State;

pub(crate) fn handle(state: &Arc<State>, params: DidChangeConfigurationParams) {
    match Config::from_json(&params.settings) {
        Ok(Some(config)) => {
            eprintln!("ptx-lsp: new settings: {config:?}");
            state.set_config(config);
        }
        Ok(None) => return,
        Err(message) => {
            eprintln!("ptx-lsp: didChangeConfiguration: {message}");
            return;
        }
    }
    for snapshot in state.documents.all(state.encoding()) {
        state.diagnostics.forget(&snapshot.uri);
        // The asm statements of CUDA/C++ files were read for the old target.
        state.forget_host(&snapshot.uri);
        diagnostics::schedule(state, snapshot.uri);
    }
    state.refresh_client_views();
}
