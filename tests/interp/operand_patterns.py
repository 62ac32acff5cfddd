#!/usr/bin/env python3
"""GPU fixtures for operand patterns: identical operands, immediates at and
past the ranges the spec gives, and member masks held in registers inside
divergent branches, for every warp-level instruction.

    python3 tests/interp/operand_patterns.py --emit DIR   # PTX modules only (check with ptxas)
    python3 tests/interp/operand_patterns.py --run OUT    # on an sm_90 GPU with CuPy

Writes OUT/gpu_patterns.jsonl in the format of gpu_snippets.jsonl (see
gpu_fixtures.py), copied to server/interp/fixtures/; `tests/patterns.rs`
holds the interpreter to it, every row bit-exact.
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_fixtures as g  # noqa: E402

g.rng = random.Random(20261126)
case = g.case
rows_for = g.rows_for

LANE = "mov.u32 %l, %laneid;\nmul.lo.u32 %v, %l, %s;\nxor.b32 %v, %v, %t;\n"
SEEDS = [[0x9e3779b9, 0], [0x85ebca6b, 0xc2b2ae35], [1, 0], [0, 7], [3, 0xffff0000]]
WARP_INS = [("%s", "b32"), ("%t", "b32")]
DECL = ".reg .b32 %l, %v, %m, %e;\n.reg .pred %c, %q;"

# Splits of a warp into a taken and a fall-through side: the lanes with
# (lane & AND) == EQ take the branch.
SPLITS = [
    ("even", "and.b32 %e, %l, 1;\nsetp.eq.u32 %c, %e, 0;"),
    ("low5", "setp.lt.u32 %c, %l, 5;"),
    ("high16", "setp.ge.u32 %c, %l, 16;"),
    ("lane0", "setp.eq.u32 %c, %l, 0;"),
    ("notlane0", "setp.ne.u32 %c, %l, 0;"),
]


def divergent(body, mask_source):
    """`body` runs on both sides of a divergent branch with the member mask
    in register %m: `activemask` or the side's lanes as a constant moved
    into the register (so lanes outside the side hold another value)."""
    out = []
    for split, cond in SPLITS:
        code = LANE + cond + "\n"
        if mask_source == "activemask":
            take = "activemask.b32 %m;"
            fall = "activemask.b32 %m;"
        else:
            lanes = [i for i in range(32) if eval_split(split, i)]
            mask = sum(1 << i for i in lanes)
            take = f"mov.b32 %m, {mask:#x};"
            fall = f"mov.b32 %m, {(~mask) & 0xffffffff:#x};"
        code += ("@%c bra TAKEN;\n" + fall + "\n" + body + "\nbra DONE;\nTAKEN:\n" + take + "\n"
                 + body + "\nDONE:")
        out.append((split, code))
    return out


def eval_split(split, lane):
    return {"even": lane % 2 == 0, "low5": lane < 5, "high16": lane >= 16, "lane0": lane == 0,
            "notlane0": lane != 0}[split]


def gen_warp_masks():
    bodies = [
        ("vote.ballot", "setp.lt.u32 %q, %v, 0x80000000;\nvote.sync.ballot.b32 %d, %q, %m;", [("%d", "b32")]),
        ("vote.all", "setp.lt.u32 %q, %v, 0xc0000000;\nvote.sync.all.pred %p, %q, %m;", [("%p", "pred")]),
        ("vote.any", "setp.lt.u32 %q, %v, 0x10000000;\nvote.sync.any.pred %p, %q, %m;", [("%p", "pred")]),
        ("vote.uni", "setp.lt.u32 %q, %v, 0x80000000;\nvote.sync.uni.pred %p, %q, %m;", [("%p", "pred")]),
        ("match.any", "and.b32 %v, %v, 3;\nmatch.sync.any.b32 %d, %v, %m;", [("%d", "b32")]),
        ("match.all", "and.b32 %v, %v, 1;\nmatch.sync.all.b32 %d|%p, %v, %m;", [("%d", "b32"), ("%p", "pred")]),
        ("match.any.b64", "and.b32 %v, %v, 1;\ncvt.u64.u32 %w, %v;\nmatch.sync.any.b64 %d, %w, %m;",
         [("%d", "b32")]),
        ("redux.add", "redux.sync.add.u32 %d, %v, %m;", [("%d", "b32")]),
        ("redux.min.s32", "redux.sync.min.s32 %d, %v, %m;", [("%d", "b32")]),
        ("redux.max.u32", "redux.sync.max.u32 %d, %v, %m;", [("%d", "b32")]),
        ("redux.xor", "redux.sync.xor.b32 %d, %v, %m;", [("%d", "b32")]),
        ("elect", "elect.sync %d|%p, %m;", [("%d", "b32"), ("%p", "pred")]),
        ("shfl.idx", "shfl.sync.idx.b32 %d|%p, %v, 3, 0x1f, %m;", [("%d", "b32"), ("%p", "pred")]),
        ("shfl.bfly", "shfl.sync.bfly.b32 %d|%p, %v, 1, 0x1f, %m;", [("%d", "b32"), ("%p", "pred")]),
        ("bar.warp", "bar.warp.sync %m;\nactivemask.b32 %d;", [("%d", "b32")]),
    ]
    for name, body, outs in bodies:
        for source in ["activemask", "constant"]:
            for split, code in divergent(body, source):
                # A lane's outputs keep 0 where its side did not write them.
                init = "".join(f"mov.b32 {r}, 0;\n" if t == "b32" else f"setp.ne.u32 {r}, 0, 0;\n"
                               for r, t in outs)
                case(f"pattern.warpmask.{name}", init + code, WARP_INS, outs, SEEDS[:3], threads=32,
                     decls=DECL + "\n.reg .b64 %w;")
    # Two warps: warp 1's lanes hold their own masks (lane 0 of the CTA is not in it).
    for name, body, outs in bodies[:3] + bodies[7:8] + bodies[11:12]:
        code = ("mov.u32 %l, %tid.x;\nmul.lo.u32 %v, %l, %s;\nxor.b32 %v, %v, %t;\n"
                "setp.ge.u32 %c, %l, 32;\n@%c bra W1;\nmov.b32 %m, 0x0000ffff;\nsetp.lt.u32 %c, %l, 16;\n"
                "@!%c bra DONE;\n" + body + "\nbra DONE;\nW1:\nmov.b32 %m, 0xffff0000;\nsetp.ge.u32 %c, %l, 48;\n"
                "@!%c bra DONE;\n" + body + "\nDONE:")
        init = "".join(f"mov.b32 {r}, 0;\n" if t == "b32" else f"setp.ne.u32 {r}, 0, 0;\n" for r, t in outs)
        case(f"pattern.warpmask2.{name}", init + code, WARP_INS, outs, SEEDS[:3], threads=64,
             decls=DECL + "\n.reg .b64 %w;")


def gen_warp_immediates():
    """Lane, clamp and mask operands at and past their ranges, as immediates
    and in registers."""
    for mode in ["up", "down", "bfly", "idx"]:
        for b in [31, 32, 33, 63, 0xffffffff]:
            for c in [0x1f, 0x20, 0x3f, 0x1fff, 0x2000, 0xe01f, 0xffffffff]:
                case("pattern.shfl.imm", LANE + f"shfl.sync.{mode}.b32 %d|%p, %v, {b:#x}, {c:#x}, 0xffffffff;",
                     WARP_INS, [("%d", "b32"), ("%p", "pred")], SEEDS[:2], threads=32, decls=DECL)
        # Lane and clamp in registers, per lane.
        case("pattern.shfl.reg", LANE + "and.b32 %e, %v, 0x3f;\nshr.b32 %m, %v, 20;\n"
             f"shfl.sync.{mode}.b32 %d|%p, %l, %e, %m, 0xffffffff;",
             WARP_INS, [("%d", "b32"), ("%p", "pred")], SEEDS, threads=32, decls=DECL)
        # Identical operands: the value is also the lane operand.
        case("pattern.shfl.same", LANE + "and.b32 %v, %v, 0x3f;\n"
             f"shfl.sync.{mode}.b32 %d|%p, %v, %v, 0x1f, 0xffffffff;",
             WARP_INS, [("%d", "b32"), ("%p", "pred")], SEEDS, threads=32, decls=DECL)
    for op in ["add.u32", "min.u32", "max.s32", "and.b32", "or.b32", "xor.b32"]:
        case("pattern.redux.same", LANE + f"redux.sync.{op} %v, %v, 0xffffffff;", WARP_INS,
             [("%v", "b32")], SEEDS, threads=32, decls=DECL)
    case("pattern.match.same", LANE + "and.b32 %v, %v, 1;\nmatch.sync.any.b32 %v, %v, 0xffffffff;",
         WARP_INS, [("%v", "b32")], SEEDS, threads=32, decls=DECL)
    case("pattern.vote.same", LANE + "setp.lt.u32 %q, %v, 0x80000000;\nvote.sync.any.pred %q, %q, 0xffffffff;",
         WARP_INS, [("%q", "pred")], SEEDS, threads=32, decls=DECL)
    case("pattern.vote.same", LANE + "setp.lt.u32 %q, %v, 0x80000000;\nvote.sync.all.pred %q, !%q, 0xffffffff;",
         WARP_INS, [("%q", "pred")], SEEDS, threads=32, decls=DECL)
    # redux.f32 (sm_100a only) is not on an H100.


F32S = ["f32"]
NAN_F32 = [0x7fc00000, 0xffc00000, 0x7f800001, 0x7fa00000, 0xffbfffff, 0x7fffffff, 0x7f800000, 0xff800000,
           0, 0x80000000, 0x3f800000, 0x00000001]
NAN_F64 = [0x7ff8000000000000, 0xfff8000000000000, 0x7ff0000000000001, 0x7ff4000000000000,
           0xfff7ffffffffffff, 0x7ff0000000000000, 0, 0x8000000000000000, 0x3ff0000000000000, 1]
NAN_F16 = [0x7e00, 0xfe00, 0x7c01, 0x7d00, 0xfdff, 0x7fff, 0x7c00, 0xfc00, 0, 0x8000, 0x3c00, 1]
NAN_BF16 = [0x7fc0, 0xffc0, 0x7f81, 0x7fa0, 0xffbf, 0x7fff, 0x7f80, 0xff80, 0, 0x8000, 0x3f80, 1]


def gen_identical_floats():
    scalar = [
        ("f32", "f32", NAN_F32, ["", ".ftz"]),
        ("f64", "f64", NAN_F64, [""]),
        ("f16", "b16", NAN_F16, ["", ".ftz"]),
        ("bf16", "b16", NAN_BF16, [""]),
    ]
    for t, reg, values, ftzs in scalar:
        rows = [[v] for v in values]
        ops = ["min", "max", "min.NaN", "max.NaN", "add", "sub", "mul", "add.rz", "mul.rm"]
        if t in ("f32", "f64"):
            ops += ["div.rn", "min.xorsign.abs", "max.xorsign.abs"]
        if t in ("f16", "bf16"):
            ops += ["min.xorsign.abs", "max.xorsign.abs"]
        if t == "f64":
            ops = [o for o in ops if "NaN" not in o and "xorsign" not in o]
        if t == "bf16":
            ops = [o for o in ops if o not in ("add.rz", "mul.rm")]
        if t == "f16":
            ops = [o for o in ops if o not in ("add.rz", "mul.rm")]
        for op in ops:
            for ftz in ftzs:
                if ftz and ("xorsign" in op or (t == "f16" and ("NaN" in op))):
                    continue
                if t in ("f16", "bf16") and op in ("add", "sub", "mul"):
                    opc = f"{op}.rn{ftz}.{t}"
                elif op in ("add", "sub", "mul") and t in ("f32", "f64"):
                    opc = f"{op}.rn{ftz}.{t}"
                else:
                    parts = op.split(".", 1)
                    opc = parts[0] + ftz + ("." + parts[1] if len(parts) > 1 else "") + f".{t}"
                    if parts[0] in ("min", "max") and len(parts) > 1:
                        opc = parts[0] + ftz + "." + parts[1] + f".{t}"
                case("pattern.same.float", f"{opc} %d, %a, %a;", [("%a", reg)], [("%d", reg)], rows)
                # Unrounded forms ptxas may rewrite: the plain opcode.
        for op in ["add", "sub", "mul"]:
            case("pattern.same.float", f"{op}.{t} %d, %a, %a;", [("%a", reg)], [("%d", reg)], rows)
        fma = f"fma.rn.{t}" if t != "f64" else "fma.rn.f64"
        case("pattern.same.float", f"{fma} %d, %a, %a, %a;", [("%a", reg)], [("%d", reg)], rows)
        case("pattern.same.float", f"{fma} %d, %a, %a, %b;", [("%a", reg), ("%b", reg)], [("%d", reg)],
             [[a, b] for a in values[:8] for b in values[::3]])
        case("pattern.same.float", f"{fma} %d, %a, %b, %a;", [("%a", reg), ("%b", reg)], [("%d", reg)],
             [[a, b] for a in values[:8] for b in values[::3]])
        setp_t = t
        for cmp in ["eq", "ne", "lt", "equ", "neu", "num", "nan"]:
            case("pattern.same.float", f"setp.{cmp}.{setp_t} %p, %a, %a;", [("%a", reg)], [("%p", "pred")], rows)
    for t, values in [("f16x2", NAN_F16), ("bf16x2", NAN_BF16)]:
        rows = [[(a << 16) | b] for a in values[:6] for b in values[::2]]
        for op in ["min", "max", "min.NaN", "max.NaN"]:
            parts = op.split(".", 1)
            opc = parts[0] + ("." + parts[1] if len(parts) > 1 else "") + f".{t}"
            case("pattern.same.float", f"{opc} %d, %a, %a;", [("%a", "b32")], [("%d", "b32")], rows)
        case("pattern.same.float", f"add.rn.{t} %d, %a, %a;", [("%a", "b32")], [("%d", "b32")], rows)
        case("pattern.same.float", f"fma.rn.{t} %d, %a, %a, %a;", [("%a", "b32")], [("%d", "b32")], rows)


U32P = [0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x12345678, 0xdeadbeef, 31, 32, 33]


def gen_immediates():
    rows2 = [[a, b] for a in U32P[:7] for b in U32P[::2]]
    # ptxas takes immediate positions and lengths up to 255; larger ones are
    # swept through registers below.
    for pos in [0, 1, 16, 31, 32, 33, 63, 64, 255]:
        for length in [0, 1, 8, 31, 32, 33, 63, 64, 255]:
            case("pattern.imm.bfi", f"bfi.b32 %d, %a, %b, {pos}, {length};", [("%a", "b32"), ("%b", "b32")],
                 [("%d", "b32")], rows2[:12])
    for pos in [0, 31, 32, 33, 64, 65, 255]:
        for length in [0, 1, 32, 33, 64, 65, 255]:
            for t in ["u32", "s32"]:
                case("pattern.imm.bfe", f"bfe.{t} %d, %a, {pos}, {length};", [("%a", "b32")], [("%d", "b32")],
                     [[v] for v in U32P[:7]])
            case("pattern.imm.bfi64", f"bfi.b64 %D, %A, %B, {pos}, {length};", [("%A", "b64"), ("%B", "b64")],
                 [("%D", "b64")], [[0xfedcba9876543210, 0x0123456789abcdef], [0, 0xffffffffffffffff],
                                    [0xffffffffffffffff, 0]])
    # Positions and lengths in registers.
    for t in ["b32"]:
        case("pattern.reg.bfi", "bfi.b32 %d, %a, %b, %c, %e;", [("%a", "b32"), ("%b", "b32"), ("%c", "b32"),
             ("%e", "b32")], [("%d", "b32")],
             [[0x12345678, 0xdeadbeef, p, l] for p in [0, 31, 32, 33, 255, 256, 0xffffffff]
              for l in [0, 32, 33, 255, 256, 0xffffffff]])
    for op in ["shl.b32", "shr.u32", "shr.s32", "shl.b16", "shr.s16", "shl.b64", "shr.s64"]:
        w = int(op[-2:])
        reg = {16: "b16", 32: "b32", 64: "b64"}[w]
        for amount in [0, w - 1, w, w + 1, 255, 256, 0xffffffff]:
            vals = [[0x8000_0001], [0xffff_ffff], [0x1234_5678]] if w == 32 else \
                [[0x8001], [0xffff]] if w == 16 else [[0x8000_0000_0000_0001], [0x1234_5678_9abc_def0]]
            case("pattern.imm.shift", f"{op} %d, %a, {amount};", [("%a", reg)], [("%d", reg)], vals)
    for mode in ["l", "r"]:
        for wrap in ["wrap", "clamp"]:
            for amount in [0, 31, 32, 33, 63, 64, 255, 0xffffffff]:
                case("pattern.imm.shf", f"shf.{mode}.{wrap}.b32 %d, %a, %b, {amount};",
                     [("%a", "b32"), ("%b", "b32")], [("%d", "b32")], rows2[:10])
    for sel in [0x3210, 0x7654, 0xffff, 0x10000, 0x12345, 0xffffffff, 0x8888, 0xba98]:
        case("pattern.imm.prmt", f"prmt.b32 %d, %a, %b, {sel:#x};", [("%a", "b32"), ("%b", "b32")],
             [("%d", "b32")], rows2[:10])
    for c in [0, 1, 31, 32, 33, 64, 0xffffffff]:
        case("pattern.imm.bmsk", f"bmsk.clamp.b32 %d, %a, {c};", [("%a", "b32")], [("%d", "b32")],
             [[v] for v in U32P])
        case("pattern.imm.bmsk", f"bmsk.wrap.b32 %d, %a, {c};", [("%a", "b32")], [("%d", "b32")],
             [[v] for v in U32P])
        case("pattern.imm.szext", f"szext.clamp.s32 %d, %a, {c};", [("%a", "b32")], [("%d", "b32")],
             [[v] for v in U32P])
        case("pattern.imm.szext", f"szext.wrap.u32 %d, %a, {c};", [("%a", "b32")], [("%d", "b32")],
             [[v] for v in U32P])
    for off in [0, 1, 32, 33, 0x80000000, 0xffffffff, 0x7fffffff]:
        case("pattern.imm.fns", f"fns.b32 %d, %a, %b, {off};", [("%a", "b32"), ("%b", "b32")], [("%d", "b32")],
             [[m, b] for m in [0xffffffff, 0x80000001, 0x0f0f0f0f] for b in [0, 5, 31, 32, 0xffffffff]])
    # Identical operands of integer instructions.
    same = ["add.u32", "sub.u32", "mul.lo.u32", "mul.hi.s32", "mul.wide.s32", "min.s32", "max.u32",
            "and.b32", "or.b32", "xor.b32", "div.s32", "rem.u32", "sad.u32", "shl.b32", "shr.s32",
            "shf.l.wrap.b32", "prmt.b32", "bfi.b32", "dp4a.s32.s32", "dp2a.lo.u32.u32", "add.cc.u32",
            "mad.lo.u32", "mad.hi.s32", "lop3.b32", "bfe.s32", "sub.sat.s32", "add.sat.s32"]
    for op in same:
        n = {"shf.l.wrap.b32": 3, "prmt.b32": 3, "bfi.b32": 4, "dp4a.s32.s32": 3, "dp2a.lo.u32.u32": 3,
             "mad.lo.u32": 3, "mad.hi.s32": 3, "lop3.b32": 4, "sad.u32": 3, "bfe.s32": 3}.get(op, 2)
        out = "%D" if "wide" in op else "%d"
        operands = ", ".join(["%a"] * n)
        if op == "lop3.b32":
            operands = "%a, %a, %a, 0xe8"
        ins = [("%a", "b32")]
        outs = [(out, "b64" if "wide" in op else "b32")]
        case("pattern.same.int", f"{op} {out}, {operands};", ins, outs, [[v] for v in U32P])
    case("pattern.same.int", "setp.lt.s32 %p, %a, %a;", [("%a", "b32")], [("%p", "pred")], [[v] for v in U32P])
    case("pattern.same.int", "selp.b32 %d, %a, %a, %p;", [("%a", "b32"), ("%p", "pred")], [("%d", "b32")],
         [[v, p] for v in U32P[:4] for p in [0, 1]])


def generate():
    gen_warp_masks()
    gen_warp_immediates()
    gen_identical_floats()
    gen_immediates()
    return g.CASES


def main():
    g.CASES.clear()
    g.generate = generate
    if len(sys.argv) == 3 and sys.argv[1] == "--emit":
        os.makedirs(sys.argv[2], exist_ok=True)
        cases = generate()
        for start, text in g.modules(cases):
            with open(os.path.join(sys.argv[2], f"mod{start}.ptx"), "w") as f:
                f.write(text)
        print(f"{len(cases)} cases, {sum(len(c['rows']) for c in cases)} rows")
    elif len(sys.argv) == 3 and sys.argv[1] == "--run":
        out = sys.argv[2]
        os.makedirs(out, exist_ok=True)
        g.run_snippets(out)
        os.replace(os.path.join(out, "gpu_snippets.jsonl"), os.path.join(out, "gpu_patterns.jsonl"))
        os.replace(os.path.join(out, "failures.txt"), os.path.join(out, "patterns_failures.txt"))
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
