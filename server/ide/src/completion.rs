//! Completion: what may be written at the cursor, filtered by the document's `.target` and
//! `.version` (or the configured overrides).
//!
//! - inside a dotted opcode (`ld.`, `ld.glo`): the qualifiers that can follow what is written,
//!   in slot order, each with what it means;
//! - at the start of a statement: opcodes, snippets of whole instructions with correctly sized
//!   register vectors (from `ptx-regs`), and in a body the declaration keywords; at the top level
//!   the directives;
//! - in operands: declared registers (and special registers after `%`), labels, functions and
//!   variables;
//! - in declarations: state spaces, types, vector sizes, `.align`; after `.target`, `.version`
//!   and `.address_size` their values.
//!
//! It works on incomplete lines; see [`context`].

pub mod context;

use std::collections::{BTreeSet, HashMap};
use std::sync::{Mutex, OnceLock};

use ptx_isa::{Instruction, Isa, OperandKind, PtxVersion, Requirement, Unmet};
use ptx_syntax::{Parse, TextRange};

use crate::hover::descriptions::descriptions;
use crate::hover::symbols::{self, ModuleFacts};
use context::{cursor_context, ContextKind};

/// Options of a completion request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompletionConfig {
    /// Use this `.target` instead of the file's.
    pub target_override: Option<String>,
    /// Use this `.version` instead of the file's.
    pub version_override: Option<String>,
}

/// What a completion item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CompletionKind {
    Opcode,
    Qualifier,
    Snippet,
    Register,
    SpecialRegister,
    Label,
    Function,
    Variable,
    Directive,
    Type,
    StateSpace,
    Target,
    Value,
}

/// One completion item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletionItem {
    pub label: String,
    pub kind: CompletionKind,
    /// A short line shown next to the label (version and targets, a type...).
    pub detail: Option<String>,
    /// Markdown shown for the selected item.
    pub documentation: Option<String>,
    /// The text to insert (snippet syntax `${1:name}` when `is_snippet`).
    pub insert_text: String,
    pub is_snippet: bool,
    /// The byte range the insertion replaces (the partial word before the cursor).
    pub replace_range: TextRange,
    /// Orders items (lower first).
    pub sort_text: String,
}

/// The completions at byte `offset`.
pub fn complete(parse: &Parse, offset: usize, config: &CompletionConfig) -> Vec<CompletionItem> {
    let ctx = cursor_context(parse, offset);
    let facts = ModuleFacts::of(
        parse,
        config.target_override.as_deref(),
        config.version_override.as_deref(),
    );
    let typed = &parse.text()[ctx.replace.clone()];
    let mut out = Builder {
        items: Vec::new(),
        replace: ctx.replace.clone(),
        typed: typed.to_string(),
    };
    match &ctx.kind {
        ContextKind::Nothing => {}
        ContextKind::Opcode { components } => qualifiers(&mut out, components, &facts),
        ContextKind::StatementStart { dot } => {
            if ctx.in_body {
                if !dot {
                    opcodes(&mut out, &facts);
                }
                body_keywords(&mut out);
            } else {
                top_level_directives(&mut out, &facts);
            }
        }
        ContextKind::Declaration { .. } => declaration(&mut out),
        ContextKind::DirectiveArgument { directive } => directive_argument(&mut out, directive),
        ContextKind::Operand { opcode, .. } => operands(&mut out, parse, offset, opcode),
    }
    out.items
}

struct Builder {
    items: Vec<CompletionItem>,
    replace: TextRange,
    typed: String,
}

impl Builder {
    /// Adds an item if its label starts with what is typed.
    fn add(
        &mut self,
        label: &str,
        kind: CompletionKind,
        detail: Option<String>,
        documentation: Option<String>,
        sort: usize,
    ) {
        if !label.starts_with(self.typed.as_str()) {
            return;
        }
        self.items.push(CompletionItem {
            label: label.to_string(),
            kind,
            detail,
            documentation,
            insert_text: label.to_string(),
            is_snippet: false,
            replace_range: self.replace.clone(),
            sort_text: format!("{sort:05}"),
        });
    }
}

/// Whether a requirement holds for the document (an unknown version or target does not filter).
fn allowed(req: &Requirement, facts: &ModuleFacts) -> bool {
    let version = facts.version.unwrap_or(PtxVersion::SPEC);
    req.check(version, &facts.target_strs()).is_empty()
}

fn requirement_detail(req: &Requirement) -> String {
    format!("PTX {}+ · {}", req.since, req.targets.describe())
}

