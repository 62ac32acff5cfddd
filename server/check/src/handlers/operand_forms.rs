//! Operand forms an instruction does not take, from the spec's operand chapter (6.1–6.4: the
//! result is a register, sources are registers or constants, addresses go in brackets) and the
//! syntax blocks of 9.7, as ptxas 13.5 reads them (measured on fixtures/operands):
//!
//! * the result (operand 0 where the syntax block names a result, `d`, `p`, …) is a register:
//!   not a constant ("Argument 0 of instruction: must be register"), a variable, a function
//!   ("Result register required") or a label;
//! * the sink `_` stands for a whole result only where the instruction may discard it
//!   (data/operand-forms.txt, `sink-destination`; "Result discard mode is not allowed"), and
//!   never for a source (a syntax error);
//! * `p|q` and `d|p` only where the syntax block writes a second result with `|` ("Predicate
//!   output not allowed");
//! * a variable's name as a plain operand only where its address is what the instruction
//!   reads (data/operand-forms.txt, `variable-operand`: mov, cvta, getctarank, mapa);
//! * a label only where the syntax block has one (bra, brx.idx's list, call's targets);
//! * the operands that refuse a form their type would take (data/operand-forms.txt,
//!   `refuses`: a `.f16x2` register as a count or mask, a function's name or `v+4` where
//!   ptxas expands the instruction into a call or reads an immediate, `!p` as vote's mask).
//!
//! Vector elements and the parts of a pair are the concern of the rules that know their
//! instruction (vectors.rs, types.rs).

use ptx_isa::RefusedForm;
use ptx_syntax::{Operand, OperandKind};

use super::operand_types::{any_symbol, named_symbol, register_type, symbol_of, Class};
use crate::context::{Ctx, InstInfo};
use crate::scope::{Scope, SymbolKind};
use crate::Diagnostic;

pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    let forms = ctx.isa.operand_forms();
    let opcode = info.opcode_text();
    let writes = info.writes_first_operand();
    let section = info.section();
    let mut problems: Vec<(ptx_syntax::TextRange, String, &str)> = Vec::new();
    for (index, op) in info.operands.iter().enumerate() {
        let result = index == 0 && writes;
        match op.kind() {
            OperandKind::Sink if result && !forms.sink_destination(&info.words) => {
                problems.push((
                    op.range(),
                    format!("`{opcode}` cannot discard its result: write a register, not `_`"),
                    section.as_str(),
                ))
            }
            OperandKind::Sink if result => {}
            OperandKind::Sink => problems.push((
                op.range(),
                format!(
                    "`_` stands only for a result that is discarded; operand {} of `{opcode}` is read",
                    index + 1
                ),
                "6.3",
            )),
            OperandKind::Pair if !pair_allowed(info, index) => problems.push((
                op.range(),
                format!(
                    "operand {} of `{opcode}` is one value; `{}` writes a second result only where the instruction has one (`setp`, `shfl`, `lop3`, `elect`, `match.all`)",
                    index + 1,
                    op.text()
                ),
                section.as_str(),
            )),
            OperandKind::Integer(_) | OperandKind::Float(_) | OperandKind::Expression
                if result =>
            {
                problems.push((
                    op.range(),
                    format!(
                        "the result of `{opcode}` goes to a register, not to the constant `{}`",
                        op.text()
                    ),
                    "6.3",
                ))
            }
            OperandKind::Register(name) | OperandKind::Identifier(name) => {
                if let Some(problem) = name_problem(info, name, result, scope) {
                    problems.push((op.range(), problem, "6.4"));
                }
            }
            // `cvta.shared d, v+4`: the variable of an address expression is of the
            // instruction's state space too.
            OperandKind::Expression if info_takes_variables(info) => {
                let problem = op.identifiers().iter().find_map(|t| {
                    let symbol = symbol_of(scope, t.text, SymbolKind::Variable)?;
                    space_problem(info, t.text, symbol.space?)
                });
                if let Some(problem) = problem {
                    problems.push((op.range(), problem, "6.4"));
                }
            }
            _ => {}
        }
    }
    // The guard `@p`/`@!p` is a predicate register (4.3.2; ptxas 13.5 "Predicate expression
    // expected" for `@%r1 bra L`).
    if let Some(guard) = &info.guard {
        let name = guard.predicate.text;
        if let Some(symbol) = any_symbol(scope, name) {
            if symbol.kind != SymbolKind::Register || symbol.ty != Some(".pred") {
                problems.push((
                    guard.predicate.range(),
                    format!(
                        "the guard `@{name}` is not a `.pred` register; an instruction is guarded by a predicate"
                    ),
                    "4.3.2",
                ));
            }
        }
    }
    for (range, message, section) in problems {
        ctx.report(Diagnostic::error("operand-type", range, message).section(section));
    }
    refusals(ctx, info, scope);
    signed_hex_singles(ctx, info);
}

