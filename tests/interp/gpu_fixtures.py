#!/usr/bin/env python3
"""GPU fixtures for ptx-interp (architecture invariant 4).

Generates snippet cases (hand-picked edge values and seeded random ones for
every instruction family the interpreter implements), wraps each snippet in a
kernel that loads its inputs per CTA and stores its results per thread, and,
with --run, executes them on the GPU and writes fixture files:

    python3 tests/interp/gpu_fixtures.py --emit DIR     # PTX modules only (check with ptxas)
    python3 tests/interp/gpu_fixtures.py --run OUTDIR   # on a machine with a GPU and CuPy

Outputs (copied into server/interp/fixtures/):
    gpu_snippets.jsonl  one line per case and input row:
        {"id", "family", "snippet", "threads", "set": {reg: hex},
         "expect": [{reg: hex} per thread], "approx": null | format}
    gpu_kernels.jsonl   one line per kernel run of tests/interp/kernels/*.ptx:
        {"file", "entry", "grid", "block", "args", "buffers": [{"arg", "hex"}]}
"""

import json
import os
import random
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20250611
rng = random.Random(SEED)

HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n"

WIDTH = {"pred": 1, "b16": 16, "b32": 32, "b64": 64, "u16": 16, "s16": 16, "u32": 32,
         "s32": 32, "u64": 64, "s64": 64, "f32": 32, "f64": 64}

CASES = []


def case(family, code, ins, outs, rows, threads=1, approx=None, decls="", module=""):
    """ins/outs: [(register, regtype)]; rows: [tuple of input bits]; module:
    module-scope declarations (`.global` data), whose names must start with
    `G_` (each kernel gets its own copy under a unique name)."""
    CASES.append({
        "family": family, "code": code.strip("\n"), "ins": ins, "outs": outs,
        "rows": [list(r) for r in rows], "threads": threads, "approx": approx,
        "decls": decls, "module": module,
    })


# ----------------------------------------------------------------- value pools

