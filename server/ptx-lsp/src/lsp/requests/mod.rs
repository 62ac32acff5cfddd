//! Request handlers, one per file. Each converts its parameters in, runs an
//! analysis on a snapshot through [`super::dispatch::analysis`], and converts
//! the result out.

pub(crate) mod code_action;
pub(crate) mod code_lens;
pub(crate) mod completion;
pub(crate) mod definition;
pub(crate) mod diagnostic;
pub(crate) mod document_highlight;
pub(crate) mod document_symbol;
pub(crate) mod folding_range;
pub(crate) mod formatting;
pub(crate) mod hover;
pub(crate) mod initialize;
pub(crate) mod inlay_hint;
pub(crate) mod references;
pub(crate) mod register_count;
pub(crate) mod rename;
pub(crate) mod run;
pub(crate) mod sass;
pub(crate) mod selection_range;
pub(crate) mod semantic_tokens;
pub(crate) mod signature_help;
pub(crate) mod test_panic;
pub(crate) mod workspace_symbol;

use std::sync::Arc;

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::Url;

use super::dispatch;
use super::documents::Snapshot;
use super::server::State;

/// The snapshot of an open document, or an `InvalidParams` error.
pub(crate) fn snapshot(state: &Arc<State>, uri: &Url) -> Result<Snapshot> {
    state.snapshot(uri).ok_or_else(|| dispatch::not_open(uri))
}