/// What the document lacks for a requirement, as a completion detail: `needs sm_100a/sm_110a,
/// PTX 8.6`; `None` when the requirement holds.
fn missing_detail(req: &Requirement, facts: &ModuleFacts) -> Option<String> {
    let version = facts.version.unwrap_or(PtxVersion::SPEC);
    let mut needs = Vec::new();
    let mut removed = None;
    for unmet in req.check(version, &facts.target_strs()) {
        match unmet {
            Unmet::Target { needed } => needs.insert(0, needed.describe()),
            Unmet::Version { needed } => needs.push(format!("PTX {needed}")),
            Unmet::Removed { since, .. } => removed = Some(since),
        }
    }
    match (needs.is_empty(), removed) {
        (true, None) => None,
        (true, Some(since)) => Some(format!("removed in PTX {since} for this target")),
        (false, _) => Some(format!("needs {}", needs.join(", "))),
    }
}

/// Sort keys of items the document's target or version lacks: after every available item.
const UNAVAILABLE_SORT: usize = 5000;

fn qualifiers(out: &mut Builder, components: &[String], facts: &ModuleFacts) {
    let isa = Isa::get();
    let prefix: Vec<&str> = components.iter().map(String::as_str).collect();
    let written = prefix.join(".");
    let instruction = isa
        .instruction_for(&written)
        .or_else(|| isa.instructions_with_root(prefix[0]).next());
    for (i, (value, req)) in isa.next_qualifiers(&prefix).into_iter().enumerate() {
        if value.is_empty() {
            continue;
        }
        let value = value.trim_end_matches('*');
        let dotted = format!(".{value}");
        // A component that continues the opcode (`tcgen05.` + `ld`) names an instruction.
        let longer = format!("{written}.{value}");
        let (kind, documentation) = match isa.instructions_named(&longer).next() {
            Some(inst) => (
                CompletionKind::Opcode,
                descriptions()
                    .instruction(&inst.opcode, &inst.section)
                    .map(|d| d.text.clone()),
            ),
            None => (
                qualifier_kind(&dotted),
                instruction.and_then(|inst| {
                    descriptions()
                        .qualifier(&inst.opcode, &inst.section, &dotted)
                        .map(|(text, _)| text)
                }),
            ),
        };
        // Forms the document's target or version lacks are listed too, marked, after the rest.
        let (detail, sort) = match missing_detail(&req, facts) {
            None => (requirement_detail(&req), i),
            Some(missing) => (missing, UNAVAILABLE_SORT + i),
        };
        out.add(value, kind, Some(detail), documentation, sort);
    }
}

/// The kind of a qualifier item: a type (`.u32`, `.v4`), a state space (`.global`,
/// `.shared::cta`) or another qualifier.
fn qualifier_kind(dotted: &str) -> CompletionKind {
    match Isa::get().qualifier_class(dotted) {
        ptx_isa::QualifierClass::Type => CompletionKind::Type,
        ptx_isa::QualifierClass::StateSpace => CompletionKind::StateSpace,
        ptx_isa::QualifierClass::Other => CompletionKind::Qualifier,
    }
}

/// Opcode and snippet items depend only on the `.version` and `.target`: computed once per
/// pair and kept (a handful of pairs per session).
fn statement_items(facts: &ModuleFacts) -> Vec<CompletionItem> {
    type Cache = Mutex<HashMap<ModuleFacts, Vec<CompletionItem>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(items) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(facts) {
        return items.clone();
    }
    let mut builder = Builder {
        items: Vec::new(),
        replace: 0..0,
        typed: String::new(),
    };
    opcodes_uncached(&mut builder, facts);
    let mut map = cache.lock().unwrap_or_else(|e| e.into_inner());
    if map.len() > 64 {
        map.clear();
    }
    map.insert(facts.clone(), builder.items.clone());
    builder.items
}

fn opcodes(out: &mut Builder, facts: &ModuleFacts) {
    for mut item in statement_items(facts) {
        if item.label.starts_with(out.typed.as_str()) {
            item.replace_range = out.replace.clone();
            out.items.push(item);
        }
    }
}

