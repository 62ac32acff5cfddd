//! Conversions between byte offsets and line/column positions.
//!
//! Lines end at `\n` (a `\r` before it belongs to the line break), as
//! tree-sitter counts rows; a lone `\r`, which no editor writes any more, is
//! not a line break here. Columns are
//! counted in one of three units: UTF-8 bytes, UTF-16 code units (LSP's
//! default) or Unicode scalar values (what the CLI prints). Returning `char`
//! counts where UTF-16 is expected is the classic bug this module exists to
//! prevent: every conversion names its unit.

/// The unit in which columns are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PositionEncoding {
    Utf8,
    #[default]
    Utf16,
    /// Unicode scalar values (`char`s): the CLI's columns.
    Chars,
}

/// A zero-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// Line starts of a text, for position conversions.
#[derive(Debug, Clone)]
pub struct LineIndex {
    line_starts: Vec<usize>,
    /// The lines holding a non-ASCII character, in order. On the other lines a
    /// column is a byte count in every unit, found without reading the line
    /// (so that positions on a megabyte-long line cost nothing).
    non_ascii_lines: Vec<usize>,
    len: usize,
}

/// See [`LineIndex::cursor`]. Offsets given in ascending order are converted in amortized
/// constant time; an offset before the previous one starts the search over (still correct).
#[derive(Debug, Clone)]
pub struct LineCursor<'a> {
    index: &'a LineIndex,
    line: usize,
    /// Position in `non_ascii_lines` of the first entry not before `line`.
    non_ascii: usize,
}

impl LineCursor<'_> {
    /// The same as [`LineIndex::line_col`].
    pub fn line_col(&mut self, text: &str, offset: usize, encoding: PositionEncoding) -> LineCol {
        let index = self.index;
        let offset = floor_char_boundary(text, offset.min(index.len));
        if index.line_starts[self.line] > offset {
            self.line = 0;
            self.non_ascii = 0;
        }
        while self.line + 1 < index.line_starts.len() && index.line_starts[self.line + 1] <= offset
        {
            self.line += 1;
        }
        while self.non_ascii < index.non_ascii_lines.len()
            && index.non_ascii_lines[self.non_ascii] < self.line
        {
            self.non_ascii += 1;
        }
        let start = index.line_starts[self.line];
        let ascii = index.non_ascii_lines.get(self.non_ascii) != Some(&self.line);
        let col = if ascii {
            offset - start
        } else {
            column_width(&text[start..offset], encoding)
        };
        LineCol {
            line: self.line as u32,
            col: col as u32,
        }
    }
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut line_starts = vec![0];
        let mut non_ascii_lines = Vec::new();
        let mut ascii = true;
        for (i, &byte) in bytes.iter().enumerate() {
            if byte == b'\n' {
                if !ascii {
                    non_ascii_lines.push(line_starts.len() - 1);
                }
                ascii = true;
                line_starts.push(i + 1);
            } else if byte >= 0x80 {
                ascii = false;
            }
        }
        if !ascii {
            non_ascii_lines.push(line_starts.len() - 1);
        }
        LineIndex {
            line_starts,
            non_ascii_lines,
            len: text.len(),
        }
    }

    fn is_ascii_line(&self, line: usize) -> bool {
        self.non_ascii_lines.binary_search(&line).is_err()
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The byte offset where `line` starts (the end of the text past the last line).
    pub fn line_start(&self, line: usize) -> usize {
        self.line_starts.get(line).copied().unwrap_or(self.len)
    }

    /// The line and column of a byte offset (clamped to the text).
    pub fn line_col(&self, text: &str, offset: usize, encoding: PositionEncoding) -> LineCol {
        let offset = floor_char_boundary(text, offset.min(self.len));
        let line = self.line_starts.partition_point(|&start| start <= offset) - 1;
        let start = self.line_starts[line];
        let col = if self.is_ascii_line(line) {
            offset - start
        } else {
            column_width(&text[start..offset], encoding)
        };
        LineCol {
            line: line as u32,
            col: col as u32,
        }
    }

    /// A cursor for converting many offsets in ascending order (each conversion costs
    /// what it moves, instead of two binary searches).
    pub fn cursor(&self) -> LineCursor<'_> {
        LineCursor {
            index: self,
            line: 0,
            non_ascii: 0,
        }
    }

    /// The byte offset of a line and column. Columns past the end of the line
    /// clamp to the line's end (before its line break); lines past the end
    /// clamp to the end of the text; a column inside a character (half of a
    /// UTF-16 surrogate pair) rounds down to that character.
    pub fn offset(&self, text: &str, pos: LineCol, encoding: PositionEncoding) -> usize {
        let line = pos.line as usize;
        if line >= self.line_starts.len() {
            return self.len;
        }
        let start = self.line_starts[line];
        let end = self.content_end(text, line);
        if self.is_ascii_line(line) {
            return start + (pos.col as usize).min(end - start);
        }
        let mut remaining = pos.col as usize;
        for (i, ch) in text[start..end].char_indices() {
            let width = char_width(ch, encoding);
            if remaining < width {
                return start + i;
            }
            remaining -= width;
        }
        end
    }

    /// The end of a line's content, before its line break.
    fn content_end(&self, text: &str, line: usize) -> usize {
        let next = self.line_start(line + 1);
        let bytes = text.as_bytes();
        let mut end = next;
        if line + 1 < self.line_starts.len() {
            if end > 0 && bytes[end - 1] == b'\n' {
                end -= 1;
            }
            if end > 0 && bytes[end - 1] == b'\r' {
                end -= 1;
            }
        }
        end.max(self.line_starts[line])
    }
}

