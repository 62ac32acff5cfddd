//! Operand shapes that a qualifier or an opcode imposes on one operand, driven by one table
//! (the knowledge base's data/operand-shapes.txt) rather than a match arm per instruction:
//! which operand (by index, the last one, or the one on the `.global` side of a copy) must
//! have which shape.
//!
//! Each row names its spec section; each was confirmed against ptxas 13.5 on the generated
//! set (fixtures/generated), where ptxas reports a wrong shape as "Arguments mismatch".

use ptx_isa::{OperandShape as Shape, ShapePosition as Position};
use ptx_syntax::{Operand, OperandKind};

use super::operand_types::{any_symbol, register_type_name, symbol_of};
use crate::context::{Ctx, InstInfo};
use crate::scope::{Scope, SymbolKind};
use crate::Diagnostic;

pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    let isa = ctx.isa;
    for rule in isa.operand_shapes() {
        if info.words.len() < rule.opcode.len()
            || !rule
                .opcode
                .iter()
                .zip(info.words.iter())
                .all(|(a, b)| a.as_str() == *b)
        {
            continue;
        }
        if rule.when.as_deref().is_some_and(|q| !info.has(q)) {
            continue;
        }
        let Some(index) = position(info, rule.position) else {
            continue;
        };
        let Some(op) = info.operands.get(index) else {
            continue;
        };
        // Where the register tables know the vector (`vectors`), that rule speaks for it.
        if matches!(rule.shape, Shape::VectorQualifier)
            && info
                .resolved
                .register_counts()
                .as_ref()
                .is_ok_and(|c| c.vectors.iter().any(|v| v.operand == index))
        {
            continue;
        }
        let last = index + 1 == info.operands.len();
        let Some(problem) = misfit(op, rule.shape, scope, last, info) else {
            continue;
        };
        let section = rule.section.clone().unwrap_or_else(|| info.section());
        let opcode = info.opcode_text();
        let message = match rule.shape {
            Shape::Policy64 => format!(
                "{problem}; with `.L2::cache_hint` the last operand of `{opcode}` is the 64-bit cache policy (a .b64 register or an integer constant)"
            ),
            Shape::TensorCoordinates => format!(
                "{problem}; operand {} of `{opcode}` is the tensor, written `[tensorMap, {{coordinates}}]`",
                index + 1
            ),
            Shape::Label => format!("{problem}; operand {} of `{opcode}` is a label", index + 1),
            Shape::VectorQualifier => format!("{problem} in `{opcode}`"),
            Shape::Sink => format!(
                "{problem}; `{opcode}` on a `.shared::cluster` barrier returns no state, so its destination is `_`"
            ),
            Shape::Constant => format!(
                "{problem}; operand {} of `{opcode}` is an integer constant",
                index + 1
            ),
            Shape::Callee => format!("{problem} (`{opcode}`)"),
            Shape::Register32 => format!(
                "{problem}; operand {} of `{opcode}` is a 32-bit integer register",
                index + 1
            ),
            Shape::WideAddress => format!(
                "{problem}; operand {} of `{opcode}` is an address held in a 32- or 64-bit register",
                index + 1
            ),
        };
        ctx.report(Diagnostic::error("operand-type", op.range(), message).section(section));
    }
}

fn position(info: &InstInfo<'_>, position: Position) -> Option<usize> {
    match position {
        Position::Last => info.operands.len().checked_sub(1),
        Position::GlobalSide => {
            let spaces: Vec<&str> = info.words[1..]
                .iter()
                .copied()
                .filter(|w| *w == "global" || w.starts_with("shared"))
                .collect();
            match spaces.as_slice() {
                ["global"] | ["global", _] => Some(0),
                [_, "global"] => Some(1),
                _ => None,
            }
        }
        Position::Index(i) => Some(i),
        Position::Callee => info
            .operands
            .iter()
            .position(|op| !matches!(op.kind(), OperandKind::ArgumentList)),
    }
}

