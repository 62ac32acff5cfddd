//! Calls against the called function's signature, and branch tables (PTX ISA 9.7.12.4–5,
//! 11.5.x), as ptxas 13.5 checks them (measured on fixtures/modules):
//! * a direct call names a `.func` declared before it ("Call to 'f' requires call prototype";
//!   a kernel is "Illegal call target, device function expected");
//! * as many results and arguments as the function has ("Call has wrong number of
//!   parameters"), each of the formal's size: a register or a constant of any type of that
//!   size; a `.param` variable of that size whose type is not an integer where the formal is a
//!   float, an array of the same size and alignment for an array ("Type of argument does not
//!   match formal parameter", "Alignment of argument does not match");
//! * a call whose callee (or prototype) has a scalar `.u8`/`.s8`/`.u16`/`.s16` or `.pred`
//!   parameter or result, and a `mov` of such a function's address, are refused ("In ABI
//!   compilation, passing predicate, 8-bit and 16-bit parameters to device functions is not
//!   supported", "... returning ... values"); the spec sets no such limit (5.1.6.4 only
//!   describes parameters), so this follows ptxas;
//! * `brx.idx` takes a 32-bit index and a label that names a `.branchtargets` list, whose
//!   entries are labels of the function ("Unknown symbol").

use ptx_syntax::{Function, Operand, OperandKind, Statement, Token, VariableDecl};

use super::operand_types::{
    any_symbol, declared_register, float_against_integer, is_float_type, is_integer_type,
    named_symbol, plain_name, plain_register_type, symbol_of, type_bits, variable_shape, Class,
    RegTy,
};
use crate::context::{Ctx, InstInfo};
use crate::scope::{Frame, Scope, SymbolKind};
use crate::Diagnostic;

/// A formal parameter as the call rules read it.
#[derive(Debug, Clone)]
pub(crate) struct Formal<'a> {
    pub register: bool,
    pub ty: Option<&'a str>,
    /// Elements of an array parameter; 0 for an array of unknown size (`[]`).
    pub array: Option<u64>,
    pub align: Option<u64>,
    /// Declared as a vector (`.reg .v4 .u16 x`).
    pub vector: bool,
}

impl<'a> Formal<'a> {
    fn of(decl: &VariableDecl<'a>) -> Vec<Formal<'a>> {
        let parts = decl.parts();
        let register = parts.state_space.is_some_and(|s| s.text == ".reg");
        let align = parts.alignment.and_then(|t| t.text.parse().ok());
        parts
            .declarators
            .iter()
            .map(|d| {
                let dims = d.dimensions();
                let array = (!dims.is_empty()).then(|| {
                    dims.iter()
                        .map(|t| t.and_then(|t| t.text.parse::<u64>().ok()).unwrap_or(0))
                        .product()
                });
                Formal {
                    register,
                    ty: parts.ty.map(|t| t.text),
                    array,
                    align,
                    vector: parts.vector.is_some(),
                }
            })
            .collect()
    }

    fn bits(&self) -> Option<u64> {
        Some(u64::from(type_bits(self.ty?)?) * self.array.unwrap_or(1))
    }

    /// A parameter the ABI of ptxas 13.5 cannot pass: a scalar signed or unsigned integer of 8
    /// or 16 bits, or a predicate (measured: `.b8`, `.b16`, `.f16` and arrays of any type
    /// pass; `.u8`, `.s8`, `.u16`, `.s16` and `.pred` fail, as `.param` or `.reg`; a `.reg`
    /// vector of them, `.reg .v4 .u16 x`, passes).
    fn outside_abi(&self) -> bool {
        self.array.is_none()
            && !self.vector
            && matches!(self.ty, Some(".u8" | ".s8" | ".u16" | ".s16" | ".pred"))
    }
}

/// A function of the module, as its first declaration gives it.
#[derive(Debug, Clone)]
pub(crate) struct Callee<'a> {
    pub name: &'a str,
    pub entry: bool,
    /// Where it is first declared.
    pub first: usize,
    pub results: Vec<Formal<'a>>,
    pub params: Vec<Formal<'a>>,
}

