//! Hover: what the thing under the cursor is, in markdown.
//!
//! Opcodes, single qualifiers, registers, special registers, directives, types, state spaces,
//! labels, variables, functions and target names each get their own hover (see [`HoverKind`]).
//! The text is our own (see [`descriptions`]) plus facts from `ptx-isa` and `ptx-regs`; when the
//! caller passes an imported spec index ([`HoverConfig::spec`]) the spec's own words for the
//! same item follow under a rule.

pub mod descriptions;
mod layout;
pub(crate) mod render;
pub mod symbols;

use std::fmt::Write as _;

use ptx_isa::Isa;
use ptx_syntax::{
    Directive, Function, Instruction, Item, Label, Module, Operand, OperandKind, Parse, Statement,
    TextRange, Token, VariableDecl,
};

use crate::completion::context::ContextKind;
use render::OpcodeHover;
use symbols::ModuleFacts;

/// Options of a hover request.
#[derive(Debug, Clone, Copy, Default)]
pub struct HoverConfig<'a> {
    /// Use this `.target` instead of the file's (e.g. `sm_90a`).
    pub target_override: Option<&'a str>,
    /// Use this `.version` instead of the file's (e.g. `8.5`).
    pub version_override: Option<&'a str>,
    /// The imported spec index, if the user has one.
    pub spec: Option<&'a ptx_docs::SpecIndex>,
    /// The document's `.target` is a stand-in (an inline-asm statement with no known
    /// target): hovers say what a form needs but give no verdict against it.
    pub target_unknown: bool,
}

/// What a hover is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoverKind {
    Opcode,
    Qualifier,
    Register,
    SpecialRegister,
    Directive,
    Type,
    StateSpace,
    Label,
    Variable,
    Function,
    Target,
}

/// A hover result: the range it applies to (bytes) and its markdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoverResult {
    pub range: TextRange,
    pub kind: HoverKind,
    pub markdown: String,
}

/// The hover at byte `offset` (a cursor just after a word also hovers that word).
pub fn hover(parse: &Parse, offset: usize, config: &HoverConfig<'_>) -> Option<HoverResult> {
    let module = parse.module();
    let site = locate(&module, offset)
        .or_else(|| offset.checked_sub(1).and_then(|o| locate(&module, o)))
        .or_else(|| locate_text(parse, &module, offset))?;
    let mut facts = ModuleFacts::of(parse, config.target_override, config.version_override);
    if config.target_unknown {
        facts.targets.clear();
    }
    let mut result = render_site(&module, &site, &facts)?;
    if let Some(spec) = config.spec {
        append_spec(&mut result, &site, spec);
    }
    Some(result)
}

/// What the cursor is on.
#[derive(Debug)]
enum Site<'a> {
    /// Component `index` of a dotted opcode (0 is the mnemonic; `parts` are the mnemonic and
    /// each `.qualifier`).
    Opcode {
        parts: Vec<Token<'a>>,
        index: usize,
        /// The instruction's operands as written, joined with `, ` (empty where unknown).
        operands: String,
        /// The instruction, where the tree has one.
        instruction: Option<Instruction<'a>>,
    },
    /// A register or special register name used somewhere (with its component, if any).
    Register {
        token: Token<'a>,
        at: usize,
    },
    /// A plain name used as an operand.
    Identifier {
        token: Token<'a>,
        at: usize,
    },
    Directive(Token<'a>),
    TypeOrSpace(Token<'a>),
    TargetName(Token<'a>),
    Declared {
        decl: VariableDecl<'a>,
        name: Token<'a>,
    },
    Label(Label<'a>),
    Function(Function<'a>, Token<'a>),
}

fn contains(range: &TextRange, offset: usize) -> bool {
    range.start <= offset && offset < range.end
}

fn on(token: &Token<'_>, offset: usize) -> bool {
    token.start <= offset && offset < token.end
}

fn locate<'a>(module: &Module<'a>, offset: usize) -> Option<Site<'a>> {
    for item in module.items() {
        match item {
            Item::Function(f) if contains(&f.range(), offset) => return locate_function(f, offset),
            Item::Variable(decl) if contains(&decl.range(), offset) => {
                return locate_declaration(decl, offset)
            }
            Item::Directive(d) if contains(&d.range(), offset) => {
                return locate_directive(d, offset)
            }
            Item::Statement(s) if contains(&s.range(), offset) => {
                return locate_statement(s, offset)
            }
            _ => {}
        }
    }
    None
}

fn locate_function<'a>(f: Function<'a>, offset: usize) -> Option<Site<'a>> {
    if let Some(body) = f.body().filter(|b| contains(&b.range(), offset)) {
        return locate_statements(body.statements(), offset);
    }
    if let Some(t) = f.kind_token().filter(|t| on(t, offset)) {
        return Some(Site::Directive(t));
    }
    if let Some(t) = f.linkage().into_iter().find(|t| on(t, offset)) {
        return Some(Site::Directive(t));
    }
    if let Some(t) = f.name().filter(|t| on(t, offset)) {
        return Some(Site::Function(f, t));
    }
    for (name, _) in f.attributes() {
        if on(&name, offset) {
            return Some(Site::Directive(name));
        }
    }
    f.return_parameters()
        .into_iter()
        .chain(f.parameters())
        .find(|p| contains(&p.range(), offset))
        .and_then(|p| locate_declaration(p, offset))
}

