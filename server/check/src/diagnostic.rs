//! The plain-data result of the checker: diagnostics with byte ranges, codes and fixes.
//!
//! Nothing here knows LSP or JSON; the edges (`cli`, `lsp`) convert these values.

use ptx_syntax::TextRange;

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// ptxas rejects the file (or would, with the given target/version).
    Error,
    /// Legal PTX that very likely does not do what was meant (spec rules ptxas does not check).
    Warning,
    Information,
    Hint,
}

impl Severity {
    /// The lower-case name used by the command line (`error`, `warning`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information => "information",
            Severity::Hint => "hint",
        }
    }
}

/// One edit of a fix: replace `range` by `new_text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub range: TextRange,
    pub new_text: String,
}

/// A quick fix: a title and the edits that apply it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    pub title: String,
    pub edits: Vec<Edit>,
}

impl Fix {
    /// A fix made of one replacement.
    pub fn replace(title: impl Into<String>, range: TextRange, new_text: impl Into<String>) -> Fix {
        Fix {
            title: title.into(),
            edits: vec![Edit {
                range,
                new_text: new_text.into(),
            }],
        }
    }
}

/// A problem found in a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Byte range of the token at fault.
    pub range: TextRange,
    pub severity: Severity,
    /// A stable code such as `unknown-opcode` (see [`crate::CODES`]).
    pub code: &'static str,
    /// What is wrong and what is expected, in plain words.
    pub message: String,
    /// Other places that explain the problem (the earlier definition of a duplicate ...).
    pub related: Vec<(TextRange, String)>,
    pub fixes: Vec<Fix>,
    /// The PTX ISA section the rule comes from, e.g. `9.7.9.8` (empty for syntax errors).
    pub source: String,
}

impl Diagnostic {
    pub fn new(
        code: &'static str,
        severity: Severity,
        range: TextRange,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            range,
            severity,
            code,
            message: message.into(),
            related: Vec::new(),
            fixes: Vec::new(),
            source: String::new(),
        }
    }

    pub fn error(code: &'static str, range: TextRange, message: impl Into<String>) -> Self {
        Diagnostic::new(code, Severity::Error, range, message)
    }

    pub fn warning(code: &'static str, range: TextRange, message: impl Into<String>) -> Self {
        Diagnostic::new(code, Severity::Warning, range, message)
    }

    /// Names the spec section of the rule.
    pub fn section(mut self, section: impl Into<String>) -> Self {
        self.source = section.into();
        self
    }

    pub fn with_fix(mut self, fix: Fix) -> Self {
        self.fixes.push(fix);
        self
    }

    pub fn with_related(mut self, range: TextRange, message: impl Into<String>) -> Self {
        self.related.push((range, message.into()));
        self
    }
}
