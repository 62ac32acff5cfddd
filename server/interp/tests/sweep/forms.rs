//! The instruction forms of the sweep, enumerated from the instruction set
//! the interpreter executes (sm_90: what an H100 runs).

use super::{Class, Form, Reg};

fn ty(t: &str) -> (Class, Reg) {
    match t {
        "u8" | "s8" | "b8" => (Class::Int(8), Reg::B16),
        "u16" | "s16" | "b16" => (Class::Int(16), Reg::B16),
        "u32" | "s32" | "b32" => (Class::Int(32), Reg::B32),
        "u64" | "s64" | "b64" => (Class::Int(64), Reg::B64),
        "u16x2" | "s16x2" => (Class::Int(32), Reg::B32),
        "f16" => (Class::F16, Reg::B16),
        "bf16" => (Class::Bf16, Reg::B16),
        "f32" => (Class::F32, Reg::B32),
        "f64" => (Class::F64, Reg::B64),
        "f16x2" => (Class::F16x2, Reg::B32),
        "bf16x2" => (Class::Bf16x2, Reg::B32),
        "e4m3x2" | "e5m2x2" => (Class::Int(16), Reg::B16),
        "tf32" => (Class::Int(32), Reg::B32),
        "pred" => (Class::Pred, Reg::Pred),
        _ => panic!("type {t}"),
    }
}

fn reg(t: &str) -> Reg {
    ty(t).1
}

/// `text %o0.., %i0..;` with the given operand kinds.
fn op(text: String, ins: Vec<(Class, Reg)>, outs: Vec<Reg>) -> Form {
    let mut operands: Vec<String> = (0..outs.len()).map(|j| format!("%o{j}")).collect();
    if outs.len() == 2 && outs.iter().all(|r| *r == Reg::Pred) {
        operands = vec!["%o0|%o1".into()];
    }
    operands.extend((0..ins.len()).map(|j| format!("%i{j}")));
    Form {
        body: format!("{text} {};", operands.join(", ")),
        name: text,
        inputs: ins,
        outputs: outs,
        approx: None,
    }
}

fn same(text: String, t: &str, n: usize) -> Form {
    op(text, vec![ty(t); n], vec![reg(t)])
}

fn approx(mut f: Form, format: &'static str) -> Form {
    f.approx = Some(format);
    f
}

const ROUND: [&str; 4] = ["rn", "rz", "rm", "rp"];
const IROUND: [&str; 4] = ["rni", "rzi", "rmi", "rpi"];
const INTS: [&str; 6] = ["u16", "s16", "u32", "s32", "u64", "s64"];

fn opt(flag: bool, word: &str) -> &str {
    if flag {
        word
    } else {
        ""
    }
}

fn wide(t: &str) -> &'static str {
    match t {
        "u16" => "u32",
        "s16" => "s32",
        "u32" => "u64",
        "s32" => "s64",
        _ => panic!("wide {t}"),
    }
}

