//! What the cursor is in, from the text before it: the start of a statement, a dotted opcode,
//! a declaration, a directive's argument, or an operand list (and which operand).
//!
//! Completion runs while the user types, so the code around the cursor is usually incomplete
//! (`ld.glo`, `add.s32 %r1, ` without a `;`) and the syntax tree there is an error node. The
//! context is therefore read from the text of the current statement, which starts after the
//! previous `;`, `{` or `}` (comments skipped); the tree only says whether the cursor is inside a
//! function body.

use ptx_syntax::{Parse, TextRange};

/// What kind of position the cursor is at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContextKind {
    /// Inside a comment or a string: nothing to offer.
    Nothing,
    /// Where a statement starts (after an optional label and guard). `dot` when the word being
    /// typed starts with `.` (a directive or declaration keyword).
    StatementStart { dot: bool },
    /// Inside a dotted opcode: the components before the one being typed (`["ld", "global"]`
    /// for `ld.global.f`).
    Opcode { components: Vec<String> },
    /// In a declaration or function header after its first keyword (`.reg .b`, `.param .u`):
    /// the words written so far.
    Declaration { words: Vec<String> },
    /// The argument of `.target`, `.version` or `.address_size`.
    DirectiveArgument { directive: String },
    /// In the operand list of an instruction.
    Operand {
        /// The opcode as written (`ld.global.v2.f32`).
        opcode: String,
        /// 0-based index of the operand the cursor is in.
        index: usize,
        /// Where the opcode starts.
        opcode_start: usize,
    },
}

/// The cursor's context and the word it is completing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CursorContext {
    pub kind: ContextKind,
    /// The partial word before the cursor (what a completion replaces). For opcode qualifiers it
    /// starts at the last `.`.
    pub replace: TextRange,
    /// Whether the cursor is inside a function body.
    pub in_body: bool,
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'%' | b'.' | b':')
}

/// The context at byte `offset` of `parse`'s text.
pub fn cursor_context(parse: &Parse, offset: usize) -> CursorContext {
    let text = parse.text();
    let offset = floor_boundary(text, offset.min(text.len()));
    let in_body = in_body(parse, offset);
    let nothing = CursorContext {
        kind: ContextKind::Nothing,
        replace: offset..offset,
        in_body,
    };
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    if in_comment_or_string(&text[line_start..offset]) || in_block_comment(text, offset) {
        return nothing;
    }
    let stmt_start = statement_start(text, offset);
    let stmt = strip_comments(&text[stmt_start..offset]);
    // The partial word before the cursor.
    let bytes = text.as_bytes();
    let mut word_start = offset;
    while word_start > stmt_start && is_word_byte(bytes[word_start - 1]) {
        word_start -= 1;
    }
    let word = &text[word_start..offset];
    // Drop a label (`L1:`) and a guard (`@%p`, `@!%p`) in front of the statement.
    let mut rest = stmt.trim_start();
    if let Some(colon) = label_end(rest) {
        rest = rest[colon..].trim_start();
    }
    if let Some(after) = rest.strip_prefix('@') {
        match after.find(char::is_whitespace) {
            Some(end) => rest = after[end..].trim_start(),
            // Still typing the guard.
            None => return nothing,
        }
    }
    let words: Vec<&str> = rest.split_whitespace().collect();
    let typing_first = words.len() <= 1 && !rest.ends_with(char::is_whitespace);
    if rest.is_empty() || typing_first {
        if word.starts_with('.') || word.is_empty() || !word.contains('.') {
            return CursorContext {
                kind: ContextKind::StatementStart {
                    dot: word.starts_with('.'),
                },
                replace: word_start..offset,
                in_body,
            };
        }
        // `ld.glo`: complete the component after the last dot (the edit replaces `glo` only,
        // so clients that insert the label itself never double the dot).
        let last_dot = word.rfind('.').expect("contains a dot");
        let components = word[..last_dot].split('.').map(str::to_string).collect();
        return CursorContext {
            kind: ContextKind::Opcode { components },
            replace: word_start + last_dot + 1..offset,
            in_body,
        };
    }
    let first = words[0];
    if first.starts_with('.') {
        let kind = match first {
            ".target" | ".version" | ".address_size" => ContextKind::DirectiveArgument {
                directive: first.to_string(),
            },
            _ => ContextKind::Declaration {
                words: words.iter().map(|w| w.to_string()).collect(),
            },
        };
        return CursorContext {
            kind,
            replace: word_start..offset,
            in_body,
        };
    }
    // An instruction: count the top-level commas after the opcode.
    let opcode_offset_in_rest = rest.find(first).unwrap_or(0);
    let opcode_start = offset - rest.len() + opcode_offset_in_rest;
    let operands = &rest[opcode_offset_in_rest + first.len()..];
    let mut depth = 0i32;
    let mut index = 0;
    for c in operands.chars() {
        match c {
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => depth -= 1,
            ',' if depth <= 0 => index += 1,
            _ => {}
        }
    }
    CursorContext {
        kind: ContextKind::Operand {
            opcode: first.to_string(),
            index,
            opcode_start,
        },
        replace: word_start..offset,
        in_body,
    }
}

