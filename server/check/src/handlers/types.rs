//! Register and constant types against the instruction type (PTX ISA 6.1 "Operand Type
//! Information" and 9.4.1 "Operand Size Exceeding Instruction-Type Size", Tables 27–28).
//!
//! Two rule sets, both confirmed with ptxas fixtures:
//! * exact: the register has the instruction type's size; a bit-size type on either side
//!   fits any type of that size, integer types fit each other, floats fit floats;
//! * relaxed (`ld`, `st`, `ldu`, `cvt` data operands): the register may be wider, except that
//!   a float register with a float instruction type must match exactly.
//!
//! Only instructions whose operand typing is plain (every operand has the instruction type,
//! or a known pattern such as `setp`/`selp`) are checked: precision over recall.

use ptx_syntax::{Operand, OperandKind};

use super::operand_types::{
    address_fits, any_symbol, declared_type, exact_fits, named_symbol, plain_name,
    plain_register_type, register_ty, relaxed_fits, symbol_of, type_name, wanted, Kind, Ty,
};
use crate::context::{Ctx, InstInfo};
use crate::scope::{Scope, SymbolKind};
use crate::Diagnostic;

/// How an instruction's operands are typed.
enum Pattern {
    /// Every operand has the instruction type.
    AllSame,
    /// Operands at these indices have the type; `preds` must be predicates.
    Some {
        typed: &'static [usize],
        preds: &'static [usize],
    },
    /// Operands at `typed` have the type, those at `words` are 32-bit integers (bit counts,
    /// positions and lengths: `popc.b64 d, a` has a .u32 `d`, `bfe.u64 d, a, b, c` .u32 `b`,
    /// `c`; 9.7.1.14–20).
    Counts {
        typed: &'static [usize],
        words: &'static [usize],
    },
    /// Two instruction types `.t1.t2`: `first` operands have t1, `second` ones t2 (`set.eq.u32.f32
    /// d, a, b`, mixed precision `add.f32.f16 d, a, c`, `fma.rn.f32.bf16 d, a, b, c`).
    Pair {
        first: &'static [usize],
        second: &'static [usize],
    },
    /// Operands at these indices have these types (named as qualifiers: `b64`, `pred`).
    Typed(&'static [(usize, &'static str)]),
    /// `ld`/`ldu`/`st`: the data operand at this index, relaxed rules.
    Data(usize),
    /// `cvt.dtype.atype d, a`, relaxed rules.
    Convert,
    /// `mul.wide`/`mad.wide`: `d` (and `c` of mad) twice the instruction type, `a`, `b` of it.
    Wide,
}

