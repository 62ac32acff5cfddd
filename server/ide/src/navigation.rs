//! Name resolution and the features built on it: go to definition, find
//! references, document highlight and rename.
//!
//! PTX scoping is lexical and simple: a name declared in a block (a function
//! body or a nested `{ }`) is visible in that block, parameters in their
//! function, and functions and module-level variables everywhere in the file.
//! The innermost declaration wins, so a `{ .reg .pred p; ... }` of inline
//! assembly shadows an outer `p`. Registers declared as a range (`%r<4>`)
//! declare `%r0` … `%r3`. Renaming `%r` in the declaration renames the whole
//! range (`%r1` becomes `%acc1` everywhere); renaming one of them, `%r1`,
//! renames its uses and declares the new name next to the range.
//!
//! Every occurrence of a name comes from [`Parse::tokens_in`], so nothing
//! that the grammar knows as a register or identifier can be missed by a
//! rename.

use std::collections::HashMap;

use ptx_syntax::{
    Block, Item, NameRole, Parse, Statement, SyntaxToken, TextRange, TokenKind, VariableDecl,
};

/// What a declaration declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeclarationKind {
    Function,
    Parameter,
    Variable,
    Register,
    Label,
}

/// One declaration of a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    /// The declared name; for `%r<4>` the prefix `%r`.
    pub name: String,
    /// `N` of `%r<N>`.
    pub count: Option<u64>,
    pub kind: DeclarationKind,
    /// The name as written in the declaration.
    pub name_range: TextRange,
    /// The whole declaring construct (statement, parameter, function).
    pub full_range: TextRange,
    /// Where the name is visible.
    pub scope: TextRange,
    /// Where the declaration's first declarator starts: `full_range.start..declarators_start` is
    /// what comes before the names (`.reg .b32 `), to declare another name the same way.
    pub declarators_start: usize,
}

impl Declaration {
    /// Whether `text` names (one of) the register(s) this declares.
    fn declares(&self, text: &str) -> bool {
        match self.count {
            None => self.name == text,
            Some(count) => text
                .strip_prefix(self.name.as_str())
                .filter(|digits| {
                    !digits.is_empty()
                        && digits.bytes().all(|b| b.is_ascii_digit())
                        && (digits.len() == 1 || !digits.starts_with('0'))
                })
                .and_then(|digits| digits.parse::<u64>().ok())
                .is_some_and(|index| index < count),
        }
    }
}

/// Every declaration of a document, indexed by name.
#[derive(Debug, Default)]
pub struct Declarations {
    all: Vec<Declaration>,
    by_name: HashMap<String, Vec<usize>>,
}

impl Declarations {
    /// Collects the declarations of the whole document.
    pub fn of(parse: &Parse) -> Self {
        Self::collect(parse, None)
    }

    /// The declarations that names inside `range` can see: the module-level
    /// ones and those of the functions that overlap `range` (much less work
    /// than [`Declarations::of`] in a large file).
    pub fn around(parse: &Parse, range: TextRange) -> Self {
        Self::collect(parse, Some(range))
    }

    fn collect(parse: &Parse, only: Option<TextRange>) -> Self {
        let mut this = Declarations::default();
        let module_scope = 0..parse.text().len();
        for item in parse.module().items() {
            match item {
                Item::Function(function) => {
                    if let Some(name) = function.name() {
                        this.push(Declaration {
                            name: name.text.to_owned(),
                            count: None,
                            kind: DeclarationKind::Function,
                            name_range: name.range(),
                            full_range: function.range(),
                            scope: module_scope.clone(),
                            declarators_start: name.range().start,
                        });
                    }
                    let r = function.range();
                    if only
                        .as_ref()
                        .is_some_and(|only| r.end < only.start || only.end < r.start)
                    {
                        continue;
                    }
                    for param in function
                        .return_parameters()
                        .into_iter()
                        .chain(function.parameters())
                    {
                        this.variable(param, DeclarationKind::Parameter, function.range());
                    }
                    if let Some(body) = function.body() {
                        this.block(body, body.range());
                    }
                }
                Item::Variable(decl) => this.variable(decl, kind_of(decl), module_scope.clone()),
                Item::Statement(statement) => this.statement(statement, module_scope.clone()),
                Item::Directive(_) => {}
            }
        }
        this
    }

