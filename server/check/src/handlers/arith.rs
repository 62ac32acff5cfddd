//! Rules of the arithmetic, comparison, logic, video, control-flow and warp-synchronisation
//! instructions (9.7.1–9.7.8, 9.7.12, 9.7.13.1, 9.7.13.9–13, 9.7.18, 9.7.19) that the form
//! matcher and the register typing do not express: features that need a newer target or
//! PTX version than the instruction, video byte and half-word selectors, operands that
//! must be constants (and constants that must be registers), and counts with a granularity.
//!
//! Every rule was confirmed with ptxas 13.5; where it and the spec differ the comment says so.

use ptx_isa::{PtxVersion, Requirement, TargetReq};
use ptx_syntax::{Operand, OperandKind};

use super::operand_types::symbol_of;
use crate::context::{Ctx, InstInfo};
use crate::scope::{Scope, SymbolKind};
use crate::Diagnostic;

pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    features(ctx, info);
    opaque_type(ctx, info);
    match info.words[0] {
        "vadd" | "vsub" | "vabsdiff" | "vmin" | "vmax" | "vshl" | "vshr" | "vmad" | "vset" => {
            scalar_video(ctx, info)
        }
        "vadd2" | "vsub2" | "vavrg2" | "vabsdiff2" | "vmin2" | "vmax2" | "vset2" => {
            simd_video(ctx, info, 2)
        }
        "vadd4" | "vsub4" | "vavrg4" | "vabsdiff4" | "vmin4" | "vmax4" | "vset4" => {
            simd_video(ctx, info, 4)
        }
        "lop3" => lop3(ctx, info, scope),
        // `mad.lo.cc`, `madc.hi.cc` (9.7.2.5-6): ptxas 13.5 takes `madc.cc.lo.u32` for no
        // instruction at all and rejects `mad.cc.lo.s32`.
        "mad" | "madc" => leading_qualifier(ctx, info, &["hi", "lo", "wide"], "9.7.1.4"),
        "mul" | "mul24" | "mad24" => leading_qualifier(ctx, info, &["hi", "lo", "wide"], "9.7.1.3"),
        "shf" => leading_qualifier(ctx, info, &["l", "r"], "9.7.8.7"),
        "dp2a" => leading_qualifier(ctx, info, &["hi", "lo"], "9.7.1.24"),
        // `div.full.f32` ("Unknown modifier '.full'" for `div.f32.full`, `div.ftz.full.f32`).
        "div" => leading_qualifier(ctx, info, &["full"], "9.7.3.8"),
        "testp" => testp_classes(ctx, info),
        "bfe" => field_bounds(ctx, info, 2, "9.7.1.19"),
        "bfi" => {
            field_bounds(ctx, info, 3, "9.7.1.20");
            // The result `f` (the form's name for it) is a register ("Result register
            // required for instruction 'bfi'").
            if let Some(op) = info.operands.first() {
                if op.integer_value().is_some() || matches!(op.kind(), OperandKind::Float(_)) {
                    ctx.report(
                        Diagnostic::error(
                            "operand-kind",
                            op.range(),
                            format!(
                                "operand 1 of `{}` is its result: write a register, not the constant `{}`",
                                info.opcode_text(),
                                op.text()
                            ),
                        )
                        .section("9.7.1.20"),
                    );
                }
            }
        }
        "set" | "setp" => bf16_predicate_source(ctx, info),
        "add" | "sub" | "fma" => mixed_precision_order(ctx, info),
        "bar" | "barrier" => {
            barrier_thread_count(ctx, info);
            // `bar.cta.sync`, not `bar.sync.cta` ("Illegal modifier '.cta'"), and
            // `barrier.cluster.arrive`, not `barrier.arrive.cluster`.
            leading_at(ctx, info, &["cta", "cluster"], 1, "9.7.13.1");
            // `barrier.cluster.arrive.aligned`, not `barrier.cluster.aligned.arrive`.
            if info.words.get(1) == Some(&"cluster") {
                leading_at(ctx, info, &["arrive", "wait"], 2, "9.7.13.3");
            }
            // `bar.red.popc`, not `bar.popc.red` ("Unexpected instruction types").
            let red = info.words.iter().position(|w| *w == "red");
            let op = info
                .words
                .iter()
                .position(|w| matches!(*w, "popc" | "and" | "or"));
            if let (Some(red), Some(op)) = (red, op) {
                if op < red {
                    ctx.report(
                        Diagnostic::error(
                            "invalid-qualifier",
                            info.word_range(op),
                            format!(
                                "`.{}` comes after `.red` in `{}`",
                                info.words[op],
                                info.opcode_text()
                            ),
                        )
                        .section("9.7.13.1"),
                    );
                }
            }
        }
        // `pmevent a`, `pmevent.mask a` (9.7.19.3) and `setmaxnreg… imm-reg-count`
        // (9.7.19.5): the operand is an integer constant (ptxas 13.5 "Arguments mismatch"
        // for any register and for `1.5`).
        "pmevent" | "setmaxnreg" => {
            // `pmevent.mask` takes a 16-bit mask of events (ptxas 13.5 rejects 0x10000).
            if info.has("mask") {
                if let Some(op) = info.operands.first() {
                    if op
                        .integer_value()
                        .is_some_and(|v| !(0..=0xffff).contains(&v))
                    {
                        ctx.report(
                            Diagnostic::error(
                                "immediate-range",
                                op.range(),
                                format!(
                                    "`pmevent.mask` takes a 16-bit mask of events, not {}",
                                    op.text()
                                ),
                            )
                            .section("9.7.19.3"),
                        );
                    }
                }
            }
            for (index, op) in info.operands.iter().enumerate() {
                needs_constant(ctx, info, scope, index, op, "9.7.19");
                if let OperandKind::Float(text) = op.kind() {
                    ctx.report(
                        Diagnostic::error(
                            "operand-type",
                            op.range(),
                            format!(
                                "`{}` takes an integer constant, not `{text}`",
                                info.opcode_text()
                            ),
                        )
                        .section("9.7.19"),
                    );
                }
            }
        }
        _ => {}
    }
}

