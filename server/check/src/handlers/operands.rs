//! Operand count and operand kind against the instruction's syntax forms (PTX ISA 9.7, the
//! operand list of each "Syntax" block; chapter 6 for operand kinds).
//!
//! Only clear mismatches are errors: an address (`[...]`) where the form has a value, or a
//! value where the form has an address. Vectors and argument lists are not policed here
//! (vector lengths are the `vectors` handler's job).

use ptx_isa::{Form, OperandKind as SpecKind};
use ptx_syntax::{Operand, OperandKind};

use crate::context::{Ctx, InstInfo};
use crate::Diagnostic;

/// Whether a form's operand may be left out. Besides `{, x}`, the tcgen05.mma forms write an
/// optional operand as `{ disable-output-lane }` (a brace group without commas).
fn optional(spec: &ptx_isa::OperandSpec) -> bool {
    spec.optional || spec.kind == SpecKind::Vector && !spec.text.contains(',')
}

fn count_fits(form: &Form, count: usize) -> bool {
    let required = form.operands.iter().filter(|o| !optional(o)).count();
    (required..=form.operands.len()).contains(&count)
}

fn is_address(operand: &Operand<'_>) -> bool {
    matches!(operand.kind(), OperandKind::Address { .. })
}

/// Whether a written operand can stand where the form has `spec`.
fn kind_fits(spec: &ptx_isa::OperandSpec, bare_addresses: bool, operand: &Operand<'_>) -> bool {
    match spec.kind {
        // The bulk tensor copies (9.7.9.25.5) read a register, a variable name or even a
        // floating-point constant written without brackets as the shared-memory address or the
        // mbarrier of `[dstMem]`/`[srcMem]`/`[mbar]` (ptxas 13.5 assembles
        // `cp.async.bulk.tensor.2d…bytes [%r1], [%rd1, {%r2, %r3}], %r4;`); only the tensor
        // map with its coordinates needs the brackets, and an integer constant is an immediate
        // address ("allowed only for .local").
        SpecKind::Address if bare_addresses && !spec.name.contains("tensorMap") => !matches!(
            operand.kind(),
            OperandKind::Integer(_) | OperandKind::Expression
        ),
        // `ld.global.u32 r, a[1];`: an array element is an address without brackets (6.4.2;
        // ptxas 13.5 takes it, and refuses `[a[1]]`).
        SpecKind::Address => {
            is_address(operand)
                || matches!(
                    operand.expression(),
                    Some(ptx_syntax::Expression::Subscript { .. })
                )
        }
        SpecKind::Value | SpecKind::Vector => !is_address(operand),
        SpecKind::List => true,
    }
}

/// Position-wise kind check; optional operands are matched in order.
fn kinds_fit(form: &Form, bare_addresses: bool, operands: &[Operand<'_>]) -> Option<usize> {
    let mut specs = form.operands.iter();
    let extra = operands.len() - form.operands.iter().filter(|o| !optional(o)).count();
    let mut optional_left = extra;
    for (i, operand) in operands.iter().enumerate() {
        let spec = loop {
            let spec = specs.next()?;
            if !optional(spec) {
                break spec;
            }
            if optional_left > 0 {
                optional_left -= 1;
                break spec;
            }
        };
        if !kind_fits(spec, bare_addresses, operand) {
            return Some(i);
        }
    }
    None
}

/// Reports count and kind problems; returns whether the operands fit some matched form.
pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) -> bool {
    let matches = &info.resolved.outcome.matches;
    if matches.is_empty() || info.inst.has_error() {
        return false;
    }
    let count = info.operands.len();
    let fitting: Vec<&Form> = matches
        .iter()
        .map(|m| m.form)
        .filter(|f| count_fits(f, count))
        .collect();
    let section = matches[0].instruction.section.clone();
    let opcode = &matches[0].instruction.opcode;
    let bare_addresses = opcode.starts_with("cp.async.bulk.tensor")
        || opcode.starts_with("cp.reduce.async.bulk.tensor");
    if fitting.is_empty() {
        let form = matches[0].form;
        let required = form.operands.iter().filter(|o| !optional(o)).count();
        let names: Vec<&str> = form.operands.iter().map(|o| o.text.as_str()).collect();
        let expected = if required == form.operands.len() {
            format!("{required}")
        } else {
            format!("{required} to {}", form.operands.len())
        };
        let range = if count > form.operands.len() {
            let first_extra = info.operands[form.operands.len()].range().start;
            first_extra..info.operands[count - 1].range().end
        } else {
            info.operands
                .last()
                .map_or(info.opcode_range(), |o| o.range())
        };
        ctx.report(
            Diagnostic::error(
                "operand-count",
                range,
                format!(
                    "`{}` takes {expected} operand{} ({}), found {count}",
                    info.opcode_text(),
                    if expected == "1" { "" } else { "s" },
                    names.join(", ")
                ),
            )
            .section(section),
        );
        return false;
    }
    if let Some(form) = fitting
        .iter()
        .find(|f| kinds_fit(f, bare_addresses, &info.operands).is_none())
    {
        return values_fit(ctx, info, form, &section);
    }
    let form = fitting[0];
    let Some(index) = kinds_fit(form, bare_addresses, &info.operands) else {
        return true;
    };
    let operand = &info.operands[index];
    let message = if is_address(operand) {
        format!(
            "operand {} of `{}` is a value, not an address in brackets",
            index + 1,
            info.opcode_text()
        )
    } else {
        format!(
            "operand {} of `{}` must be an address in brackets, e.g. `[{}]`",
            index + 1,
            info.opcode_text(),
            operand.text()
        )
    };
    ctx.report(Diagnostic::error("operand-kind", operand.range(), message).section(section));
    false
}

