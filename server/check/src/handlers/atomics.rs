//! Atomic and reduction instructions: `atom` (PTX ISA 9.7.13.5) and `red` (9.7.13.6).
//!
//! Which operation takes which type is data (the forms of `data/overlay/atomics.isa`); this
//! module holds what forms cannot say, each rule confirmed with ptxas 13.5:
//! * the target and version floors of single features (`.shared::cluster`, `.b128`, vectors,
//!   `.L2::cache_hint`, `.bf16`…), from the instructions' "PTX ISA Notes" and "Target ISA
//!   Notes", which give them per feature while the knowledge base's floor is per instruction;
//! * `.L2::cache_hint` and the cache-policy operand come together;
//! * operand shapes: a brace vector exactly where the form has `.vN`, with N elements;
//! * operand types: which register types and constants each instruction type takes;
//! * the address: an integer or bit-size register (or a variable), never a constant.

use ptx_isa::{PtxVersion, Requirement, Unmet};
use ptx_syntax::{Operand, OperandKind};

use super::operand_types::{
    any_symbol, constant_fits, declared_type, element_registers, named_symbol, scalar_registers,
    symbol_of,
};
use crate::context::{Ctx, InstInfo};
use crate::scope::{Scope, SymbolKind};
use crate::util::describe_targets;
use crate::Diagnostic;

pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    if info.resolved.outcome.matches.is_empty() {
        return;
    }
    let section = match info.words[0] {
        "atom" => "9.7.13.5",
        "red" if !info.has("async") => "9.7.13.6",
        "red" => {
            red_async(ctx, info, scope);
            return;
        }
        // ptxas reads the operation right after `multimem` ("Unknown modifier '.ld_reduce'"
        // for `multimem.relaxed.ld_reduce…`), though it takes the other qualifiers in any order.
        "multimem" if !["ld_reduce", "st", "red", "cp"].contains(&info.words[1]) => {
            if let Some(at) = info.words[2..]
                .iter()
                .position(|w| ["ld_reduce", "st", "red", "cp"].contains(w))
            {
                ctx.report(
                    Diagnostic::error(
                        "invalid-qualifier",
                        info.word_range(at + 2),
                        format!("`.{}` comes right after `multimem`", info.words[at + 2]),
                    )
                    .section("9.7.9.14"),
                );
            }
            return;
        }
        "multimem" if ["ld_reduce", "st", "red"].contains(&info.words[1]) => {
            multimem(ctx, info, scope);
            return;
        }
        "multimem" | "cp" if info.has("bulk") && !info.has("tensor") => {
            bulk(ctx, info, scope);
            return;
        }
        _ => return,
    };
    floors(ctx, info, section);
    cache_policy(ctx, info, scope, section);
    operands(ctx, info, scope, section);
}

/// `red.async` (9.7.13.7): the forms without an mbarrier (`.gpu`/`.sys` scope, `.global`,
/// `.release`, `.mmio`) need sm_100 and PTX ISA 8.7 (ptxas 13.5: "Feature 'st.async/red.async
/// with .release modifier' requires .target sm_100 or higher", "... with .global state space
/// requires PTX ISA .version 8.7"); the data register as for `red`, except that the forms
/// without an mbarrier take no `.f32` register for `.b32` data; the address of the data is
/// no 16-bit register (ptxas: "Arguments mismatch for instruction 'mov'"), the mbarrier's
/// may be.
fn red_async(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    let section = "9.7.13.7";
    let mbarrier = info.has("mbarrier::complete_tx::bytes");
    if !mbarrier {
        let version = ctx.version.unwrap_or(PtxVersion::new(99, 9));
        let requirement = Requirement::floor("8.7", "sm_100+");
        let unmet = requirement.check(version, &ctx.target_names());
        if let Some(unmet) = unmet.first() {
            let (code, message) = match unmet {
                Unmet::Version { needed } => (
                    "version-too-old",
                    format!(
                        "`red.async` without an mbarrier needs `.version {needed}` or newer (this file has .version {})",
                        ctx.version.map_or("?".to_owned(), |v| v.to_string())
                    ),
                ),
                _ => (
                    "unsupported-target",
                    format!(
                        "`red.async` without an mbarrier needs .target sm_100 or newer (this file targets {})",
                        ctx.sm_target().unwrap_or("nothing")
                    ),
                ),
            };
            ctx.report(Diagnostic::error(code, info.opcode_range(), message).section(section));
        }
    }
    // `.cluster` scope is the mbarrier forms' (ptxas: "Modifier '.cluster' requires modifier
    // '.completion_mechanism'"); with `.release` it is `combinations`' rule.
    if let (false, false, Some(token)) = (mbarrier, info.has("release"), info.qualifier("cluster"))
    {
        ctx.report(
            Diagnostic::error(
                "invalid-qualifier",
                token.range(),
                "`red.async` at `.cluster` scope completes through an mbarrier: write `.mbarrier::complete_tx::bytes`, or use the `.gpu` or `.sys` scope",
            )
            .section(section),
        );
    }
    let ty = data_type(info);
    let opcode = info.opcode_text();
    let mut problems = Vec::new();
    if let Some(op) = info.operands.get(1) {
        if matches!(op.kind(), OperandKind::Vector) {
            problems.push((
                op.range(),
                format!("`{opcode}` takes a single value here, not a vector"),
            ));
        } else if !mbarrier && ty == "b32" {
            value("u32", op, false, scope, opcode, &mut problems);
        } else {
            value(ty, op, false, scope, opcode, &mut problems);
        }
    }
    address(info, scope, &mut problems);
    if let Some(mbar) = info.operands.get(2) {
        address_operand(mbar, scope, opcode, true, &mut problems);
    }
    for (range, message) in problems {
        ctx.report(Diagnostic::error("operand-type", range, message).section(section));
    }
}