impl<'a> Callee<'a> {
    /// The first result and the first parameter that ptxas's ABI cannot pass
    /// ([`Formal::outside_abi`]).
    pub(crate) fn outside_abi(&self) -> (Option<&Formal<'a>>, Option<&Formal<'a>>) {
        // A function of two or more results is compiled without the ABI (ptxas 13.5: "Function
        // 'f' with multiple return values found, disabling ABI"), which passes any of them.
        if self.results.len() > 1 {
            return (None, None);
        }
        (
            self.results.iter().find(|f| f.outside_abi()),
            self.params.iter().find(|f| f.outside_abi()),
        )
    }

    /// Whether a call of this function (or taking its address) is refused by ptxas's ABI.
    pub(crate) fn has_outside_abi(&self) -> bool {
        let (r, p) = self.outside_abi();
        r.is_some() || p.is_some()
    }

    pub(crate) fn of(function: &Function<'a>, name: &'a str, first: usize) -> Callee<'a> {
        Callee {
            name,
            entry: function.kind() == ptx_syntax::FunctionKind::Entry,
            first,
            results: function
                .return_parameters()
                .iter()
                .flat_map(Formal::of)
                .collect(),
            params: function.parameters().iter().flat_map(Formal::of).collect(),
        }
    }
}

/// Records the function's `.branchtargets` labels and reports entries that name no label of
/// the function.
pub(crate) fn branch_tables<'a>(
    ctx: &mut Ctx<'a>,
    statements: &[Statement<'a>],
    _labels: &Frame<'a>,
) {
    ctx.branch_tables.clear();
    ctx.prototypes.clear();
    ctx.call_lists.clear();
    // Each list of statements sees its own labels and those of the lists around it (ptxas
    // "Unknown symbol" for a label inside a nested block).
    let mut stack: Vec<(Vec<Statement<'a>>, Vec<&'a str>)> =
        vec![(statements.to_vec(), Vec::new())];
    while let Some((list, outer)) = stack.pop() {
        let mut visible = outer;
        for statement in &list {
            if let Statement::Label(label) = statement {
                if let Some(name) = label.name() {
                    visible.push(name.text);
                }
            }
        }
        let mut previous: Option<Token<'a>> = None;
        for statement in &list {
            match statement {
                Statement::Label(label) => {
                    previous = label.name();
                    continue;
                }
                Statement::Directive(d) if d.kind() == ptx_syntax::DirectiveKind::CallPrototype => {
                    if let Some(name) = previous {
                        ctx.call_lists.push((name.text, d.range().start));
                        let (results, params) = d.prototype();
                        ctx.prototypes.push(Callee {
                            name: name.text,
                            entry: false,
                            first: d.range().start,
                            results: results.iter().flat_map(Formal::of).collect(),
                            params: params.iter().flat_map(Formal::of).collect(),
                        });
                    }
                }
                Statement::Directive(d) if d.kind() == ptx_syntax::DirectiveKind::BranchTargets => {
                    if let Some(name) = previous {
                        ctx.branch_tables.push((name.text, d.range().start));
                    }
                    for target in d.names() {
                        // 11.3.1: `L<3>` is short for `L0, L1, L2` (parameterized names, 5.4.6).
                        let rest = &ctx.text[target.range().end..];
                        let count = rest
                            .strip_prefix('<')
                            .and_then(|r| r.split_once('>'))
                            .and_then(|(n, _)| n.trim().parse::<usize>().ok());
                        let found = match count {
                            Some(n) => (0..n).all(|i| {
                                let name = format!("{}{i}", target.text);
                                visible.iter().any(|v| *v == name)
                            }),
                            None => visible.contains(&target.text),
                        };
                        if found {
                            continue;
                        }
                        ctx.report(
                            Diagnostic::error(
                                "undeclared-name",
                                target.range(),
                                format!(
                                    "`{}` is not a label in scope: a `.branchtargets` list names labels of this block or the blocks around it",
                                    target.text
                                ),
                            )
                            .section("11.5.2"),
                        );
                    }
                }
                // 11.5.3: a `.calltargets` list names device functions ("Illegal call target,
                // device function expected").
                Statement::Directive(d) if d.kind() == ptx_syntax::DirectiveKind::CallTargets => {
                    // A call through the list is checked against every listed function
                    // (ptxas 13.5 takes a kernel there too, as a function of its signature).
                    if let Some(name) = previous {
                        ctx.call_lists.push((name.text, d.range().start));
                        for listed in d.names() {
                            if let Some(f) = ctx.functions.iter().find(|f| f.name == listed.text) {
                                let mut callee = f.clone();
                                callee.name = name.text;
                                callee.first = d.range().start;
                                callee.entry = false;
                                ctx.prototypes.push(callee);
                            }
                        }
                    }
                    for target in d.names() {
                        let function = ctx.functions.iter().any(|f| f.name == target.text);
                        if !function {
                            ctx.report(
                                Diagnostic::error(
                                    "call-signature",
                                    target.range(),
                                    format!("`{}` is not a `.func` of this module: a `.calltargets` list names device functions", target.text),
                                )
                                .section("11.5.3"),
                            );
                        }
                    }
                }
                Statement::Block(block) => stack.push((block.statements(), visible.clone())),
                _ => {}
            }
            previous = None;
        }
    }
}