/// Whether the instruction can take a brace vector anywhere: a form writes one (`{a, b}`), a
/// qualifier slot is a vector length (`.v2`, `.v4`, `.vec`), the operands are matrix
/// fragments or texture coordinates (9.7.10, 9.7.11, 9.7.14 to 9.7.16), or `mov` (which packs
/// and unpacks, 9.7.9.4).
pub(crate) fn takes_vectors(outcome: &ptx_isa::MatchOutcome<'_>) -> bool {
    outcome.matches.iter().any(|m| {
        let i = &m.instruction;
        ["9.7.10.", "9.7.11.", "9.7.14.", "9.7.15.", "9.7.16."]
            .iter()
            .any(|c| i.section.starts_with(c))
            || i.root() == "mov"
            || i.forms.iter().any(|f| {
                // `im2colInfo` of `cp.async.bulk.tensor` is a brace vector of offsets, one to
                // three of them (`{%h1}` and `{%h1, %h2, %h3}` both pass ptxas 13.5).
                f.operands
                    .iter()
                    .any(|o| o.kind == SpecKind::Vector || o.name == "im2colInfo")
                    || f.qualifier_slots.iter().any(|s| {
                        s.name.contains("vec")
                            || s.values.iter().any(|v| {
                                matches!(v.as_str(), "v2" | "v4" | "v8") || v.starts_with("vec")
                            })
                    })
            })
    })
}

/// Names the spec gives a result operand in first position (`d`, `p` of `setp`, `r` of
/// `ldmatrix`, `state` of `mbarrier.arrive`, ...).
fn is_result(spec: &ptx_isa::OperandSpec) -> bool {
    matches!(
        spec.name.as_str(),
        "d" | "dst" | "p" | "r" | "state" | "waitComplete"
    ) || spec.text.contains('|')
}