fn integer(v: &mut Vec<Form>) {
    let sh = (Class::Shift, Reg::B32);
    for t in INTS {
        v.push(same(format!("add.{t}"), t, 2));
        v.push(same(format!("sub.{t}"), t, 2));
        v.push(same(format!("sad.{t}"), t, 3));
        v.push(same(format!("div.{t}"), t, 2));
        v.push(same(format!("rem.{t}"), t, 2));
        v.push(same(format!("min.{t}"), t, 2));
        v.push(same(format!("max.{t}"), t, 2));
        for h in ["lo", "hi"] {
            v.push(same(format!("mul.{h}.{t}"), t, 2));
            v.push(same(format!("mad.{h}.{t}"), t, 3));
        }
        if !t.ends_with("64") {
            v.push(op(
                format!("mul.wide.{t}"),
                vec![ty(t); 2],
                vec![reg(wide(t))],
            ));
            let mut ins = vec![ty(t); 2];
            ins.push(ty(wide(t)));
            v.push(op(format!("mad.wide.{t}"), ins, vec![reg(wide(t))]));
        }
        v.push(op(format!("shr.{t}"), vec![ty(t), sh], vec![reg(t)]));
        if t.starts_with('s') {
            v.push(same(format!("abs.{t}"), t, 1));
            v.push(same(format!("neg.{t}"), t, 1));
        }
    }
    for t in ["u16x2", "s16x2"] {
        v.push(same(format!("min.{t}"), t, 2));
        v.push(same(format!("max.{t}"), t, 2));
    }
    v.push(same("min.relu.s16x2".into(), "s16x2", 2));
    v.push(same("max.relu.s16x2".into(), "s16x2", 2));
    v.push(same("min.relu.s32".into(), "s32", 2));
    v.push(same("max.relu.s32".into(), "s32", 2));
    v.push(same("add.sat.s32".into(), "s32", 2));
    v.push(same("sub.sat.s32".into(), "s32", 2));
    v.push(same("mad.hi.sat.s32".into(), "s32", 3));
    for t in ["u32", "s32"] {
        for h in ["lo", "hi"] {
            v.push(same(format!("mul24.{h}.{t}"), t, 2));
            v.push(same(format!("mad24.{h}.{t}"), t, 3));
        }
    }
    v.push(same("mad24.hi.sat.s32".into(), "s32", 3));
    for t in ["b32", "b64"] {
        v.push(op(format!("popc.{t}"), vec![ty(t)], vec![Reg::B32]));
        v.push(op(format!("clz.{t}"), vec![ty(t)], vec![Reg::B32]));
        v.push(same(format!("brev.{t}"), t, 1));
        v.push(op(
            format!("bfi.{t}"),
            vec![ty(t), ty(t), sh, sh],
            vec![reg(t)],
        ));
    }
    for t in ["u32", "s32", "u64", "s64"] {
        v.push(op(format!("bfind.{t}"), vec![ty(t)], vec![Reg::B32]));
        v.push(op(
            format!("bfind.shiftamt.{t}"),
            vec![ty(t)],
            vec![Reg::B32],
        ));
        v.push(op(format!("bfe.{t}"), vec![ty(t), sh, sh], vec![reg(t)]));
    }
    v.push(op(
        "fns.b32".into(),
        vec![ty("b32"), sh, sh],
        vec![Reg::B32],
    ));
    v.push(op(
        "fns.b32".into(),
        vec![ty("b32"), sh, ty("b32")],
        vec![Reg::B32],
    ));
    v.last_mut().unwrap().name = "fns.b32 (random offset)".into();
    for m in ["wrap", "clamp"] {
        for t in ["u32", "s32"] {
            v.push(op(
                format!("szext.{m}.{t}"),
                vec![ty(t), sh],
                vec![Reg::B32],
            ));
        }
        v.push(op(format!("bmsk.{m}.b32"), vec![sh, sh], vec![Reg::B32]));
        for d in ["l", "r"] {
            v.push(op(
                format!("shf.{d}.{m}.b32"),
                vec![ty("b32"), ty("b32"), sh],
                vec![Reg::B32],
            ));
        }
    }
    let bytes = (Class::Bytes, Reg::B32);
    for a in ["u32", "s32"] {
        for b in ["u32", "s32"] {
            v.push(op(
                format!("dp4a.{a}.{b}"),
                vec![bytes, bytes, ty("b32")],
                vec![Reg::B32],
            ));
            for h in ["lo", "hi"] {
                v.push(op(
                    format!("dp2a.{h}.{a}.{b}"),
                    vec![bytes, bytes, ty("b32")],
                    vec![Reg::B32],
                ));
            }
        }
    }
    for t in ["b16", "b32", "b64"] {
        for o in ["and", "or", "xor"] {
            v.push(same(format!("{o}.{t}"), t, 2));
        }
        v.push(same(format!("not.{t}"), t, 1));
        v.push(same(format!("cnot.{t}"), t, 1));
        v.push(op(format!("shl.{t}"), vec![ty(t), sh], vec![reg(t)]));
        v.push(op(format!("shr.{t}"), vec![ty(t), sh], vec![reg(t)]));
    }
    for o in ["and", "or", "xor"] {
        v.push(same(format!("{o}.pred"), "pred", 2));
    }
    v.push(same("not.pred".into(), "pred", 1));
    for lut in [
        0x00, 0x01, 0x1e, 0x3c, 0x5a, 0x6a, 0x80, 0x96, 0xb4, 0xca, 0xe8, 0xf0, 0xfe, 0xff,
    ] {
        let mut f = op("lop3.b32".into(), vec![ty("b32"); 3], vec![Reg::B32]);
        f.body = format!("lop3.b32 %o0, %i0, %i1, %i2, {lut:#04x};");
        f.name = format!("lop3.b32 {lut:#04x}");
        v.push(f);
    }
    for mode in ["", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"] {
        v.push(op(
            format!("prmt.b32{mode}"),
            vec![bytes, ty("b32"), ty("b32")],
            vec![Reg::B32],
        ));
    }
    let p = (Class::Pred, Reg::Pred);
    for t in [
        "b16", "b32", "b64", "u16", "s64", "u32", "s32", "f32", "f64",
    ] {
        v.push(op(format!("selp.{t}"), vec![ty(t), ty(t), p], vec![reg(t)]));
    }
    for d in ["b32", "u32", "f32", "b64", "f64", "b16"] {
        v.push(op(
            format!("slct.{d}.s32"),
            vec![ty(d), ty(d), ty("s32")],
            vec![reg(d)],
        ));
        for ftz in ["", ".ftz"] {
            v.push(op(
                format!("slct{ftz}.{d}.f32"),
                vec![ty(d), ty(d), ty("f32")],
                vec![reg(d)],
            ));
        }
    }
    // Carry chains.
    let i32_ = ty("u32");
    let mut f = op(String::new(), vec![i32_; 4], vec![Reg::B32; 3]);
    f.name = "add.cc.u32; addc.cc.u32; addc.u32".into();
    f.body = "add.cc.u32 %o0, %i0, %i1; addc.cc.u32 %o1, %i2, %i3; addc.u32 %o2, 0, 0;".into();
    v.push(f.clone());
    f.name = "sub.cc.u32; subc.cc.u32; subc.u32".into();
    f.body = "sub.cc.u32 %o0, %i0, %i1; subc.cc.u32 %o1, %i2, %i3; subc.u32 %o2, 0, 0;".into();
    v.push(f.clone());
    f.name = "add.cc.s32; subc.cc.s32; addc.s32".into();
    f.body = "add.cc.s32 %o0, %i0, %i1; subc.cc.s32 %o1, %i2, %i3; addc.s32 %o2, %i3, 0;".into();
    v.push(f.clone());
    f.name = "mad.lo.cc.u32; madc.hi.cc.u32; addc.u32".into();
    f.body =
        "mad.lo.cc.u32 %o0, %i0, %i1, %i2; madc.hi.cc.u32 %o1, %i0, %i1, %i3; addc.u32 %o2, 0, 0;"
            .into();
    v.push(f.clone());
    f.name = "mad.hi.cc.s32; madc.lo.cc.s32; madc.hi.s32".into();
    f.body = "mad.hi.cc.s32 %o0, %i0, %i1, %i2; madc.lo.cc.s32 %o1, %i0, %i1, %i3; madc.hi.s32 %o2, %i3, %i2, %i0;".into();
    v.push(f.clone());
    let i64_ = ty("u64");
    let mut f = op(String::new(), vec![i64_; 4], vec![Reg::B64; 3]);
    f.name = "add.cc.u64; addc.cc.u64; addc.u64".into();
    f.body = "add.cc.u64 %o0, %i0, %i1; addc.cc.u64 %o1, %i2, %i3; addc.u64 %o2, 0, 0;".into();
    v.push(f.clone());
    f.name = "sub.cc.u64; subc.cc.u64; subc.u64".into();
    f.body = "sub.cc.u64 %o0, %i0, %i1; subc.cc.u64 %o1, %i2, %i3; subc.u64 %o2, 0, 0;".into();
    v.push(f.clone());
    f.name = "mad.lo.cc.u64; madc.hi.cc.u64; addc.u64".into();
    f.body =
        "mad.lo.cc.u64 %o0, %i0, %i1, %i2; madc.hi.cc.u64 %o1, %i0, %i1, %i3; addc.u64 %o2, 0, 0;"
            .into();
    v.push(f);
}