pub(crate) fn check<'a>(ctx: &mut Ctx<'a>, info: &InstInfo<'a>, scope: &Scope<'a>) {
    match info.words[0] {
        "call" => {
            record_results(ctx, info);
            call(ctx, info, scope);
        }
        "brx" => brx(ctx, info, scope),
        "bra" => special_register_label(ctx, info, scope),
        "mov" => {
            function_address(ctx, info);
            call_parameter_address(ctx, info, scope);
        }
        "cvta" => call_parameter_address(ctx, info, scope),
        "ld" if ctx.in_entry && info.has("param") => call_result_read(ctx, info, scope),
        _ => {}
    }
}

/// `bra %clock;` before a label `%clock:` — ptxas 13.5 reads a label named like a special
/// register as that register until the label is declared ("Special register argument not
/// allowed for instruction 'bra'", "Arguments mismatch" for `%tid`); a branch back to it is
/// fine.
fn special_register_label(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    let Some(target) = info.operands.last() else {
        return;
    };
    let OperandKind::Register(name) = target.kind() else {
        return;
    };
    let later = symbol_of(scope, name, SymbolKind::Label)
        .is_some_and(|label| label.range.start > info.mnemonic.start);
    if later && ctx.isa.special_register(name).is_some() {
        ctx.report(
            Diagnostic::error(
                "operand-type",
                target.range(),
                format!(
                    "`{name}` is read as the special register until the label of that name is \
                     declared; declare the label before this branch or rename it"
                ),
            )
            .section("9.7.12.1"),
        );
    }
}

/// The `.param` variable a name resolves to when it is declared in the function's body
/// (a call's argument or result), not a parameter of the function itself.
fn body_parameter<'s, 'a>(
    ctx: &Ctx<'a>,
    scope: &'s Scope<'a>,
    name: &str,
) -> Option<&'s crate::scope::Symbol<'a>> {
    symbol_of(scope, name, SymbolKind::Variable)
        .filter(|symbol| symbol.space == Some(".param") && symbol.range.start >= ctx.body_start)
}

/// Remembers the `.param` variables a call writes its results into (`call (r), f, (a);`).
fn record_results<'a>(ctx: &mut Ctx<'a>, info: &InstInfo<'a>) {
    let ops = &info.operands;
    if ops.len() < 2 || !matches!(ops[0].kind(), OperandKind::ArgumentList) {
        return;
    }
    for result in ops[0].elements() {
        if let OperandKind::Identifier(name) = result.kind() {
            ctx.call_results.push(name);
        }
    }
}

