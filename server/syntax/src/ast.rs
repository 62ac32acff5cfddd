//! Typed views over the syntax tree.
//!
//! Each view is a cheap `Copy` wrapper around a tree-sitter node and the
//! source text. Accessors return `Option`s and empty lists where the tree has
//! errors, so every analysis can work on broken code.

use tree_sitter::Node;

use crate::kinds::{self as k, NodeExt as _};
use crate::TextRange;

/// A piece of source text with its byte range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    pub text: &'a str,
    pub start: usize,
    pub end: usize,
}

impl<'a> Token<'a> {
    fn of(node: Node<'_>, src: &'a str) -> Self {
        Token {
            text: &src[node.byte_range()],
            start: node.start_byte(),
            end: node.end_byte(),
        }
    }

    pub fn range(&self) -> TextRange {
        self.start..self.end
    }
}

fn text<'a>(node: Node<'_>, src: &'a str) -> &'a str {
    &src[node.byte_range()]
}

fn named_children<'t>(node: Node<'t>) -> NamedChildren<'t> {
    NamedChildren {
        cursor: (node.named_child_count() > 0).then(|| node.walk()),
        started: false,
    }
}

/// The named children of a node, read with one cursor (no list is built).
struct NamedChildren<'t> {
    /// `None` once done, or from the start for a node without named children.
    cursor: Option<tree_sitter::TreeCursor<'t>>,
    started: bool,
}

impl<'t> Iterator for NamedChildren<'t> {
    type Item = Node<'t>;

    fn next(&mut self) -> Option<Node<'t>> {
        let cursor = self.cursor.as_mut()?;
        loop {
            let moved = if self.started {
                cursor.goto_next_sibling()
            } else {
                self.started = true;
                cursor.goto_first_child()
            };
            if !moved {
                self.cursor = None;
                return None;
            }
            let node = cursor.node();
            if node.is_named() {
                return Some(node);
            }
        }
    }
}

/// Every node of kind `kind` inside `root` (itself included), outermost first in source
/// order, without looking inside a match.
fn collect_kind<'a>(root: Node<'a>, kind: &str, src: &'a str, out: &mut Vec<Token<'a>>) {
    if root.kind_name() == kind {
        out.push(Token::of(root, src));
        return;
    }
    if root.named_child_count() == 0 {
        return;
    }
    let mut cursor = root.walk();
    if !cursor.goto_first_child() {
        return;
    }
    loop {
        let node = cursor.node();
        let descend = if !node.is_named() {
            false
        } else if node.kind_name() == kind {
            out.push(Token::of(node, src));
            false
        } else {
            node.named_child_count() > 0
        };
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() || cursor.node() == root {
                return;
            }
        }
    }
}

macro_rules! view {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy)]
        pub struct $name<'a> {
            node: Node<'a>,
            src: &'a str,
        }

        impl<'a> $name<'a> {
            /// The byte range of the whole construct.
            pub fn range(&self) -> TextRange {
                self.node.byte_range()
            }

            /// The source text of the whole construct.
            pub fn text(&self) -> &'a str {
                text(self.node, self.src)
            }
        }
    };
}

/// A whole PTX file (or snippet): one tree, or the chunks of a parallel parse read as one.
#[derive(Debug, Clone, Copy)]
pub struct Module<'a> {
    node: Node<'a>,
    /// The root nodes of the further chunks come from these trees.
    more: &'a [tree_sitter::Tree],
    src: &'a str,
}
view!(
    /// An `.entry` or `.func`, with or without a body.
    Function
);
view!(
    /// `{ ... }`: a function body or a nested scope.
    Block
);
view!(
    /// One instruction statement, with its guard, opcode and operands.
    Instruction
);
view!(
    /// `name:`
    Label
);
view!(
    /// A variable or register declaration (`.reg .b32 %r<4>;`, `.global ...`), or a parameter.
    VariableDecl
);
view!(
    /// One declared name of a declaration, with its count, dimensions and initializer.
    Declarator
);
view!(
    /// Any directive statement that is neither a function nor a variable.
    Directive
);

impl<'a> Module<'a> {
    pub(crate) fn new(node: Node<'a>, more: &'a [tree_sitter::Tree], src: &'a str) -> Self {
        // The root is a `module`, or an ERROR node when nothing of the text parses (a lone
        // fragment being typed); both are read the same way.
        debug_assert!(node.kind_name() == k::MODULE || node.is_error());
        Module { node, more, src }
    }

    /// The byte range of the whole module.
    pub fn range(&self) -> TextRange {
        match self.more.last() {
            Some(last) => self.node.start_byte()..last.root_node().end_byte(),
            None => self.node.byte_range(),
        }
    }

    /// The source text of the whole module.
    pub fn text(&self) -> &'a str {
        &self.src[self.range()]
    }

    fn roots(&self) -> impl Iterator<Item = Node<'a>> + 'a {
        std::iter::once(self.node).chain(self.more.iter().map(|t| t.root_node()))
    }

    /// Every top-level item in source order.
    pub fn items(&self) -> Vec<Item<'a>> {
        let src = self.src;
        self.roots()
            .flat_map(named_children)
            .filter_map(|node| Item::cast(node, src))
            .collect()
    }

    /// The functions (entries and device functions), defined or declared.
    pub fn functions(&self) -> Vec<Function<'a>> {
        self.items()
            .into_iter()
            .filter_map(|item| match item {
                Item::Function(function) => Some(function),
                _ => None,
            })
            .collect()
    }

    /// Directives of the given kind at the top level, in order.
    pub fn directives(&self, kind: DirectiveKind) -> Vec<Directive<'a>> {
        self.items()
            .into_iter()
            .filter_map(|item| match item {
                Item::Directive(directive) if directive.kind() == kind => Some(directive),
                _ => None,
            })
            .collect()
    }

    /// Statements written outside any function (snippets).
    pub fn top_level_statements(&self) -> Vec<Statement<'a>> {
        self.items()
            .into_iter()
            .filter_map(|item| match item {
                Item::Statement(statement) => Some(statement),
                _ => None,
            })
            .collect()
    }

    /// Every instruction in the file, in source order, including nested blocks.
    pub fn instructions(&self) -> Vec<Instruction<'a>> {
        let mut out = Vec::new();
        for root in self.roots() {
            collect_instructions(root, self.src, &mut out);
        }
        out
    }

    /// The instructions that overlap or touch `range`, in source order: only the parts of
    /// the tree around the range are visited, so a viewport of a large file costs the
    /// viewport (and the top-level items' count), not the file.
    pub fn instructions_in(&self, range: TextRange) -> Vec<Instruction<'a>> {
        let touches =
            |node: Node<'_>| node.start_byte() <= range.end && range.start <= node.end_byte();
        let mut out = Vec::new();
        // An explicit stack of the containers being walked, each with its children still to
        // visit (nesting depth is the input's to choose); a container is walked as soon as it
        // is met, so the instructions come out in source order.
        for root in self.roots().filter(|root| touches(*root)) {
            let mut stack = vec![named_children(root)];
            while let Some(children) = stack.last_mut() {
                let Some(child) = children.next() else {
                    stack.pop();
                    continue;
                };
                if child.start_byte() > range.end {
                    stack.pop();
                    continue;
                }
                if !touches(child) {
                    continue;
                }
                match child.kind_name() {
                    k::INSTRUCTION => out.push(Instruction {
                        node: child,
                        src: self.src,
                    }),
                    k::FUNCTION_DEFINITION | k::BLOCK => stack.push(named_children(child)),
                    _ if child.is_error() => stack.push(named_children(child)),
                    _ => {}
                }
            }
        }
        out
    }
}