fn locate_statements<'a>(statements: Vec<Statement<'a>>, offset: usize) -> Option<Site<'a>> {
    // Statements are in source order: find the one containing the offset by bisection.
    let i = statements.partition_point(|s| s.range().end <= offset);
    let s = *statements.get(i)?;
    contains(&s.range(), offset).then_some(())?;
    locate_statement(s, offset)
}

fn locate_statement<'a>(s: Statement<'a>, offset: usize) -> Option<Site<'a>> {
    match s {
        Statement::Instruction(i) => locate_instruction(i, offset),
        Statement::Label(l) => l.name().filter(|t| on(t, offset)).map(|_| Site::Label(l)),
        Statement::Variable(decl) => locate_declaration(decl, offset),
        Statement::Block(b) => locate_statements(b.statements(), offset),
        Statement::Directive(d) => locate_directive(d, offset),
    }
}

fn locate_directive<'a>(d: Directive<'a>, offset: usize) -> Option<Site<'a>> {
    let keyword = d.keyword();
    if on(&keyword, offset) {
        return Some(Site::Directive(keyword));
    }
    d.targets()
        .into_iter()
        .find(|t| on(t, offset))
        .map(Site::TargetName)
}

fn locate_declaration<'a>(decl: VariableDecl<'a>, offset: usize) -> Option<Site<'a>> {
    for t in [decl.state_space(), decl.ty(), decl.vector()]
        .into_iter()
        .flatten()
    {
        if on(&t, offset) {
            return Some(Site::TypeOrSpace(t));
        }
    }
    if let Some(t) = decl.linkage().into_iter().find(|t| on(t, offset)) {
        return Some(Site::Directive(t));
    }
    for declarator in decl.declarators() {
        if let Some(name) = declarator.name().filter(|t| on(t, offset)) {
            return Some(Site::Declared { decl, name });
        }
    }
    None
}

fn locate_instruction<'a>(i: Instruction<'a>, offset: usize) -> Option<Site<'a>> {
    if let Some(guard) = i.guard().filter(|g| contains(&g.range, offset)) {
        return Some(Site::Register {
            token: guard.predicate,
            at: offset,
        });
    }
    if i.opcode().is_some_and(|t| contains(&t.range(), offset)) {
        let parts: Vec<Token<'a>> = i.mnemonic().into_iter().chain(i.qualifiers()).collect();
        let index = parts.iter().position(|q| on(q, offset))?;
        let operands: Vec<&str> = i.operands().iter().map(|o| o.text()).collect();
        return Some(Site::Opcode {
            parts,
            index,
            operands: operands.join(", "),
            instruction: Some(i),
        });
    }
    let operand = i
        .operands()
        .into_iter()
        .find(|o| contains(&o.range(), offset))?;
    locate_operand(operand, offset)
}