fn pattern(info: &InstInfo<'_>) -> Option<Pattern> {
    let has = |w: &str| info.has(w);
    let types = info.words[1..]
        .iter()
        .filter(|w| Ty::parse(w).is_some())
        .count();
    // Mixed precision (9.7.5): `add/sub.f32.atype d, a, c` and `fma.rn.f32.atype d, a, b, c`.
    // The rounding mode may sit between the two types (`sub.f32.rn.bf16`).
    let first_type = info.words[1..].iter().find(|w| Ty::parse(w).is_some());
    if types == 2 && first_type == Some(&"f32") {
        match info.words[0] {
            "add" | "sub" => {
                return Some(Pattern::Pair {
                    first: &[0, 2],
                    second: &[1],
                })
            }
            "fma" => {
                return Some(Pattern::Pair {
                    first: &[0, 3],
                    second: &[1, 2],
                })
            }
            _ => {}
        }
    }
    Some(match info.words[0] {
        "add" | "sub" | "min" | "max" | "and" | "or" | "xor" | "not" | "cnot" | "neg" | "abs"
        | "div" | "rem" | "fma" | "rcp" | "sqrt" | "rsqrt" | "copysign" => Pattern::AllSame,
        // `.wide` doubles the destination's size.
        "mul" | "mad" if has("wide") => Pattern::Wide,
        "mul" | "mad" => Pattern::AllSame,
        // `atom` and `red` (9.7.13.5-6) type their data by tables of their own (ptxas takes
        // `.f16x2` registers for `.u32` data, integer registers in `.f32` vectors): see
        // `handlers/atomics.rs`.
        "atom" => return None,
        "red" if !has("async") => return None,
        "mov" => Pattern::AllSame,
        "brev" => Pattern::AllSame,
        // 9.7.1.5-7, 9.7.2, 9.7.3.18-22, 9.7.4.9-10, 9.7.17, 9.7.9.20: one type throughout.
        "sad" | "addc" | "subc" | "madc" | "mul24" | "mad24" | "tanh" | "sin" | "cos" | "lg2"
        | "ex2" | "stacksave" | "stackrestore" | "cvta" => Pattern::AllSame,
        "testp" => Pattern::Some {
            typed: &[1],
            preds: &[0],
        },
        "popc" | "clz" | "bfind" => Pattern::Counts {
            typed: &[1],
            words: &[0],
        },
        "bfe" => Pattern::Counts {
            typed: &[0, 1],
            words: &[2, 3],
        },
        "bfi" => Pattern::Counts {
            typed: &[0, 1, 2],
            words: &[3, 4],
        },
        // `dp4a/dp2a.atype.btype d, a, b, c`: 32-bit integers throughout (9.7.1.23-24).
        "dp4a" | "dp2a" => Pattern::Counts {
            typed: &[],
            words: &[0, 1, 2, 3],
        },
        // `set.CmpOp.dtype.stype d, a, b{, c}` (9.7.6.1).
        "set" if types == 2 => Pattern::Pair {
            first: &[0],
            second: &[1, 2],
        },
        // `slct.dtype.s32/f32 d, a, b, c` (9.7.6.4).
        "slct" if types == 2 => Pattern::Pair {
            first: &[0, 1, 2],
            second: &[3],
        },
        // `shl/shr.type d, a, b`: `b` is a .u32 shift amount whatever the type (9.7.8.8–9;
        // ptxas 13.5 "Arguments mismatch" for 16- and 64-bit, float and predicate registers).
        "shl" | "shr" => Pattern::Counts {
            typed: &[0, 1],
            words: &[2],
        },
        // `szext.mode.type d, a, b` (9.7.1.21): 32-bit integers throughout.
        "szext" => Pattern::AllSame,
        // `bmsk.mode.b32 d, a, b` (9.7.1.22): ptxas 13.5 takes integer and bit-size 32-bit
        // registers only (a `.f32` one or a float constant: "Arguments mismatch").
        "bmsk" => Pattern::Counts {
            typed: &[],
            words: &[0, 1, 2],
        },
        "setp" => Pattern::Some {
            typed: &[1, 2],
            preds: &[0, 3],
        },
        "selp" => Pattern::Some {
            typed: &[0, 1, 2],
            preds: &[3],
        },
        // Video instructions (9.7.18): every operand is a 32-bit integer register (a float,
        // 16- or 64-bit register or a predicate: ptxas "Arguments mismatch").
        "vadd" | "vsub" | "vabsdiff" | "vmin" | "vmax" | "vshl" | "vshr" | "vmad" | "vset"
        | "vadd2" | "vsub2" | "vavrg2" | "vabsdiff2" | "vmin2" | "vmax2" | "vset2" | "vadd4"
        | "vsub4" | "vavrg4" | "vabsdiff4" | "vmin4" | "vmax4" | "vset4" => Pattern::Counts {
            typed: &[],
            words: &[0, 1, 2, 3],
        },
        // mbarrier (9.7.13.15): the state is 64 bits, counts and the phase parity 32 bits,
        // the wait result a predicate.
        // They are integers: ptxas 13.5 rejects `.f32`/`.f64` registers and float constants
        // there ("Arguments mismatch"), which a bit-size type would let through.
        "mbarrier" => match info.words.get(1).copied().unwrap_or("") {
            "init" | "expect_tx" | "complete_tx" => Pattern::Typed(&[(1, "u32")]),
            "arrive" | "arrive_drop" => Pattern::Typed(&[(0, "u64"), (2, "u32")]),
            "test_wait" | "try_wait" if has("parity") => {
                Pattern::Typed(&[(0, "pred"), (2, "u32"), (3, "u32")])
            }
            "test_wait" | "try_wait" => Pattern::Typed(&[(0, "pred"), (2, "u64"), (3, "u32")]),
            "pending_count" => Pattern::Typed(&[(0, "u32"), (1, "u64")]),
            _ => return None,
        },
        // barrier/bar reductions and arrive (9.7.13.1): `barrier.red.popc.u32 d, a{, b}, {!}c`
        // and `barrier.red.op.pred p, a{, b}, {!}c`: the barrier and thread counts are 32-bit
        // integers (ptxas 13.5 "Arguments mismatch" for `.f32` registers and `0f…`), `c` a
        // predicate; `barrier.arrive a, b` takes two 32-bit counts.
        "bar" | "barrier" if has("red") => {
            let popc = has("popc");
            match (info.operands.len(), popc) {
                (4, true) => Pattern::Typed(&[(0, "u32"), (1, "u32"), (2, "u32"), (3, "pred")]),
                (4, false) => Pattern::Typed(&[(0, "pred"), (1, "u32"), (2, "u32"), (3, "pred")]),
                (3, true) => Pattern::Typed(&[(0, "u32"), (1, "u32"), (2, "pred")]),
                (3, false) => Pattern::Typed(&[(0, "pred"), (1, "u32"), (2, "pred")]),
                _ => return None,
            }
        }
        "bar" | "barrier" if has("arrive") => Pattern::Typed(&[(0, "u32"), (1, "u32")]),
        // `wmma.load/store… d, [p]{, stride}` (9.7.14.4.3–4): the stride is a 32-bit integer
        // (ptxas 13.5 "Arguments mismatch" for float, 16- and 64-bit registers).
        "wmma" if has("load") || has("store") => Pattern::Typed(&[(2, "u32")]),
        // movmatrix (9.7.14.5.17): both fragments are one 32-bit register.
        "movmatrix" => Pattern::Typed(&[(0, "b32"), (1, "b32")]),
        // Warp-level and miscellaneous instructions (9.7.8.6, 9.7.8.9, 9.7.13.8-14, 9.7.19,
        // 9.7.12.x): the typed operands have the instruction type's size exactly; masks, lanes
        // and counts are 32-bit integers. Confirmed with ptxas 13.5 ("Arguments mismatch").
        "lop3" | "activemask" | "nanosleep" | "fns" => Pattern::Some {
            typed: &[0, 1, 2, 3],
            preds: &[],
        },
        // `shf.mode.b32 d, a, b, c` (9.7.8.7): the shift amount `c` is a 32-bit integer (ptxas
        // 13.5 "Arguments mismatch" for a `.f32` register).
        "shf" => Pattern::Counts {
            typed: &[0, 1, 2],
            words: &[3],
        },
        "prmt" => Pattern::Some {
            typed: &[0, 1, 2, 3],
            preds: &[],
        },
        // `shfl.sync.mode.b32 d[|p], a, b, c, membermask` (9.7.8.6): `b` and `c` take any
        // 32-bit register or constant (ptxas 13.5 accepts `.f32` registers and `0f…` there),
        // the member mask an integer one.
        "shfl" => Pattern::Typed(&[(0, "b32"), (1, "b32"), (2, "b32"), (3, "b32"), (4, "u32")]),
        // `redux.sync.op.type d, a, membermask` (9.7.13.12): the integer forms take integer or
        // bit-size registers only (ptxas 13.5 rejects `.f32` ones even for `.b32`), the `.f32`
        // form float ones; the mask is a 32-bit integer.
        "redux" if has("f32") => Pattern::Counts {
            typed: &[0, 1],
            words: &[2],
        },
        "redux" => Pattern::Counts {
            typed: &[],
            words: &[0, 1, 2],
        },
        // `match.any.sync.type d, a, membermask` and `match.all.sync.type d{|p}, a, membermask`
        // (9.7.13.10): `d` is a 32-bit integer mask whatever the type, `p` a predicate.
        "match" => Pattern::Counts {
            typed: &[1],
            words: &[0, 2],
        },
        "mapa" => Pattern::Counts {
            typed: &[0, 1],
            words: &[2],
        },
        "getctarank" => Pattern::Counts {
            typed: &[1],
            words: &[0],
        },
        // `vote.sync.mode.pred d, {!}a, membermask` and `vote.sync.ballot.b32 d, {!}a,
        // membermask` (9.7.13.9): `a` is a predicate (or a constant), the mask a 32-bit
        // integer (ptxas 13.5 "Arguments mismatch" for `.f32`, `.b64` registers there).
        "vote" if has("ballot") => Pattern::Typed(&[(0, "b32"), (1, "pred"), (2, "u32")]),
        "vote" => Pattern::Typed(&[(0, "pred"), (1, "pred"), (2, "u32")]),
        // `createpolicy.range… d, [a], primary-size, total-size`: the sizes are 32-bit
        // (9.7.9.18; ptxas 13.5 "Arguments mismatch" for a predicate or 16-bit register).
        // The policy is a 64-bit integer (ptxas 13.5 rejects a `.f64` register).
        "createpolicy" if has("range") => Pattern::Typed(&[(0, "u64"), (2, "b32"), (3, "b32")]),
        "createpolicy" => Pattern::Typed(&[(0, "u64")]),
        "bar" | "barrier" if !has("red") => Pattern::Counts {
            typed: &[],
            words: &[0, 1],
        },
        // `multimem.ld_reduce/st/red` (9.7.9.14) type their data by the tables of
        // `handlers/atomics.rs` (8-bit float packs, integer registers in `.f32` vectors).
        "multimem" if has("ld_reduce") || has("st") || has("red") => return None,
        // `st.async… [a], b{, [mbar]}` (9.7.9.12): likewise exact, `.b8` data included.
        "st" if has("async") => Pattern::Some {
            typed: &[1],
            preds: &[],
        },
        // `multimem.cp{.reduce}.async.bulk… [dst], [src], size{, mask}` (9.7.9.26–27): the
        // size is a 32-bit integer (ptxas 13.5 rejects .f32, 16- and 64-bit registers).
        "multimem" if has("cp") => Pattern::Typed(&[(2, "u32")]),
        // `tcgen05.dealloc.cta_group.sync.aligned.b32 taddr, nCols`: both 32-bit.
        "tcgen05" if has("dealloc") => Pattern::Counts {
            typed: &[],
            words: &[0, 1],
        },
        "alloca" => Pattern::Some {
            typed: &[0, 1],
            preds: &[],
        },
        "ld" | "ldu" => Pattern::Data(0),
        "st" => Pattern::Data(1),
        "cvt" => Pattern::Convert,
        _ => return None,
    })
}

