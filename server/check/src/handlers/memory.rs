//! Rules for data movement and conversion (PTX ISA 9.7.9) and the memory-ordering and
//! barrier instructions of 9.7.13 (fence/membar, mbarrier, elect, clusterlaunchcontrol),
//! each confirmed with ptxas 13.5 (the comment on each rule quotes its message):
//! * address operands: the base register is an integer or bit-size one, a constant address
//!   names `.local` memory only, an mbarrier lives in `.shared` memory (6.4.1);
//! * cvt and cvt.pack (9.7.9.21–22): register classes per conversion, `.ftz`/`.sat`, the
//!   packed small-float modifiers, special-register sources;
//! * ld/st/st.async/st.bulk: space modifiers, `.param::func` addresses, vector shapes,
//!   cache-policy operands, st.async scopes and sizes;
//! * bulk copies and tensor copies: dimensions against load modes, coordinates, masks,
//!   sizes, operand spaces;
//! * tensormap.replace/cp_fenceproxy and the proxy fences: field sizes and values, the 128-byte
//!   size;
//! * version and target floors of the features above that ptxas enforces (`floors.rs`).

mod conversions;
mod floors;

pub(crate) use floors::feature_floors;

use ptx_syntax::{Operand, OperandKind};

use super::operand_types::{any_symbol, register_operand, symbol_of, Class, RegTy};
use crate::context::{Ctx, InstInfo};
use crate::scope::{Scope, SymbolKind};
use crate::util::is_constant;
use crate::Diagnostic;

pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    address_registers(ctx, info, scope);
    register_subscripts(ctx, info, scope);
    immediate_addresses(ctx, info);
    barrier_spaces(ctx, info, scope);
    constant_destination(ctx, info);
    tensor_map_operands(ctx, info, scope);
    if info.words[0] == "cp" {
        bulk_copy_operands(ctx, info, scope);
    }
    if matches!(info.words[0], "ld" | "st") {
        load_store_spaces(ctx, info, scope);
    }
    operand_classes(ctx, info, scope);
    more_operands(ctx, info, scope);
    if info.words[0] == "cvt" {
        conversions::conversion_operands(ctx, info, scope);
        conversions::conversion_modifiers(ctx, info);
        conversions::packed_conversion_modifiers(ctx, info);
    }
}

/// The declared type of a plain register operand, if it is one.
pub(super) use super::operand_types::declared_register as register_type;

/// 6.4.1: an address is a register, a variable, or either plus an offset; the register must
/// hold an integer or bit-size value. ptxas 13.5 rejects float and predicate registers ("Illegal
/// to use symbol '%f3' of type .f32 as address operand. Use integer or bit only.") and 128-bit
/// registers ("Illegal operand type for address/array-index") as the base of any address, for
/// every instruction that takes one. Texture and surface operands (`[tex, {coordinates}]`)
/// are image handles, not addresses, and are left to their own rules.
fn address_registers(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    if matches!(
        info.words[0],
        "tex" | "tld4" | "txq" | "suld" | "sust" | "sured" | "suq" | "istypep"
    ) {
        return;
    }
    for operand in &info.operands {
        if !matches!(operand.kind(), OperandKind::Address { .. }) {
            continue;
        }
        let Some(base) = address_base_name(operand) else {
            continue;
        };
        // A texture, sampler or surface variable has no memory that `ld`, `ldu` or `st` can
        // reach (ptxas 13.5 "Illegal operand type to instruction 'ld'", in every texturing
        // mode and state space qualifier; `mov` copies its handle instead).
        if let (OperandKind::Identifier(name), "ld" | "ldu" | "st") = (base.kind(), info.words[0]) {
            let opaque = symbol_of(scope, name, SymbolKind::Variable)
                .and_then(|s| s.ty)
                .filter(|ty| matches!(*ty, ".texref" | ".samplerref" | ".surfref"));
            if let Some(opaque) = opaque {
                ctx.report(
                    Diagnostic::error(
                        "operand-type",
                        base.range(),
                        format!(
                            "`{name}` is a {opaque} variable, which `{}` cannot address; `mov` copies its handle into a .u64 register",
                            info.words[0]
                        ),
                    )
                    .section("5.3"),
                );
                continue;
            }
        }
        let Some((name, ty, reg)) = register_operand(&base, scope) else {
            continue;
        };
        let message = match reg {
            RegTy {
                class: Class::Float,
                ..
            }
            | RegTy {
                class: Class::HalfPair,
                ..
            }
            | RegTy {
                class: Class::Pred, ..
            } => format!(
                "`{name}` is a {ty} register; an address is held in an integer or bit-size register"
            ),
            RegTy {
                class: Class::Bits,
                bits: 128,
            } => format!(
                "`{name}` is a 128-bit register; an address is held in a 32- or 64-bit register"
            ),
            _ => continue,
        };
        ctx.report(Diagnostic::error("operand-type", base.range(), message).section("6.4.1"));
    }
}

/// A bulk tensor copy (9.7.9.25.5) takes a brace vector only for its tensor coordinates (inside
/// the tensor address) and, in the im2col modes that load into shared memory or prefetch, for
/// the im2col offsets right after the mbarrier (or the tensor), which are 16-bit: ptxas 13.5
/// "Vector operand is not allowed" in place of an address, "Vector is not expected" or
/// "Arguments mismatch" elsewhere.
fn tensor_copy_vectors(
    info: &InstInfo<'_>,
    scope: &Scope<'_>,
    problems: &mut Vec<(ptx_syntax::TextRange, String)>,
) {
    let im2col = info.words.iter().any(|w| w.starts_with("im2col"));
    let prefetch = info.has("prefetch");
    // The destination is the first state space after the dimension: `.shared::…` loads.
    let loads = info
        .words
        .iter()
        .find(|w| w.starts_with("shared") || **w == "global")
        .is_some_and(|w| w.starts_with("shared"));
    let offsets = match (im2col, prefetch, loads) {
        (true, true, _) => Some(1),
        (true, false, true) => Some(3),
        _ => None,
    };
    // The im2col offsets are 16-bit integers ("Arguments mismatch" for 32-bit or .f16 ones).
    if let Some(op) = offsets.and_then(|i| info.operands.get(i)) {
        for element in op.elements() {
            if let Some((name, ty, reg)) = register_operand(&element, scope) {
                if !matches!(
                    reg,
                    RegTy {
                        class: Class::Bits,
                        bits: 16
                    } | RegTy {
                        class: Class::Int,
                        bits: 16
                    }
                ) {
                    problems.push((
                        element.range(),
                        format!(
                            "`{name}` is a {ty} register; an im2col offset is a 16-bit integer"
                        ),
                    ));
                }
            }
        }
    }
    for (index, op) in info.operands.iter().enumerate() {
        if matches!(op.kind(), OperandKind::Vector) && Some(index) != offsets {
            problems.push((
                op.range(),
                format!(
                    "`{}` takes a brace vector only for tensor coordinates and im2col offsets, not as operand {}",
                    info.opcode_text(),
                    index + 1
                ),
            ));
        }
    }
}

