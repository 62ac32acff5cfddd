//! One parsed text: the tree, the text it came from, and what is wrong with it.

use std::fmt::Write as _;
use std::sync::Arc;

use tree_sitter::{Node, Tree};

use crate::ast::Module;
use crate::kinds as k;
use crate::TextRange;

/// An immutable parse of a text: cheap to clone and share between threads.
#[derive(Debug, Clone)]
pub struct Parse {
    tree: Tree,
    text: Arc<String>,
}

/// Node counts of a tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TreeStats {
    pub nodes: usize,
    pub errors: usize,
    pub missing: usize,
}

/// What kind of syntax error a tree contains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyntaxErrorKind {
    /// Text the grammar could not place.
    Unexpected,
    /// A token the grammar expected but did not find (e.g. `;`).
    Missing(String),
}

/// A syntax error, with a message in plain words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub kind: SyntaxErrorKind,
    pub range: TextRange,
    pub message: String,
}

impl Parse {
    /// Parses `text` from scratch.
    pub fn new(text: impl Into<String>) -> Self {
        let text = Arc::new(text.into());
        let tree = crate::new_parser()
            .parse(text.as_bytes(), None)
            .expect("a parser with a language and no timeout always returns a tree");
        Parse { tree, text }
    }

    pub(crate) fn from_parts(tree: Tree, text: Arc<String>) -> Self {
        Parse { tree, text }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// Takes the text back, for a document about to edit it in place.
    pub(crate) fn into_text(self) -> Arc<String> {
        self.text
    }

    /// The raw tree, for the few callers inside the syntax layer's users that
    /// need tree-sitter queries (highlighting); prefer the typed views.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    pub fn module(&self) -> Module<'_> {
        Module::new(self.tree.root_node(), &self.text)
    }

    /// Counts of all nodes and of ERROR and MISSING nodes.
    pub fn stats(&self) -> TreeStats {
        let mut stats = TreeStats::default();
        let mut cursor = self.tree.walk();
        loop {
            let node = cursor.node();
            stats.nodes += 1;
            if node.is_error() {
                stats.errors += 1;
            }
            if node.is_missing() {
                stats.missing += 1;
            }
            if cursor.goto_first_child() {
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return stats;
                }
            }
        }
    }

    /// The tree as an S-expression with named nodes, fields and ranges.
    pub fn sexp(&self) -> String {
        let mut out = String::new();
        write_sexp(self.tree.root_node(), None, 0, &mut out);
        out
    }

    /// Every ERROR and MISSING node, outermost first, as a plain-words error.
    pub fn syntax_errors(&self) -> Vec<SyntaxError> {
        let mut errors = Vec::new();
        if self.tree.root_node().has_error() {
            collect_errors(self.tree.root_node(), &self.text, &mut errors);
        }
        errors
    }
}

fn write_sexp(node: Node<'_>, field: Option<&str>, depth: usize, out: &mut String) {
    let indent = "  ".repeat(depth);
    let _ = write!(out, "{indent}");
    if let Some(field) = field {
        let _ = write!(out, "{field}: ");
    }
    let kind = if node.is_missing() {
        format!("MISSING {}", node.kind())
    } else {
        node.kind().to_owned()
    };
    let (start, end) = (node.start_position(), node.end_position());
    let _ = write!(
        out,
        "({kind} [{}, {}] - [{}, {}]",
        start.row, start.column, end.row, end.column
    );
    let mut cursor = node.walk();
    let mut has_children = false;
    if cursor.goto_first_child() {
        loop {
            let child = cursor.node();
            if child.is_named() || child.is_missing() {
                out.push('\n');
                write_sexp(child, cursor.field_name(), depth + 1, out);
                has_children = true;
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    let _ = has_children;
    out.push(')');
    if depth == 0 {
        out.push('\n');
    }
}

fn collect_errors(node: Node<'_>, text: &str, out: &mut Vec<SyntaxError>) {
    if node.is_missing() {
        let expected = describe_token(node.kind());
        out.push(SyntaxError {
            kind: SyntaxErrorKind::Missing(node.kind().to_owned()),
            range: node.byte_range(),
            message: format!("expected {expected} here"),
        });
        return;
    }
    if node.is_error() {
        let snippet: String = text[node.byte_range()].chars().take(40).collect();
        let snippet = snippet.lines().next().unwrap_or("").trim();
        let context = enclosing_context(node);
        out.push(SyntaxError {
            kind: SyntaxErrorKind::Unexpected,
            range: node.byte_range(),
            message: if snippet.is_empty() {
                format!("unexpected input {context}")
            } else {
                format!("unexpected `{snippet}` {context}")
            },
        });
        return;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.has_error() || child.is_missing() {
            collect_errors(child, text, out);
        }
    }
}

fn enclosing_context(node: Node<'_>) -> &'static str {
    let mut parent = node.parent();
    while let Some(p) = parent {
        match p.kind() {
            k::INSTRUCTION => return "in this instruction",
            k::VARIABLE_DECLARATION | k::PARAMETER_DECLARATION => return "in this declaration",
            k::FUNCTION_DEFINITION | k::FUNCTION_DECLARATION => return "in this function header",
            k::BLOCK => return "in this function body",
            k::MODULE => return "at the top level",
            _ => parent = p.parent(),
        }
    }
    "at the top level"
}

fn describe_token(kind: &str) -> String {
    match kind {
        ";" => "`;` to end the statement".into(),
        "}" => "`}` to close the block".into(),
        ")" => "`)`".into(),
        "]" => "`]` to close the address".into(),
        k::IDENTIFIER => "a name".into(),
        k::REGISTER => "a register".into(),
        k::INTEGER_LITERAL => "an integer".into(),
        k::FLOAT_LITERAL => "a number".into(),
        k::STRING_LITERAL => "a string".into(),
        other if other.starts_with('.') || other.len() <= 2 => format!("`{other}`"),
        other => format!("a {}", other.replace('_', " ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    #[test]
    fn errors_are_reported_in_plain_words() {
        let parse =
            Parse::new(".entry k()\n{\n  mov.u32 %r1, 1\n  add.s32 %r1, %r2 %r3;\n  ret;\n}\n");
        let errors: Vec<String> = parse
            .syntax_errors()
            .iter()
            .map(|e| format!("{:?} {}", e.range, e.message))
            .collect();
        expect![[r#"
            [
                "29..29 expected `;` to end the statement here",
                "49..52 unexpected `%r3` in this instruction",
            ]
        "#]]
        .assert_debug_eq(&errors);
    }

    #[test]
    fn stats_count_error_nodes() {
        let clean = Parse::new(".version 9.1\n.target sm_90\n");
        assert_eq!(clean.stats().errors + clean.stats().missing, 0);
        assert!(clean.stats().nodes > 3);
        let broken = Parse::new(".version 9.1\n.target\n}}");
        assert!(broken.stats().errors + broken.stats().missing > 0);
    }
}
