//! Qualifier combinations that the forms' syntax allows but ptxas rejects: each rule below
//! names its spec section and was measured on the generated ptxas-labelled set
//! (fixtures/generated), where no accepted case breaks it.
//!
//! * comparison operators against the compared type (9.7.6.1, 9.7.6.2, 9.7.7.1, 9.7.7.2),
//!   the classes and their operators as data (isa/data/comparisons.txt): bit-size types
//!   compare with `eq`/`ne` only, signed integers add the ordered `lt`…`ge`, unsigned
//!   integers add `lo`/`ls`/`hi`/`hs`, floats take every operator but those four; `.ftz`
//!   only with `.f32`, `.f16`, `.f16x2`;
//! * cache and eviction qualifiers on an explicit state space other than `.global`
//!   (9.7.9.8 ld, 9.7.9.9 st, 9.7.13.5 atom, 9.7.13.6 red; the qualifiers and the spaces as
//!   data, isa/data/memory-combinations.txt);
//! * what such a space rules out on ld/st: memory orders on `.local`, 256-bit data, `.unified`
//!   addresses (9.7.9.8, 9.7.9.9; as data, isa/data/memory-combinations.txt);
//! * `.L2::evict_*` on ld/st, which needs 256-bit data: `.v8` of a 32-bit type or `.v4` of a
//!   64-bit type (9.7.9.8, 9.7.9.9);
//! * a cache-policy operand without `.L2::cache_hint` (atom, red, ld, st);
//! * multimem's memory order and scope, which come together (9.7.9.14; the instructions, orders
//!   and scopes as data, isa/data/memory-combinations.txt, as are the 16 bytes of
//!   `cp.async.cg` and the sections of ld/st/atom/red);
//! * vectors of memory instructions (5.4.2): at most 128 bits in all, 256 for ld/st (whose
//!   256-bit forms have rules of their own above and in `availability`; the limits as data,
//!   isa/data/memory-combinations.txt);
//! * the two families of st.async/red.async forms (9.7.9.12, 9.7.13.7): `.mmio` goes with
//!   `.release` and the `.sys` scope only, `.release` takes `.gpu` or `.sys` (not `.cluster`),
//!   and the `.global` forms have no mbarrier completion mechanism (the words and messages as
//!   data, isa/data/memory-combinations.txt).

use ptx_isa::SpaceCheck;

use crate::context::{Ctx, InstInfo};
use crate::Diagnostic;

pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    comparison(ctx, info);
    space_rules(ctx, info);
    image_address(ctx, info);
    cp_async_cg_size(ctx, info);
    cache_space(ctx, info);
    eviction_width(ctx, info);
    cache_policy_operand(ctx, info);
    multimem_order(ctx, info);
    async_store_forms(ctx, info);
    cp_async_policy(ctx, info);
    vector_bits(ctx, info);
}

/// `set`/`setp`: the comparison operator against the class of the compared type, and `.ftz`
/// on the types it flushes (data/comparisons.txt).
fn comparison(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let (which, idx) = match info.words[0] {
        "set" => (0, 1),
        "setp" => (1, 1),
        _ => return,
    };
    // The type is the last word that names one: ptxas 13.5 also takes `.ftz` after it
    // (`setp.gtu.f32.ftz`).
    let ty = info.words[1..].iter().rev().find(|w| {
        w.starts_with("bf16")
            || (w.len() >= 2
                && matches!(w.as_bytes()[0], b'b' | b's' | b'u' | b'f')
                && w.as_bytes()[1].is_ascii_digit())
    });
    let (Some(op), Some(ty)) = (info.words.get(idx), ty) else {
        return;
    };
    let classes = ctx.isa.comparisons();
    let has = |list: &[String], word: &str| list.iter().any(|w| w == word);
    let class_of = |ty: &str| {
        classes
            .iter()
            .find(|c| c.class != "ftz" && has(&c.types, ty))
    };
    // The sections of the full-width comparisons, where a half type's own do not apply.
    let full = classes.iter().find(|c| c.class == "bits");
    let default_section = full.map_or("", |c| c.sections[which].as_str()).to_owned();
    if let Some(i) = info.words.iter().position(|w| *w == "ftz") {
        let flushed = classes
            .iter()
            .find(|c| c.class == "ftz")
            .is_some_and(|c| has(&c.types, ty));
        if !flushed {
            ctx.report(
                Diagnostic::error(
                    "invalid-qualifier",
                    info.word_range(i),
                    format!(
                        "`.ftz` flushes `.f32`, `.f16` and `.f16x2` comparisons only, not `.{ty}`"
                    ),
                )
                .section(default_section.clone()),
            );
        }
    }
    let Some(class) = class_of(ty) else { return };
    // A word that no class lists is no comparison operator (another rule's concern).
    if !classes
        .iter()
        .filter(|c| c.class != "ftz")
        .any(|c| has(&c.operators, op))
    {
        return;
    }
    if !has(&class.operators, op) {
        ctx.report(
            Diagnostic::error(
                "invalid-qualifier",
                info.word_range(idx),
                format!("`.{op}` does not compare `.{ty}` values: {}", class.takes),
            )
            .section(class.sections[which].clone()),
        );
    }
}