/// `A[i]` (6.4.2) indexes an array variable; a register is none (ptxas 13.5: "Array indexing
/// on non-array", and a `.reg` cannot even be declared as an array).
fn register_subscripts(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    let parts = info.operands.iter().flat_map(|op| match op.kind() {
        OperandKind::Address { .. } | OperandKind::Vector => op.elements(),
        _ => vec![*op],
    });
    for part in parts {
        if !matches!(part.kind(), OperandKind::Expression) {
            continue;
        }
        let Some(ptx_syntax::Expression::Subscript { array, .. }) = part.expression() else {
            continue;
        };
        let (OperandKind::Register(name) | OperandKind::Identifier(name)) = array.kind() else {
            continue;
        };
        if symbol_of(scope, name, SymbolKind::Register).is_some() {
            ctx.report(
                Diagnostic::error(
                    "operand-kind",
                    part.range(),
                    format!("`{name}` is a register, not an array: it has no elements to index"),
                )
                .section("6.4.2"),
            );
        }
    }
}

/// An mbarrier object lives in shared memory (9.7.13.15.1): ptxas 13.5 rejects the address
/// of a variable of any other state space, with or without `.shared` written ("Illegal state
/// space for address operand 'gmem' with instruction 'mbarrier.init'").
fn barrier_spaces(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    let barrier = info.words[0] == "mbarrier"
        || (info.words[0] == "cp" && info.has("mbarrier") && info.has("arrive"));
    if !barrier {
        return;
    }
    for operand in &info.operands {
        if !matches!(operand.kind(), OperandKind::Address { .. }) {
            continue;
        }
        for name in operand.identifiers() {
            let Some(symbol) = symbol_of(scope, name.text, SymbolKind::Variable) else {
                continue;
            };
            let Some(space) = symbol.space else { continue };
            if space.trim_start_matches('.').starts_with("shared") {
                continue;
            }
            ctx.report(
                Diagnostic::error(
                    "state-space",
                    name.range(),
                    format!(
                        "`{}` is a {space} variable; an mbarrier object is in .shared memory",
                        name.text
                    ),
                )
                .section("9.7.13.15.1")
                .with_related(symbol.range.clone(), "declared here"),
            );
        }
    }
}

/// The instructions whose first operand is a result register (mbarrier queries and arrivals,
/// createpolicy): a constant there is ptxas's "Result register required for instruction".
fn constant_destination(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let result_first = match info.words[0] {
        "mbarrier" => matches!(
            info.words.get(1).copied(),
            Some("arrive" | "arrive_drop" | "test_wait" | "try_wait" | "pending_count")
        ),
        "createpolicy" | "mapa" | "getctarank" | "isspacep" => true,
        _ => false,
    };
    let Some(first) = info.operands.first() else {
        return;
    };
    if result_first
        && matches!(
            first.kind(),
            OperandKind::Integer(_) | OperandKind::Float(_) | OperandKind::Expression
        )
    {
        ctx.report(
            Diagnostic::error(
                "operand-type",
                first.range(),
                format!(
                    "the first operand of `{}` is its result: write a register, not a constant",
                    info.opcode_text()
                ),
            )
            .section(info.section()),
        );
    }
}

/// The enumerated fields of `tensormap.replace` (9.7.9.28) and the largest value each takes
/// (ptxas 13.5: "value '16' expected to be in range [0..15] when .elemtype modifier is used").
const TENSOR_MAP_FIELDS: &[(&str, i128)] = &[
    ("elemtype", 15),
    ("interleave_layout", 2),
    ("swizzle_mode", 3),
    ("swizzle_atomicity", 3),
    ("fill_mode", 1),
];

/// `tensormap.replace` (9.7.9.28), `tensormap.cp_fenceproxy` (9.7.13.16) and the acquire
/// `fence.proxy.tensormap::generic` (9.7.13.4), as ptxas 13.5 checks them:
/// * an enumerated field's new value is an integer constant in the field's range ("Integer
///   constant expression expected"), the dimension ordinal `ord` one in 0..4;
/// * any other new value is a register of exactly the type's size (a `.f32` register is
///   taken for `.b32`, a 16- or 64-bit one is not: "Arguments mismatch");
/// * the size of the copy or of the fenced range is the constant 128.
fn tensor_map_operands(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    let opcode = info.opcode_text();
    let size_index = match info.words[0] {
        "tensormap" if info.has("cp_fenceproxy") => Some(2),
        "fence" if info.has("proxy") && info.has("acquire") => Some(1),
        _ => None,
    };
    if let Some(index) = size_index {
        if let Some(op) = info.operands.get(index) {
            let message = match (op.kind(), op.integer_value()) {
                (_, Some(128)) => None,
                (OperandKind::Integer(_) | OperandKind::Expression, Some(v)) => Some(format!(
                    "`{opcode}` works on 128 bytes: the size is 128, not {v}"
                )),
                (OperandKind::Register(_) | OperandKind::Float(_), _) => Some(format!(
                    "`{opcode}` works on 128 bytes: the size is the constant 128, not `{}`",
                    op.text()
                )),
                _ => None,
            };
            if let Some(message) = message {
                ctx.report(
                    Diagnostic::error("operand-value", op.range(), message).section(info.section()),
                );
            }
        }
        return;
    }
    if info.words[0] != "tensormap" || !info.has("replace") {
        return;
    }
    let Some(new_value) = info.operands.last() else {
        return;
    };
    let enumerated = TENSOR_MAP_FIELDS.iter().find(|(f, _)| info.has(f));
    let mut report = |range, message: String| {
        ctx.report(Diagnostic::error("operand-value", range, message).section("9.7.9.28"));
    };
    if let Some(&(field, max)) = enumerated {
        match new_value.integer_value() {
            Some(v) if (0..=max).contains(&v) => {}
            Some(v) => report(
                new_value.range(),
                format!("`.{field}` takes a value in 0..={max}, not {v}"),
            ),
            None => report(
                new_value.range(),
                format!("`.{field}` takes an integer constant (0..={max}), not a register"),
            ),
        }
    } else if let OperandKind::Register(name) | OperandKind::Identifier(name) = new_value.kind() {
        let bits = if info.has("b64") { 64 } else { 32 };
        if let Some((ty, reg)) = register_type(scope, name) {
            if reg.bits != bits {
                report(
                    new_value.range(),
                    format!(
                        "`{name}` is a {ty} register; the new value of `{opcode}` is {bits}-bit"
                    ),
                );
            }
        }
    }
    if info.operands.len() == 3 {
        if let Some(v) = info.operands[1].integer_value() {
            if !(0..=4).contains(&v) {
                report(
                    info.operands[1].range(),
                    format!("the dimension ordinal is in 0..=4, not {v}"),
                );
            }
        }
    }
}