fn floor_boundary(text: &str, mut offset: usize) -> usize {
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// Whether the cursor is inside `{ }` of a function: by the tree when it has a function around
/// the offset, else by counting braces (a body being typed may not parse as a function yet).
fn in_body(parse: &Parse, offset: usize) -> bool {
    let module = parse.module();
    for f in module.functions() {
        if let Some(body) = f.body() {
            if body.range().start < offset && offset < body.range().end {
                return true;
            }
        }
    }
    let before = &parse.text().as_bytes()[..offset];
    let open = before.iter().filter(|&&b| b == b'{').count();
    let close = before.iter().filter(|&&b| b == b'}').count();
    open > close
}

/// Whether the end of `line` is inside a `//` comment or a string literal.
fn in_comment_or_string(line: &str) -> bool {
    let mut in_string = false;
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => in_string = !in_string,
            b'\\' if in_string => i += 1,
            b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => return true,
            _ => {}
        }
        i += 1;
    }
    in_string
}

/// Whether `offset` is inside a `/* */` comment (looking back at most a few kilobytes).
fn in_block_comment(text: &str, offset: usize) -> bool {
    let window = &text[floor_boundary(text, offset.saturating_sub(4096))..offset];
    match (window.rfind("/*"), window.rfind("*/")) {
        (Some(open), Some(close)) => open > close,
        (Some(_), None) => true,
        _ => false,
    }
}

/// Where the statement containing `offset` starts. It begins after the previous `;` (outside
/// comments) or after a block brace in between: a `{` that opens a block (at the start of a
/// statement or after a function header) or a `}` that closes one. Braces of vector operands
/// and initializers (`{%r1, %r2}`, `= {1, 2}`) do not count.
fn statement_start(text: &str, offset: usize) -> usize {
    let mut line_end = offset;
    let start = loop {
        let line_start = text[..line_end].rfind('\n').map_or(0, |i| i + 1);
        let line = &text[line_start..line_end];
        let code_end = comment_start(line).unwrap_or(line.len());
        if let Some(i) = line[..code_end].rfind(';') {
            break line_start + i + 1;
        }
        if line_start == 0 {
            break 0;
        }
        line_end = line_start - 1;
    };
    let segment = strip_comments(&text[start..offset]);
    let mut boundary = 0;
    let mut depth = 0usize;
    for (i, c) in segment.char_indices() {
        match c {
            '{' => {
                let before = segment[boundary..i].trim();
                if depth == 0 && (before.is_empty() || is_block_header(before)) {
                    boundary = i + 1;
                } else {
                    depth += 1;
                }
            }
            '}' if depth > 0 => depth -= 1,
            '}' => boundary = i + 1,
            // Module and performance directives end at the end of their line, without `;`.
            '\n' if depth == 0 && is_line_directive(segment[boundary..i].trim()) => {
                boundary = i + 1
            }
            _ => {}
        }
    }
    start + boundary
}

/// A directive that takes no `;` and ends with its line.
fn is_line_directive(line: &str) -> bool {
    const LINE_DIRECTIVES: [&str; 17] = [
        ".version",
        ".target",
        ".address_size",
        ".file",
        ".loc",
        ".maxntid",
        ".reqntid",
        ".maxnreg",
        ".minnctapersm",
        ".maxnctapersm",
        ".reqnctapercluster",
        ".maxclusterrank",
        ".explicitcluster",
        ".blocksareclusters",
        ".noreturn",
        ".abi_preserve",
        ".abi_preserve_control",
    ];
    let first = line.split_whitespace().next().unwrap_or("");
    LINE_DIRECTIVES.contains(&first)
}

/// Text that a block `{` may follow: a function header or a label.
fn is_block_header(before: &str) -> bool {
    const HEADERS: [&str; 5] = [".entry", ".func", ".visible", ".weak", ".extern"];
    (!before.contains('=') && HEADERS.iter().any(|h| before.starts_with(h)))
        || label_end(before) == Some(before.len())
}

/// Byte index of `//` outside a string, if any.
fn comment_start(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut in_string = false;
    for i in 0..bytes.len() {
        match bytes[i] {
            b'"' => in_string = !in_string,
            b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => return Some(i),
            _ => {}
        }
    }
    None
}

/// The statement text with `//` and `/* */` comments replaced by spaces (same length).
fn strip_comments(stmt: &str) -> String {
    let mut out = String::with_capacity(stmt.len());
    for (i, line) in stmt.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let end = comment_start(line).unwrap_or(line.len());
        out.push_str(&line[..end]);
        out.extend(std::iter::repeat_n(' ', line.len() - end));
    }
    while let (Some(open), close) = (out.find("/*"), out.find("*/")) {
        let end = close.filter(|&c| c > open).map_or(out.len(), |c| c + 2);
        out.replace_range(open..end, &" ".repeat(end - open));
    }
    out
}