fn is_async(info: &InstInfo<'_>) -> bool {
    info.words.get(1) == Some(&"async")
}

/// The section the combination rules of `ld`, `st`, `atom` and `red` cite
/// (data/memory-combinations.txt, `section`).
fn memory_section(ctx: &Ctx<'_>, info: &InstInfo<'_>) -> Option<&'static str> {
    let isa: &'static ptx_isa::Isa = ctx.isa;
    isa.memory_combinations().section(info.words[0])
}

fn cache_space(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let Some(section) = memory_section(ctx, info) else {
        return;
    };
    if is_async(info) {
        return;
    }
    let isa: &'static ptx_isa::Isa = ctx.isa;
    let combinations = isa.memory_combinations();
    let Some(space) = combinations.explicit_space(&info.words) else {
        return;
    };
    // The cache qualifiers of `.global` only (data/memory-combinations.txt).
    for (i, word) in info.words.iter().enumerate().skip(1) {
        if combinations.global_cache(word) {
            ctx.report(
                Diagnostic::error(
                    "invalid-qualifier",
                    info.word_range(i),
                    format!(
                        "`.{word}` applies to the global cache only, not to `.{space}`: use `.global` or a generic address"
                    ),
                )
                .section(section.to_owned()),
            );
        }
    }
}

/// What an explicit state space other than `.global` rules out on ld/st
/// (data/memory-combinations.txt, `explicit-space` and `space-rule`): memory orders on `.local`,
/// 256-bit data, `.unified` addresses.
fn space_rules(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    if is_async(info) {
        return;
    }
    let isa: &'static ptx_isa::Isa = ctx.isa;
    let combinations = isa.memory_combinations();
    let Some(space) = combinations.explicit_space(&info.words) else {
        return;
    };
    let section = memory_section(ctx, info).unwrap_or("9.7.9.8");
    for rule in combinations.space_rules(info.words[0], space) {
        if rule.unless.iter().any(|w| info.has(w)) {
            continue;
        }
        match &rule.check {
            SpaceCheck::Order(orders) => {
                for (i, word) in info.words.iter().enumerate() {
                    if orders.iter().any(|o| o == word) {
                        ctx.report(
                            Diagnostic::error(
                                "invalid-qualifier",
                                info.word_range(i),
                                format!("`.{word}` orders memory shared between threads; `.{space}` memory is private to one"),
                            )
                            .section(section.to_owned()),
                        );
                    }
                }
            }
            SpaceCheck::Wide(widths) => {
                let vec = info.words[1..]
                    .iter()
                    .find(|w| matches!(**w, "v2" | "v4" | "v8"))
                    .copied();
                let bits: u32 = info
                    .words
                    .last()
                    .and_then(|ty| ty.get(1..))
                    .and_then(|d| d.parse().ok())
                    .unwrap_or(0);
                if !widths
                    .iter()
                    .any(|(v, b)| vec == Some(v.as_str()) && *b == bits)
                {
                    continue;
                }
                let total = widths.first().map_or(0, |(v, b)| {
                    v.trim_start_matches('v').parse::<u32>().unwrap_or(0) * b
                });
                ctx.report(
                    Diagnostic::error(
                        "invalid-qualifier",
                        info.opcode_range(),
                        format!(
                            "{total}-bit loads and stores need `.global` or a generic address, not `.{space}`"
                        ),
                    )
                    .section(section.to_owned()),
                );
            }
            SpaceCheck::Unified => {
                for operand in &info.operands {
                    if matches!(
                        operand.kind(),
                        ptx_syntax::OperandKind::Address { unified: true }
                    ) {
                        ctx.report(
                            Diagnostic::error(
                                "invalid-qualifier",
                                operand.range(),
                                format!(
                                    "`.unified` marks a generic or `.global` address, not a `.{space}` one"
                                ),
                            )
                            .section(section.to_owned()),
                        );
                    }
                }
            }
        }
    }
}