    pub fn all(&self) -> &[Declaration] {
        &self.all
    }

    fn push(&mut self, declaration: Declaration) {
        self.by_name
            .entry(declaration.name.clone())
            .or_default()
            .push(self.all.len());
        self.all.push(declaration);
    }

    fn block(&mut self, block: Block<'_>, scope: TextRange) {
        for statement in block.statements() {
            self.statement(statement, scope.clone());
        }
    }

    fn statement(&mut self, statement: Statement<'_>, scope: TextRange) {
        match statement {
            Statement::Variable(decl) => self.variable(decl, kind_of(decl), scope),
            Statement::Label(label) => {
                if let Some(name) = label.name() {
                    self.push(Declaration {
                        name: name.text.to_owned(),
                        count: None,
                        kind: DeclarationKind::Label,
                        name_range: name.range(),
                        full_range: label.range(),
                        scope,
                        declarators_start: name.range().start,
                    });
                }
            }
            Statement::Block(block) => self.block(block, block.range()),
            Statement::Instruction(_) | Statement::Directive(_) => {}
        }
    }

    fn variable(&mut self, decl: VariableDecl<'_>, kind: DeclarationKind, scope: TextRange) {
        let declarators = decl.declarators();
        let declarators_start = declarators
            .first()
            .and_then(|d| d.name())
            .map_or(decl.range().start, |name| name.range().start);
        for declarator in declarators {
            let Some(name) = declarator.name() else {
                continue;
            };
            if name.text == "_" {
                continue;
            }
            self.push(Declaration {
                name: name.text.to_owned(),
                count: declarator.count(),
                kind,
                name_range: name.range(),
                full_range: decl.range(),
                scope: scope.clone(),
                declarators_start,
            });
        }
    }

    /// The declarations a name token means: the declaration it is part of,
    /// or else what its text resolves to.
    pub fn of_token(&self, text: &str, range: &TextRange) -> Vec<&Declaration> {
        let own = self.all.iter().find(|d| &d.name_range == range);
        match own {
            Some(own) => self
                .all
                .iter()
                .filter(|d| d.name == own.name && d.scope == own.scope && d.count == own.count)
                .collect(),
            None => self.resolve(text, range.start),
        }
    }

    /// The declarations that `text` written at `offset` refers to: those of
    /// the innermost scope that declares it (several when a function is
    /// declared and then defined). Empty when nothing declares it.
    pub fn resolve(&self, text: &str, offset: usize) -> Vec<&Declaration> {
        let mut best: Vec<&Declaration> = Vec::new();
        for key in candidate_keys(text) {
            for &index in self.by_name.get(key).into_iter().flatten() {
                let decl = &self.all[index];
                // The scope test first: it is cheap and rules out most candidates.
                let visible = decl.scope.start <= offset && offset <= decl.scope.end;
                if !(visible && decl.declares(text)) {
                    continue;
                }
                match best.first() {
                    Some(current) if scope_len(current) < scope_len(decl) => {}
                    Some(current) if scope_len(current) == scope_len(decl) => best.push(decl),
                    _ => best = vec![decl],
                }
            }
        }
        best
    }
}

fn scope_len(decl: &Declaration) -> usize {
    decl.scope.end - decl.scope.start
}

/// The name itself and, for `%r12`, the prefix `%r` a range declaration would use.
fn candidate_keys(text: &str) -> impl Iterator<Item = &str> {
    let prefix = text.trim_end_matches(|c: char| c.is_ascii_digit());
    let range_key = (prefix.len() < text.len() && !prefix.is_empty()).then_some(prefix);
    std::iter::once(text).chain(range_key)
}

fn kind_of(decl: VariableDecl<'_>) -> DeclarationKind {
    match decl.state_space().map(|s| s.text) {
        Some(".reg") => DeclarationKind::Register,
        Some(".param") => DeclarationKind::Parameter,
        _ => DeclarationKind::Variable,
    }
}

/// Whether a token names something (and so can be navigated).
pub(crate) fn is_name(kind: TokenKind) -> bool {
    matches!(
        kind,
        TokenKind::Register(role) | TokenKind::Identifier(role)
            if !matches!(role, NameRole::Target | NameRole::Field)
    )
}