fn collect_instructions<'a>(node: Node<'a>, src: &'a str, out: &mut Vec<Instruction<'a>>) {
    for child in named_children(node) {
        match child.kind_name() {
            k::INSTRUCTION => out.push(Instruction { node: child, src }),
            k::FUNCTION_DEFINITION | k::BLOCK => collect_instructions(child, src, out),
            _ if child.is_error() => collect_instructions(child, src, out),
            _ => {}
        }
    }
}

/// A top-level item of a module.
#[derive(Debug, Clone, Copy)]
pub enum Item<'a> {
    Function(Function<'a>),
    Variable(VariableDecl<'a>),
    Directive(Directive<'a>),
    Statement(Statement<'a>),
}

impl<'a> Item<'a> {
    fn cast(node: Node<'a>, src: &'a str) -> Option<Self> {
        Some(match node.kind_name() {
            k::FUNCTION_DEFINITION | k::FUNCTION_DECLARATION => {
                Item::Function(Function { node, src })
            }
            k::VARIABLE_DECLARATION => Item::Variable(VariableDecl { node, src }),
            _ => match Statement::cast(node, src)? {
                Statement::Directive(directive) => Item::Directive(directive),
                statement => Item::Statement(statement),
            },
        })
    }

    /// The item's text range.
    pub fn range(&self) -> TextRange {
        match self {
            Item::Function(function) => function.range(),
            Item::Variable(decl) => decl.range(),
            Item::Directive(directive) => directive.range(),
            Item::Statement(statement) => statement.range(),
        }
    }
}

/// `.entry` or `.func`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionKind {
    Entry,
    Func,
}

impl<'a> Function<'a> {
    /// The instructions of the body, in text order (nested blocks included).
    pub fn instructions(&self) -> Vec<Instruction<'a>> {
        let mut out = Vec::new();
        collect_instructions(self.node, self.src, &mut out);
        out
    }

    /// `.entry` or `.func`.
    pub fn kind(&self) -> FunctionKind {
        match self.node.field(k::FIELD_KIND).map(|n| n.kind_name()) {
            Some(".entry") => FunctionKind::Entry,
            _ => FunctionKind::Func,
        }
    }

    /// The `.entry`/`.func` keyword.
    pub fn kind_token(&self) -> Option<Token<'a>> {
        self.field_token(k::FIELD_KIND)
    }

    pub fn name(&self) -> Option<Token<'a>> {
        self.field_token(k::FIELD_NAME)
    }

    /// `.visible`, `.extern`, `.weak` ...
    pub fn linkage(&self) -> Vec<Token<'a>> {
        let mut cursor = self.node.walk();
        self.node
            .fields("linkage", &mut cursor)
            .map(|n| Token::of(n, self.src))
            .collect()
    }

    pub fn parameters(&self) -> Vec<VariableDecl<'a>> {
        self.parameter_list(k::FIELD_PARAMETERS)
    }

    pub fn return_parameters(&self) -> Vec<VariableDecl<'a>> {
        self.parameter_list(k::FIELD_RETURN_PARAMETERS)
    }

    /// `.maxntid 128, 1, 1` and friends: the directive and its values.
    pub fn attributes(&self) -> Vec<(Token<'a>, Vec<Token<'a>>)> {
        function_attributes(self.node, self.src)
    }

    /// The body, or `None` for a declaration (`.extern .func f();`).
    pub fn body(&self) -> Option<Block<'a>> {
        let node = self.node.field(k::FIELD_BODY)?;
        Some(Block {
            node,
            src: self.src,
        })
    }

    fn field_token(&self, field: &str) -> Option<Token<'a>> {
        Some(Token::of(self.node.field(field)?, self.src))
    }

    fn parameter_list(&self, field: &str) -> Vec<VariableDecl<'a>> {
        let Some(list) = self.node.field(field) else {
            return Vec::new();
        };
        named_children(list)
            .filter(|n| n.kind_name() == k::PARAMETER_DECLARATION)
            .map(|node| VariableDecl {
                node,
                src: self.src,
            })
            .collect()
    }
}