fn locate_operand<'a>(operand: Operand<'a>, offset: usize) -> Option<Site<'a>> {
    let text = operand.text();
    match operand.kind() {
        OperandKind::Register(_) | OperandKind::Component { .. } => {
            // `%tid.x` as a whole: special registers are described with their component.
            return Some(Site::Register {
                token: Token {
                    text,
                    start: operand.range().start,
                    end: operand.range().end,
                },
                at: offset,
            });
        }
        OperandKind::Identifier(_) => {
            return Some(Site::Identifier {
                token: Token {
                    text,
                    start: operand.range().start,
                    end: operand.range().end,
                },
                at: offset,
            })
        }
        _ => {}
    }
    if let Some(inner) = operand
        .elements()
        .into_iter()
        .find(|e| contains(&e.range(), offset))
    {
        return locate_operand(inner, offset);
    }
    if let Some(token) = operand.registers().into_iter().find(|t| on(t, offset)) {
        return Some(Site::Register { token, at: offset });
    }
    operand
        .identifiers()
        .into_iter()
        .find(|t| on(t, offset))
        .map(|token| Site::Identifier { token, at: offset })
}

/// For code the tree could not place (an instruction being typed): the word at `offset`,
/// classified by where it stands in its statement.
fn locate_text<'a>(parse: &Parse, module: &Module<'a>, offset: usize) -> Option<Site<'a>> {
    let text = module.text();
    let bytes = text.as_bytes();
    let word_byte =
        |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'%' | b'.' | b':');
    let mut start = offset.min(text.len());
    while start > 0 && word_byte(bytes[start - 1]) {
        start -= 1;
    }
    let mut end = offset.min(text.len());
    while end < bytes.len() && word_byte(bytes[end]) {
        end += 1;
    }
    if start == end || offset >= end {
        return None;
    }
    let token = Token {
        text: &text[start..end],
        start,
        end,
    };
    if token.text.starts_with('%') {
        return Some(Site::Register { token, at: offset });
    }
    if token.text.starts_with('.') {
        return Some(Site::Directive(token));
    }
    // The first word of a line (after a guard) is an opcode even when the previous line lacks
    // its `;`: that is how code looks while it is being written.
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let before = text[line_start..start].trim();
    let first_on_line = before.is_empty() || (before.starts_with('@') && !before.contains(' '));
    let kind = crate::completion::context::cursor_context(parse, end).kind;
    match kind {
        _ if first_on_line && !token.text.ends_with(':')
            || matches!(
                kind,
                ContextKind::StatementStart { .. } | ContextKind::Opcode { .. }
            ) =>
        {
            let mut parts = Vec::new();
            let mut part_start = start;
            for (i, b) in token.text.bytes().enumerate().skip(1) {
                if b == b'.' {
                    parts.push(Token {
                        text: &text[part_start..start + i],
                        start: part_start,
                        end: start + i,
                    });
                    part_start = start + i;
                }
            }
            parts.push(Token {
                text: &text[part_start..end],
                start: part_start,
                end,
            });
            let index = parts.iter().position(|p| on(p, offset))?;
            Some(Site::Opcode {
                parts,
                index,
                operands: String::new(),
                instruction: None,
            })
        }
        ContextKind::Operand { .. } => Some(Site::Identifier { token, at: offset }),
        _ => None,
    }
}