/// ptxas 13.5 ignores a `.pred` written among the qualifiers of these instructions
/// (`add.pred.s32`, `setp.pred.eq.s32`, `abs.f32.pred`, `mul.pred.rn.f32` assemble), though no
/// form has one; it rejects it elsewhere (`mul.pred.lo.s32`, `and.pred.b32`, `shl.pred.b32`,
/// `fma.pred.rn.f32x2`). For those, the instruction without it, to be checked instead.
pub(crate) fn without_stray_pred<'a>(ctx: &Ctx<'a>, info: &InstInfo<'a>) -> Option<InstInfo<'a>> {
    if !ignores_extra_type(info) {
        return None;
    }
    let at = info
        .words
        .iter()
        .position(|w| matches!(*w, "pred" | "texref" | "samplerref" | "surfref"))?;
    let mut words = info.words.clone();
    words.remove(at);
    let mut qualifiers = info.qualifiers.clone();
    qualifiers.remove(at - 1);
    let mut resolved = crate::handlers::opcode::resolve(ctx.isa, &words);
    resolved.spelling = words.join(".");
    Some(InstInfo {
        inst: info.inst,
        guard: info.guard.clone(),
        mnemonic: info.mnemonic,
        qualifiers,
        words,
        operands: info.operands.clone(),
        registers: info.registers.clone(),
        identifiers: info.identifiers.clone(),
        resolved: std::rc::Rc::new(resolved),
    })
}

/// The instructions on which ptxas 13.5 ignores an extra `.pred`, `.texref`, `.samplerref` or
/// `.surfref` among the qualifiers (probed by inserting each into every form of these
/// families: `add.s32.texref`, `setp.pred.eq.s32`, `mul.rn.f32.samplerref` assemble).
fn ignores_extra_type(info: &InstInfo<'_>) -> bool {
    const IGNORING: &[&str] = &[
        "add", "sub", "mul", "abs", "neg", "min", "max", "rcp", "sqrt", "rsqrt", "sin", "cos",
        "lg2", "ex2", "tanh", "fma", "setp", "set",
    ];
    IGNORING.contains(&info.words[0]) && !["hi", "lo", "wide", "f32x2"].iter().any(|w| info.has(w))
}

/// The instructions of these families that take no opaque type name: ptxas 13.5 "Unexpected
/// instruction types specified for 'shl'" for `shl.b32.surfref`, `mul.lo.s32.texref`,
/// `bar.sync.texref`, `nanosleep.u32.texref` (the form matcher lets `.texref`, `.samplerref`
/// and `.surfref` pass everywhere, as `ld`, `atom` and `fma` ignore them).
fn opaque_type(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    const FAMILY: &[&str] = &[
        "mad",
        "mul24",
        "mad24",
        "sad",
        "div",
        "rem",
        "popc",
        "clz",
        "bfind",
        "fns",
        "brev",
        "bfe",
        "bfi",
        "szext",
        "bmsk",
        "dp4a",
        "dp2a",
        "addc",
        "subc",
        "madc",
        "testp",
        "copysign",
        "selp",
        "slct",
        "and",
        "or",
        "xor",
        "not",
        "cnot",
        "lop3",
        "shf",
        "shl",
        "shr",
        "prmt",
        "vadd",
        "vsub",
        "vabsdiff",
        "vmin",
        "vmax",
        "vshl",
        "vshr",
        "vmad",
        "vset",
        "vadd2",
        "vsub2",
        "vavrg2",
        "vabsdiff2",
        "vmin2",
        "vmax2",
        "vset2",
        "vadd4",
        "vsub4",
        "vavrg4",
        "vabsdiff4",
        "vmin4",
        "vmax4",
        "vset4",
        "bra",
        "ret",
        "exit",
        "bar",
        "barrier",
        "vote",
        "match",
        "shfl",
        "redux",
        "activemask",
        "nanosleep",
        "brkpt",
        "trap",
        "pmevent",
        "setmaxnreg",
        "mul",
        "add",
        "sub",
        "fma",
    ];
    if !FAMILY.contains(&info.words[0]) || ignores_extra_type(info) {
        return;
    }
    let Some(at) = info.words[1..]
        .iter()
        .position(|w| matches!(*w, "texref" | "samplerref" | "surfref"))
    else {
        return;
    };
    // The matcher's warning that ptxas ignores it is wrong here.
    drop_ignored_warnings(ctx, info);
    ctx.report(
        Diagnostic::error(
            "invalid-qualifier",
            info.word_range(at + 1),
            format!(
                "`{}` takes no opaque type `.{}`",
                info.opcode_text(),
                info.words[at + 1]
            ),
        )
        .section(
            info.resolved
                .outcome
                .matches
                .first()
                .map_or(String::new(), |m| m.instruction.section.clone()),
        ),
    );
}