/// A sign or `!` before a `0f` constant (`-0f3FC00000`): ptxas 13.5 reads it as a syntax error
/// ("Parsing error near '0f3FC00000'"), though it takes `-1.5` and `-0d3FF8000000000000`.
fn signed_hex_singles(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    for op in &info.operands {
        let Some(ptx_syntax::Expression::Unary { operator, operand }) = op.expression() else {
            continue;
        };
        if let OperandKind::Float(text) = operand.kind() {
            if text.starts_with("0f") || text.starts_with("0F") {
                let hint = match (operator, negated_bits(text)) {
                    ("-", Some(bits)) => format!(": write the negated value's bits, `{bits}`"),
                    _ => String::new(),
                };
                ctx.report(
                    Diagnostic::error(
                        "syntax-error",
                        op.range(),
                        format!("ptxas does not read `{operator}` before a `0f` constant{hint}"),
                    )
                    .section("4.5.2"),
                );
            }
        }
    }
}

/// `0fXXXXXXXX` with its sign bit flipped.
fn negated_bits(text: &str) -> Option<String> {
    let bits = u32::from_str_radix(text.get(2..)?, 16).ok()?;
    Some(format!("0f{:08X}", bits ^ 0x8000_0000))
}

/// The `refuses` rules of data/operand-forms.txt that hold for the instruction and target.
fn refusals(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    let sm = ctx
        .sm_target()
        .and_then(ptx_isa::SmName::parse)
        .map(|t| t.canonical_number());
    let opcode = info.opcode_text();
    let mut problems = Vec::new();
    for rule in &ctx.isa.operand_forms().refusals {
        if !rule.matches(&info.words) || !rule.holds_on(sm) {
            continue;
        }
        for &index in &rule.operands {
            let Some(op) = info.operands.get(index) else {
                continue;
            };
            let Some(form) = rule.forms.iter().copied().find(|f| is_form(op, *f, scope)) else {
                continue;
            };
            let what = match form {
                RefusedForm::HalfPair => "a .f16x2 register",
                RefusedForm::Function => "a function's name",
                RefusedForm::AddressExpression => "an address expression",
                RefusedForm::Integer => "an integer constant",
                RefusedForm::Negation => "a negated predicate",
            };
            let below = rule
                .below
                .map(|n| format!(" on targets before sm_{n}"))
                .unwrap_or_default();
            problems.push((
                op.range(),
                format!(
                    "operand {} of `{opcode}` cannot be {what}{below} (`{}`)",
                    index + 1,
                    op.text()
                ),
            ));
        }
    }
    let section = info.section();
    for (range, message) in problems {
        ctx.report(Diagnostic::error("operand-type", range, message).section(section.clone()));
    }
}

/// Whether `op` has the form `form`.
fn is_form(op: &Operand<'_>, form: RefusedForm, scope: &Scope<'_>) -> bool {
    match form {
        RefusedForm::HalfPair => {
            register_type(scope, op).is_some_and(|t| t.class == Class::HalfPair)
        }
        RefusedForm::Function => {
            named_symbol(scope, op).is_some_and(|(_, s)| s.kind == SymbolKind::Function)
        }
        RefusedForm::AddressExpression => {
            matches!(op.kind(), OperandKind::Expression)
                && op
                    .identifiers()
                    .iter()
                    .any(|t| symbol_of(scope, t.text, SymbolKind::Variable).is_some())
        }
        RefusedForm::Integer => match op.kind() {
            OperandKind::Integer(_) => true,
            OperandKind::Expression => op.integer_value().is_some(),
            _ => false,
        },
        RefusedForm::Negation => matches!(op.kind(), OperandKind::Negated),
    }
}

/// Whether operand `index` may be a pair `a|b`: a matched syntax block writes `|` there
/// (`setp.lt.f16 p|q` has none: "Predicate output not allowed"). `lop3`'s result pair without
/// a boolean operation is arith.rs' report.
fn pair_allowed(info: &InstInfo<'_>, index: usize) -> bool {
    (info.words[0] == "lop3" && index == 0)
        || info.resolved.outcome.matches.iter().any(|m| {
            m.form
                .operands
                .get(index)
                .is_some_and(|o| o.text.contains('|'))
        })
}