/// The bulk copies (9.7.9.25.4–5) and the group waits (9.7.9.25.3), as ptxas 13.5 checks them:
/// * a tensor's dimension and load mode go together: the im2col modes need 3d to 5d, the
///   gather4/scatter4 modes 2d ("Modifier '.2d' cannot be combined with modifier
///   '.im2col'"); the coordinates are one per dimension, five for gather4/scatter4
///   ("Argument vector size mismatch");
/// * `.multicast::cluster` takes a 16-bit CTA mask operand, `.cp_mask` a 16-bit byte mask,
///   `.L2::cache_hint` a 64-bit policy, and a copy with none of them no extra operand
///   ("Arguments mismatch");
/// * the size of a copy or a prefetch is a 32-bit integer register or a constant multiple
///   of 16; `wait_group` takes a constant.
fn bulk_copy_operands(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    let opcode = info.opcode_text();
    let section = info.section();
    let mut problems: Vec<(ptx_syntax::TextRange, String)> = Vec::new();
    if info.has("wait_group") {
        if let Some(op) = info.operands.first() {
            if !matches!(op.kind(), OperandKind::Integer(_) | OperandKind::Expression) {
                problems.push((
                    op.range(),
                    format!("`{opcode}` takes the number of pending groups as a constant"),
                ));
            }
        }
    }
    let bulk = info.has("bulk") && !info.has("wait_group") && !info.has("commit_group");
    if bulk && info.has("tensor") {
        tensor_copy_vectors(info, scope, &mut problems);
    }
    if bulk && info.has("tensor") {
        let dims = info.words.iter().find_map(|w| {
            w.strip_suffix('d')
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| (1..=5).contains(n))
        });
        let im2col = info.words.iter().any(|w| w.starts_with("im2col"));
        let four = info.has("tile::gather4") || info.has("tile::scatter4");
        if let Some(dims) = dims {
            let mode = info
                .words
                .iter()
                .find(|w| w.starts_with("im2col") || w.starts_with("tile::"));
            if let Some(mode) = mode {
                if (im2col && dims < 3) || (four && dims != 2) {
                    let wanted = if im2col { "3d, 4d or 5d" } else { "2d" };
                    problems.push((
                        info.opcode_range(),
                        format!("`.{mode}` copies {wanted} tensors, not {dims}d"),
                    ));
                }
            }
            let wanted = if four { 5 } else { dims };
            for op in &info.operands {
                if !matches!(op.kind(), OperandKind::Address { .. }) {
                    continue;
                }
                for part in op.elements() {
                    if matches!(part.kind(), OperandKind::Vector) {
                        let found = part.elements().len();
                        let fits = found == wanted || (im2col && dims >= 3 && found == dims);
                        if !fits {
                            problems.push((
                                part.range(),
                                format!(
                                    "`{opcode}` takes {wanted} tensor coordinates, found {found}"
                                ),
                            ));
                        }
                    }
                }
            }
        }
    }
    if bulk && !info.has("tensor") && !info.has("prefetch") {
        // `[dst], [src], size` then the barrier when the copy completes on one, then the
        // operands of the modifiers, in this order.
        let mut wanted = 3;
        if info.has("mbarrier::complete_tx::bytes") {
            wanted += 1;
        }
        let mask = info.has("multicast::cluster") || info.has("cp_mask");
        if mask {
            wanted += 1;
        }
        if info.has("L2::cache_hint") {
            wanted += 1;
        }
        let found = info.operands.len();
        if found != wanted && found >= 3 {
            problems.push((
                info.opcode_range(),
                format!("`{opcode}` takes {wanted} operands, found {found}"),
            ));
        } else if mask {
            if let Some(op) = info
                .operands
                .get(wanted - 1 - usize::from(info.has("L2::cache_hint")))
            {
                if let OperandKind::Register(name) | OperandKind::Identifier(name) = op.kind() {
                    if let Some((ty, reg)) = register_type(scope, name) {
                        if reg.bits != 16
                            || matches!(
                                reg,
                                RegTy {
                                    class: Class::Float,
                                    ..
                                }
                            )
                        {
                            problems.push((
                                op.range(),
                                format!("`{name}` is a {ty} register; the mask is 16-bit"),
                            ));
                        }
                    }
                }
            }
        }
    }
    if bulk && info.has("tensor") && info.has("mbarrier::complete_tx::bytes") {
        // A load: `[dst], [tensorMap, coordinates], [mbar]`, then the im2col offsets, then
        // the CTA mask of a multicast.
        let im2col = info
            .words
            .iter()
            .any(|w| w.starts_with("im2col") && *w != "im2col_no_offs");
        let multicast = info.has("multicast::cluster");
        let wanted = 3 + usize::from(im2col) + usize::from(multicast);
        let found = info.operands.len();
        if found < wanted {
            let what = if multicast {
                "a 16-bit CTA mask"
            } else {
                "the im2col offsets"
            };
            problems.push((
                info.opcode_range(),
                format!("`{opcode}` takes {what} after the barrier: {wanted} operands or more, found {found}"),
            ));
        } else if im2col {
            // The im2col offsets are a vector: one 16-bit offset per dimension but the two
            // outer ones, or the two `::w` values ("Vector expected for argument 4").
            if let Some(op) = info.operands.get(3) {
                let size = if info.words.iter().any(|w| w.starts_with("im2col::w")) {
                    2
                } else {
                    info.words
                        .iter()
                        .find_map(|w| w.strip_suffix('d').and_then(|n| n.parse::<usize>().ok()))
                        .unwrap_or(3)
                        .saturating_sub(2)
                };
                if !matches!(op.kind(), OperandKind::Vector) {
                    problems.push((
                        op.range(),
                        format!("`{opcode}` takes its im2col offsets as a vector of {size}"),
                    ));
                } else if op.elements().len() != size && size > 0 {
                    problems.push((
                        op.range(),
                        format!(
                            "`{opcode}` takes a vector of {size} im2col offsets, found {}",
                            op.elements().len()
                        ),
                    ));
                }
            }
        }
        if multicast && found >= wanted {
            if let Some(op) = info.operands.get(wanted - 1) {
                if let OperandKind::Register(name) | OperandKind::Identifier(name) = op.kind() {
                    if let Some((ty, reg)) = register_type(scope, name) {
                        if reg.bits != 16
                            || matches!(
                                reg,
                                RegTy {
                                    class: Class::Float,
                                    ..
                                }
                            )
                        {
                            problems.push((
                                op.range(),
                                format!("`{name}` is a {ty} register; the CTA mask is 16-bit"),
                            ));
                        }
                    }
                }
            }
        }
    }
    // The byte count of a non-tensor copy or prefetch.
    let size_index = if !bulk || info.has("tensor") {
        None
    } else if info.has("prefetch") {
        Some(1)
    } else {
        Some(2)
    };
    if let Some(op) = size_index.and_then(|i| info.operands.get(i)) {
        match op.kind() {
            OperandKind::Register(name) | OperandKind::Identifier(name) => {
                if let Some((ty, reg)) = register_type(scope, name) {
                    if !matches!(
                        reg,
                        RegTy {
                            class: Class::Bits,
                            bits: 32
                        } | RegTy {
                            class: Class::Int,
                            bits: 32
                        }
                    ) {
                        problems.push((
                            op.range(),
                            format!("`{name}` is a {ty} register; the size is a 32-bit integer"),
                        ));
                    }
                }
            }
            OperandKind::Float(text) => problems.push((
                op.range(),
                format!("the size of `{opcode}` is an integer, not `{text}`"),
            )),
            _ => {
                if let Some(v) = op.integer_value() {
                    if v % 16 != 0 {
                        problems.push((
                            op.range(),
                            format!("the size of `{opcode}` is a multiple of 16 bytes, not {v}"),
                        ));
                    }
                }
            }
        }
    }
    for (range, message) in problems {
        ctx.report(Diagnostic::error("operand-type", range, message).section(section.clone()));
    }
}