/// The bulk copies of this family: `cp.reduce.async.bulk` (9.7.9.25.4.2),
/// `multimem.cp.async.bulk` (9.7.9.26), `multimem.cp.reduce.async.bulk` (9.7.9.27); ptxas
/// 13.5: a constant size is a multiple of 16 ("unexpected value '17', expected to be multiple
/// of 16"), a register size a 32-bit integer one; `.cp_mask` (sm_100) goes with a 16-bit
/// byte mask operand and the mask with `.cp_mask`; the `.global` side of a multimem copy names
/// no variable of another space, the `.shared::cta` side no variable outside `.shared`.
fn bulk(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    if info.words[0] == "cp" && !info.has("reduce") {
        return;
    }
    let section = match (info.words[0], info.has("reduce")) {
        ("cp", _) => "9.7.9.25.4.2",
        (_, false) => "9.7.9.26",
        (_, true) => "9.7.9.27",
    };
    floors(ctx, info, section);
    let opcode = info.opcode_text();
    let mut problems = Vec::new();
    // The size operand (a multiple of 16, a 32-bit integer register) is checked with the
    // other bulk copies in memory.rs.
    // The `.global` form of cp.reduce.async.bulk: `.L2::cache_hint` and the cache policy come
    // together (ptxas: "Arguments mismatch").
    if info.words[0] == "cp" && info.has("bulk_group") {
        let count = info.operands.len();
        match (info.has("L2::cache_hint"), count) {
            (true, 3) => problems.push((
                info.opcode_range(),
                format!("`.L2::cache_hint` needs a 64-bit cache-policy operand after the size of `{opcode}`"),
            )),
            (false, 4) => problems.push((
                info.operands[3].range(),
                format!("a cache-policy operand needs `.L2::cache_hint` on `{opcode}`"),
            )),
            _ => {}
        }
    }
    // The mbarrier form with a value in place of `[mbar]` (see data/overlay/atomics.isa).
    if let (true, Some(value)) = (
        info.words[0] == "cp" && info.has("mbarrier::complete_tx::bytes"),
        info.operands.get(3),
    ) {
        if matches!(value.kind(), OperandKind::Float(_)) {
            problems.push((
                value.range(),
                format!(
                    "`{opcode}` takes a 64-bit integer here, not `{}`",
                    value.text()
                ),
            ));
        }
        value_registers(value, &["b64", "u64", "s64"], scope, opcode, &mut problems);
    }
    if info.words[0] == "multimem" && !info.has("reduce") {
        let mask = info.operands.get(3);
        match (info.has("cp_mask"), mask) {
            (true, None) => problems.push((
                info.opcode_range(),
                format!("`.cp_mask` needs a 16-bit byte-mask operand after the size of `{opcode}`"),
            )),
            (false, Some(mask)) => problems.push((
                mask.range(),
                format!("a byte-mask operand needs `.cp_mask` on `{opcode}`"),
            )),
            (true, Some(mask)) => {
                value_registers(mask, &["b16", "u16", "s16"], scope, opcode, &mut problems)
            }
            (false, None) => {}
        }
    }
    if info.words[0] == "multimem" {
        for (index, wanted) in [(0, "global"), (1, "shared")] {
            if let Some(op) = info.operands.get(index) {
                variable_space(op, scope, opcode, Some(wanted), &mut problems);
            }
        }
    }
    for (range, message) in problems {
        ctx.report(Diagnostic::error("operand-type", range, message).section(section));
    }
}