/// A feature of an instruction that needs more than the instruction itself:
/// (opcode, the instruction type (last qualifier) it applies to or `""`, qualifiers that must
/// all be written, operand count or 0, since, targets, spec section, name in messages).
type FeatureRule = (
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
    usize,
    &'static str,
    &'static str,
    &'static str,
);

const BF16: &[&str] = &["bf16", "bf16x2"];

/// Confirmed with ptxas 13.5, whose messages name these features ("Feature 'add.bf16'
/// requires .target sm_90 or higher", "Feature '.bf16' requires .target sm_80 or higher",
/// "Feature 'min.f32 with 3 input operands' requires PTX ISA .version 8.8").
const FEATURES: &[FeatureRule] = &[
    // Every bf16 operation needs sm_80 (9.7.4: the Target ISA notes of each instruction).
    ("fma", BF16, &[], 0, "7.0", "sm_80+", "9.7.4.4"),
    ("neg", BF16, &[], 0, "7.0", "sm_80+", "9.7.4.5"),
    ("abs", BF16, &[], 0, "7.0", "sm_80+", "9.7.4.6"),
    ("min", BF16, &[], 0, "7.0", "sm_80+", "9.7.4.7"),
    ("max", BF16, &[], 0, "7.0", "sm_80+", "9.7.4.8"),
    // The bf16 add/sub/mul, tanh, ex2 and comparisons came with PTX 7.8 and sm_90.
    ("add", BF16, &[], 0, "7.8", "sm_90+", "9.7.4.1"),
    ("sub", BF16, &[], 0, "7.8", "sm_90+", "9.7.4.2"),
    ("mul", BF16, &[], 0, "7.8", "sm_90+", "9.7.4.3"),
    ("tanh", BF16, &[], 0, "7.8", "sm_90+", "9.7.4.9"),
    ("ex2", BF16, &[], 0, "7.8", "sm_90+", "9.7.4.10"),
    ("set", BF16, &[], 0, "7.8", "sm_90+", "9.7.7.1"),
    ("setp", BF16, &[], 0, "7.8", "sm_90+", "9.7.7.2"),
    // `fma.relu` of halves needs sm_80 ("Modifier '.relu' requires .target sm_80").
    ("fma", &[], &["relu"], 0, "7.0", "sm_80+", "9.7.4.4"),
    // Integer `min/max.relu` (PTX 8.0, sm_90).
    ("min", &[], &["relu"], 0, "8.0", "sm_90+", "9.7.1.12"),
    ("max", &[], &["relu"], 0, "8.0", "sm_90+", "9.7.1.13"),
    // `min/max.abs.f32` (with or without `.xorsign`): PTX 7.2, sm_86.
    ("min", &["f32"], &["abs"], 0, "7.2", "sm_86+", "9.7.3.11"),
    ("max", &["f32"], &["abs"], 0, "7.2", "sm_86+", "9.7.3.12"),
    // Three-input `min/max.f32 d, a, b, c`: PTX 8.8, sm_100.
    ("min", &["f32"], &[], 4, "8.8", "sm_100+", "9.7.3.11"),
    ("max", &["f32"], &[], 4, "8.8", "sm_100+", "9.7.3.12"),
    // `lop3.BoolOp` with a predicate output: PTX 8.2, sm_70.
    ("lop3", &[], &["or"], 0, "8.2", "sm_70+", "9.7.8.6"),
    ("lop3", &[], &["and"], 0, "8.2", "sm_70+", "9.7.8.6"),
    // The `.cta` spelling of the CTA barriers: PTX 7.8 ("Feature 'bar.cta' requires PTX ISA
    // .version 7.8").
    ("bar", &[], &["cta"], 0, "7.8", "all", "9.7.13.1"),
    ("barrier", &[], &["cta"], 0, "7.8", "all", "9.7.13.1"),
    // The memory-ordering modifiers of `barrier.cluster`: PTX 8.0 ("Modifier '.acquire' on
    // 'barrier.cluster.wait' requires PTX ISA .version 8.0").
    (
        "barrier",
        &[],
        &["cluster", "acquire"],
        0,
        "8.0",
        "all",
        "9.7.13.3",
    ),
    (
        "barrier",
        &[],
        &["cluster", "release"],
        0,
        "8.0",
        "all",
        "9.7.13.3",
    ),
    (
        "barrier",
        &[],
        &["cluster", "relaxed"],
        0,
        "8.0",
        "all",
        "9.7.13.3",
    ),
];

