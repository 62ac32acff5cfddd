#!/usr/bin/env python3
"""A held-out style measurement: 2,000 seeded warp snippets of every kind,
run on the GPU and by the interpreter, compared bit for bit.

The snippets are built here from scratch, not from the other fixture
generators: each operand of the instruction under test is chosen per lane
from four row inputs (so one warp mixes special values, immediates and
identical registers), warp-level instructions run inside divergent branches
with their member masks in registers, and short chains feed one result into
the next instruction.

    python3 tests/interp/heldout_snippets.py --emit DIR   # PTX modules (check with ptxas)
    python3 tests/interp/heldout_snippets.py --run OUT    # on an sm_90 GPU with CuPy

`--run` writes OUT/heldout_snippets.jsonl.zz (zlib-compressed JSON lines,
one per snippet: id, kind, snippet text as the interpreter runs it,
threads, inputs, outputs, rows of {"set", "expect"} with one list of output
bits per thread) and OUT/failures.txt (snippets the GPU's compiler
refused). The file is copied to server/interp/fixtures/ and replayed by
`cargo test -p ptx-interp --test heldout`.
"""

import json
import os
import random
import re
import struct
import sys
import zlib

# HELDOUT_SEED=N draws another set of the same kinds (a fresh measurement).
SEED = int(os.environ.get("HELDOUT_SEED", "20261127"))
COUNT = 2000
HEADER = ".version 8.7\n.target sm_90a\n.address_size 64\n"
WIDTH = {"pred": 1, "b16": 16, "b32": 32, "b64": 64, "f32": 32, "f64": 64}