/// Why `op` does not have `shape`, or `None` when it does (or cannot be told).
fn misfit(
    op: &Operand<'_>,
    shape: Shape,
    scope: &Scope<'_>,
    last: bool,
    info: &InstInfo<'_>,
) -> Option<String> {
    let text = op.text();
    match shape {
        Shape::Policy64 => match op.kind() {
            OperandKind::Address { .. } => Some(format!("`{text}` is an address")),
            OperandKind::Vector => Some(format!("`{text}` is a vector")),
            OperandKind::Float(_) => Some(format!("`{text}` is a floating-point constant")),
            OperandKind::Negated | OperandKind::Pair | OperandKind::Sink => {
                Some(format!("`{text}` is not a register or constant"))
            }
            OperandKind::Component { .. } => Some(format!("`{text}` is a special register")),
            OperandKind::Register(name) | OperandKind::Identifier(name) => {
                let symbol = any_symbol(scope, name)?;
                match symbol.kind {
                    SymbolKind::Register if symbol.vector.is_none() => {
                        let ty = symbol.ty?;
                        (!matches!(ty, ".b64" | ".u64" | ".s64"))
                            .then(|| format!("`{name}` is a {ty} register"))
                    }
                    SymbolKind::Register => Some(format!("`{name}` is a vector register")),
                    SymbolKind::Variable => Some(format!("`{name}` is a variable")),
                    SymbolKind::Label | SymbolKind::Function => {
                        Some(format!("`{name}` is not a register"))
                    }
                }
            }
            _ => None,
        },
        Shape::TensorCoordinates => {
            match op.kind() {
                OperandKind::Address { .. } => {
                    let Some((_, vector)) = text.split_once('{') else {
                        return Some(format!("`{text}` has no coordinates"));
                    };
                    // The coordinates are 32-bit integers (ptxas 13.5: "Arguments mismatch" for
                    // 16- or 64-bit registers, also when all of them have that size).
                    let vector = vector.split('}').next().unwrap_or_default();
                    vector.split(',').map(str::trim).find_map(|name| {
                    let ty = register_type_name(scope, name)?;
                    (!matches!(ty, ".b32" | ".u32" | ".s32")).then(|| format!("`{name}` is a {ty} register; a tensor coordinate is a 32-bit integer"))
                })
                }
                OperandKind::Vector => Some(format!("`{text}` is a vector, not an address")),
                OperandKind::Register(_) | OperandKind::Identifier(_) => {
                    Some(format!("`{text}` is not an address"))
                }
                _ => None,
            }
        }
        Shape::Label => not_a_name(op, scope),
        Shape::VectorQualifier => {
            let wanted = info.words[1..].iter().find_map(|w| match *w {
                "v2" => Some(2),
                "v4" => Some(4),
                "v8" => Some(8),
                _ => None,
            });
            let is_vector = matches!(op.kind(), OperandKind::Vector);
            match (wanted, is_vector) {
                (None, true) => Some(format!(
                    "`{text}` is a vector, but there is no `.v2`/`.v4`/`.v8`"
                )),
                (Some(n), false) => Some(format!(
                    "`.v{n}` needs a vector of {n} registers here, not `{text}`"
                )),
                (Some(n), true) if op.elements().len() != n => Some(format!(
                    "`.v{n}` needs a vector of {n} registers, not {}",
                    op.elements().len()
                )),
                _ => None,
            }
        }
        Shape::Sink => (!matches!(op.kind(), OperandKind::Sink))
            .then(|| format!("`{text}` is not the sink `_`")),
        Shape::Constant => match op.kind() {
            OperandKind::Integer(_) | OperandKind::Expression => None,
            OperandKind::Register(name) | OperandKind::Identifier(name) => {
                let symbol = any_symbol(scope, name)?;
                (symbol.kind == SymbolKind::Register).then(|| format!("`{name}` is a register"))
            }
            _ => Some(format!("`{text}` is not a constant")),
        },
        // A vector of one register stands for that register (ptxas 13.5 takes `{%r9}` as the
        // sparsity metadata; CUTLASS's block-scaled sparse mma writes it so).
        Shape::Register32 if matches!(op.kind(), OperandKind::Vector) => {
            match op.elements().as_slice() {
                [one] => misfit(one, shape, scope, last, info),
                _ => Some(format!("`{text}` is a vector")),
            }
        }
        Shape::Register32 => match op.kind() {
            OperandKind::Register(name) | OperandKind::Identifier(name) => {
                let ty = register_type_name(scope, name)?;
                (!matches!(ty, ".b32" | ".u32" | ".s32"))
                    .then(|| format!("`{name}` is a {ty} register"))
            }
            OperandKind::Integer(_) | OperandKind::Expression => {
                Some(format!("`{text}` is a constant"))
            }
            _ => Some(format!("`{text}` is not a register")),
        },
        Shape::WideAddress => {
            let OperandKind::Address { .. } = op.kind() else {
                return None;
            };
            let base = op.elements().into_iter().next()?;
            let (OperandKind::Register(name) | OperandKind::Identifier(name)) = base.kind() else {
                return None;
            };
            let ty = register_type_name(scope, name)?;
            matches!(
                ty,
                ".b8" | ".u8" | ".s8" | ".b16" | ".u16" | ".s16" | ".f16" | ".bf16"
            )
            .then(|| format!("`{name}` is a {ty} register"))
        }
        Shape::Callee => {
            let (OperandKind::Register(name) | OperandKind::Identifier(name)) = op.kind() else {
                return not_a_name(op, scope);
            };
            let symbol = symbol_of(scope, name, SymbolKind::Register)?;
            if last {
                return Some(format!(
                    "`{name}` is a register, so this is an indirect call; it needs a prototype or `.calltargets` name as its last operand"
                ));
            }
            if let Some(ty) = symbol.ty {
                if !matches!(ty, ".b32" | ".u32" | ".s32" | ".b64" | ".u64" | ".s64") {
                    return Some(format!(
                        "`{name}` is a {ty} register; an indirect call's address is a 32- or 64-bit integer register"
                    ));
                }
            }
            let target = info.operands.last()?;
            // A call table (9.7.12.5: "the name of an array (call table) initialized to a list
            // of function names") in `.global` or `.const` space; ptxas 13.5 takes a `.u32`,
            // `.u64` or `.u8` one ("Label or .u32/.u64/.u8 array expected").
            if let OperandKind::Identifier(table) = target.kind() {
                if let Some(symbol) = any_symbol(scope, table) {
                    if symbol.kind == SymbolKind::Variable
                        && matches!(symbol.space, Some(".global" | ".const"))
                        && matches!(symbol.ty, Some(".u32" | ".u64" | ".u8"))
                    {
                        return None;
                    }
                }
            }
            not_a_name(target, scope).map(|p| {
                format!("{p}; the last operand of an indirect call names its prototype or `.calltargets` list")
            })
        }
    }
}

