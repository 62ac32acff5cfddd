//! The names a document declares and where: registers, variables, parameters, labels and
//! functions, found through the typed views. Hover uses it to show a declaration; completion
//! uses it to offer the names in scope at a position.

use ptx_isa::PtxVersion;
use ptx_syntax::{
    Block, Declarator, Function, Item, Label, Module, Parse, Statement, VariableDecl,
};

/// The `.version` and `.target` that apply to a document (from the file, or overridden).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct ModuleFacts {
    pub version: Option<PtxVersion>,
    /// Architecture names (`sm_90a`), without modifiers such as `debug`.
    pub targets: Vec<String>,
}

impl ModuleFacts {
    /// Reads `.version` and `.target` from the file; an override replaces what the file says.
    pub fn of(
        parse: &Parse,
        target_override: Option<&str>,
        version_override: Option<&str>,
    ) -> Self {
        let module = parse.module();
        let mut facts = ModuleFacts::default();
        for item in module.items() {
            let Item::Directive(directive) = item else {
                // `.version` and `.target` come before any function.
                if matches!(item, Item::Function(_)) {
                    break;
                }
                continue;
            };
            match directive.kind() {
                ptx_syntax::DirectiveKind::Version if facts.version.is_none() => {
                    facts.version = directive.value().and_then(|v| PtxVersion::parse(v.text));
                }
                ptx_syntax::DirectiveKind::Target if facts.targets.is_empty() => {
                    facts.targets = directive
                        .targets()
                        .iter()
                        .map(|t| t.text.to_string())
                        .filter(|t| t.starts_with("sm_") || t.starts_with("compute_"))
                        .collect();
                }
                _ => {}
            }
        }
        if let Some(v) = version_override.and_then(PtxVersion::parse) {
            facts.version = Some(v);
        }
        if let Some(t) = target_override {
            facts.targets = vec![t.to_string()];
        }
        facts
    }

    /// The target names as `&str`, for [`ptx_isa::Requirement::check`].
    pub fn target_strs(&self) -> Vec<&str> {
        self.targets.iter().map(String::as_str).collect()
    }
}

/// A declared register, variable or parameter.
#[derive(Debug, Clone, Copy)]
pub struct Declared<'a> {
    pub decl: VariableDecl<'a>,
    pub declarator: Declarator<'a>,
    /// Whether it is a parameter of the enclosing function.
    pub parameter: bool,
}

/// The function whose header or body contains `offset`.
pub fn enclosing_function<'a>(module: &Module<'a>, offset: usize) -> Option<Function<'a>> {
    module
        .functions()
        .into_iter()
        .find(|f| f.range().start <= offset && offset <= f.range().end)
}

/// Every declaration visible in `function` (its parameters and all declarations of its body,
/// nested blocks included) followed by the module-level variables.
pub fn declarations<'a>(module: &Module<'a>, function: Option<&Function<'a>>) -> Vec<Declared<'a>> {
    let mut out = Vec::new();
    if let Some(function) = function {
        for decl in function
            .return_parameters()
            .into_iter()
            .chain(function.parameters())
        {
            for declarator in decl.declarators() {
                out.push(Declared {
                    decl,
                    declarator,
                    parameter: true,
                });
            }
        }
        if let Some(body) = function.body() {
            collect_block_declarations(&body, &mut out);
        }
    }
    for item in module.items() {
        match item {
            Item::Variable(decl) => push_declarators(decl, &mut out),
            Item::Statement(Statement::Variable(decl)) => push_declarators(decl, &mut out),
            _ => {}
        }
    }
    out
}

fn push_declarators<'a>(decl: VariableDecl<'a>, out: &mut Vec<Declared<'a>>) {
    for declarator in decl.declarators() {
        out.push(Declared {
            decl,
            declarator,
            parameter: false,
        });
    }
}

fn collect_block_declarations<'a>(block: &Block<'a>, out: &mut Vec<Declared<'a>>) {
    for statement in block.statements() {
        match statement {
            Statement::Variable(decl) => push_declarators(decl, out),
            Statement::Block(inner) => collect_block_declarations(&inner, out),
            _ => {}
        }
    }
}

/// Whether `name` is one of the names `declarator` declares (`%r7` for `%r<10>`).
pub fn declares(declarator: &Declarator<'_>, name: &str) -> bool {
    let Some(base) = declarator.name() else {
        return false;
    };
    match declarator.count() {
        None => base.text == name,
        Some(count) => name
            .strip_prefix(base.text)
            .filter(|digits| {
                !digits.is_empty()
                    && digits.bytes().all(|b| b.is_ascii_digit())
                    && (digits.len() == 1 || !digits.starts_with('0'))
            })
            .and_then(|digits| digits.parse::<u64>().ok())
            .is_some_and(|n| n < count),
    }
}