fn features(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let opcode = info.words[0];
    if !FEATURES.iter().any(|rule| rule.0 == opcode) {
        return;
    }
    let Some(first) = info.resolved.outcome.matches.first() else {
        return;
    };
    let version = ctx.version.unwrap_or(PtxVersion::new(99, 9));
    let owned: Vec<String> = ctx.targets.iter().map(|t| t.name.clone()).collect();
    let targets: Vec<&str> = owned.iter().map(String::as_str).collect();
    // The instruction itself unavailable: availability reports that.
    if !first.instruction.floor.check(version, &targets).is_empty() {
        return;
    }
    let mut unmet_since = None;
    let mut unmet_target: Option<(&str, &str)> = None;
    let mut section = "";
    for &(rule_opcode, types, qualifiers, operands, since, target, rule_section) in FEATURES {
        if rule_opcode != opcode
            || (!types.is_empty() && !info.words[1..].iter().any(|w| types.contains(w)))
            || !qualifiers.iter().all(|q| info.has(q))
            || (operands != 0 && info.operands.len() != operands)
        {
            continue;
        }
        let requirement = Requirement::floor(since, target);
        for unmet in requirement.check(version, &targets) {
            match unmet {
                ptx_isa::Unmet::Version { needed } => {
                    if unmet_since.is_none_or(|v| v < needed) {
                        unmet_since = Some(needed);
                        section = rule_section;
                    }
                }
                ptx_isa::Unmet::Target { .. } => {
                    // The strictest target floor is the one to name (the rules list the
                    // older floors first).
                    unmet_target = Some((target, rule_section));
                }
                ptx_isa::Unmet::Removed { .. } => {}
            }
        }
    }
    let subject = feature_name(info);
    if let Some(needed) = unmet_since {
        ctx.report(
            Diagnostic::error(
                "version-too-old",
                info.opcode_range(),
                format!(
                    "`{subject}` needs `.version {needed}` or newer (this file has .version {})",
                    ctx.version.map_or("?".to_owned(), |v| v.to_string())
                ),
            )
            .section(section),
        );
    }
    if let Some((target, rule_section)) = unmet_target {
        let needed = TargetReq::parse(target).unwrap_or_default();
        ctx.report(
            Diagnostic::error(
                "unsupported-target",
                info.opcode_range(),
                format!(
                    "`{subject}` needs .target {} (this file targets {})",
                    crate::util::describe_targets(&needed),
                    ctx.sm_target().unwrap_or("nothing")
                ),
            )
            .section(rule_section),
        );
    }
}

/// The feature's name in messages: the opcode with the qualifiers that matter.
fn feature_name(info: &InstInfo<'_>) -> String {
    let opcode = info.words[0];
    let ty = info.words[1..]
        .iter()
        .find(|w| BF16.contains(w))
        .or(info.words.last())
        .copied()
        .unwrap_or("");
    if opcode == "lop3" {
        return "lop3.BoolOp".to_owned();
    }
    if opcode == "barrier" && info.has("cluster") {
        if let Some(sem) = ["acquire", "release", "relaxed"]
            .iter()
            .find(|q| info.has(q))
        {
            return format!("barrier.cluster.{sem}");
        }
    }
    if (opcode == "min" || opcode == "max") && ty == "f32" && info.operands.len() == 4 {
        return format!("{opcode}.f32 with three inputs");
    }
    for q in ["relu", "abs", "cta"] {
        if info.has(q) && !BF16.contains(&ty) {
            return format!("{opcode}.{q}");
        }
    }
    format!("{opcode}.{ty}")
}

/// The byte or half-word selector of a register operand (`%r1.b0`, `%r2.h10`).
fn selector<'a>(op: &Operand<'a>) -> Option<&'a str> {
    match op.kind() {
        OperandKind::Component { component, .. } => Some(component.trim_start_matches('.')),
        _ => None,
    }
}

fn report_selector(ctx: &mut Ctx<'_>, op: &Operand<'_>, message: String, section: &str) {
    ctx.report(Diagnostic::error("invalid-qualifier", op.range(), message).section(section));
}

/// The selectors of the scalar video instructions' sources: `.b0`…`.b3`, `.h0`, `.h1`.
const SCALAR_SELECTORS: &[&str] = &["b0", "b1", "b2", "b3", "h0", "h1"];
/// Their destination selectors: ptxas 13.5 also takes the byte pairs `.b01`, `.b12`, `.b23`
/// there (and stops with an internal error for them on a source).
const SCALAR_DESTINATIONS: &[&str] = &["b0", "b1", "b2", "b3", "h0", "h1", "b01", "b12", "b23"];

