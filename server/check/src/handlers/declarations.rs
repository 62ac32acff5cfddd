//! Rules on declarations that ptxas 13.5 enforces beyond the grammar: which variables may have
//! an initial value, where `.pred` and `.common` may stand, vector widths of variables, and the
//! entry and performance directives of functions (PTX ISA 5.4, 11.4–11.6). Each rule was
//! measured with ptxas 13.5 on the whole-module set (fixtures/modules).

use std::collections::{HashMap, HashSet};

use ptx_syntax::{DirectiveKind, Function, Item, Statement, VariableDecl};

use super::operand_types::type_bits;
use crate::context::Ctx;
use crate::Diagnostic;
use ptx_isa::PtxVersion;

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    let items = ctx.module.items();
    let globals = Globals::of(&items);
    let mut aliased: Vec<&str> = Vec::new();
    for item in &items {
        match item {
            Item::Variable(decl) => {
                for name in decl.declarators().iter().filter_map(|d| d.name()) {
                    special_register_name(ctx, name, "a module variable");
                    if globals.function(name.text).is_some() {
                        ctx.report(
                            Diagnostic::error(
                                "redeclaration",
                                name.range(),
                                format!(
                                    "`{}` is also a function's name; a module variable needs another",
                                    name.text
                                ),
                            )
                            .section("11.2"),
                        );
                    }
                }
                variable(ctx, decl, false);
                initial_names(ctx, decl, &globals);
                module_local(ctx, decl);
            }
            // The body's declarations are checked with the rest of the body (see [`body`]),
            // so that an edit elsewhere reuses their diagnostics.
            Item::Function(function) => self::function(ctx, function),
            Item::Statement(Statement::Variable(decl)) => variable(ctx, decl, false),
            // ptxas 13.5: a syntax error at module scope.
            Item::Directive(d)
                if matches!(
                    d.kind(),
                    DirectiveKind::CallPrototype
                        | DirectiveKind::CallTargets
                        | DirectiveKind::BranchTargets
                ) =>
            {
                ctx.report(
                    Diagnostic::error(
                        "directive",
                        d.keyword().range(),
                        format!("`{}` stands inside a function body", d.keyword().text),
                    )
                    .section("11.5"),
                );
            }
            Item::Directive(d) if d.kind() == DirectiveKind::Section => section(ctx, d),
            Item::Directive(d) if d.kind() == DirectiveKind::Pragma => {
                super::pragmas::check(ctx, d.range(), super::pragmas::Place::Module);
            }
            Item::Directive(d) if d.kind() == DirectiveKind::Alias => {
                alias(ctx, d, &globals, &mut aliased);
            }
            Item::Directive(d) if d.kind() == DirectiveKind::Dwarf => dwarf(ctx, d, false),
            // 11.5.2: `.loc` belongs inside a function body (ptxas: a syntax error outside).
            Item::Directive(d) if d.kind() == DirectiveKind::Loc => ctx.report(
                Diagnostic::error(
                    "directive",
                    d.keyword().range(),
                    "`.loc` stands inside a function body",
                )
                .section("11.5.2"),
            ),
            _ => {}
        }
    }
    redeclarations(ctx, &items);
    function_linkages(ctx, &items);
    files(ctx, &items);
}

/// The results and parameters of a function as its prototype's comparisons read them: state
/// space, type and array dimensions of each.
fn prototype_shape(f: &Function<'_>) -> Vec<String> {
    f.return_parameters()
        .iter()
        .map(|p| (true, p))
        .chain(f.parameters().iter().map(|p| (false, p)))
        .map(|(result, p)| {
            let parts = p.parts();
            let dims: Vec<String> = parts
                .declarators
                .iter()
                .flat_map(|d| d.dimensions())
                .map(|t| t.map_or(String::new(), |t| t.text.to_owned()))
                .collect();
            format!(
                "{}{} {} {} {}",
                if result { "->" } else { "" },
                parts.state_space.map_or("", |t| t.text),
                parts.ty.map_or("", |t| t.text),
                p.alignment().map_or("", |t| t.text),
                dims.join(",")
            )
        })
        .collect()
}

/// A function declared (without a body) and then defined: ptxas 13.5 takes the definition
/// with the declaration's linkage or with none, and refuses another ("Inconsistent
/// redefinition of variable 'f'" for `.weak .func f();` then `.visible .func f() {…}`). An
/// `.extern` declaration is extern_definition's report (names.rs).
fn function_linkages(ctx: &mut Ctx<'_>, items: &[Item<'_>]) {
    use std::collections::hash_map::Entry;
    let mut declared: HashMap<&str, Option<&str>> = HashMap::new();
    // The first declaration of each name, with its prototype once a second one needs it.
    let mut first: HashMap<&str, (Function<'_>, Option<Vec<String>>)> = HashMap::new();
    let mut defined: HashSet<&str> = HashSet::new();
    let noreturn = |f: &Function<'_>| f.attributes().iter().any(|(n, _)| n.text == ".noreturn");
    for item in items {
        let Item::Function(function) = item else {
            continue;
        };
        let Some(name) = function.name() else {
            continue;
        };
        // A declaration after the definition (ptxas 13.5 "Duplicate definition of function
        // 'f'", whatever the linkages).
        if function.body().is_none() && defined.contains(name.text) {
            ctx.report(
                Diagnostic::error(
                    "redeclaration",
                    name.range(),
                    format!(
                        "`{}` is declared after its definition: declare a function before it is defined, or not at all",
                        name.text
                    ),
                )
                .section("11.6"),
            );
            continue;
        }
        if function.body().is_some() {
            defined.insert(name.text);
        }
        // `.noreturn` is on every declaration of the function or on none (ptxas 13.5
        // "Inconsistent redefinition of variable 'f'").
        if let Some((earlier, _)) = first.get(name.text) {
            if noreturn(earlier) != noreturn(function) {
                ctx.report(
                    Diagnostic::error(
                        "redeclaration",
                        name.range(),
                        format!(
                            "`{}` was declared {} `.noreturn`: its declarations and definition agree on it",
                            name.text,
                            if noreturn(earlier) { "with" } else { "without" }
                        ),
                    )
                    .section("11.4.6"),
                );
                continue;
            }
        }
        // Every declaration of a function has the first one's prototype ("Inconsistent
        // prototypes of 'f', parameter types differ"; parameter names may differ).
        if let Entry::Occupied(mut entry) = first.entry(name.text) {
            let (earlier, shape) = entry.get_mut();
            let earlier = shape.get_or_insert_with(|| prototype_shape(earlier));
            if *earlier != prototype_shape(function) {
                ctx.report(
                    Diagnostic::error(
                        "redeclaration",
                        name.range(),
                        format!(
                            "`{}` was declared before with another prototype (results, parameters, their state spaces, types, alignments and sizes must match)",
                            name.text
                        ),
                    )
                    .section("11.6"),
                );
                continue;
            }
        } else {
            first.insert(name.text, (*function, None));
        }
        let linkage = function
            .linkage()
            .iter()
            .map(|t| t.text)
            .find(|t| matches!(*t, ".visible" | ".weak" | ".extern" | ".common"));
        if function.body().is_none() {
            declared.entry(name.text).or_insert(linkage);
            continue;
        }
        let Some(&first) = declared.get(name.text) else {
            continue;
        };
        if first == Some(".extern") || linkage.is_none() || linkage == first {
            continue;
        }
        ctx.report(
            Diagnostic::error(
                "redeclaration",
                name.range(),
                format!(
                    "`{}` was declared {} and is defined {}: a definition keeps its declaration's linkage (or writes none)",
                    name.text,
                    first.map_or("without linkage".to_owned(), |l| format!("`{l}`")),
                    linkage.map_or("without linkage".to_owned(), |l| format!("`{l}`")),
                ),
            )
            .section("11.6"),
        );
    }
}

/// The module's variables and functions by name (first declaration).
struct Globals<'a> {
    variables: Vec<(&'a str, Option<&'a str>)>,
    functions: Vec<(&'a str, Function<'a>)>,
    /// Where each name is first declared (its name's offset).
    first: HashMap<&'a str, usize>,
    /// The names `.alias` makes stand for another function.
    aliases: Vec<&'a str>,
}

impl<'a> Globals<'a> {
    fn of(items: &[Item<'a>]) -> Globals<'a> {
        let mut globals = Globals {
            variables: Vec::new(),
            functions: Vec::new(),
            first: HashMap::new(),
            aliases: Vec::new(),
        };
        for item in items {
            match item {
                Item::Variable(decl) => {
                    let parts = decl.parts();
                    for d in &parts.declarators {
                        if let Some(name) = d.name() {
                            globals
                                .variables
                                .push((name.text, parts.state_space.map(|s| s.text)));
                            globals.first.entry(name.text).or_insert(name.start);
                        }
                    }
                }
                Item::Function(f) => {
                    if let Some(name) = f.name() {
                        globals.first.entry(name.text).or_insert(name.start);
                        globals.functions.push((name.text, *f));
                    }
                }
                Item::Directive(d) if d.kind() == ptx_syntax::DirectiveKind::Alias => {
                    globals.aliases.extend(d.names().first().map(|t| t.text));
                }
                _ => {}
            }
        }
        globals
    }

    /// Whether `name` is a function declared `.extern` that the module neither defines nor
    /// makes an alias: assembling the file as a whole program, ptxas 13.5 cannot take its
    /// address ("Cannot take address of function 'f'").
    fn unresolved_extern(&self, isa: &ptx_isa::Isa, name: &str) -> bool {
        let mut declarations = self.functions.iter().filter(|(n, _)| *n == name);
        let external = declarations
            .clone()
            .any(|(_, f)| f.linkage().iter().any(|t| t.text == ".extern"));
        external
            && !declarations.any(|(_, f)| f.body().is_some())
            && !self.aliases.contains(&name)
            && !isa.ptxas_system_call(name)
    }

    fn variable_space(&self, name: &str) -> Option<Option<&'a str>> {
        self.variables
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| *s)
    }

    fn function(&self, name: &str) -> Option<&Function<'a>> {
        self.functions
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, f)| f)
    }
}