/// Why `op` is not a name (a label, function or prototype), or `None` when it is one or
/// cannot be told.
fn not_a_name(op: &Operand<'_>, scope: &Scope<'_>) -> Option<String> {
    let text = op.text();
    match op.kind() {
        OperandKind::Register(name) | OperandKind::Identifier(name) => {
            let symbol = any_symbol(scope, name)?;
            // ptxas 13.5 "Label expected for argument 0 of instruction 'bra'" for a variable
            // or a function name too (fixtures/operands).
            match symbol.kind {
                SymbolKind::Register => Some(format!("`{name}` is a register")),
                SymbolKind::Variable => Some(format!("`{name}` is a variable")),
                SymbolKind::Function => Some(format!("`{name}` is a function")),
                SymbolKind::Label => None,
            }
        }
        OperandKind::Component { .. } => Some(format!("`{text}` is a special register")),
        _ if crate::util::is_constant(op) => Some(format!("`{text}` is a constant")),
        OperandKind::Expression => Some(format!("`{text}` is an expression")),
        OperandKind::Address { .. } => Some(format!("`{text}` is an address")),
        OperandKind::Vector => Some(format!("`{text}` is a vector")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::check_diagnostics;

    #[test]
    fn cache_policy_and_tensor_operands() {
        check_diagnostics(
            r#"
.version 8.6
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 p0)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .f64 %fd<4>;
  ld.global.L2::cache_hint.b32 %r1, [%rd1], %rd2;
  ld.global.L2::cache_hint.b32 %r1, [%rd1], 7;
  ld.global.nc.L2::cache_hint.u8 %r1, [%rd2];
//                                    ^^^^^^ error: `[%rd2]` is an address; with `.L2::cache_hint` the last operand of `ld.global.nc.L2::cache_hint.u8` is the 64-bit cache policy (a .b64 register or an integer constant)
  st.global.L2::cache_hint.b32 [%rd1], %r1, %fd1;
//                                          ^^^^ error: `%fd1` is a .f64 register; with `.L2::cache_hint` the last operand of `st.global.L2::cache_hint.b32` is the 64-bit cache policy (a .b64 register or an integer constant)
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r2}], [%r3];
  cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], [%r3];
//                                                                                   ^^^^^^ error: `[%rd1]` has no coordinates; operand 2 of `cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes` is the tensor, written `[tensorMap, {coordinates}]`
  cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%rd1], [%r1];
