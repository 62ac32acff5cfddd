//! Conversions from the analysis layer's plain data to LSP types.
//!
//! Byte offsets become line/column positions in the negotiated encoding
//! (UTF-16 code units by default: returning `char` counts here would be the
//! classic bug, see the tests). Multi-line semantic tokens are split per line
//! because clients need not support tokens that span lines.

use ptx_ide::folding::{Fold, FoldKind};
use ptx_ide::semantic_tokens::{modifiers, HighlightKind, HighlightToken};
use ptx_ide::symbols::{Symbol, SymbolKind};
use ptx_syntax::{LineCol, TextRange};
use tower_lsp::lsp_types::{
    self as lsp, DiagnosticRelatedInformation, DiagnosticSeverity, DocumentSymbol,
    FoldingRangeKind, Location, NumberOrString, Position, Range, SemanticTokenModifier,
    SemanticTokenType, SemanticTokensLegend,
};

use super::documents::Snapshot;

pub(crate) fn position(snapshot: &Snapshot, offset: usize) -> Position {
    let LineCol { line, col } =
        snapshot
            .line_index
            .line_col(snapshot.text(), offset, snapshot.encoding);
    Position::new(line, col)
}

pub(crate) fn range(snapshot: &Snapshot, range: &TextRange) -> Range {
    Range::new(
        position(snapshot, range.start),
        position(snapshot, range.end),
    )
}

pub(crate) fn location(snapshot: &Snapshot, text_range: &TextRange) -> Location {
    Location::new(snapshot.uri.clone(), range(snapshot, text_range))
}

pub(crate) fn severity(severity: ptx_check::Severity) -> DiagnosticSeverity {
    match severity {
        ptx_check::Severity::Error => DiagnosticSeverity::ERROR,
        ptx_check::Severity::Warning => DiagnosticSeverity::WARNING,
        ptx_check::Severity::Information => DiagnosticSeverity::INFORMATION,
        ptx_check::Severity::Hint => DiagnosticSeverity::HINT,
    }
}

pub(crate) fn diagnostic(snapshot: &Snapshot, d: &ptx_check::Diagnostic) -> lsp::Diagnostic {
    let related: Vec<DiagnosticRelatedInformation> = d
        .related
        .iter()
        .map(|(r, message)| DiagnosticRelatedInformation {
            location: location(snapshot, r),
            message: message.clone(),
        })
        .collect();
    let message = if d.source.is_empty() {
        d.message.clone()
    } else {
        format!("{} (PTX ISA {})", d.message, d.source)
    };
    lsp::Diagnostic {
        range: range(snapshot, &d.range),
        severity: Some(severity(d.severity)),
        code: Some(NumberOrString::String(d.code.to_owned())),
        source: Some("ptx".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..Default::default()
    }
}

pub(crate) fn text_edit(
    snapshot: &Snapshot,
    text_range: &TextRange,
    new_text: String,
) -> lsp::TextEdit {
    lsp::TextEdit::new(range(snapshot, text_range), new_text)
}

pub(crate) fn symbol_kind(kind: SymbolKind) -> lsp::SymbolKind {
    match kind {
        SymbolKind::Entry => lsp::SymbolKind::FUNCTION,
        SymbolKind::Function => lsp::SymbolKind::FUNCTION,
        SymbolKind::Parameter => lsp::SymbolKind::VARIABLE,
        SymbolKind::Variable => lsp::SymbolKind::VARIABLE,
        SymbolKind::Register => lsp::SymbolKind::VARIABLE,
        SymbolKind::Label => lsp::SymbolKind::KEY,
    }
}

#[allow(deprecated)] // `DocumentSymbol::deprecated` must still be filled in.
pub(crate) fn document_symbol(snapshot: &Snapshot, symbol: Symbol) -> DocumentSymbol {
    let children: Vec<DocumentSymbol> = symbol
        .children
        .into_iter()
        .map(|child| document_symbol(snapshot, child))
        .collect();
    DocumentSymbol {
        name: symbol.name,
        detail: symbol.detail,
        kind: symbol_kind(symbol.kind),
        tags: None,
        deprecated: None,
        range: range(snapshot, &symbol.range),
        selection_range: range(snapshot, &symbol.selection_range),
        children: (!children.is_empty()).then_some(children),
    }
}

pub(crate) fn folding_range(snapshot: &Snapshot, fold: &Fold) -> lsp::FoldingRange {
    let start = position(snapshot, fold.range.start);
    let end = position(snapshot, fold.range.end);
    lsp::FoldingRange {
        start_line: start.line,
        start_character: None,
        end_line: end.line,
        end_character: None,
        kind: Some(match fold.kind {
            FoldKind::Code => FoldingRangeKind::Region,
            FoldKind::Comment => FoldingRangeKind::Comment,
            FoldKind::Region => FoldingRangeKind::Region,
        }),
        collapsed_text: None,
    }
}

/// The semantic token type of each kind: standard LSP types only, so every
/// theme and client colours them without configuration. Kinds that share a
/// type differ by modifiers (a special register is a `readonly
/// defaultLibrary` variable, an opcode a `defaultLibrary` function).
/// editors/vscode/package.json maps each type to the TextMate scope the
/// grammar gives the same token, so colours do not change when the server
/// starts; editors/nvim/plugin/ptx.lua links them to the groups the
/// tree-sitter captures use.
pub(crate) fn token_type_name(kind: HighlightKind) -> &'static str {
    match kind {
        HighlightKind::Comment => "comment",
        HighlightKind::String => "string",
        HighlightKind::Number => "number",
        HighlightKind::Directive => "keyword",
        HighlightKind::StateSpace => "modifier",
        HighlightKind::Type => "type",
        HighlightKind::Opcode => "function",
        HighlightKind::Qualifier => "enumMember",
        HighlightKind::Register => "variable",
        HighlightKind::SpecialRegister => "variable",
        HighlightKind::Component => "variable",
        HighlightKind::Parameter => "parameter",
        HighlightKind::Variable => "variable",
        HighlightKind::Function => "function",
        HighlightKind::Label => "label",
        HighlightKind::Operator => "operator",
        HighlightKind::Section => "namespace",
        HighlightKind::Target => "enum",
        HighlightKind::Preprocessor => "macro",
    }
}