/// The names an initial value uses (5.4.4): variables of `.global` or `.const` and functions
/// ("Variable used as initial value not in .global or .const state space", "Invalid initial
/// value symbol"); the mask operator `0xFF(v)` needs PTX ISA 7.1.
fn initial_names(ctx: &mut Ctx<'_>, decl: &VariableDecl<'_>, globals: &Globals<'_>) {
    let ty = decl.ty().map(|t| t.text);
    // An opaque variable's initial value names fields (`variable` checks them).
    if matches!(ty, Some(".texref" | ".samplerref" | ".surfref")) {
        return;
    }
    for declarator in decl.declarators() {
        let Some(value) = declarator.initializer() else {
            continue;
        };
        let mut named_type_reported = false;
        let text = value.text;
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            // A comment among the values (`// first row`, `/* x */`) names nothing.
            if b == b'/' && matches!(bytes.get(i + 1), Some(b'/' | b'*')) {
                let (close, skip) = if bytes[i + 1] == b'/' {
                    ("\n", 1)
                } else {
                    ("*/", 2)
                };
                i = text[i + 2..]
                    .find(close)
                    .map_or(bytes.len(), |at| i + 2 + at + skip);
                continue;
            }
            if b.is_ascii_digit() {
                // A number (with its suffix letters), or a mask `0xFF(`.
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                    i += 1;
                }
                if bytes.get(i) == Some(&b'(')
                    && ctx
                        .version
                        .is_some_and(|v| v < ptx_isa::PtxVersion::new(7, 1))
                {
                    let at = value.start + start;
                    ctx.report(
                        Diagnostic::error(
                            "version-too-old",
                            at..value.start + i,
                            "a mask `0xFF(name)` in an initial value needs `.version 7.1` or newer",
                        )
                        .section("5.4.4"),
                    );
                }
                continue;
            }
            // The type of a cast, `(.u64)`, names nothing.
            if b == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_alphabetic) {
                i += 1;
                while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                    i += 1;
                }
                continue;
            }
            if b.is_ascii_alphabetic() || b == b'_' || b == b'$' {
                let start = i;
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'_' | b'$'))
                {
                    i += 1;
                }
                let name = &text[start..i];
                if name == "generic" && bytes.get(i) == Some(&b'(') {
                    continue;
                }
                // The predefined constant (4.5.1).
                if crate::handlers::names::PREDEFINED.contains(&name) {
                    continue;
                }
                let range = value.start + start..value.start + i;
                let before = text[..start].trim_end();
                let opener = before.strip_suffix('(').map(str::trim_end);
                let generic = opener.is_some_and(|b| b.ends_with("generic"));
                let masked = !generic
                    && opener.is_some_and(|b| b.ends_with(|c: char| c.is_ascii_alphanumeric()));
                let after = text[i..].trim_start();
                let function = globals.function(name);
                let known = globals.variable_space(name).is_some() || function.is_some();
                // ptxas 13.5 reads a module in order: a name declared further down is "Invalid
                // initial value symbol" (the variable's own name is declared already).
                if globals.first.get(name).is_some_and(|&at| at > value.start) {
                    ctx.report(
                        Diagnostic::error(
                            "undeclared-name",
                            range.clone(),
                            format!(
                                "`{name}` is declared further down: an initial value names only what is declared before it (add a declaration above, e.g. `.extern`)"
                            ),
                        )
                        .section("5.4.4"),
                    );
                    continue;
                }
                // An address goes into the integer types data/initializer-addresses.txt names
                // ("Initial value type mismatch" for `.b64 p = v`, `.s64 p = v`, `.u8 p = v`;
                // a masked byte `0xFF(v)` also into `.u8`).
                let form = if masked { "masked" } else { "address" };
                if known
                    && !named_type_reported
                    && !ty.is_some_and(|t| ctx.isa.initializer_takes_address(t, form))
                {
                    named_type_reported = true;
                    ctx.report(
                        Diagnostic::error(
                            "initializer",
                            range.clone(),
                            format!(
                                "an address initializes a .u64 or .u32 variable (a masked byte also a .u8 one), not a {} one",
                                ty.unwrap_or_default()
                            ),
                        )
                        .section("5.4.4"),
                    );
                }
                // ptxas 13.5 reads an offset only after the name and added (`v+4`; "syntax
                // error" for `4+v` and `v-4`), takes no offset of a function ("Initial value
                // type mismatch") and no function in `generic()` ("Invalid initial value
                // expression"). A kernel's address is taken like a `.func`'s.
                let problem = if known
                    && before
                        .ends_with(['+', '-', '*', '/', '%', '&', '|', '^', '~', '!', '<', '>'])
                {
                    Some(format!("an address in an initial value takes only an offset added after it (`{name}+N`)"))
                } else if known && after.starts_with('-') {
                    Some(format!(
                        "an address takes an offset added after it (`{name}+N`), not subtracted"
                    ))
                } else if known
                    && !masked
                    && after.starts_with(['*', '/', '%', '&', '|', '^', '<', '>'])
                {
                    // ptxas 13.5: "Parsing error" at the operator.
                    Some(format!("an address in an initial value takes only an offset added after it (`{name}+N`)"))
                } else if known && generic && !after.starts_with(')') {
                    Some(format!(
                        "`generic()` takes a variable's name alone; add an offset after it (`generic({name})+N`)"
                    ))
                } else if known && opener.is_some() && !generic && !masked {
                    Some(format!(
                        "an address in an initial value stands without parentheses (`{name}+N`)"
                    ))
                } else if function.is_some() {
                    if generic {
                        Some(format!(
                            "`generic()` takes a variable; `{name}` is a function"
                        ))
                    } else if after.starts_with('+') {
                        Some(format!(
                            "the address of the function `{name}` takes no offset"
                        ))
                    } else if globals.unresolved_extern(ctx.isa, name) {
                        Some(format!(
                            "`{name}` is declared `.extern` but defined nowhere in this file: ptxas cannot take its address when it assembles the file as a whole program (define it here, or assemble with `ptxas -c` and link it)"
                        ))
                    } else {
                        None
                    }
                } else {
                    None
                };
                if let Some(message) = problem {
                    ctx.report(
                        Diagnostic::error("initializer", range.clone(), message).section("5.4.4"),
                    );
                }
                match globals.variable_space(name) {
                    Some(Some(".global" | ".const")) => {}
                    Some(space) => ctx.report(
                        Diagnostic::error(
                            "initializer",
                            range,
                            format!(
                                "`{name}` is a `{}` variable: an initial value may use the address of a `.global` or `.const` variable only",
                                space.unwrap_or("?")
                            ),
                        )
                        .section("5.4.4"),
                    ),
                    None if globals.function(name).is_some() => {}
                    None => ctx.report(
                        Diagnostic::error(
                            "undeclared-name",
                            range,
                            format!("`{name}` is not a variable or function of this module"),
                        )
                        .section("5.4.4"),
                    ),
                }
                continue;
            }
            i += 1;
        }
    }
}

/// 5.1.5: `.local` variables at module scope are a feature of the old non-ABI compilation;
/// ptxas 13.5 compiles with the ABI from PTX ISA 3.0 on ("Module-scoped variables in .local
/// state space are not allowed with ABI"); for an older `.version` it drops the ABI instead
/// ("Use of module scoped .local or .reg variable 'x' found, disabling ABI"), on any target.
fn module_local(ctx: &mut Ctx<'_>, decl: &VariableDecl<'_>) {
    let Some(space) = decl.parts().state_space else {
        return;
    };
    // ptxas 13.5: "Module-scoped variables in .local/.reg state space are not allowed with
    // ABI", "Parameter variables may not be declared at module scope".
    let message = match space.text {
        ".local" => "a `.local` variable at module scope: ptxas 13.5 compiles with the ABI, which keeps `.local` variables inside functions",
        ".reg" => "a `.reg` variable at module scope: ptxas 13.5 compiles with the ABI, which keeps registers inside functions",
        ".param" => "a `.param` variable at module scope: parameters belong to a function's parameter list or to a call's `{ }` block",
        _ => return,
    };
    // Before PTX ISA 3.0 ptxas drops the ABI for a module-scope `.local` or `.reg` instead.
    if space.text != ".param"
        && ctx
            .version
            .is_some_and(|v| v < ptx_isa::PtxVersion::new(3, 0))
    {
        ctx.report(
            Diagnostic::warning(
                "state-space",
                space.range(),
                format!(
                    "a `{}` variable at module scope: ptxas 13.5 compiles this module without the ABI (from `.version 3.0` on it is an error)",
                    space.text
                ),
            )
            .section("5.1"),
        );
        return;
    }
    ctx.report(Diagnostic::error("state-space", space.range(), message).section("5.1"));
}

/// The `.tex` state space (5.1.8) was removed in PTX ISA 1.5 in favour of `.texref` variables
/// in `.global` (ptxas 13.5: "Deprecated feature: '.tex' not supported as of PTX version 1.5";
/// in a body "Texture variables must be declared at module scope"). Before 1.5 ptxas takes it
/// at module scope (its texture is unified-mode `tex`'s reference); a body's `.tex` of such a
/// file is not reported.
fn tex_space(ctx: &mut Ctx<'_>, parts: &ptx_syntax::DeclParts<'_>) {
    if ctx
        .version
        .is_some_and(|v| v < ptx_isa::PtxVersion::new(1, 5))
    {
        return;
    }
    if let Some(space) = parts.state_space.filter(|s| s.text == ".tex") {
        ctx.report(
            Diagnostic::error(
                "state-space",
                space.range(),
                "the `.tex` state space is gone since PTX ISA 1.5: declare the texture as `.global .texref NAME;`",
            )
            .section("5.1.8"),
        );
    }
}

/// `.alias a, b;` (11.6.x): `a` is a function declared with `b`'s prototype (not a variable, not
/// a kernel, not `b` itself, not defined), `b` a function defined in the module.
fn alias<'a>(
    ctx: &mut Ctx<'_>,
    directive: &ptx_syntax::Directive<'a>,
    globals: &Globals<'_>,
    aliased: &mut Vec<&'a str>,
) {
    let names = directive.names();
    let [alias, target] = names.as_slice() else {
        return;
    };
    let report = |ctx: &mut Ctx<'_>, range, message: String| {
        ctx.report(Diagnostic::error("alias", range, message).section("11.6.5"));
    };
    // ptxas 13.5: "'a' is already aliased to 'f' and cannot be redefined".
    if aliased.contains(&alias.text) {
        report(
            ctx,
            alias.range(),
            format!("`{}` is already an alias", alias.text),
        );
        return;
    }
    aliased.push(alias.text);
    if globals.variable_space(alias.text).is_some() || globals.variable_space(target.text).is_some()
    {
        report(
            ctx,
            directive.range(),
            "`.alias` names functions; a variable cannot be aliased".to_owned(),
        );
        return;
    }
    let Some(a) = globals.function(alias.text) else {
        report(
            ctx,
            alias.range(),
            format!(
                "`{}` must be declared (with the aliased function's prototype) before `.alias`",
                alias.text
            ),
        );
        return;
    };
    if a.kind() == ptx_syntax::FunctionKind::Entry {
        report(
            ctx,
            alias.range(),
            format!(
                "`{}` is a kernel: only a `.func` can be an alias",
                alias.text
            ),
        );
        return;
    }
    if a.body().is_some() || alias.text == target.text {
        report(
            ctx,
            alias.range(),
            format!(
                "`{}` is defined: an alias is a declaration without a body",
                alias.text
            ),
        );
        return;
    }
    if let Some(b) = globals.function(target.text) {
        if b.range().start > directive.range().start {
            report(
                ctx,
                target.range(),
                format!(
                    "`{}` is declared after this `.alias`; declare it first",
                    target.text
                ),
            );
            return;
        }
    }
    let Some(b) = globals.function(target.text) else {
        report(
            ctx,
            target.range(),
            format!("`{}` is not a function of this module", target.text),
        );
        return;
    };
    // ptxas 13.5 aliases only a function defined in this module and not `.weak` ("Function
    // 'f' with .weak scope cannot be aliased", "... with .extern scope ..."); the spec's
    // 11.6.5 says the aliasee is a non-entry function.
    if let Some(linkage) = b
        .linkage()
        .iter()
        .find(|t| matches!(t.text, ".weak" | ".extern"))
    {
        report(
            ctx,
            target.range(),
            format!(
                "`{}` is declared `{}`: an alias needs a function defined here that is not `.weak`",
                target.text, linkage.text
            ),
        );
        return;
    }
    if prototype_shape(a) != prototype_shape(b) {
        report(
            ctx,
            directive.range(),
            format!(
                "`{}` and `{}` have different prototypes",
                alias.text, target.text
            ),
        );
    }
}