/// The instruction type: the last qualifier that is a fundamental type.
fn instruction_type(info: &InstInfo<'_>) -> Option<Ty> {
    // `prmt.b32.f4e`, `setp.gtu.f32.ftz`: modes may follow the type.
    info.words[1..].iter().rev().find_map(|w| Ty::parse(w))
}

pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    mixed_vector(ctx, info, scope);
    mov_vector_packing(ctx, info, scope);
    image_coordinates(ctx, info, scope);
    let Some(pattern) = pattern(info) else { return };
    let section = info.section();
    let checker = Checker {
        info,
        scope,
        isa: ctx.isa,
        address_64: ctx.address_size_64,
    };
    let mut problems = Vec::new();
    function_addresses(info, &pattern, scope, &mut problems);
    match pattern {
        Pattern::AllSame => {
            // Only when the last qualifier is the one type of the instruction (not `.f32.f16`
            // mixed forms) and no operand is a packed vector (`mov.b64 %rd, {%r1, %r2}`).
            let Some(ty) = instruction_type(info) else {
                return;
            };
            let types = info.words[1..]
                .iter()
                .filter(|w| Ty::parse(w).is_some())
                .count();
            // `mov.v4.u32` has its own rule (mov_vector_elements).
            if types != 1 || info.words[0] == "mov" && mov_vector_count(info).is_some() {
                return;
            }
            for (i, op) in info.operands.iter().enumerate() {
                checker.operand(i, op, ty, false, &mut problems);
            }
        }
        Pattern::Some { typed, preds } => {
            let Some(ty) = instruction_type(info) else {
                return;
            };
            for &i in typed {
                if let Some(op) = info.operands.get(i) {
                    checker.operand(i, op, ty, false, &mut problems);
                }
            }
            let pred = Ty {
                kind: Kind::Pred,
                bits: 1,
            };
            for &i in preds {
                if let Some(op) = info.operands.get(i) {
                    checker.operand(i, op, pred, false, &mut problems);
                }
            }
        }
        Pattern::Counts { typed, words } => {
            let word = Ty {
                kind: Kind::Unsigned,
                bits: 32,
            };
            let ty = instruction_type(info);
            for (i, op) in info.operands.iter().enumerate() {
                let want = if words.contains(&i) {
                    Some(word)
                } else if typed.contains(&i) {
                    ty
                } else {
                    None
                };
                if let Some(want) = want {
                    checker.operand(i, op, want, false, &mut problems);
                }
            }
        }
        Pattern::Pair { first, second } => {
            let named: Vec<Ty> = info.words[1..]
                .iter()
                .filter_map(|w| Ty::parse(w))
                .collect();
            let [t1, t2] = named[..] else {
                return;
            };
            for (i, op) in info.operands.iter().enumerate() {
                let want = if first.contains(&i) {
                    t1
                } else if second.contains(&i) {
                    t2
                } else {
                    continue;
                };
                checker.operand(i, op, want, false, &mut problems);
            }
        }
        Pattern::Typed(typed) => {
            for &(i, name) in typed {
                if let (Some(op), Some(ty)) = (info.operands.get(i), Ty::parse(name)) {
                    checker.operand(i, op, ty, false, &mut problems);
                }
            }
        }
        Pattern::Data(index) => {
            let Some(ty) = instruction_type(info) else {
                return;
            };
            if let Some(op) = info.operands.get(index) {
                checker.operand(index, op, ty, true, &mut problems);
            }
        }
        Pattern::Wide => {
            let Some(ty) = instruction_type(info) else {
                return;
            };
            let wide = Ty {
                bits: ty.bits * 2,
                ..ty
            };
            for (i, op) in info.operands.iter().enumerate() {
                let want = if i == 0 || i == 3 { wide } else { ty };
                checker.operand(i, op, want, false, &mut problems);
            }
        }
        // `cvt.pack.sat.convertType.abType{.cType} d, a, b{, c}` (9.7.9.22): `d` is a 32-bit
        // word whatever the convert type, `a` and `b` are of the source type, `c` is `.b32`.
        Pattern::Convert if info.has("pack") => {
            // The words after `pack` and `.sat`: convertType (`.u4` is no register type),
            // abType, cType.
            let mut types = info.words[1..]
                .iter()
                .filter(|w| !matches!(**w, "pack" | "sat"));
            let Some(source) = types.nth(1).and_then(|w| Ty::parse(w)) else {
                return;
            };
            let word = Ty {
                kind: Kind::Unsigned,
                bits: 32,
            };
            let bits = Ty {
                kind: Kind::Bits,
                bits: 32,
            };
            for (i, op) in info.operands.iter().enumerate() {
                let want = match i {
                    0 => word,
                    3 => bits,
                    _ => source,
                };
                checker.operand(i, op, want, true, &mut problems);
            }
        }
        Pattern::Convert => {
            let n = info.words.len();
            if n < 3 {
                return;
            }
            // Conversions with `.bf16`, `.tf32` or packed types are typed exactly, in
            // `memory.rs`; the classic ones here with the relaxed rules of Table 28.
            if let (Some(dty), Some(aty)) =
                (Ty::parse(info.words[n - 2]), Ty::parse(info.words[n - 1]))
            {
                if dty.kind == Kind::Brain || aty.kind == Kind::Brain {
                    return;
                }
                if let Some(op) = info.operands.first() {
                    checker.operand(0, op, dty, true, &mut problems);
                }
                if let Some(op) = info.operands.get(1) {
                    checker.operand(1, op, aty, true, &mut problems);
                }
                // `cvt.frnd….f16x2.f32 d, a, b` (9.7.9.21): `b` is a second source.
                if info.words[n - 2].ends_with("x2") && info.words[n - 1] == "f32" {
                    if let Some(op) = info.operands.get(2) {
                        checker.operand(2, op, aty, true, &mut problems);
                    }
                }
            }
        }
    }
    // `set.CmpOp.BoolOp.dtype.stype d, a, b, c`: `c` is a predicate (9.7.6.1).
    if info.words[0] == "set" && (info.has("and") || info.has("or") || info.has("xor")) {
        if let Some(op) = info.operands.get(3) {
            let pred = Ty {
                kind: Kind::Pred,
                bits: 1,
            };
            checker.operand(3, op, pred, false, &mut problems);
        }
    }
    for (range, message) in problems {
        ctx.report(Diagnostic::error("operand-type", range, message).section(section.clone()));
    }
}