/// A register operand that must have one of `allowed` as its type.
fn value_registers(
    op: &Operand<'_>,
    allowed: &[&str],
    scope: &Scope<'_>,
    opcode: &str,
    out: &mut Vec<(ptx_syntax::TextRange, String)>,
) {
    let Some((name, symbol)) = named_symbol(scope, op) else {
        return;
    };
    if symbol.kind == SymbolKind::Variable {
        out.push((
            op.range(),
            format!("`{name}` is a variable, not a register: `{opcode}` needs a register here"),
        ));
        return;
    }
    if symbol.kind != SymbolKind::Register || symbol.vector.is_some() {
        return;
    }
    let Some(reg) = symbol.ty.map(|t| t.trim_start_matches('.')) else {
        return;
    };
    if !allowed.contains(&reg) {
        out.push((
            op.range(),
            format!(
                "`{name}` is a .{reg} register; `{opcode}` needs {} here",
                allowed
                    .iter()
                    .map(|t| format!(".{t}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
}

/// The variables named in an address against the space the instruction reaches: `wanted`
/// (`global`, `shared`), or `None` for a generic address, which may name `.global`, `.shared`
/// and `.local` variables but not `.const` or `.param` ones (ptxas 13.5: "State space
/// mismatch between instruction and address").
fn variable_space(
    op: &Operand<'_>,
    scope: &Scope<'_>,
    opcode: &str,
    wanted: Option<&str>,
    out: &mut Vec<(ptx_syntax::TextRange, String)>,
) {
    if !matches!(op.kind(), OperandKind::Address { .. }) {
        return;
    }
    for name in op.identifiers() {
        let Some(symbol) = symbol_of(scope, name.text, SymbolKind::Variable) else {
            continue;
        };
        let Some(space) = symbol.space.map(|s| s.trim_start_matches('.')) else {
            continue;
        };
        let space = space.split("::").next().unwrap_or(space);
        let fits = match wanted {
            Some(wanted) => space == wanted,
            None => !matches!(space, "const" | "param"),
        };
        if !fits {
            out.push((
                name.range(),
                format!(
                    "`{}` is a .{space} variable, which `{opcode}` cannot reach here",
                    name.text
                ),
            ));
        }
    }
}

/// `multimem.ld_reduce`, `multimem.st`, `multimem.red` (9.7.9.14). The operation x type x
/// vector tables are forms; here: the floors of the 8-bit float types and of the accumulation
/// precisions, an accumulation precision that the matched form has no place for (the
/// matcher would drop it as a qualifier ptxas ignores elsewhere, but here ptxas rejects it:
/// "Illegal reduction operation for instruction 'multimem.ld_reduce.acc::f32'"), and the
/// register types of the data.
fn multimem(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    let section = "9.7.9.14";
    floors(ctx, info, section);
    // `multimem.st`/`multimem.red` ignore them, as most instructions do (`opcode::IGNORED`).
    let accumulates = info.words[1] == "ld_reduce";
    let precisions: Vec<usize> = (1..info.words.len())
        .filter(|&i| info.words[i].starts_with("acc::"))
        .collect();
    if let (true, [_, second, ..]) = (accumulates, precisions.as_slice()) {
        ctx.report(
            Diagnostic::error(
                "invalid-qualifier",
                info.word_range(*second),
                "`multimem.ld_reduce` takes one accumulation precision",
            )
            .section(section),
        );
    }
    for acc in ["acc::f32", "acc::f16"] {
        let Some(token) = info.qualifier(acc).filter(|_| accumulates) else {
            continue;
        };
        // Decided here rather than from the matched form: the matcher drops an ignored
        // qualifier before it tries another order of the others.
        let ty = data_type(info);
        let fits = info.has("add")
            && if acc == "acc::f32" {
                matches!(ty, "f16" | "bf16" | "f16x2" | "bf16x2")
            } else {
                ty.starts_with("e5m2") || ty.starts_with("e4m3")
            };
        if !fits {
            ctx.report(
                Diagnostic::error(
                    "invalid-qualifier",
                    token.range(),
                    format!(
                        "`.{acc}` does not go with `{}`: `.acc::f32` is for `.add` of `.f16`/`.bf16` data, `.acc::f16` for `.add` of 8-bit float data",
                        info.opcode_text()
                    ),
                )
                .section(section),
            );
        }
    }
    let index = if info.words[1] == "ld_reduce" { 0 } else { 1 };
    let Some(op) = info.operands.get(index) else {
        return;
    };
    let ty = data_type(info);
    let opcode = info.opcode_text();
    let mut problems = Vec::new();
    match op.kind() {
        // The vector's length is `operand_shapes`' rule.
        OperandKind::Vector if vector_length(info).is_some() => {
            vector_elements(ty, op, scope, opcode, &mut problems);
        }
        OperandKind::Register(_)
        | OperandKind::Identifier(_)
        | OperandKind::Integer(_)
        | OperandKind::Float(_)
        | OperandKind::Expression
            if vector_length(info).is_none() =>
        {
            value(ty, op, false, scope, opcode, &mut problems);
        }
        OperandKind::Integer(_) | OperandKind::Float(_) | OperandKind::Expression => {
            problems.push((
                op.range(),
                format!("`{opcode}` needs a vector of values here, not a constant"),
            ));
        }
        _ => {}
    }
    address(info, scope, &mut problems);
    let generic = !info.has("global");
    if let Some(address) = info.operands.get(1 - index) {
        let wanted = if generic { None } else { Some("global") };
        variable_space(address, scope, opcode, wanted, &mut problems);
        // A generic address is 64 bits with `.address_size 64` (the `.global` one is
        // `state_spaces`' rule); ptxas: "32-Bit ABI … is not supported".
        if generic && ctx.address_size_64 {
            for register in address.registers() {
                let ty = declared_type(scope, register.text);
                if let Some(ty @ (".b32" | ".u32" | ".s32")) = ty {
                    problems.push((
                        register.range(),
                        format!(
                            "`{}` is a {ty} register, but a generic address is 64 bits {}",
                            register.text,
                            ctx.why_64_bit_addresses()
                        ),
                    ));
                }
            }
        }
    }
    for (range, message) in problems {
        ctx.report(Diagnostic::error("operand-type", range, message).section(section));
    }
}

/// A feature of `atom`/`red` with its own floor: every group of `when` has one of its
/// qualifiers written.
struct Floor {
    opcodes: &'static [&'static str],
    when: &'static [&'static [&'static str]],
    since: &'static str,
    targets: &'static str,
    feature: &'static str,
}

const BOTH: &[&str] = &["atom", "red"];

/// The notes of 9.7.13.5 and 9.7.13.6 as ptxas 13.5 enforces them ("Feature '::cluster'
/// requires .target sm_90", "Instruction 'atom.cas.b128.global' requires .target sm_90",
/// "Modifier '.L2::cache_hint' requires PTX ISA .version 7.4", "Feature '.b128 with .sys'
/// requires PTX ISA .version 8.4", "Feature 'red instruction with vector types' requires
/// .target sm_90"). The `.cluster` scope is in `availability`.
const FLOORS: &[Floor] = &[
    // 9.7.9.14: the 8-bit float types and `.acc::f16` exist on the `a` targets of sm_100,
    // sm_110 (formerly sm_101), sm_120, sm_121 and the `f` targets of the sm_100 and sm_110
    // families; ptxas 13.5 rejects them on sm_90a, sm_100, sm_103, sm_120f and sm_121f
    // ("Feature '.e4m3x4' not supported on .target 'sm_121f'").
    Floor {
        opcodes: &["multimem.ld_reduce", "multimem.st", "multimem.red"],
        when: &[&["e5m2", "e5m2x2", "e5m2x4", "e4m3", "e4m3x2", "e4m3x4"]],
        since: "8.6",
        targets: "sm_100a | sm_110a | sm_120a | sm_121a | sm_100f+ | sm_110f+",
        feature: "8-bit float data",
    },
    // The accumulation precisions mean something to `multimem.ld_reduce` only; `multimem.st`
    // and `multimem.red` ignore them on any target.
    Floor {
        opcodes: &["multimem.ld_reduce"],
        when: &[&["acc::f16"]],
        since: "8.6",
        targets: "sm_100a | sm_110a | sm_120a | sm_121a | sm_100f+ | sm_110f+",
        feature: "`.acc::f16`",
    },
    Floor {
        opcodes: &["multimem.cp"],
        when: &[&["cp_mask"]],
        since: "9.1",
        targets: "sm_100+",
        feature: "`.cp_mask`",
    },
    Floor {
        opcodes: &["multimem.ld_reduce"],
        when: &[&["acc::f32"]],
        since: "8.2",
        targets: "sm_90+",
        feature: "`.acc::f32`",
    },
    Floor {
        opcodes: BOTH,
        when: &[&["shared::cta"]],
        since: "7.8",
        targets: "all",
        feature: "the `::cta` sub-qualifier",
    },
    Floor {
        opcodes: BOTH,
        when: &[&["shared::cluster"]],
        since: "7.8",
        targets: "sm_90+",
        feature: "`.shared::cluster`",
    },
    Floor {
        opcodes: BOTH,
        when: &[&["L2::cache_hint"]],
        since: "7.4",
        targets: "sm_80+",
        feature: "`.L2::cache_hint`",
    },
    Floor {
        opcodes: BOTH,
        when: &[&["bf16", "bf16x2"]],
        since: "7.8",
        targets: "sm_90+",
        feature: "`.bf16` and `.bf16x2` data",
    },
    Floor {
        opcodes: BOTH,
        when: &[&["v2", "v4", "v8"]],
        since: "8.1",
        targets: "sm_90+",
        feature: "vector data",
    },
    Floor {
        opcodes: &["atom"],
        when: &[&["b128"]],
        since: "8.3",
        targets: "sm_90+",
        feature: "`.b128` data",
    },
    Floor {
        opcodes: &["atom"],
        when: &[&["b128"], &["sys"]],
        since: "8.4",
        targets: "sm_90+",
        feature: "`.b128` data with `.sys` scope",
    },
    Floor {
        opcodes: BOTH,
        when: &[&["relaxed", "acquire", "release", "acq_rel"]],
        since: "6.0",
        targets: "sm_70+",
        feature: "a memory order",
    },
    Floor {
        opcodes: BOTH,
        when: &[&["cta", "gpu", "sys"]],
        since: "5.0",
        targets: "sm_60+",
        feature: "a scope",
    },
    Floor {
        opcodes: BOTH,
        when: &[&["f16x2"]],
        since: "6.2",
        targets: "sm_60+",
        feature: "`.f16x2` data",
    },
    Floor {
        opcodes: BOTH,
        when: &[&["f16"]],
        since: "6.3",
        targets: "sm_70+",
        feature: "`.f16` data",
    },
    Floor {
        opcodes: &["atom"],
        when: &[&["cas"], &["b16"]],
        since: "6.3",
        targets: "sm_70+",
        feature: "16-bit `.cas`",
    },
    Floor {
        opcodes: BOTH,
        when: &[&["add"], &["f64"]],
        since: "5.0",
        targets: "sm_60+",
        feature: "`.add.f64`",
    },
];

fn floors(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, section: &str) {
    let version = ctx.version.unwrap_or(PtxVersion::new(99, 9));
    let targets = ctx.target_names();
    let mut problems = Vec::new();
    let opcode = match info.words[0] {
        "multimem" => info
            .opcode_text()
            .split('.')
            .take(2)
            .collect::<Vec<_>>()
            .join("."),
        other => other.to_owned(),
    };
    for floor in FLOORS {
        if !floor.opcodes.contains(&opcode.as_str())
            || !floor.when.iter().all(|any| any.iter().any(|q| info.has(q)))
        {
            continue;
        }
        let requirement = Requirement::floor(floor.since, floor.targets);
        let written = floor
            .when
            .iter()
            .find_map(|any| any.iter().find_map(|q| info.qualifier(q)));
        let range = written.map_or(info.opcode_range(), |q| q.range());
        for unmet in requirement.check(version, &targets) {
            let message = match &unmet {
                Unmet::Version { needed } => format!(
                    "{} on `{}` needs `.version {needed}` or newer (this file has .version {})",
                    floor.feature,
                    opcode,
                    ctx.version.map_or("?".to_owned(), |v| v.to_string())
                ),
                Unmet::Target { needed } => format!(
                    "{} on `{}` needs .target {} (this file targets {})",
                    floor.feature,
                    opcode,
                    describe_targets(needed),
                    ctx.sm_target().unwrap_or("nothing")
                ),
                Unmet::Removed { .. } => continue,
            };
            let code = match unmet {
                Unmet::Version { .. } => "version-too-old",
                _ => "unsupported-target",
            };
            problems.push(Diagnostic::error(code, range.clone(), message).section(section));
        }
    }
    // One error per instruction is enough; the first floor is the most specific.
    if let Some(first) = problems.into_iter().next() {
        ctx.report(first);
    }
}

/// `.L2::cache_hint` takes a 64-bit cache-policy operand after the data, and a cache-policy
/// operand needs the qualifier (ptxas: "Arguments mismatch" for the qualifier alone,
/// ".L2::cache_hint modifier required for instruction 'atom' with 4 arguments"). The
/// bitwise and exchange `atom` forms may take a fourth value `c` instead (see
/// [`quirk_fourth_operand`]), which the operand types below check.
fn cache_policy(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>, section: &str) {
    if info.has("cas") {
        return;
    }
    let data = if info.words[0] == "atom" { 3 } else { 2 };
    let count = info.operands.len();
    let hint = info.has("L2::cache_hint");
    if hint && count == data {
        let range = info
            .qualifier("L2::cache_hint")
            .map_or(info.opcode_range(), |q| q.range());
        ctx.report(
            Diagnostic::error(
                "operand-count",
                range,
                format!(
                    "`.L2::cache_hint` needs a 64-bit cache-policy operand after the data of `{}`",
                    info.opcode_text()
                ),
            )
            .section(section),
        );
    } else if !hint && count == data + 1 && !quirk_fourth_operand(info, scope) {
        ctx.report(
            Diagnostic::error(
                "missing-qualifier",
                info.operands[data].range(),
                format!(
                    "a cache-policy operand needs `.L2::cache_hint` on `{}`",
                    info.opcode_text()
                ),
            )
            .section(section),
        );
    }
}

/// `atom.{and,or,xor,exch}.{b32,b64,b128} d, [a], b, c`: ptxas 13.5 takes a fourth value `c`
/// of the instruction type (the spec's `atom.op.type d, [a], b, c` form: `atom.and.b32 d, [a],
/// b, %f3` and `atom.exch.b64 d, [a], b, %fd3` assemble), unless `c` reads as a cache policy:
/// an integer constant or a 64-bit integer register.
fn quirk_fourth_operand(info: &InstInfo<'_>, scope: &Scope<'_>) -> bool {
    if info.words[0] != "atom"
        || info.has("L2::cache_hint")
        || !["b32", "b64", "b128"].iter().any(|w| info.has(w))
        || !["and", "or", "xor", "exch"].iter().any(|w| info.has(w))
    {
        return false;
    }
    let Some(op) = info.operands.get(3) else {
        return false;
    };
    match op.kind() {
        OperandKind::Register(name) => !declared_type(scope, name)
            .is_some_and(|t| matches!(t.trim_start_matches('.'), "b64" | "u64" | "s64")),
        OperandKind::Float(_) => true,
        _ => false,
    }
}

/// The data type of the instruction: its last qualifier.
/// The data type of the instruction: its last qualifier that names a type (ptxas takes the
/// qualifiers in any order: `atom.cta.max.u64.shared.acquire`).
fn data_type<'a>(info: &InstInfo<'a>) -> &'a str {
    info.words[1..]
        .iter()
        .rev()
        .find(|w| !scalar_registers(w).is_empty())
        .copied()
        .unwrap_or("")
}

/// The elements of a vector operand against the element type. ptxas 13.5 types a vector as a
/// whole: a vector of registers is accepted when one of its elements has a register type
/// the element type takes (`{%f1, %r2}` passes for `.f16x2` elements, `{%f1, %f2}` does
/// not); a vector with a constant in it is typed by rules of its own
/// (`red.global.add.noftz.v2.f16 [a], {1, %r2}` assembles), of which the clear ones are
/// checked.
fn vector_elements(
    ty: &str,
    op: &Operand<'_>,
    scope: &Scope<'_>,
    opcode: &str,
    out: &mut Vec<(ptx_syntax::TextRange, String)>,
) {
    let elements = op.elements();
    let constant = |e: &Operand<'_>| {
        matches!(e.kind(), OperandKind::Integer(_) | OperandKind::Float(_))
            || e.integer_value().is_some()
    };
    if elements.iter().any(constant) {
        // What ptxas 13.5 takes whatever the registers beside the constant: no constant for
        // `.bf16` and the 16-bit pairs, integers only for `.f16`, floats only for `.f32` next to
        // `.f32` registers.
        let registers_f32 = elements.iter().filter(|e| !constant(e)).all(|e| {
            matches!(e.kind(), OperandKind::Register(name)
                if declared_type(scope, name) == Some(".f32"))
        });
        for element in elements.iter().filter(|e| constant(e)) {
            let float = matches!(element.kind(), OperandKind::Float(_));
            let wrong = match ty {
                "bf16" | "f16x2" | "bf16x2" => true,
                "f16" => float,
                "f32" => registers_f32 && !float,
                _ => false,
            };
            if wrong {
                out.push((
                    element.range(),
                    format!(
                        "`{opcode}` cannot take the constant `{}` as a .{ty} element here",
                        element.text()
                    ),
                ));
            }
        }
        return;
    }
    let mut problems = Vec::new();
    for element in &elements {
        value(ty, element, true, scope, opcode, &mut problems);
    }
    if problems.len() == elements.len() {
        out.extend(problems);
    }
}

fn vector_length(info: &InstInfo<'_>) -> Option<usize> {
    info.words.iter().find_map(|w| match *w {
        "v2" => Some(2),
        "v4" => Some(4),
        "v8" => Some(8),
        _ => None,
    })
}

/// The data operands: `d`, `b` (and `c` of `.cas` and of the 32-bit bitwise forms) of `atom`,
/// `b` of `red`.
fn data_operands(info: &InstInfo<'_>, scope: &Scope<'_>) -> Vec<usize> {
    match info.words[0] {
        "atom" if info.has("cas") || quirk_fourth_operand(info, scope) => vec![0, 2, 3],
        "atom" => vec![0, 2],
        _ => vec![1],
    }
}

fn operands(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>, section: &str) {
    let ty = data_type(info);
    let vector = vector_length(info);
    let opcode = info.opcode_text();
    let mut problems: Vec<(ptx_syntax::TextRange, String)> = Vec::new();
    for index in data_operands(info, scope) {
        let Some(op) = info.operands.get(index) else {
            continue;
        };
        let is_vector = matches!(op.kind(), OperandKind::Vector);
        match (vector, is_vector) {
            (None, true) => {
                problems.push((
                    op.range(),
                    format!("`{opcode}` takes a single value here, not a vector"),
                ));
                continue;
            }
            (Some(n), false) if !matches!(op.kind(), OperandKind::Sink) || index != 0 => {
                problems.push((
                    op.range(),
                    format!("`.v{n}` needs a vector of {n} values here in `{opcode}`"),
                ));
                continue;
            }
            (Some(n), true) if op.elements().len() != n => {
                problems.push((
                    op.range(),
                    format!(
                        "`.v{n}` needs a vector of {n} values, not {} in `{opcode}`",
                        op.elements().len()
                    ),
                ));
                continue;
            }
            _ => {}
        }
        if is_vector {
            vector_elements(ty, op, scope, opcode, &mut problems);
        } else {
            value(ty, op, false, scope, opcode, &mut problems);
        }
    }
    address(info, scope, &mut problems);
    // A generic address names no `.const` or `.param` variable (the spaces written are
    // `state_spaces`' rule).
    let generic = !["global", "shared", "shared::cta", "shared::cluster"]
        .iter()
        .any(|w| info.has(w));
    let index = if info.words[0] == "atom" { 1 } else { 0 };
    if let (true, Some(address)) = (generic, info.operands.get(index)) {
        variable_space(address, scope, opcode, None, &mut problems);
    }
    for (range, message) in problems {
        ctx.report(Diagnostic::error("operand-type", range, message).section(section));
    }
}

/// One value (a scalar operand or a vector element) against the data type.
fn value(
    ty: &str,
    op: &Operand<'_>,
    element: bool,
    scope: &Scope<'_>,
    opcode: &str,
    out: &mut Vec<(ptx_syntax::TextRange, String)>,
) {
    let kind = op.kind();
    match kind {
        OperandKind::Register(name) | OperandKind::Identifier(name) => {
            let Some(symbol) = any_symbol(scope, name) else {
                return;
            };
            match symbol.kind {
                SymbolKind::Register if symbol.vector.is_none() => {
                    let Some(reg) = symbol.ty.map(|t| t.trim_start_matches('.')) else {
                        return;
                    };
                    let allowed = if element {
                        element_registers(ty)
                    } else {
                        scalar_registers(ty)
                    };
                    if !allowed.is_empty() && !allowed.contains(&reg) {
                        out.push((
                            op.range(),
                            format!(
                                "`{name}` is a .{reg} register; `{opcode}` needs {} here",
                                allowed
                                    .iter()
                                    .map(|t| format!(".{t}"))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        ));
                    }
                }
                // A function's name is its address, a constant: ptxas 13.5 takes it as the
                // data of atom and red (fixtures/operands).
                SymbolKind::Function => {}
                SymbolKind::Variable | SymbolKind::Label => out.push((
                    op.range(),
                    format!("`{name}` is not a register: `{opcode}` takes its data in registers or constants"),
                )),
                SymbolKind::Register => {}
            }
        }
        OperandKind::Integer(text) | OperandKind::Float(text)
            if !constant_fits(ty, &kind, text) =>
        {
            out.push((
                op.range(),
                format!("`{opcode}` cannot take the constant `{text}` as .{ty} data here"),
            ));
        }
        OperandKind::Expression
            if op.integer_value().is_some()
                && !constant_fits(ty, &OperandKind::Integer(op.text()), op.text()) =>
        {
            out.push((
                op.range(),
                format!(
                    "`{opcode}` cannot take the constant `{}` as .{ty} data here",
                    op.text()
                ),
            ));
        }
        _ => {}
    }
}

/// The address `[a]` (operand 0 of `red`, 1 of `atom`): ptxas takes an integer or bit-size
/// register of any width or a variable, with an offset; a floating-point, predicate or
/// `.b128` register ("Illegal to use symbol … as address operand", "Illegal operand type for
/// address/array-index") or a bare constant ("Immediate addresses allowed only for .local
/// state space") is an error.
fn address(info: &InstInfo<'_>, scope: &Scope<'_>, out: &mut Vec<(ptx_syntax::TextRange, String)>) {
    let index = match info.words[0] {
        "atom" => 1,
        "multimem" if info.words[1] == "ld_reduce" => 1,
        _ => 0,
    };
    let Some(op) = info.operands.get(index) else {
        return;
    };
    // `red.async` and `multimem.red` take no 16-bit address register (ptxas 13.5: "Arguments
    // mismatch for instruction 'mov'"), `atom`, `red` and the other multimem ones do.
    let narrow = match info.words[0] {
        "red" => !info.has("async"),
        "multimem" => info.words[1] != "red",
        _ => true,
    };
    address_operand(op, scope, info.opcode_text(), narrow, out);
}

/// One address operand; `narrow`: whether a 16-bit register may hold it.
fn address_operand(
    op: &Operand<'_>,
    scope: &Scope<'_>,
    opcode: &str,
    narrow: bool,
    out: &mut Vec<(ptx_syntax::TextRange, String)>,
) {
    if !matches!(op.kind(), OperandKind::Address { .. }) {
        return;
    }
    let registers = op.registers();
    for register in &registers {
        let Some(symbol) = symbol_of(scope, register.text, SymbolKind::Register) else {
            continue;
        };
        let Some(ty) = symbol.ty.map(|t| t.trim_start_matches('.')) else {
            continue;
        };
        let integer = matches!(ty.as_bytes().first(), Some(b'b' | b'u' | b's'))
            && ty != "b128"
            && (narrow || !ty.ends_with("16"));
        // Float, predicate and 128-bit registers are the general address rule's
        // (memory.rs); this one adds the 16-bit registers these instructions reject.
        let general = !matches!(ty.as_bytes().first(), Some(b'b' | b'u' | b's')) || ty == "b128";
        if !integer && !general {
            out.push((
                register.range(),
                format!(
                    "`{}` is a .{ty} register; the address of `{opcode}` needs an integer or bit-size register{}",
                    register.text,
                    if narrow { "" } else { " of 32 or 64 bits" }
                ),
            ));
        }
    }
    let elements = op.elements();
    let named = elements
        .iter()
        .any(|e| matches!(e.kind(), OperandKind::Identifier(_)) || !e.registers().is_empty());
    if registers.is_empty() && !named {
        let constant = elements
            .iter()
            .all(|e| matches!(e.kind(), OperandKind::Integer(_)) || e.integer_value().is_some());
        if !elements.is_empty() && constant {
            out.push((
                op.range(),
                format!("`{opcode}` cannot take a constant address: name a register or a variable"),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::check_diagnostics;

    /// Operation x type tables, the 32-bit bitwise form with a fourth value, `.u32` data in a
    /// `.f16x2` register, cache-policy pairing, floors, constants, addresses, vectors (each
    /// verdict as ptxas 13.5 gives it for this file).
    #[test]
    fn atom_and_red() {
        check_diagnostics(
            r#"
.version 9.1
.target sm_80
.address_size 64
.const .align 4 .b8 cmem[16];
.visible .entry k()
{
  .reg .b16 %h<4>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<4>;
  .reg .f16x2 %x<4>;
  atom.global.or.u32 %r1, [%rd1], %r2;
//              ^^^^ error: `.u32` is not allowed here in `atom.global.or.u32`; expected .b32, .b64
  atom.global.cas.u32 %r1, [%rd1], %r2, %r3;
//               ^^^^ error: `.u32` is not allowed here in `atom.global.cas.u32`; expected .b16, .b32, .b64, .b128
  red.global.inc.s32 [%rd1], %r2;
//              ^^^^ error: `.s32` is not allowed here in `red.global.inc.s32`; expected .u32
  atom.global.add.u32 %x1, [%rd1], %x2;
  atom.global.and.b32 %r1, [%rd1], %r2, %f3;
  atom.global.add.u32 %r1, [%rd1], %r2, %rd3;
//                                      ^^^^ error: a cache-policy operand needs `.L2::cache_hint` on `atom.global.add.u32`
  atom.global.add.L2::cache_hint.u32 %r1, [%rd1], %r2;
//               ^^^^^^^^^^^^^^^ error: `.L2::cache_hint` needs a 64-bit cache-policy operand after the data of `atom.global.add.L2::cache_hint.u32`
//                                                ^^^ error: `%r2` is a .b32 register; with `.L2::cache_hint` the last operand of `atom.global.add.L2::cache_hint.u32` is the 64-bit cache policy (a .b64 register or an integer constant)
  atom.shared::cluster.add.u32 %r1, [%rd1], %r2;
//    ^^^^^^^^^^^^^^^^ error: `.shared::cluster` on `atom` needs .target sm_90 or newer (this file targets sm_80)
  atom.global.add.f32 %f1, [%rd1], 1;
//                                 ^ error: `atom.global.add.f32` cannot take the constant `1` as .f32 data here
  atom.global.add.u32 %r1, [%f1], %r2;
//                          ^^^ error: `%f1` is a .f32 register; an address is held in an integer or bit-size register
  red.add.u32 [cmem], %r2;
//             ^^^^ error: `cmem` is a .const variable, which `red.add.u32` cannot reach here
  atom.global.add.u32 {%r1, %r2}, [%rd1], %r3;
//                    ^^^^^^^^^^ error: `atom.global.add.u32` takes a single value here, not a vector
  ret;
}
"#,
        );
    }

    /// multimem tables and accumulation precisions, the 8-bit float floor, bulk copies,
    /// red.async's optional mbarrier and its forms without one (as ptxas 13.5 on sm_90).
    #[test]
    fn multimem_bulk_and_red_async() {
        check_diagnostics(
            r#"
.version 9.1
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .b16 %h<4>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<4>;
  multimem.ld_reduce.relaxed.sys.global.or.s64 %rd1, [%rd2];
//                                        ^^^^ error: `.s64` is not allowed here in `multimem.ld_reduce.relaxed.sys.global.or.s64`; expected .b32, .b64
  multimem.ld_reduce.relaxed.sys.global.min.acc::f32.v2.f16 {%h1, %h2}, [%rd1];
//                                         ^^^^^^^^^ error: `.acc::f32` does not go with `multimem.ld_reduce.relaxed.sys.global.min.acc::f32.v2.f16`: `.acc::f32` is for `.add` of `.f16`/`.bf16` data, `.acc::f16` for `.add` of 8-bit float data
//                                         ^^^^^^^^^ warning: `.acc::f32` means nothing to `multimem`; ptxas ignores it
  multimem.ld_reduce.relaxed.sys.global.add.acc::f32.v2.f16 {%h1, %h2}, [%rd1];
  multimem.st.relaxed.sys.global.v2.f64 [%rd1], {%rd2, %rd3};
//                                 ^^^^ error: `.f64` is not allowed here in `multimem.st.relaxed.sys.global.v2.f64`; expected .f16, .bf16, .f16x2, .bf16x2, .f32
  multimem.st.relaxed.sys.global.e4m3x4 [%rd1], %r1;
//                              ^^^^^^^ error: 8-bit float data on `multimem.st` needs .target sm_100a/sm_110a/sm_120a/sm_121a/sm_100f/sm_110f (this file targets sm_90)
  multimem.red.relaxed.sys.global.min.v2.bf16x2 [%rd1], {%r1, %r2};
  multimem.st.relaxed.sys.u32 [%r1], %r2;
//                             ^^^ error: `%r1` is a .b32 register, but a generic address is 64 bits with `.address_size 64`
  multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.xor.u32 [%rd1], [%rd2], 64;
//                                                               ^^^^ error: `.u32` is not allowed here in `multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.xor.u32`; expected .b32, .b64
  multimem.cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%rd2], 48, %h1;
//                                                                         ^^^ error: a byte-mask operand needs `.cp_mask` on `multimem.cp.async.bulk.global.shared::cta.bulk_group`
  cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%rd2], 40;
//                                                                           ^^ error: the size of `cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32` is a multiple of 16 bytes, not 40
  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r1], %r2;
  red.async.relaxed.gpu.global.add.u32 [%rd1], %r2;
//^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error: `red.async` without an mbarrier needs .target sm_100 or newer (this file targets sm_90)
  red.async.relaxed.cluster.global.add.u32 [%rd1], %r2;
//^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error: `red.async` without an mbarrier needs .target sm_100 or newer (this file targets sm_90)
//                 ^^^^^^^^ error: `red.async` at `.cluster` scope completes through an mbarrier: write `.mbarrier::complete_tx::bytes`, or use the `.gpu` or `.sys` scope
  ret;
}
"#,
        );
    }
}