/// A variable declared again with another type, state space or shape ("Inconsistent
/// redefinition of variable").
fn redeclarations(ctx: &mut Ctx<'_>, items: &[Item<'_>]) {
    type Shape<'a> = (String, Vec<Option<&'a str>>);
    let mut seen: Vec<(&str, Shape<'_>, bool)> = Vec::new();
    for item in items {
        let Item::Variable(decl) = item else { continue };
        let parts = decl.parts();
        // Two definitions are a duplicate (names.rs); an `.extern` one is completed by a
        // definition of the same shape.
        let external = parts.linkage.iter().any(|t| t.text == ".extern");
        for d in &parts.declarators {
            let Some(name) = d.name() else { continue };
            let shape: Shape<'_> = (
                format!(
                    "{} {} {}",
                    parts.state_space.map_or("", |t| t.text),
                    parts.vector.map_or("", |t| t.text),
                    parts.ty.map_or("", |t| t.text),
                ),
                d.dimensions().iter().map(|t| t.map(|t| t.text)).collect(),
            );
            // An unsized `[]` (of an `.extern` array) is completed by any size; sizes
            // written on both sides must agree ("Inconsistent redefinition of variable").
            let same = |first: &Shape<'_>| {
                first.0 == shape.0
                    && first.1.len() == shape.1.len()
                    && first
                        .1
                        .iter()
                        .zip(&shape.1)
                        .all(|(a, b)| a.is_none() || b.is_none() || a == b)
            };
            match seen.iter().find(|(n, _, _)| *n == name.text) {
                Some((_, first, first_external))
                    if !same(first) && (external || *first_external) =>
                {
                    ctx.report(
                        Diagnostic::error(
                            "duplicate-variable",
                            name.range(),
                            format!(
                                "`{}` was declared before with another type, state space or shape",
                                name.text
                            ),
                        )
                        .section("11.6"),
                    )
                }
                Some(_) => {}
                None => seen.push((name.text, shape, external)),
            }
        }
    }
}

/// `.file N` names each index once ("Duplicate file index").
fn files(ctx: &mut Ctx<'_>, items: &[Item<'_>]) {
    let mut seen: Vec<&str> = Vec::new();
    for item in items {
        let Item::Directive(d) = item else { continue };
        if d.kind() != DirectiveKind::File {
            continue;
        }
        let text = d.range();
        let body = &ctx.text[text.clone()];
        let Some(index) = body.split_whitespace().nth(1) else {
            continue;
        };
        // 11.5.3: the index is an unsigned 32-bit number ("Constant overflow"), the name a
        // string without escaped quotes (ptxas 13.5: a syntax error at `\"`).
        let problem = if ptx_syntax::parse_integer(index).is_some_and(|n| n > u64::from(u32::MAX)) {
            Some(format!("file index {index} does not fit 32 bits"))
        } else if body.contains("\\\"") {
            Some("a `.file` name cannot hold an escaped quote `\\\"`".to_owned())
        } else {
            None
        };
        if let Some(message) = problem {
            ctx.report(Diagnostic::error("directive", text.clone(), message).section("11.5.3"));
        }
        if seen.contains(&index) {
            ctx.report(
                Diagnostic::error(
                    "directive",
                    text,
                    format!("file index {index} is already given to another `.file`"),
                )
                .section("11.5.1"),
            );
        } else {
            seen.push(index);
        }
    }
}

/// The declarations and directives in a function body.
pub(crate) fn body<'a>(ctx: &mut Ctx<'a>, statements: &[Statement<'a>]) {
    block(ctx, statements, &mut Vec::new());
}

/// ptxas 13.5 keeps the names of special registers for them: a function or a module variable
/// named `%tid` is refused ("Inconsistent redefinition of variable '%tid'"), though a register
/// or a label may take the name.
pub(crate) fn special_register_name(ctx: &mut Ctx<'_>, name: ptx_syntax::Token<'_>, what: &str) {
    if name.text.starts_with('%') && ctx.isa.special_register(name.text).is_some() {
        ctx.report(
            Diagnostic::error(
                "redeclaration",
                name.range(),
                format!(
                    "`{}` names a special register; {what} needs another name",
                    name.text
                ),
            )
            .section("10"),
        );
    }
}

fn block<'a>(ctx: &mut Ctx<'a>, statements: &[Statement<'a>], locs: &mut Vec<&'a str>) {
    for statement in statements {
        match statement {
            Statement::Variable(decl) => variable(ctx, decl, true),
            Statement::Block(inner) => block(ctx, &inner.statements(), locs),
            Statement::Directive(d) if d.kind() == DirectiveKind::Loc => loc(ctx, d, locs),
            Statement::Directive(d) if d.kind() == DirectiveKind::Dwarf => dwarf(ctx, d, true),
            // The directives of a `.callprototype` need their versions as on a function
            // (ptxas 13.5: "Feature '.abi_preserve' requires PTX ISA .version 9.0 or later").
            Statement::Directive(d) if d.kind() == DirectiveKind::CallPrototype => {
                let returns = !d.prototype().0.is_empty();
                for (name, _) in d.attributes() {
                    // As on a function (ptxas 13.5 "Invalid directive '.noreturn' for function
                    // 'protoype with return parameters'").
                    if name.text == ".noreturn" && returns {
                        ctx.report(
                            Diagnostic::error(
                                "directive",
                                name.range(),
                                "a `.noreturn` prototype has no return parameters",
                            )
                            .section("11.4.6"),
                        );
                    }
                    let Some(directive) = ctx.isa.directive(name.text) else {
                        continue;
                    };
                    let since = directive.requirement.since;
                    if ctx.version.is_some_and(|v| v < since) {
                        ctx.report(
                            Diagnostic::error(
                                "version-too-old",
                                name.range(),
                                format!("`{}` needs `.version {since}` or newer", name.text),
                            )
                            .section(directive.section.clone()),
                        );
                    }
                }
            }
            Statement::Directive(d) if d.kind() == DirectiveKind::Pragma => {
                let kernel = ctx.in_entry;
                super::pragmas::check(ctx, d.range(), super::pragmas::Place::Body { kernel });
            }
            _ => {}
        }
    }
}

/// What ptxas 13.5 takes in a parameter list (5.1.6): a power-of-two `.align` ([`alignment`]),
/// an array of one dimension only, in the
/// list of a `.func` and of a `.entry` alike ("Parsing error near '['"; a `.param` array of two
/// dimensions inside a body is fine); in a `.entry` only `.param` parameters ("Entry parameter
/// 'a' must have .param state space") whose arrays have a size ("Parameter to entry function
/// cannot be an incomplete array.").
fn parameter_shapes(ctx: &mut Ctx<'_>, function: &ptx_syntax::Function<'_>) {
    let entry = function.kind() == ptx_syntax::FunctionKind::Entry;
    let lists = [function.return_parameters(), function.parameters()];
    // ptxas 13.5: "Parsing error near '('".
    if let (true, Some(first)) = (entry, lists[0].first()) {
        ctx.report(
            Diagnostic::error(
                "parameter",
                first.range(),
                "a kernel returns nothing: a `.entry` has no result parameters (write results through pointer parameters)",
            )
            .section("11.2.1"),
        );
    }
    let defined = !entry && function.body().is_some();
    for param in lists.iter().flatten() {
        let parts = param.parts();
        alignment(ctx, &parts);
        if defined {
            param_alignment_limit(ctx, &parts);
        }
        if entry {
            if let Some(space) = parts.state_space.filter(|s| s.text != ".param") {
                ctx.report(
                    Diagnostic::error(
                        "parameter",
                        space.range(),
                        format!("a kernel's parameters are `.param`, not `{}`", space.text),
                    )
                    .section("5.1.6"),
                );
            }
        }
        for declarator in &parts.declarators {
            let dims = declarator.dimensions();
            if dims.len() > 1 {
                let at = declarator.name().map_or(param.range(), |n| n.range());
                let flat: Option<u64> = dims
                    .iter()
                    .map(|d| d.and_then(|t| ptx_syntax::parse_integer(t.text)))
                    .product();
                let message = match (flat, declarator.name()) {
                    (Some(n), Some(name)) => format!(
                        "a parameter array has one dimension: declare it flat, as `{}[{n}]`",
                        name.text
                    ),
                    _ => {
                        "a parameter array has one dimension: declare it as a flat array".to_owned()
                    }
                };
                ctx.report(Diagnostic::error("parameter", at, message).section("5.1.6"));
            } else if entry && dims.first().is_some_and(Option::is_none) {
                let at = declarator.name().map_or(param.range(), |n| n.range());
                ctx.report(
                    Diagnostic::error(
                        "parameter",
                        at,
                        "a kernel parameter array needs a size: the launch copies a fixed number of bytes",
                    )
                    .section("5.1.6"),
                );
            }
        }
    }
}

