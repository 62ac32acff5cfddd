//! Document symbols (the outline) and the workspace-symbol query.
//!
//! The outline is hierarchical: functions (entries and device functions) hold
//! their parameters, the variables and registers declared in their bodies and
//! their labels; module-level variables stand on their own. Nested blocks add
//! no level of their own: what they declare is listed under the function.

use ptx_syntax::{
    Block, Function, FunctionKind, Item, Label, Parse, Statement, TextRange, VariableDecl,
};

/// What a symbol is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    /// A kernel (`.entry`).
    Entry,
    /// A device function (`.func`).
    Function,
    /// A parameter of a function.
    Parameter,
    /// A variable in a state space other than `.reg`.
    Variable,
    /// A `.reg` declaration (`%r<4>` counts as one symbol).
    Register,
    Label,
}

/// One entry of the outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub kind: SymbolKind,
    /// A short description: `.entry`, `.param .u64`, `.shared .align 8 .b8` ...
    pub detail: Option<String>,
    /// The whole construct.
    pub range: TextRange,
    /// The name itself.
    pub selection_range: TextRange,
    pub children: Vec<Symbol>,
}

/// The outline of a document: kernels and device functions first, then the module-level
/// variables (nvcc puts hundreds of `__nv_static_…` globals before its kernels), each group in
/// source order.
pub fn document_symbols(parse: &Parse) -> Vec<Symbol> {
    let module = parse.module();
    let mut functions = Vec::new();
    let mut out = Vec::new();
    for item in module.items() {
        match item {
            Item::Function(function) => functions.extend(function_symbol(function)),
            Item::Variable(decl) => out.extend(variable_symbols(decl, false)),
            // Snippets: statements outside any function.
            Item::Statement(statement) => statement_symbols(statement, &mut out),
            Item::Directive(_) => {}
        }
    }
    functions.extend(out);
    functions
}

/// The C++ name behind a mangled one (`_Z6helperfi` → `helper(float, int)`), when `name` is an
/// Itanium-mangled name; `None` for every other name.
pub fn demangle(name: &str) -> Option<String> {
    if !name.starts_with("_Z") {
        return None;
    }
    let symbol = cpp_demangle::Symbol::new(name).ok()?;
    let options = cpp_demangle::DemangleOptions::default();
    symbol.demangle(&options).ok().filter(|d| d != name)
}

/// A symbol together with the names of the symbols that contain it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlatSymbol {
    pub symbol: Symbol,
    pub container: Option<String>,
}

/// The symbols of a document whose names match `query`, flattened, for the
/// workspace-symbol request. Labels, registers and parameters are only
/// included when the query is not empty (an empty query lists the functions
/// and module-level variables).
pub fn workspace_symbols(parse: &Parse, query: &str) -> Vec<FlatSymbol> {
    let mut out = Vec::new();
    for symbol in document_symbols(parse) {
        flatten(symbol, None, query, &mut out);
    }
    out
}

fn flatten(mut symbol: Symbol, container: Option<&str>, query: &str, out: &mut Vec<FlatSymbol>) {
    let children = std::mem::take(&mut symbol.children);
    let name = symbol.name.clone();
    let top_level = matches!(
        symbol.kind,
        SymbolKind::Entry | SymbolKind::Function | SymbolKind::Variable
    ) && container.is_none();
    let wanted = if query.is_empty() {
        top_level
    } else {
        // A demangled name matches by its C++ spelling or by the mangled one (in the detail).
        matches_query(&symbol.name, query)
            || symbol
                .detail
                .as_deref()
                .and_then(|d| d.split_whitespace().next())
                .is_some_and(|mangled| mangled.starts_with("_Z") && matches_query(mangled, query))
    };
    if wanted {
        out.push(FlatSymbol {
            symbol,
            container: container.map(str::to_owned),
        });
    }
    for child in children {
        flatten(child, Some(&name), query, out);
    }
}

/// Whether `name` matches a workspace-symbol query: the query's characters
/// appear in the name in order, ignoring case (`hk` matches `hopper_kernel`).
pub fn matches_query(name: &str, query: &str) -> bool {
    let mut wanted = query.chars().flat_map(char::to_lowercase).peekable();
    for ch in name.chars().flat_map(char::to_lowercase) {
        if wanted.peek() == Some(&ch) {
            wanted.next();
        }
    }
    wanted.peek().is_none()
}