/// `ld`/`st` (9.7.9.8, 9.7.9.11) and `st.async` (9.7.9.12), as ptxas 13.5 checks them:
/// * `.volatile` and the memory orders do not apply to the read-only or per-thread spaces:
///   none of them to `.param` or `.const`, the orders not to `.local` ("Modifier '.volatile'
///   cannot be applied to '.param' space");
/// * in a kernel, a `.param::func` access names a parameter, not a register address ("Illegal
///   state space for address operand '::func'"; a `.func` may use either);
/// * `.L2::cache_hint` takes the 64-bit policy as a last operand;
/// * `st.async` stores 32- and 64-bit values when it signals a barrier operand ("Arguments
///   mismatch" for `.b16` with `[a], b, [mbar]`), and the cluster forms need the completion
///   mechanism `.mbarrier::complete_tx::bytes`.
fn load_store_spaces(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    let opcode = info.opcode_text();
    let section = info.section();
    let mut problems: Vec<(ptx_syntax::TextRange, String)> = Vec::new();
    let space = info.words[1..]
        .iter()
        .find(|w| {
            let base = w.split("::").next().unwrap_or(w);
            matches!(base, "param" | "const" | "local")
        })
        .copied();
    if let Some(space) = space {
        let local = space == "local";
        for modifier in ["volatile", "relaxed", "acquire", "release"] {
            if local && modifier == "volatile" {
                continue;
            }
            if let Some(q) = info.qualifier(modifier) {
                problems.push((
                    q.range(),
                    format!("`.{modifier}` does not apply to the .{space} space"),
                ));
            }
        }
        // A function writes its return parameters and does not read them (ptxas 13.5
        // "Illegal to read function return parameter 'r'").
        if info.words[0] == "ld" && space.starts_with("param") && !ctx.in_entry {
            if let Some((base, name)) =
                info.operands
                    .get(1)
                    .and_then(address_base_name)
                    .and_then(|b| match b.kind() {
                        OperandKind::Identifier(n) => Some((b, n)),
                        _ => None,
                    })
            {
                let at = info.mnemonic.start;
                let returned = ctx.module.items().iter().any(|item| match item {
                    ptx_syntax::Item::Function(f) if f.range().contains(&at) => f
                        .return_parameters()
                        .iter()
                        .flat_map(|p| p.declarators())
                        .any(|d| d.name().is_some_and(|t| t.text == name)),
                    _ => false,
                });
                if returned {
                    problems.push((
                        base.range(),
                        format!("`{name}` is this function's return parameter: a function stores its result (`st.param`), it does not load it"),
                    ));
                }
            }
        }
        // Inside a `.func` ptxas 13.5 takes a register address too.
        if space == "param::func" && ctx.in_entry {
            for op in &info.operands {
                if !matches!(op.kind(), OperandKind::Address { .. }) {
                    continue;
                }
                let through_register = address_base_name(op).filter(|base| match base.kind() {
                    OperandKind::Register(_) => true,
                    OperandKind::Identifier(name) => {
                        symbol_of(scope, name, SymbolKind::Register).is_some()
                    }
                    _ => false,
                });
                if let Some(base) = through_register {
                    problems.push((
                        base.range(),
                        format!("`{opcode}` addresses a .param::func parameter by its name, not through a register"),
                    ));
                }
            }
        }
    }
    if info.words[0] == "st" && !info.has("async") && info.has("L2::cache_hint") {
        let found = info.operands.len();
        if found == 2 {
            problems.push((
                info.opcode_range(),
                format!(
                    "`{opcode}` takes the 64-bit cache policy after the value: 3 operands, found 2"
                ),
            ));
        }
    }
    if info.words[0] == "st" && info.has("async") {
        let barrier = info.has("mbarrier::complete_tx::bytes");
        let bits = info
            .words
            .last()
            .and_then(|w| w.get(1..))
            .and_then(|d| d.parse::<u32>().ok());
        // With the barrier operand (`[a], b, [mbar]`) the value is 32 or 64 bits; the
        // two-operand forms also store 16- and 8-bit values (`st.async.release.gpu.b8 [a], 1`).
        let least = 32;
        if let (Some(bits), 3) = (bits, info.operands.len()) {
            if bits < least {
                problems.push((
                    info.word_range(info.words.len() - 1),
                    format!("`{opcode}` stores values of {least} bits or more, not {bits}"),
                ));
            }
        }
        if !barrier {
            for q in ["cluster", "shared::cluster"] {
                if let Some(token) = info.qualifier(q) {
                    problems.push((
                        token.range(),
                        format!("`.{q}` in `st.async` goes with the completion mechanism `.mbarrier::complete_tx::bytes`"),
                    ));
                }
            }
        }
    }
    for (range, message) in problems {
        ctx.report(Diagnostic::error("invalid-qualifier", range, message).section(section.clone()));
    }
}