const INT_CMP: [&str; 6] = ["eq", "ne", "lt", "le", "gt", "ge"];
const UNS_CMP: [&str; 4] = ["lo", "ls", "hi", "hs"];
const FLT_CMP: [&str; 14] = [
    "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
];

fn compare(v: &mut Vec<Form>) {
    let p = (Class::Pred, Reg::Pred);
    for t in INTS {
        let mut cmps: Vec<&str> = INT_CMP.to_vec();
        if t.starts_with('u') {
            cmps.extend(UNS_CMP);
        }
        for c in cmps {
            v.push(op(format!("setp.{c}.{t}"), vec![ty(t); 2], vec![Reg::Pred]));
        }
    }
    for t in ["b16", "b32", "b64"] {
        for c in ["eq", "ne"] {
            v.push(op(format!("setp.{c}.{t}"), vec![ty(t); 2], vec![Reg::Pred]));
        }
    }
    for (t, ftzs) in [
        ("f32", &["", ".ftz"][..]),
        ("f64", &[""][..]),
        ("f16", &["", ".ftz"][..]),
        ("bf16", &[""][..]),
    ] {
        for c in FLT_CMP {
            for ftz in ftzs {
                v.push(op(
                    format!("setp.{c}{ftz}.{t}"),
                    vec![ty(t); 2],
                    vec![Reg::Pred],
                ));
            }
        }
    }
    for t in ["f16x2", "bf16x2"] {
        for c in ["eq", "lt", "geu", "nan"] {
            v.push(op(
                format!("setp.{c}.{t}"),
                vec![ty(t); 2],
                vec![Reg::Pred, Reg::Pred],
            ));
        }
    }
    for b in ["and", "or", "xor"] {
        for (c, t) in [("lt", "s32"), ("ltu", "f32"), ("hs", "u64")] {
            v.push(op(
                format!("setp.{c}.{b}.{t}"),
                vec![ty(t), ty(t), p],
                vec![Reg::Pred, Reg::Pred],
            ));
        }
        v.push(op(
            format!("set.gt.{b}.u32.f32"),
            vec![ty("f32"), ty("f32"), p],
            vec![Reg::B32],
        ));
    }
    for c in FLT_CMP {
        for d in ["u32", "s32", "f32"] {
            v.push(op(
                format!("set.{c}.{d}.f32"),
                vec![ty("f32"); 2],
                vec![Reg::B32],
            ));
        }
        v.push(op(
            format!("set.{c}.ftz.f32.f32"),
            vec![ty("f32"); 2],
            vec![Reg::B32],
        ));
        v.push(op(
            format!("set.{c}.u32.f64"),
            vec![ty("f64"); 2],
            vec![Reg::B32],
        ));
    }
    for c in INT_CMP {
        for s in ["s32", "u64", "s16"] {
            v.push(op(
                format!("set.{c}.u32.{s}"),
                vec![ty(s); 2],
                vec![Reg::B32],
            ));
        }
        v.push(op(
            format!("set.{c}.f32.s32"),
            vec![ty("s32"); 2],
            vec![Reg::B32],
        ));
    }
    for (d, s) in [
        ("f16", "f16"),
        ("u16", "f16"),
        ("f16x2", "f16x2"),
        ("u32", "f16x2"),
        ("bf16", "bf16"),
        ("bf16x2", "bf16x2"),
    ] {
        for c in ["lt", "equ", "nan"] {
            v.push(op(format!("set.{c}.{d}.{s}"), vec![ty(s); 2], vec![reg(d)]));
        }
    }
}