/// An image instruction's address is the image and its coordinates, never a plain memory
/// address (data/memory-combinations.txt, `image-address`).
fn image_address(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let isa: &'static ptx_isa::Isa = ctx.isa;
    let Some(section) = isa.memory_combinations().image_address(info.words[0]) else {
        return;
    };
    for operand in &info.operands {
        if matches!(operand.kind(), ptx_syntax::OperandKind::Address { .. })
            && !operand.text().contains(',')
        {
            ctx.report(
                Diagnostic::error(
                    "operand-kind",
                    operand.range(),
                    format!(
                        "`{}` addresses an image and its coordinates, `[image, {{x, …}}]`, not a memory address",
                        info.words[0]
                    ),
                )
                .section(section.to_owned()),
            );
        }
    }
}

/// Operands that are one integer constant only (data/memory-combinations.txt,
/// `fixed-operand`): the 16 bytes of `cp.async.cg`.
fn cp_async_cg_size(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let isa: &'static ptx_isa::Isa = ctx.isa;
    for fixed in isa.memory_combinations().fixed_operands(&info.words) {
        let Some(size) = info.operands.get(fixed.index) else {
            continue;
        };
        if let ptx_syntax::OperandKind::Integer(text) = size.kind() {
            let digits = text.trim_end_matches(['U', 'u']);
            let value = match digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
                Some(hex) => u64::from_str_radix(hex, 16).ok(),
                None => digits.parse::<u64>().ok(),
            };
            if value.is_some_and(|v| v != fixed.value) {
                ctx.report(
                    Diagnostic::error(
                        "immediate-range",
                        size.range(),
                        format!(
                            "`{}` copies {} bytes; `{text}` is a size for `cp.async.ca`",
                            fixed.opcode, fixed.value
                        ),
                    )
                    .section(fixed.section.clone()),
                );
            }
        }
    }
}

/// Qualifiers that need 256-bit data, `.L2::evict_*` on ld/st (data/memory-combinations.txt,
/// `wide-qualifier`: the vector and element sizes that make it).
fn eviction_width(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    if is_async(info) {
        return;
    }
    let isa: &'static ptx_isa::Isa = ctx.isa;
    for rule in isa.memory_combinations().wide_qualifiers(info.words[0]) {
        let Some(i) = info.words.iter().position(|w| rule.matches(w)) else {
            continue;
        };
        let vec = info.words[1..]
            .iter()
            .find(|w| matches!(**w, "v2" | "v4" | "v8"))
            .copied();
        let Some(ty) = info.words.last() else { return };
        let bits: u32 = ty
            .get(1..)
            .and_then(|d| d.parse().ok())
            .filter(|_| ty.starts_with(['b', 'u', 's', 'f']))
            .unwrap_or(0);
        if bits == 0 {
            return;
        }
        let ok = rule
            .widths
            .iter()
            .any(|(v, b)| vec == Some(v.as_str()) && *b == bits);
        if ok {
            continue;
        }
        // "`.v8` of a 32-bit type or `.v4` of a 64-bit type"
        let pairs: Vec<String> = rule
            .widths
            .iter()
            .map(|(v, b)| format!("`.{v}` of a {b}-bit type"))
            .collect();
        let listed = match pairs.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        };
        let total = rule.widths.first().map_or(0, |(v, b)| {
            v.trim_start_matches('v').parse::<u32>().unwrap_or(0) * b
        });
        ctx.report(
            Diagnostic::error(
                "invalid-qualifier",
                info.word_range(i),
                format!("`.{}` needs {total}-bit data: {listed}", info.words[i]),
            )
            .section(memory_section(ctx, info).unwrap_or("9.7.9.8").to_owned()),
        );
    }
}

/// A last operand where a cache policy goes needs `.L2::cache_hint` (data/memory-combinations.txt,
/// `policy-operand`: its index per opcode and the forms that take another operand there).
fn cache_policy_operand(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    if is_async(info) || info.has("L2::cache_hint") || info.has("bulk") {
        return;
    }
    let isa: &'static ptx_isa::Isa = ctx.isa;
    let Some(rule) = isa.memory_combinations().policy_operand(info.words[0]) else {
        return;
    };
    if rule.unless.iter().any(|w| info.has(w)) {
        return;
    }
    let base = rule.index;
    if info.operands.len() != base + 1 {
        return;
    }
    let operand = &info.operands[base];
    ctx.report(
        Diagnostic::error(
            "missing-qualifier",
            operand.range(),
            format!(
                "a cache-policy operand needs `.L2::cache_hint` on `{}`",
                info.opcode_text()
            ),
        )
        .section(memory_section(ctx, info).unwrap_or("9.7.9.8").to_owned()),
    );
}

