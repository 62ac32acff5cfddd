//! `textDocument/foldingRange`.

use std::sync::Arc;

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{FoldingRange, FoldingRangeParams};

use crate::lsp::server::State;
use crate::lsp::{dispatch, splice, to_proto};

pub(crate) async fn handle(
    state: &Arc<State>,
    params: FoldingRangeParams,
) -> Result<Option<Vec<FoldingRange>>> {
    let snapshot = super::snapshot(state, &params.text_document.uri)?;
    dispatch::feature("textDocument/foldingRange", snapshot.clone(), move || {
        let folds: Vec<FoldingRange> = ptx_ide::folding::folding_ranges(&snapshot.parse)
            .iter()
            .map(|fold| to_proto::folding_range(&snapshot, fold))
            .filter(|fold| fold.end_line > fold.start_line)
            .collect();
        // A large list is written by the transport as serialised here (see `splice`).
        Some(match splice::defer_json(folds) {
            Ok(marker) => vec![FoldingRange {
                collapsed_text: Some(marker),
                ..FoldingRange::default()
            }],
            Err(folds) => folds,
        })
    })
    .await
}