fn float(v: &mut Vec<Form>) {
    for r in ROUND {
        for ftz in ["", ".ftz"] {
            for sat in ["", ".sat"] {
                for o in ["add", "sub", "mul"] {
                    v.push(same(format!("{o}.{r}{ftz}{sat}.f32"), "f32", 2));
                }
                v.push(same(format!("fma.{r}{ftz}{sat}.f32"), "f32", 3));
            }
            v.push(same(format!("div.{r}{ftz}.f32"), "f32", 2));
            v.push(same(format!("rcp.{r}{ftz}.f32"), "f32", 1));
            v.push(same(format!("sqrt.{r}{ftz}.f32"), "f32", 1));
        }
        for o in ["add", "sub", "mul", "div"] {
            v.push(same(format!("{o}.{r}.f64"), "f64", 2));
        }
        v.push(same(format!("fma.{r}.f64"), "f64", 3));
        v.push(same(format!("rcp.{r}.f64"), "f64", 1));
        v.push(same(format!("sqrt.{r}.f64"), "f64", 1));
    }
    for o in ["add", "sub", "mul"] {
        v.push(same(format!("{o}.f32"), "f32", 2));
        v.push(same(format!("{o}.f64"), "f64", 2));
    }
    for t in ["f16", "f16x2"] {
        for ftz in ["", ".ftz"] {
            for sat in ["", ".sat"] {
                for o in ["add", "sub", "mul"] {
                    v.push(same(format!("{o}.rn{ftz}{sat}.{t}"), t, 2));
                }
                v.push(same(format!("fma.rn{ftz}{sat}.{t}"), t, 3));
            }
            v.push(same(format!("fma.rn{ftz}.relu.{t}"), t, 3));
            v.push(same(format!("abs{ftz}.{t}"), t, 1));
            v.push(same(format!("neg{ftz}.{t}"), t, 1));
            for o in ["min", "max"] {
                for nan in ["", ".NaN"] {
                    v.push(same(format!("{o}{ftz}{nan}.{t}"), t, 2));
                }
            }
        }
        for o in ["min", "max"] {
            v.push(same(format!("{o}.xorsign.abs.{t}"), t, 2));
        }
        v.push(approx(same(format!("ex2.approx.{t}"), t, 1), t));
        v.push(approx(same(format!("tanh.approx.{t}"), t, 1), t));
    }
    for t in ["bf16", "bf16x2"] {
        for o in ["add", "sub", "mul"] {
            v.push(same(format!("{o}.rn.{t}"), t, 2));
        }
        v.push(same(format!("fma.rn.{t}"), t, 3));
        v.push(same(format!("fma.rn.relu.{t}"), t, 3));
        v.push(same(format!("abs.{t}"), t, 1));
        v.push(same(format!("neg.{t}"), t, 1));
        for o in ["min", "max"] {
            for nan in ["", ".NaN"] {
                v.push(same(format!("{o}{nan}.{t}"), t, 2));
            }
            v.push(same(format!("{o}.xorsign.abs.{t}"), t, 2));
        }
        let format = if t == "bf16" { "bf16" } else { "bf16x2" };
        v.push(approx(same(format!("ex2.approx.ftz.{t}"), t, 1), format));
        v.push(approx(same(format!("tanh.approx.{t}"), t, 1), format));
    }
    for ftz in ["", ".ftz"] {
        v.push(same(format!("abs{ftz}.f32"), "f32", 1));
        v.push(same(format!("neg{ftz}.f32"), "f32", 1));
        for o in ["min", "max"] {
            for nan in ["", ".NaN"] {
                v.push(same(format!("{o}{ftz}{nan}.f32"), "f32", 2));
                v.push(same(format!("{o}{ftz}{nan}.xorsign.abs.f32"), "f32", 2));
            }
        }
        for f in ["rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2"] {
            v.push(approx(
                same(format!("{f}.approx{ftz}.f32"), "f32", 1),
                "f32",
            ));
        }
        v.push(approx(same(format!("div.full{ftz}.f32"), "f32", 2), "f32"));
        v.push(approx(
            same(format!("div.approx{ftz}.f32"), "f32", 2),
            "f32",
        ));
    }
    v.push(approx(same("tanh.approx.f32".into(), "f32", 1), "f32"));
    v.push(approx(same("rcp.approx.ftz.f64".into(), "f64", 1), "f64"));
    v.push(approx(same("rsqrt.approx.f64".into(), "f64", 1), "f64"));
    v.push(approx(same("rsqrt.approx.ftz.f64".into(), "f64", 1), "f64"));
    for o in ["abs", "neg"] {
        v.push(same(format!("{o}.f64"), "f64", 1));
    }
    for o in ["min", "max"] {
        v.push(same(format!("{o}.f64"), "f64", 2));
    }
    for t in ["f32", "f64"] {
        v.push(same(format!("copysign.{t}"), t, 2));
        for test in [
            "finite",
            "infinite",
            "number",
            "notanumber",
            "normal",
            "subnormal",
        ] {
            v.push(op(
                format!("testp.{test}.{t}"),
                vec![ty(t)],
                vec![Reg::Pred],
            ));
        }
    }
}

