//! Editor analyses over a parsed PTX document.
//!
//! Every analysis is a pure function of a [`ptx_syntax::Parse`] (plus a
//! position, range or options) returning plain data with byte ranges. None of
//! them knows LSP types; the `lsp` module of `ptx-lsp` converts.

pub mod completion;
pub mod folding;
pub mod formatting;
pub mod hover;
pub mod inlay_hints;
pub mod navigation;
pub mod run_template;
pub mod selection;
pub mod semantic_tokens;
pub mod signature;
pub mod symbols;