/// A statement inside a block (or at the top level of a snippet).
#[derive(Debug, Clone, Copy)]
pub enum Statement<'a> {
    Instruction(Instruction<'a>),
    Label(Label<'a>),
    Variable(VariableDecl<'a>),
    Block(Block<'a>),
    Directive(Directive<'a>),
}

impl<'a> Statement<'a> {
    fn cast(node: Node<'a>, src: &'a str) -> Option<Self> {
        Some(match node.kind_name() {
            k::INSTRUCTION => Statement::Instruction(Instruction { node, src }),
            k::LABEL_DECLARATION => Statement::Label(Label { node, src }),
            k::VARIABLE_DECLARATION => Statement::Variable(VariableDecl { node, src }),
            k::BLOCK => Statement::Block(Block { node, src }),
            _ => Statement::Directive(Directive::cast(node, src)?),
        })
    }

    pub fn range(&self) -> TextRange {
        match self {
            Statement::Instruction(s) => s.range(),
            Statement::Label(s) => s.range(),
            Statement::Variable(s) => s.range(),
            Statement::Block(s) => s.range(),
            Statement::Directive(s) => s.range(),
        }
    }
}

impl<'a> Block<'a> {
    /// The statements directly inside this block, in order.
    pub fn statements(&self) -> Vec<Statement<'a>> {
        named_children(self.node)
            .filter_map(|node| Statement::cast(node, self.src))
            .collect()
    }
}

impl<'a> Label<'a> {
    pub fn name(&self) -> Option<Token<'a>> {
        Some(Token::of(self.node.field(k::FIELD_NAME)?, self.src))
    }
}

/// The kinds of directive statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirectiveKind {
    Version,
    Target,
    AddressSize,
    File,
    Loc,
    Section,
    Dwarf,
    Alias,
    Pragma,
    CallPrototype,
    BranchTargets,
    CallTargets,
}

impl<'a> Directive<'a> {
    fn cast(node: Node<'a>, src: &'a str) -> Option<Self> {
        directive_kind(node.kind_name())?;
        Some(Directive { node, src })
    }

    pub fn kind(&self) -> DirectiveKind {
        directive_kind(self.node.kind_name()).expect("checked when cast")
    }

    /// The directive keyword itself (`.version`, `.loc`, ...).
    pub fn keyword(&self) -> Token<'a> {
        let first = self.node.child(0).unwrap_or(self.node);
        Token::of(first, self.src)
    }

    /// The value of `.version` (e.g. `9.1`) or `.address_size` (e.g. `64`).
    pub fn value(&self) -> Option<Token<'a>> {
        let field = match self.kind() {
            DirectiveKind::Version => k::FIELD_VERSION,
            DirectiveKind::AddressSize => k::FIELD_SIZE,
            _ => return None,
        };
        Some(Token::of(self.node.field(field)?, self.src))
    }

    /// The targets of `.target sm_90a, texmode_independent`.
    pub fn targets(&self) -> Vec<Token<'a>> {
        let mut cursor = self.node.walk();
        self.node
            .fields(k::FIELD_TARGET, &mut cursor)
            .map(|n| Token::of(n, self.src))
            .collect()
    }

    /// The return parameters and parameters of a `.callprototype` (empty for other directives).
    pub fn prototype(&self) -> (Vec<VariableDecl<'a>>, Vec<VariableDecl<'a>>) {
        let list = |field: &str| -> Vec<VariableDecl<'a>> {
            let Some(list) = self.node.field(field) else {
                return Vec::new();
            };
            named_children(list)
                .filter(|n| n.kind_name() == k::PARAMETER_DECLARATION)
                .map(|node| VariableDecl {
                    node,
                    src: self.src,
                })
                .collect()
        };
        if self.kind() != DirectiveKind::CallPrototype {
            return (Vec::new(), Vec::new());
        }
        (list(k::FIELD_RETURN_PARAMETERS), list(k::FIELD_PARAMETERS))
    }

    /// The directives after a `.callprototype`'s parameters (`.abi_preserve 4`), as
    /// [`Function::attributes`] gives a function's.
    pub fn attributes(&self) -> Vec<(Token<'a>, Vec<Token<'a>>)> {
        function_attributes(self.node, self.src)
    }

    /// Identifiers listed by `.branchtargets`, `.calltargets` and `.alias`.
    pub fn names(&self) -> Vec<Token<'a>> {
        named_children(self.node)
            .filter(|n| n.kind_name() == k::IDENTIFIER)
            .map(|n| Token::of(n, self.src))
            .collect()
    }
}

fn directive_kind(kind: &str) -> Option<DirectiveKind> {
    Some(match kind {
        k::VERSION_DIRECTIVE => DirectiveKind::Version,
        k::TARGET_DIRECTIVE => DirectiveKind::Target,
        k::ADDRESS_SIZE_DIRECTIVE => DirectiveKind::AddressSize,
        k::FILE_DIRECTIVE => DirectiveKind::File,
        k::LOC_DIRECTIVE => DirectiveKind::Loc,
        k::SECTION_DIRECTIVE => DirectiveKind::Section,
        k::DWARF_DIRECTIVE => DirectiveKind::Dwarf,
        k::ALIAS_DIRECTIVE => DirectiveKind::Alias,
        k::PRAGMA_DIRECTIVE => DirectiveKind::Pragma,
        k::CALLPROTOTYPE_DIRECTIVE => DirectiveKind::CallPrototype,
        k::BRANCHTARGETS_DIRECTIVE => DirectiveKind::BranchTargets,
        k::CALLTARGETS_DIRECTIVE => DirectiveKind::CallTargets,
        _ => return None,
    })
}

impl<'a> VariableDecl<'a> {
    /// The state space (`.reg`, `.global`, `.param` ...), if written.
    pub fn state_space(&self) -> Option<Token<'a>> {
        self.first_child(k::STATE_SPACE)
    }

    /// The element type (`.b32`, `.f16x2`, `.pred` ...), if written.
    pub fn ty(&self) -> Option<Token<'a>> {
        self.first_child(k::TYPE)
    }

    /// `.v2`, `.v4` or `.v8`, if written.
    pub fn vector(&self) -> Option<Token<'a>> {
        self.first_child(k::VECTOR_TYPE)
    }

    /// The byte alignment of `.align N`, if written.
    pub fn alignment(&self) -> Option<Token<'a>> {
        let node = named_children(self.node).find(|n| n.kind_name() == k::ALIGNMENT)?;
        Some(Token::of(node.field(k::FIELD_BYTES)?, self.src))
    }

    /// The `.ptr` attribute of a kernel parameter (5.1.6.3), if written.
    pub fn ptr_attribute(&self) -> Option<Token<'a>> {
        self.first_child(k::PTR_ATTRIBUTE)
    }

    /// The attributes of `.attribute(.managed)` (`.managed`), in order.
    pub fn attributes(&self) -> Vec<Token<'a>> {
        named_children(self.node)
            .filter(|n| n.kind_name() == k::ATTRIBUTE_DIRECTIVE)
            .flat_map(named_children)
            .filter(|n| n.kind_name() == k::ATTRIBUTE)
            .map(|n| Token::of(n, self.src))
            .collect()
    }

    /// Linkage directives (`.extern`, `.visible` ...).
    pub fn linkage(&self) -> Vec<Token<'a>> {
        named_children(self.node)
            .filter(|n| n.kind_name() == k::LINKAGE)
            .map(|n| Token::of(n, self.src))
            .collect()
    }

    pub fn declarators(&self) -> Vec<Declarator<'a>> {
        named_children(self.node)
            .filter(|n| n.kind_name() == k::DECLARATOR)
            .map(|node| Declarator {
                node,
                src: self.src,
            })
            .collect()
    }

    /// The state space, type, vector, linkage and declarators at once (one walk over the
    /// children instead of one per accessor).
    pub fn parts(&self) -> DeclParts<'a> {
        let mut parts = DeclParts {
            state_space: None,
            alignment: None,
            ty: None,
            vector: None,
            linkage: Vec::new(),
            declarators: Vec::new(),
        };
        for node in named_children(self.node) {
            let kind = node.kind_name();
            if kind == k::DECLARATOR {
                parts.declarators.push(Declarator {
                    node,
                    src: self.src,
                });
            } else if kind == k::LINKAGE {
                parts.linkage.push(Token::of(node, self.src));
            } else if kind == k::STATE_SPACE {
                parts.state_space.get_or_insert(Token::of(node, self.src));
            } else if kind == k::TYPE {
                parts.ty.get_or_insert(Token::of(node, self.src));
            } else if kind == k::VECTOR_TYPE {
                parts.vector.get_or_insert(Token::of(node, self.src));
            } else if kind == k::ALIGNMENT && parts.alignment.is_none() {
                parts.alignment = node.field(k::FIELD_BYTES).map(|n| Token::of(n, self.src));
            }
        }
        parts
    }

    fn first_child(&self, kind: &str) -> Option<Token<'a>> {
        let node = named_children(self.node).find(|n| n.kind_name() == kind)?;
        Some(Token::of(node, self.src))
    }
}