/// The name token at `offset` (touching it from either side).
pub(crate) fn name_at(parse: &Parse, offset: usize) -> Option<SyntaxToken> {
    let tokens = parse.tokens_in(offset..offset);
    tokens
        .iter()
        .filter(|t| is_name(t.kind))
        // Inside a token beats touching its end.
        .min_by_key(|t| {
            (
                t.range.end == offset && t.range.start != offset,
                t.range.start,
            )
        })
        .cloned()
}

/// The range of the name at `offset`, if there is one.
pub fn name_range_at(parse: &Parse, offset: usize) -> Option<TextRange> {
    name_at(parse, offset).map(|token| token.range)
}

/// A place to navigate to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NavigationTarget {
    /// The declared name.
    pub name_range: TextRange,
    /// The whole declaration.
    pub full_range: TextRange,
}

/// Where the name at `offset` is declared.
pub fn goto_definition(parse: &Parse, offset: usize) -> Vec<NavigationTarget> {
    let Some(token) = name_at(parse, offset) else {
        return Vec::new();
    };
    let text = &parse.text()[token.range.clone()];
    Declarations::around(parse, token.range.clone())
        .of_token(text, &token.range)
        .into_iter()
        .map(|d| NavigationTarget {
            name_range: d.name_range.clone(),
            full_range: d.full_range.clone(),
        })
        .collect()
}

/// How an occurrence uses its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// The name is declared here.
    Declaration,
    /// The instruction writes the register (it is in the destination operand).
    Write,
    Read,
}

/// One occurrence of a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    pub range: TextRange,
    pub access: Access,
}

/// Every occurrence of the name at `offset` that means the same thing, in
/// source order. Names that nothing declares (special registers, typos) match
/// by spelling within the enclosing function.
pub fn find_references(parse: &Parse, offset: usize, include_declaration: bool) -> Vec<Reference> {
    let Some(token) = name_at(parse, offset) else {
        return Vec::new();
    };
    let declarations = declarations_for(parse, &token);
    let mut refs = occurrences(parse, &declarations, &token);
    if !include_declaration {
        refs.retain(|r| r.access != Access::Declaration);
    }
    refs
}

/// The occurrences to highlight for the name at `offset`.
pub fn document_highlights(parse: &Parse, offset: usize) -> Vec<Reference> {
    find_references(parse, offset, true)
}

/// The declarations needed to find every occurrence of the name `token`:
/// those around it, or all of them when it names something module-wide
/// (which any function may use or shadow).
fn declarations_for(parse: &Parse, token: &SyntaxToken) -> Declarations {
    let around = Declarations::around(parse, token.range.clone());
    let text = &parse.text()[token.range.clone()];
    let module_wide = around
        .of_token(text, &token.range)
        .first()
        .is_some_and(|d| d.scope == (0..parse.text().len()));
    if module_wide {
        Declarations::of(parse)
    } else {
        around
    }
}

fn occurrences(parse: &Parse, declarations: &Declarations, token: &SyntaxToken) -> Vec<Reference> {
    let src = parse.text();
    let text = &src[token.range.clone()];
    let targets = declarations.of_token(text, &token.range);
    // The token may itself be a range declaration (`%r` of `%r<4>`): then
    // every register of the range is meant.
    let own = targets
        .iter()
        .find(|d| d.name_range == token.range && d.count.is_some());
    let scope = match targets.first() {
        Some(decl) => decl.scope.clone(),
        None => enclosing_function(parse, token.range.start),
    };
    let writes = destination_ranges(parse, scope.clone());
    let mut out = Vec::new();
    for candidate in parse.tokens_in(scope) {
        if !is_name(candidate.kind) {
            continue;
        }
        let candidate_text = &src[candidate.range.clone()];
        let is_declaration = targets.iter().any(|d| d.name_range == candidate.range);
        let same_name = is_declaration
            || match own {
                Some(decl) => decl.declares(candidate_text),
                None => candidate_text == text,
            };
        if !same_name {
            continue;
        }
        let resolved = declarations.of_token(candidate_text, &candidate.range);
        let same_binding = is_declaration
            || match (targets.first(), resolved.first()) {
                (Some(a), Some(b)) => a.name == b.name && a.scope == b.scope,
                (None, None) => true,
                _ => false,
            };
        if !same_binding {
            continue;
        }
        let access = if is_declaration {
            Access::Declaration
        } else if writes
            .iter()
            .any(|w| w.start <= candidate.range.start && candidate.range.end <= w.end)
        {
            Access::Write
        } else {
            Access::Read
        };
        out.push(Reference {
            range: candidate.range,
            access,
        });
    }
    out
}