fn token_types() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for kind in HighlightKind::ALL {
        let name = token_type_name(kind);
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

pub(crate) fn semantic_tokens_legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: token_types()
            .into_iter()
            .map(SemanticTokenType::new)
            .collect(),
        token_modifiers: modifiers::NAMES
            .iter()
            .map(|name| SemanticTokenModifier::new(name))
            .collect(),
    }
}

/// Encodes highlighted tokens as the LSP's relative 5-integer groups.
pub(crate) fn semantic_tokens(snapshot: &Snapshot, tokens: &[HighlightToken]) -> Vec<u32> {
    let types = token_types();
    let type_index = |kind: HighlightKind| {
        types
            .iter()
            .position(|name| *name == token_type_name(kind))
            .unwrap_or(0) as u32
    };
    let text = snapshot.text();
    let mut data = Vec::with_capacity(tokens.len() * 5);
    let (mut last_line, mut last_col) = (0u32, 0u32);
    // Tokens come in source order: one pass of a line cursor places them all.
    let mut cursor = snapshot.line_index.cursor();
    let mut position = |offset: usize| {
        let LineCol { line, col } = cursor.line_col(text, offset, snapshot.encoding);
        Position::new(line, col)
    };
    // The type index of each kind, once.
    let kinds: Vec<(HighlightKind, u32)> = HighlightKind::ALL
        .iter()
        .map(|k| (*k, type_index(*k)))
        .collect();
    for token in tokens {
        let kind = kinds
            .iter()
            .find(|(k, _)| *k == token.kind)
            .map_or_else(|| type_index(token.kind), |(_, i)| *i);
        // One piece per line the token covers.
        let mut start = token.range.start;
        while start < token.range.end {
            let line_end = text[start..token.range.end]
                .find('\n')
                .map_or(token.range.end, |i| start + i);
            let piece_end = if line_end > start && text.as_bytes()[line_end - 1] == b'\r' {
                line_end - 1
            } else {
                line_end
            };
            if piece_end > start {
                let from = position(start);
                let to = position(piece_end);
                let delta_line = from.line - last_line;
                let delta_col = if delta_line == 0 {
                    from.character - last_col
                } else {
                    from.character
                };
                data.extend([
                    delta_line,
                    delta_col,
                    to.character - from.character,
                    kind,
                    token.modifiers,
                ]);
                last_line = from.line;
                last_col = from.character;
            }
            start = line_end + 1;
        }
    }
    data
}

