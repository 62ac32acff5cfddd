//! `initialize`: negotiates the position encoding, reads the initial
//! settings, and announces the capabilities.

use std::sync::Arc;

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{InitializeParams, InitializeResult, ServerInfo};

use crate::lsp::capabilities::server_capabilities;
use crate::lsp::config::Config;
use crate::lsp::from_proto;
use crate::lsp::server::State;

pub(crate) fn handle(state: &Arc<State>, params: InitializeParams) -> Result<InitializeResult> {
    let encoding = from_proto::negotiate_encoding(&params.capabilities);
    state.set_encoding(encoding);
    let pull = params
        .capabilities
        .text_document
        .as_ref()
        .is_some_and(|t| t.diagnostic.is_some());
    state.set_pull_diagnostics(pull);
    let snippets = params
        .capabilities
        .text_document
        .as_ref()
        .and_then(|t| t.completion.as_ref())
        .and_then(|c| c.completion_item.as_ref())
        .and_then(|i| i.snippet_support)
        .unwrap_or(false);
    state.set_snippet_support(snippets);
    let workspace = params.capabilities.workspace.as_ref();
    state.set_refresh_support(
        workspace
            .and_then(|w| w.inlay_hint.as_ref())
            .and_then(|i| i.refresh_support)
            .unwrap_or(false),
        workspace
            .and_then(|w| w.diagnostic.as_ref())
            .and_then(|d| d.refresh_support)
            .unwrap_or(false),
    );
    state.set_code_lens_refresh(
        workspace
            .and_then(|w| w.code_lens.as_ref())
            .and_then(|c| c.refresh_support)
            .unwrap_or(false),
    );
    if let Some(options) = &params.initialization_options {
        match Config::from_json(options) {
            Ok(Some(config)) => state.set_config(config),
            Ok(None) => {}
            Err(message) => eprintln!("ptx-lsp: initializationOptions: {message}"),
        }
    }
    eprintln!(
        "ptx-lsp {}: initialize ({encoding:?} positions, {} diagnostics)",
        env!("CARGO_PKG_VERSION"),
        if pull { "pull" } else { "push" }
    );
    Ok(InitializeResult {
        capabilities: server_capabilities(encoding, pull),
        server_info: Some(ServerInfo {
            name: "ptx-lsp".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
    })
}