/// What a register operand of the smaller instructions below takes.
#[derive(Debug, Clone, Copy)]
enum Want {
    Pred,
    /// An integer or bit-size register of one of these sizes, or an integer constant.
    Int(&'static [u32]),
    /// A `.f32` or `.b32` register or a floating-point constant (createpolicy's fraction).
    Fraction,
    /// Any register of this size but a predicate; constants as `float`.
    Sized {
        bits: u32,
        float: bool,
    },
    /// The constant 128.
    Size128,
}

/// Operand classes confirmed with ptxas 13.5 ("Arguments mismatch" otherwise):
/// `isspacep p, a` (9.7.9.19), `applypriority`/`discard [a], 128` (9.7.9.16–17),
/// `createpolicy.fractional d, fraction` and `createpolicy.cvt d, a` (9.7.9.18),
/// `clusterlaunchcontrol.query_cancel` (9.7.13.18), `elect.sync d|p, membermask` (9.7.13.14).
fn operand_classes(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    const WORD: Want = Want::Int(&[32]);
    let wants: &[(usize, Want)] = match info.words[0] {
        "isspacep" => &[(0, Want::Pred), (1, Want::Int(&[32, 64]))],
        "applypriority" | "discard" => &[(1, Want::Size128)],
        "createpolicy" if info.has("fractional") && info.operands.len() == 2 => {
            &[(1, Want::Fraction)]
        }
        "createpolicy" if info.has("cvt") => &[(1, Want::Int(&[64]))],
        "clusterlaunchcontrol" if info.has("is_canceled") => &[
            (0, Want::Pred),
            (
                1,
                Want::Sized {
                    bits: 128,
                    float: false,
                },
            ),
        ],
        "clusterlaunchcontrol" if info.has("query_cancel") => &[
            (
                0,
                Want::Sized {
                    bits: 32,
                    float: false,
                },
            ),
            (
                1,
                Want::Sized {
                    bits: 128,
                    float: false,
                },
            ),
        ],
        "elect" => &[(0, WORD), (1, WORD)],
        _ => return,
    };
    let opcode = info.opcode_text();
    let mut problems: Vec<(ptx_syntax::TextRange, String)> = Vec::new();
    // `elect.sync` writes a predicate: `d|p` or `_|p` ("Predicate output expected").
    if info.words[0] == "elect" {
        if let Some(op) = info.operands.first() {
            if !matches!(op.kind(), OperandKind::Pair) {
                problems.push((
                    op.range(),
                    format!("`{opcode}` writes a lane and a predicate: `d|p` or `_|p`"),
                ));
            } else if let Some(p) = op.elements().get(1) {
                if let Some((name, ty, reg)) = register_operand(p, scope) {
                    if reg.class != Class::Pred {
                        problems.push((
                            p.range(),
                            format!("`{name}` is a {ty} register; the second result of `{opcode}` is a predicate"),
                        ));
                    }
                }
            }
        }
    }
    for &(index, want) in wants {
        let Some(op) = info.operands.get(index) else {
            continue;
        };
        // A vector (`get_first_ctaid.v4`) or a pair (`elect.sync d|p`): the elements, the
        // first of a pair only.
        let parts = match op.kind() {
            OperandKind::Vector => op.elements(),
            OperandKind::Pair => op.elements().into_iter().take(1).collect(),
            _ => vec![*op],
        };
        for part in parts {
            let fits = match (part.kind(), want) {
                (OperandKind::Register(name) | OperandKind::Identifier(name), _) => {
                    let Some((_, reg)) = register_type(scope, name) else {
                        continue;
                    };
                    match want {
                        Want::Pred => reg.class == Class::Pred,
                        Want::Int(sizes) => match reg {
                            RegTy {
                                class: Class::Bits,
                                bits: b,
                            }
                            | RegTy {
                                class: Class::Int,
                                bits: b,
                            } => sizes.contains(&b),
                            _ => false,
                        },
                        Want::Fraction => matches!(
                            reg,
                            RegTy {
                                class: Class::Bits,
                                bits: 32
                            } | RegTy {
                                class: Class::Float,
                                bits: 32
                            }
                        ),
                        Want::Sized { bits, .. } => reg.class != Class::Pred && reg.bits == bits,
                        Want::Size128 => false,
                    }
                }
                (OperandKind::Integer(_), Want::Int(_)) => true,
                (OperandKind::Integer(_), Want::Size128) => part.integer_value() == Some(128),
                (OperandKind::Float(_), Want::Sized { float, .. }) => float,
                (OperandKind::Float(_), Want::Fraction) => true,
                (OperandKind::Integer(_) | OperandKind::Float(_), _) => false,
                _ => continue,
            };
            if fits {
                continue;
            }
            let wanted = match want {
                Want::Pred => "a .pred register".to_owned(),
                Want::Int(sizes) => format!(
                    "a {} integer register",
                    sizes
                        .iter()
                        .map(|b| format!("{b}-bit"))
                        .collect::<Vec<_>>()
                        .join(" or ")
                ),
                Want::Sized { bits, float: true } => {
                    format!("a {bits}-bit register or a floating-point constant")
                }
                Want::Sized { bits, .. } => format!("a {bits}-bit register"),
                Want::Size128 => "the constant 128".to_owned(),
                Want::Fraction => "a .f32 or .b32 register or a floating-point constant".to_owned(),
            };
            problems.push((
                part.range(),
                format!(
                    "operand {} of `{opcode}` is {wanted}, not `{}`",
                    index + 1,
                    part.text()
                ),
            ));
        }
    }
    let section = info.section();
    for (range, message) in problems {
        ctx.report(Diagnostic::error("operand-type", range, message).section(section.clone()));
    }
}

/// Smaller rules, each confirmed with ptxas 13.5:
/// * `cp.async` (9.7.9.25.3.1) copies from a `.global` to a `.shared` variable ("State space
///   mismatch between instruction and address"); its copy size is 4, 8 or 16 and the source
///   size a 32-bit integer register or a constant up to the copy size (or a predicate, the
///   ignore-src operand);
/// * `st.bulk [a], size, 0` (9.7.9.13): the size is an integer, a constant multiple of 8, and
///   the last operand the constant 0;
/// * a `.b128` value is not put in a vector ("Vector type too large, exceeds 128 bit limit"),
///   and a vector `ld`/`st` takes no single constant ("Argument vector size mismatch");
/// * `prefetchu` takes a generic address: no `.shared`, `.local`, `.const` or `.param`
///   variable (9.7.9.15);
/// * `cvt` to or from a float reads no special register ("Special register argument not
///   allowed for instruction 'cvt'");
/// * `st.async` scopes: `.weak` takes none, `.cta` is not one, `.gpu`/`.sys` go with `.global`
///   and `.cluster` with `.shared::cluster` (9.7.9.12).
fn more_operands(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    let opcode = info.opcode_text();
    let mut problems: Vec<(ptx_syntax::TextRange, String)> = Vec::new();
    let variable_space = |op: &Operand<'_>| -> Option<(ptx_syntax::TextRange, String, &str)> {
        for name in op.identifiers() {
            let symbol = any_symbol(scope, name.text)?;
            if symbol.kind != SymbolKind::Variable {
                continue;
            }
            let space = symbol.space?.trim_start_matches('.');
            return Some((
                name.range(),
                name.text.to_owned(),
                space.split("::").next()?,
            ));
        }
        None
    };
    let words = &info.words;
    if words[0] == "cp" && words.get(1) == Some(&"async") && (info.has("ca") || info.has("cg")) {
        for (index, wanted) in [(0, "shared"), (1, "global")] {
            if let Some(op) = info.operands.get(index) {
                if let Some((range, name, space)) = variable_space(op) {
                    if space != wanted {
                        problems.push((
                            range,
                            format!("`{name}` is a .{space} variable; `{opcode}` copies from .global to .shared memory"),
                        ));
                    }
                }
            }
        }
        let copy = info.operands.get(2).and_then(|op| op.integer_value());
        if let (Some(op), Some(size)) = (info.operands.get(2), copy) {
            if !matches!(size, 4 | 8 | 16) {
                problems.push((
                    op.range(),
                    format!("`{opcode}` copies 4, 8 or 16 bytes, not {size}"),
                ));
            }
        }
        // With `.L2::cache_hint` and four operands the fourth is the cache policy.
        let source_size = if info.has("L2::cache_hint") && info.operands.len() < 5 {
            None
        } else {
            info.operands.get(3)
        };
        if let Some(op) = source_size {
            match op.kind() {
                OperandKind::Register(name) | OperandKind::Identifier(name) => {
                    if let Some((ty, reg)) = register_type(scope, name) {
                        // The fourth operand is the source size or the ignore-src predicate.
                        if !matches!(
                            reg,
                            RegTy {
                                class: Class::Bits,
                                bits: 32
                            } | RegTy {
                                class: Class::Int,
                                bits: 32
                            } | RegTy {
                                class: Class::Pred,
                                ..
                            }
                        ) {
                            problems.push((
                                op.range(),
                                format!("`{name}` is a {ty} register; the source size is a 32-bit integer (or the ignore-src predicate)"),
                            ));
                        }
                    }
                }
                OperandKind::Float(text) => problems.push((
                    op.range(),
                    format!("the source size of `{opcode}` is an integer, not `{text}`"),
                )),
                _ => {
                    if let (Some(v), Some(size)) = (op.integer_value(), copy) {
                        if !(0..=size).contains(&v) {
                            problems.push((
                                op.range(),
                                format!("the source size of `{opcode}` is at most the copy size {size}, not {v}"),
                            ));
                        }
                    }
                }
            }
        }
    }
    // `cp.async.bulk.dst.src`: the first state space written is the destination's, the second
    // the source's (`.L2.global` for the prefetch); a barrier operand is in shared memory.
    if words[0] == "cp" && info.has("bulk") && !info.has("tensor") {
        let spaces: Vec<&str> = words[1..]
            .iter()
            .filter_map(|w| {
                let base = w.split("::").next().unwrap_or(w);
                matches!(base, "global" | "shared").then_some(base)
            })
            .collect();
        let mut wanted: Vec<(usize, &str)> = if info.has("prefetch") {
            vec![(0, "global")]
        } else {
            spaces.iter().take(2).copied().enumerate().collect()
        };
        if info.has("mbarrier::complete_tx::bytes") {
            wanted.push((3, "shared"));
        }
        for (index, space) in wanted {
            if let Some(op) = info.operands.get(index) {
                if let Some((range, name, declared)) = variable_space(op) {
                    if declared != space
                        && matches!(declared, "global" | "shared" | "local" | "const" | "param")
                    {
                        problems.push((
                            range,
                            format!("`{name}` is a .{declared} variable; operand {} of `{opcode}` is in .{space} memory", index + 1),
                        ));
                    }
                }
            }
        }
    }
    // `cvt.rn.satfinite{.relu}.s2f6x2.f32 d, a, b` takes a scale factor only with
    // `.scaled::n2::ue8m0`.
    if words[0] == "cvt" && info.has("s2f6x2") && !info.has("scaled::n2::ue8m0") {
        let wanted = if words.last() == Some(&"f32") { 3 } else { 2 };
        if info.operands.len() > wanted {
            problems.push((
                info.operands[wanted].range(),
                format!(
                    "`{opcode}` takes {wanted} operands; a scale factor needs `.scaled::n2::ue8m0`"
                ),
            ));
        }
    }
    if words[0] == "st" && info.has("bulk") {
        if let Some(op) = info.operands.get(1) {
            match op.kind() {
                OperandKind::Register(name) | OperandKind::Identifier(name) => {
                    if let Some((ty, reg)) = register_type(scope, name) {
                        if !matches!(
                            reg,
                            RegTy {
                                class: Class::Bits,
                                bits: 32 | 64
                            } | RegTy {
                                class: Class::Int,
                                bits: 32 | 64
                            }
                        ) {
                            problems.push((
                                op.range(),
                                format!("`{name}` is a {ty} register; the size of `{opcode}` is an integer"),
                            ));
                        }
                    }
                }
                _ => {
                    if let Some(v) = op.integer_value() {
                        if v % 8 != 0 {
                            problems.push((
                                op.range(),
                                format!("the size of `{opcode}` is a multiple of 8 bytes, not {v}"),
                            ));
                        }
                    }
                }
            }
        }
        if let Some(op) = info.operands.get(2) {
            if op.integer_value() != Some(0) {
                problems.push((
                    op.range(),
                    format!("the last operand of `{opcode}` is the constant 0"),
                ));
            }
        }
    }
    if matches!(words[0], "ld" | "st" | "ldu") {
        let vector = words.iter().any(|w| matches!(*w, "v2" | "v4" | "v8"));
        if vector && info.has("b128") {
            problems.push((
                info.opcode_range(),
                format!("`{opcode}` puts .b128 values in a vector: 128 bits is the widest element of a vector access"),
            ));
        }
        // (`st.async` takes one constant for every element: `st.async….v4.b32 [a], 1, [mbar]`.)
        let data = if words[0] == "st" { 1 } else { 0 };
        if let Some(op) = info.operands.get(data).filter(|_| !info.has("async")) {
            if vector && is_constant(op) {
                problems.push((
                    op.range(),
                    format!("`{opcode}` moves a vector: write the constant as a vector (`{{{0}, {0}, …}}`)", op.text()),
                ));
            }
            // `st.shared.v4.b32 [a], v+4`: an address expression is one value (ptxas 13.5
            // "Argument vector size mismatch"; fixtures/operands).
            let address_expression = matches!(op.kind(), OperandKind::Expression)
                && op
                    .identifiers()
                    .iter()
                    .any(|t| symbol_of(scope, t.text, SymbolKind::Variable).is_some());
            if vector && address_expression {
                problems.push((
                    op.range(),
                    format!(
                        "`{opcode}` moves a vector; the address `{}` is one value",
                        op.text()
                    ),
                ));
            }
        }
    }
    // `tcgen05.st [taddr]{, immHalfSplitoff}, r`: the data are registers, never constants (ptxas 13.5
    // "Arguments mismatch", or "Vector expected" where the shape moves several).
    // `stackrestore.type a` reads the saved stack pointer from a register (9.7.17.3; ptxas
    // 13.5 "Result register required").
    if words[0] == "stackrestore" {
        if let Some(op) = info.operands.first().filter(|op| is_constant(op)) {
            problems.push((
                op.range(),
                format!(
                    "`{opcode}` restores the stack pointer from a register, not the constant `{}`",
                    op.text()
                ),
            ));
        }
    }
    if words[0] == "tcgen05" && info.words.get(1) == Some(&"st") {
        // The data come last: `16x32bx2` shapes put an immediate offset before them.
        let data = info.operands.last().filter(|_| info.operands.len() > 1);
        if let Some(op) = data.filter(|op| is_constant(op)) {
            problems.push((
                op.range(),
                format!("`{opcode}` stores registers: write its data as registers, not the constant `{}`", op.text()),
            ));
        }
    }
    if words[0] == "prefetchu" {
        if let Some(op) = info.operands.first() {
            if let Some((range, name, space)) = variable_space(op) {
                if space != "global" {
                    problems.push((
                        range,
                        format!(
                            "`{name}` is a .{space} variable; `prefetchu` takes a generic address"
                        ),
                    ));
                }
            }
        }
    }
    if words[0] == "cvt" && words.len() >= 3 {
        let n = words.len();
        let float = |t: &str| t.starts_with('f') || t.starts_with("bf") || t == "tf32";
        if float(words[n - 2]) || float(words[n - 1]) {
            if let Some(op) = info.operands.get(1) {
                let name = match op.kind() {
                    OperandKind::Register(name) => Some(name),
                    OperandKind::Component { register, .. } => Some(register),
                    _ => None,
                };
                if let Some(name) = name {
                    if any_symbol(scope, name).is_none() && ctx.isa.special_register(name).is_some()
                    {
                        problems.push((
                            op.range(),
                            format!("`{opcode}` reads no special register: copy `{}` to a register with `mov` first", op.text()),
                        ));
                    }
                }
            }
        }
    }
    // (The two-operand forms: with a barrier operand ptxas 13.5 takes some vectors, e.g.
    // `{%r1, %r1}`, and rejects others.)
    if words[0] == "st"
        && info.has("async")
        && info.operands.len() == 2
        && !words.iter().any(|w| matches!(*w, "v2" | "v4"))
    {
        if let Some(op) = info.operands.get(1) {
            if matches!(op.kind(), OperandKind::Vector) {
                problems.push((
                    op.range(),
                    format!("`{opcode}` stores one value: a vector needs `.v2` or `.v4`"),
                ));
            }
        }
    }
    if words[0] == "st" && info.has("async") {
        let weak = info.has("weak");
        for scope_word in ["cta", "cluster", "gpu", "sys"] {
            let Some(token) = info.qualifier(scope_word) else {
                continue;
            };
            let message = if weak {
                Some(format!("`.weak` takes no scope: drop `.{scope_word}`"))
            } else if matches!(scope_word, "gpu" | "sys")
                && info.has("mbarrier::complete_tx::bytes")
            {
                Some(format!("`.{scope_word}` stores to global memory, which signals no barrier: drop `.mbarrier::complete_tx::bytes`"))
            } else if scope_word == "cta" {
                Some("`st.async` has no `.cta` scope".to_owned())
            } else if matches!(scope_word, "gpu" | "sys")
                && words.iter().any(|w| w.starts_with("shared"))
            {
                Some(format!("`.{scope_word}` goes with `.global` in `st.async`"))
            } else if scope_word == "cluster"
                && words
                    .iter()
                    .any(|w| w.starts_with("shared") && *w != "shared::cluster")
            {
                Some("`.cluster` goes with `.shared::cluster` in `st.async`".to_owned())
            } else {
                None
            };
            if let Some(message) = message {
                problems.push((token.range(), message));
            }
        }
    }
    let section = info.section();
    for (range, message) in problems {
        ctx.report(Diagnostic::error("operand-type", range, message).section(section.clone()));
    }
}