def f32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f64(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


U32_EDGE = [0, 1, 2, 3, 7, 31, 32, 33, 63, 64, 255, 0x7fff, 0x8000, 0xffff, 0x10000,
            0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff, 0x12345678, 0xdeadbeef]
U64_EDGE = [0, 1, 2, 63, 64, 65, 0xffffffff, 0x100000000, 0x7fffffffffffffff,
            0x8000000000000000, 0xffffffffffffffff, 0xfffffffffffffffe,
            0x123456789abcdef0, 0xfedcba9876543210]
U16_EDGE = [0, 1, 2, 15, 16, 17, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0x8001, 0xfffe, 0xffff]
F32_EDGE = [f32(v) for v in [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 3.0, 0.1, -0.1,
                              1.0 / 3, 1e10, -1e-10, 65504.0, 16777216.0, 16777217.0, 2.0 ** 31,
                              -(2.0 ** 31), 2.0 ** 32, 4294967295.0, 0.49999997, 255.5, -0.5,
                              100.25, 1e-30]] + [
    0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x7fa00000, 0x7f7fffff,
    0xff7fffff, 0x00800000, 0x80800000, 0x007fffff, 0x00000001, 0x80000001, 0x00400000,
    0x3f7fffff, 0x3f800001, 0x4effffff, 0x5f000000, 0xdf000000, 0x5f800000]
F64_EDGE = [f64(v) for v in [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 0.1, 1.0 / 3, 1e300,
                              -1e-300, 2.0 ** 63, -(2.0 ** 63), 2.0 ** 64, 3.4e38, 3.5e38,
                              1e-40, 1e-46, 65504.0, 65520.0, 1.0 + 2.0 ** -24, 1e10]] + [
    0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000, 0xfff8000000000000,
    0x7ff0000000000001, 0x7ff4000000000000, 0x7fefffffffffffff, 0x0010000000000000,
    0x000fffffffffffff, 0x0000000000000001, 0x8000000000000001, 0x3fefffffffffffff,
    0x3ff0000000000001]
F16_EDGE = [0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x3e00, 0x4100, 0xc100, 0x7c00, 0xfc00,
            0x7e00, 0xfe00, 0x7c01, 0x7d00, 0x7bff, 0xfbff, 0x0400, 0x03ff, 0x0001, 0x8001,
            0x3bff, 0x3c01, 0x5bf8, 0x1400, 0x0200]
BF16_EDGE = [0x0000, 0x8000, 0x3f80, 0xbf80, 0x3f00, 0x3fc0, 0x4020, 0xc020, 0x7f80, 0xff80,
             0x7fc0, 0xffc0, 0x7f81, 0x7fa0, 0x7f7f, 0xff7f, 0x0080, 0x007f, 0x0001, 0x8001,
             0x3f7f, 0x3f81, 0x4b80, 0x0040]


def pool(kind):
    return {"u32": U32_EDGE, "u64": U64_EDGE, "u16": U16_EDGE, "f32": F32_EDGE,
            "f64": F64_EDGE, "f16": F16_EDGE, "bf16": BF16_EDGE}[kind]


def rand_bits(kind):
    if kind == "u32":
        return rng.getrandbits(32) if rng.random() < 0.6 else rng.randrange(0, 200)
    if kind == "u64":
        return rng.getrandbits(64) if rng.random() < 0.6 else rng.randrange(0, 1 << 34)
    if kind == "u16":
        return rng.getrandbits(16)
    if kind == "f32":
        r = rng.random()
        if r < 0.4:
            return f32(rng.uniform(-100, 100))
        if r < 0.6:
            return f32(rng.uniform(-1, 1) * 2.0 ** rng.randrange(-140, 128))
        return rng.getrandbits(32)
    if kind == "f64":
        r = rng.random()
        if r < 0.4:
            return f64(rng.uniform(-100, 100))
        if r < 0.6:
            return f64(rng.uniform(-1, 1) * 2.0 ** rng.randrange(-1070, 1020))
        return rng.getrandbits(64)
    if kind == "f16" or kind == "bf16":
        if rng.random() < 0.5:
            v = rng.getrandbits(16)
            return v
        base = 0x3c00 if kind == "f16" else 0x3f80
        return (base + rng.randrange(-0x800, 0x800)) & 0xffff
    raise ValueError(kind)


def rows_for(kinds, n_random=12, n_edge=24):
    """Rows of input bits: edge combinations (sampled) plus random ones."""
    rows = []
    if len(kinds) == 1:
        rows = [[v] for v in pool(kinds[0])]
    else:
        combos = set()
        edges = [pool(k) for k in kinds]
        # Pair every edge of the first operand with a varying other operand.
        for i in range(n_edge):
            combos.add(tuple(rng.choice(e) for e in edges))
        for v in edges[0]:
            combos.add(tuple([v] + [rng.choice(e) for e in edges[1:]]))
        rows = [list(c) for c in sorted(combos)]
    for _ in range(n_random):
        rows.append([rand_bits(k) for k in kinds])
    return rows


def pack2(kind):
    return [(rng.choice(pool(kind)) << 16) | rng.choice(pool(kind)) for _ in range(1)][0]


def rows_packed(kind, n_args, n=28):
    rows = []
    for _ in range(n):
        rows.append([(rng.choice(pool(kind)) << 16 | rand_bits(kind)) if rng.random() < 0.5
                     else (rand_bits(kind) << 16 | rng.choice(pool(kind))) for _ in range(n_args)])
    return rows


# ------------------------------------------------------------------- integer

INT_TYPES = {"u16": "u16", "s16": "u16", "u32": "u32", "s32": "u32", "u64": "u64", "s64": "u64"}


def reg_of(t):
    """Register declaration type for an instruction type."""
    return {"u16": "b16", "s16": "b16", "u32": "b32", "s32": "b32", "u64": "b64", "s64": "b64",
            "b16": "b16", "b32": "b32", "b64": "b64", "f32": "f32", "f64": "f64",
            "f16": "b16", "bf16": "b16", "f16x2": "b32", "bf16x2": "b32", "pred": "pred",
            "u8": "b16", "s8": "b16"}[t]


def binop(family, opcode, t, pool_t=None, n=12, extra_in=()):
    p = pool_t or INT_TYPES.get(t, t)
    r = reg_of(t)
    case(family, f"{opcode} %d, %a, %b;", [("%a", r), ("%b", r)], [("%d", r)],
         rows_for([p, p], n))


def unop(family, opcode, t, out=None, pool_t=None):
    p = pool_t or INT_TYPES.get(t, t)
    case(family, f"{opcode} %d, %a;", [("%a", reg_of(t))], [("%d", out or reg_of(t))],
         rows_for([p], 8))


def gen_integer():
    for t in ["u16", "s16", "u32", "s32", "u64", "s64"]:
        binop("int.add", f"add.{t}", t)
        binop("int.sub", f"sub.{t}", t)
        binop("int.mul", f"mul.lo.{t}", t)
        binop("int.mul", f"mul.hi.{t}", t)
        binop("int.div", f"div.{t}", t)
        binop("int.div", f"rem.{t}", t)
        binop("int.minmax", f"min.{t}", t)
        binop("int.minmax", f"max.{t}", t)
        case("int.mad", f"mad.lo.{t} %d, %a, %b, %c;", [("%a", reg_of(t)), ("%b", reg_of(t)), ("%c", reg_of(t))],
             [("%d", reg_of(t))], rows_for([INT_TYPES[t]] * 3, 8))
        case("int.mad", f"mad.hi.{t} %d, %a, %b, %c;", [("%a", reg_of(t)), ("%b", reg_of(t)), ("%c", reg_of(t))],
             [("%d", reg_of(t))], rows_for([INT_TYPES[t]] * 3, 8))
        case("int.sad", f"sad.{t} %d, %a, %b, %c;", [("%a", reg_of(t)), ("%b", reg_of(t)), ("%c", reg_of(t))],
             [("%d", reg_of(t))], rows_for([INT_TYPES[t]] * 3, 6))
    for t in ["u16", "s16", "u32", "s32"]:
        wide = {"u16": "b32", "s16": "b32", "u32": "b64", "s32": "b64"}[t]
        case("int.mul", f"mul.wide.{t} %d, %a, %b;", [("%a", reg_of(t)), ("%b", reg_of(t))],
             [("%d", wide)], rows_for([INT_TYPES[t]] * 2, 8))
        case("int.mad", f"mad.wide.{t} %d, %a, %b, %c;", [("%a", reg_of(t)), ("%b", reg_of(t)), ("%c", wide)],
             [("%d", wide)], rows_for([INT_TYPES[t], INT_TYPES[t], {"b32": "u32", "b64": "u64"}[wide]], 6))
    binop("int.add", "add.sat.s32", "s32")
    binop("int.sub", "sub.sat.s32", "s32")
    case("int.mad", "mad.hi.sat.s32 %d, %a, %b, %c;", [("%a", "b32"), ("%b", "b32"), ("%c", "b32")],
         [("%d", "b32")], rows_for(["u32"] * 3, 10))
    for t in ["u32", "s32"]:
        binop("int.mul24", f"mul24.lo.{t}", t)
        binop("int.mul24", f"mul24.hi.{t}", t)
        case("int.mul24", f"mad24.lo.{t} %d, %a, %b, %c;", [("%a", "b32"), ("%b", "b32"), ("%c", "b32")],
             [("%d", "b32")], rows_for(["u32"] * 3, 6))
        case("int.mul24", f"mad24.hi.{t} %d, %a, %b, %c;", [("%a", "b32"), ("%b", "b32"), ("%c", "b32")],
             [("%d", "b32")], rows_for(["u32"] * 3, 6))
    # Carry chains: 96-bit add and subtract, mixed add/sub carries, mad chains.
    w = [("%a", "b32"), ("%b", "b32"), ("%c", "b32"), ("%e", "b32")]
    outs = [("%d", "b32"), ("%f", "b32"), ("%g", "b32")]
    decl = ".reg .b32 %f, %g;"
    for chain in [
        "add.cc.u32 %d, %a, %b;\naddc.cc.u32 %f, %c, %e;\naddc.u32 %g, 0, 0;",
        "sub.cc.u32 %d, %a, %b;\nsubc.cc.u32 %f, %c, %e;\nsubc.u32 %g, 0, 0;",
        "add.cc.u32 %d, %a, %b;\nsubc.cc.u32 %f, %c, %e;\naddc.u32 %g, 0, 0;",
        "sub.cc.u32 %d, %a, %b;\naddc.cc.u32 %f, %c, %e;\nsubc.u32 %g, 0, 0;",
        "mad.lo.cc.u32 %d, %a, %b, %c;\nmadc.hi.cc.u32 %f, %a, %b, %e;\naddc.u32 %g, 0, 0;",
        "mad.hi.cc.s32 %d, %a, %b, %c;\nmadc.lo.cc.s32 %f, %a, %b, %e;\naddc.s32 %g, %a, 0;",
    ]:
        case("int.carry", chain, w, outs, rows_for(["u32"] * 4, 12), decls=decl)
    case("int.carry", "add.cc.u64 %d, %a, %b;\naddc.u64 %f, %a, %b;",
         [("%a", "b64"), ("%b", "b64")], [("%d", "b64"), ("%f", "b64")], rows_for(["u64"] * 2, 8),
         decls=".reg .b64 %f;")
    for t in ["s16", "s32", "s64"]:
        unop("int.abs", f"abs.{t}", t)
        unop("int.abs", f"neg.{t}", t)
    case("int.minmax", "max.relu.s32 %d, %a, %b;", [("%a", "b32"), ("%b", "b32")], [("%d", "b32")],
         rows_for(["u32"] * 2, 8))
    for t in ["u16x2", "s16x2"]:
        case("int.minmax", f"min.{t} %d, %a, %b;", [("%a", "b32"), ("%b", "b32")], [("%d", "b32")],
             rows_for(["u32"] * 2, 10))
        case("int.minmax", f"max.{t} %d, %a, %b;", [("%a", "b32"), ("%b", "b32")], [("%d", "b32")],
             rows_for(["u32"] * 2, 10))
    for t, p in [("b32", "u32"), ("b64", "u64")]:
        unop("int.bits", f"popc.{t}", t, out="b32", pool_t=p)
        unop("int.bits", f"clz.{t}", t, out="b32", pool_t=p)
        unop("int.bits", f"brev.{t}", t, pool_t=p)
    for t in ["u32", "s32", "u64", "s64"]:
        unop("int.bits", f"bfind.{t}", t, out="b32")
        unop("int.bits", f"bfind.shiftamt.{t}", t, out="b32")
        small = [0, 1, 4, 7, 8, 15, 16, 24, 31, 32, 33, 40, 63, 64, 200, 255, 256, 0x1ff]
        rows = [[rng.choice(pool(INT_TYPES[t])), rng.choice(small), rng.choice(small)] for _ in range(24)]
        rows += [[rand_bits(INT_TYPES[t]), rng.randrange(0, 70), rng.randrange(0, 70)] for _ in range(8)]
        case("int.bfe", f"bfe.{t} %d, %a, %b, %c;", [("%a", reg_of(t)), ("%b", "b32"), ("%c", "b32")],
             [("%d", reg_of(t))], rows)
    for t, p in [("b32", "u32"), ("b64", "u64")]:
        small = [0, 1, 4, 8, 16, 31, 32, 33, 60, 64, 255, 256]
        rows = [[rand_bits(p), rand_bits(p), rng.choice(small), rng.choice(small)] for _ in range(24)]
        case("int.bfi", f"bfi.{t} %d, %a, %b, %c, %e;",
             [("%a", reg_of(t)), ("%b", reg_of(t)), ("%c", "b32"), ("%e", "b32")], [("%d", reg_of(t))], rows)
    small = [0, 1, 2, 5, 16, 31, 32, 33, 64, 0xffffffff]
    rows = [[rng.choice(U32_EDGE), rng.choice(small)] for _ in range(20)] + \
        [[rand_bits("u32"), rng.randrange(0, 40)] for _ in range(10)]
    for mode in ["wrap", "clamp"]:
        for t in ["u32", "s32"]:
            case("int.szext", f"szext.{mode}.{t} %d, %a, %b;", [("%a", "b32"), ("%b", "b32")],
                 [("%d", "b32")], rows)
        brows = [[rng.choice(small), rng.choice(small)] for _ in range(24)]
        case("int.bmsk", f"bmsk.{mode}.b32 %d, %a, %b;", [("%a", "b32"), ("%b", "b32")],
             [("%d", "b32")], brows)
    frows = [[rand_bits("u32"), rng.randrange(0, 34), rng.choice([0, 1, 2, 3, 5, 17, 31, 32, -1, -2, -5, -32, -33]) & 0xffffffff]
             for _ in range(30)] + [[0xffffffff, 0, 0], [0, 5, 1], [0x80000001, 31, 0]]
    case("int.fns", "fns.b32 %d, %a, %b, %c;", [("%a", "b32"), ("%b", "b32"), ("%c", "b32")],
         [("%d", "b32")], frows)
    for at in ["u32", "s32"]:
        for bt in ["u32", "s32"]:
            case("int.dp", f"dp4a.{at}.{bt} %d, %a, %b, %c;", [("%a", "b32"), ("%b", "b32"), ("%c", "b32")],
                 [("%d", "b32")], rows_for(["u32"] * 3, 8))
            for mode in ["lo", "hi"]:
                case("int.dp", f"dp2a.{mode}.{at}.{bt} %d, %a, %b, %c;",
                     [("%a", "b32"), ("%b", "b32"), ("%c", "b32")], [("%d", "b32")], rows_for(["u32"] * 3, 6))


def gen_logic():
    for t, p in [("b16", "u16"), ("b32", "u32"), ("b64", "u64")]:
        for op in ["and", "or", "xor"]:
            binop("logic", f"{op}.{t}", t, pool_t=p, n=6)
        unop("logic", f"not.{t}", t, pool_t=p)
        unop("logic", f"cnot.{t}", t, pool_t=p)
        shifts = [0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 0x80000000, 0xffffffff]
        for op in ["shl", "shr"]:
            rows = [[rng.choice(pool(p)), rng.choice(shifts)] for _ in range(24)]
            case("logic.shift", f"{op}.{t} %d, %a, %b;", [("%a", t), ("%b", "b32")], [("%d", t)], rows)
    for t, p, r in [("s16", "u16", "b16"), ("u32", "u32", "b32"), ("s32", "u32", "b32"), ("s64", "u64", "b64"), ("u64", "u64", "b64")]:
        shifts = [0, 1, 15, 16, 31, 32, 33, 63, 64, 65, 0xffffffff]
        rows = [[rng.choice(pool(p)), rng.choice(shifts)] for _ in range(20)]
        case("logic.shift", f"shr.{t} %d, %a, %b;", [("%a", r), ("%b", "b32")], [("%d", r)], rows)
    for lut in [0x00, 0xff, 0x80, 0xfe, 0x96, 0xe8, 0xca, 0x3c, 0x5a, 0xf0, 0x1e]:
        case("logic.lop3", f"lop3.b32 %d, %a, %b, %c, {lut:#x};", [("%a", "b32"), ("%b", "b32"), ("%c", "b32")],
             [("%d", "b32")], rows_for(["u32"] * 3, 4, 6))
    amounts = [0, 1, 4, 16, 31, 32, 33, 40, 63, 64, 0xffffffff]
    for d in ["l", "r"]:
        for mode in ["wrap", "clamp"]:
            rows = [[rand_bits("u32"), rand_bits("u32"), rng.choice(amounts)] for _ in range(20)]
            case("logic.shf", f"shf.{d}.{mode}.b32 %d, %a, %b, %c;", [("%a", "b32"), ("%b", "b32"), ("%c", "b32")],
                 [("%d", "b32")], rows)
    rows = [[rand_bits("u32") | 0x80808080 * rng.randrange(2), rand_bits("u32"), rng.getrandbits(16)] for _ in range(30)]
    case("logic.prmt", "prmt.b32 %d, %a, %b, %c;", [("%a", "b32"), ("%b", "b32"), ("%c", "b32")],
         [("%d", "b32")], rows)
    for mode in ["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"]:
        rows = [[rand_bits("u32"), rand_bits("u32"), s] for s in range(8)]
        case("logic.prmt", f"prmt.b32.{mode} %d, %a, %b, %c;", [("%a", "b32"), ("%b", "b32"), ("%c", "b32")],
             [("%d", "b32")], rows)


CMPS_INT = ["eq", "ne", "lt", "le", "gt", "ge"]
CMPS_U = ["lo", "ls", "hi", "hs"]
CMPS_F = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]