/// The range of the function around `offset`, or the whole text outside functions.
fn enclosing_function(parse: &Parse, offset: usize) -> TextRange {
    parse
        .module()
        .functions()
        .into_iter()
        .map(|f| f.range())
        .find(|r| r.start <= offset && offset <= r.end)
        .unwrap_or(0..parse.text().len())
}

/// Instructions whose first operand is read, not written, although it is not an address.
const NO_DESTINATION: &[&str] = &[
    "bar",
    "barrier",
    "bra",
    "brx",
    "nanosleep",
    "trap",
    "exit",
    "ret",
    "pmevent",
    "tcgen05",
    "prefetch",
    "prefetchu",
    "st",
    "red",
    "call",
    "griddepcontrol",
    "setmaxnreg",
];

/// The ranges of destination operands of the instructions inside `range`, in source order.
pub(crate) fn destination_ranges(parse: &Parse, range: TextRange) -> Vec<TextRange> {
    let mut out = Vec::new();
    for instruction in parse.module().instructions_in(range) {
        let Some(mnemonic) = instruction.mnemonic() else {
            continue;
        };
        if NO_DESTINATION.contains(&mnemonic.text) {
            continue;
        }
        if let Some(first) = instruction.operands().first() {
            if !matches!(first.kind(), ptx_syntax::OperandKind::Address { .. }) {
                out.push(first.range());
            }
        }
    }
    out
}

/// Why a rename cannot be done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenameError(pub String);

impl std::fmt::Display for RenameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The range of the name at `offset` if it can be renamed: any name this file
/// declares, including the name of a register range (`%r` of `%r<4>`, which
/// renames the whole range) and one register of a range (`%r1`).
pub fn prepare_rename(parse: &Parse, offset: usize) -> Result<TextRange, RenameError> {
    let token = name_at(parse, offset)
        .ok_or_else(|| RenameError("there is no name here to rename".into()))?;
    let text = &parse.text()[token.range.clone()];
    let declarations = Declarations::around(parse, token.range.clone());
    if declarations.of_token(text, &token.range).is_empty() {
        return Err(RenameError(format!(
            "`{text}` is not declared in this file, so it cannot be renamed"
        )));
    }
    Ok(token.range)
}

/// What a rename changes.
enum RenameKind {
    /// One declaration and its uses.
    Name,
    /// `%r` of `%r<N>`: the prefix of every register of the range.
    WholeRange,
    /// `%r1` of `%r<N>`: its uses, and a new declaration beside the range's.
    RangeElement,
}

