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

/// The outline of a document, in source order.
pub fn document_symbols(parse: &Parse) -> Vec<Symbol> {
    let module = parse.module();
    let mut out = Vec::new();
    for item in module.items() {
        match item {
            Item::Function(function) => out.extend(function_symbol(function)),
            Item::Variable(decl) => out.extend(variable_symbols(decl, false)),
            // Snippets: statements outside any function.
            Item::Statement(statement) => statement_symbols(statement, &mut out),
            Item::Directive(_) => {}
        }
    }
    out
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
        matches_query(&symbol.name, query)
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
    let mut detail: Vec<&str> = function.linkage().iter().map(|t| t.text).collect();
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
        name: name.text.to_owned(),
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
                Variable counter [.global .align 4 .b32] "counter"
                Variable other [.global .align 4 .b32] "other"
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
            "#]],
        );
    }

    #[test]
    fn snippets_and_broken_code() {
        check(
            ".reg .b32 %r1;\nloop: add.s32 %r1, %r1, 1;\n.entry broken( {\n",
            expect![[r#"
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