/// A function's name is its address, a constant that ptxas 13.5 takes wherever an operand has
/// the instruction's type (`add.f32 d, a, fn`), but not where the operand's type is fixed
/// whatever the instruction type: bit counts, positions, shift amounts and member masks
/// (`Counts`' words beside typed operands), predicates (`selp`'s `c`), the typed operands of `Typed` patterns other
/// than the instruction type ("Arguments mismatch", "Call argument 'fn' has illegal state
/// space"; fixtures/operands).
fn function_addresses(
    info: &InstInfo<'_>,
    pattern: &Pattern,
    scope: &Scope<'_>,
    out: &mut Vec<(ptx_syntax::TextRange, String)>,
) {
    let own = instruction_type(info);
    let fixed: Vec<usize> = match pattern {
        // Where every operand is a word (`dp4a`, the video instructions: `typed` empty), the
        // words are the data, and ptxas takes a function's address there.
        Pattern::Counts { typed, words } if !typed.is_empty() => words.to_vec(),
        Pattern::Some { preds, .. } => preds.to_vec(),
        Pattern::Typed(typed) => typed
            .iter()
            .filter(|(_, name)| Ty::parse(name) != own)
            .map(|(i, _)| *i)
            .collect(),
        _ => return,
    };
    for i in fixed {
        let Some(op) = info.operands.get(i) else {
            continue;
        };
        let Some((name, symbol)) = named_symbol(scope, op) else {
            continue;
        };
        if symbol.kind == SymbolKind::Function {
            out.push((
                op.range(),
                format!(
                    "`{name}` is a function, whose address is no count, mask or predicate; operand {} of `{}` has a type of its own",
                    i + 1,
                    info.opcode_text()
                ),
            ));
        }
    }
}

/// The element count of a `mov.v2`/`mov.v4` (an element-by-element move, which ptxas 13.5
/// takes though the spec does not list it; see the 9.7.9.3 overlay).
fn mov_vector_count(info: &InstInfo<'_>) -> Option<usize> {
    info.words[1..].iter().find_map(|w| match *w {
        "v2" => Some(2),
        "v4" => Some(4),
        _ => None,
    })
}

/// `mov.v4.u32 {a, b, c, d}, src` (ptxas 13.5: "Result vector expected", "Argument vector size
/// mismatch"): the result is a vector of that many elements; the source a vector of as many,
/// or one scalar or special register (checked by [`Checker::operand`]); each element has the
/// instruction's type.
fn mov_vector_elements(
    ctx: &mut Ctx<'_>,
    info: &InstInfo<'_>,
    scope: &Scope<'_>,
    ty: Ty,
    count: usize,
) {
    let checker = Checker {
        info,
        scope,
        isa: ctx.isa,
        address_64: ctx.address_size_64,
    };
    let mut problems = Vec::new();
    if ty.bits * count as u32 > 128 {
        ctx.report(
            Diagnostic::error(
                "vector-length",
                info.opcode_range(),
                format!(
                    "`{}` moves {} bits at once; a vector is at most 128 bits",
                    info.opcode_text(),
                    ty.bits * count as u32
                ),
            )
            .section("9.7.9.3"),
        );
        return;
    }
    for (index, op) in info.operands.iter().enumerate() {
        let is_vector = matches!(op.kind(), OperandKind::Vector);
        // A register declared `.reg .v4 .b32 %v` stands for the whole vector when its length
        // and element size are the instruction's.
        let declared = match op.kind() {
            OperandKind::Register(name) | OperandKind::Identifier(name) => {
                symbol_of(scope, name, SymbolKind::Register)
                    .and_then(|s| Some((s.vector?, s.ty.and_then(Ty::parse)?)))
            }
            _ => None,
        };
        let declared_vector = declared.is_some();
        if let Some((vector, element)) = declared {
            if vector != format!(".v{count}") || element.bits != ty.bits {
                problems.push((
                    op.range(),
                    format!(
                        "`{}` is a {} .{} register; `{}` moves {count} {}-bit elements",
                        op.text(),
                        &vector[1..],
                        type_name(element),
                        info.opcode_text(),
                        ty.bits
                    ),
                ));
            }
            continue;
        }
        if index == 0 && !is_vector && !declared_vector {
            problems.push((
                op.range(),
                format!(
                    "`{}` writes a vector of {count}: the result is `{{…}}` with {count} registers",
                    info.opcode_text()
                ),
            ));
            continue;
        }
        if is_vector {
            let elements = op.elements();
            if elements.len() != count {
                problems.push((
                    op.range(),
                    format!(
                        "`{}` moves {count} elements, not {}",
                        info.opcode_text(),
                        elements.len()
                    ),
                ));
                continue;
            }
            for element in &elements {
                checker.operand(index, element, ty, false, &mut problems);
            }
        } else if !declared_vector {
            checker.operand(index, op, ty, false, &mut problems);
        }
    }
    for (range, message) in problems {
        ctx.report(Diagnostic::error("operand-type", range, message).section("9.7.9.3"));
    }
}