pub(crate) fn char_width(ch: char, encoding: PositionEncoding) -> usize {
    match encoding {
        PositionEncoding::Utf8 => ch.len_utf8(),
        PositionEncoding::Utf16 => ch.len_utf16(),
        PositionEncoding::Chars => 1,
    }
}

fn column_width(s: &str, encoding: PositionEncoding) -> usize {
    match encoding {
        PositionEncoding::Utf8 => s.len(),
        PositionEncoding::Utf16 => s.chars().map(char::len_utf16).sum(),
        PositionEncoding::Chars => s.chars().count(),
    }
}

pub(crate) fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while offset > 0 && !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "a\r\né𝄞x\nlast\n";

    #[test]
    fn the_cursor_agrees_with_line_col_in_any_order() {
        let text = "ab\r\né𝄞x\nplain\n\nlast é\nz";
        let index = LineIndex::new(text);
        let mut offsets: Vec<usize> = (0..=text.len()).collect();
        for enc in [PositionEncoding::Utf8, PositionEncoding::Utf16] {
            let mut cursor = index.cursor();
            for &offset in &offsets {
                assert_eq!(
                    cursor.line_col(text, offset, enc),
                    index.line_col(text, offset, enc)
                );
            }
            // Backwards too (each step starts over).
            for &offset in offsets.iter().rev() {
                assert_eq!(
                    cursor.line_col(text, offset, enc),
                    index.line_col(text, offset, enc)
                );
            }
        }
        offsets.clear();
    }

    #[test]
    fn lines_end_at_lf_and_crlf() {
        let index = LineIndex::new(TEXT);
        assert_eq!(index.line_count(), 4);
        assert_eq!(index.line_start(1), 3);
        assert_eq!(index.line_start(2), 11);
    }

    #[test]
    fn ascii_lines_and_others_agree_with_counting() {
        let text = "ab\r\né𝄞x\nplain\n\nlast é";
        let index = LineIndex::new(text);
        for enc in [
            PositionEncoding::Utf8,
            PositionEncoding::Utf16,
            PositionEncoding::Chars,
        ] {
            for (offset, _) in text.char_indices().filter(|&(_, c)| c != '\n') {
                let lc = index.line_col(text, offset, enc);
                let start = index.line_start(lc.line as usize);
                assert_eq!(lc.col as usize, column_width(&text[start..offset], enc));
                assert_eq!(index.offset(text, lc, enc), offset, "{offset} {enc:?}");
            }
            // Past the end of an ASCII line: its end, before the line break.
            let past = LineCol { line: 0, col: 99 };
            assert_eq!(index.offset(text, past, enc), 2);
        }
    }

    #[test]
    fn columns_in_each_unit() {
        let index = LineIndex::new(TEXT);
        let x = TEXT.find('x').unwrap();
        let lc = |enc| index.line_col(TEXT, x, enc);
        assert_eq!(lc(PositionEncoding::Utf8), LineCol { line: 1, col: 6 });
        assert_eq!(lc(PositionEncoding::Utf16), LineCol { line: 1, col: 3 });
        assert_eq!(lc(PositionEncoding::Chars), LineCol { line: 1, col: 2 });
        for enc in [
            PositionEncoding::Utf8,
            PositionEncoding::Utf16,
            PositionEncoding::Chars,
        ] {
            assert_eq!(index.offset(TEXT, lc(enc), enc), x);
        }
    }

    #[test]
    fn out_of_range_positions_clamp() {
        let index = LineIndex::new(TEXT);
        // Past the end of line 0 stops before its `\r\n`.
        assert_eq!(
            index.offset(TEXT, LineCol { line: 0, col: 99 }, PositionEncoding::Utf16),
            1
        );
        assert_eq!(
            index.offset(TEXT, LineCol { line: 99, col: 0 }, PositionEncoding::Utf16),
            TEXT.len()
        );
        // Inside a surrogate pair rounds down to the character.
        let clef = TEXT.find('𝄞').unwrap();
        assert_eq!(
            index.offset(TEXT, LineCol { line: 1, col: 2 }, PositionEncoding::Utf16),
            clef
        );
    }
}