def gen_compare():
    for t in ["u16", "s16", "u32", "s32", "u64", "s64"]:
        cmps = CMPS_INT + (CMPS_U if t[0] == "u" else [])
        for c in cmps:
            case("cmp.setp", f"setp.{c}.{t} %p|%q, %a, %b;", [("%a", reg_of(t)), ("%b", reg_of(t))],
                 [("%p", "pred"), ("%q", "pred")], rows_for([INT_TYPES[t]] * 2, 4, 10))
    for t in ["f32", "f64", "f16", "bf16"]:
        for c in CMPS_F:
            if t in ("f16", "bf16"):
                # Half-precision setp has no second (complement) predicate.
                case("cmp.setp", f"setp.{c}.{t} %p, %a, %b;", [("%a", reg_of(t)), ("%b", reg_of(t))],
                     [("%p", "pred")], rows_for([t, t], 4, 12))
                continue
            case("cmp.setp", f"setp.{c}.{t} %p|%q, %a, %b;", [("%a", reg_of(t)), ("%b", reg_of(t))],
                 [("%p", "pred"), ("%q", "pred")], rows_for([t, t], 4, 12))
    case("cmp.setp", "setp.lt.ftz.f32 %p, %a, %b;", [("%a", "f32"), ("%b", "f32")], [("%p", "pred")],
         [[0x80000001, 0x00000001], [0x00000001, 0x00000002], [0x80800000, 0x00000001], [0, 0x00400000]])
    for b in ["and", "or", "xor"]:
        rows = [r + [rng.randrange(2)] for r in rows_for(["u32", "u32"], 4, 8)]
        case("cmp.setp", f"setp.gt.{b}.s32 %p|%q, %a, %b, %c;", [("%a", "b32"), ("%b", "b32"), ("%c", "pred")],
             [("%p", "pred"), ("%q", "pred")], rows)
        case("cmp.setp", f"setp.ge.{b}.u32 %p|%q, %a, %b, !%c;", [("%a", "b32"), ("%b", "b32"), ("%c", "pred")],
             [("%p", "pred"), ("%q", "pred")], rows)
    for d, s, p in [("u32", "s32", "u32"), ("s32", "f32", "f32"), ("f32", "f32", "f32"), ("u32", "f64", "f64"),
                    ("f32", "u64", "u64")]:
        case("cmp.set", f"set.lt.{d}.{s} %d, %a, %b;", [("%a", reg_of(s)), ("%b", reg_of(s))], [("%d", reg_of(d))],
             rows_for([p, p], 4, 12))
    case("cmp.selp", "selp.b32 %d, %a, %b, %c;", [("%a", "b32"), ("%b", "b32"), ("%c", "pred")], [("%d", "b32")],
         [[1, 2, 0], [1, 2, 1], [0xffffffff, 0, 1]])
    case("cmp.slct", "slct.b32.s32 %d, %a, %b, %c;", [("%a", "b32"), ("%b", "b32"), ("%c", "b32")], [("%d", "b32")],
         [[1, 2, c] for c in [0, 1, 0x7fffffff, 0x80000000, 0xffffffff]])
    for ftz in ["", ".ftz"]:
        case("cmp.slct", f"slct{ftz}.u32.f32 %d, %a, %b, %c;", [("%a", "b32"), ("%b", "b32"), ("%c", "f32")],
             [("%d", "b32")], [[1, 2, c] for c in F32_EDGE])
    for t in ["f32", "f64"]:
        for test in ["finite", "infinite", "number", "notanumber", "normal", "subnormal"]:
            case("float.testp", f"testp.{test}.{t} %p, %a;", [("%a", t)], [("%p", "pred")], [[v] for v in pool(t)])
        case("float.copysign", f"copysign.{t} %d, %a, %b;", [("%a", t), ("%b", t)], [("%d", t)],
             rows_for([t, t], 4, 12))


# --------------------------------------------------------------------- float

RNDS = ["rn", "rz", "rm", "rp"]


def gen_float():
    for t in ["f32", "f64"]:
        ftzs = ["", ".ftz"] if t == "f32" else [""]
        for ftz in ftzs:
            for rnd in RNDS:
                for op in ["add", "sub", "mul"]:
                    case("float.arith", f"{op}.{rnd}{ftz}.{t} %d, %a, %b;", [("%a", t), ("%b", t)], [("%d", t)],
                         rows_for([t, t], 14, 22))
                case("float.fma", f"fma.{rnd}{ftz}.{t} %d, %a, %b, %c;", [("%a", t), ("%b", t), ("%c", t)],
                     [("%d", t)], rows_for([t, t, t], 16, 22))
                case("float.div", f"div.{rnd}{ftz}.{t} %d, %a, %b;", [("%a", t), ("%b", t)], [("%d", t)],
                     rows_for([t, t], 14, 22))
                case("float.rcp", f"rcp.{rnd}{ftz}.{t} %d, %a;", [("%a", t)], [("%d", t)], rows_for([t], 10))
                case("float.sqrt", f"sqrt.{rnd}{ftz}.{t} %d, %a;", [("%a", t)], [("%d", t)], rows_for([t], 10))
            case("float.sat", f"add.sat{ftz}.{t} %d, %a, %b;" if t == "f32" else "add.f64 %d, %a, %b;",
                 [("%a", t), ("%b", t)], [("%d", t)], rows_for([t, t], 6, 12))
            for op in ["abs", "neg"]:
                case("float.absneg", f"{op}{ftz}.{t} %d, %a;", [("%a", t)], [("%d", t)], rows_for([t], 4))
            for op in ["min", "max"]:
                case("float.minmax", f"{op}{ftz}.{t} %d, %a, %b;", [("%a", t), ("%b", t)], [("%d", t)],
                     rows_for([t, t], 8, 24))
        if t == "f32":
            for op in ["min", "max"]:
                for mod in [".NaN", ".xorsign.abs"]:
                    case("float.minmax", f"{op}{mod}.f32 %d, %a, %b;", [("%a", t), ("%b", t)], [("%d", t)],
                         rows_for([t, t], 8, 20))
            case("float.sat", "mul.rn.sat.f32 %d, %a, %b;", [("%a", t), ("%b", t)], [("%d", t)], rows_for([t, t], 6, 12))
            case("float.sat", "fma.rn.sat.f32 %d, %a, %b, %c;", [("%a", t), ("%b", t), ("%c", t)], [("%d", t)],
                 rows_for([t, t, t], 6, 12))
    # Half precision, scalar and packed.
    for t in ["f16", "bf16"]:
        for op in ["add", "sub", "mul"]:
            case("half.arith", f"{op}.rn.{t} %d, %a, %b;", [("%a", "b16"), ("%b", "b16")], [("%d", "b16")],
                 rows_for([t, t], 14, 22))
        case("half.fma", f"fma.rn.{t} %d, %a, %b, %c;", [("%a", "b16"), ("%b", "b16"), ("%c", "b16")],
             [("%d", "b16")], rows_for([t, t, t], 16, 22))
        case("half.fma", f"fma.rn.relu.{t} %d, %a, %b, %c;", [("%a", "b16"), ("%b", "b16"), ("%c", "b16")],
             [("%d", "b16")], rows_for([t, t, t], 8, 16))
        for op in ["min", "max"]:
            case("half.minmax", f"{op}.{t} %d, %a, %b;", [("%a", "b16"), ("%b", "b16")], [("%d", "b16")],
                 rows_for([t, t], 6, 20))
            case("half.minmax", f"{op}.NaN.{t} %d, %a, %b;", [("%a", "b16"), ("%b", "b16")], [("%d", "b16")],
                 rows_for([t, t], 4, 12))
        for op in ["abs", "neg"]:
            case("half.absneg", f"{op}.{t} %d, %a;", [("%a", "b16")], [("%d", "b16")], rows_for([t], 4))
        for op in ["min", "max"]:
            case("half.minmax", f"{op}.xorsign.abs.{t} %d, %a, %b;", [("%a", "b16"), ("%b", "b16")],
                 [("%d", "b16")], rows_for([t, t], 4, 16))
        tx2 = t + "x2"
        for op in ["add", "mul"]:
            case("half.packed", f"{op}.rn.{tx2} %d, %a, %b;", [("%a", "b32"), ("%b", "b32")], [("%d", "b32")],
                 rows_packed(t, 2))
        case("half.packed", f"fma.rn.{tx2} %d, %a, %b, %c;", [("%a", "b32"), ("%b", "b32"), ("%c", "b32")],
             [("%d", "b32")], rows_packed(t, 3))
        case("half.packed", f"max.{tx2} %d, %a, %b;", [("%a", "b32"), ("%b", "b32")], [("%d", "b32")],
             rows_packed(t, 2))
    for ftz in ["", ".ftz"]:
        case("half.arith", f"add.rn{ftz}.sat.f16 %d, %a, %b;", [("%a", "b16"), ("%b", "b16")], [("%d", "b16")],
             rows_for(["f16", "f16"], 8, 16))
        case("half.arith", f"mul{ftz}.f16 %d, %a, %b;", [("%a", "b16"), ("%b", "b16")], [("%d", "b16")],
             rows_for(["f16", "f16"], 8, 16))
    # Approximate functions (compared by ulps).
    for ftz in ["", ".ftz"]:
        for fn in ["sin", "cos", "lg2", "ex2", "rsqrt", "sqrt", "rcp"]:
            case("approx", f"{fn}.approx{ftz}.f32 %d, %a;", [("%a", "f32")], [("%d", "f32")],
                 rows_for(["f32"], 24), approx="f32")
        for fn in ["div.approx", "div.full"]:
            case("approx", f"{fn}{ftz}.f32 %d, %a, %b;", [("%a", "f32"), ("%b", "f32")], [("%d", "f32")],
                 rows_for(["f32", "f32"], 16, 20), approx="f32")
    case("approx", "tanh.approx.f32 %d, %a;", [("%a", "f32")], [("%d", "f32")], rows_for(["f32"], 24), approx="f32")
    case("approx", "rcp.approx.ftz.f64 %d, %a;", [("%a", "f64")], [("%d", "f64")], rows_for(["f64"], 16), approx="f64")
    case("approx", "rsqrt.approx.f64 %d, %a;", [("%a", "f64")], [("%d", "f64")], rows_for(["f64"], 16), approx="f64")
    case("approx", "ex2.approx.f16 %d, %a;", [("%a", "b16")], [("%d", "b16")], rows_for(["f16"], 16), approx="f16")
    case("approx", "tanh.approx.f16 %d, %a;", [("%a", "b16")], [("%d", "b16")], rows_for(["f16"], 16), approx="f16")


# ----------------------------------------------------------------------- cvt