/// `mov.btype d, {a, b}` and `mov.btype {a, b}, d` pack and unpack (9.7.9.4; ptxas 13.5,
/// "Arguments mismatch", "Illegal vector size", "Vector with elements of different types are
/// not allowed in mov instruction"):
/// * only the bit-size types `.b16`, `.b32`, `.b64` and `.b128` pack (`mov.u32 %r, {%h1, %h2}`
///   and `mov.f64 %fd, {%r1, %r2}` are rejected);
/// * a vector has 2 or 4 elements, each register exactly the type's size divided by their
///   number (`mov.b64 %rd, {%h1, %h2, %h3, %h4}` packs four halves, `{%rd2, _}` does not
///   unpack a .b64); sinks and constants take their share;
/// * float and integer registers do not mix (`{%f1, %u2}`), bit-size ones go with either.
fn mov_vector_packing(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    if info.words[0] != "mov" {
        return;
    }
    let Some(ty) = instruction_type(info) else {
        return;
    };
    if let Some(count) = mov_vector_count(info) {
        mov_vector_elements(ctx, info, scope, ty, count);
        return;
    }
    // One side packs or unpacks, never both ("Illegal vector-vector operands").
    if let [d, a] = info.operands.as_slice() {
        if matches!(d.kind(), OperandKind::Vector) && matches!(a.kind(), OperandKind::Vector) {
            ctx.report(
                Diagnostic::error(
                    "operand-type",
                    a.range(),
                    format!(
                        "`{}` packs a vector into a register or unpacks one: both sides cannot be vectors",
                        info.opcode_text()
                    ),
                )
                .section("9.7.9.4".to_owned()),
            );
            return;
        }
    }
    for op in &info.operands {
        if !matches!(op.kind(), OperandKind::Vector) {
            continue;
        }
        let report = |ctx: &mut Ctx<'_>, message: String| {
            ctx.report(
                Diagnostic::error("operand-type", op.range(), message)
                    .section("9.7.9.4".to_owned()),
            );
        };
        if ty.kind != Kind::Bits || ty.bits < 16 {
            report(
                ctx,
                format!(
                    "`{}` cannot pack or unpack a vector: only .b16, .b32, .b64 and .b128 do",
                    info.opcode_text()
                ),
            );
            continue;
        }
        let elements = op.elements();
        if !matches!(elements.len(), 2 | 4) {
            // Three elements are reported by the general vector-size rule.
            if elements.len() != 3 {
                report(
                    ctx,
                    format!(
                        "`{}` packs 2 or 4 elements, not {}",
                        info.opcode_text(),
                        elements.len()
                    ),
                );
            }
            continue;
        }
        let share = ty.bits / elements.len() as u32;
        let sizes: Vec<u32> = elements
            .iter()
            .filter_map(|e| register_ty(scope, e).map(|(_, t)| t.bits))
            .collect();
        let mixed = sizes.iter().any(|&b| b != sizes[0]);
        let mut float = None;
        let mut integer = None;
        for element in &elements {
            let Some((name, reg)) = register_ty(scope, element) else {
                continue;
            };
            // Parts of different sizes are the general mixed-vector rule's report.
            if reg.bits != share && !mixed {
                report(
                    ctx,
                    format!(
                        "`{name}` is {} bits, but `{}` with {} elements packs {share}-bit parts",
                        reg.bits,
                        info.opcode_text(),
                        elements.len()
                    ),
                );
                break;
            }
            match reg.kind {
                Kind::Float => float = float.or(Some(name)),
                Kind::Signed | Kind::Unsigned => integer = integer.or(Some(name)),
                _ => {}
            }
        }
        if let (Some(f), Some(i)) = (float, integer) {
            report(
                ctx,
                format!("the parts of one vector are all floats or all integers: `{f}` and `{i}`"),
            );
        }
    }
}

struct Checker<'i, 'a, 's> {
    info: &'i InstInfo<'a>,
    scope: &'s Scope<'a>,
    isa: &'static ptx_isa::Isa,
    /// `.address_size 64`.
    address_64: bool,
}