/// Why a name cannot stand as operand `op`, if it cannot.
fn name_problem(
    info: &InstInfo<'_>,
    name: &str,
    result: bool,
    scope: &Scope<'_>,
) -> Option<String> {
    let symbol = any_symbol(scope, name)?;
    let opcode = info.opcode_text();
    let what = match symbol.kind {
        SymbolKind::Register => return None,
        SymbolKind::Variable => "a variable",
        SymbolKind::Function => "a function",
        SymbolKind::Label => "a label",
    };
    if result {
        return Some(format!(
            "`{name}` is {what}; the result of `{opcode}` goes to a register"
        ));
    }
    match symbol.kind {
        // Texture, sampler and surface handles have rules of their own (textures.rs).
        SymbolKind::Variable
            if matches!(symbol.ty, Some(".texref" | ".samplerref" | ".surfref")) =>
        {
            None
        }
        SymbolKind::Variable if !info_takes_variables(info) => Some(format!(
            "`{name}` is a variable; `{opcode}` reads registers and constants here (take its address with `mov` or `cvta`)"
        )),
        // `cvta.shared d, v` and `getctarank.shared::cluster d, v` take the address of a
        // variable of their own state space ("State space mismatch between instruction and
        // address" for a `.global` or `.const` one; fixtures/operands).
        SymbolKind::Variable => space_problem(info, name, symbol.space?),
        SymbolKind::Label if label_expected(info) => None,
        SymbolKind::Label => Some(format!(
            "`{name}` is a label; only branches and calls take labels (`{opcode}` reads registers and constants here)"
        )),
        _ => None,
    }
}

/// Why the address of a variable `name` of state space `space` cannot stand where the
/// instruction reads a variable's address: `cvta.shared d, v` and `getctarank.shared::cluster
/// d, v` take one of their own state space ("State space mismatch between instruction and
/// address" for a `.global` or `.const` one, and for `v+4`; fixtures/operands).
fn space_problem(info: &InstInfo<'_>, name: &str, space: &str) -> Option<String> {
    let wanted = match (info.words[0], info.words.get(1).copied()?) {
        ("cvta" | "getctarank" | "mapa", w) if w.starts_with("shared") => ".shared",
        ("cvta", "global") => ".global",
        ("cvta", "local") => ".local",
        ("cvta", "const") => ".const",
        ("cvta", "param") => ".param",
        _ => return None,
    };
    (!space.starts_with(wanted)).then(|| {
        format!(
            "`{name}` is a {space} variable; `{}` takes the address of a {wanted} one",
            info.opcode_text()
        )
    })
}

fn info_takes_variables(info: &InstInfo<'_>) -> bool {
    ptx_isa::Isa::get().operand_forms().variable_operand(&info.words)
        // Calls and texture instructions name variables and parameters in their own ways;
        // the bulk tensor copies take a shared variable's name without brackets as an address
        // (operands.rs).
        || matches!(
            info.words[0],
            "call" | "ret" | "tex" | "tld4" | "txq" | "suld" | "sust" | "sured" | "suq" | "istypep"
        )
        || info.words[0] == "cp" && info.words.contains(&"tensor")
}

/// Whether the instruction takes labels: a branch or a call (its target list or prototype).
fn label_expected(info: &InstInfo<'_>) -> bool {
    matches!(info.words[0], "bra" | "brx" | "call")
}

#[cfg(test)]
mod tests {
    use crate::test_support::check_diagnostics;