/// A memory order and a scope that come together (data/memory-combinations.txt,
/// `order-with-scope`: multimem's, 9.7.9.14).
fn multimem_order(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let isa: &'static ptx_isa::Isa = ctx.isa;
    let Some(rule) = isa.memory_combinations().order_with_scope(&info.words) else {
        return;
    };
    let order = info.words[2..]
        .iter()
        .position(|w| rule.orders.iter().any(|o| o == w));
    let scope = info.words[2..]
        .iter()
        .position(|w| rule.scopes.iter().any(|o| o == w));
    // "`.a`, `.b` or `.c`"
    let listed = |words: &[String]| -> String {
        let names: Vec<String> = words.iter().map(|w| format!("`.{w}`")).collect();
        match names.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    };
    let message = match (order, scope) {
        (Some(i), None) => (
            i + 2,
            format!(
                "`.{}` needs a scope ({})",
                info.words[i + 2],
                listed(&rule.scopes)
            ),
        ),
        (None, Some(i)) => (
            i + 2,
            format!(
                "the scope `.{}` needs a memory order ({})",
                info.words[i + 2],
                listed(&rule.orders)
            ),
        ),
        _ => return,
    };
    ctx.report(
        Diagnostic::error("missing-qualifier", info.word_range(message.0), message.1)
            .section(rule.section.clone()),
    );
}

/// A vector's total size (5.4.2): at most 128 bits, except the 256-bit ld/st forms (ptxas
/// 13.5: "Vector type too large, exceeds 128 bit limit" for `st.async….v4.f64`,
/// `ldu.global.v4.f64`, `st.shared.v8.f64`, `multimem.st….v8.f32`).
fn vector_bits(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    // The limits per opcode (data/memory-combinations.txt).
    let Some(limit) = ctx
        .isa
        .memory_combinations()
        .vector_limit(info.words[0], is_async(info))
    else {
        return;
    };
    let Some((index, count)) = info.words.iter().enumerate().find_map(|(i, w)| match *w {
        "v2" => Some((i, 2)),
        "v4" => Some((i, 4)),
        "v8" => Some((i, 8)),
        _ => None,
    }) else {
        return;
    };
    let Some(ty) = info.words.last() else {
        return;
    };
    let bits: u32 = match ty.split_at_checked(1) {
        Some(("b" | "s" | "u" | "f", digits)) => match digits.parse() {
            Ok(bits) => bits,
            Err(_) => return,
        },
        _ => return,
    };
    let total = count * bits;
    if total <= limit {
        return;
    }
    ctx.report(
        Diagnostic::error(
            "invalid-qualifier",
            info.word_range(index),
            format!(
                "`.v{count}.{ty}` is {total} bits; vectors of `{}` hold at most {limit}",
                info.words[0]
            ),
        )
        .section("5.4.2".to_owned()),
    );
}

/// `cp.async.ca/cg [dst], [src], cp-size{, src-size | ignore-src}{, cache-policy}`
/// (9.7.9.25.3.1): a fifth operand is the cache policy, which needs `.L2::cache_hint`, and
/// with `.L2::cache_hint` the policy follows the size (four operands at least); the operand
/// indices as data (data/memory-combinations.txt, `policy-after`).
fn cp_async_policy(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let isa: &'static ptx_isa::Isa = ctx.isa;
    let Some(rule) = isa.memory_combinations().policy_after(&info.words) else {
        return;
    };
    let opcode = info.opcode_text();
    let count = info.operands.len();
    let hint = info.has("L2::cache_hint");
    let (range, message) = if !hint && count == rule.last + 1 {
        (
            info.operands[rule.last].range(),
            format!("a cache-policy operand needs `.L2::cache_hint` on `{opcode}`"),
        )
    } else if hint && count == rule.after + 1 {
        (
            info.opcode_range(),
            format!("`{opcode}` has `.L2::cache_hint`, so it needs a cache-policy operand after the size"),
        )
    } else {
        return;
    };
    ctx.report(Diagnostic::error("operand-count", range, message).section(rule.section.clone()));
}