impl Checker<'_, '_, '_> {
    /// Whether the operand's text names a variable (`v`, `v+4`).
    fn names_variable(&self, op: &Operand<'_>) -> bool {
        op.identifiers()
            .iter()
            .any(|t| symbol_of(self.scope, t.text, SymbolKind::Variable).is_some())
    }

    /// `mov` from a special register (chapter 10): ptxas wants an integer or bit-size type
    /// of the register's own size (`mov.u64 %rd, %tid.x`, `mov.b16 %h, %clock` and
    /// `mov.f32 %f, %tid.x` are rejected). The spec keeps 16-bit reads of `%tid`, `%ntid`,
    /// `%ctaid`, `%nctaid` and 16/32-bit reads of `%gridid` for legacy code (10.1, 10.2,
    /// 10.5, 10.6, 10.10), and ptxas accepts them. A vector register needs a component.
    fn special_register(
        &self,
        name: &str,
        component: bool,
        op: &Operand<'_>,
        ty: Ty,
        out: &mut Vec<(ptx_syntax::TextRange, String)>,
    ) {
        let Some(sreg) = self.isa.special_register(name) else {
            return;
        };
        let vector_sreg = sreg.ty.split_whitespace().find(|w| w.starts_with(".v"));
        // `mov.v4.u32 {a, b, c, d}, %tid` reads the whole vector (ptxas 13.5; `.v2` is
        // "Argument vector size mismatch").
        let moved = mov_vector_count(self.info);
        if let (Some(vector), false, Some(count)) = (vector_sreg, component, moved) {
            if vector != format!(".v{count}") {
                out.push((
                    op.range(),
                    format!(
                        "`{name}` is a {} special register; `{}` moves {count} elements",
                        &vector[1..],
                        self.info.opcode_text()
                    ),
                ));
                return;
            }
        } else if !component && vector_sreg.is_some() {
            out.push((
                op.range(),
                format!("`{name}` is a vector special register; read one component (`{name}.x`)"),
            ));
            return;
        }
        let Some(bits) = sreg
            .ty
            .split_whitespace()
            .last()
            .and_then(Ty::parse)
            .map(|t| t.bits)
        else {
            return;
        };
        if bits == 1 {
            // `%is_explicit_cluster` is a predicate: `mov.pred` only.
            if ty.kind != Kind::Pred {
                out.push((
                    op.range(),
                    format!(
                        "`{}` is a predicate special register; read it with `mov.pred`",
                        op.text()
                    ),
                ));
            }
            return;
        }
        const LEGACY_16: &[&str] = &["%tid", "%ntid", "%ctaid", "%nctaid", "%gridid"];
        let narrowest = if LEGACY_16.contains(&name) { 16 } else { bits };
        if matches!(ty.kind, Kind::Float | Kind::Pred) || ty.bits > bits || ty.bits < narrowest {
            out.push((
                op.range(),
                format!(
                    "`{}` is a {bits}-bit special register; `{}` needs a .b{bits}/.u{bits}/.s{bits} instruction type",
                    op.text(),
                    self.info.opcode_text()
                ),
            ));
        }
    }

    fn operand(
        &self,
        index: usize,
        op: &Operand<'_>,
        ty: Ty,
        relaxed: bool,
        out: &mut Vec<(ptx_syntax::TextRange, String)>,
    ) {
        let opcode = self.info.opcode_text();
        match op.kind() {
            OperandKind::Register(name) if self.info.words[0] == "mov" && name.starts_with('%') && any_symbol(self.scope, name).is_none() => {
                self.special_register(name, false, op, ty, out);
            }
            // The predefined `WARP_SZ` is an integer.
            OperandKind::Identifier(name)
                if ty.kind == Kind::Float && crate::handlers::names::PREDEFINED.contains(&name) =>
            {
                out.push((
                    op.range(),
                    format!(
                        "`{opcode}` needs a floating-point constant here (e.g. `1.0` or `0f…`), not the integer `{name}`"
                    ),
                ))
            }
            OperandKind::Register(name) | OperandKind::Identifier(name) => {
                let Some(symbol) = any_symbol(self.scope, name) else { return };
                // A variable's name stands for its address, an integer: no float, half or
                // predicate operand (ptxas 13.5 "Arguments mismatch" for `mov.pred p, v`,
                // `mov.f32 f, v`; fixtures/operands).
                let takes_variables = self.isa.operand_forms().variable_operand(&self.info.words);
                if symbol.kind == SymbolKind::Variable && takes_variables && !address_fits(ty) {
                    out.push((
                        op.range(),
                        format!(
                            "`{name}` is a variable, whose address is an integer; operand {} of `{opcode}` needs {}",
                            index + 1,
                            wanted(ty, relaxed)
                        ),
                    ));
                    return;
                }
                // A `.global` variable's address is 64 bits in a 64-bit module: ptxas 13.5
                // reads `mov.u32 r, v` as 32-bit addressing, which it no longer supports ("32-Bit
                // ABI … is not supported on sm_90 or higher", "32-Bit compilation is no longer
                // supported" below); `.shared` and `.const` addresses fit 32 bits.
                if symbol.kind == SymbolKind::Variable
                    && takes_variables
                    && self.address_64
                    && symbol.space == Some(".global")
                    && address_fits(ty)
                    && ty.bits < 64
                {
                    out.push((
                        op.range(),
                        format!(
                            "`{name}` is a .global variable, whose address has 64 bits in a 64-bit module; `{opcode}` takes {} bits",
                            ty.bits
                        ),
                    ));
                    return;
                }
                if symbol.kind != SymbolKind::Register || symbol.vector.is_some() {
                    return;
                }
                let Some(reg) = symbol.ty.and_then(Ty::parse) else { return };
                // ptxas 13.5 takes a `.f16x2` register for the predicates of an instruction
                // typed `.pred` (`mov.pred`, `or.pred`, `vote.sync.any.pred`), not for the
                // predicate operands of others (`selp`'s `c`, `setp`'s result and `c`,
                // `vote.ballot`'s `a`): measured on fixtures/operands.
                if ty.kind == Kind::Pred
                    && reg.kind == Kind::HalfPair
                    && self.info.words.last() == Some(&"pred")
                {
                    return;
                }
                let fits = if relaxed {
                    relaxed_fits(ty, reg)
                } else {
                    exact_fits(ty, reg)
                };
                if !fits {
                    out.push((
                        op.range(),
                        format!(
                            "`{name}` is a .{} register; operand {} of `{opcode}` needs {}",
                            type_name(reg),
                            index + 1,
                            wanted(ty, relaxed)
                        ),
                    ));
                }
            }
            OperandKind::Component { register, .. } if self.info.words[0] == "mov" => {
                self.special_register(register, true, op, ty, out);
            }
            // `d|p` (setp, shfl, lop3, match.all): a value and a predicate; a pair of
            // predicates where a predicate is wanted (ptxas "Predicate output expected" for
            // a non-predicate second part).
            OperandKind::Pair => {
                let pred = Ty {
                    kind: Kind::Pred,
                    bits: 1,
                };
                for (part, element) in op.elements().iter().enumerate() {
                    let want = if part == 0 { ty } else { pred };
                    self.operand(index, element, want, relaxed, out);
                }
            }
            OperandKind::Vector if relaxed => {
                for element in op.elements() {
                    self.operand(index, &element, ty, relaxed, out);
                }
            }
            OperandKind::Integer(text) | OperandKind::Float(text)
                if !relaxed && ty.is_half_float() =>
            {
                out.push((
                    op.range(),
                    format!(
                        "`{opcode}` takes no constant operand (`{text}`): {} operands are registers",
                        if ty.bits == 64 || ty.kind == Kind::IntPair { "packed" } else { "half-precision" }
                    ),
                ))
            }
            // `v+4` is an address, an integer ("Arguments mismatch" for `add.f32 d, a, v+4`,
            // `or.pred p, q, v+4`; fixtures/operands).
            OperandKind::Expression if !address_fits(ty) && self.names_variable(op) => {
                out.push((
                    op.range(),
                    format!(
                        "`{}` is an address, an integer; operand {} of `{opcode}` needs {}",
                        op.text(),
                        index + 1,
                        wanted(ty, relaxed)
                    ),
                ))
            }
            // `add.s16x2 d, a, -1`: a constant expression is a constant too.
            OperandKind::Expression
                if !relaxed && ty.is_half_float() && op.integer_value().is_some() =>
            {
                out.push((
                    op.range(),
                    format!(
                        "`{opcode}` takes no constant operand (`{}`): {} operands are registers",
                        op.text(),
                        if ty.bits == 64 || ty.kind == Kind::IntPair { "packed" } else { "half-precision" }
                    ),
                ))
            }
            // `min.f32 d, a, -1`, `mov.f32 d, (1<<4)`: an integer expression is no float
            // constant either.
            // (`(1<<4)` outside a call reads as an argument list.)
            OperandKind::Expression | OperandKind::ArgumentList
                if ty.kind == Kind::Float
                    && self.info.words[0] != "call"
                    && (op.integer_value().is_some()
                        || constant_expression(op) == Some(false)) =>
            {
                out.push((
                    op.range(),
                    format!(
                        "`{opcode}` needs a floating-point constant here (e.g. `1.0` or `0f…`), not an integer"
                    ),
                ))
            }
            // `mov.u32 d, -2.5e-1`: a negated floating-point constant is one too (a decimal
            // one is 64 bits, as below).
            OperandKind::Expression | OperandKind::ArgumentList
                if self.info.words[0] != "call"
                    && constant_expression(op) == Some(true)
                    && match ty.kind {
                        Kind::Signed | Kind::Unsigned | Kind::Pred => true,
                        Kind::Bits => ty.bits != 64,
                        _ => false,
                    } =>
            {
                out.push((
                    op.range(),
                    format!(
                        "`{opcode}` takes an integer constant here, not the floating-point `{}`",
                        op.text()
                    ),
                ))
            }
            OperandKind::Integer(_) if ty.kind == Kind::Float => out.push((
                op.range(),
                format!(
                    "`{opcode}` needs a floating-point constant here (e.g. `1.0` or `0f…`), not an integer"
                ),
            )),
            OperandKind::Float(text) => {
                // A `0f…` constant is 32 bits, a `0d…` or decimal one (`1.5`, a double) 64: a
                // bit-size type takes one of its own size only (ptxas 13.5 "Arguments
                // mismatch" for `and.b64 d, a, 0f3F800000`, `mov.b32 d, 1.5`, `st.b64 [a],
                // 0f…`, and accepts `mov.b64 d, 1.5`); float types convert.
                let hex_bits = match text.get(..2) {
                    Some("0f" | "0F") => Some(32),
                    _ => Some(64),
                };
                let bad = match ty.kind {
                    // `or.pred p, q, 0f3F800000`: "Arguments mismatch"; integers are taken.
                    Kind::Pred => true,
                    Kind::Float | Kind::HalfPair | Kind::IntPair | Kind::Brain => false,
                    Kind::Bits => hex_bits != Some(ty.bits),
                    Kind::Signed | Kind::Unsigned => true,
                };
                if bad {
                    out.push((
                        op.range(),
                        format!(
                            "`{opcode}` takes an integer constant here, not the floating-point `{text}`"
                        ),
                    ));
                }
            }
            _ => {}
        }
    }
}