/// The address of a `.param` variable declared in a body (`mov.u64 %rd1, arg;`): such a
/// variable only carries a call's arguments or results, and ptxas 13.5 refuses to take its
/// address ("Illegal to take address of parameter"), in a kernel and in a `.func` alike.
/// The function's own parameters may be addressed.
fn call_parameter_address(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    for op in info.operands.iter().skip(1) {
        let OperandKind::Identifier(name) = op.kind() else {
            continue;
        };
        if body_parameter(ctx, scope, name).is_some() {
            ctx.report(
                Diagnostic::error(
                    "call-sequence",
                    op.range(),
                    format!(
                        "`{name}` is a `.param` variable of a call: its address cannot be \
                         taken; pass values with `st.param`/`ld.param`, or use a `.local` \
                         variable"
                    ),
                )
                .section("5.1.6"),
            );
        }
    }
}

/// In a kernel, `ld.param` from a `.param` variable declared in the body reads a call's
/// result: ptxas 13.5 refuses one that no earlier call (in the text) returned into
/// ("Function call sequence invalid: 'ld.param' of … without corresponding call"). In a
/// `.func` ptxas takes it.
fn call_result_read(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    for op in &info.operands {
        if !matches!(op.kind(), OperandKind::Address { .. }) {
            continue;
        }
        let Some(base) = super::memory::address_base_name(op) else {
            continue;
        };
        let OperandKind::Identifier(name) = base.kind() else {
            continue;
        };
        if body_parameter(ctx, scope, name).is_some() && !ctx.call_results.contains(&name) {
            ctx.report(
                Diagnostic::error(
                    "call-sequence",
                    base.range(),
                    format!(
                        "`{name}` is read before any call returns a value into it; in a \
                         kernel, `ld.param` of a call's `.param` variable reads that call's \
                         result, so name it in the results of an earlier `call ({name}), …`"
                    ),
                )
                .section("9.7.12.5"),
            );
        }
    }
}

/// The ABI report of a call (or address) of `callee`, at `range`.
fn report_outside_abi(
    ctx: &mut Ctx<'_>,
    range: ptx_syntax::TextRange,
    callee: &Callee<'_>,
    what: &str,
) {
    let (result, param) = callee.outside_abi();
    let (formal, role) = match (param, result) {
        (Some(p), _) => (p, "parameter"),
        (None, Some(r)) => (r, "result"),
        (None, None) => return,
    };
    let ty = formal.ty.unwrap_or("?");
    let instead = if ty == ".pred" {
        "pass a `.b32` (or `.u32`) and convert with `setp`/`selp`"
    } else {
        "declare it `.b8`/`.b16`, or widen it to 32 bits"
    };
    ctx.report(
        Diagnostic::error(
            "call-abi",
            range,
            format!(
                "{what} `{}` has a {ty} {role}: ptxas's ABI passes no predicate and no signed or \
                 unsigned 8- or 16-bit scalar to or from a device function ({instead})",
                callee.name
            ),
        )
        .section("9.7.12.5"),
    );
}

/// `mov` of the address of a function whose signature the ABI cannot pass (ptxas 13.5
/// refuses the module as it does a call of it).
fn function_address(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    for op in info.operands.iter().skip(1) {
        let OperandKind::Identifier(name) = op.kind() else {
            continue;
        };
        let Some(callee) = ctx
            .functions
            .iter()
            .find(|f| f.name == name && !f.entry && f.has_outside_abi())
            .cloned()
        else {
            continue;
        };
        report_outside_abi(ctx, op.range(), &callee, "the address of");
    }
}

fn brx(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    let [index, table] = info.operands.as_slice() else {
        return;
    };
    if let Some(name) = plain_name(index) {
        let bits = plain_register_type(scope, name).and_then(type_bits);
        // ptxas 13.5 takes a 32-bit integer register ("Arguments mismatch" for `.f32`).
        if let Some((
            ty,
            RegTy {
                class: Class::Float,
                bits: 32,
            },
        )) = declared_register(scope, name)
        {
            ctx.report(
                Diagnostic::error(
                    "operand-type",
                    index.range(),
                    format!("`brx.idx` takes a 32-bit integer index, not the {ty} `{name}`"),
                )
                .section("9.7.12.4"),
            );
        }
        if bits.is_some_and(|b| b != 32) {
            ctx.report(
                Diagnostic::error(
                    "operand-type",
                    index.range(),
                    format!(
                        "`brx.idx` takes a 32-bit index, not the {}-bit `{name}`",
                        bits.unwrap_or(0)
                    ),
                )
                .section("9.7.12.4"),
            );
        }
    }
    if let OperandKind::Identifier(name) = table.kind() {
        let declared = any_symbol(scope, name).is_some();
        let before = ctx
            .branch_tables
            .iter()
            .any(|(n, at)| *n == name && *at < info.mnemonic.start);
        if declared && !before {
            ctx.report(
                Diagnostic::error(
                    "operand-kind",
                    table.range(),
                    format!(
                        "`{name}` labels no `.branchtargets` list: `brx.idx` branches through one"
                    ),
                )
                .section("9.7.12.4"),
            );
        }
    }
}