impl<'a> Declarator<'a> {
    pub fn name(&self) -> Option<Token<'a>> {
        Some(Token::of(self.node.field(k::FIELD_NAME)?, self.src))
    }

    /// `N` of a parameterized register name `%r<N>`.
    pub fn count(&self) -> Option<u64> {
        let node = self.node.field(k::FIELD_COUNT)?;
        parse_integer(text(node, self.src))
    }

    /// The `N` token of `%r<N>`, for edits that widen the declaration.
    pub fn count_token(&self) -> Option<Token<'a>> {
        Some(Token::of(self.node.field(k::FIELD_COUNT)?, self.src))
    }

    /// The declared names: `%r0 … %r{N-1}` for `%r<N>`, else the name itself.
    pub fn expanded_names(&self) -> Vec<String> {
        let Some(name) = self.name() else {
            return Vec::new();
        };
        match self.count() {
            Some(count) => (0..count.min(1 << 20))
                .map(|i| format!("{}{i}", name.text))
                .collect(),
            None => vec![name.text.to_owned()],
        }
    }

    /// Array dimensions; `None` for an unsized `[]`.
    pub fn dimensions(&self) -> Vec<Option<Token<'a>>> {
        let mut cursor = self.node.walk();
        self.node
            .fields(k::FIELD_DIMENSION, &mut cursor)
            .map(|dim| dim.field(k::FIELD_SIZE).map(|n| Token::of(n, self.src)))
            .collect()
    }

    /// The initializer, if any.
    pub fn initializer(&self) -> Option<Token<'a>> {
        Some(Token::of(self.node.field(k::FIELD_VALUE)?, self.src))
    }
}

/// `@%p` or `@!%p` in front of an instruction.
#[derive(Debug, Clone)]
pub struct Guard<'a> {
    pub negated: bool,
    pub predicate: Token<'a>,
    pub range: TextRange,
}

impl<'a> Instruction<'a> {
    pub fn guard(&self) -> Option<Guard<'a>> {
        let node = self.node.field(k::FIELD_GUARD)?;
        Some(Guard {
            negated: node.field(k::FIELD_NEGATED).is_some(),
            predicate: Token::of(node.field(k::FIELD_PREDICATE)?, self.src),
            range: node.byte_range(),
        })
    }

    /// The first word of the opcode: `ld` in `ld.global.f32`.
    pub fn mnemonic(&self) -> Option<Token<'a>> {
        let node = self.node.field(k::FIELD_MNEMONIC)?;
        Some(Token::of(node, self.src))
    }

    /// Each `.qualifier` of the opcode, in order, with its own range.
    pub fn qualifiers(&self) -> Vec<Token<'a>> {
        let mut cursor = self.node.walk();
        self.node
            .fields(k::FIELD_QUALIFIER, &mut cursor)
            .map(|n| Token::of(n, self.src))
            .collect()
    }

    /// The whole dotted opcode: `ld.global.v4.f32` (the mnemonic through the
    /// last qualifier; the grammar has no node of its own for it). Its text keeps any blanks
    /// written between the parts (`mov .s32`); [`Instruction::opcode_name`] drops them.
    pub fn opcode(&self) -> Option<Token<'a>> {
        let mnemonic = self.node.field(k::FIELD_MNEMONIC)?;
        let end = self
            .qualifiers()
            .last()
            .map_or(mnemonic.end_byte(), |q| q.end);
        let start = mnemonic.start_byte();
        Some(Token {
            text: &self.src[start..end],
            start,
            end,
        })
    }

    /// The opcode as one name, without the blanks that may stand before its qualifiers
    /// (`mov.s32` for `mov .s32`).
    pub fn opcode_name(&self) -> Option<std::borrow::Cow<'a, str>> {
        let opcode = self.opcode()?;
        if !opcode.text.bytes().any(|b| b.is_ascii_whitespace()) {
            return Some(std::borrow::Cow::Borrowed(opcode.text));
        }
        let mut name = String::with_capacity(opcode.text.len());
        name.push_str(self.mnemonic()?.text);
        for q in self.qualifiers() {
            name.push_str(q.text);
        }
        Some(std::borrow::Cow::Owned(name))
    }

    /// The operands, in order.
    pub fn operands(&self) -> Vec<Operand<'a>> {
        let Some(list) = self.node.field(k::FIELD_OPERANDS) else {
            return Vec::new();
        };
        named_children(list)
            .filter(|n| n.kind_name() != k::COMMENT)
            .map(|node| Operand::new(node, self.src))
            .collect()
    }

    /// Whether the statement contains a syntax error or a missing token.
    pub fn has_error(&self) -> bool {
        self.node.has_error()
    }

    /// The guard, mnemonic, qualifiers and operands at once (one walk over the children
    /// instead of one per accessor); the same as [`Instruction::guard`],
    /// [`Instruction::mnemonic`], [`Instruction::qualifiers`] and [`Instruction::operands`].
    pub fn parts(&self) -> InstructionParts<'a> {
        if let Some(parts) = self.parts_from_text() {
            return parts;
        }
        let mut parts = InstructionParts::empty();
        let mut cursor = self.node.walk();
        if !cursor.goto_first_child() {
            return parts;
        }
        let ids = crate::kinds::field_ids();
        loop {
            let field = cursor.field_id();
            if field == ids.qualifier {
                parts.qualifiers.push(Token::of(cursor.node(), self.src));
            } else if field == ids.mnemonic {
                parts.mnemonic = Some(Token::of(cursor.node(), self.src));
            } else if field == ids.operands {
                if parts.operands.is_empty() {
                    parts.read_operands(&mut cursor, self.src);
                }
            } else if field == ids.guard && parts.guard.is_none() {
                parts.guard = self.guard();
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
        parts
    }
}