/// Whether a constant expression operand (no register, no name but `WARP_SZ`) holds a
/// floating-point literal (`Some(true)`), only integers (`Some(false)`); `None` for any other
/// operand.
fn constant_expression(op: &ptx_syntax::Operand<'_>) -> Option<bool> {
    // `1.0<2.0` is an integer; an expression ptxas refuses is the constants rule's to report.
    if let Some(value) = crate::constexpr::evaluate(op.text()) {
        return value.ok().map(crate::constexpr::Value::is_float);
    }
    if !op.registers().is_empty()
        || op
            .identifiers()
            .iter()
            .any(|t| !crate::handlers::names::PREDEFINED.contains(&t.text))
    {
        return None;
    }
    let text = op.text();
    let bytes = text.as_bytes();
    let mut float = false;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit()
            || (bytes[i] == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                i += 1;
            }
            let literal = &text[start..i];
            let hex_float = matches!(literal.get(..2), Some("0f" | "0F" | "0d" | "0D"));
            let hex_int = matches!(literal.get(..2), Some("0x" | "0X"));
            float |=
                hex_float || literal.contains('.') || (!hex_int && literal.contains(['e', 'E']));
            continue;
        }
        i += 1;
    }
    Some(float)
}

/// Texture and surface coordinates are 32-bit values (`.s32` or `.f32`, 9.7.10.3, 9.7.11):
/// ptxas "Arguments mismatch" for `[img, {%rd1, %rd2}]` or `[img, {%h1, %h2}]`.
fn image_coordinates(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    if !matches!(info.words[0], "tex" | "tld4" | "suld" | "sust" | "sured") {
        return;
    }
    for op in &info.operands {
        if !matches!(op.kind(), OperandKind::Address { .. }) {
            continue;
        }
        let mut coordinates = Vec::new();
        // `[a, c]` or `[a, b, c]`: only the last part holds coordinates; a sampler `b` is a
        // 64-bit handle (ptxas 13.5 assembles `tex.2d.v4.f32.f32 {…}, [%rd4, %rd5, {%f5, %f6}]`).
        let parts = op.elements();
        for part in parts.into_iter().skip(1).rev().take(1) {
            match part.kind() {
                OperandKind::Vector => coordinates.extend(part.elements()),
                OperandKind::Register(_) => coordinates.push(part),
                _ => {}
            }
        }
        for c in coordinates {
            let Some((name, ty)) = register_ty(scope, &c) else {
                continue;
            };
            if ty.bits != 32 {
                ctx.report(
                    Diagnostic::error(
                        "operand-type",
                        c.range(),
                        format!(
                            "`{name}` is a .{} register; image coordinates are 32-bit (.s32 or .f32)",
                            type_name(ty)
                        ),
                    )
                    .section(if info.words[0].starts_with('s') {
                        "9.7.11".to_owned()
                    } else {
                        "9.7.10".to_owned()
                    }),
                );
            }
        }
    }
}

/// A register vector whose elements differ in size (`{%r1, %h1}`): ptxas "Incompatible
/// elements of vector expression", whatever the instruction (section 6.4.2 vectors hold
/// elements of one type).
fn mixed_vector(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    let mut vectors: Vec<Operand<'_>> = Vec::new();
    for op in &info.operands {
        match op.kind() {
            OperandKind::Vector => vectors.push(*op),
            OperandKind::Address { .. } => vectors.extend(
                op.elements()
                    .into_iter()
                    .filter(|e| matches!(e.kind(), OperandKind::Vector)),
            ),
            _ => {}
        }
    }
    for vector in vectors {
        let mut sizes = Vec::new();
        for element in vector.elements() {
            let Some(name) = plain_name(&element) else {
                continue;
            };
            let Some(declared) = plain_register_type(scope, name) else {
                continue;
            };
            // ptxas 13.5 lets a predicate stand beside 32-bit integer registers in the data
            // vectors of the atomic family (`multimem.st….v2.f32 [a], {%r1, %p1}` assembles;
            // next to `.f32` or 16-bit registers it does not).
            if declared == ".pred"
                && matches!(info.words[0], "atom" | "red" | "multimem")
                && integer_words(vector, scope)
            {
                continue;
            }
            if let Some(ty) = Ty::parse(declared) {
                sizes.push((name, ty.bits));
            }
        }
        if let Some(&(other, bits)) = sizes.iter().find(|(_, b)| *b != sizes[0].1) {
            ctx.report(
                Diagnostic::error(
                    "operand-type",
                    vector.range(),
                    format!(
                        "the elements of a vector have one size: `{}` is {} bits, `{other}` {bits}",
                        sizes[0].0, sizes[0].1
                    ),
                )
                .section("6.4.2".to_owned()),
            );
        }
    }
}