/// Operands that fit the form's kinds but not as values (each checked against ptxas 13.5):
/// a constant where the form has a result ("Result register required" or "Arguments
/// mismatch"), and a brace vector on an instruction that only takes scalars ("Vector operand
/// is not allowed"; chapter 6.4 lets vectors appear only where an instruction has a vector
/// form).
fn values_fit(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, form: &Form, section: &str) -> bool {
    // A lone operand is a result only when the spec calls it `d` (`activemask.b32 d`,
    // `stacksave.type d`); `bar.sync a` and `pmevent a` take a constant.
    let lone_result = form.operands.len() == 1 && form.operands[0].name == "d";
    if (form.operands.len() > 1 || lone_result) && form.operands.first().is_some_and(is_result) {
        if let Some(first) = info.operands.first() {
            if matches!(
                first.kind(),
                OperandKind::Integer(_) | OperandKind::Float(_) | OperandKind::Expression
            ) {
                return reject(
                    ctx,
                    "operand-kind",
                    first.range(),
                    format!(
                        "operand 1 of `{}` is its result: write a register, not the constant `{}`",
                        info.opcode_text(),
                        first.text()
                    ),
                    section,
                );
            }
        }
    }
    // Texture and surface vectors (9.7.10, 9.7.11) have 1, 2 or 4 elements (ptxas "Illegal
    // vector size: 3"), and `tex`/`tld4` return a vector ("Result vector expected").
    let texture = info.resolved.outcome.matches.iter().any(|m| {
        m.instruction.section.starts_with("9.7.10.") || m.instruction.section.starts_with("9.7.11.")
    });
    if texture {
        for (index, operand) in info.operands.iter().enumerate() {
            let n = operand.elements().len();
            if matches!(operand.kind(), OperandKind::Vector) && !matches!(n, 1 | 2 | 4) {
                let message = format!(
                    "operand {} of `{}` has {n} elements; texture and surface vectors have 1, 2 or 4",
                    index + 1,
                    info.opcode_text()
                );
                return reject(ctx, "vector-length", operand.range(), message, section);
            }
        }
        if matches!(info.words[0], "tex" | "tld4") {
            if let Some(first) = info.operands.first() {
                if matches!(
                    first.kind(),
                    OperandKind::Register(_) | OperandKind::Identifier(_)
                ) {
                    return reject(
                        ctx,
                        "operand-kind",
                        first.range(),
                        format!(
                            "`{}` returns a vector: write `{{d0, d1, d2, d3}}`",
                            info.opcode_text()
                        ),
                        section,
                    );
                }
            }
        }
    }
    if !info.resolved.takes_vectors {
        if let Some((index, vector)) = info
            .operands
            .iter()
            .enumerate()
            .find(|(_, o)| matches!(o.kind(), OperandKind::Vector))
        {
            return reject(
                ctx,
                "operand-kind",
                vector.range(),
                format!(
                    "operand {} of `{}` is a single value; `{}` has no vector form",
                    index + 1,
                    info.opcode_text(),
                    info.words[0]
                ),
                section,
            );
        }
    }
    true
}

/// Reports an operand error and answers `false` (the operands do not fit).
fn reject(
    ctx: &mut Ctx<'_>,
    code: &'static str,
    range: ptx_syntax::TextRange,
    message: String,
    section: &str,
) -> bool {
    ctx.report(Diagnostic::error(code, range, message).section(section.to_owned()));
    false
}

#[cfg(test)]
mod tests {
    use crate::test_support::check_diagnostics;

    #[test]
    fn count_and_kind() {
        check_diagnostics(
            r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  add.s32 %r1, %r2;
//             ^^^ error: `add.s32` takes 3 operands (d, a, b), found 2
  ld.global.u32 %r1, %rd1;
//                   ^^^^ error: operand 2 of `ld.global.u32` must be an address in brackets, e.g. `[%rd1]`
  add.s32 %r1, [%rd1], 1;
//             ^^^^^^ error: operand 2 of `add.s32` is a value, not an address in brackets
  ret;
}
"#,
        );
    }

    #[test]
    fn bulk_tensor_copies_take_bare_addresses() {
        check_diagnostics(
            r#"
.version 9.1
.target sm_100a
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .b64 mbar;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes %r1, [%rd1, {%r2, %r3}], %r4;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], mbar;
  cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd1, {%r2, %r3}], %r5;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], %rd1, [%r4];
//                                                                                        ^^^^ error: operand 2 of `cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes` must be an address in brackets, e.g. `[%rd1]`
  cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd1, {%r2, %r3}], 16;
//                                                                                          ^^ error: operand 2 of `cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group` must be an address in brackets, e.g. `[16]`
  ret;
}
"#,
        );
    }

    #[test]
    fn constant_result_and_scalar_vectors() {
        check_diagnostics(
            r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  add.s32 1, %r2, %r3;
//        ^ error: operand 1 of `add.s32` is its result: write a register, not the constant `1`
  shr.s32 %r1, %r2, {%r3};
//                  ^^^^^ error: operand 3 of `shr.s32` is a single value; `shr` has no vector form
  mov.b64 %rd1, {%r1, %r2};
  ld.global.v2.u32 {%r1, %r2}, [%rd1];
  ret;
}
"#,
        );
    }
}