/// The bytes a kernel's parameters take (11.2.1): each parameter at the next multiple of its
/// alignment (its `.align`, else its element size), opaque ones (`.texref`, `.samplerref`,
/// `.surfref`) taking none; the limit is the ISA data's (data/kernel-parameters.txt; the
/// layout measured with `.u8`/`.u16` before an array, `.ptr` attributes and opaque parameters).
fn entry_parameter_space(ctx: &mut Ctx<'_>, function: &ptx_syntax::Function<'_>) {
    if function.kind() != ptx_syntax::FunctionKind::Entry {
        return;
    }
    let Some(name) = function.name() else { return };
    let mut bytes: u64 = 0;
    for param in function.parameters() {
        let parts = param.parts();
        let Some(ty) = parts.ty.map(|t| t.text) else {
            return;
        };
        if matches!(ty, ".texref" | ".samplerref" | ".surfref") {
            continue;
        }
        // A vector parameter is refused on its own ("cannot be allocated in .param state
        // space"); a type without a width is another rule's.
        let Some(bits) = type_bits(ty).filter(|_| parts.vector.is_none()) else {
            return;
        };
        let element = u64::from(bits.div_ceil(8));
        let align = match parts.alignment {
            Some(t) => match ptx_syntax::parse_integer(t.text).filter(|n| n.is_power_of_two()) {
                Some(n) => n,
                None => return,
            },
            None => element,
        };
        for declarator in &parts.declarators {
            let mut count: u64 = 1;
            for dim in declarator.dimensions() {
                let Some(n) = dim.and_then(|t| ptx_syntax::parse_integer(t.text)) else {
                    return;
                };
                count = count.saturating_mul(n);
            }
            bytes = bytes.div_ceil(align).saturating_mul(align);
            bytes = bytes.saturating_add(element.saturating_mul(count));
        }
    }
    let (limit, raise) = ctx.isa.kernel_parameter_bytes(ctx.version);
    let since = raise.map_or(String::new(), |(version, bytes)| {
        format!("; PTX ISA {version} raised it to {bytes}")
    });
    if bytes > limit {
        ctx.report(
            Diagnostic::error(
                "parameter",
                name.range(),
                format!(
                    "the parameters of `{}` take {bytes} bytes; a kernel's parameters may take at most {limit}{since}",
                    name.text
                ),
            )
            .section("11.2.1"),
        );
    }
}

/// `.align N` (5.4.5) takes a power of two, on variables, parameters and `.ptr` parameter
/// attributes alike (ptxas 13.5: "Alignment must be a power of two", also for 0). A value
/// smaller than the type's own alignment is accepted.
fn alignment(ctx: &mut Ctx<'_>, parts: &ptx_syntax::DeclParts<'_>) {
    let Some(bytes) = &parts.alignment else {
        return;
    };
    if ptx_syntax::parse_integer(bytes.text).is_some_and(|n| !n.is_power_of_two()) {
        ctx.report(
            Diagnostic::error(
                "directive",
                bytes.range(),
                format!(
                    "`.align {}`: an alignment is a power of two (1, 2, 4, 8, 16, ...)",
                    bytes.text
                ),
            )
            .section("5.4.5"),
        );
    }
}

/// The `.align` of a `.param` that ptxas 13.5 lays out itself: the parameters and results of a
/// `.func` it defines, and `.param` variables in a body (call arguments and results included)
/// take at most 128 ("Parameter 'p' has illegal alignment (must be aligned to 1, 2, 4, 8, 16,
/// 32, 64, or 128 bytes)"). A kernel's parameters and an `.extern` prototype's take more, as
/// do variables of other state spaces; 5.4.5 names no limit. llc writes `.align 256` for an
/// IR type aligned to 256.
fn param_alignment_limit(ctx: &mut Ctx<'_>, parts: &ptx_syntax::DeclParts<'_>) {
    let Some(bytes) = &parts.alignment else {
        return;
    };
    let Some(n) = ptx_syntax::parse_integer(bytes.text).filter(|n| n.is_power_of_two()) else {
        return;
    };
    if n > 128 {
        ctx.report(
            Diagnostic::error(
                "parameter",
                bytes.range(),
                format!(
                    "`.align {}`: a `.param` is aligned to at most 128 bytes here (a kernel's parameters may take more)",
                    bytes.text
                ),
            )
            .section("5.4.5"),
        );
    }
}

/// `@@DWARF` lines (11.5.1), the debug data of PTX ISA 1.x that `.section` replaced in 2.0.
/// ptxas 13.5 reports "Deprecated feature: '@@DWARF directive' not supported as of PTX version
/// 2.0" for `@@DWARF .section …` and reads any `@@DWARF` in a body as a syntax error. It still
/// parses the data lines at module scope (`@@DWARF .byte 1`, `.4byte`, `.quad`), and then
/// either assembles the file or crashes (a segmentation fault in our runs, e.g. on a module
/// whose only other item is a kernel written over several lines): a warning.
fn dwarf(ctx: &mut Ctx<'_>, directive: &ptx_syntax::Directive<'_>, in_body: bool) {
    let range = directive.range();
    let at = range.start..range.start + "@@DWARF".len();
    let rest = ctx.text[range.clone()]
        .strip_prefix("@@DWARF")
        .unwrap_or("")
        .trim_start();
    let diagnostic = if in_body {
        Diagnostic::error(
            "directive",
            at,
            "`@@DWARF` stands at module scope (and is gone since PTX ISA 2.0: debug data goes in a `.section`)",
        )
    } else if rest.starts_with(".section") {
        Diagnostic::error(
            "directive",
            at,
            "`@@DWARF .section` is gone since PTX ISA 2.0: write the section as `.section NAME { ... }`",
        )
    } else {
        Diagnostic::warning(
            "directive",
            at,
            "`@@DWARF` is deprecated since PTX ISA 2.0 and ptxas 13.5 crashes on some files that use it: put the data in a `.section NAME { ... }`",
        )
    };
    ctx.report(diagnostic.section("11.5.1"));
}

/// `.loc F L C, function_name N, inlined_at F2 L2 C2` (11.5.2): the location it is inlined at
/// is one an earlier `.loc` of the function gave ("Source location … used in inlined_at
/// directive must be used in a preceding .loc directive").
fn loc<'a>(ctx: &mut Ctx<'a>, directive: &ptx_syntax::Directive<'a>, locs: &mut Vec<&'a str>) {
    let text = &ctx.text[directive.range()];
    let mut parts = text.split(',');
    let here = parts
        .next()
        .unwrap_or("")
        .trim_start()
        .trim_start_matches(".loc")
        .trim();
    // File index, line and column are 32-bit (ptxas 13.5: "Constant overflow" from 2^32).
    if let Some(big) = here
        .split_whitespace()
        .find(|n| ptx_syntax::parse_integer(n).is_some_and(|v| v > u64::from(u32::MAX)))
    {
        ctx.report(
            Diagnostic::error(
                "directive",
                directive.range(),
                format!("`{big}` does not fit in the 32 bits of a `.loc` number"),
            )
            .section("11.5.2"),
        );
    }
    for part in parts {
        let part = part.trim();
        if let Some(at) = part.strip_prefix("inlined_at") {
            let at = at.trim();
            let normalized: Vec<&str> = at.split_whitespace().collect();
            let known = locs
                .iter()
                .any(|l| l.split_whitespace().collect::<Vec<_>>() == normalized);
            if !known {
                ctx.report(
                    Diagnostic::error(
                        "directive",
                        directive.range(),
                        format!("`inlined_at {at}` names a location no earlier `.loc` of this function gave"),
                    )
                    .section("11.5.2"),
                );
            }
        }
    }
    locs.push(here);
}

/// 5.4.2: the vector size comes before the type (`.v2 .b32`); ptxas 13.5 reads `.b32 .v2` as a
/// syntax error ("Parsing error near '.v2'"), in parameters as in other declarations.
fn vector_after_type(ctx: &mut Ctx<'_>, parts: &ptx_syntax::DeclParts<'_>) {
    let (Some(ty), Some(vector)) = (&parts.ty, &parts.vector) else {
        return;
    };
    if vector.range().start > ty.range().start {
        ctx.report(
            Diagnostic::error(
                "syntax-error",
                vector.range(),
                format!(
                    "`{}` goes before the type: write `{} {}`",
                    vector.text, vector.text, ty.text
                ),
            )
            .section("5.4.2"),
        );
    }
}

/// What may follow a parameter's type: nothing but `.ptr`, then a state space of `.const`,
/// `.global`, `.local` or `.shared`, then `.align N` (5.1.6.3); ptxas 13.5 reads any other
/// order or space as a syntax error (`.ptr .align 8 .global`, `.align 8 .ptr`, `.ptr .param`).
/// A `.param` vector is no parameter ("Variable 'a' cannot be allocated in .param state
/// space"; the spec, 5.1.6, passes vectors in `.reg` parameters).
fn param_layout(ctx: &mut Ctx<'_>, parts: &ptx_syntax::DeclParts<'_>) {
    let (Some(ty), Some(space)) = (parts.ty, parts.state_space) else {
        return;
    };
    if space.text == ".param" {
        if let Some(vector) = &parts.vector {
            ctx.report(
                Diagnostic::error(
                    "state-space",
                    vector.range(),
                    format!(
                        "a `.param` parameter is no vector: pass `{} {}` in a `.reg` parameter or as a byte array",
                        vector.text, ty.text
                    ),
                )
                .section("5.1.6"),
            );
            return;
        }
    }
    let Some(name) = parts.declarators.first().and_then(|d| d.name()) else {
        return;
    };
    let end = ty.range().end;
    if name.range().start < end {
        return;
    }
    let between = &ctx.text[end..name.range().start];
    let words: Vec<&str> = between.split_whitespace().collect();
    // Read glued (`.ptr.global.align 16` is as good as `.ptr .global .align 16`).
    let glued = words.concat();
    let ok = glued.is_empty()
        || glued.strip_prefix(".ptr").is_some_and(|t| {
            // ptxas 13.5 also takes an opaque type in the space's place (`.ptr .texref`,
            // `.ptr .samplerref .align 8`, in either texturing mode).
            let t = [
                ".const",
                ".global",
                ".local",
                ".shared",
                ".texref",
                ".samplerref",
                ".surfref",
            ]
            .iter()
            .find_map(|s| t.strip_prefix(s))
            .unwrap_or(t);
            t.is_empty()
                || t.strip_prefix(".align")
                    .is_some_and(|n| !n.is_empty() && !n.contains('.'))
        });
    if !ok && !words.is_empty() {
        ctx.report(
            Diagnostic::error(
                "syntax-error",
                end..name.range().start,
                format!(
                    "`{}` after the type: a parameter takes `.ptr`, then `.const`, `.global`, `.local` or `.shared`, then `.align N`, in that order (or `.align N` before the type)",
                    words.join(" ")
                ),
            )
            .section("5.1.6.3"),
        );
    }
}