/// Scalar video instructions (9.7.18.1): `vop… d{.dsel}, a{.asel}, b{.bsel}{, c}`.
fn scalar_video(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    const SECTION: &str = "9.7.18.1";
    let opcode = info.opcode_text().to_owned();
    // The secondary operation (`.add`, `.min`, `.max`) of the forms with a `c` operand.
    let secondary = ["add", "min", "max"].iter().any(|q| info.has(q));
    for (index, op) in info.operands.iter().enumerate() {
        let inner = match op.kind() {
            // `vmad` takes `-a`, `-b`.
            OperandKind::Expression => op
                .expression()
                .and_then(|e| match e {
                    ptx_syntax::Expression::Unary { operand, .. } => Some(operand),
                    _ => None,
                })
                .unwrap_or(*op),
            _ => *op,
        };
        let Some(sel) = selector(&inner) else {
            continue;
        };
        match index {
            0 => {
                if info.words[0] == "vmad" || info.operands.len() < 4 {
                    report_selector(
                        ctx,
                        &inner,
                        format!("`{opcode}` takes no selector on its destination here (`.{sel}`); a destination selector needs the merge operand `c`"),
                        SECTION,
                    );
                } else if secondary {
                    report_selector(
                        ctx,
                        &inner,
                        format!("`{opcode}` has a secondary operation: its destination takes no selector (`.{sel}`)"),
                        SECTION,
                    );
                } else if !SCALAR_DESTINATIONS.contains(&sel) {
                    report_selector(
                        ctx,
                        &inner,
                        format!("`.{sel}` is not a destination selector; expected one of .b0, .b1, .b2, .b3, .h0, .h1"),
                        SECTION,
                    );
                }
            }
            1 | 2 => {
                if !SCALAR_SELECTORS.contains(&sel) {
                    report_selector(
                        ctx,
                        &inner,
                        format!("`.{sel}` is not a source selector of `{opcode}`; expected one of .b0, .b1, .b2, .b3, .h0, .h1"),
                        SECTION,
                    );
                }
            }
            _ => report_selector(
                ctx,
                &inner,
                format!("the third source `c` of `{opcode}` takes no selector (`.{sel}`)"),
                SECTION,
            ),
        }
    }
}

/// SIMD video instructions (9.7.18.2): `vop2… d{.mask}, a{.asel}, b{.bsel}, c` with half-word
/// selectors `.hxy` (x, y in 0–3) and masks `.h0`, `.h1`, `.h10`; `vop4…` with byte selectors
/// `.bxyzw` (digits 0–7) and masks of distinct bytes 3–0 in descending order (`.b3210`, `.b31`,
/// `.b0`). The sources are registers: ptxas 13.5 rejects a constant for `a`, `b` or `c`
/// ("Incorrect video selector for operand N"), unlike the scalar forms.
fn simd_video(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, lanes: usize) {
    const SECTION: &str = "9.7.18.2";
    let opcode = info.opcode_text().to_owned();
    for (index, op) in info.operands.iter().enumerate() {
        if index > 0
            && matches!(
                op.kind(),
                OperandKind::Integer(_) | OperandKind::Float(_) | OperandKind::Expression
            )
        {
            ctx.report(
                Diagnostic::error(
                    "operand-kind",
                    op.range(),
                    format!(
                        "the sources of `{opcode}` are registers, not constants (`{}`)",
                        op.text()
                    ),
                )
                .section(SECTION),
            );
            continue;
        }
        let Some(sel) = selector(op) else { continue };
        let ok = match (index, lanes) {
            (0, 2) => matches!(sel, "h0" | "h1" | "h10"),
            (0, _) => sel
                .strip_prefix('b')
                .is_some_and(|d| !d.is_empty() && strictly_descending(d, '3')),
            (1 | 2, 2) => sel
                .strip_prefix('h')
                .is_some_and(|d| d.len() == 2 && d.chars().all(|c| ('0'..='3').contains(&c))),
            (1 | 2, _) => sel
                .strip_prefix('b')
                .is_some_and(|d| d.len() == 4 && d.chars().all(|c| ('0'..='7').contains(&c))),
            _ => {
                report_selector(
                    ctx,
                    op,
                    format!("the third source `c` of `{opcode}` takes no selector (`.{sel}`)"),
                    SECTION,
                );
                continue;
            }
        };
        if !ok {
            let expected = match (index, lanes) {
                (0, 2) => "a mask .h0, .h1 or .h10",
                (0, _) => "a mask of bytes 3 to 0 in descending order (.b3210, .b31, .b0)",
                (_, 2) => "a half-word selector .hxy with x, y in 0-3",
                _ => "a byte selector .bxyzw with x, y, z, w in 0-7",
            };
            report_selector(
                ctx,
                op,
                format!(
                    "`.{sel}` does not fit operand {} of `{opcode}`; expected {expected}",
                    index + 1
                ),
                SECTION,
            );
        }
    }
}

/// Digits strictly descending, none above `max`.
fn strictly_descending(digits: &str, max: char) -> bool {
    let mut previous = char::from_u32(max as u32 + 1).unwrap_or('9');
    for c in digits.chars() {
        if !c.is_ascii_digit() || c >= previous {
            return false;
        }
        previous = c;
    }
    true
}

/// `lop3.b32 d, a, b, c, immLut` and `lop3.BoolOp.b32 d|p, a, b, c, immLut, q` (9.7.8.6): the
/// look-up table is a constant; the BoolOp form writes a predicate output and the plain form
/// none (ptxas 13.5: "Arguments mismatch", "Predicate output expected", "Predicate output
/// not allowed for instruction 'lop3'").
fn lop3(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    const SECTION: &str = "9.7.8.6";
    if let Some(op) = info.operands.get(4) {
        needs_constant(ctx, info, scope, 4, op, SECTION);
        if let OperandKind::Float(text) = op.kind() {
            ctx.report(
                Diagnostic::error(
                    "operand-type",
                    op.range(),
                    format!(
                        "the look-up table of `{}` is an integer constant, not `{text}`",
                        info.opcode_text()
                    ),
                )
                .section(SECTION),
            );
        }
    }
    let boolean = info.has("or") || info.has("and");
    let Some(d) = info.operands.first() else {
        return;
    };
    let pair = matches!(d.kind(), OperandKind::Pair);
    if boolean && !pair {
        ctx.report(
            Diagnostic::error(
                "operand-kind",
                d.range(),
                format!(
                    "`{}` writes a value and a predicate: `d|p`",
                    info.opcode_text()
                ),
            )
            .section(SECTION),
        );
    } else if !boolean && pair {
        ctx.report(
            Diagnostic::error(
                "operand-kind",
                d.range(),
                format!(
                    "`{}` has no predicate output; `d|p` needs `.or` or `.and`",
                    info.opcode_text()
                ),
            )
            .section(SECTION),
        );
    }
}