fn function_symbol(function: Function<'_>) -> Option<Symbol> {
    let name = function.name()?;
    let (kind, keyword) = match function.kind() {
        FunctionKind::Entry => (SymbolKind::Entry, ".entry"),
        FunctionKind::Func => (SymbolKind::Function, ".func"),
    };
    // A mangled C++ name is shown demangled; the mangled name leads the detail.
    let demangled = demangle(name.text);
    let mut detail: Vec<&str> = Vec::new();
    if demangled.is_some() {
        detail.push(name.text);
    }
    detail.extend(function.linkage().iter().map(|t| t.text));
    detail.push(keyword);
    if function.body().is_none() {
        detail.push("(declaration)");
    }
    let mut children = Vec::new();
    for param in function
        .return_parameters()
        .into_iter()
        .chain(function.parameters())
    {
        children.extend(variable_symbols(param, true));
    }
    if let Some(body) = function.body() {
        block_symbols(body, &mut children);
    }
    Some(Symbol {
        name: demangled.unwrap_or_else(|| name.text.to_owned()),
        kind,
        detail: Some(detail.join(" ")),
        range: function.range(),
        selection_range: name.range(),
        children,
    })
}

fn block_symbols(block: Block<'_>, out: &mut Vec<Symbol>) {
    for statement in block.statements() {
        statement_symbols(statement, out);
    }
}

fn statement_symbols(statement: Statement<'_>, out: &mut Vec<Symbol>) {
    match statement {
        Statement::Variable(decl) => out.extend(variable_symbols(decl, false)),
        Statement::Label(label) => out.extend(label_symbol(label)),
        Statement::Block(block) => block_symbols(block, out),
        Statement::Instruction(_) | Statement::Directive(_) => {}
    }
}

fn label_symbol(label: Label<'_>) -> Option<Symbol> {
    let name = label.name()?;
    Some(Symbol {
        name: name.text.to_owned(),
        kind: SymbolKind::Label,
        detail: None,
        range: label.range(),
        selection_range: name.range(),
        children: Vec::new(),
    })
}

/// The specifiers of a declaration as written (`.shared .align 8 .b8`).
pub(crate) fn declaration_detail(decl: VariableDecl<'_>) -> String {
    let text = decl.text();
    let end = decl
        .declarators()
        .first()
        .map(|d| d.range().start - decl.range().start)
        .unwrap_or(text.len());
    text[..end].split_whitespace().collect::<Vec<_>>().join(" ")
}