/// 5.4.5: `.align N` goes before the type of a variable (ptxas 13.5 "Parsing error near
/// '.align'" for `.global .u32 .align 8 x;`).
fn align_after_type(ctx: &mut Ctx<'_>, parts: &ptx_syntax::DeclParts<'_>) {
    let (Some(ty), Some(align)) = (&parts.ty, &parts.alignment) else {
        return;
    };
    if align.range().start > ty.range().start {
        ctx.report(
            Diagnostic::error(
                "syntax-error",
                align.range(),
                format!("`.align {}` goes before the type `{}`", align.text, ty.text),
            )
            .section("5.4.5"),
        );
    }
}

fn variable(ctx: &mut Ctx<'_>, decl: &VariableDecl<'_>, in_body: bool) {
    let parts = decl.parts();
    // 4.5.1: `WARP_SZ` is the predefined constant; ptxas 13.5 parses no declaration of it
    // ("Parsing error near 'WARP_SZ'").
    for name in parts.declarators.iter().filter_map(|d| d.name()) {
        if crate::handlers::names::PREDEFINED.contains(&name.text) {
            ctx.report(
                Diagnostic::error(
                    "syntax-error",
                    name.range(),
                    format!(
                        "`{}` is a predefined constant; give the variable another name",
                        name.text
                    ),
                )
                .section("4.5.1"),
            );
        }
    }
    alignment(ctx, &parts);
    align_after_type(ctx, &parts);
    tex_space(ctx, &parts);
    vector_after_type(ctx, &parts);
    super::variable_forms::check(ctx, decl, &parts, in_body);
    let Some(space) = parts.state_space else {
        return;
    };
    if space.text == ".param" {
        param_alignment_limit(ctx, &parts);
    }
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
    // 5.3: texture, sampler and surface variables live in `.global` ("Texture and surface
    // variables must be declared in .global space"); their initial value sets named fields.
    if let Some(opaque) = ty.filter(|t| matches!(*t, ".texref" | ".samplerref" | ".surfref")) {
        if space.text != ".global" {
            ctx.report(
                Diagnostic::error(
                    "state-space",
                    space.range(),
                    format!("a `{opaque}` variable is `.global`, not `{}`", space.text),
                )
                .section("5.3"),
            );
            return;
        }
        for declarator in &parts.declarators {
            if let Some(value) = declarator.initializer() {
                // Only a braced list of fields ("Initial value type mismatch" for `t = 1`).
                if !value.text.trim_start().starts_with('{') {
                    ctx.report(
                        Diagnostic::error(
                            "initializer",
                            value.range(),
                            format!(
                                "a `{opaque}` takes a braced list of fields (`{{ width = 8 }}`)"
                            ),
                        )
                        .section("5.3"),
                    );
                    continue;
                }
                opaque_fields(ctx, opaque, &value);
            }
        }
        // `.common` takes no opaque variable (ptxas 13.5 "Illegal type for .common symbol"),
        // and an array of them has a size unless `.extern` ("Non-external variable 't' has
        // incomplete type").
        if let Some(common) = parts.linkage.iter().find(|t| t.text == ".common") {
            ctx.report(
                Diagnostic::error(
                    "state-space",
                    common.range(),
                    format!("a `{opaque}` variable cannot be `.common`"),
                )
                .section("11.6.4"),
            );
        }
        if !parts.linkage.iter().any(|t| t.text == ".extern") {
            for declarator in &parts.declarators {
                if declarator.dimensions().iter().any(Option::is_none) {
                    let range = declarator.name().map_or(space.range(), |n| n.range());
                    ctx.report(
                        Diagnostic::error(
                            "initializer",
                            range,
                            format!("an array of `{opaque}` has a size (or is `.extern`)"),
                        )
                        .section("5.4.3"),
                    );
                }
            }
        }
        return;
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
    // A variable is a `.v2` or `.v4` vector only: ptxas 13.5 parses `.v8` (which instructions
    // take) in no declaration, whatever the type ("Parsing error near '.v8'").
    let long_vector = parts.vector.filter(|v| !matches!(v.text, ".v2" | ".v4"));
    if let Some(vector) = long_vector {
        ctx.report(
            Diagnostic::error(
                "vector-length",
                vector.range(),
                format!(
                    "a variable cannot be a `{}` vector; declare a `.v2` or `.v4` one, or an array",
                    vector.text
                ),
            )
            .section("5.4.2"),
        );
    } else if let (Some(vector), Some(bits)) = (parts.vector, ty.and_then(type_bits)) {
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
    // 5.4.3: an array's size is one integer literal or `WARP_SZ`; ptxas 13.5 parses no other
    // constant expression there ("Parsing error" for `[2*4]`, `[(4)]`, `[-1]`), though the spec
    // allows constant expressions wherever a constant may stand.
    for declarator in &parts.declarators {
        for size in declarator.dimensions().into_iter().flatten() {
            let text = size.text.trim();
            let literal = text == "WARP_SZ"
                || (text.starts_with(|c: char| c.is_ascii_digit())
                    && text.bytes().all(|c| c.is_ascii_alphanumeric()));
            if !literal {
                ctx.report(
                    Diagnostic::error(
                        "constant-expression",
                        size.range(),
                        format!(
                            "an array size is a single integer (or `WARP_SZ`), not `{text}`: write the value itself"
                        ),
                    )
                    .section("5.4.3"),
                );
            }
        }
    }
    // 5.4.3: an array of unknown size takes its size from its initial values; without any
    // it is only a declaration of an array defined elsewhere, `.extern` ("Non-external
    // variable 'x' has incomplete type").
    if !linkage.contains(&".extern") {
        for declarator in &parts.declarators {
            let unsized_dim = declarator.dimensions().iter().any(Option::is_none);
            let no_values = declarator
                .initializer()
                .is_none_or(|v| top_level_count(v.text) == Some(0));
            if unsized_dim && no_values {
                let range = declarator.name().map_or(space.range(), |n| n.range());
                ctx.report(
                    Diagnostic::error(
                        "initializer",
                        range,
                        "an array of unknown size needs initial values, or `.extern` when it is defined elsewhere",
                    )
                    .section("5.4.3"),
                );
            }
        }
    }
    for declarator in &parts.declarators {
        let Some(value) = declarator.initializer() else {
            continue;
        };
        // 5.4.4: one level of braces per array dimension and for a vector ("Initial value
        // type mismatch" for `v[2] = 1.0` or `v[4] = {{1, 2, 3, 4}}`).
        let dims = declarator.dimensions();
        let levels = dims.len() + usize::from(parts.vector.is_some());
        // As many values as the vector has elements ("Incorrect number of elements in vector
        // initializer"), at most as many as a one-dimensional array ("Greater number of
        // elements in array initializer").
        let count = top_level_count(value.text);
        let vector = parts
            .vector
            .and_then(|v| v.text.trim_start_matches(".v").parse::<usize>().ok());
        let too_many = match (&dims[..], vector) {
            ([], Some(n)) => count.is_some_and(|c| c != n),
            ([Some(size)], None) => {
                let size: Option<usize> = size.text.parse().ok();
                count.zip(size).is_some_and(|(c, n)| c > n)
            }
            _ => false,
        };
        if too_many {
            ctx.report(
                Diagnostic::error(
                    "initializer",
                    value.range(),
                    format!(
                        "{} values for {}",
                        count.unwrap_or(0),
                        match vector {
                            Some(n) => format!("a vector of {n}"),
                            None => "an array of fewer elements".to_owned(),
                        }
                    ),
                )
                .section("5.4.4"),
            );
            continue;
        }
        let depth = brace_depth(value.text);
        if levels > 0 && depth == 0 && !value.text.trim_start().starts_with("generic")
            || depth > levels
        {
            ctx.report(
                Diagnostic::error(
                    "initializer",
                    value.range(),
                    format!(
                        "the initial value has {depth} level{} of braces; this variable has {levels}",
                        if depth == 1 { "" } else { "s" }
                    ),
                )
                .section("5.4.4"),
            );
            continue;
        }
        // 5.4.4: each brace level but the innermost holds braced values, at most as many as
        // its dimension ("Initial value type mismatch" for `v[2][2] = {1}` or `{{1, 2}, 3}`,
        // "Greater number of elements in array initializer" for `{{1, 2}, {3, 4}, 1}`).
        let mut shape: Vec<Option<usize>> = dims
            .iter()
            .map(|d| d.and_then(|t| t.text.parse().ok()))
            .collect();
        if let Some(n) = vector {
            shape.push(Some(n));
        }
        if shape.len() > 1 && value.text.trim_start().starts_with('{') {
            if let Some(message) = nested_shape(value.text, &shape) {
                ctx.report(
                    Diagnostic::error("initializer", value.range(), message).section("5.4.4"),
                );
                continue;
            }
        }
        // A constant expression ptxas refuses to evaluate (`1/0`, `1.0+1`): see `constexpr`.
        let evaluated: Vec<(&str, Option<Result<crate::constexpr::Value, _>>)> = leaves(value.text)
            .into_iter()
            .map(|l| (l, crate::constexpr::evaluate(l)))
            .collect();
        if let Some((leaf, Some(Err(problem)))) =
            evaluated.iter().find(|(_, v)| matches!(v, Some(Err(_))))
        {
            ctx.report(
                Diagnostic::error("constant-expression", value.range(), problem.message(leaf))
                    .section("4.5.4"),
            );
            continue;
        }
        // A floating-point variable takes floating-point values ("Initial value type
        // mismatch" for `.f32 v = 1`; the spec's 5.4.4 says nothing of it, ptxas 13.5 refuses
        // every integer constant or constant expression there).
        if matches!(ty, Some(".f32" | ".f64")) {
            if let Some(&(integer, _)) = evaluated.iter().find(|(l, v)| match v {
                Some(Ok(v)) => !v.is_float(),
                _ => is_integer_constant(l),
            }) {
                ctx.report(
                    Diagnostic::error(
                        "initializer",
                        value.range(),
                        format!(
                            "`{integer}` is an integer value; this variable is {} (write it as a floating-point constant, e.g. `1.0`)",
                            ty.unwrap_or_default()
                        ),
                    )
                    .section("5.4.4"),
                );
                continue;
            }
        }
        // 5.4.4: only `.const` and `.global` variables take an initial value ("No initial
        // value is allowed for 'v' in this state space"), never an `.extern` one, and ptxas
        // 13.5 takes none for `.f16` and `.f16x2` ones ("Initial value type mismatch").
        // An integer variable takes integer values ("Initial value type mismatch" for 2.5).
        if ty.is_some_and(|t| t.starts_with(".u") || t.starts_with(".s")) {
            // `1.0<2.0` is an integer (a comparison's result).
            if let Some(float) = evaluated.iter().find_map(|(l, v)| match v {
                Some(Ok(v)) => v.is_float().then(|| float_literal(l).unwrap_or(l)),
                _ => float_literal(l),
            }) {
                ctx.report(
                    Diagnostic::error(
                        "initializer",
                        value.range(),
                        format!(
                            "`{float}` is a floating-point value; this variable is {}",
                            ty.unwrap_or_default()
                        ),
                    )
                    .section("5.4.4"),
                );
                continue;
            }
        }
        let message = if linkage.contains(&".extern") {
            Some("an `.extern` variable is defined elsewhere and takes no initial value".to_owned())
        } else if !matches!(space.text, ".global" | ".const") {
            Some(format!(
                "a `{}` variable takes no initial value: only `.global` and `.const` ones do",
                space.text
            ))
        } else if let Some(half @ (".f16" | ".f16x2")) = ty {
            Some(format!(
                "a `{half}` variable takes no initial value (ptxas 13.5)"
            ))
        } else {
            None
        };
        if let Some(message) = message {
            ctx.report(Diagnostic::error("initializer", value.range(), message).section("5.4.4"));
        }
    }
}

/// The first floating-point literal of an initial value (`1.5`, `.5`, `0f3F800000`, `1e3`).
fn float_literal(text: &str) -> Option<&str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '$'))
        .find(|w| {
            let b = w.as_bytes();
            // `.5`: no digit before the point.
            let point_first = b.len() > 1 && b[0] == b'.' && b[1].is_ascii_digit();
            point_first
                || !b.is_empty()
                    && b[0].is_ascii_digit()
                    && (w.contains('.')
                        || (b.len() > 1
                            && matches!(b[1], b'f' | b'F' | b'd' | b'D')
                            && b[0] == b'0')
                        || (!w.starts_with("0x") && !w.starts_with("0X") && w.contains(['e', 'E'])))
        })
}

