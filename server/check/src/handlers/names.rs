//! Declarations and uses of names (PTX ISA 5.3–5.4 for variables and registers, 4.4 for
//! identifiers and labels, 11.2 for functions): undeclared registers, labels, variables and
//! functions; names declared twice in one scope.

use ptx_syntax::{Item, OperandKind, Token};

use super::operand_types::any_symbol;
use crate::context::{Ctx, InstInfo};
use crate::scope::{Duplicate, Frame, Scope, Symbol, SymbolKind};
use crate::Diagnostic;

/// Predefined identifiers (PTX ISA 4.4).
pub(crate) const PREDEFINED: &[&str] = &["WARP_SZ"];

/// A variable, parameter or register declared with a type only instructions take (the ISA's
/// types that are not `declarable`; ptxas 13.5: "Type .e4m3 may only be used as an
/// instruction type", and a syntax error for `.bf16`, `.bf16x2` and `.tf32`). The fix is the
/// bit type of the same size.
pub(crate) fn check_variable_type(ctx: &mut Ctx<'_>, ty: Option<ptx_syntax::Token<'_>>) {
    let Some(ty) = ty else { return };
    let Some(info) = ctx.isa.types().iter().find(|t| t.name == ty.text) else {
        return;
    };
    if info.declarable {
        // A packed pair of halves is a type of sm_53 on, also in declarations (ptxas 13.5:
        // "Feature '.f16x2 packed data-type' requires .target sm_53 or higher"); `.f16`
        // alone is declarable on any target.
        if ty.text == ".f16x2" {
            let old = ctx
                .sm_target()
                .and_then(ptx_isa::SmName::parse)
                .is_some_and(|sm| sm.number < 53);
            if old {
                let target = ctx.sm_target().unwrap_or_default().to_owned();
                ctx.report(
                    Diagnostic::error(
                        "unsupported-target",
                        ty.range(),
                        format!(
                            "`.f16x2` values need .target sm_53 or newer (this file targets {target}); \
                             declare the pair as `.b32`",
                        ),
                    )
                    .section("5.2.5.1"),
                );
            }
        }
        return;
    }
    let instead = format!(".b{}", info.bits.max(8).next_power_of_two());
    ctx.report(
        Diagnostic::error(
            "instruction-only-type",
            ty.range(),
            format!(
                "`{}` is only an instruction type; declare the variable as `{instead}` (same size)",
                ty.text
            ),
        )
        .section("5.2.3")
        .with_fix(crate::Fix::replace(
            format!("Declare as `{instead}`"),
            ty.range(),
            instead,
        )),
    );
}