fn needs_constant(
    ctx: &mut Ctx<'_>,
    info: &InstInfo<'_>,
    scope: &Scope<'_>,
    index: usize,
    op: &Operand<'_>,
    section: &str,
) {
    // A register written with `%` or without (an identifier that names a register).
    let register = match op.kind() {
        OperandKind::Register(_) | OperandKind::Component { .. } => true,
        OperandKind::Identifier(name) => symbol_of(scope, name, SymbolKind::Register).is_some(),
        _ => false,
    };
    if register {
        ctx.report(
            Diagnostic::error(
                "operand-kind",
                op.range(),
                format!(
                    "operand {} of `{}` is a constant, not a register (`{}`)",
                    index + 1,
                    info.opcode_text(),
                    op.text()
                ),
            )
            .section(section),
        );
    }
}

/// The thread count `b` of `bar/barrier.sync|arrive|red` (9.7.13.1) is a multiple of the
/// warp size when it is a constant (ptxas 13.5: "Number of threads participating in barrier
/// must be in multiple of warp size"; 0 is accepted).
fn barrier_thread_count(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let n = info.operands.len();
    let index = if info.has("red") {
        // `d, a, b, c` (the count is the third operand) or `d, a, c`.
        (n == 4).then_some(2)
    } else if info.has("sync") || info.has("arrive") {
        (n == 2).then_some(1)
    } else {
        None
    };
    let Some(op) = index.and_then(|i| info.operands.get(i)) else {
        return;
    };
    if let Some(value) = op.integer_value() {
        if value % 32 != 0 {
            ctx.report(
                Diagnostic::error(
                    "immediate-range",
                    op.range(),
                    format!(
                        "the thread count of `{}` is a multiple of the warp size (32), not {value}",
                        info.opcode_text()
                    ),
                )
                .section("9.7.13.1"),
            );
        }
    }
}

/// Qualifiers that name a variant of the instruction (`mul.lo`, `mul.wide`, `shf.l`, `dp2a.hi`)
/// come first: ptxas 13.5 reads them as part of the instruction's name ("Unexpected
/// instruction types specified for 'mul'" for `mul.u32.lo`, "Not a name of any known
/// instruction: 'shf'" for `shf.clamp.r.b32`).
fn leading_qualifier(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, variants: &[&str], section: &str) {
    leading_at(ctx, info, variants, 1, section);
}

fn leading_at(
    ctx: &mut Ctx<'_>,
    info: &InstInfo<'_>,
    variants: &[&str],
    place: usize,
    section: &str,
) {
    let Some(at) = info.words.iter().position(|w| variants.contains(w)) else {
        return;
    };
    if at != place {
        ctx.report(
            Diagnostic::error(
                "invalid-qualifier",
                info.word_range(at),
                format!(
                    "`.{}` names the variant of `{}`: write it right after `{}`",
                    info.words[at],
                    info.words[0],
                    info.words[..place].join(".")
                ),
            )
            .section(section),
        );
    }
}

/// Mixed precision `add/sub/fma….f32.atype` (9.7.5): the `.f32` destination type comes
/// first (ptxas 13.5: "Unexpected instruction types specified for 'add'" for
/// `add.rn.f16.f32`).
fn mixed_precision_order(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let position = |names: &[&str]| info.words.iter().position(|w| names.contains(w));
    let (Some(wide), Some(narrow)) = (position(&["f32"]), position(&["f16", "bf16"])) else {
        return;
    };
    if narrow < wide {
        ctx.report(
            Diagnostic::error(
                "invalid-qualifier",
                info.word_range(wide),
                format!(
                    "mixed precision `{}` writes the `.f32` result type before `.{}`",
                    info.opcode_text(),
                    info.words[narrow]
                ),
            )
            .section("9.7.5"),
        );
    }
}

/// `testp.op.type p, a` (9.7.3.1) tests one class (ptxas 13.5: "Multiple testp operation
/// modifiers specified").
fn testp_classes(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    const CLASSES: &[&str] = &[
        "finite",
        "infinite",
        "number",
        "notanumber",
        "normal",
        "subnormal",
    ];
    let written: Vec<usize> = (1..info.words.len())
        .filter(|&i| CLASSES.contains(&info.words[i]))
        .collect();
    if let Some(&second) = written.get(1) {
        // The form matcher, finding the class optional, calls the extra classes ignored:
        // they are an error instead.
        drop_ignored_warnings(ctx, info);
        ctx.report(
            Diagnostic::error(
                "exclusive-qualifiers",
                info.word_range(second),
                format!(
                    "`{}` tests one class; `.{}` and `.{}` both name one",
                    info.opcode_text(),
                    info.words[written[0]],
                    info.words[second]
                ),
            )
            .section("9.7.3.1"),
        );
    }
}