def gen_cvt():
    ints = ["u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64"]
    src_pool = {"u8": "u16", "s8": "u16", "u16": "u16", "s16": "u16", "u32": "u32", "s32": "u32",
                "u64": "u64", "s64": "u64"}
    reg = {"u8": "b16", "s8": "b16", "u16": "b16", "s16": "b16", "u32": "b32", "s32": "b32",
           "u64": "b64", "s64": "b64"}
    for d in ints:
        for s in ints:
            if d == s:
                continue
            bits = {"u8": 8, "s8": 8, "u16": 16, "s16": 16, "u32": 32, "s32": 32, "u64": 64, "s64": 64}
            fits = (d[0] == s[0] and bits[d] > bits[s]) or (d[0] == "s" and s[0] == "u" and bits[d] > bits[s])
            for sat in [""] if fits else ["", ".sat"]:
                # 8-bit destinations go to 32-bit registers to expose the extension.
                dreg = "b32" if d in ("u8", "s8") else reg[d]
                case("cvt.int", f"cvt{sat}.{d}.{s} %d, %a;", [("%a", reg[s])], [("%d", dreg)],
                     rows_for([src_pool[s]], 6))
    floats = ["f16", "bf16", "f32", "f64"]
    freg = {"f16": "b16", "bf16": "b16", "f32": "f32", "f64": "f64"}
    for f in floats:
        for i in ints:
            for rnd in ["rni", "rzi", "rmi", "rpi"]:
                ftz = ".ftz" if f == "f32" and rnd == "rni" else ""
                if f == "bf16" and i in ("u8", "s8"):
                    continue
                dreg = "b32" if i in ("u8", "s8") else reg[i]
                case("cvt.f2i", f"cvt.{rnd}{ftz}.{i}.{f} %d, %a;", [("%a", freg[f])], [("%d", dreg)],
                     rows_for([f], 10))
            for rnd in RNDS:
                if f == "bf16" and i in ("u8", "s8"):
                    continue
                case("cvt.i2f", f"cvt.{rnd}.{f}.{i} %d, %a;", [("%a", reg[i])], [("%d", freg[f])],
                     rows_for([src_pool[i]], 10))
    for d in floats:
        for s in floats:
            if d == s:
                continue
            narrowing = floats.index(d) < floats.index(s) or {d, s} == {"f16", "bf16"}
            if narrowing:
                for rnd in RNDS:
                    case("cvt.f2f", f"cvt.{rnd}.{d}.{s} %d, %a;", [("%a", freg[s])], [("%d", freg[d])],
                         rows_for([s], 16))
            else:
                case("cvt.f2f", f"cvt.{d}.{s} %d, %a;", [("%a", freg[s])], [("%d", freg[d])], rows_for([s], 10))
    for f in ["f32", "f64", "f16"]:
        for rnd in ["rni", "rzi", "rmi", "rpi"]:
            case("cvt.round", f"cvt.{rnd}.{f}.{f} %d, %a;", [("%a", freg[f])], [("%d", freg[f])], rows_for([f], 10))
    case("cvt.round", "cvt.rni.ftz.f32.f32 %d, %a;", [("%a", "f32")], [("%d", "f32")], rows_for(["f32"], 6))
    case("cvt.round", "cvt.ftz.f32.f32 %d, %a;", [("%a", "f32")], [("%d", "f32")], rows_for(["f32"], 4))
    case("cvt.round", "cvt.sat.f32.f32 %d, %a;", [("%a", "f32")], [("%d", "f32")], rows_for(["f32"], 4))
    case("cvt.f2f", "cvt.rn.sat.f16.f32 %d, %a;", [("%a", "f32")], [("%d", "b16")], rows_for(["f32"], 8))
    for rnd in ["rn", "rz"]:
        for mod in [".relu", ".satfinite"]:
            case("cvt.f2f", f"cvt.{rnd}{mod}.f16.f32 %d, %a;", [("%a", "f32")], [("%d", "b16")], rows_for(["f32"], 8))
            case("cvt.f2f", f"cvt.{rnd}{mod}.bf16.f32 %d, %a;", [("%a", "f32")], [("%d", "b16")], rows_for(["f32"], 8))
        for d in ["f16x2", "bf16x2"]:
            case("cvt.pack", f"cvt.{rnd}.{d}.f32 %d, %a, %b;", [("%a", "f32"), ("%b", "f32")], [("%d", "b32")],
                 rows_for(["f32", "f32"], 8, 20))
    case("cvt.pack", "cvt.rn.relu.f16x2.f32 %d, %a, %b;", [("%a", "f32"), ("%b", "f32")], [("%d", "b32")],
         rows_for(["f32", "f32"], 6, 12))
    case("cvt.f2f", "cvt.rna.tf32.f32 %d, %a;", [("%a", "f32")], [("%d", "b32")], rows_for(["f32"], 12))
    fp8_vals = [f32(v) for v in [0.0, -0.0, 1.0, 448.0, 449.0, 464.0, 480.0, 500.0, 57344.0, 61440.0, 1e6,
                                 -1e6, 0.001953125, 0.0009765625, 1.5e-5, 2.0 ** -9, 2.0 ** -10, 2.0 ** -16,
                                 2.0 ** -17, 0.3, -17.25]] + [0x7f800000, 0xff800000, 0x7fc00000]
    for f8 in ["e4m3x2", "e5m2x2"]:
        rows = [[rng.choice(fp8_vals), rng.choice(fp8_vals)] for _ in range(24)] + \
            [[rand_bits("f32"), rand_bits("f32")] for _ in range(8)]
        case("cvt.fp8", f"cvt.rn.satfinite.{f8}.f32 %d, %a, %b;", [("%a", "f32"), ("%b", "f32")],
             [("%d", "b16")], rows)
        case("cvt.fp8", f"cvt.rn.satfinite.relu.{f8}.f32 %d, %a, %b;", [("%a", "f32"), ("%b", "f32")],
             [("%d", "b16")], rows[:16])
        case("cvt.fp8", f"cvt.rn.f16x2.{f8} %d, %a;", [("%a", "b16")], [("%d", "b32")],
             [[v] for v in range(0, 0x10000, 257)] + [[0x7f7f], [0xff7e], [0x7c7b], [0x0180]])
        case("cvt.fp8", f"cvt.rn.satfinite.{f8}.f16x2 %d, %a;", [("%a", "b32")], [("%d", "b16")],
             rows_packed("f16", 1, 24))


# -------------------------------------------------------------------- memory

def gen_memory():
    decl = ".shared .align 16 .b8 sm[64];\n.reg .b64 %ad;"
    vals = [0, 1, 5, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe, 100]
    for op, t in [("add", "u32"), ("min", "u32"), ("max", "u32"), ("min", "s32"), ("max", "s32"),
                  ("inc", "u32"), ("dec", "u32"), ("exch", "b32"), ("and", "b32"), ("or", "b32"), ("xor", "b32")]:
        rows = [[rng.choice(vals), rng.choice(vals)] for _ in range(12)]
        case("mem.atom", f"st.shared.b32 [sm], %a;\natom.shared.{op}.{t} %d, [sm], %b;\nld.shared.b32 %e, [sm];",
             [("%a", "b32"), ("%b", "b32")], [("%d", "b32"), ("%e", "b32")], rows, decls=decl + "\n.reg .b32 %e;")
    rows = [[a, b, c] for a, b, c in [(5, 5, 9), (5, 6, 9), (0, 0, 1), (0xffffffff, 0xffffffff, 0)]]
    case("mem.atom", "st.shared.b32 [sm+4], %a;\natom.shared.cas.b32 %d, [sm+4], %b, %c;\nld.shared.b32 %e, [sm+4];",
         [("%a", "b32"), ("%b", "b32"), ("%c", "b32")], [("%d", "b32"), ("%e", "b32")], rows,
         decls=decl + "\n.reg .b32 %e;")
    for op, t in [("add", "u64"), ("min", "s64"), ("max", "u64"), ("exch", "b64")]:
        rows = [[rng.choice(U64_EDGE), rng.choice(U64_EDGE)] for _ in range(10)]
        case("mem.atom", f"st.shared.b64 [sm+8], %a;\natom.shared.{op}.{t} %d, [sm+8], %b;\nld.shared.b64 %e, [sm+8];",
             [("%a", "b64"), ("%b", "b64")], [("%d", "b64"), ("%e", "b64")], rows, decls=decl + "\n.reg .b64 %e;")
    rows = rows_for(["f32", "f32"], 8, 16)
    case("mem.atom", "st.shared.f32 [sm], %a;\natom.shared.add.f32 %d, [sm], %b;\nld.shared.f32 %e, [sm];",
         [("%a", "f32"), ("%b", "f32")], [("%d", "f32"), ("%e", "f32")], rows, decls=decl + "\n.reg .f32 %e;")
    rows = rows_for(["f16", "f16"], 8, 16)
    case("mem.atom", "st.shared.b16 [sm], %a;\natom.shared.add.noftz.f16 %d, [sm], %b;\nld.shared.b16 %e, [sm];",
         [("%a", "b16"), ("%b", "b16")], [("%d", "b16"), ("%e", "b16")], rows, decls=decl + "\n.reg .b16 %e;")
    rows = rows_for(["f64", "f64"], 6, 12)
    case("mem.atom", "st.shared.f64 [sm+16], %a;\natom.shared.add.f64 %d, [sm+16], %b;\nld.shared.f64 %e, [sm+16];",
         [("%a", "f64"), ("%b", "f64")], [("%d", "f64"), ("%e", "f64")], rows, decls=decl + "\n.reg .f64 %e;")
    # Vectors, sub-word loads with sign extension, red, generic addressing.
    rows = [[rand_bits("u32"), rand_bits("u32"), rand_bits("u32"), rand_bits("u32")] for _ in range(6)]
    case("mem.ldst", """st.shared.v4.b32 [sm+16], {%a, %b, %c, %e};
ld.shared.v2.b32 {%d, %f}, [sm+24];
ld.shared.s8 %g, [sm+17];
ld.shared.u16 %h, [sm+18];
ld.shared.s16 %i, [sm+30];
cvta.shared.u64 %ad, sm;
ld.b32 %j, [%ad+20];
red.shared.add.u32 [sm+16], %j;
ld.shared.b32 %k, [sm+16];""", [("%a", "b32"), ("%b", "b32"), ("%c", "b32"), ("%e", "b32")],
        [("%d", "b32"), ("%f", "b32"), ("%g", "b32"), ("%h", "b32"), ("%i", "b32"), ("%j", "b32"), ("%k", "b32")],
        rows, decls=decl + "\n.reg .b32 %f, %g, %h, %i, %j, %k;")
    case("mem.space", """cvta.shared.u64 %ad, sm;
add.u64 %ad, %ad, %a;
isspacep.shared %p, %ad;
isspacep.global %q, %ad;
isspacep.local %c, %ad;""", [("%a", "b64")], [("%p", "pred"), ("%q", "pred"), ("%c", "pred")],
        [[0], [8], [60]], decls=decl + "\n.reg .pred %q, %c;")
    case("mem.ldst", """.local .align 8 .b8 lm[16];
st.local.b64 [lm+8], %a;
ld.local.v2.u32 {%d, %e}, [lm+8];
ld.local.s8 %f, [lm+15];""", [("%a", "b64")], [("%d", "b32"), ("%e", "b32"), ("%f", "b64")],
        [[rand_bits("u64")] for _ in range(6)], decls=".reg .b32 %e;\n.reg .b64 %f;")


# ---------------------------------------------------------------------- warp