//                                                      ^^^^^^ error: `[%rd1]` has no coordinates; operand 1 of `cp.async.bulk.tensor.1d.global.shared::cta.bulk_group` is the tensor, written `[tensorMap, {coordinates}]`
  ret;
}
"#,
        );
    }

    #[test]
    fn branch_and_call_targets() {
        check_diagnostics(
            r#"
.version 8.6
.target sm_90
.address_size 64
.func f(.param .b32 a)
{
  ret;
}
.visible .entry k(.param .u64 p0)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .f64 %fd<4>;
  .param .b32 arg;
proto: .callprototype _ (.param .b32 _);
L1:
  bra L1;
  bra %r1;
//    ^^^ error: `%r1` is a register; operand 1 of `bra` is a label
  brx.idx %r1, %r2;
//             ^^^ error: `%r2` is a register; operand 2 of `brx.idx` is a label
  call f, (arg);
  call %rd1, (arg), proto;
  call %rd1;
//     ^^^^ error: `%rd1` is a register, so this is an indirect call; it needs a prototype or `.calltargets` name as its last operand (`call`)
  call %fd1, (arg), proto;
//     ^^^^ error: `%fd1` is a .f64 register; an indirect call's address is a 32- or 64-bit integer register (`call`)
  ret;
}
"#,
        );
    }

    #[test]
    fn cp_async_size_and_policy() {
        check_diagnostics(
            r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p0)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  cp.async.ca.shared.global [%r1], [%rd1], 16, %p1;
  cp.async.cg.shared.global.L2::cache_hint [%r1], [%rd1], 16, %r2, %rd2;
  cp.async.cg.shared.global [%r1], [%rd1], %r2;
//                                         ^^^ error: `%r2` is a register; operand 3 of `cp.async.cg.shared.global` is an integer constant
  cp.async.cg.shared.global [%r1], [%rd1], 16, %r2, %rd2;
//                                                  ^^^^ error: a cache-policy operand needs `.L2::cache_hint` on `cp.async.cg.shared.global`
  cp.async.cg.shared.global.L2::cache_hint [%r1], [%rd1], 16;
//^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error: `cp.async.cg.shared.global.L2::cache_hint` has `.L2::cache_hint`, so it needs a cache-policy operand after the size
  ret;
}
"#,
        );
    }

    #[test]
    fn multimem_vector_qualifier() {
        check_diagnostics(
            r#"
.version 8.6
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 p0)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  multimem.ld_reduce.relaxed.gpu.global.add.u32 %r1, [%rd1];
  multimem.st.relaxed.gpu.global.v2.f32 [%rd1], {%r1, %r2};
  multimem.ld_reduce.weak.global.max.v2.e5m2x2 %r1, [%rd1];
//                                             ^^^ error: `multimem.ld_reduce.weak.global.max.v2.e5m2x2` needs a vector of 2 registers in braces in operand 1 (.v2 = 2 registers of 16 bits, one per .e5m2x2 element), found a single register without braces
  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r1];
  mbarrier.arrive.release.cluster.shared::cluster.b64 %rd1, [%r1];
//                                                    ^^^^ error: `%rd1` is not the sink `_`; `mbarrier.arrive.release.cluster.shared::cluster.b64` on a `.shared::cluster` barrier returns no state, so its destination is `_`
  multimem.st.relaxed.gpu.global.v4.e4m3x4 [%rd1], {%r1, %r2};
//                                                 ^^^^^^^^^^ error: `multimem.st.relaxed.gpu.global.v4.e4m3x4` needs 4 registers in operand 2 (.v4 = 4 registers of 32 bits, one per .e4m3x4 element), found 2 registers
  ret;
}
"#,
        );
    }
}