/// `bfe.type d, a, b, c` and `bfi.type f, a, b, c, d` (9.7.1.19–20): a constant position or
/// length is 0 to 255 (ptxas 13.5: "Argument 2 of instruction 'bfe': value '256' out of
/// range, expected to be in range [0..255]"; larger register values are clamped instead).
fn field_bounds(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, first: usize, section: &str) {
    for index in [first, first + 1] {
        let Some(op) = info.operands.get(index) else {
            continue;
        };
        let Some(value) = op.integer_value() else {
            continue;
        };
        if !(0..=255).contains(&value) {
            ctx.report(
                Diagnostic::error(
                    "immediate-range",
                    op.range(),
                    format!(
                        "the {} of `{}` is 0 to 255 when it is a constant, not {value}",
                        if index == first {
                            "bit position"
                        } else {
                            "field length"
                        },
                        info.opcode_text()
                    ),
                )
                .section(section),
            );
        }
    }
}

/// `set/setp.CmpOp.BoolOp….bf16… d, a, b, {!}c` (9.7.7.1–2): with a bf16 type the predicate
/// `c` is a register; ptxas 13.5 rejects a constant there ("Arguments mismatch"), which it
/// takes for the other types (`setp.eq.and.f16 p, a, b, 1`).
fn bf16_predicate_source(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    if !info.words[1..].iter().any(|w| BF16.contains(w)) {
        return;
    }
    if !["and", "or", "xor"].iter().any(|q| info.has(q)) {
        return;
    }
    let Some(op) = info.operands.last().filter(|_| info.operands.len() == 4) else {
        return;
    };
    if op.integer_value().is_some() {
        ctx.report(
            Diagnostic::error(
                "operand-kind",
                op.range(),
                format!(
                    "the predicate `c` of `{}` is a register here, not the constant `{}`",
                    info.opcode_text(),
                    op.text()
                ),
            )
            .section(if info.words[0] == "set" {
                "9.7.7.1"
            } else {
                "9.7.7.2"
            }),
        );
    }
}

/// Forgets the "ignored qualifier" warnings of this instruction (the last ones reported).
fn drop_ignored_warnings(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let start = info.opcode_range().start;
    let mut first = ctx.diagnostic_count();
    while first > 0 && ctx.diagnostics_since(first - 1)[0].range.start >= start {
        first -= 1;
    }
    let kept: Vec<Diagnostic> = ctx
        .diagnostics_since(first)
        .iter()
        .filter(|d| d.code != "ignored-qualifier")
        .cloned()
        .collect();
    ctx.truncate_diagnostics(first);
    ctx.extend(kept);
}

#[cfg(test)]
mod tests {
    use crate::test_support::check_diagnostics;

