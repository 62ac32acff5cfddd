#!/usr/bin/env python3
"""Sparse wgmma (`wgmma.mma_async.sp`) on the GPU, for the interpreter to
match byte for byte.

    python3 tests/interp/wgmma_sp_fixtures.py --emit           # writes tests/interp/kernels/wgmma_sp.ptx
    python3 tests/interp/wgmma_sp_fixtures.py --run OUT.jsonl  # with CuPy and an sm_90a GPU

The kernels are those of wgmma_fixtures.py (128 threads copy a shared-memory
image, load the A fragment and the accumulator, issue one wgmma between
wgmma.fence and wait_group 0, store every thread's accumulator registers)
with a sparse A: the packed M x K/2 matrix (from registers in the fragment
layout of the dense shape with K/2, or through a descriptor as an M x K/2
matrix) and a metadata word per thread (arg 7, one u32 per thread),
selector and shape as the case says. B is K x N, K-major, 128-byte swizzle.

`probe` cases multiply by an identity B, so the output is the expanded A
itself: each packed element (a distinct value) shows where the metadata put
it. Random cases check values, negation, scale-d and accumulation.
"""

import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import wgmma_fixtures as W  # noqa: E402

ROOT = W.ROOT
PTX = "tests/interp/kernels/wgmma_sp.ptx"
rng = random.Random(20261127 + 5)

KD = {"f16": 32, "bf16": 32, "tf32": 16, "e4m3": 64, "e5m2": 64, "s8": 64, "u8": 64}
CASES = []


def kc_of(ty):
    return KD[ty] // 2


def kernel(name, c, size):
    n, dty, aty, bty = c["n"], c["d"], c["a"], c["b"]
    R = W.acc_regs(dty, n)
    dreg = "%f" if dty == "f32" else "%d"
    dkind = ".f32" if dty == "f32" else ".b32"
    lines = [f".visible .entry {name}(.param .u64 p_img, .param .u64 p_a, .param .u64 p_c, .param .u64 p_out,",
             "  .param .u64 p_da, .param .u64 p_db, .param .u32 p_sd, .param .u64 p_meta)", "{",
             ".reg .b32 %r<16>;", ".reg .b64 %rd<16>;", ".reg .pred %p<4>;", ".reg .b32 %a<4>;",
             f".reg {dkind} {dreg}<{R}>;", f".shared .align 1024 .b8 smem[{size}];",
             "mov.u32 %r0, %tid.x;", "mov.u32 %r1, %ctaid.x;",
             "ld.param.u64 %rd0, [p_img];", "cvta.to.global.u64 %rd0, %rd0;",
             f"mul.wide.u32 %rd1, %r1, {size};", "add.u64 %rd0, %rd0, %rd1;",
             "mov.u32 %r2, smem;", "shl.b32 %r3, %r0, 2;",
             "COPY:", f"setp.ge.u32 %p0, %r3, {size};", "@%p0 bra COPIED;",
             "cvt.u64.u32 %rd2, %r3;", "add.u64 %rd3, %rd0, %rd2;", "ld.global.u32 %r4, [%rd3];",
             "add.u32 %r5, %r2, %r3;", "st.shared.u32 [%r5], %r4;", "add.u32 %r3, %r3, 512;", "bra COPY;",
             "COPIED:", "fence.proxy.async.shared::cta;", "bar.sync 0;",
             "mad.lo.u32 %r6, %r1, 128, %r0;",
             "ld.param.u64 %rd4, [p_a];", "cvta.to.global.u64 %rd4, %rd4;",
             "mul.wide.u32 %rd5, %r6, 16;", "add.u64 %rd4, %rd4, %rd5;",
             "ld.global.v4.b32 {%a0, %a1, %a2, %a3}, [%rd4];",
             "ld.param.u64 %rd12, [p_meta];", "cvta.to.global.u64 %rd12, %rd12;",
             "mul.wide.u32 %rd13, %r6, 4;", "add.u64 %rd12, %rd12, %rd13;", "ld.global.u32 %r9, [%rd12];",
             "ld.param.u64 %rd6, [p_c];", "cvta.to.global.u64 %rd6, %rd6;",
             f"mul.wide.u32 %rd7, %r6, {4 * R};", "add.u64 %rd6, %rd6, %rd7;"]
    for r in range(R):
        lines.append(f"ld.global{dkind} {dreg}{r}, [%rd6+{4 * r}];")
    lines += ["ld.param.u64 %rd8, [p_da];", "ld.param.u64 %rd9, [p_db];", "shr.u32 %r7, %r2, 4;",
              "cvt.u64.u32 %rd10, %r7;", "add.u64 %rd8, %rd8, %rd10;", "add.u64 %rd9, %rd9, %rd10;",
              "ld.param.u32 %r8, [p_sd];", "setp.ne.u32 %p1, %r8, 0;", "wgmma.fence.sync.aligned;"]
    dlist = "{" + ", ".join(f"{dreg}{r}" for r in range(R)) + "}"
    a_op = "{%a0, %a1, %a2, %a3}" if c["areg"] else "%rd8"
    shape = f"m64n{n}k{KD[aty]}"
    if aty in ("s8", "u8"):
        quals = f"{shape}{'.satfinite' if c.get('sat') else ''}.s32.{aty}.{bty}"
        tail = f"%r9, {c['sel']}, %p1"
    else:
        quals = f"{shape}.{dty}.{aty}.{bty}"
        tail = f"%r9, {c['sel']}, %p1, {c['sa']}, {c['sb']}"
        if aty in ("f16", "bf16"):
            tail += f", {c['tb']}" if c["areg"] else f", {c['ta']}, {c['tb']}"
    lines.append(f"wgmma.mma_async.sp.sync.aligned.{quals} {dlist}, {a_op}, %rd9, {tail};")
    lines += ["wgmma.commit_group.sync.aligned;", "wgmma.wait_group.sync.aligned 0;",
              "ld.param.u64 %rd11, [p_out];", "cvta.to.global.u64 %rd11, %rd11;",
              "add.u64 %rd11, %rd11, %rd7;"]
    for r in range(R):
        lines.append(f"st.global{dkind} [%rd11+{4 * r}], {dreg}{r};")
    lines += ["ret;", "}", ""]
    return "\n".join(lines)


