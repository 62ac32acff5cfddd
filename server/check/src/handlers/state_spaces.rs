//! The state space of a named variable in an address against the instruction's state space
//! (PTX ISA 5.1 "State Spaces", 6.4.1 "Addresses as Operands"): `ld.global` of a `.shared`
//! variable is rejected by ptxas; a generic `ld` (no state space) of any variable is fine.

use ptx_syntax::OperandKind;

use super::operand_types::{address_registers, integer_of, narrow, symbol_of};
use crate::context::{Ctx, InstInfo};
use crate::scope::{Scope, SymbolKind};
use crate::Diagnostic;

/// The base space of a qualifier or declaration: `shared::cta` -> `shared`.
fn base(space: &str) -> &str {
    let space = space.trim_start_matches('.');
    space.split("::").next().unwrap_or(space)
}

const SPACES: &[&str] = &["global", "shared", "local", "param", "const"];

pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    narrow_address(ctx, info, scope);
    generic_address_width(ctx, info, scope);
    // wmma.load/store, ldmatrix/stmatrix, discard and applypriority name their state space
    // too (9.7.14.4.3-4, 9.7.14.5.15-16, 9.7.9.16-17; ptxas 13.5 "State space mismatch
    // between instruction and address" for `ldmatrix….shared.b16 {…}, [gmem]` and
    // `discard.global.L2 [svar], 128`).
    if !matches!(
        info.words[0],
        "ld" | "ldu"
            | "st"
            | "atom"
            | "red"
            | "prefetch"
            | "wmma"
            | "ldmatrix"
            | "stmatrix"
            | "discard"
            | "applypriority"
    ) {
        return;
    }
    if info.words[0] == "tcgen05"
        && info
            .words
            .get(1)
            .is_some_and(|w| matches!(*w, "ld" | "st" | "mma" | "cp" | "shift"))
    {
        tensor_memory_address_width(ctx, info, scope);
        return;
    }
    let spaces: Vec<&str> = info.words[1..]
        .iter()
        .copied()
        .filter(|w| SPACES.contains(&base(w)))
        .collect();
    // Without a state space the access is generic: ptxas 13.5 takes the name of a .global,
    // .shared or .local variable as its generic address, but rejects .param and .const
    // variables ("State space mismatch between instruction and address").
    let wanted = match spaces.as_slice() {
        [space] => base(space),
        [] if matches!(info.words[0], "ld" | "st") => "",
        _ => return,
    };
    let section = info.section();
    for operand in &info.operands {
        if !matches!(operand.kind(), OperandKind::Address { .. }) {
            continue;
        }
        for name in operand.identifiers() {
            let Some(symbol) = symbol_of(scope, name.text, SymbolKind::Variable) else {
                continue;
            };
            let Some(declared) = symbol.space else {
                continue;
            };
            let declared = base(declared);
            if wanted.is_empty() {
                if matches!(declared, "param" | "const") {
                    ctx.report(
                        Diagnostic::error(
                            "state-space",
                            name.range(),
                            format!(
                                "`{}` is a .{declared} variable, which a generic `{}` cannot reach; write `{}.{declared}`",
                                name.text,
                                info.words[0],
                                info.words[0]
                            ),
                        )
                        .section(section.clone())
                        .with_related(symbol.range.clone(), "declared here"),
                    );
                }
                continue;
            }
            if declared != wanted && SPACES.contains(&declared) {
                ctx.report(
                    Diagnostic::error(
                        "state-space",
                        name.range(),
                        format!(
                            "`{}` is a .{declared} variable, but `{}` accesses .{wanted}; use `{}.{declared}` or a generic address",
                            name.text,
                            info.opcode_text(),
                            info.words[0]
                        ),
                    )
                    .section(section.clone())
                    .with_related(symbol.range.clone(), "declared here"),
                );
            }
        }
    }
}

