//! The syntax layer: owns tree-sitter and the PTX grammar.
//!
//! Everything above this crate sees PTX through typed views ([`Module`],
//! [`Function`], [`Statement`], [`Instruction`], [`Operand`], ...) that carry
//! byte ranges into the source. Nothing outside this crate matches node-kind
//! strings. Parsing never fails: a broken file yields a tree with error nodes,
//! which [`Parse::syntax_errors`] reports in plain words.

mod ast;
pub mod cancel;
mod document;
mod kinds;
mod parse;
mod position;
mod tokens;

pub use ast::{
    parse_integer, Block, DeclParts, Declarator, Directive, DirectiveKind, Expression, Function,
    FunctionKind, Guard, Instruction, InstructionParts, Item, Label, Module, Operand, OperandKind,
    Statement, Token, VariableDecl,
};
pub use document::{Document, PendingParse, TextEdit};
pub use parse::{Nesting, Parse, SyntaxError, SyntaxErrorKind, TreeStats, MAX_NESTING};
pub use position::{LineCol, LineCursor, LineIndex, PositionEncoding};
pub use tokens::{NameRole, SyntaxToken, TokenKind};

/// A half-open byte range into a document's text.
pub type TextRange = std::ops::Range<usize>;

/// The tree-sitter language of PTX.
pub fn language() -> tree_sitter::Language {
    tree_sitter_ptx::LANGUAGE.into()
}

/// A fresh parser for PTX.
pub(crate) fn new_parser() -> tree_sitter::Parser {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&language())
        .expect("the bundled PTX grammar matches the linked tree-sitter ABI");
    parser
}