/// The end of a leading `label:` (not `::` of a qualifier), if the statement has one.
fn label_end(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'_' | b'$')) {
        i += 1;
    }
    (i > 0 && bytes.get(i) == Some(&b':') && bytes.get(i + 1) != Some(&b':')).then_some(i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The context at `$0` in `src`.
    fn at(src: &str) -> (ContextKind, String, bool) {
        let offset = src.find("$0").expect("fixture has $0");
        let text = src.replace("$0", "");
        let parse = Parse::new(text.clone());
        let c = cursor_context(&parse, offset);
        (c.kind, text[c.replace].to_string(), c.in_body)
    }

    const HEAD: &str = ".version 8.6\n.target sm_100a\n.entry k()\n{\n  .reg .b32 %r<4>;\n";

    #[test]
    fn incomplete_opcodes() {
        let (kind, word, body) = at(&format!("{HEAD}  ld.glo$0\n}}\n"));
        assert_eq!(
            kind,
            ContextKind::Opcode {
                components: vec!["ld".into()]
            }
        );
        assert_eq!(word, "glo");
        assert!(body);
        let (kind, word, _) = at(&format!("{HEAD}  ld.$0"));
        assert_eq!(
            kind,
            ContextKind::Opcode {
                components: vec!["ld".into()]
            }
        );
        assert_eq!(word, "");
        let (kind, _, _) = at(&format!("{HEAD}  @%p1 tcgen05.ld.sync.$0"));
        assert_eq!(
            kind,
            ContextKind::Opcode {
                components: vec!["tcgen05".into(), "ld".into(), "sync".into()]
            }
        );
    }

    #[test]
    fn statement_starts() {
        let (kind, word, body) = at(&format!("{HEAD}  mov.u32 %r1, 1;\n  ad$0\n}}"));
        assert_eq!(kind, ContextKind::StatementStart { dot: false });
        assert_eq!(word, "ad");
        assert!(body);
        let (kind, _, body) = at(".version 8.0\n.$0");
        assert_eq!(kind, ContextKind::StatementStart { dot: true });
        assert!(!body);
        let (kind, _, _) = at(&format!("{HEAD}L1:  $0"));
        assert_eq!(kind, ContextKind::StatementStart { dot: false });
        let (kind, _, _) = at(&format!("{HEAD}  // ld.$0\n"));
        assert_eq!(kind, ContextKind::Nothing);
        let (kind, _, _) = at(&format!("{HEAD}  /* ld.$0 */\n"));
        assert_eq!(kind, ContextKind::Nothing);
    }

    #[test]
    fn vector_braces_do_not_end_the_statement() {
        let (kind, _, _) = at(&format!("{HEAD}  ld.v2.u32 {{%r1, %r2}}, [%$0"));
        assert!(
            matches!(kind, ContextKind::Operand { index: 1, .. }),
            "{kind:?}"
        );
        let (kind, _, _) = at(&format!("{HEAD}  {{ add$0"));
        assert_eq!(kind, ContextKind::StatementStart { dot: false });
        let (kind, _, _) = at(".entry k()\n.maxntid 32, 1, 1\n{\n  mov$0");
        assert_eq!(kind, ContextKind::StatementStart { dot: false });
        let (kind, _, _) = at(".entry k()\n{\n  ret;\n}\n.$0");
        assert_eq!(kind, ContextKind::StatementStart { dot: true });
    }

    #[test]
    fn operands() {
        let (kind, word, _) = at(&format!("{HEAD}  add.s32 %r1, %$0"));
        assert!(
            matches!(kind, ContextKind::Operand { index: 1, ref opcode, .. } if opcode == "add.s32"),
            "{kind:?}"
        );
        assert_eq!(word, "%");
        let (kind, _, _) = at(&format!("{HEAD}  ld.v2.u32 {{%r1, %r2}}, [%r3+4], $0"));
        assert!(
            matches!(kind, ContextKind::Operand { index: 2, .. }),
            "{kind:?}"
        );
        let (kind, _, _) = at(&format!("{HEAD}  st.v2.u32 [%r3], {{%r1, %$0"));
        assert!(
            matches!(kind, ContextKind::Operand { index: 1, .. }),
            "{kind:?}"
        );
        let (kind, _, _) = at(&format!("{HEAD}  mov.u32 %r1, // a, b\n   $0"));
        assert!(
            matches!(kind, ContextKind::Operand { index: 1, .. }),
            "{kind:?}"
        );
    }

    #[test]
    fn declarations_and_directives() {
        let (kind, word, _) = at(&format!("{HEAD}  .reg .b$0"));
        assert_eq!(
            kind,
            ContextKind::Declaration {
                words: vec![".reg".into(), ".b".into()]
            }
        );
        assert_eq!(word, ".b");
        let (kind, _, _) = at(".version 8.0\n.target sm_$0");
        assert_eq!(
            kind,
            ContextKind::DirectiveArgument {
                directive: ".target".into()
            }
        );
        let (kind, _, _) = at(".entry k(.param .u$0");
        assert!(matches!(kind, ContextKind::Declaration { .. }), "{kind:?}");
    }
}