fn call(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    let ops = &info.operands;
    let Some(at) = ops
        .iter()
        .position(|o| !matches!(o.kind(), OperandKind::ArgumentList))
    else {
        return;
    };
    let callee_op = &ops[at];
    // The register of an indirect call, `%rd1` or a register named without `%` (`rd`, which
    // the grammar reads as an identifier).
    let through = match callee_op.kind() {
        OperandKind::Register(register) => Some(register),
        OperandKind::Identifier(name) if symbol_of(scope, name, SymbolKind::Register).is_some() => {
            Some(name)
        }
        _ => None,
    };
    if let Some(register) = through {
        // An indirect call names a `.callprototype` or `.calltargets` label after its
        // arguments ("Label expected for argument 0").
        let last = ops.last().map(|o| o.kind());
        if let Some(OperandKind::Identifier(proto)) = last {
            let list_op = ops.last().map(|o| o.range()).unwrap_or_default();
            let at_call = info.mnemonic.start;
            match ctx.call_lists.iter().find(|(n, _)| *n == proto).copied() {
                // ptxas 13.5: "Unknown symbol" for a list given after the call.
                Some((_, declared)) if declared > at_call => ctx.report(
                    Diagnostic::error(
                        "call-signature",
                        list_op,
                        format!("`{proto}` is declared after this call; declare it first"),
                    )
                    .section("9.7.12.5"),
                ),
                Some(_) => {
                    let callees: Vec<Callee<'_>> = ctx
                        .prototypes
                        .iter()
                        .filter(|p| p.name == proto)
                        .cloned()
                        .collect();
                    for callee in callees {
                        let before = ctx.diagnostic_count();
                        signature(ctx, info, scope, at, &callee);
                        if ctx.diagnostic_count() > before {
                            break;
                        }
                    }
                }
                // A label that is neither ("Call target not recognized").
                None if symbol_of(scope, proto, SymbolKind::Label).is_some() => {
                    ctx.report(
                        Diagnostic::error(
                            "call-signature",
                            list_op,
                            format!(
                                "`{proto}` labels no `.callprototype` or `.calltargets`: an indirect call names one"
                            ),
                        )
                        .section("9.7.12.5"),
                    );
                }
                None => {}
            }
            return;
        }
        // (`call %rd1;` alone is operand_shapes' report.)
        if ops.len() > at + 1 && !matches!(last, Some(OperandKind::Identifier(_))) {
            ctx.report(
                Diagnostic::error(
                    "call-signature",
                    callee_op.range(),
                    format!("an indirect call through `{register}` names a `.callprototype` or `.calltargets` label after its arguments"),
                )
                .section("9.7.12.5"),
            );
        }
        return;
    }
    let OperandKind::Identifier(name) = callee_op.kind() else {
        return;
    };
    // A direct call names no prototype or target list ("Argument 1 of instruction 'call':
    // must be register").
    if ops.len() > at + 1 {
        if let Some(list) = ops
            .last()
            .filter(|o| matches!(o.kind(), OperandKind::Identifier(_)))
        {
            ctx.report(
                Diagnostic::error(
                    "call-signature",
                    list.range(),
                    format!(
                        "`{name}` is called directly; a prototype or target list (`{}`) follows only an indirect call through a register",
                        list.text()
                    ),
                )
                .section("9.7.12.5"),
            );
        }
    }
    let Some(callee) = ctx.functions.iter().find(|f| f.name == name).cloned() else {
        // A variable is not called (ptxas 13.5 "Label expected for argument 0 of instruction
        // 'call'" for `call g;` with `.global .u32 g;`).
        if symbol_of(scope, name, SymbolKind::Variable).is_some() {
            ctx.report(
                Diagnostic::error(
                    "call-signature",
                    callee_op.range(),
                    format!("`{name}` is a variable: a call names a function, or a register holding one's address"),
                )
                .section("9.7.12.5"),
            );
        }
        return;
    };
    let report = |ctx: &mut Ctx<'_>, range, message: String| {
        ctx.report(Diagnostic::error("call-signature", range, message).section("9.7.12.5"));
    };
    if callee.entry {
        report(
            ctx,
            callee_op.range(),
            format!("`{name}` is a kernel (`.entry`): only a `.func` can be called"),
        );
        return;
    }
    if callee.first > info.mnemonic.start {
        report(
            ctx,
            callee_op.range(),
            format!("`{name}` is declared after this call: declare its prototype before the call"),
        );
        return;
    }
    signature(ctx, info, scope, at, &callee);
}