/// An address that is a bare constant (`[240]`) names a location only in `.local` memory:
/// ptxas 13.5 "Immediate addresses allowed only for .local state space" for every other
/// space, the generic one included (6.4.1).
fn immediate_addresses(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    if !matches!(
        info.words[0],
        "ld" | "ldu"
            | "st"
            | "prefetch"
            | "prefetchu"
            | "atom"
            | "red"
            | "cp"
            | "mbarrier"
            | "applypriority"
            | "discard"
    ) || info.has("local")
    {
        return;
    }
    for operand in &info.operands {
        if !matches!(operand.kind(), OperandKind::Address { .. }) {
            continue;
        }
        let parts = operand.elements();
        let [only] = parts.as_slice() else {
            continue;
        };
        if crate::util::is_constant(only) {
            ctx.report(
                Diagnostic::error(
                    "state-space",
                    only.range(),
                    format!(
                        "a constant address names .local memory only; `{}` needs a register or a variable",
                        info.opcode_text()
                    ),
                )
                .section("6.4.1"),
            );
        }
    }
}

/// The register or name an address starts from (`[p]`, `[name+8]`), whichever the grammar
/// made of it: a register declared without `%` reads as a name.
pub(crate) fn address_base_name<'a>(operand: &Operand<'a>) -> Option<Operand<'a>> {
    address_base_of(operand, |kind| {
        matches!(kind, OperandKind::Register(_) | OperandKind::Identifier(_))
    })
}

