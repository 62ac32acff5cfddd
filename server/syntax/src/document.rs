//! An open document: a rope and an incrementally reparsed tree.
//!
//! Edits arrive as LSP-style ranges (line/column in a negotiated unit) and are
//! applied in order to the rope and to the previous tree (tree-sitter's
//! `Tree::edit`); the text is parsed again only when a parse is asked for, on
//! the thread that asks, reusing the unchanged parts of the old tree. A server
//! applies edits on its message loop ([`Document::edit`], cheap) and parses on
//! its worker threads ([`PendingParse::get`]), so a slow parse never delays
//! the next message.

use std::sync::{Arc, Mutex, OnceLock};

use ropey::Rope;
use tree_sitter::{InputEdit, Point, Tree};

use crate::parse::{NestingMemo, Parse};
use crate::position::{char_width, LineCol, PositionEncoding};

/// One change: replace `range` (or the whole text when `None`) by `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextEdit {
    pub range: Option<(LineCol, LineCol)>,
    pub text: String,
}

/// A text being edited, with the parse of its current version made on demand.
pub struct Document {
    rope: Rope,
    version: i32,
    /// The tree of an earlier version with every edit since applied to it: where the next
    /// parse starts from. `None` before the first parse and after a full replacement.
    tree: Option<Tree>,
    current: Arc<PendingParse>,
    /// The latest nesting walk made of an earlier version (see [`crate::parse::NestingMemo`]).
    nesting: Option<Arc<NestingMemo>>,
}

/// The parse of one version of a document, made by the first caller of
/// [`PendingParse::get`] (the others wait for it) and shared by all of them.
pub struct PendingParse {
    rope: Rope,
    /// The rope as one string, made once (for the parse, or for a caller that only needs
    /// the text).
    text: OnceLock<Arc<String>>,
    old_tree: Mutex<Option<Tree>>,
    nesting: Option<Arc<NestingMemo>>,
    parse: OnceLock<Parse>,
}

impl std::fmt::Debug for PendingParse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingParse")
            .field("len", &self.rope.len_bytes())
            .field("parsed", &self.parse.get().is_some())
            .finish()
    }
}

impl PendingParse {
    fn new(rope: Rope, old_tree: Option<Tree>, nesting: Option<Arc<NestingMemo>>) -> Self {
        PendingParse {
            rope,
            text: OnceLock::new(),
            old_tree: Mutex::new(old_tree),
            nesting,
            parse: OnceLock::new(),
        }
    }

    /// The parse, made now if no one has made it yet.
    pub fn get(&self) -> &Parse {
        self.parse.get_or_init(|| {
            let old_tree = self
                .old_tree
                .lock()
                .map(|mut tree| tree.take())
                .unwrap_or_default();
            let text = self.shared_text().clone();
            let tree = crate::new_parser()
                .parse(text.as_bytes(), old_tree.as_ref())
                .expect("a parser with a language and no timeout always returns a tree");
            Parse::from_parts(tree, text).with_nesting_seed(self.nesting.clone())
        })
    }

    /// The parse, if it has been made.
    pub fn parsed(&self) -> Option<&Parse> {
        self.parse.get()
    }

    /// The text as one string, without parsing it.
    pub fn text(&self) -> &str {
        self.shared_text()
    }

    fn shared_text(&self) -> &Arc<String> {
        self.text.get_or_init(|| Arc::new(String::from(&self.rope)))
    }

    /// The text, without parsing it.
    pub fn rope(&self) -> &Rope {
        &self.rope
    }