impl<'a> Instruction<'a> {
    /// [`Instruction::parts`] of a clean instruction without a guard: the mnemonic and the
    /// qualifiers are read from the text (an identifier, then `.word(::word)*` tokens with
    /// nothing or blanks between them, as the grammar's tokens are), and only the operand list from
    /// the tree. `None` where that does not apply.
    fn parts_from_text(&self) -> Option<InstructionParts<'a>> {
        if self.node.has_error() {
            return None;
        }
        let start = self.node.start_byte();
        let end = self.node.end_byte();
        let text = &self.src[start..end];
        let bytes = text.as_bytes();
        let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        // The identifier regex: a letter, or `_`/`$` and at least one more character.
        match bytes.first()? {
            b if b.is_ascii_alphabetic() => {}
            b'_' | b'$' if bytes.get(1).is_some_and(|&b| word(b) || b == b'$') => {}
            _ => return None,
        }
        let mut pos = 1 + bytes[1..]
            .iter()
            .take_while(|&&b| word(b) || b == b'$')
            .count();
        let mnemonic = Token {
            text: &text[..pos],
            start,
            end: start + pos,
        };
        let mut qualifiers = Vec::new();
        loop {
            // Blanks may stand before a qualifier (`mov .s32 d, a;`): an operand never
            // starts with a dot, so a dot after them is the next qualifier.
            let blanks = bytes[pos..]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
            match bytes.get(pos + blanks) {
                Some(b'.') => {}
                // A comment may stand between qualifiers too: the tree has them.
                Some(b'/')
                    if bytes
                        .get(pos + blanks + 1)
                        .is_some_and(|b| matches!(b, b'/' | b'*')) =>
                {
                    return None
                }
                _ => break,
            }
            pos += blanks;
            let run = |from: usize| bytes[from..].iter().take_while(|&&b| word(b)).count();
            let first = run(pos + 1);
            if first == 0 {
                return None;
            }
            let mut q_end = pos + 1 + first;
            while bytes[q_end..].starts_with(b"::") {
                let more = run(q_end + 2);
                if more == 0 {
                    break;
                }
                q_end += 2 + more;
            }
            qualifiers.push(Token {
                text: &text[pos..q_end],
                start: start + pos,
                end: start + q_end,
            });
            pos = q_end;
        }
        let mut parts = InstructionParts::empty();
        parts.mnemonic = Some(mnemonic);
        parts.qualifiers = qualifiers;
        if bytes.last() == Some(&b';') {
            if let Some(operands) = lex_operands(self.src, start + pos, end - 1) {
                for (index, operand) in operands.iter().enumerate() {
                    let Repr::Text { start, end, shape } = operand.repr else {
                        continue;
                    };
                    let token = Token {
                        text: &self.src[start..end],
                        start,
                        end,
                    };
                    match shape {
                        Shape::Register => parts.registers.push((index, token)),
                        Shape::Identifier => parts.identifiers.push((index, token)),
                        Shape::Integer => {}
                        _ => {
                            for token in operand.registers() {
                                parts.registers.push((index, token));
                            }
                            for token in operand.identifiers() {
                                parts.identifiers.push((index, token));
                            }
                        }
                    }
                }
                parts.operands = operands;
                return Some(parts);
            }
        }
        let mut cursor = self.node.walk();
        if cursor.goto_first_child_for_byte(start + pos).is_some() {
            let field = crate::kinds::field_ids().operands;
            loop {
                if cursor.field_id() == field {
                    parts.read_operands(&mut cursor, self.src);
                    break;
                }
                if !cursor.goto_next_sibling() {
                    break;
                }
            }
        }
        Some(parts)
    }
}

/// A declaration's parts, read at once by [`VariableDecl::parts`].
#[derive(Debug, Clone)]
pub struct DeclParts<'a> {
    pub state_space: Option<Token<'a>>,
    /// The byte count of `.align N`, if written.
    pub alignment: Option<Token<'a>>,
    pub ty: Option<Token<'a>>,
    pub vector: Option<Token<'a>>,
    pub linkage: Vec<Token<'a>>,
    pub declarators: Vec<Declarator<'a>>,
}

/// An instruction's parts, read at once by [`Instruction::parts`].
#[derive(Debug, Clone)]
pub struct InstructionParts<'a> {
    pub guard: Option<Guard<'a>>,
    pub mnemonic: Option<Token<'a>>,
    pub qualifiers: Vec<Token<'a>>,
    pub operands: Vec<Operand<'a>>,
    /// Each operand's [`Operand::registers`], as (operand index, register), in order.
    pub registers: Vec<(usize, Token<'a>)>,
    /// Each operand's [`Operand::identifiers`], as (operand index, identifier), in order.
    pub identifiers: Vec<(usize, Token<'a>)>,
}

impl<'a> InstructionParts<'a> {
    fn empty() -> Self {
        InstructionParts {
            guard: None,
            mnemonic: None,
            qualifiers: Vec::new(),
            operands: Vec::new(),
            registers: Vec::new(),
            identifiers: Vec::new(),
        }
    }

    /// Adds the operands of an `operand_list` node under `cursor` with the registers and
    /// identifiers inside them, in one walk; the cursor ends on the list again.
    fn read_operands(&mut self, cursor: &mut tree_sitter::TreeCursor<'a>, src: &'a str) {
        if !cursor.goto_first_child() {
            return;
        }
        loop {
            let node = cursor.node();
            if node.is_named() && node.kind_name() != k::COMMENT {
                let index = self.operands.len();
                self.operands.push(Operand::new(node, src));
                self.read_names(cursor, index, src);
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
        cursor.goto_parent();
    }

    /// The registers and identifiers inside the node under `cursor` (itself included),
    /// without looking inside one; the cursor ends where it started.
    fn read_names(&mut self, cursor: &mut tree_sitter::TreeCursor<'a>, index: usize, src: &'a str) {
        let mut depth = 0usize;
        loop {
            let node = cursor.node();
            let kind = node.kind_name();
            let descend = if depth > 0 && !node.is_named() {
                false
            } else if kind == k::REGISTER {
                self.registers.push((index, Token::of(node, src)));
                false
            } else if kind == k::IDENTIFIER {
                self.identifiers.push((index, Token::of(node, src)));
                false
            } else {
                node.named_child_count() > 0
            };
            if descend && cursor.goto_first_child() {
                depth += 1;
                continue;
            }
            loop {
                if depth == 0 {
                    return;
                }
                if cursor.goto_next_sibling() {
                    break;
                }
                cursor.goto_parent();
                depth -= 1;
            }
        }
    }
}

/// One operand of an instruction (or an element of a vector or address).
#[derive(Clone, Copy)]
pub struct Operand<'a> {
    repr: Repr<'a>,
    src: &'a str,
}

impl std::fmt::Debug for Operand<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Operand")
            .field("repr", &self.repr)
            .field("text", &self.text())
            .finish()
    }
}