fn opcodes_uncached(out: &mut Builder, facts: &ModuleFacts) {
    let isa = Isa::get();
    let mut roots = BTreeSet::new();
    let mut unavailable = BTreeSet::new();
    for inst in isa.instructions() {
        let root = inst.root();
        if inst.forms.iter().all(|f| f.pseudo)
            || !root.starts_with(|c: char| c.is_ascii_lowercase())
        {
            continue;
        }
        let available = inst.forms.iter().any(|f| allowed(&f.requirement, facts));
        if available {
            unavailable.remove(root);
        }
        if roots.insert(root.to_string()) {
            let doc = descriptions()
                .instruction(&inst.opcode, &inst.section)
                .map(|d| d.text.clone());
            if !available {
                unavailable.insert(root.to_string());
            }
            out.add(
                root,
                CompletionKind::Opcode,
                Some(requirement_detail(&inst.requirement)),
                doc,
                100,
            );
        }
    }
    // An opcode none of whose forms the document's target or version has is still listed,
    // marked with what it lacks, after the rest.
    for item in out.items.iter_mut() {
        if !unavailable.contains(&item.label) {
            continue;
        }
        let lacking = isa
            .instructions()
            .iter()
            .find(|inst| inst.root() == item.label)
            .and_then(|inst| missing_detail(&inst.requirement, facts));
        if let Some(lacking) = lacking {
            item.detail = Some(lacking);
            item.sort_text = format!("{UNAVAILABLE_SORT:05}");
        }
    }
    for inst in isa.instructions() {
        if let Some(item) = snippet(inst, facts, &out.replace) {
            if item.label.starts_with(out.typed.as_str()) {
                out.items.push(item);
            }
        }
    }
}

/// A whole-instruction snippet: the first form of the instruction with every required
/// qualifier slot filled with its first value, and placeholders for the operands, vectors sized
/// by `ptx-regs`.
fn snippet(inst: &Instruction, facts: &ModuleFacts, replace: &TextRange) -> Option<CompletionItem> {
    let isa = Isa::get();
    let form = inst
        .forms
        .iter()
        .find(|f| !f.pseudo && allowed(&f.requirement, facts))?;
    let mut opcode = form.root.clone();
    for slot in form.qualifier_slots.iter().filter(|s| !s.optional) {
        opcode.push('.');
        opcode.push_str(slot.values.first()?.trim_end_matches('*'));
    }
    let parts: Vec<&str> = opcode.split('.').collect();
    let matched = isa.match_qualifiers(&parts);
    let m = matched.matches.first()?;
    if !allowed(&m.requirement, facts) || form.operands.is_empty() {
        return None;
    }
    let counts = ptx_regs::register_counts(&opcode).ok();
    let mut placeholder = 0;
    let mut next = |name: &str| {
        placeholder += 1;
        format!("${{{placeholder}:{name}}}")
    };
    let mut operands = Vec::new();
    let mut sized = false;
    for (i, op) in form
        .operands
        .iter()
        .enumerate()
        .filter(|(_, o)| !o.optional)
    {
        let name = if op.name.is_empty() {
            op.text.trim_matches(|c: char| "{}[]() ".contains(c))
        } else {
            op.name.as_str()
        };
        // `ptx-regs` knows which operands are register vectors and how long they are, also
        // where the spec's notation writes a plain name (`r` of `tcgen05.ld`).
        let registers = counts
            .as_ref()
            .and_then(|c| c.vectors.iter().find(|v| v.operand == i))
            .map(|v| v.registers);
        let text = match (op.kind, registers) {
            (OperandKind::Address, _) => format!("[{}]", next(name)),
            (_, Some(n)) if n > 0 => {
                sized = true;
                let regs: Vec<String> = (0..n).map(|k| next(&format!("{name}{k}"))).collect();
                format!("{{{}}}", regs.join(", "))
            }
            (OperandKind::Vector, _) => format!("{{{}}}", next(name)),
            (OperandKind::List, _) => format!("({})", next(name)),
            (OperandKind::Value, _) => next(name),
        };
        operands.push(text);
    }
    Some(CompletionItem {
        label: format!("{opcode} …"),
        kind: CompletionKind::Snippet,
        detail: Some(if sized {
            "instruction with its register vectors sized".to_string()
        } else {
            "whole instruction".to_string()
        }),
        documentation: Some(format!("```ptx\n{}\n```", form.syntax)),
        insert_text: format!("{opcode} {};", operands.join(", ")),
        is_snippet: true,
        replace_range: replace.clone(),
        sort_text: format!("{:05}", 900),
    })
}

const BODY_KEYWORDS: [&str; 6] = [".reg", ".local", ".shared", ".param", ".pragma", ".loc"];

fn body_keywords(out: &mut Builder) {
    for (i, k) in BODY_KEYWORDS.iter().enumerate() {
        let doc = descriptions()
            .type_or_space(k)
            .or_else(|| descriptions().directive(k))
            .map(|d| d.text.clone());
        out.add(k, CompletionKind::StateSpace, None, doc, 500 + i);
    }
}