fn variable_symbols(decl: VariableDecl<'_>, parameter: bool) -> Vec<Symbol> {
    let is_register = decl.state_space().is_some_and(|s| s.text == ".reg");
    let kind = if parameter {
        SymbolKind::Parameter
    } else if is_register {
        SymbolKind::Register
    } else {
        SymbolKind::Variable
    };
    let detail = declaration_detail(decl);
    decl.declarators()
        .into_iter()
        .filter_map(|declarator| {
            let name = declarator.name()?;
            let shown = match declarator.count() {
                Some(count) => format!("{}<{count}>", name.text),
                None => name.text.to_owned(),
            };
            Some(Symbol {
                name: shown,
                kind,
                detail: Some(detail.clone()),
                // One declaration may declare several names; each symbol's
                // range must contain its selection range, so a declarator
                // other than the first gets its own range.
                range: if decl.declarators().len() == 1 {
                    decl.range()
                } else {
                    declarator.range()
                },
                selection_range: name.range(),
                children: Vec::new(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{expect, Expect};

    fn render(symbols: &[Symbol], depth: usize, text: &str, out: &mut String) {
        for s in symbols {
            out.push_str(&format!(
                "{}{:?} {} [{}] {:?}\n",
                "  ".repeat(depth),
                s.kind,
                s.name,
                s.detail.as_deref().unwrap_or(""),
                &text[s.selection_range.clone()],
            ));
            assert!(
                s.range.start <= s.selection_range.start && s.selection_range.end <= s.range.end
            );
            render(&s.children, depth + 1, text, out);
        }
    }

    fn check(text: &str, expect: Expect) {
        let parse = Parse::new(text);
        let mut out = String::new();
        render(&document_symbols(&parse), 0, text, &mut out);
        expect.assert_eq(&out);
    }

    #[test]
    fn outline_of_a_module() {
        check(
            r#".version 9.0
.target sm_90
.global .align 4 .b32 counter, other[4];
.extern .func (.param .b32 r) helper(.param .b32 x);
.visible .entry k(.param .u64 out, .param .u32 n)
{
  .reg .b32 %r<4>;
  .shared .align 8 .b8 tile[64];
$L__BB0_1:
  {
    .reg .pred p;
  inner:
    bra inner;
  }
  ret;
}
"#,
            expect![[r#"
                Function helper [.extern .func (declaration)] "helper"
                  Parameter r [.param .b32] "r"
                  Parameter x [.param .b32] "x"
                Entry k [.visible .entry] "k"
                  Parameter out [.param .u64] "out"
                  Parameter n [.param .u32] "n"
                  Register %r<4> [.reg .b32] "%r"
                  Variable tile [.shared .align 8 .b8] "tile"
                  Label $L__BB0_1 [] "$L__BB0_1"
                  Register p [.reg .pred] "p"
                  Label inner [] "inner"
                Variable counter [.global .align 4 .b32] "counter"
                Variable other [.global .align 4 .b32] "other"
            "#]],
        );
    }

    /// nvcc's mangled C++ names are shown as C++ writes them, with the mangled name first in
    /// the detail; kernels and functions come before the module's variables.
    #[test]
    fn mangled_names_are_demangled_and_functions_come_first() {
        check(
            r#".version 9.0
.target sm_90
.global .align 1 .b8 __nv_static_51__abc_data[4];
.func (.param .b32 r) _Z6helperfi(.param .b32 x, .param .b32 y);
.visible .entry _Z5scalePfi(.param .u64 p, .param .u32 n) { ret; }
.visible .entry plain() { ret; }
"#,
            expect![[r#"
                Function helper(float, int) [_Z6helperfi .func (declaration)] "_Z6helperfi"
                  Parameter r [.param .b32] "r"
                  Parameter x [.param .b32] "x"
                  Parameter y [.param .b32] "y"
                Entry scale(float*, int) [_Z5scalePfi .visible .entry] "_Z5scalePfi"
                  Parameter p [.param .u64] "p"
                  Parameter n [.param .u32] "n"
                Entry plain [.visible .entry] "plain"
                Variable __nv_static_51__abc_data [.global .align 1 .b8] "__nv_static_51__abc_data"
            "#]],
        );
        let parse = Parse::new(".func _Z6helperfi();\n.entry _Z5scalePfi() { ret; }\n");
        let names: Vec<String> = workspace_symbols(&parse, "_Z6h")
            .into_iter()
            .map(|s| s.symbol.name)
            .collect();
        assert_eq!(names, ["helper(float, int)"]);
        assert_eq!(
            demangle("_Z5scalePfi").as_deref(),
            Some("scale(float*, int)")
        );
        assert_eq!(demangle("plain"), None);
        assert_eq!(demangle("_Znot a name"), None);
    }

    #[test]
    fn snippets_and_broken_code() {
        check(
            ".reg .b32 %r1;\nloop: add.s32 %r1, %r1, 1;\n.entry broken( {\n",
            expect![[r#"
                Entry broken [.entry (declaration)] "broken"
                Register %r1 [.reg .b32] "%r1"
                Label loop [] "loop"
            "#]],
        );
    }

    #[test]
    fn workspace_query_is_a_case_insensitive_subsequence() {
        let parse = Parse::new(
            ".entry hopper_kernel() { $L1: ret; }\n.func helper() { ret; }\n.global .b32 g;\n",
        );
        let names = |query: &str| -> Vec<String> {
            workspace_symbols(&parse, query)
                .into_iter()
                .map(|s| {
                    format!(
                        "{}{}",
                        s.symbol.name,
                        s.container.map(|c| format!(" in {c}")).unwrap_or_default()
                    )
                })
                .collect()
        };
        assert_eq!(names(""), ["hopper_kernel", "helper", "g"]);
        assert_eq!(names("HK"), ["hopper_kernel"]);
        assert_eq!(names("l1"), ["$L1 in hopper_kernel"]);
        assert_eq!(names("zz"), Vec::<String>::new());
    }
}
