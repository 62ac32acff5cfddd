//! `textDocument/documentSymbol`: the hierarchical outline.
//!
//! An outline longer than [`MAX_SYMBOLS`] entries (a generated file with
//! hundreds of thousands of labels) is cut there: an editor cannot show more
//! usefully, and the reply would be tens of megabytes. The cut is marked in
//! the outline itself, by an entry saying how many symbols are not listed.

use std::sync::Arc;

use ptx_ide::symbols::Symbol;
use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{DocumentSymbol, DocumentSymbolParams, DocumentSymbolResponse};

use crate::lsp::server::State;
use crate::lsp::{dispatch, splice, to_proto};

/// The most entries an outline lists.
pub(crate) const MAX_SYMBOLS: usize = 10_000;

pub(crate) async fn handle(
    state: &Arc<State>,
    params: DocumentSymbolParams,
) -> Result<Option<DocumentSymbolResponse>> {
    let snapshot = super::snapshot(state, &params.text_document.uri)?;
    dispatch::feature("textDocument/documentSymbol", snapshot.clone(), move || {
        let symbols: Vec<DocumentSymbol> =
            truncate(ptx_ide::symbols::document_symbols(&snapshot.parse))
                .into_iter()
                .map(|symbol| to_proto::document_symbol(&snapshot, symbol))
                .collect();
        // A large outline is written by the transport as serialised here (see `splice`).
        Some(DocumentSymbolResponse::Nested(
            match splice::defer_json(symbols) {
                Ok(marker) => vec![placeholder(marker)],
                Err(symbols) => symbols,
            },
        ))
    })
    .await
}

/// The one-symbol outline answered in place of a serialised one.
#[allow(deprecated)] // `DocumentSymbol::deprecated` must still be filled in.
fn placeholder(marker: String) -> DocumentSymbol {
    DocumentSymbol {
        name: marker,
        detail: None,
        kind: tower_lsp::lsp_types::SymbolKind::KEY,
        tags: None,
        deprecated: None,
        range: Default::default(),
        selection_range: Default::default(),
        children: None,
    }
}

/// The first [`MAX_SYMBOLS`] symbols in outline order, with a note where
/// some were left out.
fn truncate(symbols: Vec<Symbol>) -> Vec<Symbol> {
    fn count(symbols: &[Symbol]) -> usize {
        symbols.iter().map(|s| 1 + count(&s.children)).sum()
    }
    let total = count(&symbols);
    if total <= MAX_SYMBOLS {
        return symbols;
    }
    let note = |at: &Symbol| Symbol {
        name: format!(
            "… {} more symbols not listed (the outline shows the first {MAX_SYMBOLS})",
            total - MAX_SYMBOLS
        ),
        kind: ptx_ide::symbols::SymbolKind::Label,
        detail: None,
        range: at.range.clone(),
        selection_range: at.selection_range.clone(),
        children: Vec::new(),
    };
    let mut budget = MAX_SYMBOLS;
    let mut out = Vec::new();
    for mut symbol in symbols {
        if budget == 0 {
            let last = out.last().cloned().unwrap_or_else(|| symbol.clone());
            out.push(note(&last));
            break;
        }
        budget -= 1;
        // Children are one level deep (the outline has no deeper nesting).
        if symbol.children.len() > budget {
            symbol.children.truncate(budget);
            let at = symbol.clone();
            symbol.children.push(note(&at));
            out.push(symbol);
            break;
        }
        budget -= symbol.children.len();
        out.push(symbol);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_outline_is_cut_with_a_note() {
        let mut text = String::from(".version 8.0\n.target sm_90\n.entry k()\n{\n");
        for i in 0..MAX_SYMBOLS + 500 {
            text.push_str(&format!("L{i}:\n"));
        }
        text.push_str("ret;\n}\n.entry after() { ret; }\n");
        let symbols = ptx_ide::symbols::document_symbols(&ptx_syntax::Parse::new(text));
        let cut = truncate(symbols);
        assert_eq!(cut.len(), 1, "the second function is past the limit");
        let labels = &cut[0].children;
        assert_eq!(labels.len(), MAX_SYMBOLS);
        assert_eq!(
            labels[MAX_SYMBOLS - 2].name,
            format!("L{}", MAX_SYMBOLS - 2)
        );
        assert!(
            labels[MAX_SYMBOLS - 1]
                .name
                .starts_with("… 502 more symbols"),
            "{}",
            labels[MAX_SYMBOLS - 1].name
        );
    }
}