    /// Each rejected line is "Incorrect video selector", "Video selector is not allowed on
    /// 'source C' operand" or "Video instruction cannot have destination selector and
    /// secondary operation" for ptxas 13.5; the others assemble.
    #[test]
    fn video_selectors() {
        check_diagnostics(
            r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<8>;
  vadd.u32.u32.u32 %r1.h1, %r2.b3, %r3.h0, %r4;
  vadd.u32.u32.u32 %r1, %r2.b4, %r3;
//                      ^^^^^^ error: `.b4` is not a source selector of `vadd.u32.u32.u32`; expected one of .b0, .b1, .b2, .b3, .h0, .h1
  vadd.u32.u32.u32.add %r1.b0, %r2, %r3, %r4;
//                     ^^^^^^ error: `vadd.u32.u32.u32.add` has a secondary operation: its destination takes no selector (`.b0`)
  vmad.u32.u32.u32 %r1, %r2, -%r3.b2, %r4.b0;
//                                    ^^^^^^ error: the third source `c` of `vmad.u32.u32.u32` takes no selector (`.b0`)
  vadd2.u32.u32.u32 %r1.h10, %r2.h33, %r3.h00, %r4;
  vadd2.u32.u32.u32 %r1.h01, %r2, %r3, %r4;
//                  ^^^^^^^ error: `.h01` does not fit operand 1 of `vadd2.u32.u32.u32`; expected a mask .h0, .h1 or .h10
  vadd4.u32.u32.u32 %r1.b31, %r2.b7654, %r3.b0000, %r4;
  vadd4.u32.u32.u32 %r1, %r2.b012, %r3, %r4;
//                       ^^^^^^^^ error: `.b012` does not fit operand 2 of `vadd4.u32.u32.u32`; expected a byte selector .bxyzw with x, y, z, w in 0-7
  vset2.u32.u32.eq %r1, %r2, %r3, 0;
//                                ^ error: the sources of `vset2.u32.u32.eq` are registers, not constants (`0`)
  vadd.u32.u32.u32 %r1, 7, %r3.b1;
  ret;
}
"#,
        );
    }

    /// ptxas 13.5: "Feature 'add.bf16' requires .target sm_90 or higher", "Feature 'min.f32
    /// with 3 input operands' requires .target sm_100", "Feature 'min.relu' requires …",
    /// "Feature 'lop3.<BoolOp>' requires PTX ISA .version 8.2"; `fma.rn.bf16` is sm_80's.
    #[test]
    fn feature_floors() {
        check_diagnostics(
            r#"
.version 8.0
.target sm_80
.address_size 64
.visible .entry k()
{
  .reg .b16 %h<8>;
  .reg .b32 %r<8>;
  .reg .f32 %f<8>;
  .reg .pred %p<4>;
  fma.rn.bf16 %h1, %h2, %h3, %h4;
  add.bf16 %h1, %h2, %h3;
//^^^^^^^^ error: `add.bf16` needs .target sm_90 or newer (this file targets sm_80)
  setp.eq.bf16x2 %p1|%p2, %r1, %r2;
//^^^^^^^^^^^^^^ error: `setp.bf16x2` needs .target sm_90 or newer (this file targets sm_80)
  min.f32 %f1, %f2, %f3, %f4;
//^^^^^^^ error: `min.f32 with three inputs` needs .target sm_100 or newer (this file targets sm_80)
  max.relu.s32 %r1, %r2, %r3;
//^^^^^^^^^^^^ error: `max.relu` needs .target sm_90 or newer (this file targets sm_80)
  lop3.or.b32 %r1|%p1, %r2, %r3, %r4, 0x96, %p2;
//^^^^^^^^^^^ error: `lop3.BoolOp` needs `.version 8.2` or newer (this file has .version 8.0)
  ret;
}
"#,
        );
    }

    /// Confirmed with ptxas 13.5: "Arguments mismatch", "Predicate output expected / not
    /// allowed for instruction 'lop3'", "Number of threads participating in barrier must be
    /// in multiple of warp size", "Not a name of any known instruction: 'madc'".
    #[test]
    fn operands_and_orders() {
        check_diagnostics(
            r#"
.version 8.6
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<8>;
  .reg .pred %p<4>;
  lop3.b32 %r1, %r2, %r3, %r4, %r5;
//                             ^^^ error: operand 5 of `lop3.b32` is a constant, not a register (`%r5`)
  lop3.b32 %r1|%p1, %r2, %r3, %r4, 0x96;
//         ^^^^^^^ error: `lop3.b32` has no predicate output; `d|p` needs `.or` or `.and`
  lop3.and.b32 %r1, %r2, %r3, %r4, 0x96, %p2;
//             ^^^ error: `lop3.and.b32` writes a value and a predicate: `d|p`
  bar.sync 1, 64;
  bar.sync 1, 33;
//            ^^ error: the thread count of `bar.sync` is a multiple of the warp size (32), not 33
  madc.hi.cc.u32 %r1, %r2, %r3, %r4;
  madc.cc.lo.u32 %r1, %r2, %r3, %r4;
//       ^^^ error: `.lo` names the variant of `madc`: write it right after `madc`
  pmevent %r1;
//        ^^^ error: operand 1 of `pmevent` is a constant, not a register (`%r1`)
  ret;
}
"#,
        );
    }

    /// ptxas 13.5: "Unexpected instruction types specified for 'mul'" (`mul.u32.lo`), "Not a
    /// name of any known instruction: 'shf'" (`shf.clamp.r.b32`), "Feature 'bar.cta' requires
    /// PTX ISA .version 7.8", "Multiple testp operation modifiers specified", "Argument 2 of
    /// instruction 'bfe': value '256' out of range"; the others assemble.
    #[test]
    fn orders_and_bounds() {
        check_diagnostics(
            r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<8>;
  .reg .f32 %f<8>;
  .reg .pred %p<4>;
  mul.lo.u32 %r1, %r2, %r3;
  mul.u32.lo %r1, %r2, %r3;
//       ^^^ error: `.lo` names the variant of `mul`: write it right after `mul`
  shf.clamp.r.b32 %r1, %r2, %r3, 16;
//         ^^ error: `.r` names the variant of `shf`: write it right after `shf`
  bar.cta.sync 1, 128;
//^^^^^^^^^^^^ error: `bar.cta` needs `.version 7.8` or newer (this file has .version 7.0)
  testp.finite.normal.f32 %p1, %f1;
//            ^^^^^^^ error: `testp.finite.normal.f32` tests one class; `.finite` and `.normal` both name one
  testp.f32 %p1, %f1;
  bfe.u32 %r1, %r2, 255, 255;
  bfe.u32 %r1, %r2, 256, 8;
//                  ^^^ error: the bit position of `bfe.u32` is 0 to 255 when it is a constant, not 256
  vset.u32.u32.eq %r1.b12, %r2, %r3, %r4;
  setp.gtu.f32.ftz %p1, %f1, %f2;
  add.pred.f32 %f1, %f2, %f3;
  setp.pred.eq.s32 %p1, %r1, %r2;
  add.s32.texref %r1, %r2, %r3;
//       ^^^^^^^ warning: `.texref` means nothing to `add`; ptxas ignores it
  shl.b32.texref %r1, %r2, 1;
//       ^^^^^^^ error: `shl.b32.texref` takes no opaque type `.texref`
  and.pred.b32 %r1, %r2, %r3;
//        ^^^^ error: `.b32` and `.pred` both fill `.type`; write only one of them
  ret;
}
"#,
        );
    }
}