def gen_warp():
    hash_lane = "mov.u32 %l, %laneid;\nmul.lo.u32 %v, %l, %s;\nxor.b32 %v, %v, %t;\n"
    decl = ".reg .b32 %l, %v;"
    seeds = [[0x9e3779b9, 0], [0x85ebca6b, 0xc2b2ae35], [1, 0], [0, 7], [3, 0xffff0000]]
    ins = [("%s", "b32"), ("%t", "b32")]
    for mode, bs in [("up", [0, 1, 5, 31]), ("down", [1, 3, 16]), ("bfly", [1, 2, 16, 31]), ("idx", [0, 5, 31, 37])]:
        for b in bs:
            for c in [0x1f, 0x0, 0x1c1f, 0x181f, 0x1f00, 0x0803]:
                case("warp.shfl", hash_lane + f"shfl.sync.{mode}.b32 %d|%p, %v, {b}, {c:#x}, 0xffffffff;",
                     ins, [("%d", "b32"), ("%p", "pred")], seeds[:2], threads=32, decls=decl)
    vote_decl = decl + "\n.reg .pred %c;"
    for mode in ["all", "any", "uni"]:
        for thr in [0, 0x40000000, 0x80000000, 0xffffffff]:
            case("warp.vote", hash_lane + f"setp.lt.u32 %c, %v, {thr:#x};\nvote.sync.{mode}.pred %p, %c, 0xffffffff;",
                 ins, [("%p", "pred")], seeds, threads=32, decls=vote_decl)
    case("warp.vote", hash_lane + "setp.lt.u32 %c, %v, 0x80000000;\nvote.sync.ballot.b32 %d, %c, 0xffffffff;",
         ins, [("%d", "b32")], seeds, threads=32, decls=vote_decl)
    case("warp.vote", hash_lane + "setp.lt.u32 %c, %v, 0x80000000;\nvote.sync.ballot.b32 %d, !%c, 0xffffffff;",
         ins, [("%d", "b32")], seeds, threads=32, decls=vote_decl)
    for mode in ["any", "all"]:
        case("warp.match", hash_lane + f"and.b32 %v, %v, 3;\nmatch.sync.{mode}.b32 %d, %v, 0xffffffff;",
             ins, [("%d", "b32")], seeds, threads=32, decls=decl)
    case("warp.match", "mov.u32 %l, %laneid;\nmov.u32 %v, %s;\nmatch.sync.all.b32 %d|%p, %v, 0xffffffff;",
         ins, [("%d", "b32"), ("%p", "pred")], seeds, threads=32, decls=decl)
    case("warp.match", hash_lane + "and.b32 %v, %v, 1;\ncvt.u64.u32 %w, %v;\nmatch.sync.any.b64 %d, %w, 0xffffffff;",
         ins, [("%d", "b32")], seeds, threads=32, decls=decl + "\n.reg .b64 %w;")
    for op, t in [("add", "u32"), ("min", "u32"), ("max", "u32"), ("min", "s32"), ("max", "s32"),
                  ("and", "b32"), ("or", "b32"), ("xor", "b32")]:
        case("warp.redux", hash_lane + f"redux.sync.{op}.{t} %d, %v, 0xffffffff;", ins, [("%d", "b32")], seeds,
             threads=32, decls=decl)
    div_decl = decl + "\n.reg .pred %c;"
    case("warp.divergence", hash_lane + """and.b32 %d, %l, 1;
setp.eq.u32 %c, %d, 0;
@%c bra EVEN;
activemask.b32 %d;
shfl.sync.bfly.b32 %e, %l, 2, 0x1f, 0xaaaaaaaa;
bra DONE;
EVEN:
activemask.b32 %d;
shfl.sync.bfly.b32 %e, %l, 4, 0x1f, 0x55555555;
DONE:
elect.sync %f|%p, 0xffffffff;""", ins, [("%d", "b32"), ("%e", "b32"), ("%f", "b32"), ("%p", "pred")], seeds[:1],
         threads=32, decls=div_decl + "\n.reg .b32 %e, %f;")
    case("warp.divergence", """mov.u32 %l, %tid.x;
mov.u32 %d, 0;
mov.u32 %v, 0;
LOOP:
add.u32 %d, %d, %v;
add.u32 %v, %v, 1;
setp.le.u32 %c, %v, %l;
@%c bra LOOP;
activemask.b32 %e;""", ins, [("%d", "b32"), ("%e", "b32")], seeds[:1], threads=48, decls=div_decl + "\n.reg .b32 %e;")
    case("cta.barrier", """.shared .b32 bs[64];
mov.u32 %l, %tid.x;
shl.b32 %v, %l, 2;
mov.u32 %e, bs;
add.u32 %e, %e, %v;
mul.lo.u32 %d, %l, %s;
st.shared.u32 [%e], %d;
bar.sync 0;
xor.b32 %v, %v, 0xfc;
mov.u32 %e, bs;
add.u32 %e, %e, %v;
ld.shared.u32 %d, [%e];
setp.lt.u32 %c, %d, %t;
bar.red.popc.u32 %f, 0, %c;
bar.red.and.pred %p, 0, %c;
bar.red.or.pred %q, 0, %c;""", ins, [("%d", "b32"), ("%f", "b32"), ("%p", "pred"), ("%q", "pred")],
         [[0x9e3779b9, 0x80000000], [3, 100], [1, 1000]], threads=64,
         decls=div_decl + "\n.reg .b32 %e, %f;\n.reg .pred %q;")


# ---------------------------------------------------------------------- wmma

WMMA_FILL = """mov.u32 %l, %laneid;
mov.u32 %k, 0;
FILL:
mad.lo.u32 %i, %l, 8, %k;
cvt.rn.f16.u32 %h, %i;
mov.u32 %x, wa;
mad.lo.u32 %x, %i, 2, %x;
st.shared.b16 [%x], %h;
cvt.rn.f32.u32 %g, %i;
mov.u32 %x, wc;
mad.lo.u32 %x, %i, 4, %x;
st.shared.f32 [%x], %g;
add.u32 %k, %k, 1;
setp.lt.u32 %c, %k, 8;
@%c bra FILL;
bar.sync 0;
mov.u32 %x, wa;
mov.u32 %y, wc;
"""
WMMA_DECLS = """.shared .align 32 .b16 wa[256];
.shared .align 32 .f32 wc[256];
.reg .b32 %l, %k, %i, %x, %y;
.reg .b16 %h;
.reg .f32 %g;
.reg .pred %c;"""


def gen_wmma():
    a8 = ", ".join(f"%a{i}" for i in range(8))
    outs8 = [(f"%a{i}", "b32") for i in range(8)]
    seed = [[0]]
    for frag in ["a", "b"]:
        for layout in ["row", "col"]:
            case("wmma.layout", WMMA_FILL + f"wmma.load.{frag}.sync.aligned.{layout}.m16n16k16.shared.f16 {{{a8}}}, [%x], 16;",
                 [("%s", "b32")], outs8, seed, threads=32, decls=WMMA_DECLS)
    for layout in ["row", "col"]:
        case("wmma.layout", WMMA_FILL + f"wmma.load.c.sync.aligned.{layout}.m16n16k16.shared.f32 {{{a8}}}, [%y], 16;",
             [("%s", "b32")], [(f"%a{i}", "f32") for i in range(8)], seed, threads=32, decls=WMMA_DECLS)
        c4 = ", ".join(f"%a{i}" for i in range(4))
        case("wmma.layout", WMMA_FILL + f"wmma.load.c.sync.aligned.{layout}.m16n16k16.shared.f16 {{{c4}}}, [%x], 16;",
             [("%s", "b32")], [(f"%a{i}", "b32") for i in range(4)], seed, threads=32, decls=WMMA_DECLS)
    b8 = ", ".join(f"%b{i}" for i in range(8))
    c8 = ", ".join(f"%e{i}" for i in range(8))
    d8 = ", ".join(f"%d{i}" for i in range(8))
    mma = (WMMA_FILL + f"wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {{{a8}}}, [%x], 16;\n"
           f"wmma.load.b.sync.aligned.col.m16n16k16.shared.f16 {{{b8}}}, [%x], 16;\n"
           f"wmma.load.c.sync.aligned.row.m16n16k16.shared.f32 {{{c8}}}, [%y], 16;\n"
           f"wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {{{d8}}}, {{{a8}}}, {{{b8}}}, {{{c8}}};\n"
           f"wmma.store.d.sync.aligned.col.m16n16k16.shared.f32 [%y], {{{d8}}}, 16;\n"
           f"mov.u32 %x, wc;\nmad.lo.u32 %x, %l, 4, %x;\nld.shared.f32 %z, [%x];\nld.shared.f32 %w, [%x+128];")
    decls = WMMA_DECLS + "\n.reg .b32 %a<8>, %b<8>;\n.reg .f32 %e<8>, %d<8>, %z, %w;"
    case("wmma.mma", mma, [("%s", "b32")], [(f"%d{i}", "f32") for i in range(8)] + [("%z", "f32"), ("%w", "f32")],
         seed, threads=32, decls=decls)


# ------------------------------------------------- ldmatrix, stmatrix, movmatrix

def mix32(dst, j, seed="%s", ka="0xffffffff", m="0", b="0"):
    """PTX that sets `dst` to a hash of (%l, j, seed), masked: (h & ka) | ((h2 & m) + b)."""
    salt = (0x632be5ab * (j + 1)) & 0xffffffff
    return f"""mad.lo.u32 %xh, %l, 0x9e3779b1, {seed};
xor.b32 %xh, %xh, {salt:#x};
mul.lo.u32 %xh, %xh, 0x85ebca6b;
shr.u32 %xg, %xh, 13;
xor.b32 %xh, %xh, %xg;
mul.lo.u32 %xh, %xh, 0xc2b2ae35;
shr.u32 %xg, %xh, 16;
xor.b32 %xh, %xh, %xg;
mul.lo.u32 %xg, %xh, 0x27d4eb2f;
shr.u32 %xk, %xg, 15;
xor.b32 %xg, %xg, %xk;
and.b32 %xh, %xh, {ka};
and.b32 %xg, %xg, {m};
add.u32 %xg, %xg, {b};
or.b32 {dst}, %xh, %xg;
"""


MIX_DECLS = ".reg .b32 %l, %xh, %xg, %xk;"

LDM_FILL = """mov.u32 %l, %laneid;
mov.u32 %k, 0;
FILL:
mad.lo.u32 %i, %k, 32, %l;
mad.lo.u32 %v, %i, 0x9e3779b1, %s;
mov.u32 %x, sm;
mad.lo.u32 %x, %i, 4, %x;
st.shared.b32 [%x], %v;
add.u32 %k, %k, 1;
setp.lt.u32 %c, %k, 8;
@%c bra FILL;
bar.sync 0;
mad.lo.u32 %r, %l, %p, %q;
and.b32 %r, %r, 63;
mov.u32 %x, sm;
mad.lo.u32 %x, %r, 16, %x;
"""
LDM_DECLS = MIX_DECLS + """
.shared .align 16 .b32 sm[256];
.reg .b32 %k, %i, %v, %x, %r;
.reg .b64 %gx, %ga;
.reg .pred %c;"""
LDM_SEEDS = [[0x12345678, 1, 0], [0x9e3779b9, 7, 3], [0xdeadbeef, 33, 60], [5, 63, 17], [0xffffffff, 5, 32]]