/// Words that other words of an instruction rule out (data/memory-combinations.txt,
/// `rules-out`): the two families of `st.async`/`red.async` forms (9.7.9.12, 9.7.13.7), where
/// `.mmio` goes with `.release` and the `.sys` scope only, `.release` takes `.gpu` or `.sys`,
/// and the `.global` forms have no mbarrier completion.
fn async_store_forms(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let isa: &'static ptx_isa::Isa = ctx.isa;
    let instruction = info.opcode_text();
    for (rule, opcode, section) in isa.memory_combinations().rules_out(&info.words) {
        for word in &rule.words {
            if let Some(i) = info.words.iter().position(|w| *w == word.as_str()) {
                let message = rule
                    .message
                    .replace("{word}", word)
                    .replace("{opcode}", opcode)
                    .replace("{instruction}", instruction);
                ctx.report(
                    Diagnostic::error("invalid-qualifier", info.word_range(i), message)
                        .section(section.to_owned()),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::check_diagnostics;

    #[test]
    fn comparison_against_type() {
        check_diagnostics(
            r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .f32 %f<4>;
  .reg .pred %p<4>;
  setp.eq.b32 %p1, %r1, %r2;
  setp.lt.b32 %p1, %r1, %r2;
//    ^^^ error: `.lt` does not compare `.b32` values: bit-size types take `.eq` and `.ne` only
  setp.hi.u32 %p1, %r1, %r2;
  setp.hi.s32 %p1, %r1, %r2;
//    ^^^ error: `.hi` does not compare `.s32` values: signed integers take `.eq`, `.ne`, `.lt`, `.le`, `.gt`, `.ge`
  setp.ltu.f32 %p1, %f1, %f2;
  setp.lo.f32 %p1, %f1, %f2;
//    ^^^ error: `.lo` does not compare `.f32` values: `.lo`, `.ls`, `.hi`, `.hs` are for unsigned integers
  ret;
}
"#,
        );
    }

    #[test]
    fn cache_qualifiers_need_the_global_space() {
        check_diagnostics(
            r#"
.version 8.8
.target sm_100a
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<9>;
  .reg .b64 %rd<4>;
  ld.global.L1::no_allocate.u32 %r1, [%rd1];
  ld.L2::128B.u32 %r1, [%rd1];
  ld.shared.L1::no_allocate.u32 %r1, [%rd1];
//         ^^^^^^^^^^^^^^^^ error: `.L1::no_allocate` applies to the global cache only, not to `.shared`: use `.global` or a generic address
  ld.global.L2::evict_last.v8.b32 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1];
  ld.global.L2::evict_last.v4.b32 {%r1, %r2, %r3, %r4}, [%rd1];
//         ^^^^^^^^^^^^^^^ error: `.L2::evict_last` needs 256-bit data: `.v8` of a 32-bit type or `.v4` of a 64-bit type
  ld.global.u32 %r1, [%rd1], %rd2;
//                           ^^^^ error: a cache-policy operand needs `.L2::cache_hint` on `ld.global.u32`
  ld.global.L2::cache_hint.u32 %r1, [%rd1], %rd2;
  ret;
}
"#,
        );
    }

    #[test]
    fn multimem_order_and_scope_come_together() {
        check_diagnostics(
            r#"
.version 8.6
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  multimem.st.relaxed.gpu.global.u32 [%rd1], %r1;
  multimem.st.weak.global.u32 [%rd1], %r1;
  multimem.st.sys.global.u32 [%rd1], %r1;
//           ^^^^ error: the scope `.sys` needs a memory order (`.relaxed`, `.acquire` or `.release`)
  ret;
}
"#,
        );
    }

    #[test]
    fn async_store_forms() {
        check_diagnostics(
            r#"
.version 8.7
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 p0)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  red.async.mmio.release.sys.global.add.u32 [%rd1], %r1;
  red.async.release.gpu.global.add.u32 [%rd1], %r1;
  red.async.mmio.release.gpu.global.add.u32 [%rd1], %r1;
//                      ^^^^ error: `.mmio` needs the `.sys` scope, not `.gpu`, in `red.async.mmio.release.gpu.global.add.u32`
  red.async.release.cluster.global.add.u32 [%rd1], %r1;
//                 ^^^^^^^^ error: a `.release` `red.async` takes the `.gpu` or `.sys` scope, not `.cluster`
  red.async.mmio.relaxed.sys.global.add.u32 [%rd1], %r1;
//              ^^^^^^^^ error: `.mmio` operations are `.release`, not `.relaxed`, in `red.async.mmio.relaxed.sys.global.add.u32`
  ret;
}
"#,
        );
    }

    #[test]
    fn vector_total_size() {
        check_diagnostics(
            r#"
.version 8.6
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p0)
{
  .reg .b64 %rd<8>;
  .reg .f64 %fd<8>;
  ld.global.v2.f64 {%fd1, %fd2}, [%rd1];
  ldu.global.v4.f64 {%fd1, %fd2, %fd3, %fd4}, [%rd1];
//          ^^^ error: `.v4.f64` is 256 bits; vectors of `ldu` hold at most 128
  ret;
}
"#,
        );
    }
}
