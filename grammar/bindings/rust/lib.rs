//! This crate provides the PTX (NVIDIA Parallel Thread Execution) language for
//! [tree-sitter](https://tree-sitter.github.io/).
//!
//! ```
//! let code = ".version 9.1\n.target sm_90a\n.address_size 64\n";
//! let mut parser = tree_sitter::Parser::new();
//! parser.set_language(&tree_sitter_ptx::LANGUAGE.into()).expect("load PTX grammar");
//! let tree = parser.parse(code, None).unwrap();
//! assert!(!tree.root_node().has_error());
//! ```

use tree_sitter_language::LanguageFn;

extern "C" {
    fn tree_sitter_ptx() -> *const ();
}

/// The tree-sitter [`LanguageFn`] for PTX.
#[allow(unsafe_code)]
pub const LANGUAGE: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_ptx) };

/// The content of the [`node-types.json`] file for this grammar.
///
/// [`node-types.json`]: https://tree-sitter.github.io/tree-sitter/using-parsers/6-static-node-types
pub const NODE_TYPES: &str = include_str!("../../src/node-types.json");

/// Syntax highlighting query.
pub const HIGHLIGHTS_QUERY: &str = include_str!("../../queries/highlights.scm");

/// Local definitions and references (registers, labels, functions, variables).
pub const LOCALS_QUERY: &str = include_str!("../../queries/locals.scm");

/// Folding ranges.
pub const FOLDS_QUERY: &str = include_str!("../../queries/folds.scm");

/// Indentation.
pub const INDENTS_QUERY: &str = include_str!("../../queries/indents.scm");

#[cfg(test)]
mod tests {
    #[test]
    fn can_load_grammar() {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&super::LANGUAGE.into())
            .expect("Error loading PTX parser");
    }

    #[test]
    fn queries_compile() {
        let language = super::LANGUAGE.into();
        for (name, source) in [
            ("highlights", super::HIGHLIGHTS_QUERY),
            ("locals", super::LOCALS_QUERY),
            ("folds", super::FOLDS_QUERY),
            ("indents", super::INDENTS_QUERY),
        ] {
            if let Err(error) = tree_sitter::Query::new(&language, source) {
                panic!("{name}.scm does not compile: {error}");
            }
        }
    }
}