/// Where an operand's structure comes from: its node, or (for the plain shapes that make up
/// most of compiler output) the text, read by [`lex_operands`] exactly as the grammar
/// reads it, which costs far less than walking the nodes.
#[derive(Debug, Clone, Copy)]
enum Repr<'a> {
    Node(Node<'a>),
    Text {
        start: usize,
        end: usize,
        shape: Shape,
    },
}

/// The shapes of text-read operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `%r1`
    Register,
    /// `name`
    Identifier,
    /// `42`, `0x1F`, `017`, `42U`
    Integer,
    /// `{%r1, %r2}`: registers only.
    Vector,
    /// `[base]` or `[base+offset]`.
    Address,
    /// `base+offset` inside an address: a binary expression; `plus` is the `+`'s offset.
    Sum { plus: usize },
}

/// Reads the operands of an instruction from `src[from..to]` (the text between the opcode
/// and the `;`) when every operand has one of the plain [`Shape`]s, with nothing but blanks
/// between the tokens; `None` otherwise (the caller reads the tree instead).
fn lex_operands(src: &str, from: usize, to: usize) -> Option<Vec<Operand<'_>>> {
    let bytes = src.as_bytes();
    let region = &bytes[from..to];
    let allowed = |b: u8| {
        b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'_' | b'$'
                    | b'%'
                    | b','
                    | b'['
                    | b']'
                    | b'{'
                    | b'}'
                    | b'+'
                    | b' '
                    | b'\t'
                    | b'\r'
                    | b'\n'
            )
    };
    if !region.iter().all(|&b| allowed(b)) {
        return None;
    }
    let mut lexer = OperandLexer {
        bytes,
        pos: from,
        end: to,
    };
    let mut out = Vec::new();
    lexer.blanks();
    if lexer.pos == to {
        return Some(out);
    }
    loop {
        let (start, end, shape) = lexer.operand()?;
        out.push(Operand {
            repr: Repr::Text { start, end, shape },
            src,
        });
        lexer.blanks();
        if lexer.pos == to {
            return Some(out);
        }
        lexer.expect(b',')?;
        lexer.blanks();
    }
}

struct OperandLexer<'s> {
    bytes: &'s [u8],
    pos: usize,
    end: usize,
}

impl OperandLexer<'_> {
    fn peek(&self) -> Option<u8> {
        (self.pos < self.end).then(|| self.bytes[self.pos])
    }

    fn blanks(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.peek() == Some(byte)).then(|| self.pos += 1)
    }

    fn run(&self, from: usize, accept: impl Fn(u8) -> bool) -> usize {
        self.bytes[from..self.end]
            .iter()
            .take_while(|&&b| accept(b))
            .count()
    }

    /// A register, identifier or integer literal (the grammar's token regexes).
    fn atom(&mut self) -> Option<(usize, usize, Shape)> {
        let start = self.pos;
        let name = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
        let first = self.peek()?;
        let (len, shape) = if first == b'%' {
            (1 + self.run(start + 1, name), Shape::Register)
        } else if first.is_ascii_alphabetic() {
            (self.run(start, name), Shape::Identifier)
        } else if first == b'_' || first == b'$' {
            let len = self.run(start, name);
            if len < 2 {
                return None;
            }
            (len, Shape::Identifier)
        } else if first.is_ascii_digit() {
            let hex = first == b'0'
                && matches!(self.bytes.get(start + 1), Some(b'x' | b'X'))
                && start + 2 < self.end;
            let mut len = if hex {
                let digits = self.run(start + 2, |b| b.is_ascii_hexdigit());
                if digits == 0 {
                    return None;
                }
                2 + digits
            } else if first == b'0' {
                1 + self.run(start + 1, |b| (b'0'..=b'7').contains(&b))
            } else {
                self.run(start, |b| b.is_ascii_digit())
            };
            if self.bytes.get(start + len) == Some(&b'U') && start + len < self.end {
                len += 1;
            }
            (len, Shape::Integer)
        } else {
            return None;
        };
        if len < 2 && shape == Shape::Register {
            return None;
        }
        let end = start + len;
        // The token must end where the grammar's would: not inside a longer word.
        if end < self.end && name(self.bytes[end]) {
            return None;
        }
        self.pos = end;
        Some((start, end, shape))
    }

    fn operand(&mut self) -> Option<(usize, usize, Shape)> {
        let start = self.pos;
        match self.peek()? {
            b'{' => {
                self.pos += 1;
                loop {
                    self.blanks();
                    let (_, _, shape) = self.atom()?;
                    if shape != Shape::Register {
                        return None;
                    }
                    self.blanks();
                    if self.expect(b',').is_some() {
                        continue;
                    }
                    self.expect(b'}')?;
                    return Some((start, self.pos, Shape::Vector));
                }
            }
            b'[' => {
                self.pos += 1;
                self.blanks();
                let (_, _, base) = self.atom()?;
                if base == Shape::Integer {
                    return None;
                }
                self.blanks();
                if self.expect(b'+').is_some() {
                    self.blanks();
                    let (_, _, offset) = self.atom()?;
                    if offset != Shape::Integer {
                        return None;
                    }
                    self.blanks();
                }
                self.expect(b']')?;
                Some((start, self.pos, Shape::Address))
            }
            _ => self.atom(),
        }
    }
}