/// Results and arguments of a call (the callee at operand `at`) against a signature.
fn signature(
    ctx: &mut Ctx<'_>,
    info: &InstInfo<'_>,
    scope: &Scope<'_>,
    at: usize,
    callee: &Callee<'_>,
) {
    let ops = &info.operands;
    let callee_op = &ops[at];
    let name = callee.name;
    let report = |ctx: &mut Ctx<'_>, range, message: String| {
        ctx.report(Diagnostic::error("call-signature", range, message).section("9.7.12.5"));
    };
    let results: Vec<Operand<'_>> = if at == 1 {
        ops[0].elements()
    } else {
        Vec::new()
    };
    let args: Vec<Operand<'_>> = match ops.get(at + 1) {
        Some(list) if matches!(list.kind(), OperandKind::ArgumentList) => list.elements(),
        _ => Vec::new(),
    };
    // An indirect call's prototype or target list follows; a direct call has none.
    if results.len() != callee.results.len() || args.len() != callee.params.len() {
        report(
            ctx,
            info.opcode_range().start..ops.last().map_or(callee_op.range().end, |o| o.range().end),
            format!(
                "`{name}` takes {} argument{} and returns {} value{}; this call passes {} and receives {}",
                callee.params.len(),
                if callee.params.len() == 1 { "" } else { "s" },
                callee.results.len(),
                if callee.results.len() == 1 { "" } else { "s" },
                args.len(),
                results.len()
            ),
        );
        return;
    }
    if callee.has_outside_abi() {
        let what = if matches!(callee_op.kind(), OperandKind::Register(_)) {
            "the prototype"
        } else {
            "the called function"
        };
        report_outside_abi(ctx, callee_op.range(), callee, what);
    }
    for (actual, formal) in results
        .iter()
        .zip(&callee.results)
        .chain(args.iter().zip(&callee.params))
    {
        if let Some(message) = mismatch(ctx, actual, formal, scope) {
            report(ctx, actual.range(), message);
        }
    }
}