const CVT_INTS: [&str; 8] = ["u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64"];
const CVT_FLOATS: [&str; 4] = ["f16", "bf16", "f32", "f64"];

fn bits(t: &str) -> u32 {
    t[1..].parse().unwrap_or(16)
}

/// Whether every value of integer type `s` is one of `d` (`.sat` is then
/// refused by ptxas).
fn fits(s: &str, d: &str) -> bool {
    let (su, du) = (s.starts_with('u'), d.starts_with('u'));
    match (su, du) {
        (true, true) | (false, false) => bits(d) >= bits(s),
        (true, false) => bits(d) > bits(s),
        (false, true) => false,
    }
}

/// The saturation choices of a conversion: ptxas refuses `.sat` whenever
/// one side is bf16.
fn sats(s: &str, d: &str) -> &'static [&'static str] {
    if s == "bf16" || d == "bf16" {
        &[""]
    } else {
        &["", ".sat"]
    }
}

fn cvt(v: &mut Vec<Form>) {
    let c = |v: &mut Vec<Form>, q: String, d: &str, s: &str| {
        v.push(op(format!("cvt{q}.{d}.{s}"), vec![ty(s)], vec![reg(d)]));
    };
    for d in CVT_INTS {
        for s in CVT_INTS {
            c(v, String::new(), d, s);
            if !fits(s, d) {
                c(v, ".sat".into(), d, s);
            }
        }
        for s in CVT_FLOATS {
            if s == "bf16" && bits(d) == 8 {
                continue;
            }
            for r in IROUND {
                for sat in sats(s, d) {
                    c(v, format!(".{r}{sat}"), d, s);
                    if s == "f32" {
                        c(v, format!(".{r}.ftz{sat}"), d, s);
                    }
                }
            }
        }
    }
    for d in CVT_FLOATS {
        for s in CVT_INTS {
            if d == "bf16" && bits(s) == 8 {
                continue;
            }
            for r in ROUND {
                c(v, format!(".{r}"), d, s);
            }
        }
        for s in CVT_FLOATS {
            let narrowing =
                bits(d) < bits(s) || (d == "f16" && s == "bf16") || (d == "bf16" && s == "f16");
            let rounds: &[&str] = if d == s {
                &IROUND
            } else if narrowing {
                &ROUND
            } else {
                &[""]
            };
            let ftzs: &[&str] = if d == "f32" || s == "f32" {
                &["", ".ftz"]
            } else {
                &[""]
            };
            for r in rounds {
                let r = if r.is_empty() {
                    String::new()
                } else {
                    format!(".{r}")
                };
                for ftz in ftzs {
                    for sat in sats(s, d) {
                        c(v, format!("{r}{ftz}{sat}"), d, s);
                    }
                }
            }
        }
    }
    for (d, s) in [("f16", "f32"), ("bf16", "f32")] {
        for q in [".rn.relu", ".rn.satfinite", ".rn.relu.satfinite"] {
            c(v, q.into(), d, s);
        }
    }
    let f32_ = ty("f32");
    for d in ["f16x2", "bf16x2"] {
        for q in [
            "rn",
            "rz",
            "rn.relu",
            "rz.relu",
            "rn.satfinite",
            "rn.relu.satfinite",
        ] {
            v.push(op(
                format!("cvt.{q}.{d}.f32"),
                vec![f32_, f32_],
                vec![Reg::B32],
            ));
        }
    }
    for d in ["e4m3x2", "e5m2x2"] {
        for q in ["rn.satfinite", "rn.satfinite.relu"] {
            v.push(op(
                format!("cvt.{q}.{d}.f32"),
                vec![f32_, f32_],
                vec![Reg::B16],
            ));
            v.push(op(
                format!("cvt.{q}.{d}.f16x2"),
                vec![ty("f16x2")],
                vec![Reg::B16],
            ));
        }
        for q in ["rn", "rn.relu"] {
            v.push(op(
                format!("cvt.{q}.f16x2.{d}"),
                vec![(Class::Int(16), Reg::B16)],
                vec![Reg::B32],
            ));
        }
    }
    for q in ["rna", "rna.satfinite"] {
        c(v, format!(".{q}"), "tf32", "f32");
    }
}