fn top_level_directives(out: &mut Builder, facts: &ModuleFacts) {
    let isa = Isa::get();
    for (i, dir) in isa.directives().iter().enumerate() {
        if !dir.name.starts_with('.') || !allowed(&dir.requirement, facts) {
            continue;
        }
        let doc = descriptions().directive(&dir.name).map(|d| d.text.clone());
        out.add(
            &dir.name,
            CompletionKind::Directive,
            Some(requirement_detail(&dir.requirement)),
            doc,
            i,
        );
    }
    for (i, space) in [".global", ".const", ".shared", ".tex"].iter().enumerate() {
        let doc = descriptions().type_or_space(space).map(|d| d.text.clone());
        out.add(space, CompletionKind::StateSpace, None, doc, 200 + i);
    }
}

fn declaration(out: &mut Builder) {
    let isa = Isa::get();
    for (i, space) in isa.state_spaces().iter().enumerate() {
        if space.name == ".sreg" {
            continue;
        }
        let doc = descriptions()
            .type_or_space(space.name)
            .map(|d| d.text.clone());
        out.add(space.name, CompletionKind::StateSpace, None, doc, 100 + i);
    }
    for (i, ty) in isa.types().iter().filter(|t| t.declarable).enumerate() {
        let doc = descriptions()
            .type_or_space(ty.name)
            .map(|d| d.text.clone());
        out.add(
            ty.name,
            CompletionKind::Type,
            Some(format!("{} bits", ty.bits)),
            doc,
            i,
        );
    }
    for (i, v) in [".v2", ".v4", ".v8", ".align", ".ptr"].iter().enumerate() {
        out.add(v, CompletionKind::Type, None, None, 300 + i);
    }
}

fn directive_argument(out: &mut Builder, directive: &str) {
    let isa = Isa::get();
    match directive {
        ".target" => {
            for (i, t) in isa.targets().iter().enumerate() {
                out.add(
                    &t.name,
                    CompletionKind::Target,
                    Some(format!("PTX {}+", t.since)),
                    None,
                    i,
                );
            }
        }
        ".version" => {
            for (i, v) in PtxVersion::all()
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .enumerate()
            {
                out.add(&v.to_string(), CompletionKind::Value, None, None, i);
            }
        }
        _ => {
            out.add("64", CompletionKind::Value, None, None, 0);
            out.add("32", CompletionKind::Value, None, None, 1);
        }
    }
}

/// Most numbered registers offered for one `%r<N>` declaration.
const MAX_NUMBERED: u64 = 32;

fn operands(out: &mut Builder, parse: &Parse, offset: usize, opcode: &str) {
    let isa = Isa::get();
    let module = parse.module();
    let function = symbols::enclosing_function(&module, offset);
    let root = opcode.split('.').next().unwrap_or(opcode);
    // Labels first for branches, functions first for calls.
    let (label_rank, function_rank) = match root {
        "bra" | "brx" => (0, 300),
        "call" => (300, 0),
        _ => (300, 300),
    };
    for d in symbols::declarations(&module, function.as_ref()) {
        let Some(name) = d.declarator.name() else {
            continue;
        };
        let ty = d.decl.ty().map(|t| t.text.to_string());
        let space = d.decl.state_space().map(|t| t.text).unwrap_or("");
        let kind = if name.text.starts_with('%') {
            CompletionKind::Register
        } else {
            CompletionKind::Variable
        };
        let detail = Some(
            format!("{space} {}", ty.clone().unwrap_or_default())
                .trim()
                .to_string(),
        );
        match d.declarator.count() {
            Some(n) => {
                for k in 0..n.min(MAX_NUMBERED) {
                    out.add(
                        &format!("{}{k}", name.text),
                        kind,
                        detail.clone(),
                        None,
                        100,
                    );
                }
            }
            None => out.add(name.text, kind, detail, None, 100),
        }
    }
    for sreg in isa.special_registers() {
        let names: Vec<&String> = if sreg.components.is_empty() {
            vec![&sreg.name]
        } else {
            sreg.components.iter().collect()
        };
        let doc = descriptions()
            .special_register(&sreg.name)
            .map(|d| d.text.clone());
        for n in names {
            out.add(
                n,
                CompletionKind::SpecialRegister,
                Some(sreg.ty.clone()),
                doc.clone(),
                200,
            );
        }
    }
    if let Some(f) = &function {
        for label in symbols::labels(f) {
            if let Some(name) = label.name() {
                out.add(
                    name.text,
                    CompletionKind::Label,
                    Some("label".into()),
                    None,
                    label_rank,
                );
            }
        }
    }
    for f in module.functions() {
        if let Some(name) = f.name() {
            let header = symbols::function_header(&f);
            if !out.items.iter().any(|i| i.label == name.text) {
                out.add(
                    name.text,
                    CompletionKind::Function,
                    Some(header),
                    None,
                    function_rank,
                );
            }
        }
    }
}

#[cfg(test)]
mod tests;