/// What an operand is, syntactically.
#[derive(Debug, Clone, PartialEq)]
pub enum OperandKind<'a> {
    /// `%r1`, `%tid`
    Register(&'a str),
    /// `%tid.x`, `r2.b0`: a register and a component or selector.
    Component {
        register: &'a str,
        component: &'a str,
    },
    /// A label, function or variable name.
    Identifier(&'a str),
    /// An integer constant as written (`42`, `0x1f`, `-1` is [`OperandKind::Expression`]).
    Integer(&'a str),
    /// A floating-point constant (`1.5`, `0f3F800000`).
    Float(&'a str),
    /// `!%p`
    Negated,
    /// `%p|%q`
    Pair,
    /// `{%r1, %r2}`
    Vector,
    /// `[%rd1+8]`, `[tex, {%f1, %f2}]`
    Address { unified: bool },
    /// `(param0, param1)` of `call`.
    ArgumentList,
    /// `_`
    Sink,
    /// A constant expression (`-1`, `(1 << 4)`, `A[5]`).
    Expression,
}

/// The structure of a constant-expression operand (see [`Operand::expression`]).
#[derive(Debug, Clone, Copy)]
pub enum Expression<'a> {
    /// `-x`, `+x`, `!x`, `~x`
    Unary {
        operator: &'a str,
        operand: Operand<'a>,
    },
    /// `left op right` with a C operator (`%` without its trailing blank).
    Binary {
        left: Operand<'a>,
        operator: &'a str,
        right: Operand<'a>,
    },
    /// `condition ? consequence : alternative`
    Conditional {
        condition: Operand<'a>,
        consequence: Operand<'a>,
        alternative: Operand<'a>,
    },
    /// `(x)`
    Parenthesized(Operand<'a>),
    /// `A[i]`
    Subscript {
        array: Operand<'a>,
        index: Operand<'a>,
    },
}

impl<'a> Operand<'a> {
    fn new(node: Node<'a>, src: &'a str) -> Self {
        Operand {
            repr: Repr::Node(node),
            src,
        }
    }

    fn text_operand(&self, start: usize, end: usize, shape: Shape) -> Self {
        Operand {
            repr: Repr::Text { start, end, shape },
            src: self.src,
        }
    }

    pub fn range(&self) -> TextRange {
        match self.repr {
            Repr::Node(node) => node.byte_range(),
            Repr::Text { start, end, .. } => start..end,
        }
    }

    pub fn text(&self) -> &'a str {
        &self.src[self.range()]
    }

    /// The parts of a text-read address or sum: (base, `+` offset and offset).
    fn text_parts(&self) -> Option<(Operand<'a>, Option<(usize, Operand<'a>)>)> {
        let Repr::Text { start, end, shape } = self.repr else {
            return None;
        };
        let (from, to) = match shape {
            Shape::Address => (start + 1, end - 1),
            Shape::Sum { .. } => (start, end),
            _ => return None,
        };
        let inner = &self.src[from..to];
        let lead = inner.len() - inner.trim_start().len();
        let trail = inner.len() - inner.trim_end().len();
        let (from, to) = (from + lead, to - trail);
        let atom = |a: usize, b: usize| {
            let text = self.src[a..b].trim();
            let a = a + (self.src[a..b].len() - self.src[a..b].trim_start().len());
            let shape = match text.as_bytes()[0] {
                b'%' => Shape::Register,
                b'0'..=b'9' => Shape::Integer,
                _ => Shape::Identifier,
            };
            self.text_operand(a, a + text.len(), shape)
        };
        match self.src[from..to].find('+') {
            Some(at) => {
                let plus = from + at;
                if shape == Shape::Address {
                    let sum = self.text_operand(from, to, Shape::Sum { plus });
                    return Some((sum, None));
                }
                Some((atom(from, plus), Some((plus, atom(plus + 1, to)))))
            }
            None => Some((atom(from, to), None)),
        }
    }

    pub fn kind(&self) -> OperandKind<'a> {
        let node = match self.repr {
            Repr::Node(node) => node,
            Repr::Text { shape, .. } => {
                return match shape {
                    Shape::Register => OperandKind::Register(self.text()),
                    Shape::Identifier => OperandKind::Identifier(self.text()),
                    Shape::Integer => OperandKind::Integer(self.text()),
                    Shape::Vector => OperandKind::Vector,
                    Shape::Address => OperandKind::Address { unified: false },
                    Shape::Sum { .. } => OperandKind::Expression,
                }
            }
        };
        let field_text = |field: &str| node.field(field).map(|n| text(n, self.src)).unwrap_or("");
        match node.kind_name() {
            k::REGISTER => OperandKind::Register(self.text()),
            k::REGISTER_COMPONENT => OperandKind::Component {
                register: field_text(k::FIELD_REGISTER),
                component: field_text(k::FIELD_COMPONENT),
            },
            k::IDENTIFIER => OperandKind::Identifier(self.text()),
            k::INTEGER_LITERAL => OperandKind::Integer(self.text()),
            k::FLOAT_LITERAL => OperandKind::Float(self.text()),
            k::NEGATED_OPERAND => OperandKind::Negated,
            k::REGISTER_PAIR => OperandKind::Pair,
            k::VECTOR_OPERAND => OperandKind::Vector,
            k::ADDRESS_OPERAND => OperandKind::Address {
                unified: node.field(k::FIELD_SUFFIX).is_some(),
            },
            k::ARGUMENT_LIST => OperandKind::ArgumentList,
            k::SINK => OperandKind::Sink,
            _ => OperandKind::Expression,
        }
    }

    /// The parts of a compound operand: vector elements, address parts,
    /// call arguments, the two halves of a pair, the operand of `!`.
    pub fn elements(&self) -> Vec<Operand<'a>> {
        let node = match self.repr {
            Repr::Node(node) => node,
            Repr::Text { start, end, shape } => {
                return match shape {
                    Shape::Vector => {
                        let mut out = Vec::new();
                        let mut from = start + 1;
                        for piece in self.src[start + 1..end - 1].split(',') {
                            let lead = piece.len() - piece.trim_start().len();
                            let text = piece.trim();
                            out.push(self.text_operand(
                                from + lead,
                                from + lead + text.len(),
                                Shape::Register,
                            ));
                            from += piece.len() + 1;
                        }
                        out
                    }
                    Shape::Address => self
                        .text_parts()
                        .map(|(base, _)| vec![base])
                        .unwrap_or_default(),
                    _ => Vec::new(),
                };
            }
        };
        match node.kind_name() {
            k::NEGATED_OPERAND => node
                .field(k::FIELD_OPERAND)
                .map(|n| vec![Operand::new(n, self.src)])
                .unwrap_or_default(),
            k::REGISTER_PAIR => [k::FIELD_FIRST, k::FIELD_SECOND]
                .iter()
                .filter_map(|f| node.field(f))
                .map(|n| Operand::new(n, self.src))
                .collect(),
            k::VECTOR_OPERAND | k::ARGUMENT_LIST | k::ADDRESS_OPERAND => named_children(node)
                .filter(|n| n.kind_name() != k::COMMENT && n.kind_name() != k::QUALIFIER)
                .map(|n| Operand::new(n, self.src))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The integer value of a constant operand (`42`, `0x1f`, `-8`, `017`, `0b101`).
    pub fn integer_value(&self) -> Option<i128> {
        let node = match self.repr {
            Repr::Node(node) => node,
            Repr::Text {
                shape: Shape::Integer,
                ..
            } => return parse_integer(self.text()).map(i128::from),
            Repr::Text { .. } => return None,
        };
        match node.kind_name() {
            k::INTEGER_LITERAL => parse_integer(self.text()).map(i128::from),
            k::UNARY_EXPRESSION => {
                let op = node.field(k::FIELD_OPERATOR)?;
                let inner = Operand::new(node.field(k::FIELD_OPERAND)?, self.src);
                let value = inner.integer_value()?;
                match text(op, self.src) {
                    "-" => Some(-value),
                    "+" => Some(value),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The parts of a constant expression (`-8`, `a+4`, `(x)`, `c ? a : b`,
    /// `A[2]`), for evaluators; `None` for any other operand.
    pub fn expression(&self) -> Option<Expression<'a>> {
        let node = match self.repr {
            Repr::Node(node) => node,
            Repr::Text {
                shape: Shape::Sum { .. },
                ..
            } => {
                let (left, Some((_, right))) = self.text_parts()? else {
                    return None;
                };
                return Some(Expression::Binary {
                    left,
                    operator: "+",
                    right,
                });
            }
            Repr::Text { .. } => return None,
        };
        let field = |name: &str| Some(Operand::new(node.field(name)?, self.src));
        let operator = || Some(text(node.field(k::FIELD_OPERATOR)?, self.src));
        Some(match node.kind_name() {
            k::UNARY_EXPRESSION => Expression::Unary {
                operator: operator()?,
                operand: field(k::FIELD_OPERAND)?,
            },
            k::BINARY_EXPRESSION => Expression::Binary {
                left: field(k::FIELD_LEFT)?,
                operator: operator()?.trim_end(),
                right: field(k::FIELD_RIGHT)?,
            },
            k::CONDITIONAL_EXPRESSION => Expression::Conditional {
                condition: field(k::FIELD_CONDITION)?,
                consequence: field(k::FIELD_CONSEQUENCE)?,
                alternative: field(k::FIELD_ALTERNATIVE)?,
            },
            k::PARENTHESIZED_EXPRESSION => {
                Expression::Parenthesized(Operand::new(named_children(node).next()?, self.src))
            }
            k::SUBSCRIPT_EXPRESSION => Expression::Subscript {
                array: field(k::FIELD_ARRAY)?,
                index: field(k::FIELD_INDEX)?,
            },
            _ => return None,
        })
    }

    /// Every register named anywhere inside this operand, with its range.
    pub fn registers(&self) -> Vec<Token<'a>> {
        let mut out = Vec::new();
        self.collect_names(k::REGISTER, &mut out);
        out
    }

    /// Every register or identifier (`kind`) inside this operand.
    fn collect_names(&self, kind: &str, out: &mut Vec<Token<'a>>) {
        match self.repr {
            Repr::Node(node) => collect_kind(node, kind, self.src, out),
            Repr::Text { start, end, shape } => match shape {
                Shape::Register if kind == k::REGISTER => out.push(Token {
                    text: self.text(),
                    start,
                    end,
                }),
                Shape::Identifier if kind == k::IDENTIFIER => out.push(Token {
                    text: self.text(),
                    start,
                    end,
                }),
                Shape::Vector => {
                    for element in self.elements() {
                        element.collect_names(kind, out);
                    }
                }
                Shape::Address | Shape::Sum { .. } => {
                    if let Some((base, offset)) = self.text_parts() {
                        base.collect_names(kind, out);
                        if let Some((_, offset)) = offset {
                            offset.collect_names(kind, out);
                        }
                    }
                }
                _ => {}
            },
        }
    }

    /// Every identifier (label, function or variable name) inside this operand.
    pub fn identifiers(&self) -> Vec<Token<'a>> {
        let mut out = Vec::new();
        self.collect_names(k::IDENTIFIER, &mut out);
        out
    }
}

/// Parses a PTX integer literal: decimal, `0x` hex, `0b` binary, leading-zero
/// octal, with an optional `U` suffix.
pub fn parse_integer(literal: &str) -> Option<u64> {
    let body = literal.strip_suffix('U').unwrap_or(literal);
    let (digits, radix) = if let Some(hex) = body.strip_prefix("0x").or(body.strip_prefix("0X")) {
        (hex, 16)
    } else if let Some(bin) = body.strip_prefix("0b").or(body.strip_prefix("0B")) {
        (bin, 2)
    } else if body.len() > 1 && body.starts_with('0') {
        (&body[1..], 8)
    } else {
        (body, 10)
    };
    u64::from_str_radix(digits, radix).ok()
}

/// The `function_attribute` children of a function header or `.callprototype`: each directive
/// and its values.
fn function_attributes<'a>(node: Node<'a>, src: &'a str) -> Vec<(Token<'a>, Vec<Token<'a>>)> {
    named_children(node)
        .filter(|n| n.kind_name() == k::FUNCTION_ATTRIBUTE)
        .filter_map(|n| {
            let name = n.field(k::FIELD_NAME)?;
            let mut cursor = n.walk();
            let values = n
                .fields(k::FIELD_VALUE, &mut cursor)
                .map(|v| Token::of(v, src))
                .collect();
            Some((Token::of(name, src), values))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::parse_integer;

    #[test]
    fn integer_literals_in_every_radix() {
        assert_eq!(parse_integer("42"), Some(42));
        assert_eq!(parse_integer("0"), Some(0));
        assert_eq!(parse_integer("0x1F"), Some(31));
        assert_eq!(parse_integer("017"), Some(15));
        assert_eq!(parse_integer("0b101"), Some(5));
        assert_eq!(parse_integer("42U"), Some(42));
        assert_eq!(parse_integer("0xffffffffffffffff"), Some(u64::MAX));
        assert_eq!(parse_integer("0x1ffffffffffffffff"), None);
    }

    #[test]
    fn instructions_in_a_range_are_those_of_the_whole_list_that_touch_it() {
        let text = ".version 8.0\n.target sm_90\n.entry a()\n{\n\tmov.u32 %r1, 1;\n\t{\n\t\tadd.u32 %r1, %r1, 1;\n\t\t{ sub.u32 %r1, %r1, 2; }\n\t}\n\tmul.lo.u32 %r1, %r1, 3;\n\tbogus ! ;\n\tret;\n}\n.entry b() { exit; }\n";
        let parse = crate::Parse::new(text);
        let module = parse.module();
        let all = module.instructions();
        assert_eq!(all.len(), 7, "the fixture's instructions");
        for start in 0..=text.len() {
            for len in [0, 1, 7, 40, text.len()] {
                let range = start..(start + len).min(text.len());
                let expected: Vec<_> = all
                    .iter()
                    .filter(|i| i.range().start <= range.end && range.start <= i.range().end)
                    .map(|i| i.range())
                    .collect();
                let found: Vec<_> = module
                    .instructions_in(range.clone())
                    .iter()
                    .map(|i| i.range())
                    .collect();
                assert_eq!(found, expected, "range {range:?}");
            }
        }
    }
}
