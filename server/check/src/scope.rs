//! Names visible at a point of a function: registers (with their types), variables, labels,
//! functions. Built by one walk over the module; lookups are hash-map hits, and parameterized
//! register declarations (`%r<100>`) are kept as ranges instead of being expanded.

use rustc_hash::FxHashMap as HashMap;

use ptx_syntax::{Statement, TextRange, Token, VariableDecl};

/// What a declared name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SymbolKind {
    Register,
    Variable,
    Label,
    Function,
}

/// One declared name.
#[derive(Debug, Clone)]
pub(crate) struct Symbol<'a> {
    pub kind: SymbolKind,
    /// Declared type without vector prefix (`.b32`), for registers and variables.
    pub ty: Option<&'a str>,
    /// `.v2`/`.v4` of a vector declaration.
    pub vector: Option<&'a str>,
    /// State space (`.reg`, `.shared`, `.param` ...).
    pub space: Option<&'a str>,
    pub range: TextRange,
}

/// `%r<N>`: every `%r0 … %r{N-1}`.
#[derive(Debug, Clone)]
struct Parameterized<'a> {
    prefix: &'a str,
    count: u64,
    symbol: Symbol<'a>,
}

/// The names declared directly in one block (or the module).
#[derive(Debug, Default)]
pub(crate) struct Frame<'a> {
    names: HashMap<&'a str, Symbol<'a>>,
    ranges: Vec<Parameterized<'a>>,
    /// Names declared `.extern` in this frame.
    externs: Vec<&'a str>,
}

/// A name declared twice in one frame.
#[derive(Debug, Clone)]
pub(crate) struct Duplicate {
    pub name: String,
    pub kind: SymbolKind,
    pub range: TextRange,
    pub first: TextRange,
}