fn render_site(module: &Module<'_>, site: &Site<'_>, facts: &ModuleFacts) -> Option<HoverResult> {
    let isa = Isa::get();
    match site {
        Site::Opcode {
            parts,
            index,
            operands,
            instruction,
        } => {
            // The parts joined: blanks may stand before a qualifier (`mov .s32`).
            let name: String = parts.iter().map(|p| p.text).collect();
            let h = OpcodeHover::new(isa, &name)?.with_operands(operands.clone());
            let components = h.instruction.opcode.split('.').count();
            let (range, kind, markdown) = if *index == 0 {
                (
                    parts[0].range(),
                    HoverKind::Opcode,
                    render::opcode(&h, facts),
                )
            } else {
                let q = parts[*index];
                let as_qualifier = descriptions::descriptions()
                    .qualifier(&h.instruction.opcode, &h.instruction.section, q.text)
                    .is_some();
                if *index < components && !as_qualifier {
                    // `.ld` of `tcgen05.ld` names the instruction.
                    (q.range(), HoverKind::Opcode, render::opcode(&h, facts))
                } else {
                    (
                        q.range(),
                        HoverKind::Qualifier,
                        render::qualifier(&h, q.text, facts),
                    )
                }
            };
            let mut markdown = markdown;
            if kind == HoverKind::Opcode {
                if let Some(layout) = instruction.as_ref().and_then(layout::fragment_layout) {
                    markdown.push_str(&layout);
                }
            }
            Some(HoverResult {
                range,
                kind,
                markdown,
            })
        }
        Site::Register { token, at } => register(module, token, *at, facts),
        Site::Identifier { token, at } => identifier(module, token, *at),
        Site::Directive(token) => {
            let name = token.text;
            if let Some(dir) = isa.directive(name) {
                return Some(HoverResult {
                    range: token.range(),
                    kind: HoverKind::Directive,
                    markdown: render::directive(dir, facts),
                });
            }
            let markdown = render::type_or_space(name)?;
            Some(HoverResult {
                range: token.range(),
                kind: HoverKind::StateSpace,
                markdown,
            })
        }
        Site::TypeOrSpace(token) => {
            let base = token.text.split("::").next().unwrap_or(token.text);
            let kind = if isa.state_spaces().iter().any(|s| s.name == base) {
                HoverKind::StateSpace
            } else {
                HoverKind::Type
            };
            Some(HoverResult {
                range: token.range(),
                kind,
                markdown: render::type_or_space(token.text)?,
            })
        }
        Site::TargetName(token) => Some(HoverResult {
            range: token.range(),
            kind: HoverKind::Target,
            markdown: render::target(isa.target(token.text)?),
        }),
        Site::Declared { decl, name } => Some(HoverResult {
            range: name.range(),
            kind: HoverKind::Variable,
            markdown: variable(module, *decl, name.text, name.start),
        }),
        Site::Label(label) => {
            let name = label.name()?;
            Some(HoverResult {
                range: name.range(),
                kind: HoverKind::Label,
                markdown: label_markdown(module, label, name.text),
            })
        }
        Site::Function(f, name) => Some(HoverResult {
            range: name.range(),
            kind: HoverKind::Function,
            markdown: function_markdown(f),
        }),
    }
}

fn register(
    module: &Module<'_>,
    token: &Token<'_>,
    at: usize,
    facts: &ModuleFacts,
) -> Option<HoverResult> {
    let isa = Isa::get();
    let name = token.text;
    let base = name.split('.').next().unwrap_or(name);
    // Special register names are reserved, so no declaration can shadow them.
    if let Some(sreg) = isa
        .special_register(name)
        .or_else(|| isa.special_register(base))
    {
        return Some(HoverResult {
            range: token.range(),
            kind: HoverKind::SpecialRegister,
            markdown: render::special_register(sreg, name, facts),
        });
    }
    let declared = symbols::find_declaration(module, at, base)?;
    Some(HoverResult {
        range: token.range(),
        kind: HoverKind::Register,
        markdown: variable(
            module,
            declared.decl,
            name,
            declared.declarator.range().start,
        ),
    })
}

fn identifier(module: &Module<'_>, token: &Token<'_>, at: usize) -> Option<HoverResult> {
    let name = token.text;
    if let Some(function) = symbols::enclosing_function(module, at) {
        if let Some(label) = symbols::labels(&function)
            .into_iter()
            .find(|l| l.name().is_some_and(|n| n.text == name))
        {
            return Some(HoverResult {
                range: token.range(),
                kind: HoverKind::Label,
                markdown: label_markdown(module, &label, name),
            });
        }
    }
    if let Some(declared) = symbols::find_declaration(module, at, name) {
        return Some(HoverResult {
            range: token.range(),
            kind: HoverKind::Variable,
            markdown: variable(
                module,
                declared.decl,
                name,
                declared.declarator.range().start,
            ),
        });
    }
    let function = symbols::find_function(module, name)?;
    Some(HoverResult {
        range: token.range(),
        kind: HoverKind::Function,
        markdown: function_markdown(&function),
    })
}