def f32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f64(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


class Values:
    """Value generators by kind, biased towards values at the edges."""

    def __init__(self, r):
        self.r = r

    def int(self, bits):
        r = self.r
        m = (1 << bits) - 1
        x = r.random()
        if x < 0.25:
            return r.choice([0, 1, 2, 3, bits - 1, bits, bits + 1, m, m - 1, m >> 1, (m >> 1) + 1,
                             0xff, 0x80, 0x7f, 0x100, 0xffff & m, 0x8000 & m, 0x7fff]) & m
        if x < 0.45:
            return r.randrange(0, 70)
        if x < 0.55:
            return (-r.randrange(1, 70)) & m
        if x < 0.65:
            return (1 << r.randrange(bits)) ^ (r.getrandbits(bits) if r.random() < 0.3 else 0)
        return r.getrandbits(bits)

    def f32(self):
        r = self.r
        x = r.random()
        if x < 0.3:
            return r.choice([0, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000,
                             0xffc00000, 0x7f800001, 0x7fbfffff, 0xff812345, 0x7fd23456, 0x00000001,
                             0x807fffff, 0x00800000, 0x7f7fffff, 0xff7fffff, 0x4b800001, 0x4f000000,
                             0xcf000000, 0x5f000000, 0x3effffff, 0x3f000000, 0x34000000, 0x4effffff,
                             0x477fe000, 0x477ff000, 0x38800000, 0x33800000, 0x00400000, 0x3f7fffff])
        if x < 0.55:
            return f32(r.choice([1, -1, 0.5, 2, 3]) * r.randrange(-300, 300) / r.choice([1, 2, 4, 8, 3, 7]))
        if x < 0.75:
            return f32(r.uniform(-1, 1) * 2.0 ** r.randrange(-150, 128))
        return r.getrandbits(32)

    def f64(self):
        r = self.r
        x = r.random()
        if x < 0.3:
            return r.choice([0, 1 << 63, 0x3ff0000000000000, 0xbff0000000000000, 0x7ff0000000000000,
                             0xfff0000000000000, 0x7ff8000000000000, 0xfff8000000000000, 0x7ff0000000000001,
                             0x7ff4000000000000, 0xfff8000000001234, 0x0000000000000001, 0x000fffffffffffff,
                             0x0010000000000000, 0x7fefffffffffffff, 0x43e0000000000000, 0xc3e0000000000000,
                             0x41efffffffe00000, 0x47efffffe0000000, 0x47efffff00000000, 0x36a0000000000000,
                             0x3fe0000000000000, 0x3fdfffffffffffff])
        if x < 0.55:
            return f64(r.choice([1, -1, 0.5, 2]) * r.randrange(-3000, 3000) / r.choice([1, 2, 4, 3, 10]))
        if x < 0.75:
            return f64(r.uniform(-1, 1) * 2.0 ** r.randrange(-1080, 1024))
        return r.getrandbits(64)

    def half(self, bf=False):
        r = self.r
        x = r.random()
        if x < 0.3:
            if bf:
                return r.choice([0, 0x8000, 0x3f80, 0xbf80, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7f81, 0xffa1,
                                 0x0001, 0x807f, 0x0080, 0x7f7f, 0xff7f, 0x3f00, 0x4b00, 0x3f81])
            return r.choice([0, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01, 0xfd23,
                             0x0001, 0x83ff, 0x0400, 0x7bff, 0xfbff, 0x3800, 0x6400, 0x3c01, 0x1000, 0x5bff])
        if x < 0.7:
            base = 0x3f80 if bf else 0x3c00
            return (base + r.randrange(-0x900, 0x900) + (0x8000 if r.random() < 0.4 else 0)) & 0xffff
        return r.getrandbits(16)

    def of(self, kind):
        if kind in ("u8", "s8"):
            return self.int(8)
        if kind in ("u16", "s16", "b16"):
            return self.int(16)
        if kind in ("u32", "s32", "b32"):
            return self.int(32)
        if kind in ("u64", "s64", "b64"):
            return self.int(64)
        if kind == "f32":
            return self.f32()
        if kind == "f64":
            return self.f64()
        if kind == "f16":
            return self.half()
        if kind == "bf16":
            return self.half(True)
        if kind == "f16x2":
            return self.half() << 16 | self.half()
        if kind == "bf16x2":
            return self.half(True) << 16 | self.half(True)
        if kind == "pred":
            return self.r.getrandbits(1)
        if kind == "small":
            return self.r.randrange(0, 40)
        if kind == "e4m3x2" or kind == "e5m2x2":
            return self.r.getrandbits(16)
        if kind == "tf32":
            return self.f32() & 0xffffe000 if self.r.random() < 0.7 else self.f32()
        raise ValueError(kind)


REG = {"u8": "b16", "s8": "b16", "u16": "b16", "s16": "b16", "b16": "b16", "f16": "b16", "bf16": "b16",
       "e4m3x2": "b16", "e5m2x2": "b16",
       "u32": "b32", "s32": "b32", "b32": "b32", "f16x2": "b32", "bf16x2": "b32", "small": "b32", "tf32": "b32",
       "u64": "b64", "s64": "b64", "b64": "b64", "f32": "f32", "f64": "f64", "pred": "pred"}


class Snippet:
    """A snippet under construction: inputs (uniform per row), the lane
    selection of operands, the code and the outputs."""

    def __init__(self, r, kind, threads=32):
        self.r = r
        self.v = Values(r)
        self.kind = kind
        self.threads = threads
        self.ins = []        # (name, regtype, value kind)
        self.decl = {}       # name -> regtype
        self.order = []
        self.pre = []        # lane selection code
        self.code = []
        self.outs = []
        self.top = []        # module-level (.shared) declarations
        self.n = 0
        self.lane_bits = {}

    def reg(self, regtype, prefix="r"):
        self.n += 1
        name = f"%{prefix}{self.n}"
        self.decl[name] = regtype
        self.order.append(name)
        return name

    def lane(self):
        if "%ln" not in self.decl:
            self.decl["%ln"] = "b32"
            self.order.append("%ln")
            self.pre.insert(0, "mov.u32 %ln, %laneid;")
        return "%ln"

    def lane_bit(self, b):
        if b not in self.lane_bits:
            lane = self.lane()
            t = self.reg("b32", "t")
            p = self.reg("pred", "p")
            self.pre += [f"and.b32 {t}, {lane}, {1 << b};", f"setp.ne.u32 {p}, {t}, 0;"]
            self.lane_bits[b] = p
        return self.lane_bits[b]

    def input(self, kind):
        name = self.reg(REG[kind], "i")
        self.ins.append((name, REG[kind], kind))
        return name

    def operand(self, kind, spread=True):
        """A register holding one of four row inputs per lane (two lane bits
        at a random position), or one input in every lane."""
        t = REG[kind]
        if not spread or self.r.random() < 0.15:
            return self.input(kind)
        vals = [self.input(kind) for _ in range(4)]
        s = self.r.randrange(0, 4)
        p0, p1 = self.lane_bit(s), self.lane_bit(s + 1)
        if t == "pred":
            x, y, d = self.reg("pred", "q"), self.reg("pred", "q"), self.reg("pred", "o")
            self.pre += [f"xor.pred {x}, {vals[0]}, {p0};", f"and.pred {y}, {vals[1]}, {p1};",
                         f"or.pred {d}, {x}, {y};"]
            return d
        x, y, d = self.reg(t, "s"), self.reg(t, "s"), self.reg(t, "o")
        sel = "b" + str(WIDTH[t]) if t in ("b16", "b32", "b64") else t
        self.pre += [f"selp.{sel} {x}, {vals[1]}, {vals[0]}, {p0};",
                     f"selp.{sel} {y}, {vals[3]}, {vals[2]}, {p0};",
                     f"selp.{sel} {d}, {y}, {x}, {p1};"]
        return d

    def out(self, regtype, prefix="d"):
        name = self.reg(regtype, prefix)
        self.outs.append((name, regtype))
        return name

    def emit(self, line):
        # `[%reg+hsm...]`: the shared array's address plus a register offset
        m = re.search(r"\[(%\w+)\+hsm", line)
        if m:
            if "%hb" not in self.decl:
                self.decl["%hb"] = "b32"
                self.order.append("%hb")
                self.pre.insert(0, "mov.u32 %hb, hsm;")
            x = self.reg("b32", "x")
            self.code.append(f"add.u32 {x}, {m.group(1)}, %hb;")
            line = line.replace(m.group(0), f"[{x}")
        self.code.append(line)

    def rows(self, n):
        return [[self.v.of(k) for _, _, k in self.ins] for _ in range(n)]

    def decls(self):
        lines = list(self.top)
        for name in self.order:
            lines.append(f".reg .{self.decl[name]} {name};")
        return lines

    def body(self):
        return self.pre + self.code


def pick(r, xs):
    return r.choice(xs)


def imm_int(r, bits, signed=False):
    m = (1 << bits) - 1
    v = r.choice([0, 1, 2, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256, m, m >> 1,
                  r.getrandbits(bits), r.randrange(0, 100)]) & m
    if signed and v > (m >> 1) and r.random() < 0.5:
        return str(v - (1 << bits))
    return hex(v) if r.random() < 0.5 else str(v)


def src(s, kind, allow_imm=True, signed=False, same=None):
    """An operand: a lane-spread register, an immediate or (identical
    operands) a register already used."""
    r = s.r
    x = r.random()
    if same is not None and x < 0.15:
        return same
    if allow_imm and x < 0.3 and kind in ("u16", "s16", "u32", "s32", "u64", "s64", "b16", "b32", "b64"):
        bits = int(kind[1:])
        return imm_int(r, bits, signed or kind[0] == "s")
    if allow_imm and x < 0.3 and kind == "f32" and r.random() < 0.5:
        return "0f%08X" % s.v.f32()
    if allow_imm and x < 0.3 and kind == "f64" and r.random() < 0.5:
        return "0d%016X" % s.v.f64()
    return s.operand(kind)


# ------------------------------------------------------------------ integer

def k_integer(s):
    r = s.r
    t = pick(r, ["u16", "s16", "u32", "s32", "u64", "s64"])
    rt = REG[t]
    bits = int(t[1:])
    op = pick(r, ["add", "sub", "mul.lo", "mul.hi", "mul.wide", "mad.lo", "mad.hi", "mad.wide", "div", "rem",
                  "min", "max", "abs", "neg", "sad", "add.sat", "mul24", "mad24", "cc", "popc", "clz", "bfind",
                  "brev", "dp4a", "dp2a", "szext", "bmsk", "minmax2", "relu", "madhisat"])
    a = src(s, t, allow_imm=False)
    b = src(s, t, same=a)
    if op in ("add", "sub", "min", "max", "div", "rem"):
        s.emit(f"{op}.{t} {s.out(rt)}, {a}, {b};")
    elif op in ("mul.lo", "mul.hi"):
        s.emit(f"{op}.{t} {s.out(rt)}, {a}, {b};")
    elif op == "mul.wide":
        if bits == 64:
            t, rt = pick(r, ["u32", "s32"]), "b32"
            a, b = src(s, t, False), src(s, t)
        s.emit(f"mul.wide.{t} {s.out('b' + str(2 * int(t[1:])))}, {a}, {b};")
    elif op in ("mad.lo", "mad.hi"):
        if bits == 16:
            t, rt = pick(r, ["u32", "s32"]), "b32"
            a, b = src(s, t, False), src(s, t)
        c = src(s, t, same=b)
        s.emit(f"{op}.{t} {s.out(rt)}, {a}, {b}, {c};")
    elif op == "mad.wide":
        if bits == 64:
            t = pick(r, ["u32", "s32"])
            a, b = src(s, t, False), src(s, t)
        wide = "b" + str(2 * int(t[1:]))
        c = src(s, ("u" if t[0] == "u" else "s") + str(2 * int(t[1:])))
        s.emit(f"mad.wide.{t} {s.out(wide)}, {a}, {b}, {c};")
    elif op in ("abs", "neg"):
        t = "s" + t[1:]
        s.emit(f"{op}.{t} {s.out(rt)}, {a};")
    elif op == "sad":
        c = src(s, t)
        s.emit(f"sad.{t} {s.out(rt)}, {a}, {b}, {c};")
    elif op == "add.sat":
        a, b = src(s, "s32", False), src(s, "s32", same=None)
        s.emit(f"{pick(r, ['add', 'sub'])}.sat.s32 {s.out('b32')}, {a}, {b};")
    elif op == "madhisat":
        a, b, c = src(s, "s32", False), src(s, "s32"), src(s, "s32")
        s.emit(f"mad.hi.sat.s32 {s.out('b32')}, {a}, {b}, {c};")
    elif op in ("mul24", "mad24"):
        t = pick(r, ["u32", "s32"])
        a, b = src(s, t, False), src(s, t)
        hl = pick(r, ["lo", "hi"])
        if op == "mul24":
            s.emit(f"mul24.{hl}.{t} {s.out('b32')}, {a}, {b};")
        else:
            sat = ".sat" if hl == "hi" and t == "s32" and r.random() < 0.5 else ""
            s.emit(f"mad24.{hl}{sat}.{t} {s.out('b32')}, {a}, {b}, {src(s, t)};")
    elif op == "cc":
        # A multi-word add or subtract chain, or mad.cc / madc.
        w = pick(r, ["u32", "u64"]) if r.random() < 0.8 else "s32"
        wt = REG[w]
        x = [src(s, w, False) for _ in range(3)]
        y = [src(s, w, same=x[0]) for _ in range(3)]
        if r.random() < 0.3:
            s.emit(f"mad.lo.cc.{w} {s.out(wt)}, {x[0]}, {y[0]}, {x[1]};")
            s.emit(f"madc.hi.cc.{w} {s.out(wt)}, {x[0]}, {y[0]}, {y[1]};")
            s.emit(f"addc.{w} {s.out(wt)}, {x[2]}, {y[2]};")
        else:
            o = pick(r, ["add", "sub"])
            s.emit(f"{o}.cc.{w} {s.out(wt)}, {x[0]}, {y[0]};")
            s.emit(f"{o}c.cc.{w} {s.out(wt)}, {x[1]}, {y[1]};")
            s.emit(f"{o}c.{w} {s.out(wt)}, {x[2]}, {y[2]};")
    elif op in ("popc", "clz", "brev"):
        w = pick(r, ["b32", "b64"])
        a = src(s, w, False)
        s.emit(f"{op}.{w} {s.out('b32' if op != 'brev' else w)}, {a};")
    elif op == "bfind":
        w = pick(r, ["u32", "s32", "u64", "s64"])
        a = src(s, w, False)
        sh = ".shiftamt" if r.random() < 0.5 else ""
        s.emit(f"bfind{sh}.{w} {s.out('b32')}, {a};")
    elif op == "dp4a":
        ta, tb = pick(r, ["u32", "s32"]), pick(r, ["u32", "s32"])
        a, b, c = src(s, "b32", False), src(s, "b32"), src(s, "b32")
        s.emit(f"dp4a.{ta}.{tb} {s.out('b32')}, {a}, {b}, {c};")
    elif op == "dp2a":
        ta, tb = pick(r, ["u32", "s32"]), pick(r, ["u32", "s32"])
        a, b, c = src(s, "b32", False), src(s, "b32"), src(s, "b32")
        s.emit(f"dp2a.{pick(r, ['lo', 'hi'])}.{ta}.{tb} {s.out('b32')}, {a}, {b}, {c};")
    elif op == "szext":
        a, b = src(s, "b32", False), src(s, "u32")
        s.emit(f"szext.{pick(r, ['wrap', 'clamp'])}.{pick(r, ['u32', 's32'])} {s.out('b32')}, {a}, {b};")
    elif op == "bmsk":
        a, b = src(s, "u32", False), src(s, "u32")
        s.emit(f"bmsk.{pick(r, ['wrap', 'clamp'])}.b32 {s.out('b32')}, {a}, {b};")
    elif op == "minmax2":
        w = pick(r, ["u16x2", "s16x2"])
        a, b = src(s, "b32", False), src(s, "b32", False)
        s.emit(f"{pick(r, ['min', 'max'])}.{w} {s.out('b32')}, {a}, {b};")
    elif op == "relu":
        w = pick(r, ["s32", "s16x2"])
        a, b = src(s, "b32", False), src(s, "b32", w == "s32")
        s.emit(f"{pick(r, ['min', 'max'])}.relu.{w} {s.out('b32')}, {a}, {b};")


# -------------------------------------------------------------------- float

RND = ["rn", "rz", "rm", "rp"]


def k_float(s):
    r = s.r
    t = pick(r, ["f32", "f32", "f32", "f64", "f16"])
    if t == "f16":
        return k_f16(s)
    a = src(s, t, allow_imm=False)
    b = src(s, t, same=a)
    ftz = ".ftz" if t == "f32" and r.random() < 0.4 else ""
    op = pick(r, ["add", "sub", "mul", "fma", "div", "rcp", "sqrt", "minmax", "absneg", "copysign", "testp",
                  "setp", "set", "approx", "selp", "slct", "chain"])
    if op in ("add", "sub", "mul"):
        rnd = "." + pick(r, RND) if r.random() < 0.7 else ""
        sat = ".sat" if t == "f32" and r.random() < 0.25 else ""
        s.emit(f"{op}{rnd}{ftz}{sat}.{t} {s.out(t)}, {a}, {b};")
    elif op == "fma":
        c = src(s, t, same=b)
        sat = ".sat" if t == "f32" and r.random() < 0.25 else ""
        s.emit(f"fma.{pick(r, RND)}{ftz}{sat}.{t} {s.out(t)}, {a}, {b}, {c};")
    elif op == "div":
        if t == "f32" and r.random() < 0.4:
            s.emit(f"div.{pick(r, ['full', 'approx'])}{ftz}.f32 {s.out(t)}, {a}, {b};")
        else:
            s.emit(f"div.{pick(r, RND)}{ftz}.{t} {s.out(t)}, {a}, {b};")
    elif op in ("rcp", "sqrt"):
        if t == "f32" and r.random() < 0.3:
            s.emit(f"{op}.approx{ftz}.f32 {s.out(t)}, {a};")
        elif t == "f64" and op == "rcp" and r.random() < 0.3:
            s.emit(f"rcp.approx.ftz.f64 {s.out(t)}, {a};")
        else:
            s.emit(f"{op}.{pick(r, RND)}{ftz}.{t} {s.out(t)}, {a};")
    elif op == "minmax":
        mods = ""
        if t == "f32":
            if r.random() < 0.4:
                mods += ".NaN"
            if r.random() < 0.3:
                mods += ".xorsign.abs"
        s.emit(f"{pick(r, ['min', 'max'])}{ftz}{mods}.{t} {s.out(t)}, {a}, {b};")
    elif op == "absneg":
        s.emit(f"{pick(r, ['abs', 'neg'])}{ftz}.{t} {s.out(t)}, {a};")
    elif op == "copysign":
        s.emit(f"copysign.{t} {s.out(t)}, {a}, {b};")
    elif op == "testp":
        m = pick(r, ["finite", "infinite", "number", "notanumber", "normal", "subnormal"])
        s.emit(f"testp.{m}.{t} {s.out('pred')}, {a};")
    elif op == "setp":
        cmp = pick(r, ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"])
        p = s.out("pred")
        if r.random() < 0.4:
            q = s.out("pred")
            c = s.operand("pred")
            s.emit(f"setp.{cmp}.{pick(r, ['and', 'or', 'xor'])}{ftz}.{t} {p}|{q}, {a}, {b}, {'!' if r.random() < 0.5 else ''}{c};")
        else:
            s.emit(f"setp.{cmp}{ftz}.{t} {p}, {a}, {b};")
    elif op == "set":
        cmp = pick(r, ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"])
        dt = pick(r, ["u32", "s32", "f32"])
        s.emit(f"set.{cmp}{ftz}.{dt}.{t} {s.out('f32' if dt == 'f32' else 'b32')}, {a}, {b};")
    elif op == "approx":
        if t == "f64":
            s.emit(f"rsqrt.approx.f64 {s.out(t)}, {a};")
        else:
            fn = pick(r, ["ex2", "lg2", "sin", "cos", "rsqrt", "tanh"])
            f = "" if fn == "tanh" else ftz
            s.emit(f"{fn}.approx{f}.f32 {s.out(t)}, {a};")
    elif op == "selp":
        s.emit(f"selp.{t} {s.out(t)}, {a}, {b}, {s.operand('pred')};")
    elif op == "slct":
        c = src(s, "f32", allow_imm=False)
        dt = pick(r, ["b32", "u32", "s32", "f32"]) if t == "f32" else pick(r, ["b64", "u64", "s64", "f64"])
        a2, b2 = (a, b) if dt[0] == "f" else (src(s, dt, False), src(s, dt))
        s.emit(f"slct{ftz}.{dt}.f32 {s.out(REG.get(dt, dt))}, {a2}, {b2}, {c};")
    elif op == "chain":
        # mul then add: where ptxas contracts, the GPU runs one fma.
        m = s.reg(t, "m")
        c = src(s, t)
        s.emit(f"mul{ftz}.{t} {m}, {a}, {b};")
        s.emit(f"{pick(r, ['add', 'sub'])}{ftz}.{t} {s.out(t)}, {m}, {c};")


def k_f16(s):
    r = s.r
    t = pick(r, ["f16", "bf16"])
    a = src(s, t, allow_imm=False)
    b = src(s, t, same=a)
    op = pick(r, ["add", "sub", "mul", "fma", "min", "max", "neg", "abs", "ex2", "tanh", "setp"])
    if op in ("add", "sub", "mul"):
        mods = ".rn" if t == "bf16" or r.random() < 0.5 else ""
        if t == "f16" and r.random() < 0.3:
            mods += ".ftz"
        if t == "f16" and r.random() < 0.3:
            mods += ".sat"
        s.emit(f"{op}{mods}.{t} {s.out('b16')}, {a}, {b};")
    elif op == "fma":
        mods = ".rn"
        if t == "f16" and r.random() < 0.3:
            mods += ".ftz"
        if r.random() < 0.3:
            mods += ".relu" if t == "bf16" or r.random() < 0.5 else (".sat" if t == "f16" else "")
        s.emit(f"fma{mods}.{t} {s.out('b16')}, {a}, {b}, {src(s, t, False)};")
    elif op in ("min", "max"):
        mods = ""
        if t == "f16" and r.random() < 0.3:
            mods += ".ftz"
        if r.random() < 0.4:
            mods += ".NaN"
        if r.random() < 0.3:
            mods += ".xorsign.abs"
        s.emit(f"{op}{mods}.{t} {s.out('b16')}, {a}, {b};")
    elif op in ("neg", "abs"):
        mods = ".ftz" if t == "f16" and r.random() < 0.3 else ""
        s.emit(f"{op}{mods}.{t} {s.out('b16')}, {a};")
    elif op == "ex2":
        s.emit(f"ex2.approx{'.ftz' if t == 'bf16' else ''}.{t} {s.out('b16')}, {a};")
    elif op == "tanh":
        s.emit(f"tanh.approx.{t} {s.out('b16')}, {a};")
    elif op == "setp":
        if t == "bf16":
            a, b = src(s, "f16", False), src(s, "f16")
        cmp = pick(r, ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"])
        s.emit(f"setp.{cmp}.f16 {s.out('pred')}, {a}, {b};")


def k_half2(s):
    r = s.r
    t = pick(r, ["f16x2", "bf16x2"])
    a = src(s, t, allow_imm=False)
    b = src(s, t, same=a)
    op = pick(r, ["add", "sub", "mul", "fma", "min", "max", "neg", "abs", "ex2", "tanh", "setp", "set", "cvt",
                  "mov", "fmarelu"])
    if op in ("add", "sub", "mul"):
        mods = ".rn" if t == "bf16x2" or r.random() < 0.5 else ""
        if t == "f16x2" and r.random() < 0.3:
            mods += ".ftz"
        if t == "f16x2" and r.random() < 0.3:
            mods += ".sat"
        s.emit(f"{op}{mods}.{t} {s.out('b32')}, {a}, {b};")
    elif op in ("fma", "fmarelu"):
        mods = ".rn"
        if t == "f16x2" and r.random() < 0.3:
            mods += ".ftz"
        if op == "fmarelu":
            mods += ".relu"
        elif t == "f16x2" and r.random() < 0.3:
            mods += ".sat"
        s.emit(f"fma{mods}.{t} {s.out('b32')}, {a}, {b}, {src(s, t, False, same=a)};")
    elif op in ("min", "max"):
        mods = ""
        if t == "f16x2" and r.random() < 0.3:
            mods += ".ftz"
        if r.random() < 0.4:
            mods += ".NaN"
        if r.random() < 0.3:
            mods += ".xorsign.abs"
        s.emit(f"{op}{mods}.{t} {s.out('b32')}, {a}, {b};")
    elif op in ("neg", "abs"):
        mods = ".ftz" if t == "f16x2" and r.random() < 0.3 else ""
        s.emit(f"{op}{mods}.{t} {s.out('b32')}, {a};")
    elif op == "ex2":
        s.emit(f"ex2.approx{'.ftz' if t == 'bf16x2' else ''}.{t} {s.out('b32')}, {a};")
    elif op == "tanh":
        s.emit(f"tanh.approx.{t} {s.out('b32')}, {a};")
    elif op in ("setp", "set"):
        a, b = src(s, "f16x2", False), src(s, "f16x2", same=a)
        cmp = pick(r, ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"])
        ftz = ".ftz" if r.random() < 0.3 else ""
        if op == "setp":
            s.emit(f"setp.{cmp}{ftz}.f16x2 {s.out('pred')}|{s.out('pred')}, {a}, {b};")
        else:
            dt = pick(r, ["u32", "s32", "f16x2"])
            s.emit(f"set.{cmp}{ftz}.{dt}.f16x2 {s.out('b32')}, {a}, {b};")
    elif op == "cvt":
        x, y = src(s, "f32", False), src(s, "f32")
        relu = ".relu" if r.random() < 0.3 else ""
        sat = ".satfinite" if r.random() < 0.3 else ""
        s.emit(f"cvt.rn{relu}{sat}.{t}.f32 {s.out('b32')}, {x}, {y};")
    elif op == "mov":
        lo, hi = s.reg("b16", "h"), s.reg("b16", "h")
        s.emit(f"mov.b32 {{{lo}, {hi}}}, {a};")
        s.emit(f"{pick(r, ['add', 'mul', 'sub'])}.rn.{t[:-2]} {lo}, {lo}, {hi};")
        s.emit(f"mov.b32 {s.out('b32')}, {{{hi}, {lo}}};")


# -------------------------------------------------------------- conversions

INTS = ["u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64"]
FLOATS = ["f16", "f32", "f64", "bf16"]


def int_range(t):
    bits = int(t[1:])
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if t[0] == "s" else (0, (1 << bits) - 1)


def contains(d, a):
    """Whether integer type d holds every value of type a (ptxas refuses
    .sat there)."""
    (dl, dh), (al, ah) = int_range(d), int_range(a)
    return dl <= al and ah <= dh


def k_cvt(s):
    r = s.r
    x = r.random()
    if x < 0.3:
        # float to integer
        ft = pick(r, ["f16", "f32", "f64"])
        it = pick(r, INTS)
        a = src(s, ft, allow_imm=False)
        ftz = ".ftz" if ft == "f32" and r.random() < 0.3 else ""
        sat = ".sat" if r.random() < 0.3 else ""
        d = s.out("b32" if it in ("u8", "s8") and r.random() < 0.5 else REG[it])
        s.emit(f"cvt.{pick(r, ['rni', 'rzi', 'rmi', 'rpi'])}{ftz}{sat}.{it}.{ft} {d}, {a};")
    elif x < 0.5:
        ft = pick(r, ["f16", "f32", "f64", "bf16"] if r.random() < 0.3 else ["f16", "f32", "f64"])
        it = pick(r, INTS)
        a = src(s, it, allow_imm=False)
        sat = ".sat" if ft != "bf16" and r.random() < 0.2 else ""
        s.emit(f"cvt.{pick(r, RND)}{sat}.{ft}.{it} {s.out(REG[ft])}, {a};")
    elif x < 0.7:
        # float to float
        pairs = [("f32", "f64", True), ("f16", "f32", True), ("f16", "f64", True), ("bf16", "f32", True),
                 ("f64", "f32", False), ("f32", "f16", False), ("f64", "f16", False), ("f32", "bf16", False),
                 ("f32", "f32", None), ("f64", "f64", None), ("f16", "f16", None), ("bf16", "f16", True),
                 ("f16", "bf16", True), ("bf16", "bf16", None), ("tf32", "f32", "tf32")]
        d, a_t, narrow = pick(r, pairs)
        a = src(s, a_t, allow_imm=False)
        if narrow == "tf32":
            mode = pick(r, ["rna", "rna.satfinite", "rn", "rz", "rn.relu", "rz.relu"])
            s.emit(f"cvt.{mode}.tf32.f32 {s.out('b32')}, {a};")
            return
        mods = ""
        if narrow is True:
            mods = "." + pick(r, RND if r.random() < 0.6 else ["rn", "rz"])
            if d in ("f16", "bf16") and a_t == "f32" and r.random() < 0.2 and mods in (".rn", ".rz"):
                mods += ".relu"
            if d in ("f16", "bf16") and a_t == "f32" and r.random() < 0.2 and mods.startswith((".rn", ".rz")):
                mods += ".satfinite"
        elif narrow is None:
            mods = "." + pick(r, ["rni", "rzi", "rmi", "rpi"])
        if d == "f32" or a_t == "f32":
            if r.random() < 0.3 and "satfinite" not in mods and d != "bf16" and a_t != "bf16":
                mods += ".ftz"
        if (r.random() < 0.2 and "bf16" not in (d, a_t) and "relu" not in mods and "satfinite" not in mods):
            mods += ".sat"
        s.emit(f"cvt{mods}.{d}.{a_t} {s.out(REG[d])}, {a};")
    elif x < 0.85:
        # integer to integer
        d, a_t = pick(r, INTS), pick(r, INTS)
        a = src(s, a_t, allow_imm=False)
        sat = ".sat" if r.random() < 0.5 and not contains(d, a_t) else ""
        dreg = REG[d] if r.random() < 0.6 else ("b32" if d in ("u8", "s8", "u16", "s16") else REG[d])
        s.emit(f"cvt{sat}.{d}.{a_t} {s.out(dreg)}, {a};")
    else:
        # packed conversions
        c = pick(r, ["pack2", "pack4", "e4m3", "e5m2", "fp8up", "f16x2fp8"])
        if c == "pack2":
            a, b = src(s, "s32", False), src(s, "s32")
            s.emit(f"cvt.pack.sat.{pick(r, ['u16', 's16'])}.s32 {s.out('b32')}, {a}, {b};")
        elif c == "pack4":
            a, b, cc = src(s, "s32", False), src(s, "s32"), src(s, "b32")
            s.emit(f"cvt.pack.sat.{pick(r, ['u8', 's8', 'u4', 's4', 'u2', 's2'])}.s32.b32 {s.out('b32')}, {a}, {b}, {cc};")
        elif c in ("e4m3", "e5m2"):
            a, b = src(s, "f32", False), src(s, "f32")
            relu = ".relu" if r.random() < 0.3 else ""
            s.emit(f"cvt.rn.satfinite{relu}.{c}x2.f32 {s.out('b16')}, {a}, {b};")
        elif c == "fp8up":
            a = src(s, "e4m3x2", False)
            relu = ".relu" if r.random() < 0.3 else ""
            s.emit(f"cvt.rn{relu}.f16x2.{pick(r, ['e4m3x2', 'e5m2x2'])} {s.out('b32')}, {a};")
        else:
            a = src(s, "f16x2", False)
            relu = ".relu" if r.random() < 0.3 else ""
            s.emit(f"cvt.rn.satfinite{relu}.{pick(r, ['e4m3x2', 'e5m2x2'])}.f16x2 {s.out('b16')}, {a};")


# ------------------------------------------------------------------ bit ops

def k_bits(s):
    r = s.r
    op = pick(r, ["logic", "lop3", "shift", "bfe", "bfi", "prmt", "shf", "not", "chain"])
    if op == "logic":
        t = pick(r, ["b16", "b32", "b64", "pred"])
        if t == "pred":
            a, b = s.operand("pred"), s.operand("pred")
            s.emit(f"{pick(r, ['and', 'or', 'xor'])}.pred {s.out('pred')}, {a}, {'!' if r.random() < 0.3 else ''}{b};")
        else:
            a = src(s, t, False)
            s.emit(f"{pick(r, ['and', 'or', 'xor'])}.{t} {s.out(t)}, {a}, {src(s, t, same=a)};")
    elif op == "not":
        t = pick(r, ["b16", "b32", "b64"])
        s.emit(f"{pick(r, ['not', 'cnot'])}.{t} {s.out(t)}, {src(s, t, False)};")
    elif op == "lop3":
        a = src(s, "b32", False)
        b, c = src(s, "b32", same=a), src(s, "b32", same=a)
        lut = r.getrandbits(8)
        s.emit(f"lop3.b32 {s.out('b32')}, {a}, {b}, {c}, {hex(lut) if r.random() < 0.5 else lut};")
    elif op == "shift":
        t = pick(r, ["b16", "b32", "b64", "u16", "s16", "u32", "s32", "u64", "s64"])
        a = src(s, t, False)
        if r.random() < 0.5:
            amt = str(r.choice([0, 1, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 255, 0xffffffff]))
        else:
            amt = s.operand("u32")
        o = "shl" if t[0] == "b" and r.random() < 0.5 else "shr"
        if o == "shl":
            t = "b" + t[1:]
        s.emit(f"{o}.{t} {s.out(REG[t])}, {a}, {amt};")
    elif op == "bfe":
        t = pick(r, ["u32", "s32", "u64", "s64"])
        a = src(s, t, False)
        pos = str(r.choice([0, 1, 8, 31, 32, 33, 63, 64, 100, 200, 255])) if r.random() < 0.5 else s.operand("u32")
        ln = str(r.choice([0, 1, 8, 16, 31, 32, 33, 63, 64, 65, 254, 255])) if r.random() < 0.5 else s.operand("u32")
        s.emit(f"bfe.{t} {s.out(REG[t])}, {a}, {pos}, {ln};")
    elif op == "bfi":
        t = pick(r, ["b32", "b64"])
        a = src(s, t, False)
        b = src(s, t, same=a)
        pos = str(r.choice([0, 1, 8, 31, 32, 33, 63, 64, 100, 255])) if r.random() < 0.5 else s.operand("u32")
        ln = str(r.choice([0, 1, 8, 16, 31, 32, 33, 63, 64, 65, 254, 255])) if r.random() < 0.5 else s.operand("u32")
        s.emit(f"bfi.{t} {s.out(t)}, {a}, {b}, {pos}, {ln};")
    elif op == "prmt":
        a = src(s, "b32", False)
        b = src(s, "b32", same=a)
        mode = pick(r, ["", "", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"])
        c = hex(r.getrandbits(32 if r.random() < 0.3 else 16)) if r.random() < 0.5 else s.operand("b32")
        s.emit(f"prmt.b32{mode} {s.out('b32')}, {a}, {b}, {c};")
    elif op == "shf":
        a = src(s, "b32", False)
        b = src(s, "b32", same=a)
        amt = str(r.choice([0, 1, 16, 31, 32, 33, 63, 64, 255, 0xffffffff])) if r.random() < 0.5 else s.operand("u32")
        s.emit(f"shf.{pick(r, ['l', 'r'])}.{pick(r, ['wrap', 'clamp'])}.b32 {s.out('b32')}, {a}, {b}, {amt};")
    elif op == "chain":
        # A bit-manipulation chain on one value.
        a = src(s, "b32", False)
        x = s.reg("b32", "x")
        s.emit(f"bfe.u32 {x}, {a}, {r.randrange(0, 40)}, {r.randrange(0, 40)};")
        s.emit(f"brev.b32 {x}, {x};")
        s.emit(f"prmt.b32 {x}, {x}, {a}, {hex(r.getrandbits(16))};")
        s.emit(f"shf.r.wrap.b32 {x}, {x}, {a}, {a};")
        s.emit(f"bfi.b32 {s.out('b32')}, {a}, {x}, {x}, {r.randrange(0, 40)};")


# ------------------------------------------------------- identical operands

def k_identical(s):
    r = s.r
    forms = [
        ("sub.s32", "b32", 2), ("xor.b32", "b32", 2), ("and.b64", "b64", 2), ("min.f32", "f32", 2),
        ("max.NaN.f32", "f32", 2), ("min.ftz.f32", "f32", 2), ("max.xorsign.abs.f32", "f32", 2),
        ("fma.rn.f32", "f32", 3), ("fma.rz.ftz.f32", "f32", 3), ("mul.rn.f64", "f64", 2),
        ("sub.rn.f64", "f64", 2), ("min.f64", "f64", 2), ("mul.wide.s32", "b32", 2), ("mad.hi.u32", "b32", 3),
        ("mad.lo.s64", "b64", 3), ("div.u32", "b32", 2), ("rem.s32", "b32", 2), ("div.s64", "b64", 2),
        ("prmt.b32", "b32", 3), ("shf.l.wrap.b32", "b32", 3), ("shf.r.clamp.b32", "b32", 3),
        ("bfe.u32", "b32", 3), ("bfe.s32", "b32", 3), ("bfi.b32", "b32", 4), ("sad.u32", "b32", 3),
        ("dp4a.s32.s32", "b32", 3), ("dp2a.hi.u32.s32", "b32", 3), ("min.f16x2", "b32", 2),
        ("max.NaN.bf16x2", "b32", 2), ("fma.rn.f16x2", "b32", 3), ("fma.rn.relu.bf16x2", "b32", 3),
        ("copysign.f32", "f32", 2), ("add.sat.s32", "b32", 2), ("mul.hi.s64", "b64", 2),
        ("lop3.b32", "b32", 3), ("shl.b32", "b32", 2), ("shr.s32", "b32", 2), ("min.u16x2", "b32", 2),
        ("max.relu.s32", "b32", 2), ("div.rn.f32", "f32", 2), ("sub.rn.ftz.f32", "f32", 2),
        ("cvt.pack.sat.s16.s32", "b32", 2), ("setp.eq.f32", "f32", 2), ("setp.ltu.f64", "f64", 2),
        ("selp.b32", "b32", 2), ("min.s64", "b64", 2), ("mul24.hi.s32", "b32", 2), ("szext.clamp.s32", "b32", 2),
        ("bmsk.clamp.b32", "b32", 2), ("add.rn.f16", "b16", 2), ("min.NaN.f16", "b16", 2),
    ]
    name, t, n = pick(r, forms)
    kind = {"b32": "u32", "b64": "u64", "f32": "f32", "f64": "f64", "b16": "f16"}[t]
    if "f16x2" in name:
        kind = "f16x2"
    if "bf16x2" in name:
        kind = "bf16x2"
    a = s.operand(kind)
    args = [a] * n
    if name.startswith("lop3"):
        args = [a, a, a, hex(r.getrandbits(8))]
    if name.startswith("setp"):
        s.emit(f"{name} {s.out('pred')}, {a}, {a};")
        return
    if name.startswith("selp"):
        s.emit(f"{name} {s.out('b32')}, {a}, {a}, {s.operand('pred')};")
        return
    dt = t
    if name.startswith("mul.wide"):
        dt = "b64"
    s.emit(f"{name} {s.out(dt)}, {', '.join(args)};")
    if r.random() < 0.3:
        # feed the result back in with itself
        o = s.outs[-1][0]
        if dt == t:
            s.emit(f"{name} {s.out(dt)}, {', '.join([o] * len(args) if not name.startswith('lop3') else [o, o, o, args[3]])};")


# --------------------------------------------------------------------- warp

SPLITS = ["lt", "bit", "hash", "ballot", "nested", "loop", "none"]


def split_cond(s, how):
    r = s.r
    lane = s.lane()
    p = s.reg("pred", "c")
    t = s.reg("b32", "u")
    if how == "lt":
        s.emit(f"setp.lt.u32 {p}, {lane}, {r.randrange(1, 32)};")
    elif how == "bit":
        s.emit(f"and.b32 {t}, {lane}, {r.choice([1, 2, 4, 8, 16, 3, 5, 24])};")
        s.emit(f"setp.{pick(r, ['eq', 'ne'])}.u32 {p}, {t}, 0;")
    else:
        # data-dependent: a hash of the lane and a row input
        seed = s.input("u32")
        s.emit(f"mad.lo.u32 {t}, {lane}, 0x9e3779b1, {seed};")
        s.emit(f"shr.u32 {t}, {t}, {r.randrange(20, 31)};")
        s.emit(f"and.b32 {t}, {t}, 1;")
        s.emit(f"setp.eq.u32 {p}, {t}, 0;")
    return p


WARP_OPS = ["shfl", "shfl", "vote", "match", "redux", "elect", "ballot_popc", "activemask"]


def warp_body(s, mask, label):
    """One warp-level instruction with member mask `mask`; writes outputs
    that were zeroed before the branch."""
    r = s.r
    op = pick(r, WARP_OPS)
    v = s.val
    lines = []
    if op == "shfl":
        mode = pick(r, ["up", "down", "bfly", "idx"])
        b = str(r.choice([0, 1, 2, 3, 5, 8, 16, 31, 32, 33])) if r.random() < 0.6 else s.lane_reg
        c = hex(r.choice([0x1f, 0x1f, 0x0, 0x18, 0x101f, 0x1c1f, 0x10, 0x3f, 0x1e1f, 0x081f]))
        if mode == "up" and r.random() < 0.5:
            c = hex(r.choice([0, 0x1000, 0x1800, 0x1c00]))
        lines.append(f"shfl.sync.{mode}.b32 {s.o[0]}|{s.p[0]}, {v}, {b}, {c}, {mask};")
    elif op == "vote":
        m = pick(r, ["all", "any", "uni", "ballot"])
        lines.append(f"setp.lt.u32 {s.cp}, {v}, {hex(r.getrandbits(32))};")
        if m == "ballot":
            lines.append(f"vote.sync.ballot.b32 {s.o[0]}, {'!' if r.random() < 0.3 else ''}{s.cp}, {mask};")
        else:
            lines.append(f"vote.sync.{m}.pred {s.p[0]}, {s.cp}, {mask};")
    elif op == "match":
        w = pick(r, ["b32", "b64"])
        lines.append(f"and.b32 {s.tmp}, {v}, {r.choice([1, 3, 7, 0x10001])};")
        x = s.tmp
        if w == "b64":
            lines.append(f"mov.b64 {s.tmp64}, {{{s.tmp}, {s.tmp}}};")
            x = s.tmp64
        if r.random() < 0.5:
            lines.append(f"match.sync.any.{w} {s.o[0]}, {x}, {mask};")
        else:
            lines.append(f"match.sync.all.{w} {s.o[0]}|{s.p[0]}, {x}, {mask};")
    elif op == "redux":
        o = pick(r, ["add.u32", "add.s32", "min.u32", "min.s32", "max.u32", "max.s32", "and.b32", "or.b32", "xor.b32"])
        lines.append(f"redux.sync.{o} {s.o[0]}, {v}, {mask};")
    elif op == "elect":
        lines.append(f"elect.sync {s.o[0]}|{s.p[0]}, {mask};")
    elif op == "ballot_popc":
        lines.append(f"setp.ne.u32 {s.cp}, {s.lane_reg}, {r.randrange(0, 32)};")
        lines.append(f"vote.sync.ballot.b32 {s.tmp}, {s.cp}, {mask};")
        lines.append(f"popc.b32 {s.o[0]}, {s.tmp};")
        r.random()  # (a draw kept so that the seed gives the recorded set)
        lines.append(f"and.b32 {s.o[1]}, {s.tmp}, {mask};")
    else:
        lines.append(f"activemask.b32 {s.o[0]};")
        lines.append(f"bar.warp.sync {mask};")
    return lines


def k_warp(s):
    r = s.r
    lane = s.lane()
    s.lane_reg = lane
    threads = s.threads
    # the value each lane contributes: a per-lane mix of row inputs
    s.val = s.reg("b32", "v")
    s.tmp = s.reg("b32", "w")
    s.tmp64 = s.reg("b64", "w")
    s.cp = s.reg("pred", "k")
    s.o = [s.out("b32"), s.out("b32")]
    s.p = [s.out("pred")]
    x = src(s, "u32", allow_imm=False)
    s.emit(f"mov.u32 {s.tmp}, %tid.x;")
    s.emit(f"mad.lo.u32 {s.val}, {s.tmp}, {hex(r.getrandbits(32) | 1)}, {x};")
    for o in s.o:
        s.emit(f"mov.b32 {o}, 0;")
    s.emit(f"setp.ne.u32 {s.p[0]}, 0, 0;")
    mreg = s.reg("b32", "m")
    how = pick(r, SPLITS)
    tag = f"L{s.id}"
    if how == "none":
        src_mask = pick(r, ["full", "activemask", "reg"])
        if src_mask == "full":
            m = "0xffffffff"
        else:
            s.emit(f"activemask.b32 {mreg};" if src_mask == "activemask" else f"mov.b32 {mreg}, -1;")
            m = mreg
        for line in warp_body(s, m, tag):
            s.emit(line)
        return
    if how == "loop":
        # lanes leave a loop at different trips; each trip runs the
        # instruction with the lanes still inside
        cnt = s.reg("b32", "n")
        s.emit(f"and.b32 {cnt}, {s.val}, 3;")
        s.emit(f"{tag}_top:")
        s.emit(f"activemask.b32 {mreg};")
        for line in warp_body(s, mreg, tag):
            s.emit(line)
        s.emit(f"setp.ne.u32 {s.cp}, {cnt}, 0;")
        s.emit(f"sub.u32 {cnt}, {cnt}, 1;")
        s.emit(f"@{s.cp} bra {tag}_top;")
        return
    if how == "ballot":
        p = split_cond(s, "hash")
        s.emit(f"vote.sync.ballot.b32 {mreg}, {p}, 0xffffffff;")
        s.emit(f"@!{p} bra {tag}_else;")
        for line in warp_body(s, mreg, tag):
            s.emit(line)
        s.emit(f"bra {tag}_end;")
        s.emit(f"{tag}_else:")
        s.emit(f"not.b32 {mreg}, {mreg};")
        for line in warp_body(s, mreg, tag):
            s.emit(line)
        s.emit(f"{tag}_end:")
        return
    if how == "nested":
        p = split_cond(s, "lt")
        q = split_cond(s, "bit")
        s.emit(f"@{p} bra {tag}_end;")
        s.emit(f"@{q} bra {tag}_end;")
        s.emit(f"activemask.b32 {mreg};")
        for line in warp_body(s, mreg, tag):
            s.emit(line)
        s.emit(f"{tag}_end:")
        return
    p = split_cond(s, how)
    mask_src = pick(r, ["activemask", "ballot"])
    s.emit(f"@{p} bra {tag}_taken;")
    s.emit(f"activemask.b32 {mreg};")
    if mask_src == "ballot":
        # the side's own ballot of a true predicate: its lanes again
        s.emit(f"vote.sync.ballot.b32 {mreg}, 1, {mreg};")
    fall = warp_body(s, mreg, tag)
    for line in fall:
        s.emit(line)
    s.emit(f"bra {tag}_end;")
    s.emit(f"{tag}_taken:")
    s.emit(f"activemask.b32 {mreg};")
    for line in warp_body(s, mreg, tag):
        s.emit(line)
    s.emit(f"{tag}_end:")


# ------------------------------------------------------ atomics and shared

ATOMS = [("add", "u32"), ("add", "s32"), ("add", "u64"), ("add", "f32"), ("add", "f64"), ("min", "u32"),
         ("min", "s32"), ("max", "u32"), ("max", "s32"), ("min", "u64"), ("max", "s64"), ("inc", "u32"),
         ("dec", "u32"), ("and", "b32"), ("or", "b32"), ("xor", "b32"), ("and", "b64"), ("or", "b64"),
         ("exch", "b32"), ("exch", "b64"), ("cas", "b32"), ("cas", "b64"), ("add.noftz", "f16"),
         ("add.noftz", "f16x2"), ("add.noftz", "bf16"), ("add.noftz", "bf16x2"), ("min", "f32"), ("max", "f32")]


def k_atomic(s):
    r = s.r
    op, t = pick(r, ATOMS)
    if op in ("min", "max") and t == "f32":
        op, t = "add", "f32"
    size = {"u32": 4, "s32": 4, "b32": 4, "f32": 4, "u64": 8, "s64": 8, "b64": 8, "f64": 8, "f16": 2, "bf16": 2,
            "f16x2": 4, "bf16x2": 4}[t]
    rt = {2: "b16", 4: "b32", 8: "b64"}[size]
    if t in ("f32", "f64"):
        rt = t
    kind = {"u32": "u32", "s32": "u32", "b32": "u32", "u64": "u64", "s64": "u64", "b64": "u64", "f32": "f32",
            "f64": "f64", "f16": "f16", "bf16": "bf16", "f16x2": "f16x2", "bf16x2": "bf16x2"}[t]
    s.top.append(".shared .align 16 .b8 hsm[1024];")
    lane = s.lane()
    addr = s.reg("b32", "a")
    # lanes share slots: (lane & m) picks the slot
    m = r.choice([0, 0, 1, 3, 7, 31, 0x10, 0x11])
    s.emit(f"and.b32 {addr}, {lane}, {m};")
    s.emit(f"mul.lo.u32 {addr}, {addr}, {size};")
    init = s.input(kind)
    # every slot gets the initial value (lanes 0..31 write slot lane)
    slot = s.reg("b32", "a")
    s.emit(f"mul.lo.u32 {slot}, {lane}, {size};")
    s.emit(f"st.shared.{rt if rt[0] == 'b' else 'b' + str(size * 8)} [{slot}+hsm], {init};"
           if rt[0] == "b" else f"st.shared.{rt} [{slot}+hsm], {init};")
    s.emit("bar.warp.sync -1;")
    x = s.operand(kind)
    d = s.out(rt)
    space = pick(r, ["shared", "shared", "generic"])
    target = f"[{addr}+hsm]"
    if space == "generic":
        g = s.reg("b64", "g")
        s.emit(f"mov.u64 {g}, hsm;")
        s.emit(f"cvta.shared.u64 {g}, {g};")
        w = s.reg("b64", "g")
        s.emit(f"cvt.u64.u32 {w}, {addr};")
        s.emit(f"add.u64 {g}, {g}, {w};")
        target = f"[{g}]"
        space_q = ""
    else:
        space_q = ".shared"
    if op == "cas":
        y = s.operand(kind)
        s.emit(f"atom{space_q}.cas.{t} {d}, {target}, {x}, {y};")
    elif r.random() < 0.2 and op not in ("exch",) and not (op == "add.noftz"):
        s.emit(f"red{space_q}.{op}.{t} {target}, {x};")
        s.emit(f"mov.{rt if rt[0] == 'b' else 'b' + str(size * 8)} {d}, 0;" if rt[0] == "b" else
               f"mov.{rt} {d}, 0{'f' if rt == 'f32' else 'd'}{'0' * (8 if rt == 'f32' else 16)};")
    else:
        s.emit(f"atom{space_q}.{op}.{t} {d}, {target}, {x};")
    s.emit("bar.warp.sync -1;")
    f = s.out(rt)
    s.emit(f"ld.shared.{rt if rt[0] == 'b' else rt} {f}, [{slot}+hsm];")


def zero_shared(s):
    """Every lane zeroes 32 bytes of the array first: a snippet never reads
    shared memory it did not write (its first contents are undefined)."""
    lane = s.lane()
    z = s.reg("b32", "z")
    s.emit(f"mul.lo.u32 {z}, {lane}, 32;")
    s.emit(f"st.shared.v4.b32 [{z}+hsm], {{0, 0, 0, 0}};")
    s.emit(f"st.shared.v4.b32 [{z}+hsm+16], {{0, 0, 0, 0}};")
    s.emit("bar.warp.sync -1;")


def k_shared(s):
    r = s.r
    s.top.append(".shared .align 16 .b8 hsm[1024];")
    lane = s.lane()
    zero_shared(s)
    form = pick(r, ["scatter", "vector", "subword", "generic", "alias"])
    a = s.reg("b32", "a")
    if form == "scatter":
        t = pick(r, ["b8", "b16", "b32", "b64", "f32", "f64"])
        size = {"b8": 1, "b16": 2, "b32": 4, "b64": 8, "f32": 4, "f64": 8}[t]
        rt = {"b8": "b16", "b16": "b16", "b32": "b32", "b64": "b64", "f32": "f32", "f64": "f64"}[t]
        kind = {"b16": "u16", "b32": "u32", "b64": "u64", "f32": "f32", "f64": "f64"}[rt]
        x = s.operand(kind)
        perm = r.choice([1, 3, 5, 7, 9, 11, 13, 31])
        s.emit(f"mul.lo.u32 {a}, {lane}, {perm};")
        s.emit(f"and.b32 {a}, {a}, 31;")
        s.emit(f"mul.lo.u32 {a}, {a}, {size};")
        s.emit(f"st.shared.{t} [{a}+hsm], {x};")
        s.emit("bar.warp.sync -1;")
        b = s.reg("b32", "a")
        s.emit(f"xor.b32 {b}, {lane}, {r.randrange(0, 32)};")
        s.emit(f"mul.lo.u32 {b}, {b}, {size};")
        if t == "b8":
            s.emit(f"ld.shared.{pick(r, ['u8', 's8', 'b8'])} {s.out('b16')}, [{b}+hsm];")
            s.emit(f"ld.shared.{pick(r, ['u8', 's8'])} {s.out('b32')}, [{b}+hsm];")
        else:
            s.emit(f"ld.shared.{t} {s.out(rt)}, [{b}+hsm];")
    elif form == "vector":
        n = pick(r, [2, 4])
        t = pick(r, ["b32", "f32"] if n == 4 else ["b32", "b64", "f64", "b16"])
        size = int(t[1:]) // 8
        rt = t if t[0] == "f" else t
        kind = {"b16": "u16", "b32": "u32", "b64": "u64", "f32": "f32", "f64": "f64"}[t]
        xs = [s.operand(kind) for _ in range(n)]
        s.emit(f"mul.lo.u32 {a}, {lane}, {size * n};")
        s.emit(f"st.shared.v{n}.{t} [{a}+hsm], {{{', '.join(xs)}}};")
        s.emit("bar.warp.sync -1;")
        b = s.reg("b32", "a")
        s.emit(f"add.u32 {b}, {lane}, {r.randrange(1, 31)};")
        s.emit(f"and.b32 {b}, {b}, 31;")
        s.emit(f"mul.lo.u32 {b}, {b}, {size * n};")
        outs = [s.out(rt) for _ in range(n)]
        s.emit(f"ld.shared.v{n}.{t} {{{', '.join(outs)}}}, [{b}+hsm];")
    elif form == "subword":
        x = s.operand("u32")
        s.emit(f"mul.lo.u32 {a}, {lane}, 4;")
        s.emit(f"st.shared.b32 [{a}+hsm], {x};")
        s.emit("bar.warp.sync -1;")
        b = s.reg("b32", "a")
        s.emit(f"mul.lo.u32 {b}, {lane}, {r.choice([1, 2, 3])};")
        s.emit(f"and.b32 {b}, {b}, 0x7e;")
        s.emit(f"ld.shared.s16 {s.out('b32')}, [{b}+hsm];")
        s.emit(f"ld.shared.u8 {s.out('b32')}, [{b}+hsm+1];")
        s.emit(f"ld.shared.s8 {s.out('b64')}, [{b}+hsm+3];")
        s.emit(f"ld.shared.v2.u8 {{{s.out('b16')}, {s.out('b16')}}}, [{b}+hsm+4];")
    elif form == "generic":
        x = s.operand("u64")
        g = s.reg("b64", "g")
        w = s.reg("b64", "g")
        s.emit(f"cvta.shared.u64 {g}, hsm;")
        s.emit(f"mul.wide.u32 {w}, {lane}, 8;")
        s.emit(f"add.u64 {g}, {g}, {w};")
        s.emit(f"st.b64 [{g}], {x};")
        s.emit("bar.warp.sync -1;")
        s.emit(f"isspacep.shared {s.out('pred')}, {g};")
        s.emit(f"isspacep.global {s.out('pred')}, {g};")
        h = s.reg("b64", "g")
        s.emit(f"cvta.to.shared.u64 {h}, {g};")
        s.emit(f"xor.b64 {h}, {h}, 8;")
        s.emit(f"ld.shared.b64 {s.out('b64')}, [{h}];")
        s.emit(f"ld.u32 {s.out('b32')}, [{g}+4];")
    else:
        # stores of several widths overlapping one word, from one lane each
        x, y, z = s.operand("u32"), s.operand("u16"), s.operand("u64")
        s.emit(f"mul.lo.u32 {a}, {lane}, 16;")
        s.emit(f"st.shared.b64 [{a}+hsm], {z};")
        s.emit(f"st.shared.b32 [{a}+hsm+{pick(r, [0, 4, 8])}], {x};")
        s.emit(f"st.shared.b16 [{a}+hsm+{pick(r, [2, 6, 10])}], {y};")
        s.emit(f"st.shared.b8 [{a}+hsm+{r.randrange(0, 16)}], {y};")
        s.emit(f"st.shared.b32 [{a}+hsm+12], {x};")
        s.emit("bar.warp.sync -1;")
        b = s.reg("b32", "a")
        s.emit(f"xor.b32 {b}, {lane}, 1;")
        s.emit(f"mul.lo.u32 {b}, {b}, 16;")
        s.emit(f"ld.shared.v2.b64 {{{s.out('b64')}, {s.out('b64')}}}, [{b}+hsm];")


# -------------------------------------------------------------------- video

def k_video(s):
    r = s.r
    simd = r.random() < 0.5
    if simd:
        n = pick(r, [2, 4])
        op = pick(r, ["vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax", "vset"])
        ta, tb = pick(r, ["u32", "s32"]), pick(r, ["u32", "s32"])
        a, b = src(s, "b32", False), src(s, "b32", False)
        c = src(s, "b32", False)
        if op == "vset":
            cmp = pick(r, ["eq", "ne", "lt", "le", "gt", "ge"])
            tail = pick(r, ["", ".add"])
            s.emit(f"vset{n}.{ta}.{tb}.{cmp}{tail} {s.out('b32')}, {a}, {b}, {c};")
            return
        dt = pick(r, ["u32", "s32"])
        sat = ".sat" if r.random() < 0.4 and op not in ("vabsdiff",) else ""
        if op == "vabsdiff" and r.random() < 0.4:
            sat = ".sat"
        tail = ".add" if r.random() < 0.3 else ""
        if tail:
            sat = ""
        s.emit(f"{op}{n}.{dt}.{ta}.{tb}{sat}{tail} {s.out('b32')}, {a}, {b}, {c};")
        return
    op = pick(r, ["vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vset", "vmad"])
    dt, ta, tb = pick(r, ["u32", "s32"]), pick(r, ["u32", "s32"]), pick(r, ["u32", "s32"])
    a, b = src(s, "b32", False), src(s, "b32", False)
    sel = ["", "", ".b0", ".b1", ".b2", ".b3", ".h0", ".h1"]
    asel = pick(r, sel)
    bsel = pick(r, sel)
    sec = pick(r, ["", "", ".add", ".min", ".max"])
    sat = ".sat" if r.random() < 0.3 else ""
    if op in ("vshl", "vshr"):
        mode = pick(r, ["wrap", "clamp"])
        tb = "u32"
        if sec:
            c = src(s, "b32", False)
            s.emit(f"{op}.{dt}.{ta}.{tb}{sat}.{mode}{sec} {s.out('b32')}, {a}{asel}, {b}{bsel}, {c};")
        else:
            s.emit(f"{op}.{dt}.{ta}.{tb}{sat}.{mode} {s.out('b32')}, {a}{asel}, {b}{bsel};")
    elif op == "vset":
        cmp = pick(r, ["eq", "ne", "lt", "le", "gt", "ge"])
        if sec:
            c = src(s, "b32", False)
            s.emit(f"vset.{ta}.{tb}.{cmp}{sec} {s.out('b32')}, {a}{asel}, {b}{bsel}, {c};")
        else:
            s.emit(f"vset.{ta}.{tb}.{cmp} {s.out('b32')}, {a}{asel}, {b}{bsel};")
    elif op == "vmad":
        c = src(s, "b32", False)
        po = pick(r, ["", ".po"])
        scale = pick(r, ["", ".shr7", ".shr15"])
        neg_a = "-" if r.random() < 0.2 and not po else ""
        neg_c = "-" if r.random() < 0.2 and not po and not neg_a else ""
        s.emit(f"vmad.{dt}.{ta}.{tb}{po}{sat}{scale} {s.out('b32')}, {neg_a}{a}{asel}, {b}{bsel}, {neg_c}{c};")
    else:
        if sec:
            c = src(s, "b32", False)
            s.emit(f"{op}.{dt}.{ta}.{tb}{sat}{sec} {s.out('b32')}, {a}{asel}, {b}{bsel}, {c};")
        else:
            s.emit(f"{op}.{dt}.{ta}.{tb}{sat} {s.out('b32')}, {a}{asel}, {b}{bsel};")


# ---------------------------------------------------------------------- mma

MMAS = [
    ("m16n8k16", "f32", "f16", "f16", "f32", 4, 2, 4, "f16x2"),
    ("m16n8k16", "f32", "bf16", "bf16", "f32", 4, 2, 4, "bf16x2"),
    ("m16n8k8", "f32", "f16", "f16", "f32", 2, 1, 4, "f16x2"),
    ("m16n8k16", "f16", "f16", "f16", "f16", 4, 2, 2, "f16x2"),
    ("m16n8k8", "f32", "tf32", "tf32", "f32", 4, 2, 4, "tf32"),
    ("m16n8k4", "f32", "tf32", "tf32", "f32", 2, 1, 4, "tf32"),
    ("m16n8k32", "s32", "s8", "s8", "s32", 4, 2, 4, "u32"),
    ("m16n8k32", "s32", "u8", "s8", "s32", 4, 2, 4, "u32"),
    ("m16n8k16", "s32", "s8", "u8", "s32", 2, 1, 4, "u32"),
    ("m8n8k4", "f64", "f64", "f64", "f64", 1, 1, 2, "f64"),
    ("m16n8k32", "f32", "e4m3", "e4m3", "f32", 4, 2, 4, "u32"),
    ("m16n8k32", "f32", "e5m2", "e4m3", "f32", 4, 2, 4, "u32"),
]


def mma_value(s, kind):
    """A per-lane fragment register: a row input mixed with the lane."""
    r = s.r
    if kind == "f64":
        return s.operand("f64")
    if kind == "u32":
        x = s.operand("u32")
        y = s.reg("b32", "y")
        s.emit(f"mad.lo.u32 {y}, {s.lane()}, {hex(r.getrandbits(32))}, {x};")
        return y
    x = s.operand(kind)
    return x


def k_mma(s):
    r = s.r
    shape, dt, at, bt, ct, na, nb, nc, vk = pick(r, MMAS)
    if r.random() < 0.2:
        # ldmatrix feeding the mma: the fragments pass through shared memory
        pass
    a = [mma_value(s, vk) for _ in range(na)]
    b = [mma_value(s, vk) for _ in range(nb)]
    ck = {"f32": "f32", "f16": "f16x2", "s32": "u32", "f64": "f64"}[ct]
    crt = {"f32": "f32", "f16": "b32", "s32": "b32", "f64": "f64"}[ct]
    c = [s.operand(ck) for _ in range(nc)]
    d = [s.out(crt) for _ in range(nc)]
    sat = ".satfinite" if dt == "s32" and r.random() < 0.5 else ""
    s.emit(f"mma.sync.aligned.{shape}.row.col{sat}.{dt}.{at}.{bt}.{ct} {{{', '.join(d)}}}, {{{', '.join(a)}}}, "
           f"{{{', '.join(b)}}}, {{{', '.join(c)}}};")
    if r.random() < 0.3 and ct != "f64" and dt == ct:
        # chained: the result accumulates again
        d2 = [s.out(crt) for _ in range(nc)]
        s.emit(f"mma.sync.aligned.{shape}.row.col{sat}.{dt}.{at}.{bt}.{ct} {{{', '.join(d2)}}}, "
               f"{{{', '.join(a)}}}, {{{', '.join(b)}}}, {{{', '.join(d)}}};")


def k_matrix(s):
    """ldmatrix / stmatrix / movmatrix over lane-varying shared memory."""
    r = s.r
    s.top.append(".shared .align 16 .b8 hsm[1024];")
    lane = s.lane()
    zero_shared(s)
    a = s.reg("b32", "a")
    x = s.operand("u32")
    y = s.reg("b32", "y")
    s.emit(f"mul.lo.u32 {a}, {lane}, 16;")
    for k in range(4):
        s.emit(f"mad.lo.u32 {y}, {lane}, {hex(r.getrandbits(32) | 1)}, {x};")
        s.emit(f"st.shared.b32 [{a}+hsm+{4 * k}], {y};")
    s.emit("bar.warp.sync -1;")
    n = pick(r, [1, 2, 4])
    trans = ".trans" if r.random() < 0.5 else ""
    b = s.reg("b32", "a")
    s.emit(f"mul.lo.u32 {b}, {lane}, {pick(r, [16, 32])};")
    s.emit(f"and.b32 {b}, {b}, 0x3f0;")
    outs = [s.out("b32") for _ in range(n)]
    what = pick(r, ["ld", "ld", "st", "mov"])
    if what == "ld":
        s.emit(f"ldmatrix.sync.aligned.m8n8.x{n}{trans}.shared.b16 {{{', '.join(outs)}}}, [{b}+hsm];")
    elif what == "mov":
        s.emit(f"movmatrix.sync.aligned.m8n8.trans.b16 {outs[0]}, {y};")
        for o in outs[1:]:
            s.emit(f"mov.b32 {o}, {y};")
    else:
        s.emit("bar.warp.sync -1;")
        vals = [s.operand("u32") for _ in range(n)]
        s.emit(f"stmatrix.sync.aligned.m8n8.x{n}{trans}.shared.b16 [{b}+hsm], {{{', '.join(vals)}}};")
        s.emit("bar.warp.sync -1;")
        for k, o in enumerate(outs):
            s.emit(f"ld.shared.b32 {o}, [{a}+hsm+{4 * k}];")


KINDS = [
    ("integer", k_integer, 190),
    ("float", k_float, 240),
    ("half2", k_half2, 150),
    ("cvt", k_cvt, 220),
    ("bits", k_bits, 220),
    ("identical", k_identical, 150),
    ("warp", k_warp, 260),
    ("atomic", k_atomic, 130),
    ("shared", k_shared, 110),
    ("video", k_video, 150),
    ("mma", k_mma, 130),
    ("matrix", k_matrix, 50),
]


def generate():
    assert sum(n for _, _, n in KINDS) == COUNT
    r = random.Random(SEED)
    out = []
    plan = [(kind, fn) for kind, fn, n in KINDS for _ in range(n)]
    r.shuffle(plan)
    for i, (kind, fn) in enumerate(plan):
        s = Snippet(random.Random(r.getrandbits(64)), kind)
        s.id = i
        fn(s)
        nrows = 2 if kind == "mma" else 3
        s.row_values = s.rows(nrows)
        out.append(s)
    return out


def snippet_text(s):
    return "\n".join(s.decls() + s.body()) + "\n"


def kernel(i, s):
    """The kernel the GPU runs: CTA k takes input row k; every thread stores
    its outputs in 8-byte slots."""
    nin, nout = len(s.ins), len(s.outs)
    lines = [f".visible .entry h{i}(.param .u64 hin, .param .u64 hout)", "{",
             ".reg .u64 %zin, %zout, %zt;", ".reg .u32 %zr, %zt32;", ".reg .pred %zp;"]
    lines += [d for d in s.decls() if not d.startswith(".shared")]
    lines += [d for d in s.decls() if d.startswith(".shared")]
    lines += ["ld.param.u64 %zin, [hin];", "ld.param.u64 %zout, [hout];",
              "cvta.to.global.u64 %zin, %zin;", "cvta.to.global.u64 %zout, %zout;",
              "mov.u32 %zr, %ctaid.x;", f"mul.wide.u32 %zt, %zr, {max(nin, 1) * 8};", "add.u64 %zin, %zin, %zt;",
              "mov.u32 %zt32, %tid.x;", f"mad.lo.u32 %zr, %zr, {s.threads}, %zt32;", f"mul.wide.u32 %zt, %zr, {max(nout, 1) * 8};",
              "add.u64 %zout, %zout, %zt;"]
    for k, (name, t, _) in enumerate(s.ins):
        if t == "pred":
            lines += [f"ld.global.u32 %zr, [%zin+{8 * k}];", f"setp.ne.u32 {name}, %zr, 0;"]
        else:
            lines.append(f"ld.global.b{WIDTH[t]} {name}, [%zin+{8 * k}];")
    body = "\n".join(s.body())
    lines.append(body)
    for k, (name, t) in enumerate(s.outs):
        if t == "pred":
            lines += [f"selp.u32 %zr, 1, 0, {name};", f"st.global.u32 [%zout+{8 * k}], %zr;"]
        else:
            lines.append(f"st.global.b{WIDTH[t]} [%zout+{8 * k}], {name};")
    lines += ["ret;", "}"]
    return "\n".join(lines)


def modules(snips, per=50):
    out = []
    for start in range(0, len(snips), per):
        text = HEADER + "\n\n".join(kernel(i, snips[i]) for i in range(start, min(start + per, len(snips))))
        out.append((start, text + "\n"))
    return out


def hexw(bits, width):
    if width == 1:
        return str(bits & 1)
    return "0x{:0{}x}".format(bits & ((1 << width) - 1), width // 4)


def record(s, out_rows):
    return {"id": s.id, "kind": s.kind, "snippet": snippet_text(s), "threads": s.threads,
            "inputs": [n for n, _, _ in s.ins], "outputs": [n for n, _ in s.outs], "rows": out_rows}


def run(outdir):
    import tempfile
    import time
    import cupy as cp
    import numpy as np
    snips = generate()
    work = tempfile.mkdtemp(prefix="heldout-")
    lines, failures = [], []
    t0 = time.time()
    for start, text in modules(snips):
        path = os.path.join(work, f"m{start}.ptx")
        with open(path, "w") as f:
            f.write(text)
        try:
            mod = cp.RawModule(path=path)
            mod.get_function(f"h{start}")
        except Exception as e:
            failures.append(f"module {start}: {str(e)[:300]}")
            mod = None
        for i in range(start, min(start + 50, len(snips))):
            s = snips[i]
            try:
                if mod is None:
                    single = os.path.join(work, f"s{i}.ptx")
                    with open(single, "w") as f:
                        f.write(HEADER + kernel(i, s) + "\n")
                    fn = cp.RawModule(path=single).get_function(f"h{i}")
                else:
                    fn = mod.get_function(f"h{i}")
                rows = s.row_values
                nin, nout = max(len(s.ins), 1), max(len(s.outs), 1)
                inp = np.zeros((len(rows), nin), dtype=np.uint64)
                for k, row in enumerate(rows):
                    for j, v in enumerate(row):
                        inp[k, j] = np.uint64(v)
                d_in = cp.asarray(inp)
                d_out = cp.zeros((len(rows) * s.threads * nout,), dtype=np.uint64)
                fn((len(rows),), (s.threads,), (d_in, d_out))
                cp.cuda.runtime.deviceSynchronize()
                res = cp.asnumpy(d_out).reshape(len(rows), s.threads, nout)
            except Exception as e:
                failures.append(f"snippet {i}: {str(e)[:300]}")
                continue
            out_rows = []
            for k, row in enumerate(rows):
                out_rows.append({
                    "set": [hexw(v, WIDTH[t]) for (_, t, _), v in zip(s.ins, row)],
                    "expect": [[hexw(int(res[k, th, j]), WIDTH[t]) for j, (_, t) in enumerate(s.outs)]
                               for th in range(s.threads)]})
            lines.append(record(s, out_rows))
    with open(os.path.join(outdir, "heldout_snippets.jsonl.zz"), "wb") as f:
        f.write(zlib.compress("".join(json.dumps(l, separators=(",", ":")) + "\n" for l in lines).encode(), 9))
    with open(os.path.join(outdir, "failures.txt"), "w") as f:
        f.write("\n".join(failures) + "\n")
    print(f"{len(snips)} snippets, {len(lines)} ran, {len(failures)} failures, {time.time() - t0:.1f} s")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--emit":
        os.makedirs(sys.argv[2], exist_ok=True)
        for start, text in modules(generate()):
            with open(os.path.join(sys.argv[2], f"m{start}.ptx"), "w") as f:
                f.write(text)
    elif len(sys.argv) == 3 and sys.argv[1] == "--run":
        os.makedirs(sys.argv[2], exist_ok=True)
        run(sys.argv[2])
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