/// The edits that rename the name at `offset` to `new_name`.
pub fn rename(
    parse: &Parse,
    offset: usize,
    new_name: &str,
) -> Result<Vec<(TextRange, String)>, RenameError> {
    let range = prepare_rename(parse, offset)?;
    let src = parse.text();
    let old = &src[range.clone()];
    if !is_valid_name(new_name, old.starts_with('%')) {
        let what = if old.starts_with('%') {
            "a register name (`%` followed by letters, digits, `_` or `$`)"
        } else {
            "a name (a letter followed by letters, digits, `_` or `$`, or `_`/`$` followed by at least one of those)"
        };
        return Err(RenameError(format!("`{new_name}` is not {what}")));
    }
    let token = SyntaxToken {
        kind: TokenKind::Identifier(NameRole::Reference),
        range: range.clone(),
    };
    let declarations = declarations_for(parse, &token);
    let decl = declarations.of_token(old, &range)[0].clone();
    let kind = match decl.count {
        None => RenameKind::Name,
        Some(_) if decl.name_range == range => RenameKind::WholeRange,
        Some(_) => RenameKind::RangeElement,
    };
    if matches!(kind, RenameKind::WholeRange) && new_name.ends_with(|c: char| c.is_ascii_digit()) {
        return Err(RenameError(format!(
            "the name of a register range cannot end in a digit: `{new_name}<{}>` would make `{new_name}0` ambiguous",
            decl.count.unwrap_or(0)
        )));
    }
    if new_name != old {
        // The range being renamed as a whole cannot clash with itself; one of its registers
        // can (`%r1` -> `%r2` of the same `%r<4>`).
        let overlaps = |d: &Declaration| {
            !(matches!(kind, RenameKind::WholeRange) && d.name_range == decl.name_range)
                && (contains(&d.scope, &decl.scope) || contains(&decl.scope, &d.scope))
        };
        let clash = declarations.all().iter().find(|d| {
            overlaps(d)
                && match kind {
                    RenameKind::WholeRange => {
                        d.name == new_name
                            || range_names_meet(new_name, decl.count, &d.name, d.count)
                    }
                    _ => d.declares(new_name) || d.name == new_name,
                }
        });
        if let Some(clash) = clash {
            let declared = match clash.count {
                Some(count) => format!("{}<{count}>", clash.name),
                None => clash.name.clone(),
            };
            return Err(RenameError(match kind {
                RenameKind::WholeRange => format!(
                    "`{old}<{}>` cannot become `{new_name}<{}>`: `{declared}` is already declared (at byte {}) where the range is visible",
                    decl.count.unwrap_or(0),
                    decl.count.unwrap_or(0),
                    clash.name_range.start
                ),
                _ => format!(
                    "`{new_name}` is already declared (at byte {}) where `{old}` is visible",
                    clash.name_range.start
                ),
            }));
        }
    }
    let refs = occurrences(parse, &declarations, &token);
    let mut edits: Vec<(TextRange, String)> = match kind {
        RenameKind::Name => refs
            .into_iter()
            .map(|r| (r.range, new_name.to_owned()))
            .collect(),
        // `%r7` keeps its digits: only the prefix changes.
        RenameKind::WholeRange => refs
            .into_iter()
            .map(|r| {
                (
                    r.range.start..r.range.start + old.len(),
                    new_name.to_owned(),
                )
            })
            .collect(),
        // The range's own name stays: the other registers of the range keep it.
        RenameKind::RangeElement => refs
            .into_iter()
            .filter(|r| r.range != decl.name_range)
            .map(|r| (r.range, new_name.to_owned()))
            .collect(),
    };
    if matches!(kind, RenameKind::RangeElement) && new_name != old {
        let line_start = src[..decl.full_range.start]
            .rfind('\n')
            .map_or(0, |i| i + 1);
        let indent: String = src[line_start..decl.full_range.start]
            .chars()
            .take_while(|c| c.is_whitespace())
            .collect();
        let head = src[decl.full_range.start..decl.declarators_start].trim_end();
        let at = decl.full_range.end;
        edits.push((at..at, format!("\n{indent}{head} {new_name};")));
    }
    Ok(edits)
}

/// Whether the registers of `a<a_count>` (or the single name `a`) and of `b<b_count>` (or `b`)
/// could share a name: one name is the other followed by digits.
fn range_names_meet(a: &str, a_count: Option<u64>, b: &str, b_count: Option<u64>) -> bool {
    let digits_after = |long: &str, short: &str| {
        long.strip_prefix(short)
            .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|c| c.is_ascii_digit()))
    };
    (a_count.is_some() && digits_after(b, a)) || (b_count.is_some() && digits_after(a, b))
}

fn contains(outer: &TextRange, inner: &TextRange) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

/// Whether `name` is a valid register (`%name`) or identifier.
fn is_valid_name(name: &str, register: bool) -> bool {
    let body_ok = |s: &str| {
        s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
    };
    if register {
        return name
            .strip_prefix('%')
            .is_some_and(|rest| !rest.is_empty() && body_ok(rest));
    }
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() => body_ok(chars.as_str()),
        Some('_' | '$') => !chars.as_str().is_empty() && body_ok(chars.as_str()),
        _ => false,
    }
}

#[cfg(test)]
#[path = "navigation_tests.rs"]
mod tests;