def meta_word(ty, any_order=False):
    """A metadata word of valid chunk indices: two different 2-bit positions
    per 4-bit group, the lower first unless `any_order` (0b0100 or 0b1110
    per group for tf32)."""
    word = 0
    for g in range(8):
        if ty == "tf32":
            nib = rng.choice([0b0100, 0b1110])
        else:
            i0, i1 = rng.sample(range(4), 2)
            if not any_order:
                i0, i1 = sorted((i0, i1))
            nib = i0 | i1 << 2
        word |= nib << (4 * g)
    return word


def build(c, gen, ctas):
    n, aty, bty, dty = c["n"], c["a"], c["b"], c["d"]
    K, Kc = KD[aty], kc_of(aty)
    ea, eb = W.ESIZE[aty], W.ESIZE[bty]
    aswz = c.get("aswz", "128")
    amaj = c.get("amaj", "K")
    alb, asb = W.default_strides(amaj, aswz, ea, 64)
    blb, bsb = W.default_strides("K", "128", eb, n)
    a_start, b_start = 0, 8192
    aaddr = {} if c["areg"] else W.layout_region(amaj, aswz, ea, 64, alb, asb, a_start, Kc)
    baddr = W.layout_region("K", "128", eb, n, blb, bsb, b_start, K)
    top = max(list(aaddr.values()) + list(baddr.values())) + 16
    size = (top + 1023) // 1024 * 1024
    R = W.acc_regs(dty, n)
    imgs, aregs, cs, metas = bytearray(), bytearray(), bytearray(), bytearray()
    for cta in range(ctas):
        A = [[gen(aty, "a", cta, x, k) for k in range(Kc)] for x in range(64)]
        B = [[gen(bty, "b", cta, k, x) for x in range(n)] for k in range(K)]
        img = bytearray([0x99]) * size
        for (x, k), addr in aaddr.items():
            img[addr:addr + ea] = A[x][k].to_bytes(ea, "little")
        for (x, k), addr in baddr.items():
            img[addr:addr + eb] = B[k][x].to_bytes(eb, "little")
        regs = [[0] * 4 for _ in range(128)]
        if c["areg"]:
            for x in range(64):
                for k in range(Kc):
                    t, r, i = W.a_reg_holder(aty, x, k)
                    regs[t][r] |= A[x][k] << (8 * ea * i)
        cregs = [[0] * R for _ in range(128)]
        if c.get("scale_d"):
            for x in range(64):
                for y in range(n):
                    t, r, h = W.d_holder(dty, x, y)
                    cregs[t][r] |= gen(dty, "c", cta, x, y) << (16 * h)
        imgs += img
        aregs += b"".join(v.to_bytes(4, "little") for row in regs for v in row)
        cs += b"".join(v.to_bytes(4, "little") for row in cregs for v in row)
        metas += b"".join(meta_word(aty, c.get("any_order", False)).to_bytes(4, "little") for _ in range(128))
    da = W.desc_bits(a_start, alb, asb, aswz) if not c["areg"] else 0
    if c.get("ta") and amaj != "MN":
        raise ValueError("imm-trans-a needs an MN-major A")
    db = W.desc_bits(b_start, blb, bsb, "128")
    args = ["buf:hex:" + imgs.hex(), "buf:hex:" + aregs.hex() if c["areg"] else f"zeros:{128 * 16 * ctas}",
            "buf:hex:" + cs.hex() if c.get("scale_d") else f"zeros:{128 * 4 * R * ctas}",
            f"zeros:{128 * 4 * R * ctas}", f"u64:{da:#x}", f"u64:{db:#x}", f"u32:{1 if c.get('scale_d') else 0}",
            "buf:hex:" + metas.hex()]
    return size, args