def gen_matrix():
    ins = [("%s", "b32"), ("%p", "b32"), ("%q", "b32")]
    for num, n in [("x1", 1), ("x2", 2), ("x4", 4)]:
        regs = ", ".join(f"%d{i}" for i in range(n))
        outs = [(f"%d{i}", "b32") for i in range(n)]
        for trans in ["", ".trans"]:
            for ss in [".shared", ".shared::cta"] if num == "x2" else [".shared"]:
                case("matrix.ldmatrix", LDM_FILL + f"ldmatrix.sync.aligned.m8n8.{num}{trans}{ss}.b16 {{{regs}}}, [%x];",
                     ins, outs, LDM_SEEDS, threads=32, decls=LDM_DECLS + f"\n.reg .b32 %d<{n}>;")
    # Generic addressing and an immediate offset.
    case("matrix.ldmatrix", LDM_FILL + "cvt.u64.u32 %gx, %x;\ncvta.shared.u64 %ga, %gx;\n"
         "ldmatrix.sync.aligned.m8n8.x4.trans.b16 {%d0, %d1, %d2, %d3}, [%ga];",
         ins, [(f"%d{i}", "b32") for i in range(4)], LDM_SEEDS[:3], threads=32, decls=LDM_DECLS + "\n.reg .b32 %d<4>;")
    case("matrix.ldmatrix", LDM_FILL + "and.b32 %x, %x, 0xfffffdff;\n"
         "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%d0, %d1}, [%x+512];",
         ins, [(f"%d{i}", "b32") for i in range(2)], LDM_SEEDS[:3], threads=32, decls=LDM_DECLS + "\n.reg .b32 %d<2>;")
    for num, n in [("x1", 1), ("x2", 2), ("x4", 4)]:
        regs = ", ".join(f"%d{i}" for i in range(n))
        for trans in ["", ".trans"]:
            code = """mov.u32 %l, %laneid;
mov.u32 %x, sm;
mad.lo.u32 %x, %l, 32, %x;
mov.u32 %v, 0;
st.shared.v4.b32 [%x], {%v, %v, %v, %v};
st.shared.v4.b32 [%x+16], {%v, %v, %v, %v};
bar.sync 0;
"""
            code += "".join(mix32(f"%d{i}", i) for i in range(n))
            code += """mad.lo.u32 %r, %l, %p, %q;
and.b32 %r, %r, 63;
mov.u32 %x, sm;
mad.lo.u32 %x, %r, 16, %x;
"""
            code += f"stmatrix.sync.aligned.m8n8.{num}{trans}.shared.b16 [%x], {{{regs}}};\n"
            code += """bar.sync 0;
mov.u32 %x, sm;
mad.lo.u32 %x, %l, 32, %x;
ld.shared.v4.b32 {%o0, %o1, %o2, %o3}, [%x];
ld.shared.v4.b32 {%o4, %o5, %o6, %o7}, [%x+16];"""
            case("matrix.stmatrix", code, ins, [(f"%o{i}", "b32") for i in range(8)], LDM_SEEDS[:4], threads=32,
                 decls=LDM_DECLS + f"\n.reg .b32 %d<{n}>, %o<8>;")
    code = "mov.u32 %l, %laneid;\n" + mix32("%a", 0) + "movmatrix.sync.aligned.m8n8.trans.b16 %d, %a;"
    case("matrix.movmatrix", code, ins[:1], [("%d", "b32")], [[1], [0x9e3779b9], [0xcafef00d]], threads=32,
         decls=MIX_DECLS + "\n.reg .b32 %a;")


# ----------------------------------------------------------------------- mma

# Per operand kind: registers are (h & ka) | ((h2 & m) + b); rows give
# [seed, ka, m, b, ck, cm, cb] (A/B use ka/m/b, C uses ck/cm/cb).
F16_SETS = [  # exponents 13..16 / 3..18 / all (specials) / 0..3 (subnormals); C ranges
    (0x83ff83ff, 0x0c000c00, 0x34003400, 0x807fffff, 0x03800000, 0x3c000000),
    (0x83ff83ff, 0x3c003c00, 0x0c000c00, 0x807fffff, 0x0f800000, 0x38000000),
    (0x83ff83ff, 0x3c003c00, 0x0c000c00, 0, 0, 0),
    (0x83ff83ff, 0x0c000c00, 0x34003400, 0x807fffff, 0, 0x4b000000),
    (0x83ff83ff, 0x1c001c00, 0x34003400, 0x807fffff, 0x01800000, 0x30000000),
    (0x83ff83ff, 0x7c007c00, 0, 0x807fffff, 0x7f800000, 0),
    (0x83ff83ff, 0x0c000c00, 0, 0x807fffff, 0x03800000, 0x20000000),
    (0x80008000, 0x0c000c00, 0x38003800, 0x80000000, 0x03800000, 0x3c000000),
]
F16C_SETS = [  # f16 accumulators
    (0x83ff83ff, 0x0c000c00, 0x34003400, 0x83ff83ff, 0x0c000c00, 0x38003800),
    (0x83ff83ff, 0x3c003c00, 0x0c000c00, 0x83ff83ff, 0x3c003c00, 0x0c000c00),
    (0x83ff83ff, 0x0c000c00, 0x34003400, 0, 0, 0),
    (0x83ff83ff, 0x0c000c00, 0x34003400, 0x83ff83ff, 0, 0x64006400),
    (0x83ff83ff, 0x7c007c00, 0, 0x83ff83ff, 0x7c007c00, 0),
    (0x83ff83ff, 0x0c000c00, 0, 0x83ff83ff, 0x0c000c00, 0),
]
BF16_SETS = [
    (0x807f807f, 0x01800180, 0x3e803e80, 0x807fffff, 0x03800000, 0x3c000000),
    (0x807f807f, 0x0f800f80, 0x38003800, 0x807fffff, 0x0f800000, 0x38000000),
    (0x807f807f, 0x01800180, 0x3e803e80, 0x807fffff, 0, 0x4b000000),
    (0x807f807f, 0x7f807f80, 0, 0x807fffff, 0x7f800000, 0),
    (0x807f807f, 0x01800180, 0x00000000, 0x807fffff, 0x03800000, 0x00000000),
    (0x807f807f, 0x3f803f80, 0x20002000, 0x807fffff, 0x3f800000, 0x20000000),
]
TF32_SETS = [
    (0x807fffff, 0x01800000, 0x3e800000, 0x807fffff, 0x03800000, 0x3c000000),
    (0x807fe000, 0x0f800000, 0x38000000, 0x807fffff, 0x0f800000, 0x38000000),
    (0x807fffff, 0x0f800000, 0x38000000, 0x807fffff, 0, 0x4b000000),
    (0x807fffff, 0x7f800000, 0, 0x807fffff, 0x7f800000, 0),
    (0x807fe000, 0x01800000, 0x3e800000, 0, 0, 0),
]
INT_SETS = [
    (0xffffffff, 0, 0, 0xffffffff, 0, 0),
    (0xffffffff, 0, 0, 0x0003ffff, 0, 0x7ffc0000),
    (0xffffffff, 0, 0, 0x0003ffff, 0, 0x80000000),
    (0x80808080, 0, 0x7f7f7f7f, 0x0000ffff, 0, 0x7fff0000),
    (0x80808080, 0, 0, 0x0000ffff, 0, 0x80000000),
    (0x0f0f0f0f, 0, 0, 0xffffffff, 0, 0),
]
F64_SETS = [  # hi words; lo words are random
    (0x800fffff, 0x00f00000, 0x3f800000, 0x800fffff, 0x01f00000, 0x3f000000),
    (0x800fffff, 0x0ff00000, 0x3a000000, 0x800fffff, 0x1ff00000, 0x30000000),
    (0x800fffff, 0x7ff00000, 0, 0x800fffff, 0x7ff00000, 0),
    (0x800fffff, 0x00f00000, 0x3f800000, 0x800fffff, 0, 0x43000000),
    (0x800fffff, 0x00f00000, 0x1e000000, 0x800fffff, 0x00f00000, 0x00000000),
]
MMA_SEEDS = [0x1234567, 0x9e3779b9, 0xdeadbeef, 0x2545f491]


def mma_rows(sets, seeds=MMA_SEEDS):
    return [[s] + list(p) for p in sets for s in seeds]


def gen_mma():
    ins = [("%s", "b32"), ("%ka", "b32"), ("%m", "b32"), ("%b", "b32"), ("%ck", "b32"), ("%cm", "b32"),
           ("%cb", "b32")]
    decls = MIX_DECLS + "\n.reg .b32 %a<4>, %b<2>, %c<4>;"

    def operands(na, nb, nc, c_kind="b32", d_kind="f32"):
        code = "mov.u32 %l, %laneid;\n"
        code += "".join(mix32(f"%a{i}", i, ka="%ka", m="%m", b="%b") for i in range(na))
        code += "".join(mix32(f"%b{i}", 4 + i, ka="%ka", m="%m", b="%b") for i in range(nb))
        code += "".join(mix32(f"%c{i}", 8 + i, ka="%ck", m="%cm", b="%cb") for i in range(nc))
        vec = lambda p, n: "{" + ", ".join(f"%{p}{i}" for i in range(n)) + "}"
        return code, vec("a", na), vec("b", nb), vec("c", nc), vec("d", nc)

    forms = [  # shape, types, A/B/C regs, row sets
        ("m16n8k16", "f32.f16.f16.f32", 4, 2, 4, F16_SETS),
        ("m16n8k16", "f32.bf16.bf16.f32", 4, 2, 4, BF16_SETS),
        ("m16n8k16", "f16.f16.f16.f16", 4, 2, 2, F16C_SETS),
        ("m16n8k8", "f32.f16.f16.f32", 2, 1, 4, F16_SETS),
        ("m16n8k8", "f16.f16.f16.f16", 2, 1, 2, F16C_SETS),
        ("m16n8k8", "f32.bf16.bf16.f32", 2, 1, 4, BF16_SETS),
        ("m16n8k8", "f32.tf32.tf32.f32", 4, 2, 4, TF32_SETS),
        ("m16n8k4", "f32.tf32.tf32.f32", 2, 1, 4, TF32_SETS[:3]),
        ("m16n8k32", "s32.s8.s8.s32", 4, 2, 4, INT_SETS),
        ("m16n8k32", "s32.u8.s8.s32", 4, 2, 4, INT_SETS[:3]),
        ("m16n8k32", "s32.u8.u8.s32", 4, 2, 4, INT_SETS[:3]),
        ("m16n8k32", "satfinite.s32.s8.s8.s32", 4, 2, 4, INT_SETS),
        ("m16n8k32", "satfinite.s32.s8.u8.s32", 4, 2, 4, INT_SETS),
        ("m16n8k16", "s32.s8.s8.s32", 2, 1, 4, INT_SETS),
        ("m16n8k16", "satfinite.s32.u8.u8.s32", 2, 1, 4, INT_SETS),
    ]
    for shape, types, na, nb, nc, sets in forms:
        f16_out = types.startswith("f16")
        int_out = "s32." in types
        family = "mma.int" if int_out else "mma.float"
        code, a, b, c, d = operands(na, nb, nc)
        sat = ""
        if types.startswith("satfinite."):
            sat, types = ".satfinite", types[len("satfinite."):]
        code += f"mma.sync.aligned.{shape}.row.col{sat}.{types} {d}, {a}, {b}, {c};"
        dk = "b32" if f16_out or int_out else "f32"
        # Float mma is bit-exact (the tensor-core model of src/accumulate.rs).
        case(family, code, ins, [(f"%d{i}", dk) for i in range(nc)], mma_rows(sets), threads=32,
             decls=decls + f"\n.reg .{dk} %d<{nc}>;")
    # f64: m8n8k4, one A and one B value, two C values per lane.
    code = "mov.u32 %l, %laneid;\n"
    for name, j, (k, m, b) in [("%fa", 0, ("%ka", "%m", "%b")), ("%fb", 2, ("%ka", "%m", "%b")),
                               ("%fc0", 4, ("%ck", "%cm", "%cb")), ("%fc1", 6, ("%ck", "%cm", "%cb"))]:
        code += mix32("%c0", j, ka=k, m=m, b=b) + mix32("%c1", j + 1) + f"mov.b64 {name}, {{%c1, %c0}};\n"
    code += "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd0, %fd1}, {%fa}, {%fb}, {%fc0, %fc1};"
    case("mma.float", code, ins, [("%fd0", "f64"), ("%fd1", "f64")], mma_rows(F64_SETS), threads=32,
         decls=decls + "\n.reg .f64 %fa, %fb, %fc0, %fc1, %fd0, %fd1;")