/// 1-based line of a byte offset.
fn line_of(module: &Module<'_>, offset: usize) -> usize {
    let text = module.text();
    let offset = offset.min(text.len());
    text.as_bytes()[..offset]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

fn variable(module: &Module<'_>, decl: VariableDecl<'_>, name: &str, declared_at: usize) -> String {
    let mut out = String::new();
    render::code(&mut out, decl.text().trim_end_matches(';'));
    let space = decl.state_space().map(|t| t.text).unwrap_or("");
    let what = match space {
        ".reg" => "register",
        ".param" => "parameter",
        "" => "variable",
        _ => "variable",
    };
    let _ = write!(out, "`{name}` — {what}");
    if !space.is_empty() {
        let _ = write!(out, " in `{space}`");
    }
    let ty = match (decl.vector(), decl.ty()) {
        (Some(v), Some(t)) => format!("{} {}", v.text, t.text),
        (None, Some(t)) => t.text.to_string(),
        _ => String::new(),
    };
    if !ty.is_empty() {
        let _ = write!(out, " of type `{ty}`");
    }
    if let Some(align) = decl.alignment() {
        let _ = write!(out, ", aligned to {} bytes", align.text);
    }
    if let Some(declarator) = decl
        .declarators()
        .into_iter()
        .find(|d| symbols::declares(d, name.split('.').next().unwrap_or(name)))
    {
        let dims: Vec<String> = declarator
            .dimensions()
            .iter()
            .map(|d| format!("[{}]", d.map(|t| t.text).unwrap_or("")))
            .collect();
        if !dims.is_empty() {
            let _ = write!(out, ", array {}", dims.join(""));
        }
        if let Some(count) = declarator.count() {
            let _ = write!(out, ", one of {count} numbered registers");
        }
        if let Some(init) = declarator.initializer() {
            let _ = write!(out, ", initialized to `{}`", init.text);
        }
    }
    let _ = writeln!(
        out,
        "\n\nDeclared on line {}.",
        line_of(module, declared_at)
    );
    out
}

fn label_markdown(module: &Module<'_>, label: &Label<'_>, name: &str) -> String {
    let line = line_of(module, label.range().start);
    let references = symbols::enclosing_function(module, label.range().start)
        .map(|f| symbols::identifier_references(&f, name))
        .unwrap_or(0);
    format!(
        "`{name}` — label, defined on line {line}; {references} reference{}.\n",
        if references == 1 { "" } else { "s" }
    )
}

fn function_markdown(f: &Function<'_>) -> String {
    let mut out = String::new();
    // nvcc's mangled C++ name, as C++ writes it.
    if let Some(cpp) = f.name().and_then(|n| crate::symbols::demangle(n.text)) {
        let _ = writeln!(out, "**`{cpp}`** (C++)\n");
    }
    render::code(&mut out, &symbols::function_header(f));
    let kind = match f.kind() {
        ptx_syntax::FunctionKind::Entry => "kernel (`.entry`)",
        ptx_syntax::FunctionKind::Func => "device function (`.func`)",
    };
    let _ = writeln!(
        out,
        "{kind}{}",
        if f.body().is_some() {
            ""
        } else {
            ", declared here without a body"
        }
    );
    out
}

/// Appends the imported spec's own text for the same item under a rule.
fn append_spec(result: &mut HoverResult, site: &Site<'_>, spec: &ptx_docs::SpecIndex) {
    let section = match site {
        Site::Opcode { parts, index, .. } => {
            let name: String = parts.iter().map(|p| p.text).collect();
            let entry = OpcodeHover::new(Isa::get(), &name)
                .and_then(|h| {
                    spec.instruction(&h.instruction.opcode).filter(|_| {
                        // `add` has several sections: let the written qualifiers pick.
                        spec.instruction_all(&h.instruction.opcode).len() == 1
                    })
                })
                .or_else(|| spec.lookup(&name));
            let Some(entry) = entry else {
                return;
            };
            if result.kind == HoverKind::Qualifier {
                let q = parts[*index];
                entry.hover_markdown(ptx_docs::Part::Qualifier(q.text))
            } else {
                entry.hover_markdown(ptx_docs::Part::Opcode)
            }
        }
        Site::Directive(token) => match spec.directive(token.text) {
            Some(entry) if result.kind == HoverKind::Directive => {
                entry.hover_markdown(ptx_docs::Part::Opcode)
            }
            _ => return,
        },
        Site::Register { token, .. } if result.kind == HoverKind::SpecialRegister => {
            match spec.special_register(token.text) {
                Some(entry) => entry.hover_markdown(ptx_docs::Part::Opcode),
                None => return,
            }
        }
        _ => return,
    };
    let _ = write!(
        result.markdown,
        "\n\n---\n\n*From your copy of the PTX ISA ({}):*\n\n{section}",
        spec.status().doc_version
    );
}

#[cfg(test)]
mod tests;