/// The declaration of `name` as seen from `offset`: the parameters and body of the enclosing
/// function first (stopping at the first match, so that the usual declarations at the top of a
/// large body are found quickly), then the module-level variables.
pub fn find_declaration<'a>(
    module: &Module<'a>,
    offset: usize,
    name: &str,
) -> Option<Declared<'a>> {
    let matches = |decl: VariableDecl<'a>, parameter: bool| {
        decl.declarators()
            .into_iter()
            .find(|d| declares(d, name))
            .map(|declarator| Declared {
                decl,
                declarator,
                parameter,
            })
    };
    if let Some(function) = enclosing_function(module, offset) {
        for decl in function
            .return_parameters()
            .into_iter()
            .chain(function.parameters())
        {
            if let Some(found) = matches(decl, true) {
                return Some(found);
            }
        }
        if let Some(body) = function.body() {
            let mut stack = vec![body];
            while let Some(block) = stack.pop() {
                for statement in block.statements() {
                    match statement {
                        Statement::Variable(decl) => {
                            if let Some(found) = matches(decl, false) {
                                return Some(found);
                            }
                        }
                        Statement::Block(inner) => stack.push(inner),
                        _ => {}
                    }
                }
            }
        }
    }
    module.items().into_iter().find_map(|item| match item {
        Item::Variable(decl) | Item::Statement(Statement::Variable(decl)) => matches(decl, false),
        _ => None,
    })
}

/// Every label of a function body, nested blocks included.
pub fn labels<'a>(function: &Function<'a>) -> Vec<Label<'a>> {
    let mut out = Vec::new();
    if let Some(body) = function.body() {
        collect_labels(&body, &mut out);
    }
    out
}

fn collect_labels<'a>(block: &Block<'a>, out: &mut Vec<Label<'a>>) {
    for statement in block.statements() {
        match statement {
            Statement::Label(label) => out.push(label),
            Statement::Block(inner) => collect_labels(&inner, out),
            _ => {}
        }
    }
}

/// How many times `name` appears as an operand identifier inside `function`.
pub fn identifier_references(function: &Function<'_>, name: &str) -> usize {
    let Some(body) = function.body() else {
        return 0;
    };
    let mut count = 0;
    count_references(&body, name, &mut count);
    count
}

fn count_references(block: &Block<'_>, name: &str, count: &mut usize) {
    for statement in block.statements() {
        match statement {
            Statement::Instruction(instruction) => {
                for operand in instruction.operands() {
                    *count += operand
                        .identifiers()
                        .iter()
                        .filter(|t| t.text == name)
                        .count();
                }
            }
            Statement::Block(inner) => count_references(&inner, name, count),
            _ => {}
        }
    }
}

/// The function named `name`.
pub fn find_function<'a>(module: &Module<'a>, name: &str) -> Option<Function<'a>> {
    module
        .functions()
        .into_iter()
        .filter(|f| f.name().is_some_and(|n| n.text == name))
        // Prefer the definition over a forward declaration.
        .max_by_key(|f| f.body().is_some())
}

/// The header of a function (everything before its body), on one line.
pub fn function_header(function: &Function<'_>) -> String {
    let text = function.text();
    let end = function
        .body()
        .map(|b| b.range().start - function.range().start)
        .unwrap_or(text.len());
    text[..end]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches(';')
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = ".version 8.0\n.target sm_90a, debug\n.global .u32 g;\n.entry k(.param .u64 p)\n{\n  .reg .b32 %r<10>;\n  { .reg .pred %p; }\nL1:\n  bra L1;\n}\n";

    #[test]
    fn facts_and_declarations() {
        let parse = Parse::new(SRC);
        let facts = ModuleFacts::of(&parse, None, None);
        assert_eq!(facts.version, PtxVersion::parse("8.0"));
        assert_eq!(facts.targets, vec!["sm_90a"]);
        let facts = ModuleFacts::of(&parse, Some("sm_80"), Some("7.0"));
        assert_eq!(facts.targets, vec!["sm_80"]);
        assert_eq!(facts.version, PtxVersion::parse("7.0"));
        let module = parse.module();
        let offset = SRC.find("bra").unwrap();
        let names: Vec<_> = declarations(&module, enclosing_function(&module, offset).as_ref())
            .iter()
            .map(|d| d.declarator.name().unwrap().text)
            .collect();
        assert_eq!(names, vec!["p", "%r", "%p", "g"]);
        assert!(find_declaration(&module, offset, "%r9").is_some());
        assert!(find_declaration(&module, offset, "%r10").is_none());
        assert!(find_declaration(&module, offset, "%r01").is_none());
        let f = enclosing_function(&module, offset).unwrap();
        assert_eq!(labels(&f).len(), 1);
        assert_eq!(identifier_references(&f, "L1"), 1);
        assert_eq!(function_header(&f), ".entry k(.param .u64 p)");
    }
}