# ------------------------------------------------------ cp.async and mbarrier

# Own generator (seeded like the shared one) so that the other cases keep their rows.
G_SRC_WORDS = (lambda g: [g.getrandbits(32) for _ in range(128)])(random.Random(SEED))
G_SRC = ".global .align 16 .b32 G_src[128] = {" + ", ".join(str(v) for v in G_SRC_WORDS) + "};"
ASYNC_DECLS = MIX_DECLS + """
.shared .align 16 .b32 sm[256];
.reg .b32 %x, %v, %n, %o<4>;
.reg .b64 %ga, %go;
.reg .pred %c;"""
ASYNC_ZERO = """mov.u32 %l, %tid.x;
mov.u32 %x, sm;
mad.lo.u32 %x, %l, 16, %x;
mov.u32 %v, 0;
st.shared.v4.b32 [%x], {%v, %v, %v, %v};
bar.sync 0;
"""
ASYNC_READ = """bar.sync 0;
mov.u32 %x, sm;
mad.lo.u32 %x, %l, 16, %x;
ld.shared.v4.b32 {%o0, %o1, %o2, %o3}, [%x];"""


def gen_async():
    ins = [("%s", "b32"), ("%t", "b32")]
    outs = [(f"%o{i}", "b32") for i in range(4)]
    rows = [[0, 0], [16, 3], [32, 5], [48, 17], [0, 0xffffffff]]
    for level, size in [("ca", 4), ("ca", 8), ("ca", 16), ("cg", 16)]:
        for zfill in [False, True]:
            code = ASYNC_ZERO + f"""mad.lo.u32 %v, %l, {size}, %s;
and.b32 %v, %v, {511 & ~(size - 1)};
cvt.u64.u32 %go, %v;
mov.u64 %ga, G_src;
add.u64 %ga, %ga, %go;
mad.lo.u32 %x, %l, 16, %x;
"""
            if zfill:
                code += f"""add.u32 %n, %l, %t;
rem.u32 %n, %n, {size + 1};
cp.async.{level}.shared.global [%x], [%ga], {size}, %n;
"""
            else:
                code += f"cp.async.{level}.shared.global [%x], [%ga], {size};\n"
            code = code.replace("mov.u32 %x, sm;\nmad.lo.u32 %x, %l, 16, %x;\nmov.u32 %v, 0;",
                                "mov.u32 %x, sm;\nmad.lo.u32 %x, %l, 16, %x;\nmov.u32 %v, 0;")
            code = code.replace("mad.lo.u32 %x, %l, 16, %x;\n" + "cp", "cp")
            code += "cp.async.commit_group;\ncp.async.wait_group 0;\n" + ASYNC_READ
            case("async.cp", code, ins, outs, rows, threads=32, decls=ASYNC_DECLS, module=G_SRC)
    # Two groups, the ignore-src predicate, an L2 prefetch hint, wait_all.
    code = ASYNC_ZERO + """mad.lo.u32 %v, %l, 8, %s;
and.b32 %v, %v, 504;
cvt.u64.u32 %go, %v;
mov.u64 %ga, G_src;
add.u64 %ga, %ga, %go;
and.b32 %n, %l, %t;
setp.ne.u32 %c, %n, 0;
cp.async.ca.shared.global.L2::128B [%x], [%ga], 8;
cp.async.commit_group;
cp.async.ca.shared.global [%x+8], [%ga+8], 8, %c;
cp.async.commit_group;
cp.async.wait_group 1;
cp.async.wait_all;
""" + ASYNC_READ
    case("async.cp", code, ins, outs, rows, threads=32, decls=ASYNC_DECLS, module=G_SRC)

    # mbarrier: every output is fixed by bar.sync ordering (no timing races).
    mb_decls = MIX_DECLS + """
.shared .align 8 .b64 mb;
.shared .align 16 .b32 sm[64];
.reg .b64 %st;
.reg .b32 %x, %v;
.reg .pred %c, %q, %r, %u;"""
    init = """mov.u32 %l, %tid.x;
setp.eq.u32 %c, %l, 0;
@%c mbarrier.init.shared.b64 [mb], %s;
bar.sync 0;
"""
    code = init + """setp.lt.u32 %c, %l, %t;
@%c mbarrier.arrive.shared.b64 %st, [mb];
bar.sync 0;
mbarrier.test_wait.parity.shared.b64 %p, [mb], 0;
mbarrier.test_wait.parity.shared::cta.b64 %q, [mb], 1;"""
    case("async.mbarrier", code, ins, [("%p", "pred"), ("%q", "pred")],
         [[4, 4], [4, 3], [64, 64], [64, 63], [1, 0], [1, 1], [33, 33], [96, 40]],
         threads=64, decls=mb_decls)
    # Arrive with a count; arrive_drop lowers the count of later phases.
    code = init + """setp.eq.u32 %c, %l, 0;
@%c mbarrier.arrive.shared.b64 %st, [mb], %t;
bar.sync 0;
mbarrier.test_wait.parity.shared.b64 %p, [mb], 0;
setp.lt.u32 %c, %l, 2;
@%c mbarrier.arrive_drop.shared.b64 %st, [mb];
bar.sync 0;
mbarrier.test_wait.parity.shared.b64 %q, [mb], 1;
setp.lt.u32 %c, %l, 3;
@%c mbarrier.arrive.shared.b64 %st, [mb];
bar.sync 0;
mbarrier.test_wait.parity.shared.b64 %r, [mb], 0;
mbarrier.test_wait.parity.shared.b64 %u, [mb], 1;"""
    case("async.mbarrier", code, ins, [("%p", "pred"), ("%q", "pred"), ("%r", "pred"), ("%u", "pred")],
         [[5, 3], [5, 5], [6, 4], [7, 7], [8, 1]], threads=32, decls=mb_decls)
    # Transaction counts.
    code = init + """@%c mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [mb], %t;
@%c mbarrier.arrive.shared.b64 %st, [mb];
bar.sync 0;
mbarrier.test_wait.parity.shared.b64 %p, [mb], 0;
@%c mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [mb], 8;
bar.sync 0;
mbarrier.test_wait.parity.shared.b64 %q, [mb], 0;
@%c mbarrier.arrive.expect_tx.shared.b64 %st, [mb], 16;
bar.sync 0;
mbarrier.test_wait.parity.shared.b64 %r, [mb], 1;
@%c mbarrier.complete_tx.shared.b64 [mb], 16;
bar.sync 0;
mbarrier.test_wait.parity.shared.b64 %u, [mb], 1;"""
    case("async.mbarrier", code, ins, [("%p", "pred"), ("%q", "pred"), ("%r", "pred"), ("%u", "pred")],
         [[1, 8], [2, 8]], threads=32, decls=mb_decls)
    # Producer warp 1, consumer warp 0 waiting with try_wait (parity and token).
    code = init + """setp.ge.u32 %c, %l, 32;
@%c bra PRODUCE;
WAIT:
mbarrier.try_wait.parity.shared.b64 %p, [mb], 0;
@!%p bra WAIT;
and.b32 %x, %l, 31;
mov.u32 %v, sm;
mad.lo.u32 %v, %x, 4, %v;
ld.shared.b32 %d, [%v];
bra DONE;
PRODUCE:
and.b32 %x, %l, 31;
mul.lo.u32 %d, %x, %t;
mov.u32 %v, sm;
mad.lo.u32 %v, %x, 4, %v;
st.shared.b32 [%v], %d;
mbarrier.arrive.release.cta.shared.b64 %st, [mb];
mbarrier.test_wait.shared.b64 %p, [mb], %st;
TOKEN:
mbarrier.try_wait.shared.b64 %q, [mb], %st;
@!%q bra TOKEN;
DONE:"""
    case("async.mbarrier", code, ins, [("%d", "b32"), ("%p", "pred")], [[32, 3], [32, 0x9e3779b9]],
         threads=64, decls=mb_decls + "\n.reg .b32 %d;")
    # cp.async completion tracked by an mbarrier.
    code = init + """mad.lo.u32 %v, %l, 16, %t;
and.b32 %v, %v, 496;
cvt.u64.u32 %go, %v;
mov.u64 %ga, G_src;
add.u64 %ga, %ga, %go;
mov.u32 %x, sm;
mad.lo.u32 %x, %l, 16, %x;
cp.async.cg.shared.global [%x], [%ga], 16;
cp.async.mbarrier.arrive.noinc.shared.b64 [mb];
WAIT:
mbarrier.try_wait.parity.shared.b64 %p, [mb], 0;
@!%p bra WAIT;
ld.shared.v4.b32 {%o0, %o1, %o2, %o3}, [%x];"""
    case("async.mbarrier", code, ins, outs + [("%p", "pred")], [[16, 0], [16, 64]], threads=16,
         decls=mb_decls.replace("sm[64]", "sm[256]") + "\n.reg .b32 %o<4>;\n.reg .b64 %ga, %go;",
         module=G_SRC)
    # Pending counts of arrival tokens (one warp, every lane arrives; a
    # warp's arrivals exceeding the pending count trap on the GPU).
    code = init + """mbarrier.arrive.shared.b64 %st, [mb];
mbarrier.pending_count.b64 %n, %st;"""
    case("async.mbarrier", code, ins, [("%n", "b32")], [[32, 0], [40, 0], [64, 0], [1000, 0]], threads=32,
         decls=mb_decls + "\n.reg .b32 %n;")


# ----------------------------------------------------------------- emission

def declared_in(decls):
    import re
    names = set()
    for line in decls.splitlines():
        if line.strip().startswith(".reg"):
            for name, count in re.findall(r"(%\w+)(?:<(\d+)>)?", line):
                if count:
                    names.update(f"{name}{i}" for i in range(int(count)))
                else:
                    names.add(name)
    return names


def reg_decl(name, t):
    if t == "gptr":
        return f".reg .b64 {name};"
    return f".reg .{t} {name};"