impl<'a> Frame<'a> {
    pub fn lookup(&self, name: &str) -> Option<&Symbol<'a>> {
        if let Some(symbol) = self.names.get(name) {
            return Some(symbol);
        }
        self.ranges
            .iter()
            .rev()
            .find(|p| {
                name.strip_prefix(p.prefix).is_some_and(|digits| {
                    !digits.is_empty()
                        && digits.bytes().all(|b| b.is_ascii_digit())
                        && digits.parse::<u64>().is_ok_and(|n| n < p.count)
                })
            })
            .map(|p| &p.symbol)
    }

    /// Declares `name`; returns the earlier declaration's range if it was declared already.
    pub fn declare(&mut self, name: &'a str, symbol: Symbol<'a>) -> Option<TextRange> {
        if let Some(old) = self.lookup(name) {
            return Some(old.range.clone());
        }
        self.names.insert(name, symbol);
        None
    }

    /// Declares every name of a variable or register declaration; its type token, if written.
    pub fn declare_variable(
        &mut self,
        decl: &VariableDecl<'a>,
        out: &mut Vec<Duplicate>,
    ) -> Option<Token<'a>> {
        let parts = decl.parts();
        let space = parts.state_space.map(|t| t.text);
        let kind = if space == Some(".reg") {
            SymbolKind::Register
        } else {
            SymbolKind::Variable
        };
        // `.extern` declarations may be repeated and completed by a definition.
        let external = parts.linkage.iter().any(|l| l.text == ".extern");
        // ptxas 13.5 also completes an earlier `.extern` with a `.visible`, `.weak` or
        // `.common` definition (a `.static` one is rejected: "'.extern' variable cannot be
        // resolved by a '.static'").
        let visible = parts
            .linkage
            .iter()
            .any(|l| matches!(l.text, ".visible" | ".weak" | ".common"));
        for declarator in parts.declarators {
            let Some(name) = declarator.name() else {
                continue;
            };
            let symbol = Symbol {
                kind,
                ty: parts.ty.map(|t| t.text),
                vector: parts.vector.map(|t| t.text),
                space,
                range: name.range(),
            };
            if let Some(count) = declarator.count() {
                let clash = self.ranges.iter().find(|p| p.prefix == name.text);
                if let Some(first) = clash {
                    out.push(Duplicate {
                        name: format!("{}<{count}>", name.text),
                        kind,
                        range: name.range(),
                        first: first.symbol.range.clone(),
                    });
                }
                self.ranges.push(Parameterized {
                    prefix: name.text,
                    count,
                    symbol,
                });
                continue;
            }
            let completes = visible && self.externs.contains(&name.text);
            if external {
                self.externs.push(name.text);
            }
            if let Some(first) = self.declare(name.text, symbol) {
                if !external && !completes {
                    out.push(Duplicate {
                        name: name.text.to_owned(),
                        kind,
                        range: name.range(),
                        first,
                    });
                }
            }
        }
        parts.ty
    }

    /// Declares the variables and labels among a block's statements (not in nested blocks).
    ///
    /// The whole block is declared before its instructions are checked: ptxas rejects a use
    /// before the declaration, which this checker does not report (precision over recall).
    /// Returns the type tokens of the declarations, for the checks of declared types.
    pub fn declare_block(
        &mut self,
        statements: &[Statement<'a>],
        out: &mut Vec<Duplicate>,
    ) -> Vec<Token<'a>> {
        let mut types = Vec::new();
        for statement in statements {
            match statement {
                Statement::Variable(decl) => types.extend(self.declare_variable(decl, out)),
                Statement::Label(label) => {
                    let Some(name) = label.name() else { continue };
                    let symbol = Symbol {
                        kind: SymbolKind::Label,
                        ty: None,
                        vector: None,
                        space: None,
                        range: name.range(),
                    };
                    if let Some(first) = self.declare(name.text, symbol) {
                        out.push(Duplicate {
                            name: name.text.to_owned(),
                            kind: SymbolKind::Label,
                            range: name.range(),
                            first,
                        });
                    }
                }
                _ => {}
            }
        }
        types
    }

    /// Declares the labels of a function body's own statements, without reporting duplicates,
    /// and lists the statements of its nested blocks in `blocks`, in the order a walk of the
    /// body meets them, for the checks that walk it next. A label inside a nested block is not
    /// declared here: like any name, it is seen only in its block and the blocks within
    /// (ptxas 13.5: "Unknown symbol 'L'" for `bra L; { L: ... }`, for a branch from one block
    /// into a sibling, and for one out of a block to a label inside another).
    pub fn declare_all_labels(
        &mut self,
        statements: &[Statement<'a>],
        blocks: &mut Vec<(usize, Vec<Statement<'a>>)>,
    ) {
        self.declare_labels_at(statements, blocks, true);
    }

    fn declare_labels_at(
        &mut self,
        statements: &[Statement<'a>],
        blocks: &mut Vec<(usize, Vec<Statement<'a>>)>,
        top: bool,
    ) {
        for statement in statements {
            match statement {
                Statement::Label(label) if top => {
                    if let Some(name) = label.name() {
                        self.names.entry(name.text).or_insert(Symbol {
                            kind: SymbolKind::Label,
                            ty: None,
                            vector: None,
                            space: None,
                            range: name.range(),
                        });
                    }
                }
                Statement::Block(inner) => {
                    let slot = blocks.len();
                    blocks.push((inner.range().start, Vec::new()));
                    let inner_statements = inner.statements();
                    self.declare_labels_at(&inner_statements, blocks, false);
                    blocks[slot].1 = inner_statements;
                }
                _ => {}
            }
        }
    }
}

/// Frames from the module down to the current block.
#[derive(Debug, Default)]
pub(crate) struct Scope<'a> {
    frames: Vec<Frame<'a>>,
}

impl<'a> Scope<'a> {
    pub fn push(&mut self, frame: Frame<'a>) {
        self.frames.push(frame);
    }

    pub fn pop(&mut self) -> Option<Frame<'a>> {
        self.frames.pop()
    }

    pub fn lookup(&self, name: &str) -> Option<&Symbol<'a>> {
        self.frames.iter().rev().find_map(|f| f.lookup(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(range: TextRange) -> Symbol<'static> {
        Symbol {
            kind: SymbolKind::Register,
            ty: Some(".b32"),
            vector: None,
            space: Some(".reg"),
            range,
        }
    }

    #[test]
    fn parameterized_names_are_ranges() {
        let mut frame = Frame::default();
        frame.ranges.push(Parameterized {
            prefix: "%r",
            count: 10,
            symbol: sym(0..1),
        });
        assert!(frame.lookup("%r0").is_some());
        assert!(frame.lookup("%r9").is_some());
        assert!(frame.lookup("%r10").is_none());
        assert!(frame.lookup("%r").is_none());
        assert!(frame.lookup("%rd1").is_none());
        // ptxas reads `%r01` as `%r1`.
        assert!(frame.lookup("%r01").is_some());
        assert_eq!(frame.declare("%r3", sym(5..6)), Some(0..1));
        assert_eq!(frame.declare("%x", sym(5..6)), None);
    }
}
