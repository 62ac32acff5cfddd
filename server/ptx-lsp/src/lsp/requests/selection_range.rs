//! `textDocument/selectionRange`: token → operand → instruction → block →
//! function → file.

use std::sync::Arc;

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{SelectionRange, SelectionRangeParams};

use crate::lsp::server::State;
use crate::lsp::{dispatch, from_proto, to_proto};

pub(crate) async fn handle(
    state: &Arc<State>,
    params: SelectionRangeParams,
) -> Result<Option<Vec<SelectionRange>>> {
    let snapshot = super::snapshot(state, &params.text_document.uri)?;
    dispatch::feature("textDocument/selectionRange", snapshot.clone(), move || {
        let offsets: Vec<usize> = params
            .positions
            .iter()
            .map(|p| from_proto::offset(&snapshot, *p))
            .collect();
        let nested = ptx_ide::selection::selection_ranges(&snapshot.parse, &offsets);
        Some(
            nested
                .into_iter()
                .map(|ranges| {
                    // Build from the outside in: each range's parent is the next one.
                    let mut parent: Option<Box<SelectionRange>> = None;
                    for range in ranges.iter().rev() {
                        parent = Some(Box::new(SelectionRange {
                            range: to_proto::range(&snapshot, range),
                            parent,
                        }));
                    }
                    parent.map(|b| *b).unwrap_or(SelectionRange {
                        range: Default::default(),
                        parent: None,
                    })
                })
                .collect(),
        )
    })
    .await
}
