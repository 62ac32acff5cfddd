//! An open document: a rope, its text, and an incrementally reparsed tree.
//!
//! Edits arrive as LSP-style ranges (line/column in a negotiated unit) and are
//! applied in order; the tree is edited alongside the rope and reparsed once
//! per batch, reusing the unchanged parts of the old tree.

use std::sync::Arc;

use ropey::Rope;
use tree_sitter::{InputEdit, Parser, Point, Tree};

use crate::parse::Parse;
use crate::position::{char_width, LineCol, PositionEncoding};

/// One change: replace `range` (or the whole text when `None`) by `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextEdit {
    pub range: Option<(LineCol, LineCol)>,
    pub text: String,
}

/// A text being edited, with its syntax tree kept up to date.
pub struct Document {
    rope: Rope,
    parse: Parse,
    parser: Parser,
    version: i32,
}

impl std::fmt::Debug for Document {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Document")
            .field("version", &self.version)
            .field("len", &self.rope.len_bytes())
            .finish()
    }
}

impl Document {
    pub fn new(text: &str, version: i32) -> Self {
        let mut parser = crate::new_parser();
        let tree = parser
            .parse(text.as_bytes(), None)
            .expect("a parser with a language and no timeout always returns a tree");
        Document {
            rope: Rope::from_str(text),
            parse: Parse::from_parts(tree, Arc::new(text.to_owned())),
            parser,
            version,
        }
    }

    pub fn version(&self) -> i32 {
        self.version
    }

    pub fn text(&self) -> &str {
        self.parse.text()
    }

    pub fn rope(&self) -> &Rope {
        &self.rope
    }

    /// A snapshot of the current text and tree, cheap to clone.
    pub fn parse(&self) -> &Parse {
        &self.parse
    }

    /// Applies `edits` in order, then reparses incrementally.
    ///
    /// The text is edited in place (no copy of the whole text) unless a
    /// snapshot from [`Document::parse`] is still alive elsewhere.
    pub fn apply_edits(&mut self, edits: &[TextEdit], encoding: PositionEncoding, version: i32) {
        let mut tree: Tree = self.parse.tree().clone();
        let placeholder = Parse::from_parts(tree.clone(), Arc::new(String::new()));
        let mut text = std::mem::replace(&mut self.parse, placeholder).into_text();
        let mut full_replace = false;
        for edit in edits {
            match edit.range {
                None => {
                    self.rope = Rope::from_str(&edit.text);
                    text = Arc::new(edit.text.clone());
                    full_replace = true;
                }
                Some((start, end)) => {
                    let start_char = self.char_index(start, encoding);
                    let end_char = self.char_index(end, encoding).max(start_char);
                    let start_byte = self.rope.char_to_byte(start_char);
                    let old_end_byte = self.rope.char_to_byte(end_char);
                    let start_position = self.point(start_byte);
                    let old_end_position = self.point(old_end_byte);
                    self.rope.remove(start_char..end_char);
                    self.rope.insert(start_char, &edit.text);
                    Arc::make_mut(&mut text).replace_range(start_byte..old_end_byte, &edit.text);
                    let new_end_byte = start_byte + edit.text.len();
                    let new_end_position = self.point(new_end_byte);
                    tree.edit(&InputEdit {
                        start_byte,
                        old_end_byte,
                        new_end_byte,
                        start_position,
                        old_end_position,
                        new_end_position,
                    });
                }
            }
        }
        debug_assert_eq!(text.len(), self.rope.len_bytes());
        let old_tree = (!full_replace).then_some(&tree);
        let tree = self
            .parser
            .parse(text.as_bytes(), old_tree)
            .expect("a parser with a language and no timeout always returns a tree");
        self.parse = Parse::from_parts(tree, text);
        self.version = version;
    }

    /// Converts a line/column position into a char index of the rope,
    /// clamping past-the-end columns to the end of the line's content.
    fn char_index(&self, pos: LineCol, encoding: PositionEncoding) -> usize {
        let line = pos.line as usize;
        if line >= self.rope.len_lines() {
            return self.rope.len_chars();
        }
        let line_start = self.rope.line_to_char(line);
        let line_slice = self.rope.line(line);
        let mut content_len = line_slice.len_chars();
        // Stop before the line break (`\n` or `\r\n`).
        if content_len > 0 && line_slice.char(content_len - 1) == '\n' {
            content_len -= 1;
            if content_len > 0 && line_slice.char(content_len - 1) == '\r' {
                content_len -= 1;
            }
        }
        let mut remaining = pos.col as usize;
        for (i, ch) in line_slice.chars().take(content_len).enumerate() {
            let width = char_width(ch, encoding);
            if remaining < width {
                return line_start + i;
            }
            remaining -= width;
        }
        line_start + content_len
    }

    /// The tree-sitter point (row, byte column) of a byte offset.
    fn point(&self, byte: usize) -> Point {
        let row = self.rope.byte_to_line(byte);
        Point {
            row,
            column: byte - self.rope.line_to_byte(row),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u32, col: u32) -> LineCol {
        LineCol { line, col }
    }

    #[test]
    fn edits_apply_in_order_and_reparse() {
        let mut doc = Document::new(".version 9.1\nmov.u32 %r1, 1;\n", 1);
        doc.apply_edits(
            &[
                TextEdit {
                    range: Some((at(1, 13), at(1, 14))),
                    text: "42".into(),
                },
                TextEdit {
                    range: Some((at(0, 9), at(0, 12))),
                    text: "8.8".into(),
                },
            ],
            PositionEncoding::Utf16,
            2,
        );
        assert_eq!(doc.text(), ".version 8.8\nmov.u32 %r1, 42;\n");
        assert_eq!(doc.version(), 2);
        assert_eq!(doc.parse().sexp(), Parse::new(doc.text()).sexp());
    }

    #[test]
    fn utf16_columns_after_astral_characters() {
        // `𝄞` is two UTF-16 code units and four UTF-8 bytes.
        let mut doc = Document::new("// 𝄞x\n", 1);
        doc.apply_edits(
            &[TextEdit {
                range: Some((at(0, 5), at(0, 6))),
                text: "y".into(),
            }],
            PositionEncoding::Utf16,
            2,
        );
        assert_eq!(doc.text(), "// 𝄞y\n");
        let mut doc = Document::new("// 𝄞x\n", 1);
        doc.apply_edits(
            &[TextEdit {
                range: Some((at(0, 7), at(0, 8))),
                text: "y".into(),
            }],
            PositionEncoding::Utf8,
            2,
        );
        assert_eq!(doc.text(), "// 𝄞y\n");
    }

    #[test]
    fn full_replacement() {
        let mut doc = Document::new("ret;", 1);
        doc.apply_edits(
            &[TextEdit {
                range: None,
                text: "exit;".into(),
            }],
            PositionEncoding::Utf16,
            5,
        );
        assert_eq!(doc.text(), "exit;");
        assert_eq!(doc.parse().stats().errors, 0);
    }
}
