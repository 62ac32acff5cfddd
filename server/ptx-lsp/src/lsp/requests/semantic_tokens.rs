//! `textDocument/semanticTokens/full`, `/full/delta` and `/range`.
//!
//! The last full result of each document is kept with its result id, so a
//! delta request after an edit sends only the changed middle of the array.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{
    SemanticTokens, SemanticTokensDelta, SemanticTokensDeltaParams, SemanticTokensFullDeltaResult,
    SemanticTokensParams, SemanticTokensRangeParams, SemanticTokensRangeResult,
    SemanticTokensResult,
};

use crate::lsp::documents::Snapshot;
use crate::lsp::server::State;
use crate::lsp::{dispatch, from_proto, to_proto};

fn next_result_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed).to_string()
}

async fn compute(
    state: &Arc<State>,
    name: &'static str,
    snapshot: Snapshot,
) -> Result<Arc<Vec<u32>>> {
    let state = state.clone();
    let cache = state
        .semantic_caches
        .entry(snapshot.uri.clone())
        .or_default()
        .clone();
    dispatch::feature(name, snapshot.clone(), move || {
        // A CUDA/C++ file: the PTX tokens of its asm templates only.
        let tokens = match state.host_document(&snapshot) {
            Some(host) => ptx_embed::ide::semantic_tokens(&host),
            None => {
                // Pieces unchanged since the last request keep their tokens. A poisoned
                // cache (an earlier request panicked) starts afresh.
                let mut cache = cache.lock().unwrap_or_else(|poisoned| {
                    let mut guard = poisoned.into_inner();
                    *guard = Default::default();
                    guard
                });
                ptx_ide::semantic_tokens::semantic_tokens_cached(&snapshot.parse, &mut cache)
            }
        };
        Arc::new(to_proto::semantic_tokens(&snapshot, &tokens))
    })
    .await
}

pub(crate) async fn full(
    state: &Arc<State>,
    params: SemanticTokensParams,
) -> Result<Option<SemanticTokensResult>> {
    let uri = params.text_document.uri;
    let snapshot = super::snapshot(state, &uri)?;
    let data = compute(state, "textDocument/semanticTokens/full", snapshot).await?;
    let result_id = next_result_id();
    state
        .documents
        .set_semantic_tokens(&uri, result_id.clone(), data.clone());
    Ok(Some(SemanticTokensResult::Tokens(deferred(
        result_id, data,
    ))))
}

/// A full result whose array the transport writes (see [`crate::lsp::splice`]).
fn deferred(result_id: String, data: Arc<Vec<u32>>) -> SemanticTokens {
    crate::lsp::splice::defer(&result_id, data);
    SemanticTokens {
        result_id: Some(result_id),
        data: Vec::new(),
    }
}

pub(crate) async fn delta(
    state: &Arc<State>,
    params: SemanticTokensDeltaParams,
) -> Result<Option<SemanticTokensFullDeltaResult>> {
    let uri = params.text_document.uri;
    let snapshot = super::snapshot(state, &uri)?;
    let previous = state
        .documents
        .semantic_tokens(&uri)
        .filter(|(id, _)| *id == params.previous_result_id);
    let data = compute(state, "textDocument/semanticTokens/full/delta", snapshot).await?;
    let result_id = next_result_id();
    state
        .documents
        .set_semantic_tokens(&uri, result_id.clone(), data.clone());
    Ok(Some(match previous {
        Some((_, old)) => SemanticTokensFullDeltaResult::TokensDelta(SemanticTokensDelta {
            result_id: Some(result_id),
            edits: to_proto::semantic_tokens_edit(&old, &data)
                .into_iter()
                .collect(),
        }),
        None => SemanticTokensFullDeltaResult::Tokens(deferred(result_id, data)),
    }))
}

pub(crate) async fn range(
    state: &Arc<State>,
    params: SemanticTokensRangeParams,
) -> Result<Option<SemanticTokensRangeResult>> {
    let snapshot = super::snapshot(state, &params.text_document.uri)?;
    let state = state.clone();
    dispatch::feature(
        "textDocument/semanticTokens/range",
        snapshot.clone(),
        move || {
            let range = from_proto::text_range(&snapshot, params.range);
            let tokens = match state.host_document(&snapshot) {
                Some(host) => ptx_embed::ide::semantic_tokens(&host)
                    .into_iter()
                    .filter(|t| t.range.start < range.end && range.start < t.range.end)
                    .collect(),
                None => ptx_ide::semantic_tokens::semantic_tokens(&snapshot.parse, Some(range)),
            };
            let data = to_proto::semantic_tokens(&snapshot, &tokens);
            Some(SemanticTokensRangeResult::Tokens(SemanticTokens {
                result_id: None,
                data: to_proto::semantic_token_list(&data),
            }))
        },
    )
    .await
}