/// An address held in an 8- or 16-bit register for `tcgen05`, `st.bulk` and
/// `tensormap.replace`: ptxas 13.5 rejects it ("Illegal to use symbol … of type .b16 as
/// address operand", or "Arguments mismatch" for the instructions it expands,
/// `tcgen05.commit`, `tcgen05.alloc`, `st.bulk`, `tensormap.replace` on `.global` and
/// `.shared::cta`). It takes a 16-bit address for `ld`/`st`/`mbarrier` on `.shared` (and only
/// warns on `.global`) and for the `.shared::cta` source of `tensormap.cp_fenceproxy`, so
/// those are left alone.
fn narrow_address(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    let second = info.words.get(1).copied();
    let strict = info.words[0] == "tcgen05"
        || (info.words[0] == "st" && second == Some("bulk"))
        || (info.words[0] == "tensormap" && second == Some("replace"));
    if !strict {
        return;
    }
    for (register, ty, parsed) in address_registers(info, scope) {
        if narrow(parsed) {
            ctx.report(
                Diagnostic::error(
                    "operand-type",
                    register.range(),
                    format!(
                        "`{}` is a {ty} register, but an address of `{}` is 32 or 64 bits",
                        register.text,
                        info.words[..info.words.len().min(2)].join(".")
                    ),
                )
                .section("6.4.1.1".to_owned()),
            );
        }
    }
}

/// With `.address_size 64`, a generic or `.global` address held in a 32-bit register: ptxas
/// 13.5 warns that the program "uses 32-bit address … conflicting with .address_size 64" and
/// rejects the file (`.shared`, `.local`, `.const` and `.param` addresses may be 32-bit).
/// `cvta` between a window and generic addresses is 64-bit too.
fn generic_address_width(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    // `red.async`/`st.async` address `.shared::cluster` when no space is written
    // (9.7.13.7, 9.7.9.12): a 32-bit register is the normal address there. st.bulk writes
    // `.shared::cta` (9.7.9.13) and prefetch.tensormap reads a tensor map (9.7.9.15):
    // ptxas 13.5 takes a 32-bit address for both.
    if matches!(info.words.get(1), Some(&"async" | &"bulk" | &"tensormap")) {
        return;
    }
    if !ctx.address_size_64 {
        return;
    }
    if info.words[0] == "cvta" && info.words.contains(&"u32") {
        let at = info.words.iter().position(|w| *w == "u32").unwrap_or(0);
        ctx.report(
            Diagnostic::error(
                "operand-type",
                info.word_range(at),
                format!(
                    "`cvta` converts 64-bit addresses {}; write `.u64`",
                    ctx.why_64_bit_addresses()
                ),
            )
            .section("9.7.9.19".to_owned()),
        );
        return;
    }
    if info.words[0] == "tcgen05"
        && info
            .words
            .get(1)
            .is_some_and(|w| matches!(*w, "ld" | "st" | "mma" | "cp" | "shift"))
    {
        tensor_memory_address_width(ctx, info, scope);
        return;
    }
    let spaces: Vec<&str> = info.words[1..]
        .iter()
        .map(|w| base(w))
        .filter(|w| SPACES.contains(w))
        .collect();
    let space = match spaces.as_slice() {
        // prefetchu (9.7.9.15) reads a generic address only (ptxas 13.5 "32-Bit ABI … is not
        // supported" for `prefetchu.L1 [%r1]`; fixtures/operands).
        [] if matches!(
            info.words[0],
            "ld" | "ldu" | "st" | "atom" | "red" | "prefetch" | "prefetchu" | "mbarrier"
        ) =>
        {
            "a generic"
        }
        ["global"]
            if matches!(
                info.words[0],
                "ld" | "ldu"
                    | "st"
                    | "atom"
                    | "red"
                    | "prefetch"
                    | "discard"
                    | "applypriority"
                    | "multimem"
            ) =>
        {
            "a global"
        }
        _ => return,
    };
    for (register, ty, parsed) in address_registers(info, scope) {
        if integer_of(parsed, 32) {
            let hint = if space == "a generic" && info.words[0] != "prefetchu" {
                format!(" or name the state space (`{}.shared`)", info.words[0])
            } else {
                String::new()
            };
            ctx.report(
                Diagnostic::error(
                    "operand-type",
                    register.range(),
                    format!(
                        "`{}` is a {ty} register, but {space} address is 64 bits {}; use a 64-bit register{hint}",
                        register.text,
                        ctx.why_64_bit_addresses()
                    ),
                )
                .section("6.4.1.1".to_owned()),
            );
        }
    }
}