def kernel(index, c):
    nin, nout = len(c["ins"]), len(c["outs"])
    module = c["module"].replace("G_", f"G{index}_")
    code = c["code"].replace("G_", f"G{index}_")
    lines = ([module] if module else []) + [f".visible .entry case{index}(.param .u64 pin, .param .u64 pout, .param .u64 pscratch)", "{",
             ".reg .u64 %hin, %hout, %hoff, %hscr;", ".reg .u32 %hrow, %htid, %hv;", ".reg .pred %hp;"]
    declared = set()
    for name, t in c["ins"] + c["outs"]:
        if name not in declared and name not in declared_in(c["decls"]):
            lines.append(reg_decl(name, t))
            declared.add(name)
    if c["decls"]:
        lines.append(c["decls"])
    lines += ["ld.param.u64 %hin, [pin];", "ld.param.u64 %hout, [pout];", "ld.param.u64 %hscr, [pscratch];",
              "cvta.to.global.u64 %hin, %hin;", "cvta.to.global.u64 %hout, %hout;",
              "cvta.to.global.u64 %hscr, %hscr;",
              "mov.u32 %hrow, %ctaid.x;", "mov.u32 %htid, %tid.x;",
              f"mul.wide.u32 %hoff, %hrow, {nin * 8};", "add.u64 %hin, %hin, %hoff;",
              f"mad.lo.u32 %hv, %hrow, {c['threads']}, %htid;",
              f"mul.wide.u32 %hoff, %hv, {max(nout, 1) * 8};", "add.u64 %hout, %hout, %hoff;",
              "mul.wide.u32 %hoff, %hrow, 64;", "add.u64 %hscr, %hscr, %hoff;"]
    for i, (name, t) in enumerate(c["ins"]):
        if t == "pred":
            lines += [f"ld.global.u32 %hv, [%hin+{8 * i}];", f"setp.ne.u32 {name}, %hv, 0;"]
        elif t == "gptr":
            lines.append(f"mov.u64 {name}, %hscr;")
        else:
            lines.append(f"ld.global.b{WIDTH[t]} {name}, [%hin+{8 * i}];")
    lines.append(code)
    for j, (name, t) in enumerate(c["outs"]):
        if t == "pred":
            lines += [f"selp.u32 %hv, 1, 0, {name};", f"st.global.u32 [%hout+{8 * j}], %hv;"]
        else:
            lines.append(f"st.global.b{WIDTH[t]} [%hout+{8 * j}], {name};")
    lines += ["ret;", "}"]
    return "\n".join(lines)


def snippet_text(c):
    """The snippet as the interpreter runs it: declarations, then code."""
    decls = []
    declared = set()
    for name, t in c["ins"] + c["outs"]:
        if name not in declared and name not in declared_in(c["decls"]):
            decls.append(reg_decl(name, t))
            declared.add(name)
    if c["decls"]:
        decls.append(c["decls"])
    module = c["module"] + "\n" if c["module"] else ""
    return module + "\n".join(decls) + "\n" + c["code"] + "\n"


def generate():
    gen_integer()
    gen_logic()
    gen_compare()
    gen_float()
    gen_cvt()
    gen_memory()
    gen_warp()
    gen_wmma()
    gen_matrix()
    gen_mma()
    gen_async()
    return CASES


def modules(cases, per_module=40):
    out = []
    for start in range(0, len(cases), per_module):
        body = [HEADER]
        for i in range(start, min(start + per_module, len(cases))):
            body.append(kernel(i, cases[i]))
        out.append((start, "\n\n".join(body) + "\n"))
    return out


def hexw(bits, width):
    if width == 1:
        return str(bits & 1)
    return "0x{:0{}x}".format(bits & ((1 << width) - 1), max(width // 4, 2))


def run_snippets(outdir):
    import cupy as cp
    import numpy as np
    cases = generate()
    import tempfile
    workdir = tempfile.mkdtemp(prefix="ptx-fixtures-")
    lines = []
    failures = []
    for start, text in modules(cases):
        path = os.path.join(workdir, f"mod{start}.ptx")
        with open(path, "w") as f:
            f.write(text)
        try:
            mod = cp.RawModule(path=path)
            mod.get_function(f"case{start}")
        except Exception as e:  # compile kernels one by one to isolate the broken one
            failures.append(f"module {start}: {str(e)[:400]}")
            mod = None
        for i in range(start, min(start + 40, len(cases))):
            c = cases[i]
            try:
                if mod is not None:
                    fn = mod.get_function(f"case{i}")
                else:
                    single = os.path.join(workdir, f"single{i}.ptx")
                    with open(single, "w") as f:
                        f.write(HEADER + kernel(i, c) + "\n")
                    fn = cp.RawModule(path=single).get_function(f"case{i}")
                rows = c["rows"]
                nin, nout, threads = len(c["ins"]), max(len(c["outs"]), 1), c["threads"]
                inp = np.zeros((len(rows), max(nin, 1)), dtype=np.uint64)
                for r, row in enumerate(rows):
                    for k, v in enumerate(row):
                        inp[r, k] = np.uint64(v & 0xffffffffffffffff)
                d_in = cp.asarray(inp)
                d_out = cp.zeros((len(rows) * threads * nout,), dtype=np.uint64)
                d_scr = cp.zeros((len(rows) * 8,), dtype=np.uint64)
                fn((len(rows),), (threads,), (d_in, d_out, d_scr))
                cp.cuda.runtime.deviceSynchronize()
                out = cp.asnumpy(d_out).reshape(len(rows), threads, nout)
            except Exception as e:
                failures.append(f"case {i}: {str(e)[:300]}\n{c['code']}")
                continue
            out_rows = []
            for r, row in enumerate(rows):
                sets = [hexw(v, WIDTH[t]) for (name, t), v in zip(c["ins"], row)]
                expect = [[hexw(int(out[r, th, j]), WIDTH[t]) for j, (name, t) in enumerate(c["outs"])]
                          for th in range(threads)]
                out_rows.append({"set": sets, "expect": expect})
            lines.append({"id": i, "family": c["family"], "snippet": snippet_text(c), "threads": c["threads"],
                          "approx": c["approx"], "inputs": [n for n, _ in c["ins"]],
                          "outputs": [n for n, _ in c["outs"]], "rows": out_rows})
    with open(os.path.join(outdir, "gpu_snippets.jsonl"), "w") as f:
        for line in lines:
            f.write(json.dumps(line, separators=(",", ":")) + "\n")
    with open(os.path.join(outdir, "failures.txt"), "w") as f:
        f.write("\n".join(failures) + "\n")
    print(f"{len(cases)} cases, {len(lines)} ran, {sum(len(l['rows']) for l in lines)} rows,"
          f" {len(failures)} failures")


# ------------------------------------------------------------------ kernels

# Kernel arguments draw from their own generator so that adding a kernel run
# does not change the snippet cases.
krng = random.Random(SEED + 1)

STATS_INIT = "buf:hex:" + "".join(v.to_bytes(4, "little").hex() for v in [
    0, 0xffffffff, 0, 0, 0xffffffff, 0, 0, 0, 0, 0, 0x80000000, 0x7fffffff])

KERNEL_RUNS = [
    ("specials.ptx", "specials", [2, 3, 2], [4, 3, 5], ["zeros:23040"]),
    ("specials.ptx", "specials", [5, 1, 1], [33, 1, 1], ["zeros:5280"]),
    ("histogram.ptx", "histogram", [3, 1, 1], [96, 1, 1],
     ["buf:u32:" + ",".join(str(krng.getrandbits(32)) for _ in range(1000)), "zeros:128", STATS_INIT, "u32:1000"]),
    # file, entry, grid, block, args
    ("reduce.ptx", "reduce_sum", [4, 1, 1], [128, 1, 1],
     ["buf:u32:" + ",".join(str(krng.randrange(0, 1 << 20)) for _ in range(512)), "zeros:16", "u32:512"]),
    ("reduce.ptx", "reduce_sum", [3, 1, 1], [64, 1, 1],
     ["buf:u32:" + ",".join(str(krng.randrange(0, 1 << 31)) for _ in range(150)), "zeros:12", "u32:150"]),
    ("bitonic.ptx", "bitonic_sort", [1, 1, 1], [256, 1, 1],
     ["buf:u32:" + ",".join(str(krng.getrandbits(32)) for _ in range(256))]),
    ("bitonic.ptx", "bitonic_sort", [1, 1, 1], [64, 1, 1],
     ["buf:u32:" + ",".join(str(krng.randrange(0, 10)) for _ in range(64))]),
    ("scan.ptx", "prefix_sum", [2, 1, 1], [128, 1, 1],
     ["buf:f32:" + ",".join(repr(round(krng.uniform(-10, 10), 3)) for _ in range(256)), "zeros:1024"]),
    ("scan.ptx", "prefix_sum", [1, 1, 1], [96, 1, 1],
     ["buf:f32:" + ",".join(repr(float(krng.randrange(-5, 6))) for _ in range(96)), "zeros:384"]),
]


def f16_bits(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


# ldmatrix + mma GEMM tile with small integers: every order of summation
# gives the same result.
KERNEL_RUNS += [
    ("mma_tile.ptx", "mma_tile", [3, 1, 1], [32, 1, 1],
     ["buf:u16:" + ",".join(str(f16_bits(krng.randrange(-3, 4))) for _ in range(48 * 32)),
      "buf:u16:" + ",".join(str(f16_bits(krng.randrange(-3, 4))) for _ in range(32 * 8)),
      "buf:f32:" + ",".join(repr(float(krng.randrange(-9, 10))) for _ in range(8)), "zeros:1536"]),
]


def parse_arg(spec):
    import numpy as np
    kind, rest = spec.split(":", 1)
    dtypes = {"u8": np.uint8, "s8": np.int8, "u16": np.uint16, "s16": np.int16, "u32": np.uint32,
              "s32": np.int32, "u64": np.uint64, "s64": np.int64, "f32": np.float32, "f64": np.float64,
              "b32": np.uint32, "b64": np.uint64}
    if kind == "zeros":
        return ("buf", np.zeros(int(rest), dtype=np.uint8))
    if kind == "buf":
        t, values = rest.split(":", 1)
        if t == "hex":
            return ("buf", np.frombuffer(bytes.fromhex(values), dtype=np.uint8).copy())
        arr = np.array([float(v) if t[0] == "f" else int(v) for v in values.split(",")], dtype=dtypes[t])
        return ("buf", arr.view(np.uint8).copy())
    return ("scalar", dtypes[kind](float(rest) if kind[0] == "f" else int(rest)))


def run_kernels(outdir):
    import cupy as cp
    results = []
    for file, entry, grid, block, args in KERNEL_RUNS:
        path = os.path.join(HERE, "kernels", file)
        try:
            fn = cp.RawModule(path=path).get_function(entry)
            parsed = [parse_arg(a) for a in args]
            dev = [cp.asarray(v) if k == "buf" else v for k, v in parsed]
            fn(tuple(grid), tuple(block), tuple(dev))
            cp.cuda.runtime.deviceSynchronize()
            buffers = [{"arg": i, "hex": cp.asnumpy(d).tobytes().hex()}
                       for i, ((k, _), d) in enumerate(zip(parsed, dev)) if k == "buf"]
            results.append({"file": file, "entry": entry, "grid": grid, "block": block, "args": args,
                            "buffers": buffers})
        except Exception as e:
            results.append({"file": file, "entry": entry, "error": str(e)[:500]})
    with open(os.path.join(outdir, "gpu_kernels.jsonl"), "w") as f:
        for r in results:
            f.write(json.dumps(r) + "\n")
    print(f"{len(results)} kernel runs, {sum(1 for r in results if 'error' in r)} errors")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--emit":
        os.makedirs(sys.argv[2], exist_ok=True)
        cases = generate()
        for start, text in modules(cases):
            with open(os.path.join(sys.argv[2], f"mod{start}.ptx"), "w") as f:
                f.write(text)
        print(f"{len(cases)} cases, {sum(len(c['rows']) for c in cases)} rows")
    elif len(sys.argv) == 3 and sys.argv[1] == "--run":
        os.makedirs(sys.argv[2], exist_ok=True)
        # Kernels first: a trapping snippet ends the CUDA context.
        run_kernels(sys.argv[2])
        run_snippets(sys.argv[2])
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