    /// The `refuses` rules below sm_90: the warp-level instructions that ptxas expands into
    /// calls there.
    #[test]
    fn refusals_before_sm_90() {
        check_diagnostics(
            r#"
.version 8.8
.target sm_80
.address_size 64
.global .u32 gv[4];
.func fn()
{
  ret;
}
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .f16x2 %hh<4>;
  .reg .pred %p<4>;
  shfl.sync.idx.b32 %r1, gv+4, 1, 31, -1;
//                       ^^^^ error: operand 2 of `shfl.sync.idx.b32` cannot be an address expression on targets before sm_90 (`gv+4`)
  match.any.sync.b32 %r1, fn, -1;
//                        ^^ error: operand 2 of `match.any.sync.b32` cannot be a function's name on targets before sm_90 (`fn`)
  vote.sync.any.pred %p1, %hh1, -1;
//                        ^^^^ error: operand 2 of `vote.sync.any.pred` cannot be a .f16x2 register on targets before sm_90 (`%hh1`)
  ret;
}
"#,
        );
    }

    #[test]
    fn results_sinks_pairs_names_and_guards() {
        check_diagnostics(
            r#"
.version 8.8
.target sm_90
.address_size 64
.global .u32 gv[4];
.shared .b64 sv[4];
.func fn()
{
  ret;
}
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<4>;
  .reg .f16x2 %hh<4>;
  .reg .pred %p<4>;
L0:
  add.s32 %r1, _, %r2;
//             ^ error: `_` stands only for a result that is discarded; operand 2 of `add.s32` is read
  add.s32 _, %r1, %r2;
//        ^ error: `add.s32` cannot discard its result: write a register, not `_`
  atom.global.add.u32 _, [%rd1], 1;
  setp.lt.s32 _|%p1, %r1, %r2;
  mov.pred %p1|%p2, %p3;
//         ^^^^^^^ error: operand 1 of `mov.pred` is one value; `%p1|%p2` writes a second result only where the instruction has one (`setp`, `shfl`, `lop3`, `elect`, `match.all`)
  add.s32 1, %r1, %r2;
//        ^ error: operand 1 of `add.s32` is its result: write a register, not the constant `1`
  add.u64 %rd1, gv, %rd2;
//              ^^ error: `gv` is a variable; `add.u64` reads registers and constants here (take its address with `mov` or `cvta`)
  cvta.shared.u64 %rd1, gv;
//                      ^^ error: `gv` is a .global variable; `cvta.shared.u64` takes the address of a .shared one
  cvta.shared.u64 %rd1, sv;
  add.s32 %r1, L0, %r2;
//             ^^ error: `L0` is a label; only branches and calls take labels (`add.s32` reads registers and constants here)
  @%r1 bra L0;
// ^^^ error: the guard `@%r1` is not a `.pred` register; an instruction is guarded by a predicate
  mov.u32 %tid.x, %r1;
//        ^^^^ error: `%tid` is a read-only special register; `mov` cannot write it
  cvt.rn.f32.u32 %f1, %laneid;
//                    ^^^^^^^ error: `cvt.rn.f32.u32` reads no special register: copy `%laneid` to a register with `mov` first
  cvt.u64.u32 %rd1, %laneid;
  mov.pred %p1, %hh1;
  add.f32 %f1, %f2, gv+4;
//                  ^^^^ error: `gv+4` is an address, an integer; operand 3 of `add.f32` needs a .f32 or .b32 register
  add.f32 %f1, %f2, fn;
  bfe.u32 %r1, %r2, fn, 8;
//                  ^^ error: `fn` is a function, whose address is no count, mask or predicate; operand 3 of `bfe.u32` has a type of its own
  mov.u32 %r1, gv;
//             ^^ error: `gv` is a .global variable, whose address has 64 bits in a 64-bit module; `mov.u32` takes 32 bits
  mov.u32 %r1, sv;
  bfe.u32 %r1, %hh1, %hh2, 8;
//                   ^^^^ error: operand 3 of `bfe.u32` cannot be a .f16x2 register (`%hh2`)
  bar.sync %hh1;
//         ^^^^ error: operand 1 of `bar.sync` cannot be a .f16x2 register (`%hh1`)
  rem.u64 %rd1, %rd2, gv+4;
//                    ^^^^ error: operand 3 of `rem.u64` cannot be an address expression (`gv+4`)
  rem.u32 %r1, %r2, gv+4;
  vote.sync.any.pred %p1, %p2, !%p3;
//                             ^^^^ error: operand 3 of `vote.sync.any.pred` cannot be a negated predicate (`!%p3`)
  vote.sync.any.pred %p1, %hh1, -1;
  cvt.rn.bf16x2.f32 %r1, %f1, -1;
//                            ^^ error: operand 3 of `cvt.rn.bf16x2.f32` cannot be an integer constant (`-1`)
  cvt.rn.bf16x2.f32 %r1, %f1, 0f3F800000;
  cvta.shared.u64 %rd1, gv+4;
//                      ^^^^ error: `gv` is a .global variable; `cvta.shared.u64` takes the address of a .shared one
  cvta.shared.u64 %rd1, sv+8;
  discard.global.L2 [sv], 128;
//                   ^^ error: `sv` is a .shared variable, but `discard.global.L2` accesses .global; use `discard.shared` or a generic address
  ret;
}
"#,
        );
    }
}
