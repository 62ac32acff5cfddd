//! Conversions from LSP types to the analysis layer's plain data.
//!
//! Positions are converted with the encoding negotiated at initialization
//! (UTF-16 unless the client offered UTF-8); columns past the end of a line
//! clamp to its end, lines past the end clamp to the end of the text.

use ptx_syntax::{LineCol, PositionEncoding, TextEdit, TextRange};
use tower_lsp::lsp_types::{
    ClientCapabilities, Position, PositionEncodingKind, Range, TextDocumentContentChangeEvent,
};

use super::documents::Snapshot;

pub(crate) fn line_col(position: Position) -> LineCol {
    LineCol {
        line: position.line,
        col: position.character,
    }
}

/// The byte offset of an LSP position in a snapshot.
pub(crate) fn offset(snapshot: &Snapshot, position: Position) -> usize {
    snapshot
        .line_index
        .offset(snapshot.text(), line_col(position), snapshot.encoding)
}

/// The byte range of an LSP range (reversed ranges are put in order).
pub(crate) fn text_range(snapshot: &Snapshot, range: Range) -> TextRange {
    let start = offset(snapshot, range.start);
    let end = offset(snapshot, range.end);
    start.min(end)..start.max(end)
}

/// The edits of a `didChange` notification, in order.
pub(crate) fn text_edits(changes: Vec<TextDocumentContentChangeEvent>) -> Vec<TextEdit> {
    changes
        .into_iter()
        .map(|change| TextEdit {
            range: change
                .range
                .map(|range| (line_col(range.start), line_col(range.end))),
            text: change.text,
        })
        .collect()
}

/// The position encoding to use: UTF-8 when the client offers it (fewer
/// conversions), else the mandatory UTF-16.
pub(crate) fn negotiate_encoding(capabilities: &ClientCapabilities) -> PositionEncoding {
    let offered = capabilities
        .general
        .as_ref()
        .and_then(|general| general.position_encodings.as_ref());
    match offered {
        Some(kinds) if kinds.contains(&PositionEncodingKind::UTF8) => PositionEncoding::Utf8,
        _ => PositionEncoding::Utf16,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower_lsp::lsp_types::GeneralClientCapabilities;

    #[test]
    fn utf8_only_when_offered() {
        let mut capabilities = ClientCapabilities::default();
        assert_eq!(negotiate_encoding(&capabilities), PositionEncoding::Utf16);
        capabilities.general = Some(GeneralClientCapabilities {
            position_encodings: Some(vec![PositionEncodingKind::UTF16]),
            ..Default::default()
        });
        assert_eq!(negotiate_encoding(&capabilities), PositionEncoding::Utf16);
        capabilities.general = Some(GeneralClientCapabilities {
            position_encodings: Some(vec![
                PositionEncodingKind::UTF8,
                PositionEncodingKind::UTF16,
            ]),
            ..Default::default()
        });
        assert_eq!(negotiate_encoding(&capabilities), PositionEncoding::Utf8);
    }
}