fn address_base_of<'a>(
    operand: &Operand<'a>,
    base: impl Fn(OperandKind<'a>) -> bool,
) -> Option<Operand<'a>> {
    let first = operand.elements().into_iter().next()?;
    match first.kind() {
        OperandKind::Expression => match first.expression()? {
            ptx_syntax::Expression::Binary { left, .. } => base(left.kind()).then_some(left),
            _ => None,
        },
        kind => base(kind).then_some(first),
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::check_diagnostics;

    /// Confirmed with ptxas 13.5 (sm_100a, PTX 9.1): each annotated line is rejected
    /// ("Illegal to use symbol … as address operand", "Arguments mismatch", "Vector operand
    /// is not allowed"), the others assemble.
    #[test]
    fn addresses_and_conversions() {
        check_diagnostics(
            r#"
.version 9.1
.target sm_100a
.address_size 64
.visible .entry k()
{
  .reg .b8 %b<4>;
  .reg .b16 %h<4>;
  .reg .f16 %hf<4>;
  .reg .u16 %us<4>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<4>;
  .reg .f16x2 %x<4>;
  ld.global.u32 %r1, [%rd1+4];
  cvt.pack.sat.s16.s32 %x1, %x2, %x3;
  ld.global.u32 %r1, [%f1+4];
//                    ^^^ error: `%f1` is a .f32 register; an address is held in an integer or bit-size register
  mbarrier.init.shared.b64 [%hf1], 1;
//                          ^^^^ error: `%hf1` is a .f16 register; an address is held in an integer or bit-size register
  cvt.rn.bf16.f32 %h1, %f1;
  cvt.rn.bf16.f32 %r1, %f1;
//                ^^^ error: `%r1` is a .b32 register; operand 1 of `cvt.rn.bf16.f32` needs a .b16 register
  cvt.f32.bf16 %f1, %hf1;
//                  ^^^^ error: `%hf1` is a .f16 register; operand 2 of `cvt.f32.bf16` needs a .b16 register
  cvt.rzi.s32.bf16 %x1, %h1;
  cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, 1;
//                                      ^ error: operand 3 of `cvt.rn.satfinite.e4m3x2.f32` needs a .f32 or .b32 register or a floating-point constant, not the constant `1`
  cvt.rn.satfinite.s2f6x2.f32 %us1, %f1, %f2;
  cvt.rn.f16x2.e2m1x2 %r1, %b1;
  cvt.rn.f16x2.e2m1x2 %r1, %h1;
//                         ^^^ error: `%h1` is a .b16 register; operand 2 of `cvt.rn.f16x2.e2m1x2` needs a .b8 register
  cvt.rs.satfinite.e2m1x4.f32 %h1, {%f1, %f2, %f3, %f1}, %r2;
  cvt.rs.satfinite.e4m3x4.f32 %r1, {%f1, %f2, %f3, %r1}, %r2;
  cvt.rs.satfinite.e4m3x4.f32 %r1, {%f1, %f2, %f3, %rd1}, %r2;
//                                 ^^^^^^^^^^^^^^^^^^^^^ error: the elements of a vector have one size: `%f1` is 32 bits, `%rd1` 64
//                                                 ^^^^ error: `%rd1` is a .b64 register; operand 2 of `cvt.rs.satfinite.e4m3x4.f32` needs a .f32 or .b32 register or a floating-point constant
  cvt.rn.f32.s32 %f1, {%r1, %r2};
//                    ^^^^^^^^^^ error: `cvt.rn.f32.s32` takes no vector operand here; operand 2 is one value
  cvt.rzi.s32.f32 %x1, %f1;
  ret;
}
"#,
        );
    }

    /// Confirmed with ptxas 13.5 (sm_100a, PTX 9.1): the first two fences assemble; every
    /// annotated line is rejected (fence forms, fenced sizes, mbarrier spaces and operand
    /// types, tensormap fields, bulk copy shapes and operands, space modifiers, cvt
    /// modifiers, special registers, isspacep and discard operands, packed conversions, cp.async
    /// and st.bulk operands); the `ld` with `.cg` and an L2 eviction priority assembles.
    #[test]
    fn constants_where_registers_go_and_func_parameters() {
        check_diagnostics(
            r#"
.version 9.1
.target sm_100a
.address_size 64
.visible .func f()
{
  .reg .b64 %rd<4>;
  st.param::func.b64 [%rd2], %rd1;
  ret;
}
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  st.global.v2.u64 [%rd1], -1;
//                         ^^ error: `st.global.v2.u64` moves a vector: write the constant as a vector (`{-1, -1, …}`)
  stackrestore.u32 -1;
//                 ^^ error: `stackrestore.u32` restores the stack pointer from a register, not the constant `-1`
  tcgen05.st.sync.aligned.16x64b.x1.b32 [%r1], 5;
//                                             ^ error: `tcgen05.st.sync.aligned.16x64b.x1.b32` stores registers: write its data as registers, not the constant `5`
  tcgen05.st.sync.aligned.16x32bx2.x1.b32 [%r1], 1, {%r2};
  st.param::func.b64 [%rd2], %rd1;
//                    ^^^^ error: `st.param::func.b64` addresses a .param::func parameter by its name, not through a register
  ret;
}
"#,
        );
    }

    #[test]
    fn fences_barriers_copies_and_modifiers() {
        check_diagnostics(
            r#"
.version 9.1
.target sm_100a
.address_size 64
.global .align 16 .b8 gmem[4096];
.shared .align 16 .b8 smem[4096];
.visible .entry k()
{
  .reg .b16 %h<4>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<4>;
  .reg .f64 %fd<4>;
  .reg .pred %p<2>;
  .reg .b32 named;
  .reg .pred pn;
  cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes {%r1, %r2}, [%rd2, {%r3}], [%r2];
//                                                                                 ^^^^^^^^^^ error: `cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes` takes a brace vector only for tensor coordinates and im2col offsets, not as operand 1
  cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd2, {%r1, %r2, %r3}], [%r2], {%h1};
  cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd2, {%r1, %r2, %r3}], [%r2], {%r3};
//                                                                                                                           ^^^ error: `%r3` is a .b32 register; an im2col offset is a 16-bit integer
  red.global.and.b32 [pn], %r1;
//                    ^^ error: `pn` is a .pred register; an address is held in an integer or bit-size register
  elect.sync %r1|named, 0xffffffff;
//               ^^^^^ error: `named` is a .b32 register; the second result of `elect.sync` is a predicate
  mov.u32 %r1, named[5];
//             ^^^^^^^^ error: `named` is a register, not an array: it has no elements to index
  fence.proxy.shared::cta.async::generic.release.sync_restrict::shared::cta.cluster;
  fence.mbarrier_init.release.sync_restrict::shared::cluster.cluster;
  fence.proxy.shared.async;
//                  ^^^^^^ error: `.async` is not allowed here in `fence.proxy.shared.async`; expected .tensormap::generic
  membar.proxy.async.global;
//                  ^^^^^^^ error: `membar` has no qualifier `.global`
  fence.proxy.tensormap::generic.acquire.gpu [%rd1], 64;
//                                                   ^^ error: `fence.proxy.tensormap::generic.acquire.gpu` works on 128 bytes: the size is 128, not 64
  mbarrier.init.shared.b64 [smem], %r1;
  mbarrier.init.shared.b64 [gmem], %r1;
//                          ^^^^ error: `gmem` is a .global variable; an mbarrier object is in .shared memory
  mbarrier.arrive.shared.b64 %fd1, [smem];
//                           ^^^^ error: `%fd1` is a .f64 register; operand 1 of `mbarrier.arrive.shared.b64` needs a .b64, .s64 or .u64 register
  mbarrier.expect_tx.shared.b64 [smem], %f1;
//                                      ^^^ error: `%f1` is a .f32 register; operand 2 of `mbarrier.expect_tx.shared.b64` needs a .b32, .s32 or .u32 register
  tensormap.replace.tile.rank.global.b1024.b64 [%rd1], %rd2;
//                                        ^^^^ error: `.b64` is not allowed here in `tensormap.replace.tile.rank.global.b1024.b64`; expected .b32
  tensormap.replace.tile.fill_mode.global.b1024.b32 [%rd1], %r1;
//                                                          ^^^ error: `.fill_mode` takes an integer constant (0..=1), not a register
  tensormap.replace.tile.elemtype.global.b1024.b32 [%rd1], 16;
//                                                         ^^ error: `.elemtype` takes a value in 0..=15, not 16
  cp.async.bulk.tensor.2d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r3], {%h1};