    /// The length of the text in bytes, without parsing it.
    pub fn len(&self) -> usize {
        self.rope.len_bytes()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
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
    /// A document holding `text`; nothing is parsed until [`Document::parse`] or
    /// [`PendingParse::get`] asks.
    pub fn new(text: &str, version: i32) -> Self {
        let rope = Rope::from_str(text);
        Document {
            current: Arc::new(PendingParse::new(rope.clone(), None, None)),
            rope,
            version,
            tree: None,
            nesting: None,
        }
    }

    pub fn version(&self) -> i32 {
        self.version
    }

    /// The current text (parsing it if that has not been done yet).
    pub fn text(&self) -> &str {
        self.parse().text()
    }

    pub fn rope(&self) -> &Rope {
        &self.rope
    }

    /// The parse of the current text, made now if needed; cheap to clone.
    pub fn parse(&self) -> &Parse {
        self.current.get()
    }

    /// The current version's parse, to be made (or read) on another thread.
    pub fn pending(&self) -> Arc<PendingParse> {
        self.current.clone()
    }

    /// Applies `edits` in order, then reparses incrementally.
    pub fn apply_edits(&mut self, edits: &[TextEdit], encoding: PositionEncoding, version: i32) {
        self.edit(edits, encoding, version);
        self.parse();
    }

    /// Applies `edits` in order to the text and the old tree, without parsing: the cost is
    /// that of the edits, not of the document.
    pub fn edit(&mut self, edits: &[TextEdit], encoding: PositionEncoding, version: i32) {
        if let Some(parse) = self.current.parsed() {
            // The latest parse is the best starting point for the next one, unless it nests
            // too deep to analyse: editing a tree walks down its depth on this thread (the
            // server's message loop), so such a text is parsed afresh instead.
            self.tree = (parse.known_too_deep() != Some(true)).then(|| parse.tree().clone());
            if let Some(memo) = parse.nesting_memo() {
                self.nesting = Some(memo);
            }
        }
        for edit in edits {
            match edit.range {
                None => {
                    self.rope = Rope::from_str(&edit.text);
                    self.tree = None;
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
                    let new_end_byte = start_byte + edit.text.len();
                    let new_end_position = self.point(new_end_byte);
                    if let Some(tree) = &mut self.tree {
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
        }
        self.current = Arc::new(PendingParse::new(
            self.rope.clone(),
            self.tree.clone(),
            self.nesting.clone(),
        ));
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

    /// After each edit, the nesting of the reparsed tree (which reuses the walk of the
    /// unchanged top-level nodes) is the nesting of the same text parsed afresh.
    #[test]
    fn nesting_after_edits_equals_a_fresh_walk() {
        let deep = format!(
            ".func g()\n{}\nret;\n{}\n",
            "{\n".repeat(crate::MAX_NESTING + 5),
            "}\n".repeat(crate::MAX_NESTING + 5)
        );
        let functions: String = (0..6)
            .map(|i| {
                let nest = "{ ".repeat(i * 3) + &"}".repeat(i * 3);
                format!(".func f{i}()\n{{\n.reg .b32 %r<4>;\nadd.s32 %r1, %r2, ((1+2)*3);\n{nest}\nret;\n}}\n")
            })
            .collect();
        let text = format!(".version 9.1\n.target sm_90\n.address_size 64\n{functions}");
        let mut doc = Document::new(&text, 1);
        let fresh = |doc: &Document| Parse::new(doc.text()).nesting().clone();
        assert_eq!(doc.parse().nesting(), &fresh(&doc));
        // Edits inside one function, between functions, one making a function nest past
        // the limit and one undoing it; each checked against a fresh parse.
        let lines = doc.text().lines().count() as u32;
        let edits: Vec<(u32, u32, &str)> = vec![
            (5, 0, " "),
            (5, 0, ""),
            (9, 0, "{ { { { { { { { } } } } } } } }\n"),
            (lines / 2, 0, "\n"),
            (lines, 0, &deep),
            (3, 0, "// a comment\n"),
            (lines + 2, 0, ""),
        ];
        for (version, (line, width, insert)) in edits.into_iter().enumerate() {
            let end = if insert.is_empty() { 1 } else { width };
            doc.apply_edits(
                &[TextEdit {
                    range: Some((at(line, 0), at(line, end))),
                    text: insert.into(),
                }],
                PositionEncoding::Utf8,
                2 + version as i32,
            );
            let parse = doc.parse();
            assert_eq!(parse.nesting(), &fresh(&doc), "after edit {version}");
            assert_eq!(parse.too_deep(), Parse::new(doc.text()).too_deep());
        }
        assert!(doc.parse().too_deep().is_some());
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
