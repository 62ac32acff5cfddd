//! Rules on declarations that ptxas 13.5 enforces beyond the grammar: which variables may have
//! an initial value, where `.pred` and `.common` may stand, vector widths of variables, and the
//! entry and performance directives of functions (PTX ISA 5.4, 11.4–11.6). Each rule was
//! measured with ptxas 13.5 on the whole-module set (fixtures/modules).

use ptx_syntax::{Function, Item, Statement, VariableDecl};

use crate::context::Ctx;
use crate::Diagnostic;

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    for item in ctx.module.items() {
        match item {
            Item::Variable(decl) => variable(ctx, &decl),
            Item::Function(function) => {
                self::function(ctx, &function);
                if let Some(body) = function.body() {
                    block(ctx, &body.statements());
                }
            }
            Item::Statement(Statement::Variable(decl)) => variable(ctx, &decl),
            _ => {}
        }
    }
}

fn block(ctx: &mut Ctx<'_>, statements: &[Statement<'_>]) {
    for statement in statements {
        match statement {
            Statement::Variable(decl) => variable(ctx, decl),
            Statement::Block(inner) => block(ctx, &inner.statements()),
            _ => {}
        }
    }
}

fn variable(ctx: &mut Ctx<'_>, decl: &VariableDecl<'_>) {
    let parts = decl.parts();
    let Some(space) = parts.state_space else {
        return;
    };
    let ty = parts.ty.map(|t| t.text);
    // 5.2.x: predicates are register-only and scalar ("Predicate type can only be used to
    // define scalar register variables").
    if ty == Some(".pred") && (space.text != ".reg" || parts.vector.is_some()) {
        let range = parts.ty.map_or(space.range(), |t| t.range());
        ctx.report(
            Diagnostic::error(
                "state-space",
                range,
                "a `.pred` variable is a scalar `.reg`: predicates cannot live in memory or in vectors",
            )
            .section("5.2"),
        );
        return;
    }
    // 5.3: samplers are separate objects only in the independent texturing mode ("Instruction
    // or declaration violates .target texmode_unified setting").
    if ty == Some(".samplerref") && !ctx.targets.iter().any(|t| t.name == "texmode_independent") {
        let range = parts.ty.map_or(space.range(), |t| t.range());
        ctx.report(
            Diagnostic::error(
                "state-space",
                range,
                "a `.samplerref` needs `.target …, texmode_independent`: in the unified mode a texture carries its sampler",
            )
            .section("5.3"),
        );
    }
    let linkage: Vec<&str> = parts.linkage.iter().map(|t| t.text).collect();
    // 11.6.4 `.common` ("`.common` variables must be declared in .global space").
    if linkage.contains(&".common") && space.text != ".global" {
        ctx.report(
            Diagnostic::error(
                "state-space",
                space.range(),
                format!("a `.common` variable is `.global`, not `{}`", space.text),
            )
            .section("11.6.4"),
        );
    }
    // 5.4.5: a vector variable is at most 128 bits ("Vector type too large").
    if let (Some(vector), Some(bits)) = (parts.vector, ty.and_then(type_bits)) {
        let count: u32 = vector.text.trim_start_matches(".v").parse().unwrap_or(1);
        if count * bits > 128 {
            ctx.report(
                Diagnostic::error(
                    "vector-length",
                    vector.range(),
                    format!(
                        "a `{} {}` variable is {} bits; a vector is at most 128 bits",
                        vector.text,
                        ty.unwrap_or_default(),
                        count * bits
                    ),
                )
                .section("5.4.5"),
            );
        }
    }
    for declarator in &parts.declarators {
        let Some(value) = declarator.initializer() else {
            continue;
        };
        // 5.4.4: only `.const` and `.global` variables take an initial value ("No initial
        // value is allowed for 'v' in this state space"), never an `.extern` one or an
        // `.f16` one.
        let message = if linkage.contains(&".extern") {
            Some("an `.extern` variable is defined elsewhere and takes no initial value".to_owned())
        } else if !matches!(space.text, ".global" | ".const") {
            Some(format!(
                "a `{}` variable takes no initial value: only `.global` and `.const` ones do",
                space.text
            ))
        } else if ty == Some(".f16") {
            Some("a `.f16` variable takes no initial value (ptxas 13.5)".to_owned())
        } else {
            None
        };
        if let Some(message) = message {
            ctx.report(Diagnostic::error("initializer", value.range(), message).section("5.4.4"));
        }
    }
}

fn type_bits(ty: &str) -> Option<u32> {
    let digits: String = ty.chars().filter(char::is_ascii_digit).collect();
    let bits: u32 = digits.parse().ok()?;
    Some(if ty.ends_with("x2") { bits * 2 } else { bits })
}

/// Entry and performance directives (11.4): `.maxnctapersm` is gone since PTX 2.1, and the
/// thread counts are positive.
fn function(ctx: &mut Ctx<'_>, function: &Function<'_>) {
    let kind = match function.kind() {
        ptx_syntax::FunctionKind::Entry => "entry",
        ptx_syntax::FunctionKind::Func => "func",
    };
    for (name, values) in function.attributes() {
        if let Some(wanted) = ctx.isa.function_directive_kind(name.text) {
            if wanted != kind {
                ctx.report(
                    Diagnostic::error(
                        "directive",
                        name.range(),
                        format!("`{}` belongs to a `.{wanted}`, not a `.{kind}`", name.text),
                    )
                    .section("11.4"),
                );
                continue;
            }
        }
        match name.text {
            ".maxnctapersm" => ctx.report(
                Diagnostic::error(
                    "directive",
                    name.range(),
                    "`.maxnctapersm` was removed in PTX ISA 2.1; use `.minnctapersm`",
                )
                .section("11.4.3"),
            ),
            ".maxntid" | ".reqntid" | ".reqnctapercluster" | ".maxclusterrank" => {
                for value in &values {
                    if value.text.trim() == "0" {
                        ctx.report(
                            Diagnostic::error(
                                "directive",
                                value.range(),
                                format!("`{}` takes positive counts, not 0", name.text),
                            )
                            .section("11.4"),
                        );
                    }
                }
            }
            _ => {}
        }
    }
}