fn warp(v: &mut Vec<Form>) {
    let lane = (Class::Lane, Reg::B32);
    let clamp = (Class::Clamp, Reg::B32);
    let small = (Class::Small, Reg::B32);
    for m in ["up", "down", "bfly", "idx"] {
        let mut f = op(
            format!("shfl.sync.{m}.b32"),
            vec![ty("b32"), lane, clamp],
            vec![Reg::B32, Reg::Pred],
        );
        f.body = format!("shfl.sync.{m}.b32 %o0|%o1, %i0, %i1, %i2, 0xffffffff;");
        v.push(f);
    }
    let p = (Class::Pred, Reg::Pred);
    for m in ["all", "any", "uni"] {
        let mut f = op(format!("vote.sync.{m}.pred"), vec![p], vec![Reg::Pred]);
        f.body = format!("vote.sync.{m}.pred %o0, %i0, 0xffffffff;");
        v.push(f);
    }
    let mut f = op("vote.sync.ballot.b32".into(), vec![p], vec![Reg::B32]);
    f.body = "vote.sync.ballot.b32 %o0, %i0, 0xffffffff;".into();
    v.push(f);
    for (t, class) in [("b32", small), ("b64", (Class::Small, Reg::B64))] {
        let mut f = op(format!("match.any.sync.{t}"), vec![class], vec![Reg::B32]);
        f.body = format!("match.any.sync.{t} %o0, %i0, 0xffffffff;");
        v.push(f);
        let mut f = op(
            format!("match.all.sync.{t}"),
            vec![class],
            vec![Reg::B32, Reg::Pred],
        );
        f.body = format!("match.all.sync.{t} %o0|%o1, %i0, 0xffffffff;");
        v.push(f);
    }
    for (o, t) in [
        ("add", "u32"),
        ("add", "s32"),
        ("min", "u32"),
        ("min", "s32"),
        ("max", "u32"),
        ("max", "s32"),
        ("and", "b32"),
        ("or", "b32"),
        ("xor", "b32"),
    ] {
        let mut f = op(format!("redux.sync.{o}.{t}"), vec![ty(t)], vec![Reg::B32]);
        f.body = format!("redux.sync.{o}.{t} %o0, %i0, 0xffffffff;");
        v.push(f);
    }
}

/// Every form, in a fixed order.
pub fn all() -> Vec<Form> {
    let mut v = Vec::new();
    integer(&mut v);
    compare(&mut v);
    float(&mut v);
    cvt(&mut v);
    warp(&mut v);
    v
}