def gen_probe(ty, which, cta, i, j):
    """A: distinct values (per row for 8-bit types); B: the identity."""
    if which == "a":
        if ty in ("f16", "tf32"):
            return W.code_of(ty, float(i * kc_of(ty) + j + 1))
        if ty in ("s8", "u8"):
            return j + 1
        return 0x30 + j  # e4m3: 32 distinct positive values
    if which == "b":
        return W.code_of(ty, 1.0 if i == j else 0.0) if ty not in ("s8", "u8") else int(i == j)
    return 0


def add(name, gen, ctas=1, **c):
    c.setdefault("sa", 1)
    c.setdefault("sb", 1)
    c.setdefault("ta", 0)
    c.setdefault("tb", 0)
    c.setdefault("sel", 0)
    c.update(name=name, gen=gen, ctas=ctas)
    CASES.append(c)


def generate():
    # Probes: where each packed element lands, per type, A source and selector.
    for ty, dty in (("f16", "f32"), ("tf32", "f32"), ("s8", "s32"), ("e4m3", "f32")):
        sels = (0, 1) if ty in ("f16", "tf32") else (0,)
        for areg in (True, False):
            for sel in sels:
                add(f"sp_probe_{ty}_{'areg' if areg else 'adesc'}_sel{sel}", "probe", ctas=4, n=KD[ty],
                    d=dty, a=ty, b=ty, areg=areg, sel=sel)
    # Random values: every type pair, both A sources, selectors, negation, scale-d.
    floats = [("f32", "f16", "f16"), ("f16", "f16", "f16"), ("f32", "bf16", "bf16"), ("f32", "tf32", "tf32"),
              ("f32", "e4m3", "e4m3"), ("f32", "e4m3", "e5m2"), ("f32", "e5m2", "e4m3"), ("f16", "e5m2", "e5m2")]
    for d, a, b in floats:
        for areg in (True, False):
            sels = (0, 1) if a in ("f16", "bf16", "tf32") else (0,)
            for sel in sels:
                for n in ((8, 64, 128) if (a, d) == ("f16", "f32") else (64,)):
                    add(f"sp_rand_{d}_{a}_{b}_{'areg' if areg else 'adesc'}_sel{sel}_n{n}", "rand", ctas=2,
                        n=n, d=d, a=a, b=b, areg=areg, sel=sel, scale_d=True)
        add(f"sp_neg_{d}_{a}_{b}", "rand", ctas=1, n=32, d=d, a=a, b=b, areg=False, sa=-1, sb=-1, scale_d=False)
    for a, b in (("s8", "s8"), ("u8", "s8"), ("s8", "u8"), ("u8", "u8")):
        for areg in (True, False):
            add(f"sp_int_{a}_{b}_{'areg' if areg else 'adesc'}", "rand", ctas=2, n=64, d="s32", a=a, b=b,
                areg=areg, scale_d=True)
    add("sp_int_sat", "rand", ctas=1, n=32, d="s32", a="s8", b="s8", areg=False, scale_d=True, sat=True)
    # Swizzles of a descriptor A.
    for swz in ("none", "32", "64"):
        add(f"sp_adesc_swizzle_{swz}", "rand", ctas=1, n=32, d="f32", a="f16", b="f16", areg=False, aswz=swz,
            scale_d=True)
    # Second round: metadata naming the higher position first, MN-major packed A.
    add("sp_probe_f16_areg_sel0_anyorder", "probe", ctas=4, n=32, d="f32", a="f16", b="f16", areg=True,
        any_order=True)
    add("sp_probe_f16_adesc_sel1_anyorder", "probe", ctas=4, n=32, d="f32", a="f16", b="f16", areg=False,
        sel=1, any_order=True)
    add("sp_probe_s8_areg_sel0_anyorder", "probe", ctas=4, n=64, d="s32", a="s8", b="s8", areg=True,
        any_order=True)
    add("sp_rand_f32_bf16_anyorder", "rand", ctas=1, n=64, d="f32", a="bf16", b="bf16", areg=True,
        any_order=True, scale_d=True)
    for swz in ("128", "none"):
        add(f"sp_probe_f16_adesc_mn_{swz}", "probe", ctas=2, n=32, d="f32", a="f16", b="f16", areg=False,
            amaj="MN", aswz=swz, ta=1)
        add(f"sp_rand_f32_f16_adesc_mn_{swz}", "rand", ctas=1, n=64, d="f32", a="f16", b="f16", areg=False,
            amaj="MN", aswz=swz, ta=1, scale_d=True)