/// The values of one brace level: `{a, {b, c}, d}` gives `a`, `{b, c}`, `d` (`None` unbraced).
fn elements(text: &str) -> Option<Vec<&str>> {
    let inner = text.trim().strip_prefix('{')?.strip_suffix('}')?;
    if inner.trim().is_empty() {
        return Some(Vec::new());
    }
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, b) in inner.bytes().enumerate() {
        match b {
            b'{' | b'(' => depth += 1,
            b'}' | b')' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => {
                out.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(inner[start..].trim());
    Some(out)
}

/// What is wrong with a braced initial value of a variable of `shape` (array dimensions,
/// then a vector's length; `None` for an unsized dimension) of more than one level.
fn nested_shape(text: &str, shape: &[Option<usize>]) -> Option<String> {
    let values = elements(text)?;
    let (first, rest) = shape.split_first()?;
    if let Some(n) = first {
        if values.len() > *n {
            return Some(format!("{} values at a level that holds {n}", values.len()));
        }
    }
    if rest.is_empty() {
        return None;
    }
    for value in values {
        if !value.starts_with('{') {
            return Some(format!(
                "`{value}` stands where a braced list of {} values belongs",
                rest[0].map_or("the inner dimension's".to_owned(), |n| n.to_string())
            ));
        }
        if let Some(message) = nested_shape(value, rest) {
            return Some(message);
        }
    }
    None
}

/// The innermost values of an initial value.
fn leaves(text: &str) -> Vec<&str> {
    match elements(text) {
        Some(values) => values.into_iter().flat_map(leaves).collect(),
        None => vec![text.trim()],
    }
}

/// An integer constant or a constant expression of integers only (`1`, `-1`, `0x10`,
/// `(1 << 4) + 3`).
fn is_integer_constant(text: &str) -> bool {
    let mut words = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '$'))
        .filter(|w| !w.is_empty())
        .peekable();
    words.peek().is_some()
        && words.all(|w| {
            let b = w.as_bytes();
            w == "WARP_SZ"
                || b[0].is_ascii_digit() && !w.contains('.') && float_literal(w).is_none()
        })
}

/// The number of values at the top level of `{a, b, c}` (`None` unbraced).
fn top_level_count(text: &str) -> Option<usize> {
    let inner = text.trim().strip_prefix('{')?.strip_suffix('}')?;
    if inner.trim().is_empty() {
        return Some(0);
    }
    let (mut depth, mut count) = (0usize, 1usize);
    for b in inner.bytes() {
        match b {
            b'{' | b'(' => depth += 1,
            b'}' | b')' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => count += 1,
            _ => {}
        }
    }
    Some(count)
}