//^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error: `.im2col` copies 3d, 4d or 5d tensors, not 2d
  cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r3];
//                                                                                               ^^^^^^^^^^ error: `cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes` takes 3 tensor coordinates, found 2
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r1], [%rd1], %r2, [%r3];
//^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ error: `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster` takes 5 operands, found 4
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 100, [%r3];
//                                                                                 ^^^ error: the size of `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes` is a multiple of 16 bytes, not 100
  ld.volatile.param.u32 %r1, [%rd1];
//  ^^^^^^^^^ error: `.volatile` does not apply to the .param space
  st.relaxed.gpu.local.u32 [%rd1], %r1;
//  ^^^^^^^^ error: `.relaxed` does not apply to the .local space
  cvt.ftz.s32.s16 %r1, %h1;
//   ^^^^ error: `.ftz` applies to conversions from or to .f32; `cvt.ftz.s32.s16` has none
  cvt.sat.s64.u32 %rd1, %r1;
//   ^^^^ error: every .u32 value fits .s64: `cvt.sat.s64.u32` takes no `.sat`
  cvt.rzi.f16.bf16 %h1, %h2;
//   ^^^^ error: `cvt.rzi.f16.bf16` takes no `.rzi` rounding modifier for these types
  cvt.rn.f32.u32 %f1, %tid.x;
//                    ^^^^^^ error: `cvt.rn.f32.u32` reads no special register: copy `%tid.x` to a register with `mov` first
  isspacep.global %p1, %f1;
//                     ^^^ error: operand 2 of `isspacep.global` is a 32-bit or 64-bit integer register, not `%f1`
  isspacep.global named, %rd1;
//                ^^^^^ error: operand 1 of `isspacep.global` is a .pred register, not `named`
  cvt.pack.sat.s16.s32 %h1, %r1, %r2;
//                     ^^^ error: `%h1` is a .b16 register; operand 1 of `cvt.pack.sat.s16.s32` needs an integer or bit-size register of at least 32 bits
  cvt.pack.sat.u8.s32.b32 %f1, %r1, %r2, %h1;
//                        ^^^ error: `%f1` is a .f32 register; operand 1 of `cvt.pack.sat.u8.s32.b32` needs an integer or bit-size register of at least 32 bits
//                                       ^^^ error: `%h1` is a .b16 register; operand 4 of `cvt.pack.sat.u8.s32.b32` needs a register of at least 32 bits
  cvt.pack.sat.u8.s32.b32 %rd1, %r1, %r2, %fd1;
  discard.global.L2 [%rd1], 64;
//                          ^^ error: operand 2 of `discard.global.L2` is the constant 128, not `64`
  cvt.rn.e5m2x2.f16x2 %h1, %r2;
//      ^^^^^^^ error: `cvt.rn.e5m2x2.f16x2` needs `.satfinite` before `.e5m2x2`
  cvt.rn.satfinite.f16x2.e4m3x2 %r1, %h2;
//                      ^^^^^^^ error: `.e4m3x2` is not allowed here in `cvt.rn.satfinite.f16x2.e4m3x2`; expected .f32
  ld.global.cg.L2::evict_first.v8.f32 {%f1, %f2, %f3, %f3, %f1, %f2, %f3, %f3}, [%rd1];
  cp.async.ca.shared.global [gmem], [%rd1], 16;
//                           ^^^^ error: `gmem` is a .global variable; `cp.async.ca.shared.global` copies from .global to .shared memory
  st.bulk.weak.shared::cta [%r1], 4096, 1;
//                                      ^ error: the last operand of `st.bulk.weak.shared::cta` is the constant 0
  ret;
}
"#,
        );
    }
}