def gen_of(name):
    return {"probe": gen_probe, "rand": W.gen_rand}[name]


def emit_all():
    generate()
    text = "// Generated by tests/interp/wgmma_sp_fixtures.py: sparse wgmma cases.\n" + W.HEADER
    built = []
    for c in CASES:
        size, args = build(c, gen_of(c["gen"]), c["ctas"])
        text += kernel(c["name"], c, size) + "\n"
        built.append((c, args))
    return text, built


def run(out_path):
    import ctypes
    import numpy
    import cupy as cp
    cp.cuda.runtime.deviceSynchronize()
    cuda = ctypes.CDLL("libcuda.so.1")

    def check(code, what):
        if code != 0:
            name = ctypes.c_char_p()
            cuda.cuGetErrorName(code, ctypes.byref(name))
            raise RuntimeError(f"{what}: {name.value.decode() if name.value else code}")

    text, built = emit_all()
    with open(os.path.join(ROOT, PTX), "w") as f:
        f.write(text)
    module = ctypes.c_void_p()
    check(cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(text.encode() + b"\0")), "cuModuleLoadData")
    with open(out_path, "w") as out:
        for c, args in built:
            fn = ctypes.c_void_p()
            check(cuda.cuModuleGetFunction(ctypes.byref(fn), module, c["name"].encode()), "cuModuleGetFunction")
            dev, keep, ptrs = [], [], []
            for a in args:
                kind, rest = a.split(":", 1)
                if kind in ("zeros", "buf"):
                    data = bytes(int(rest)) if kind == "zeros" else bytes.fromhex(rest.split(":", 1)[1])
                    d = cp.asarray(numpy.frombuffer(data, dtype=numpy.uint8).copy())
                    dev.append(d)
                    cell = ctypes.c_uint64(d.data.ptr)
                elif kind == "u64":
                    cell = ctypes.c_uint64(int(rest, 16))
                else:
                    cell = ctypes.c_uint32(int(rest))
                keep.append(cell)
                ptrs.append(ctypes.cast(ctypes.pointer(cell), ctypes.c_void_p).value)
            params = (ctypes.c_void_p * len(ptrs))(*ptrs)
            u = ctypes.c_uint
            check(cuda.cuLaunchKernel(fn, u(c["ctas"]), u(1), u(1), u(128), u(1), u(1), u(0), None, params, None),
                  "cuLaunchKernel")
            check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
            result = cp.asnumpy(dev[3]).tobytes()
            out.write(json.dumps({"name": c["name"], "file": PTX, "entry": c["name"], "grid": [c["ctas"], 1, 1],
                                  "block": [128, 1, 1], "smem": 0, "args": args,
                                  "buffers": [{"arg": 3, "hex": result.hex()}]}) + "\n")
    print(len(built), "launches")


def main():
    if sys.argv[1:2] == ["--emit"]:
        text, built = emit_all()
        with open(os.path.join(ROOT, PTX), "w") as f:
            f.write(text)
        print(len(built), "cases", file=sys.stderr)
    elif sys.argv[1:2] == ["--run"]:
        run(sys.argv[2])
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