/// The edit that turns `old` into `new` (both flat token arrays): the
/// differing middle, found by trimming the common prefix and suffix.
pub(crate) fn semantic_tokens_edit(old: &[u32], new: &[u32]) -> Option<lsp::SemanticTokensEdit> {
    let prefix = old
        .chunks(5)
        .zip(new.chunks(5))
        .take_while(|(a, b)| a == b)
        .count()
        * 5;
    if prefix == old.len() && prefix == new.len() {
        return None;
    }
    let suffix = old[prefix..]
        .rchunks(5)
        .zip(new[prefix..].rchunks(5))
        .take_while(|(a, b)| a == b)
        .count()
        * 5;
    let inserted = &new[prefix..new.len() - suffix];
    Some(lsp::SemanticTokensEdit {
        start: prefix as u32,
        delete_count: (old.len() - suffix - prefix) as u32,
        data: Some(
            inserted
                .chunks(5)
                .map(|c| lsp::SemanticToken {
                    delta_line: c[0],
                    delta_start: c[1],
                    length: c[2],
                    token_type: c[3],
                    token_modifiers_bitset: c[4],
                })
                .collect(),
        ),
    })
}

/// Flat integers to the typed tokens of `lsp_types`.
pub(crate) fn semantic_token_list(data: &[u32]) -> Vec<lsp::SemanticToken> {
    data.chunks(5)
        .map(|c| lsp::SemanticToken {
            delta_line: c[0],
            delta_start: c[1],
            length: c[2],
            token_type: c[3],
            token_modifiers_bitset: c[4],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptx_syntax::PositionEncoding;

    fn snapshot(text: &str, encoding: PositionEncoding) -> Snapshot {
        Snapshot::of_text(text, encoding)
    }

    /// Columns after a non-ASCII comment: UTF-16 code units, not chars or bytes.
    #[test]
    fn positions_count_utf16_code_units_after_astral_characters() {
        let text = "// 𝄞\nret; // é\n";
        let s = snapshot(text, PositionEncoding::Utf16);
        let after = text.find("𝄞").unwrap() + "𝄞".len();
        assert_eq!(position(&s, after), Position::new(0, 5));
        let s8 = snapshot(text, PositionEncoding::Utf8);
        assert_eq!(position(&s8, after), Position::new(0, 7));
    }

    #[test]
    fn multi_line_tokens_are_split_per_line() {
        let text = "/* a\nbc */ ret;\r\n";
        let s = snapshot(text, PositionEncoding::Utf16);
        let tokens = ptx_ide::semantic_tokens::semantic_tokens(&s.parse, None);
        let data = semantic_tokens(&s, &tokens);
        // comment "/* a" (0,0,4), "bc */" (1,0,5), opcode "ret" (0,6,3).
        assert_eq!(
            data.chunks(5)
                .map(|c| (c[0], c[1], c[2]))
                .collect::<Vec<_>>(),
            [(0, 0, 4), (1, 0, 5), (0, 6, 3)]
        );
    }

    #[test]
    fn delta_is_the_changed_middle() {
        let old = [0, 0, 3, 1, 0, 1, 0, 2, 2, 0, 1, 0, 4, 3, 0];
        let new = [0, 0, 3, 1, 0, 1, 0, 5, 2, 0, 1, 0, 4, 3, 0];
        let edit = semantic_tokens_edit(&old, &new).unwrap();
        assert_eq!((edit.start, edit.delete_count), (5, 5));
        assert_eq!(edit.data.unwrap()[0].length, 5);
        assert!(semantic_tokens_edit(&old, &old).is_none());
        let edit = semantic_tokens_edit(&old, &old[..10]).unwrap();
        assert_eq!((edit.start, edit.delete_count), (10, 5));
    }

    #[test]
    fn legend_has_every_kind() {
        let legend = semantic_tokens_legend();
        for kind in HighlightKind::ALL {
            assert!(legend
                .token_types
                .iter()
                .any(|t| t.as_str() == token_type_name(kind)));
        }
    }
}