/// Whether every register of a vector other than its predicates is a 32-bit integer or
/// bit-size one.
fn integer_words(vector: Operand<'_>, scope: &Scope<'_>) -> bool {
    vector.elements().iter().all(|e| match e.kind() {
        OperandKind::Register(name) => declared_type(scope, name)
            .is_none_or(|t| matches!(t, ".pred" | ".b32" | ".u32" | ".s32")),
        _ => true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::check_diagnostics;

    #[test]
    fn relaxed_table_spot_checks() {
        let t = |s| Ty::parse(s).unwrap();
        assert!(relaxed_fits(t("u8"), t("b32")));
        assert!(relaxed_fits(t("f32"), t("b64")));
        assert!(!relaxed_fits(t("f32"), t("f64")));
        assert!(!relaxed_fits(t("u32"), t("f32")));
        assert!(relaxed_fits(t("b16"), t("f32")));
        assert!(!relaxed_fits(t("u64"), t("b32")));
        assert!(exact_fits(t("f32"), t("b32")));
        assert!(!exact_fits(t("s32"), t("f32")));
        assert!(!exact_fits(t("u32"), t("b64")));
    }

    /// Confirmed with ptxas 13.5 and nvcc 13.0 (tests/corpus/cuda): "Arguments mismatch" for
    /// each of these, "Incompatible elements of vector expression" for the mixed vector.
    #[test]
    fn mov_packs_bit_types_in_equal_parts() {
        check_diagnostics(
            r#"
.version 9.1
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .b16 %h<5>;
  .reg .b8 %c<5>;
  .reg .b32 %r<3>;
  .reg .u32 %u<3>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<3>;
  .reg .b32 lo, hi;
  mov.b64 %rd1, {%h1, %h2, %h3, %h4};
  mov.b32 %r1, {%c1, %c2, %c3, %c4};
  mov.b64 %rd1, {lo, hi};
  mov.b64 {%r1, _}, %rd1;
  mov.b32 {%h1, %h2}, {%h3, %h4};
//                    ^^^^^^^^^^ error: `mov.b32` packs a vector into a register or unpacks one: both sides cannot be vectors
  mov.b32 %r1, {%f1, %h2};
//             ^^^^^^^^^^ error: the elements of a vector have one size: `%f1` is 32 bits, `%h2` 16
  mov.b32 %r1, {%f1, %f2};
//             ^^^^^^^^^^ error: `%f1` is 32 bits, but `mov.b32` with 2 elements packs 16-bit parts
  mov.u32 %r1, {%h1, %h2};
//             ^^^^^^^^^^ error: `mov.u32` cannot pack or unpack a vector: only .b16, .b32, .b64 and .b128 do
  mov.b32 {lo, hi}, %r1;
//        ^^^^^^^^ error: `lo` is 32 bits, but `mov.b32` with 2 elements packs 16-bit parts
  mov.b64 {%rd2, _}, %rd1;
//        ^^^^^^^^^ error: `%rd2` is 64 bits, but `mov.b64` with 2 elements packs 32-bit parts
  mov.b64 %rd1, {%f1, %u2};
//              ^^^^^^^^^^ error: the parts of one vector are all floats or all integers: `%f1` and `%u2`
  ret;
}
"#,
        );
    }

    #[test]
    fn warp_level_packed_and_vector_widths() {
        check_diagnostics(
            r#"
.version 8.8
.target sm_100a
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .b16 %rs<4>;
  .reg .f32 %f<4>;
  .reg .pred %p<2>;
  shfl.sync.idx.b32 %r1, %r2, %r3, 0x1f, 0xffffffff;
  shfl.sync.idx.b32 %rd1, %r2, %r3, 0x1f, 0xffffffff;
//                  ^^^^ error: `%rd1` is a .b64 register; operand 1 of `shfl.sync.idx.b32` needs a 32-bit register
  cvt.rn.satfinite.e4m3x2.f32 %rs1, %f1, %f2;
  cvt.rn.satfinite.e2m1x2.f32 %rs1, %f1, %f2;
//                            ^^^^ error: `%rs1` is a .b16 register; operand 1 of `cvt.rn.satfinite.e2m1x2.f32` needs a .b8 register
  cvt.rna.tf32.f32 %f1, %f2;
//                 ^^^ error: `%f1` is a .f32 register; operand 1 of `cvt.rna.tf32.f32` needs a .b32 register
  bar.red.popc.u32 %r1, 0, %p1;
  bar.red.popc.u32 %r1, 0, %r2;
//                         ^^^ error: `%r2` is a .b32 register; operand 3 of `bar.red.popc.u32` needs a .pred register
  mov.b64 {%r1, %r2}, %rd1;
  mov.b64 {%r1}, %rd1;
//        ^^^^^ error: `mov.b64` packs 2 or 4 elements, not 1
  ld.global.v2.b32 {%r1, %rd1}, [%rd2];
//                 ^^^^^^^^^^^ error: the elements of a vector have one size: `%r1` is 32 bits, `%rd1` 64
  ret;
}
"#,
        );
    }

    #[test]
    fn register_types() {
        check_diagnostics(
            r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<4>;
  .reg .pred %p<2>;
  add.f32 %f1, %r1, %r2;
  add.s32 %r1, %f1, %r2;
//             ^^^ error: `%f1` is a .f32 register; operand 2 of `add.s32` needs a .b32, .s32 or .u32 register
  add.u32 %r1, %r1, %rd1;
//                  ^^^^ error: `%rd1` is a .b64 register; operand 3 of `add.u32` needs a .b32, .s32 or .u32 register
  ld.global.u8 %r1, [%rd1];
  ld.global.u32 %rd1, [%rd1];
  st.global.u32 [%rd1], %f1;
//                      ^^^ error: `%f1` is a .f32 register; operand 2 of `st.global.u32` needs an integer or bit-size register of at least 32 bits
  cvt.u64.u32 %r1, %r1;
//            ^^^ error: `%r1` is a .b32 register; operand 1 of `cvt.u64.u32` needs an integer or bit-size register of at least 64 bits
  setp.eq.s32 %r1, %r1, %r2;
//            ^^^ error: `%r1` is a .b32 register; operand 1 of `setp.eq.s32` needs a .pred register
  add.f32 %f1, %f1, 1;
//                  ^ error: `add.f32` needs a floating-point constant here (e.g. `1.0` or `0f…`), not an integer
  mov.b32 %r1, 0f3F800000;
  mov.u32 %r1, 1.5;
//             ^^^ error: `mov.u32` takes an integer constant here, not the floating-point `1.5`
  ret;
}
"#,
        );
    }

    #[test]
    fn special_register_widths() {
        check_diagnostics(
            r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .b16 %h<4>;
  .reg .b32 %r<4>;
  .reg .f32 %f<4>;
  mov.s32 %r1, %tid.x;
  mov.u16 %h1, %ntid.y;
  mov.u16 %h1, %laneid;
//             ^^^^^^^ error: `%laneid` is a 32-bit special register; `mov.u16` needs a .b32/.u32/.s32 instruction type
  mov.f32 %f1, %tid.x;
//             ^^^^^^ error: `%tid.x` is a 32-bit special register; `mov.f32` needs a .b32/.u32/.s32 instruction type
  mov.u32 %r1, %tid;
//             ^^^^ error: `%tid` is a vector special register; read one component (`%tid.x`)
  ret;
}
"#,
        );
    }

    #[test]
    fn half_types_and_counts() {
        check_diagnostics(
            r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .b16 %h<4>;
  .reg .f16 %hf<4>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  add.bf16 %h1, %h2, %h3;
  add.bf16 %hf1, %h2, %h3;
//         ^^^^ error: `%hf1` is a .f16 register; operand 1 of `add.bf16` needs a .b16 register
  add.f16x2 %r1, %r2, 0f3F800000;
//                    ^^^^^^^^^^ error: `add.f16x2` takes no constant operand (`0f3F800000`): half-precision operands are registers
  popc.b64 %r1, %rd1;
  popc.b64 %rd1, %rd1;
//         ^^^^ error: `%rd1` is a .b64 register; operand 1 of `popc.b64` needs a .b32, .s32 or .u32 register
  ret;
}
"#,
        );
    }
}