/// A function's input parameters are read-only: ptxas 13.5 rejects `st.param [a], …` to one,
/// of a kernel or of a `.func` ("Illegal to write to function input parameter"); a `.func`'s
/// return parameters are written that way (5.1.6.1 kernel, 5.1.6.4 device-function parameters).
pub(crate) fn input_parameter_write(
    ctx: &mut Ctx<'_>,
    info: &InstInfo<'_>,
    scope: &Scope<'_>,
    inputs: &[ptx_syntax::TextRange],
) {
    if info.words[0] != "st" || inputs.is_empty() {
        return;
    }
    let Some(address) = info.operands.first() else {
        return;
    };
    for (index, token) in &info.identifiers {
        if *index != 0 {
            continue;
        }
        // Only variables have a state space other than `.reg`.
        let Some(symbol) = symbol_of(scope, token.text, SymbolKind::Variable) else {
            continue;
        };
        if symbol.space == Some(".param") && inputs.contains(&symbol.range) {
            ctx.report(
                Diagnostic::error(
                    "state-space",
                    address.range(),
                    format!(
                        "`{}` is an input parameter of this function, which is read-only; only return parameters are written with `st.param`",
                        token.text
                    ),
                )
                .section("5.1.6.1".to_owned()),
            );
        }
    }
}

/// Tensor memory addresses (`[taddr]` of tcgen05.ld/st/mma/cp/shift) are 32-bit: ptxas 13.5
/// rejects a 64-bit register there ("Arguments mismatch").
fn tensor_memory_address_width(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    for (register, ty, parsed) in address_registers(info, scope) {
        if integer_of(parsed, 64) {
            ctx.report(
                Diagnostic::error(
                    "operand-type",
                    register.range(),
                    format!(
                        "`{}` is a {ty} register, but tensor memory addresses are 32 bits; use a 32-bit register",
                        register.text
                    ),
                )
                .section("9.7.16.1.1".to_owned()),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::check_diagnostics;

    #[test]
    fn generic_access_cannot_reach_param_or_const() {
        check_diagnostics(
            r#"
.version 8.0
.target sm_90
.address_size 64
.const .align 4 .b32 c1[4];
.global .align 4 .b32 g1[4];
.visible .entry k(.param .u64 p0)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.b64 %rd1, [p0];
//              ^^ error: `p0` is a .param variable, which a generic `ld` cannot reach; write `ld.param`
  ld.u32 %r1, [c1+4];
//             ^^ error: `c1` is a .const variable, which a generic `ld` cannot reach; write `ld.const`
  ld.u32 %r1, [g1+4];
  st.u32 [g1], %r1;
  ret;
}
"#,
        );
    }

    #[test]
    fn variable_space_must_match() {
        check_diagnostics(
            r#"
.version 8.0
.target sm_90
.address_size 64
.global .align 4 .b32 g1[4];
.visible .entry k(.param .u64 p0)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 smem[4];
  ld.global.u32 %r1, [smem];
//                    ^^^^ error: `smem` is a .shared variable, but `ld.global.u32` accesses .global; use `ld.shared` or a generic address
  ld.u32 %r1, [smem];
  ld.shared::cta.u32 %r1, [smem+4];
  ld.param.u64 %rd1, [p0];
  st.shared.u32 [g1], %r1;
//               ^^ error: `g1` is a .global variable, but `st.shared.u32` accesses .shared; use `st.global` or a generic address
  ret;
}
"#,
        );
    }

    #[test]
    fn input_parameters_are_read_only() {
        check_diagnostics(
            r#"
.version 8.0
.target sm_90
.address_size 64
.func (.param .b32 r) f(.param .b32 a)
{
  st.param.b32 [a], 5;
//             ^^^ error: `a` is an input parameter of this function, which is read-only; only return parameters are written with `st.param`
  st.param.b32 [r], 5;
  ret;
}
.visible .entry k(.param .u64 p0, .param .b32 p1)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .param .b32 local;
  st.param.u64 [p0], %rd1;
//             ^^^^ error: `p0` is an input parameter of this function, which is read-only; only return parameters are written with `st.param`
  st.param.b32 [p1+0], %r1;
//             ^^^^^^ error: `p1` is an input parameter of this function, which is read-only; only return parameters are written with `st.param`
  st.param.b32 [local], %r1;
  ld.param.b32 %r1, [p1];
  ret;
}
"#,
        );
    }
}