/// The module's functions and variables.
pub(crate) fn module_frame<'a>(ctx: &mut Ctx<'a>, items: &[Item<'a>]) -> Frame<'a> {
    let mut frame = Frame::default();
    let mut duplicates = Vec::new();
    let mut defined: std::collections::HashMap<&str, ptx_syntax::TextRange> =
        std::collections::HashMap::new();
    let mut externs: Vec<&'a str> = Vec::new();
    // `.extern` arrays of unknown size, and the names that some other declaration defines.
    let mut unsized_externs: Vec<Token<'a>> = Vec::new();
    let mut defined_variables: Vec<&'a str> = Vec::new();
    // Functions declared without `.extern` and without a body.
    let mut declared_only: Vec<Token<'a>> = Vec::new();
    ctx.functions.clear();
    let mut callees: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for item in items {
        match item {
            Item::Variable(decl) => {
                let ty = frame.declare_variable(decl, &mut duplicates);
                check_variable_type(ctx, ty);
                let parts = decl.parts();
                let external = parts.linkage.iter().any(|t| t.text == ".extern");
                let shared = parts.state_space.is_some_and(|s| s.text == ".shared");
                for d in &parts.declarators {
                    let Some(name) = d.name() else { continue };
                    // An array with a dimension of 0 is as incomplete as `[]` to ptxas 13.5.
                    let incomplete = d.dimensions().iter().any(|dim| {
                        dim.is_none_or(|t| ptx_syntax::parse_integer(t.text) == Some(0))
                    });
                    // An `.extern` declaration with a size (after one without) is enough.
                    if !external || !incomplete {
                        defined_variables.push(name.text);
                    }
                    if external && !shared && incomplete {
                        unsized_externs.push(name);
                    }
                }
            }
            Item::Function(function) => {
                let Some(name) = function.name() else {
                    continue;
                };
                super::declarations::special_register_name(ctx, name, "a function");
                if callees.insert(name.text) {
                    ctx.functions.push(super::calls::Callee::of(
                        function,
                        name.text,
                        name.range().start,
                    ));
                }
                let symbol = Symbol {
                    kind: SymbolKind::Function,
                    ty: None,
                    vector: None,
                    space: None,
                    range: name.range(),
                };
                let _ = frame.declare(name.text, symbol);
                // 11.6.1 `.extern`: the function is defined in another module. ptxas 13.5
                // rejects a body on an `.extern` function ("Function definition conflicts
                // with '.extern' declaration") and a definition after an `.extern`
                // prototype in the same module ("Inconsistent redefinition").
                let is_extern = function.linkage().iter().any(|t| t.text == ".extern");
                if is_extern {
                    externs.push(name.text);
                } else if function.body().is_none()
                    && !function.linkage().iter().any(|t| t.text == ".common")
                {
                    declared_only.push(name);
                }
                if function.body().is_some() && (is_extern || externs.contains(&name.text)) {
                    ctx.report(
                        Diagnostic::error(
                            "extern-definition",
                            name.range(),
                            format!(
                                "`{}` is declared `.extern` (defined in another module) and cannot be defined here",
                                name.text
                            ),
                        )
                        .section("11.6.1"),
                    );
                }
                if function.body().is_some() {
                    if let Some(first) = defined.get(name.text) {
                        duplicates.push(Duplicate {
                            name: name.text.to_owned(),
                            kind: SymbolKind::Function,
                            range: name.range(),
                            first: first.clone(),
                        });
                    } else {
                        defined.insert(name.text, name.range());
                    }
                }
            }
            _ => {}
        }
    }
    report_duplicates(ctx, duplicates);
    // 11.6.1: an `.extern` variable is defined in another module. ptxas 13.5, assembling the
    // file as a whole program, ignores `.extern` on one whose size it knows (a warning) but
    // stops with "Unresolved extern variable" on an array of unknown size (`[]`) that no
    // declaration of the file defines; `.extern .shared` arrays of unknown size are the
    // dynamically sized shared memory and need no definition.
    for name in unsized_externs {
        if defined_variables.contains(&name.text) {
            continue;
        }
        ctx.report(
            Diagnostic::error(
                "unresolved-variable",
                name.range(),
                format!(
                    "`{}` is an `.extern` array of unknown size defined nowhere in this file: \
                     ptxas cannot resolve it when it assembles the file as a whole program \
                     (define it here with a size, or assemble with `ptxas -c` and link it)",
                    name.text
                ),
            )
            .section("11.6.1"),
        );
    }
    ctx.outside_abi_functions = ctx
        .functions
        .iter()
        .filter(|f| !f.entry && f.has_outside_abi())
        .map(|f| f.name)
        .collect();
    // An `.extern` function made an alias of a function of the module is resolved.
    let aliases: Vec<&str> = items
        .iter()
        .filter_map(|item| match item {
            Item::Directive(d) if d.kind() == ptx_syntax::DirectiveKind::Alias => {
                d.names().first().map(|t| t.text)
            }
            _ => None,
        })
        .collect();
    // A function declared without `.extern` is one of this module: ptxas 13.5 wants its
    // definition here, called or not ("Unresolved extern function").
    for name in declared_only {
        if defined.contains_key(name.text)
            || aliases.contains(&name.text)
            || ctx.isa.ptxas_system_call(name.text)
        {
            continue;
        }
        ctx.report(
            Diagnostic::error(
                "unresolved-function",
                name.range(),
                format!(
                    "`{}` is declared but defined nowhere in this file; a function of another module is declared `.extern`",
                    name.text
                ),
            )
            .section("11.6.1"),
        );
    }
    externs.retain(|name| {
        !ctx.isa.ptxas_system_call(name) && !defined.contains_key(name) && !aliases.contains(name)
    });
    ctx.unresolved_functions = externs;
    frame
}

pub(crate) fn report_duplicates(ctx: &mut Ctx<'_>, duplicates: Vec<Duplicate>) {
    for dup in duplicates {
        let (code, what, section) = match dup.kind {
            SymbolKind::Register => ("duplicate-register", "register", "5.4"),
            SymbolKind::Variable => ("duplicate-variable", "variable", "5.4"),
            SymbolKind::Label => ("duplicate-label", "label", "4.4"),
            SymbolKind::Function => ("duplicate-function", "function", "11.2"),
        };
        ctx.report(
            Diagnostic::error(
                code,
                dup.range,
                format!("{what} `{}` is already declared in this scope", dup.name),
            )
            .section(section)
            .with_related(dup.first, "first declared here"),
        );
    }
}

/// Reports registers and names an instruction uses that are not declared.
pub(crate) fn check_uses(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    if let Some(guard) = &info.guard {
        check_register(ctx, guard.predicate, scope);
    }
    for &(_, register) in &info.registers {
        check_register(ctx, register, scope);
    }
    for &(_, name) in &info.identifiers {
        check_name(ctx, name, scope);
    }
    if info.words[0] == "call" {
        check_callee_resolves(ctx, info);
    } else {
        check_address_resolves(ctx, info);
    }
}

/// The address of a function that is only declared `.extern` (`mov.u64 %rd1, f;`): ptxas,
/// assembling the file as a whole program, stops with "Cannot take address of function 'f'".
fn check_address_resolves(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    for &(_, name) in &info.identifiers {
        if !ctx.unresolved_functions.contains(&name.text) {
            continue;
        }
        ctx.report(
            Diagnostic::error(
                "unresolved-function",
                name.range(),
                format!(
                    "`{}` is declared `.extern` but defined nowhere in this file: ptxas cannot \
                     take its address when it assembles the file as a whole program (define \
                     it here, or assemble with `ptxas -c` and link it)",
                    name.text
                ),
            )
            .section("11.2"),
        );
    }
}

/// A direct call of a function that is only declared `.extern`: ptxas, assembling the file as
/// a whole program (no `-c`), stops with "Unresolved extern function" (PTX ISA 11.2 on
/// `.extern`; the functions it resolves itself are `Isa::ptxas_system_call`).
fn check_callee_resolves(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let Some(callee) = info
        .operands
        .iter()
        .find(|o| matches!(o.kind(), OperandKind::Identifier(_)))
    else {
        return;
    };
    let name = callee.text();
    if !ctx.unresolved_functions.contains(&name) {
        return;
    }
    ctx.report(
        Diagnostic::error(
            "unresolved-function",
            callee.range(),
            format!(
                "`{name}` is declared `.extern` but defined nowhere in this file: ptxas cannot \
                 resolve the call when it assembles the file as a whole program (define it \
                 here, or assemble with `ptxas -c` and link it)"
            ),
        )
        .section("11.2"),
    );
}

fn check_register(ctx: &mut Ctx<'_>, register: Token<'_>, scope: &Scope<'_>) {
    let name = register.text;
    if !name.starts_with('%') {
        check_name(ctx, register, scope);
        return;
    }
    if any_symbol(scope, name).is_some() || ctx.isa.special_register(name).is_some() {
        return;
    }
    ctx.report(
        Diagnostic::error(
            "undeclared-register",
            register.range(),
            format!("register `{name}` is not declared (declare it with `.reg`)"),
        )
        .section("5.4.1"),
    );
}

fn check_name(ctx: &mut Ctx<'_>, name: Token<'_>, scope: &Scope<'_>) {
    if any_symbol(scope, name.text).is_some() || PREDEFINED.contains(&name.text) {
        return;
    }
    let message = if ctx.nested_labels.contains(&name.text) {
        format!(
            "`{}` labels a statement inside another `{{ }}` block: a label is seen only in its own block and the blocks nested in it",
            name.text
        )
    } else {
        format!(
            "`{}` is not declared: no label, variable, register or function has this name",
            name.text
        )
    };
    ctx.report(Diagnostic::error("undeclared-name", name.range(), message).section("4.4"));
}

#[cfg(test)]
mod tests {
    use crate::test_support::check_diagnostics;

    #[test]
    fn undeclared_and_duplicates() {
        check_diagnostics(
            r#"
.version 8.0
.target sm_90
.address_size 64
.global .b32 g1;
.global .b32 g1;
//           ^^ error: variable `g1` is already declared in this scope
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .b32 %r2;
//          ^^^ error: register `%r2` is already declared in this scope
  mov.u32 %r1, %r9;
//             ^^^ error: register `%r9` is not declared (declare it with `.reg`)
  mov.u32 %r1, %tid.x;
  bra DONE;
//    ^^^^ error: `DONE` is not declared: no label, variable, register or function has this name
L1:
L1:
// <- error: label `L1` is already declared in this scope
  ret;
}
"#,
        );
    }

    #[test]
    fn nested_blocks_have_their_own_scope() {
        check_diagnostics(
            r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
  { .reg .b32 %x; mov.u32 %x, WARP_SZ; }
  { .reg .b32 %x; mov.u32 %x, 1; }
  ret;
}
"#,
        );
    }

    #[test]
    fn extern_functions_and_variables() {
        check_diagnostics(
            r#"
.version 8.0
.target sm_80
.address_size 64
.extern .func f();
.func f() { ret; }
//    ^ error: `f` is declared `.extern` (defined in another module) and cannot be defined here
.extern .global .u32 x;
.visible .global .u32 x;
.extern .global .align 4 .b8 unsized[];
//                           ^^^^^^^ error: `unsized` is an `.extern` array of unknown size defined nowhere in this file: ptxas cannot resolve it when it assembles the file as a whole program (define it here with a size, or assemble with `ptxas -c` and link it)
.extern .const .b32 sized[4], rows[][4];
//                            ^^^^ error: `rows` is an `.extern` array of unknown size defined nowhere in this file: ptxas cannot resolve it when it assembles the file as a whole program (define it here with a size, or assemble with `ptxas -c` and link it)
.extern .global .b8 later[];
.visible .global .b8 later[16];
.extern .shared .align 16 .b8 dynamic[];
.visible .entry k() { ret; }
"#,
        );
    }
}
