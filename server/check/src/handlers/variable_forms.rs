//! Forms of a variable declaration that ptxas 13.5 refuses although the grammar reads them:
//! an attribute on the wrong state space, an unsized dimension after the first or a zero
//! one, a parameterized name (`%r<4>`) with an initial value, `.sreg`, register arrays,
//! and what a function body may not declare (linkage, scalar `.param` vectors, texture
//! handles).

use ptx_syntax::{DeclParts, VariableDecl};

use crate::context::Ctx;
use crate::Diagnostic;

pub(crate) fn check(
    ctx: &mut Ctx<'_>,
    decl: &VariableDecl<'_>,
    parts: &DeclParts<'_>,
    in_body: bool,
) {
    managed(ctx, decl, parts);
    let space = parts.state_space.map(|s| s.text);
    let report = |ctx: &mut Ctx<'_>, code, range, message: String, section: &str| {
        ctx.report(Diagnostic::error(code, range, message).section(section.to_owned()));
    };
    // 9.x: special registers are predefined; ptxas 13.5 has no `.sreg` declaration
    // ("Parsing error near '.sreg'").
    if let Some(sreg) = parts.state_space.filter(|s| s.text == ".sreg") {
        report(
            ctx,
            "syntax-error",
            sreg.range(),
            "special registers are predefined (`%tid`, `%clock` ...); `.sreg` declares nothing"
                .to_owned(),
            "5.1.2",
        );
        return;
    }
    if in_body {
        // 5.4.1: linkage is for module-scope names ("Parsing error near '.extern'").
        if let Some(linkage) = parts.linkage.first() {
            report(
                ctx,
                "syntax-error",
                linkage.range(),
                format!(
                    "`{}` is for module-scope names; a variable inside a function takes no linkage directive",
                    linkage.text
                ),
                "11.6",
            );
        }
        // 5.3: texture, sampler and surface handles are module variables or kernel
        // parameters ("Texture/surface variable must be at module or entry parameter scope").
        if let Some(ty) = parts
            .ty
            .filter(|t| matches!(t.text, ".texref" | ".samplerref" | ".surfref"))
        {
            report(
                ctx,
                "state-space",
                ty.range(),
                format!(
                    "a `{}` is declared at module scope or as a kernel parameter, not inside a function",
                    ty.text
                ),
                "5.3",
            );
        }
    }
    // 5.1.6.3: `.ptr` belongs to kernel parameters (ptxas 13.5: "Parsing error near '.ptr'"
    // on a variable).
    if let Some(ptr) = decl.ptr_attribute() {
        ctx.report(
            Diagnostic::error(
                "syntax-error",
                ptr.range(),
                "`.ptr` is an attribute of kernel parameters; a variable takes none",
            )
            .section("5.1.6.3"),
        );
    }
    for declarator in &parts.declarators {
        let dims = declarator.dimensions();
        let name_range = declarator.name().map_or(declarator.range(), |n| n.range());
        // 5.1.1: registers hold scalars and vectors, not arrays ("Variable 'x' cannot be
        // allocated into a register").
        if space == Some(".reg") && !dims.is_empty() {
            report(
                ctx,
                "state-space",
                name_range.clone(),
                "a `.reg` variable cannot be an array; declare several registers (`%r<4>`) or use `.local`".to_owned(),
                "5.1.1",
            );
        }
        // 5.1.6: a `.param` variable of a body carries a call's argument or result; ptxas
        // 13.5 places no lone vector there ("Variable 'x' cannot be allocated in .param
        // state space"), though it takes an array of vectors.
        if in_body && space == Some(".param") && parts.vector.is_some() && dims.is_empty() {
            report(
                ctx,
                "state-space",
                name_range.clone(),
                "a `.param` variable in a function body cannot be a lone vector; declare an array of bytes (`.align 16 .b8 x[16]`)".to_owned(),
                "5.1.6",
            );
        }
        // 5.4.3: an array has at least one element ("Non-external variable 'x' has
        // incomplete type", "Array of incomplete type").
        let zero = dims
            .iter()
            .flatten()
            .find(|d| ptx_syntax::parse_integer(d.text) == Some(0));
        if let Some(zero) = zero.filter(|_| !parts.linkage.iter().any(|l| l.text == ".extern")) {
            report(
                ctx,
                "initializer",
                zero.range(),
                "an array dimension of 0 leaves the array without elements; give a positive size"
                    .to_owned(),
                "5.4.3",
            );
        }
        // 5.4.3: only the first dimension may be left for the initial values to size
        // (ptxas 13.5: "Parsing error near ']'" for `x[2][]`).
        if dims.iter().skip(1).any(Option::is_none) {
            let range = name_range.clone();
            ctx.report(
                Diagnostic::error(
                    "syntax-error",
                    range,
                    "only the first dimension of an array may be left empty (`x[][4]`)",
                )
                .section("5.4.3"),
            );
        }
        // 5.4.6: `%r<4>` declares names, which take no initial value ("Parsing error near
        // '='").
        if let (Some(_), Some(value)) = (declarator.count(), declarator.initializer()) {
            ctx.report(
                Diagnostic::error(
                    "syntax-error",
                    value.range(),
                    "a parameterized name (`%r<N>`) declares several variables and takes no initial value",
                )
                .section("5.4.6"),
            );
        }
    }
}

/// 5.4.8: `.attribute(.managed)` is for `.global` variables (ptxas 13.5: "Illegal attribute
/// '.managed' for symbol").
fn managed(ctx: &mut Ctx<'_>, decl: &VariableDecl<'_>, parts: &DeclParts<'_>) {
    let space = parts.state_space.map(|s| s.text);
    if space == Some(".global") {
        return;
    }
    for attribute in decl.attributes() {
        if attribute.text == ".managed" {
            ctx.report(
                Diagnostic::error(
                    "state-space",
                    attribute.range(),
                    format!(
                        "`.managed` marks a `.global` variable; a `{}` one takes no such attribute",
                        space.unwrap_or("?")
                    ),
                )
                .section("5.4.8"),
            );
        }
    }
}