/// Why an argument does not fit its formal parameter, if it does not.
fn mismatch(
    ctx: &Ctx<'_>,
    actual: &Operand<'_>,
    formal: &Formal<'_>,
    scope: &Scope<'_>,
) -> Option<String> {
    let wanted = formal.bits()?;
    let (name, symbol) = match actual.kind() {
        OperandKind::Register(_) | OperandKind::Identifier(_) => named_symbol(scope, actual)?,
        OperandKind::Integer(_) | OperandKind::Float(_) | OperandKind::Expression
            if formal.array.is_some() =>
        {
            return Some(format!(
                "`{}` is a constant; the parameter is an array",
                actual.text()
            ));
        }
        // A constant's kind against the formal's type: an integer constant for a float
        // parameter, or a float constant for an integer one ("Type of argument does not match
        // formal parameter"; bit-size parameters take either).
        OperandKind::Integer(_) | OperandKind::Float(_) | OperandKind::Expression => {
            let float = matches!(actual.kind(), OperandKind::Float(_))
                || matches!(actual.kind(), OperandKind::Expression)
                    && actual
                        .text()
                        .split(|c: char| !c.is_ascii_alphanumeric() && c != '.')
                        .any(|w| {
                            w.contains('.')
                                || w.len() > 2
                                    && (w.starts_with("0f")
                                        || w.starts_with("0d")
                                        || w.starts_with("0F")
                                        || w.starts_with("0D"))
                        });
            let ty = formal.ty?;
            let wrong = if float {
                is_integer_type(ty)
            } else {
                is_float_type(ty)
            };
            return wrong.then(|| {
                format!(
                    "`{}` is {} constant; the parameter is {ty}",
                    actual.text(),
                    if float {
                        "a floating-point"
                    } else {
                        "an integer"
                    }
                )
            });
        }
        _ => return None,
    };
    let ty = symbol.ty?;
    // An array parameter takes a `.param` array ("Inconsistent state space for parameter").
    if formal.array.is_some() && symbol.kind == SymbolKind::Register {
        return Some(format!(
            "`{name}` is a register; the parameter is an array, passed as a `.param` array"
        ));
    }
    let describe = |f: &Formal<'_>| match f.array {
        Some(0) => format!("an array of {} of any size", f.ty.unwrap_or("?")),
        Some(n) => format!("{n} × {}", f.ty.unwrap_or("?")),
        None => f.ty.unwrap_or("?").to_owned(),
    };
    match symbol.kind {
        SymbolKind::Register => {
            if symbol.vector.is_some() || formal.array.is_some() {
                return None;
            }
            let bits = u64::from(type_bits(ty)?);
            (bits != wanted || float_against_integer(formal.ty, ty)).then(|| {
                format!(
                    "`{name}` is a {ty} register; the parameter is {} ({wanted} bits)",
                    describe(formal)
                )
            })
        }
        // A `.param` argument is declared before the call (ptxas 13.5 "Illegal argument for
        // formal parameter 'a'" for one declared after it in the same block).
        SymbolKind::Variable
            if symbol.space == Some(".param") && symbol.range.start > actual.range().start =>
        {
            Some(format!(
                "`{name}` is declared after this call; declare a `.param` argument before the call that passes it"
            ))
        }
        SymbolKind::Variable if symbol.space == Some(".param") => {
            let declared = variable_shape(ctx.text, symbol.range.clone());
            let actual = Formal {
                register: false,
                ty: Some(ty),
                array: declared.0,
                vector: false,
                align: declared.1,
            };
            let bits = actual.bits()?;
            // A byte array of unknown size (`.param .align 8 .b8 %VAParam[]`, how nvcc declares
            // the variadic part of a function) takes an array of any size; ptxas 13.5 still
            // wants an array and the same alignment.
            let any_size = formal.array == Some(0);
            if (bits != wanted && !any_size)
                || actual.array.is_some() != formal.array.is_some()
                || float_against_integer(formal.ty, ty)
            {
                return Some(format!(
                    "`{name}` is {}; the parameter is {}",
                    describe(&actual),
                    describe(formal)
                ));
            }
            if formal.array.is_some() && !formal.register && actual.align != formal.align {
                return Some(format!(
                    "`{name}` is aligned to {} bytes; the parameter to {}",
                    actual.align.unwrap_or(0),
                    formal.align.unwrap_or(0)
                ));
            }
            None
        }
        // A variable of another state space is passed by neither value nor `.param` copy
        // (ptxas 13.5 "Call argument 'g' has illegal state space"); its address is, through
        // a register (`mov.u64 %rd1, g;`).
        SymbolKind::Variable => Some(format!(
            "`{name}` is a {} variable; a call passes registers, constants and `.param` variables (move its address into a register to pass it)",
            symbol.space.unwrap_or("non-.param")
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::check_diagnostics;

    #[test]
    fn calls_against_signatures() {
        check_diagnostics(
            r#"
.version 8.6
.target sm_90
.address_size 64
.func (.param .b32 r) f(.param .b32 a, .param .align 4 .b8 b[8])
{
  ret;
}
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<4>;
  .param .b32 rv;
  .param .b32 a;
  .param .f32 af;
  .param .align 4 .b8 b[8];
  .param .align 8 .b8 b8[8];
  .param .b8 b12[12];
  call (rv), f, (a, b);
  call (rv), f, (%r1, b);
  call (rv), f, (%f1, b);
  call (rv), f, (a);
//^^^^^^^^^^^^^^^^^ error: `f` takes 2 arguments and returns 1 value; this call passes 1 and receives 1
  call (rv), f, (%rd1, b);
//               ^^^^ error: `%rd1` is a .b64 register; the parameter is .b32 (32 bits)
  call (rv), f, (a, b8);
//                  ^^ error: `b8` is aligned to 8 bytes; the parameter to 4
  call (rv), f, (a, b12);
//                  ^^^ error: `b12` is 12 × .b8; the parameter is 8 × .b8
  call k, ();
//     ^ error: `k` is a kernel (`.entry`): only a `.func` can be called
  call (rv), g, (a);
//           ^ error: `g` is declared after this call: declare its prototype before the call
  ret;
}
.func g(.param .b32 a)
{
  ret;
}
"#,
        );
    }

    #[test]
    fn calls_ptxas_abi_refuses() {
        check_diagnostics(
            r#"
.version 8.6
.target sm_90
.address_size 64
.func f(.param .u16 a)
{
  ret;
}
.func (.reg .pred r) g()
{
  ret;
}
.func h(.param .b16 a, .reg .b8 b, .param .f16 c, .param .u8 d[2])
{
  ret;
}
.func real(.param .f32 x, .reg .u32 y, .param .b32 z)
{
  ret;
}
.visible .entry k()
{
  .reg .b8 %c<2>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  .reg .pred %p<2>;
  .param .u16 p16;
  .param .b16 b16;
  .param .f16 f16;
  .param .u8 u8s[2];
  call f, (p16);
//     ^ error: the called function `f` has a .u16 parameter: ptxas's ABI passes no predicate and no signed or unsigned 8- or 16-bit scalar to or from a device function (declare it `.b8`/`.b16`, or widen it to 32 bits)
  call (%p1), g;
//            ^ error: the called function `g` has a .pred result: ptxas's ABI passes no predicate and no signed or unsigned 8- or 16-bit scalar to or from a device function (pass a `.b32` (or `.u32`) and convert with `setp`/`selp`)
  call h, (b16, %c1, f16, u8s);
  mov.u64 %rd1, f;
//              ^ error: the address of `f` has a .u16 parameter: ptxas's ABI passes no predicate and no signed or unsigned 8- or 16-bit scalar to or from a device function (declare it `.b8`/`.b16`, or widen it to 32 bits)
  mov.u64 %rd1, h;
proto: .callprototype _ (.param .s8 _);
  call %rd1, (1), proto;
//     ^^^^ error: the prototype `proto` has a .s8 parameter: ptxas's ABI passes no predicate and no signed or unsigned 8- or 16-bit scalar to or from a device function (declare it `.b8`/`.b16`, or widen it to 32 bits)
  call real, (1.0, 1, 1.0);
  call real, (1, 1.0, 0f3F800000);
//            ^ error: `1` is an integer constant; the parameter is .f32
//               ^^^ error: `1.0` is a floating-point constant; the parameter is .u32
  ret;
}
"#,
        );
    }

    #[test]
    fn branch_tables() {
        check_diagnostics(
            r#"
.version 8.6
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  brx.idx %r1, early;
//             ^^^^^ error: `early` labels no `.branchtargets` list: `brx.idx` branches through one
early: .branchtargets L0, L1;
  brx.idx %r1, early;
  brx.idx %rd1, early;
//        ^^^^ error: `brx.idx` takes a 32-bit index, not the 64-bit `%rd1`
late: .branchtargets L0, L2;
//                       ^^ error: `L2` is not a label in scope: a `.branchtargets` list names labels of this block or the blocks around it
  {
L2:
  ret;
  }
L0:
  ret;
L1:
  ret;
}
"#,
        );
    }
}