fn brace_depth(text: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for b in text.bytes() {
        match b {
            b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Entry and performance directives (11.4): `.maxnctapersm` is gone since PTX 2.1, and the
/// thread counts are positive.
fn function(ctx: &mut Ctx<'_>, function: &Function<'_>) {
    let kind = match function.kind() {
        ptx_syntax::FunctionKind::Entry => "entry",
        ptx_syntax::FunctionKind::Func => "func",
    };
    // 11.6.4: `.common` is for variables (ptxas 13.5: a syntax error on a function).
    if let Some(common) = function.linkage().iter().find(|t| t.text == ".common") {
        ctx.report(
            Diagnostic::error(
                "directive",
                common.range(),
                "`.common` applies to `.global` variables, not to functions",
            )
            .section("11.6.4"),
        );
    }
    header_pragmas(ctx, function, kind);
    entry_parameter_space(ctx, function);
    parameter_shapes(ctx, function);
    // 5.3: a sampler parameter needs the independent texturing mode, as a sampler variable
    // does ("Instruction or declaration violates .target texmode_unified setting").
    if !ctx.targets.iter().any(|t| t.name == "texmode_independent") {
        for param in function.parameters() {
            if let Some(ty) = param.ty().filter(|t| t.text == ".samplerref") {
                ctx.report(
                    Diagnostic::error(
                        "state-space",
                        ty.range(),
                        "a `.samplerref` needs `.target …, texmode_independent`: in the unified mode a texture carries its sampler",
                    )
                    .section("5.3"),
                );
            }
        }
    }
    for param in function
        .return_parameters()
        .iter()
        .chain(function.parameters().iter())
    {
        let parts = param.parts();
        vector_after_type(ctx, &parts);
        param_layout(ctx, &parts);
    }
    // 5.1.6: `.ptr` is a kernel parameter's attribute ("Illegal placement of kernel parameter
    // attribute"), and an opaque handle is passed by value to a kernel only ("Variable 't'
    // cannot be allocated in .param state space"; ptxas 13.5 takes an array of them).
    if function.kind() == ptx_syntax::FunctionKind::Func {
        for param in function.parameters() {
            if let Some(ptr) = param.ptr_attribute() {
                ctx.report(
                    Diagnostic::error(
                        "state-space",
                        ptr.range(),
                        "`.ptr` is an attribute of kernel parameters; a `.func` parameter takes none",
                    )
                    .section("5.1.6.3"),
                );
            }
            let parts = param.parts();
            if let Some(ty) = parts.ty.filter(|t| {
                matches!(t.text, ".texref" | ".samplerref" | ".surfref")
                    && parts.declarators.iter().all(|d| d.dimensions().is_empty())
            }) {
                ctx.report(
                    Diagnostic::error(
                        "state-space",
                        ty.range(),
                        format!(
                            "a `{}` parameter belongs to a kernel; a `.func` takes the handle as a `.u64`",
                            ty.text
                        ),
                    )
                    .section("5.1.6"),
                );
            }
        }
    }
    let attributes = function.attributes();
    for (name, values) in &attributes {
        // The version and target each directive needs (the knowledge base's 11.x facts).
        if let Some(directive) = ctx.isa.directive(name.text) {
            let requirement = &directive.requirement;
            if ctx.version.is_some_and(|v| v < requirement.since) {
                ctx.report(
                    Diagnostic::error(
                        "version-too-old",
                        name.range(),
                        format!(
                            "`{}` needs `.version {}` or newer",
                            name.text, requirement.since
                        ),
                    )
                    .section(directive.section.clone()),
                );
                continue;
            }
            if let Some(target) = ctx.sm_target() {
                if !requirement.targets.satisfied_by(target) {
                    ctx.report(
                        Diagnostic::error(
                            "unsupported-target",
                            name.range(),
                            format!(
                                "`{}` needs .target {} (this file targets {target})",
                                name.text, requirement.targets
                            ),
                        )
                        .section(directive.section.clone()),
                    );
                    continue;
                }
            }
        }
        // 11.8.1: `.blocksareclusters` goes with `.reqntid` and `.reqnctapercluster`.
        if name.text == ".blocksareclusters"
            && !(attributes.iter().any(|(n, _)| n.text == ".reqntid")
                && attributes
                    .iter()
                    .any(|(n, _)| n.text == ".reqnctapercluster"))
        {
            ctx.report(
                Diagnostic::error(
                    "directive",
                    name.range(),
                    "`.blocksareclusters` needs `.reqntid` and `.reqnctapercluster` on the same kernel",
                )
                .section("11.8.1"),
            );
        }
        // How many values the directive takes (ptxas 13.5: a syntax error otherwise).
        if let Some((min, max)) = ctx.isa.function_directive_values(name.text) {
            if values.len() < min || values.len() > max {
                let wanted = match (min, max) {
                    (0, 0) => "no value".to_owned(),
                    (a, b) if a == b => format!("{a} value{}", if a == 1 { "" } else { "s" }),
                    (a, b) => format!("{a} to {b} values"),
                };
                ctx.report(
                    Diagnostic::error(
                        "directive",
                        name.range(),
                        format!("`{}` takes {wanted}, not {}", name.text, values.len()),
                    )
                    .section("11.4"),
                );
                continue;
            }
        }
        // ptxas 13.5 takes most directives twice, not these ("Attribute '.abi_preserve'
        // specified multiple times in function"; a syntax error for `.noreturn`).
        if matches!(
            name.text,
            ".noreturn" | ".abi_preserve" | ".abi_preserve_control"
        ) && attributes
            .iter()
            .any(|(n, _)| n.text == name.text && n.range().start < name.range().start)
        {
            ctx.report(
                Diagnostic::error(
                    "directive",
                    name.range(),
                    format!("`{}` is given twice", name.text),
                )
                .section("11.4"),
            );
            continue;
        }
        if let Some(since) = ctx.isa.function_directive_since(name.text) {
            if ctx.version.is_some_and(|v| v < since) {
                ctx.report(
                    Diagnostic::error(
                        "version-too-old",
                        name.range(),
                        format!("`{}` needs `.version {since}` or newer", name.text),
                    )
                    .section("11.4"),
                );
                continue;
            }
        }
        if let Some(wanted) = ctx.isa.function_directive_kind(name.text) {
            if wanted != kind && wanted != "any" {
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
        // On a `.func` ptxas 13.5 takes `.noreturn`, the `.abi_preserve` pair and
        // `.local_maxnreg` in that order, each once (a syntax error otherwise).
        if let Some(slot) = ctx
            .isa
            .function_directive_slot(name.text)
            .filter(|_| kind == "func")
        {
            let misplaced = attributes.iter().find(|(n, _)| {
                n.range().start < name.range().start
                    && ctx
                        .isa
                        .function_directive_slot(n.text)
                        .is_some_and(|s| s > slot || (s == slot && n.text == name.text))
            });
            if let Some((earlier, _)) = misplaced {
                let message = if earlier.text == name.text {
                    format!("`{}` is given twice on a `.func`", name.text)
                } else {
                    format!(
                        "`{}` goes before `{}` on a `.func` (`.noreturn`, then `.abi_preserve`/`.abi_preserve_control`, then `.local_maxnreg`)",
                        name.text, earlier.text
                    )
                };
                ctx.report(Diagnostic::error("directive", name.range(), message).section("11.4"));
                continue;
            }
        }
        match name.text {
            ".noreturn" if !function.return_parameters().is_empty() => ctx.report(
                Diagnostic::error(
                    "directive",
                    name.range(),
                    "a `.noreturn` function has no return parameters",
                )
                .section("11.4"),
            ),
            ".maxnctapersm" => ctx.report(
                Diagnostic::error(
                    "directive",
                    name.range(),
                    "`.maxnctapersm` was removed in PTX ISA 2.1; use `.minnctapersm`",
                )
                .section("11.4.3"),
            ),
            ".maxntid" | ".reqntid" | ".reqnctapercluster" | ".maxclusterrank" => {
                // "Conflicting directives: .maxntid and .reqntid cannot both be specified".
                if name.text == ".reqntid" && attributes.iter().any(|(n, _)| n.text == ".maxntid") {
                    ctx.report(
                        Diagnostic::error(
                            "directive",
                            name.range(),
                            "`.reqntid` and `.maxntid` cannot both be given",
                        )
                        .section("11.4"),
                    );
                }
                // "Conflicting directives: .reqnctapercluster and .maxclusterrank cannot both
                // be specified".
                if name.text == ".maxclusterrank"
                    && attributes
                        .iter()
                        .any(|(n, _)| n.text == ".reqnctapercluster")
                {
                    ctx.report(
                        Diagnostic::error(
                            "directive",
                            name.range(),
                            "`.maxclusterrank` and `.reqnctapercluster` cannot both be given",
                        )
                        .section("11.8"),
                    );
                }
                // ptxas 13.5 takes 0 in `.reqnctapercluster` and `.maxclusterrank` but not in
                // the thread counts ("Positive non-zero value expected for maxntid").
                if matches!(name.text, ".maxntid" | ".reqntid") {
                    zero_counts(ctx, name, values);
                }
            }
            ".maxnreg" | ".minnctapersm" => zero_counts(ctx, name, values),
            _ => {}
        }
    }
}

/// The fields an opaque variable's initial value sets (`{ width = 64, filter_mode = linear }`)
/// against the knowledge base's fields of the type.
fn opaque_fields(ctx: &mut Ctx<'_>, ty: &str, value: &ptx_syntax::Token<'_>) {
    let Some(fields) = elements(value.text) else {
        return;
    };
    for field in fields {
        // Every element names its field (ptxas 13.5 "Opaque structure initializer requires
        // named fields" for `{ width }` and `{ 16 }`).
        let Some((name, set)) = field.split_once('=') else {
            if field.trim().is_empty() {
                continue;
            }
            let message = format!(
                "`{}`: each value of a `{ty}`'s initializer names its field (`width = 16`)",
                field.trim()
            );
            ctx.report(Diagnostic::error("initializer", value.range(), message).section("5.3"));
            return;
        };
        let (name, set) = (name.trim(), set.trim());
        let message = match ctx.isa.opaque_field(ty, name) {
            None => format!("a `{ty}` has no field `{name}`"),
            // A number (or constant expression) is taken for an enumerated field too: ptxas
            // 13.5 assembles `filter_mode = 1`, `addr_mode_0 = 9` and `filter_mode = -1` (the
            // spec, 5.3.2, lists only the names); a name must be one of the field's.
            Some(symbols)
                if !symbols.is_empty()
                    && !symbols.contains(&set)
                    && set.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') =>
            {
                format!(
                    "`{name}` of a `{ty}` is one of {}, not `{set}`",
                    symbols.join(", ")
                )
            }
            Some(_) => continue,
        };
        ctx.report(Diagnostic::error("initializer", value.range(), message).section("5.3"));
        return;
    }
}

/// `.pragma` between a function's signature and its body: ptxas 13.5 takes none on a
/// `.func` (a syntax error), and on a `.entry` not the pragmas that belong inside a body
/// ("Pragma 'used_bytes_mask 0xff' is allowed only within function scope").
fn header_pragmas(ctx: &mut Ctx<'_>, function: &Function<'_>, kind: &str) {
    let Some(body) = function.body() else {
        return;
    };
    let range = function.range();
    let head = &ctx.text[range.start..body.range().start];
    let Some(close) = head.rfind(')') else {
        return;
    };
    let mut at = range.start + close;
    while let Some(found) = ctx.text[at..body.range().start].find(".pragma") {
        let start = at + found;
        let end = ctx.text[start..body.range().start]
            .find(';')
            .map_or(body.range().start, |i| start + i);
        // Not inside a `//` comment.
        let line_start = ctx.text[..start].rfind('\n').map_or(0, |i| i + 1);
        if ctx.text[line_start..start].contains("//") {
            at = start + 7;
            continue;
        }
        if kind == "func" {
            let message = "a `.func` takes no `.pragma` before its body; put it inside the body";
            ctx.report(Diagnostic::error("directive", start..start + 7, message).section("11.3"));
        } else {
            super::pragmas::check(ctx, start..end, super::pragmas::Place::Header);
        }
        at = end;
    }
}

/// 11.5.4 `.section`: a data line's difference of two labels (`.b32 $L1 - $L0`) needs PTX
/// ISA 7.5 ("Feature 'labels1 - labels2 expression in .section' requires PTX ISA .version 7.5").
fn section(ctx: &mut Ctx<'_>, d: &ptx_syntax::Directive<'_>) {
    let before_7_5 = ctx.version.is_some_and(|v| v < PtxVersion::new(7, 5));
    let range = d.range();
    let text = &ctx.text[range.clone()];
    let mut offset = range.start;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        // Compiler output's debug sections are tens of thousands of such lines.
        if plain_data_line(line.as_bytes()) {
            continue;
        }
        let trimmed = line.trim_start();
        let at = start + (line.len() - trimmed.len());
        let Some(rest) = trimmed.strip_prefix(".b") else {
            continue;
        };
        let bits: u32 = rest
            .chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .unwrap_or(64);
        // Other widths (`.b0`, `.b24`) are syntax errors, which the parse reports.
        if !matches!(bits, 8 | 16 | 32 | 64) {
            continue;
        }
        let values = rest.trim_start_matches(|c: char| c.is_ascii_digit());
        let values = values
            .split("//")
            .next()
            .unwrap_or("")
            .trim()
            .trim_end_matches('}');
        let line_range = at..at + trimmed.trim_end().len();
        let is_name = |w: &str| {
            w.trim()
                .starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$' || c == '.')
        };
        for value in values.split(',').map(str::trim).filter(|v| !v.is_empty()) {
            let problem = if is_name(value) {
                // 11.5.2: `label`, `label+imm` and `label1-label2`.
                match value.find(['+', '-']) {
                    None => None,
                    Some(i) if value.as_bytes()[i] == b'+' => {
                        (is_name(&value[i + 1..])).then(|| {
                            format!("`{value}`: a label takes a constant offset (`label+N`), not another label")
                        })
                    }
                    Some(i) if is_name(&value[i + 1..]) => before_7_5.then(|| {
                        "a difference of two labels in `.section` data needs `.version 7.5` or newer".to_owned()
                    }),
                    Some(_) => Some(format!(
                        "`{value}`: a label's offset is added (`label+N`); only two labels are subtracted"
                    )),
                }
            } else {
                // An integer in the range of the size, signed or unsigned ("Value out of
                // range for type .b8 256").
                let (negative, digits) = match value.strip_prefix('-') {
                    Some(d) => (true, d.trim()),
                    None => (false, value),
                };
                match ptx_syntax::parse_integer(digits) {
                    None => Some(format!(
                        "`{value}` is not an integer; `.section` data holds integers and labels"
                    )),
                    Some(n) if bits < 64 => {
                        let n = i128::from(n);
                        let n = if negative { -n } else { n };
                        let low = -(1i128 << (bits - 1));
                        let high = (1i128 << bits) - 1;
                        (!(low..=high).contains(&n)).then(|| {
                            format!("`{value}` is out of range for `.b{bits}` ({low} to {high})")
                        })
                    }
                    Some(_) => None,
                }
            };
            if let Some(message) = problem {
                let code = if message.contains("needs `.version") {
                    "version-too-old"
                } else {
                    "directive"
                };
                ctx.report(Diagnostic::error(code, line_range.clone(), message).section("11.5.2"));
                break;
            }
        }
    }
}

/// Whether a line of `.section` data is one [`section`] finds nothing in, told from its
/// bytes alone: a line that is not data (`{`, a label), or a data line of a known width whose
/// values are plain decimal numbers in its range and names without `+` or `-`. Any other line
/// (a comment, a sign, another radix, a character beyond ASCII, ...) is left to [`section`]'s
/// full reading, so the answer is never other than that reading's.
fn plain_data_line(line: &[u8]) -> bool {
    // The blanks `str::trim` takes off, as far as ASCII goes.
    let blank = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c);
    let mut i = 0;
    while i < line.len() && blank(line[i]) {
        i += 1;
    }
    let rest = &line[i..];
    match rest {
        [] => return true,
        [b'.', b'b', ..] => {}
        [first, ..] => return first.is_ascii(),
    }
    let (high, values) = match &rest[2..] {
        [b'8', values @ ..] => (u64::from(u8::MAX), values),
        [b'1', b'6', values @ ..] => (u64::from(u16::MAX), values),
        [b'3', b'2', values @ ..] => (u64::from(u32::MAX), values),
        [b'6', b'4', values @ ..] => (u64::MAX, values),
        _ => return false,
    };
    if values.first().is_some_and(u8::is_ascii_digit) {
        return false;
    }
    for value in values.split(|&b| b == b',') {
        let start = value.iter().position(|&b| !blank(b)).unwrap_or(value.len());
        let end = value
            .iter()
            .rposition(|&b| !blank(b))
            .map_or(start, |e| e + 1);
        let value = &value[start..end];
        match value {
            [] => {}
            [first, ..] if first.is_ascii_alphabetic() || matches!(first, b'_' | b'$' | b'.') => {
                let name = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.');
                if !value.iter().all(name) {
                    return false;
                }
            }
            // Decimal, without a leading 0 (octal), short enough not to overflow.
            [b'0'] => {}
            [b'1'..=b'9', ..] if value.len() <= 19 && value.iter().all(u8::is_ascii_digit) => {
                let n = value
                    .iter()
                    .fold(0u64, |n, &d| n * 10 + u64::from(d - b'0'));
                if n > high {
                    return false;
                }
            }
            _ => return false,
        }
    }
    true
}

/// A directive's count of 0 ("Positive non-zero value expected for maxnreg").
fn zero_counts(ctx: &mut Ctx<'_>, name: &ptx_syntax::Token<'_>, values: &[ptx_syntax::Token<'_>]) {
    for value in values {
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

#[cfg(test)]
mod tests {
    use crate::test_support::check_diagnostics;

    #[test]
    fn declarations_and_initial_values() {
        check_diagnostics(
            r#"
.version 7.0
.target sm_80
.address_size 64
.global .b32 g = 1;
.shared .b32 s = 1;
//               ^ error: a `.shared` variable takes no initial value: only `.global` and `.const` ones do
.extern .global .b32 e = 1;
//                       ^ error: an `.extern` variable is defined elsewhere and takes no initial value
.global .f16 h = 0f3F800000;
//               ^^^^^^^^^^ error: a `.f16` variable takes no initial value (ptxas 13.5)
.global .pred p;
//      ^^^^^ error: a `.pred` variable is a scalar `.reg`: predicates cannot live in memory or in vectors
.common .shared .b32 c;
//      ^^^^^^^ error: a `.common` variable is `.global`, not `.shared`
.global .v4 .f64 wide;
//      ^^^ error: a `.v4 .f64` variable is 256 bits; a vector is at most 128 bits
.global .u32 a[2] = 1;
//                  ^ error: the initial value has 0 levels of braces; this variable has 1
.global .u32 nested[2] = {{1, 2}};
//                       ^^^^^^^^ error: the initial value has 2 levels of braces; this variable has 1
.global .u32 fl[2] = {1, 2.5};
//                   ^^^^^^^^ error: `2.5` is a floating-point value; this variable is .u32
.global .f32 fi = 1;
//                ^ error: `1` is an integer value; this variable is .f32 (write it as a floating-point constant, e.g. `1.0`)
.const .f64 fe[2] = {1.5, (1 << 4) + 3};
//                  ^^^^^^^^^^^^^^^^^^^ error: `(1 << 4) + 3` is an integer value; this variable is .f64 (write it as a floating-point constant, e.g. `1.0`)
.global .f32 fok[2] = {1.0, 0f3F800000};
.global .u32 two[2][2] = {1};
//                       ^^^ error: `1` stands where a braced list of 2 values belongs
.global .u32 extra[2][2] = {{1, 2}, {3, 4}, 5};
//                         ^^^^^^^^^^^^^^^^^^^ error: 3 values at a level that holds 2
.global .u32 fewer[2][2] = {{1, 2}, {3}};
.global .u64 ptr = s;
//                 ^ error: `s` is a `.shared` variable: an initial value may use the address of a `.global` or `.const` variable only
.global .u64 nowhere_ptr = nowhere;
//                         ^^^^^^^ error: `nowhere` is not a variable or function of this module
.global .u8 masked[4] = {0xFF(g), 0xFF00(g), 0, 0};
//                       ^^^^ error: a mask `0xFF(name)` in an initial value needs `.version 7.1` or newer
//                                ^^^^^^ error: a mask `0xFF(name)` in an initial value needs `.version 7.1` or newer
.extern .global .b64 redeclared;
.global .b32 redeclared;
//           ^^^^^^^^^^ error: variable `redeclared` is already declared in this scope
.file 1 "a.cu"
.file 1 "b.cu"
// <- error: file index 1 is already given to another `.file`
.visible .func (.param .b32 r) f()
.noreturn
// <- error: a `.noreturn` function has no return parameters
.maxntid 32
// <- error: `.maxntid` belongs to a `.entry`, not a `.func`
{
  ret;
}
.visible .entry k()
.maxntid 0
//       ^ error: `.maxntid` takes positive counts, not 0
.maxnctapersm 2
// <- error: `.maxnctapersm` was removed in PTX ISA 2.1; use `.minnctapersm`
.explicitcluster
// <- error: `.explicitcluster` needs `.version 7.8` or newer
{
  .loc 1 3 0, function_name f, inlined_at 1 9 0
//^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error: `inlined_at 1 9 0` names a location no earlier `.loc` of this function gave
  ret;
}
"#,
        );
    }

    #[test]
    fn address_initializers_module_variables_files_and_section_data() {
        check_diagnostics(
            r#"
.version 8.8
.target sm_90
.address_size 64
.global .u32 g[8];
.func f()
{
  ret;
}
.func h();
//    ^ error: `h` is declared but defined nowhere in this file; a function of another module is declared `.extern`
.global .b64 p0 = g;
//                ^ error: an address initializes a .u64 or .u32 variable (a masked byte also a .u8 one), not a .b64 one
.global .u8 p1 = 0xFF(g);
.global .u64 p2 = 4+g;
//                  ^ error: an address in an initial value takes only an offset added after it (`g+N`)
.global .u64 p3 = f+4;
//                ^ error: the address of the function `f` takes no offset
.global .u64 p4 = generic(f);
//                        ^ error: `generic()` takes a variable; `f` is a function
.global .u64 p5 = k;
//                ^ error: `k` is declared further down: an initial value names only what is declared before it (add a declaration above, e.g. `.extern`)
.global .u32 a[];
//           ^ error: an array of unknown size needs initial values, or `.extern` when it is defined elsewhere
.local .u32 l;
// <- error: a `.local` variable at module scope: ptxas 13.5 compiles with the ABI, which keeps `.local` variables inside functions
.global .texref t = 1;
//                  ^ error: a `.texref` takes a braced list of fields (`{ width = 8 }`)
.file 4294967296 "a.cu"
// <- error: file index 4294967296 does not fit 32 bits
.visible .entry k()
{
  ret;
}
.section .debug_info
{
lab:
  .b8 256
//^^^^^^^ error: `256` is out of range for `.b8` (-128 to 255)
  .b16 -32768
  .b32 lab-4
//^^^^^^^^^^ error: `lab-4`: a label's offset is added (`label+N`); only two labels are subtracted
  .b32 lab+lab
//^^^^^^^^^^^^ error: `lab+lab`: a label takes a constant offset (`label+N`), not another label
}

"#,
        );
    }

    #[test]
    fn aliases() {
        check_diagnostics(
            r#"
.version 8.6
.target sm_90
.address_size 64
.visible .func f(.param .b32 x)
{
  ret;
}
.visible .func a(.param .b32 x);
.alias a, f;
.visible .func b(.param .b64 x);
.alias b, f;
// <- error: `b` and `f` have different prototypes
.visible .global .b32 v;
.visible .global .b32 w;
.alias w, v;
// <- error: `.alias` names functions; a variable cannot be aliased
"#,
        );
    }

    #[test]
    fn linkage_prototypes_opaque_variables_and_directive_counts() {
        check_diagnostics(
            r#"
.version 8.7
.target sm_90, texmode_independent
.address_size 64
.const .texref in_const;
// <- error: a `.texref` variable is `.global`, not `.const`
.global .texref tex = { width = 64, filter_mode = linear, addr_mode_0 = clamp_to_edge };
.global .surfref surf = { addr_mode_0 = wrap };
//                      ^^^^^^^^^^^^^^^^^^^^^^ error: a `.surfref` has no field `addr_mode_0`
.global .samplerref smp = { filter_mode = bogus };
//                        ^^^^^^^^^^^^^^^^^^^^^^^ error: `filter_mode` of a `.samplerref` is one of nearest, linear, not `bogus`
.extern .global .b32 later;
.weak .global .b32 later;
.extern .global .b32 sized[4];
.visible .global .b32 sized[8];
//                    ^^^^^ error: `sized` was declared before with another type, state space or shape
.weak .func w(.param .b32 x);
.visible .func w(.param .b32 x)
//             ^ error: `w` was declared `.weak` and is defined `.visible`: a definition keeps its declaration's linkage (or writes none)
{
  ret;
}
.func p(.param .b32 x);
.func p(.param .u32 y)
//    ^ error: `p` was declared before with another prototype (results, parameters, their state spaces, types, alignments and sizes must match)
{
  ret;
}
.func q(.param .b32 x);
.func q(.param .b32 y)
{
  ret;
}
.common .func c();
// <- error: `.common` applies to `.global` variables, not to functions
pr: .callprototype _ (.param .b32 _);
//  ^^^^^^^^^^^^^^ error: `.callprototype` stands inside a function body
.visible .func f()
.pragma "nounroll";
// <- error: a `.func` takes no `.pragma` before its body; put it inside the body
{
  ret;
}
.visible .func g()
.noreturn
.noreturn
// <- error: `.noreturn` is given twice
{
  trap;
}
.visible .func h()
.local_maxnreg 32
// <- error: `.local_maxnreg` needs `.version 8.8` or newer
{
  ret;
}
.weak .func wt()
{
  ret;
}
.visible .func al();
.alias al, wt;
//         ^^ error: `wt` is declared `.weak`: an alias needs a function defined here that is not `.weak`
.visible .entry k(.param .samplerref sp)
.pragma "used_bytes_mask 0xff";
//      ^^^^^^^^^^^^^^^^^^^^^^ error: the "used_bytes_mask" pragma goes inside a function body
.maxnreg 16, 16
// <- error: `.maxnreg` takes 1 value, not 2
.explicitcluster 1
// <- error: `.explicitcluster` takes no value, not 1
.reqnctapercluster 0
.maxclusterrank 0
// <- error: `.maxclusterrank` and `.reqnctapercluster` cannot both be given
.minnctapersm 0
//            ^ error: `.minnctapersm` takes positive counts, not 0
{
  ret;
}
"#,
        );
    }

    #[test]
    fn section_label_differences_need_7_5() {
        check_diagnostics(
            r#"
.version 7.4
.target sm_80
.address_size 64
.section .debug_info
{
$L0:
.b32 $L0
.b32 $L0-$L0
// <- error: a difference of two labels in `.section` data needs `.version 7.5` or newer
}
.visible .func f()
.local_maxnreg 32
// <- error: `.local_maxnreg` needs `.version 8.8` or newer
{
  ret;
}
"#,
        );
    }
}
