#!/usr/bin/env python3
"""wgmma on the GPU: fragment layouts, shared-memory matrix descriptors and
results of every type, for the interpreter to match byte for byte.

Writes tests/interp/kernels/wgmma.ptx (one entry per case) and, with --run on
a machine with an sm_90a GPU and CuPy, a JSON-lines file in the format of
real_kernels.jsonl (arguments and the output buffer after the launch), plus
the accumulation study (--study: many CTAs of crafted float inputs, saved as
an .npz of element bits) used to model the tensor core's sums.

    python3 tests/interp/wgmma_fixtures.py --emit
    python3 tests/interp/wgmma_fixtures.py --run OUT.jsonl [STUDY.npz]

Every case is one kernel: 128 threads copy a shared-memory image (the bytes
of A and B laid out as the case's descriptors say, swizzled on the absolute
shared address of a 1024-byte aligned array) from global memory, load the A
fragment (register cases) and the accumulator, build the descriptors from the
array's address and the case's descriptor bits, issue one wgmma.mma_async
between wgmma.fence and commit_group/wait_group 0 and store every thread's
accumulator registers (thread t, register r at (ctaid*128 + t)*R + r).
"""

import json
import os
import random
import struct
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PTX = "tests/interp/kernels/wgmma.ptx"
SEED = 20261127
rng = random.Random(SEED)

ESIZE = {"f16": 2, "bf16": 2, "tf32": 4, "e4m3": 1, "e5m2": 1, "s8": 1, "u8": 1, "b1": 0}
KDIM = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32, "s8": 32, "u8": 32, "b1": 256}
SWZ = {"none": 0, "128": 1, "64": 2, "32": 3}
SWZ_BYTES = {"none": 0, "128": 128, "64": 64, "32": 32}
INT_N = [8, 16, 24, 32] + list(range(48, 257, 16))

# ------------------------------------------------------------------ element values

def decode_fp8(code, ebits, mbits, bias, e4m3):
    s = -1.0 if code >> 7 else 1.0
    e = (code >> mbits) & ((1 << ebits) - 1)
    m = code & ((1 << mbits) - 1)
    if e4m3 and e == 15 and m == 7:
        return float("nan")
    if not e4m3 and e == 31:
        return float("nan") if m else s * float("inf")
    if e == 0:
        return s * m * 2.0 ** (1 - bias - mbits)
    return s * (1 + m / (1 << mbits)) * 2.0 ** (e - bias)


def value(ty, bits):
    if ty == "f16":
        return float(struct.unpack("<e", struct.pack("<H", bits))[0])
    if ty == "bf16":
        return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
    if ty == "tf32":
        return struct.unpack("<f", struct.pack("<I", bits & 0xffffe000))[0]
    if ty == "e4m3":
        return decode_fp8(bits, 4, 3, 7, True)
    if ty == "e5m2":
        return decode_fp8(bits, 5, 2, 15, False)
    if ty == "s8":
        return bits - 256 if bits >= 128 else bits
    return bits


CODES = {}


def code_of(ty, v):
    """Bits of the exactly representable value v."""
    if ty not in CODES:
        table = {}
        width = 8 if ESIZE[ty] == 1 else 16
        for c in range(1 << width):
            x = value(ty, c)
            if x == x and x not in table:
                table[x] = c
        CODES[ty] = table
    if ty == "tf32":
        return struct.unpack("<I", struct.pack("<f", v))[0]
    return CODES[ty][v]


def small_int(ty):
    if ty == "u8":
        return rng.randrange(256)
    if ty == "s8":
        return rng.randrange(256)
    if ty == "b1":
        return rng.randrange(2)
    return code_of(ty, float(rng.randint(-4, 4))) if ty != "tf32" else code_of(ty, float(rng.randint(-4, 4)))


def rand_float(ty, spread=4, mant=None):
    """Random sign, exponent within +-spread of 1.0, random mantissa bits."""
    s = rng.randrange(2)
    if ty == "f16":
        e = rng.randint(15 - spread, 15 + spread)
        m = rng.randrange(1 << 10)
        return s << 15 | e << 10 | m
    if ty == "bf16":
        e = rng.randint(127 - spread, 127 + spread)
        return s << 15 | e << 7 | rng.randrange(1 << 7)
    if ty == "tf32":
        e = rng.randint(127 - spread, 127 + spread)
        return s << 31 | e << 23 | rng.randrange(1 << 23)
    if ty == "e4m3":
        e = rng.randint(max(1, 7 - spread), min(15, 7 + spread))
        m = rng.randrange(8)
        if e == 15 and m == 7:
            m = 6
        return s << 7 | e << 3 | m
    if ty == "e5m2":
        e = rng.randint(max(1, 15 - spread), min(30, 15 + spread))
        return s << 7 | e << 2 | rng.randrange(4)
    return small_int(ty)


# ------------------------------------------------------------------ layouts

def a_reg_holder(ty, m, k):
    """(thread, register, position) holding A[m][k] of a register fragment."""
    w, r = divmod(m, 16)
    g, hi = r % 8, r // 8
    if ty in ("f16", "bf16"):
        t, i = (k % 8) // 2, k % 2
        reg = hi + 2 * (k // 8)
        return 32 * w + 4 * g + t, reg, i
    if ty == "tf32":
        t = k % 4
        return 32 * w + 4 * g + t, hi + 2 * (k // 4), 0
    if ty == "b1":
        t, i = (k % 128) // 32, k % 32
        return 32 * w + 4 * g + t, hi + 2 * (k // 128), i
    t, i = (k % 16) // 4, k % 4
    return 32 * w + 4 * g + t, hi + 2 * (k // 16), i


def d_holder(dty, m, n):
    """(thread, register, half) holding D[m][n]."""
    w, r = divmod(m, 16)
    g, hi = r % 8, r // 8
    j, c = divmod(n, 8)
    t, i = c // 2, c % 2
    idx = 4 * j + 2 * hi + i
    if dty == "f16":
        return 32 * w + 4 * g + t, idx // 2, idx % 2
    return 32 * w + 4 * g + t, idx, 0


def smem_offset(major, swz, esize, lbo, sbo, mn, k):
    """Byte offset (before swizzling) of element (mn, k) from the start address,
    by the canonical layouts of the spec (esize 0: b1, 8 elements a byte, K-major)."""
    per16 = 128 if esize == 0 else 16 // esize
    kb = (k // 8) if esize == 0 else k * esize  # byte within the K extent (K-major)
    if major == "K":
        if swz == "none":
            return (mn % 8) * 16 + (mn // 8) * sbo + (k % per16) * max(esize, 0) // 1 * 0 + (kb % 16) + (k // per16) * lbo
        s = SWZ_BYTES[swz] // 16
        return (mn % 8) * 16 * s + (mn // 8) * sbo + (kb % 16) + (kb // 16) * 16
    # MN-major: T elements of MN in 16 bytes
    t = per16
    if swz == "none":
        return (mn % t) * esize + (mn // t) * sbo + (k % 8) * 16 + (k // 8) * lbo
    s = SWZ_BYTES[swz] // 16
    return (mn % t) * esize + ((mn // t) % s) * 16 + (mn // (t * s)) * lbo + (k % 8) * 16 * s + (k // 8) * sbo


def swizzle(addr, swz):
    if swz == "none":
        return addr
    b = {"32": 1, "64": 2, "128": 3}[swz]
    return addr ^ (((addr >> 7) & ((1 << b) - 1)) << 4)


def default_strides(major, swz, esize, mn):
    """Tight (lbo, sbo) for an MN x K operand (K extent 32 bytes)."""
    per16 = 128 if esize == 0 else 16 // esize
    if major == "K":
        if swz == "none":
            return 128, 256  # k chunks adjacent, 8-row groups after both
        s = SWZ_BYTES[swz] // 16
        return 16, 128 * s
    if swz == "none":
        return 128 * (-(-mn // per16)), 128  # k groups after all MN chunks; MN chunks adjacent
    s = SWZ_BYTES[swz] // 16
    atoms = -(-mn // (per16 * s))
    return 2 * 128 * s, 128 * s  # MN atoms after both k groups


def desc_bits(start, lbo, sbo, swz, base=0):
    return ((start & 0x3ffff) >> 4) | ((lbo & 0x3ffff) >> 4) << 16 | ((sbo & 0x3ffff) >> 4) << 32 \
        | base << 49 | SWZ[swz] << 62


# ------------------------------------------------------------------ cases

HEADER = ".version 8.4\n.target sm_90a\n.address_size 64\n\n"
CASES = []
STUDY = []


def acc_regs(dty, n):
    return n // 4 if dty == "f16" else n // 2


def shape_of(n, aty):
    return f"m64n{n}k{KDIM[aty]}"


def kernel(name, c, size):
    n, dty, aty, bty = c["n"], c["d"], c["a"], c["b"]
    R = acc_regs(dty, n)
    dreg = "%f" if dty == "f32" else "%d"
    dkind = ".f32" if dty == "f32" else ".b32"
    lines = [f".visible .entry {name}(.param .u64 p_img, .param .u64 p_a, .param .u64 p_c, .param .u64 p_out,",
             "  .param .u64 p_da, .param .u64 p_db, .param .u32 p_sd)", "{",
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
             "ld.param.u64 %rd6, [p_c];", "cvta.to.global.u64 %rd6, %rd6;",
             f"mul.wide.u32 %rd7, %r6, {4 * R};", "add.u64 %rd6, %rd6, %rd7;"]
    for r in range(R):
        lines.append(f"ld.global{dkind} {dreg}{r}, [%rd6+{4 * r}];")
    lines += ["ld.param.u64 %rd8, [p_da];", "ld.param.u64 %rd9, [p_db];", "shr.u32 %r7, %r2, 4;",
              "cvt.u64.u32 %rd10, %r7;", "add.u64 %rd8, %rd8, %rd10;", "add.u64 %rd9, %rd9, %rd10;",
              "ld.param.u32 %r8, [p_sd];", "setp.ne.u32 %p1, %r8, 0;", "wgmma.fence.sync.aligned;"]
    dlist = "{" + ", ".join(f"{dreg}{r}" for r in range(R)) + "}"
    a_op = "{%a0, %a1, %a2, %a3}" if c["areg"] else "%rd8"
    if aty in ("s8", "u8"):
        quals = f"{shape_of(n, aty)}{'.satfinite' if c.get('sat') else ''}.s32.{aty}.{bty}"
        tail = "%p1"
    elif aty == "b1":
        quals = f"{shape_of(n, aty)}.s32.b1.b1.and.popc"
        tail = "%p1"
    else:
        quals = f"{shape_of(n, aty)}.{dty}.{aty}.{bty}"
        tail = f"%p1, {c['sa']}, {c['sb']}"
        if aty in ("f16", "bf16"):
            tail += f", {c['tb']}" if c["areg"] else f", {c['ta']}, {c['tb']}"
    lines.append(f"wgmma.mma_async.sync.aligned.{quals} {dlist}, {a_op}, %rd9, {tail};")
    lines += ["wgmma.commit_group.sync.aligned;", "wgmma.wait_group.sync.aligned 0;",
              "ld.param.u64 %rd11, [p_out];", "cvta.to.global.u64 %rd11, %rd11;",
              "add.u64 %rd11, %rd11, %rd7;"]
    for r in range(R):
        lines.append(f"st.global{dkind} [%rd11+{4 * r}], {dreg}{r};")
    lines += ["ret;", "}", ""]
    return "\n".join(lines)


def layout_region(major, swz, esize, mn, lbo, sbo, start, kdim):
    """Byte addresses (relative to the aligned base) of every element."""
    out = {}
    for x in range(mn):
        for k in range(kdim):
            out[(x, k)] = swizzle(start + smem_offset(major, swz, esize, lbo, sbo, x, k), swz)
    return out


def put(img, addr, ty, bits):
    if ty == "b1":
        byte, bit = divmod(addr, 1)  # unused (b1 handled per byte)
    size = ESIZE[ty]
    img[addr:addr + size] = bits.to_bytes(size, "little")


def build(c, gen, ctas=1):
    """Images, A fragments and C for `ctas` CTAs; returns args and logical matrices."""
    n, aty, bty, dty = c["n"], c["a"], c["b"], c["d"]
    K = KDIM[aty]
    ea, eb = ESIZE[aty], ESIZE[bty]
    # where A and B go
    amaj, bmaj = c.get("amaj", "K"), c.get("bmaj", "K")
    aswz, bswz = c.get("aswz", "none"), c.get("bswz", "128")
    alb, asb = c.get("astrides") or default_strides(amaj, aswz, ea, 64)
    blb, bsb = c.get("bstrides") or default_strides(bmaj, bswz, eb, n)
    a_start = c.get("a_start", 0)
    b_start = c.get("b_start", 8192 if n <= 128 else 16384)
    if c["areg"]:
        aaddr = {}
    else:
        aaddr = layout_region(amaj, aswz, ea, 64, alb, asb, a_start, K) if aty != "b1" else \
            {(x, k): swizzle(a_start + smem_offset(amaj, aswz, 0, alb, asb, x, k), aswz) for x in range(64) for k in range(0, K, 8)}
    if bty == "b1":
        baddr = {(x, k): swizzle(b_start + smem_offset(bmaj, bswz, 0, blb, bsb, x, k), bswz) for x in range(n) for k in range(0, K, 8)}
    else:
        baddr = layout_region(bmaj, bswz, eb, n, blb, bsb, b_start, K)
    top = max(list(aaddr.values()) + list(baddr.values())) + 16
    size = (top + 1023) // 1024 * 1024
    R = acc_regs(dty, n)
    imgs, aregs, cs, mats = bytearray(), bytearray(), bytearray(), []
    for cta in range(ctas):
        A = [[gen(aty, "a", cta, x, k) for k in range(K)] for x in range(64)]
        B = [[gen(bty, "b", cta, k, x) for x in range(n)] for k in range(K)]  # B[k][n]
        img = bytearray([c.get("pad", 0x99)]) * size
        if "probe" in c:
            for i in range(0, size, 2):
                img[i:i + 2] = (0x1000 + i // 2).to_bytes(2, "little")
        if aty == "b1":
            for (x, k), addr in aaddr.items():
                img[addr] = sum(A[x][k + j] << j for j in range(8))
            for (x, k), addr in baddr.items():
                img[addr] = sum(B[k + j][x] << j for j in range(8))
        else:
            for (x, k), addr in aaddr.items():
                img[addr:addr + ea] = A[x][k].to_bytes(ea, "little")
            if "probe" not in c:
                for (x, k), addr in baddr.items():
                    img[addr:addr + eb] = B[k][x].to_bytes(eb, "little")
        regs = [[0] * 4 for _ in range(128)]
        if c["areg"]:
            bits = 1 if aty == "b1" else 8 * ea
            for x in range(64):
                for k in range(K):
                    t, r, i = a_reg_holder(aty, x, k)
                    regs[t][r] |= A[x][k] << (bits * i)
        Cm = [[gen(dty, "c", cta, x, y) for y in range(n)] for x in range(64)] if c.get("scale_d") else None
        cregs = [[0] * R for _ in range(128)]
        if Cm:
            for x in range(64):
                for y in range(n):
                    t, r, h = d_holder(dty, x, y)
                    cregs[t][r] |= Cm[x][y] << (16 * h)
        imgs += img
        aregs += b"".join(v.to_bytes(4, "little") for row in regs for v in row)
        cs += b"".join(v.to_bytes(4, "little") for row in cregs for v in row)
        mats.append((A, B, Cm))
    da = desc_bits(a_start, alb, asb, aswz, c.get("a_base", 0)) if not c["areg"] else 0
    db = desc_bits(b_start, blb, bsb, bswz, c.get("b_base", 0))
    args = ["buf:hex:" + imgs.hex(), "buf:hex:" + aregs.hex() if c["areg"] else f"zeros:{128 * 16 * ctas}",
            "buf:hex:" + cs.hex() if c.get("scale_d") else f"zeros:{128 * 4 * R * ctas}",
            f"zeros:{128 * 4 * R * ctas}", f"u64:{da:#x}", f"u64:{db:#x}", f"u32:{1 if c.get('scale_d') else 0}"]
    return size, args, mats


def gen_int(ty, which, cta, i, j):
    if which == "c":
        if ty == "f32":
            return struct.unpack("<I", struct.pack("<f", float(rng.randint(-64, 64))))[0]
        if ty == "f16":
            return code_of("f16", float(rng.randint(-64, 64)))
        return rng.randrange(1 << 32)
    return small_int(ty)


def gen_rand(ty, which, cta, i, j):
    if which == "c":
        if ty == "f32":
            return struct.unpack("<I", struct.pack("<f", rng.uniform(-8, 8)))[0]
        if ty == "f16":
            return rand_float("f16", 3)
        return rng.randrange(1 << 32)
    return rand_float(ty)


def gen_probe(ty, which, cta, i, j):
    # A one-hot (A[m][k] = 1 when k == m % K); B is the image's own slot numbers.
    if which == "a":
        return code_of(ty, 1.0 if j == i % KDIM[ty] else 0.0)
    return 0


SPECIAL_POOL = {
    "f16": [0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7bff, 0xfbff, 0x0001, 0x8001, 0x03ff, 0x3c00, 0xbc00],
    "bf16": [0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0x7f7f, 0xff7f, 0x0001, 0x8001, 0x3f80, 0xbf80],
    "tf32": [0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f7fe000, 0xff7fe000,
             0x00002000, 0x80002000, 0x3f800000, 0xbf800000],
    "e4m3": [0x00, 0x80, 0x7f, 0xff, 0x7e, 0xfe, 0x01, 0x81, 0x38, 0xb8],
    "e5m2": [0x00, 0x80, 0x7c, 0xfc, 0x7e, 0x7b, 0xfb, 0x01, 0x81, 0x3c, 0xbc],
}


def gen_special(ty, which, cta, i, j):
    """Mostly ordinary values with special ones (zeros, infinities, NaNs,
    largest finite, subnormals) mixed in; accumulators likewise (f32: also
    near the largest finite, to reach overflow)."""
    r = rng.random()
    if which == "c":
        if ty == "f32":
            pool = [0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f7fffff, 0xff7fffff,
                    0x7f000000, 0x00000001, 0x3f800000]
            return rng.choice(pool) if r < 0.5 else struct.unpack("<I", struct.pack("<f", rng.uniform(-8, 8)))[0]
        pool = SPECIAL_POOL["f16"]
        return rng.choice(pool) if r < 0.5 else rand_float("f16", 3)
    if r < 0.12:
        return rng.choice(SPECIAL_POOL[ty])
    if r < 0.5:
        return rng.choice(SPECIAL_POOL[ty][:2])  # signed zeros, for the sign of zero sums
    return rand_float(ty)


def add(name, gen, **c):
    c.setdefault("sa", 1)
    c.setdefault("sb", 1)
    c.setdefault("ta", 0)
    c.setdefault("tb", 0)
    c["name"] = name
    c["gen"] = gen
    CASES.append(c)


def generate():
    # Layouts: every major-ness and swizzle of A and B, f16 -> f32, small integers.
    for amaj in ("K", "MN"):
        for bmaj in ("K", "MN"):
            for swz in ("none", "32", "64", "128"):
                add(f"layout_a{amaj}_b{bmaj}_{swz}_n64", "int", n=64, d="f32", a="f16", b="f16", areg=False,
                    amaj=amaj, bmaj=bmaj, aswz=swz, bswz=swz, ta=int(amaj == "MN"), tb=int(bmaj == "MN"))
    for bmaj in ("K", "MN"):
        for swz in ("none", "32", "64", "128"):
            for n in (8, 24, 136, 256):
                add(f"layout_areg_b{bmaj}_{swz}_n{n}", "int", n=n, d="f32", a="f16", b="f16", areg=True,
                    bmaj=bmaj, bswz=swz, tb=int(bmaj == "MN"))
    # Mixed swizzles, padded strides, other stride orders.
    add("layout_mixed_a128_bnone", "int", n=32, d="f32", a="f16", b="f16", areg=False, aswz="128", bswz="none")
    add("layout_mixed_a32_b64", "int", n=32, d="f32", a="bf16", b="bf16", areg=False, aswz="32", bswz="64")
    add("layout_strides_k_none_mninner", "int", n=32, d="f32", a="f16", b="f16", areg=False, aswz="none",
        bswz="none", astrides=(1024, 128), bstrides=(512, 128))
    add("layout_strides_k_padded", "int", n=32, d="f32", a="f16", b="f16", areg=False, aswz="128", bswz="64",
        astrides=(16, 2048), bstrides=(16, 1024))
    add("layout_strides_mn_none_other", "int", n=32, d="f32", a="f16", b="f16", areg=False, amaj="MN",
        bmaj="MN", aswz="none", bswz="none", ta=1, tb=1, astrides=(128, 256), bstrides=(128, 256))
    add("layout_strides_mn_128_padded", "int", n=128, d="f32", a="f16", b="f16", areg=False, amaj="MN",
        bmaj="MN", aswz="128", bswz="128", ta=1, tb=1, astrides=(4096, 2048), bstrides=(4096, 2048))
    # Start addresses inside a swizzle atom: K sub-tiles of a wider K-major tile and
    # row offsets, with the base offset field set by the spec's formula and left 0.
    for swz, atom in (("128", 1024), ("64", 512), ("32", 256)):
        for kofs in range(16, SWZ_BYTES[swz], 32):
            pass
        for koff in range(32, SWZ_BYTES[swz], 32):
            add(f"start_k{koff}_{swz}", "int", n=32, d="f32", a="f16", b="f16", areg=False, aswz=swz,
                bswz=swz, a_start=koff, b_start=8192 + koff)
        for roff in (128, 256, 384):
            if roff >= atom:
                continue
            for base in ("formula", "zero"):
                bits = ((roff >> 7) & 7) if base == "formula" else 0
                add(f"start_row{roff}_{swz}_base{base}", "int", n=32, d="f32", a="f16", b="f16", areg=False,
                    aswz=swz, bswz=swz, a_start=roff, b_start=8192 + roff, a_base=bits, b_base=bits)
    # Every N for f16 and s8.
    for n in range(8, 257, 8):
        add(f"n_f16_{n}", "int", n=n, d="f32", a="f16", b="f16", areg=True, bswz="128")
    for n in INT_N:
        add(f"n_s8_{n}", "int", n=n, d="s32", a="s8", b="s8", areg=False, aswz="128", bswz="128")
    # Types, random values, register and descriptor A.
    FLOATS = [("f32", "f16", "f16"), ("f16", "f16", "f16"), ("f32", "bf16", "bf16"), ("f32", "tf32", "tf32"),
              ("f32", "e4m3", "e4m3"), ("f32", "e4m3", "e5m2"), ("f32", "e5m2", "e4m3"), ("f32", "e5m2", "e5m2"),
              ("f16", "e4m3", "e4m3"), ("f16", "e5m2", "e4m3")]
    for d, a, b in FLOATS:
        for areg in (True, False):
            for n in (8, 64, 256):
                for sd in (0, 1):
                    add(f"type_{d}_{a}_{b}_{'reg' if areg else 'desc'}_n{n}_sd{sd}", "rand", n=n, d=d, a=a, b=b,
                        areg=areg, aswz="128", bswz="128", scale_d=sd)
    for a in ("s8", "u8"):
        for b in ("s8", "u8"):
            for areg in (True, False):
                for sat in (False, True):
                    add(f"type_s32_{a}_{b}_{'reg' if areg else 'desc'}{'_sat' if sat else ''}", "rand", n=64,
                        d="s32", a=a, b=b, areg=areg, aswz="64", bswz="32", scale_d=1, sat=sat)
    for areg in (True, False):
        add(f"type_s32_b1_{'reg' if areg else 'desc'}", "rand", n=64, d="s32", a="b1", b="b1", areg=areg,
            aswz="none", bswz="none", scale_d=1)
    # Negation, scale-d and transposes.
    for sa in (1, -1):
        for sb in (1, -1):
            for sd in (0, 1):
                add(f"scale_a{sa:+d}_b{sb:+d}_sd{sd}".replace("+", "p").replace("-", "m"), "rand", n=32, d="f32", a="bf16", b="bf16", areg=False,
                    aswz="64", bswz="64", sa=sa, sb=sb, scale_d=sd)
    add("scale_e4m3_neg", "rand", n=32, d="f32", a="e4m3", b="e4m3", areg=True, bswz="32", sa=-1, sb=1,
        scale_d=1)
    add("scale_tf32_neg", "rand", n=32, d="f32", a="tf32", b="tf32", areg=False, aswz="32", bswz="32", sa=-1,
        sb=-1, scale_d=1)
    # Special values: zeros of both signs, infinities, NaNs, overflow.
    for d, a, b in [("f32", "f16", "f16"), ("f16", "f16", "f16"), ("f32", "bf16", "bf16"),
                    ("f32", "tf32", "tf32"), ("f32", "e4m3", "e4m3"), ("f32", "e5m2", "e5m2"),
                    ("f16", "e5m2", "e4m3")]:
        for sd in (0, 1):
            add(f"special_{d}_{a}_{b}_sd{sd}", "special", n=64, d=d, a=a, b=b, areg=False, aswz="none",
                bswz="none", scale_d=sd)
    # Probes: A one-hot, B every image slot's own number (decodes the B layout).
    for bmaj in ("K", "MN"):
        for swz in ("none", "32", "64", "128"):
            add(f"probe_b{bmaj}_{swz}", "probe", n=64, d="f32", a="f16", b="f16", areg=True, bmaj=bmaj,
                bswz=swz, tb=int(bmaj == "MN"), probe=True)


STUDY_TYPES = [("f32", "f16", "f16"), ("f16", "f16", "f16"), ("f32", "bf16", "bf16"), ("f32", "tf32", "tf32"),
               ("f32", "e4m3", "e4m3"), ("f32", "e5m2", "e5m2"), ("f16", "e4m3", "e4m3"), ("f32", "e4m3", "e5m2")]
STUDY_CTAS = 16


def study_gen(cta):
    """Per-CTA distributions: exponent spreads, mantissa widths, C sizes."""
    spread = [1, 2, 4, 8, 12, 3, 6, 10, 2, 5, 8, 0, 14, 4, 7, 1][cta]
    mant_full = cta % 3 != 2
    cexp = [0, 10, -10, 20, 4, -20, 0, 8, 30, -4, 2, 0, 16, -30, 6, 12][cta]
    subnormal = cta in (7, 13)

    def gen(ty, which, c, i, j):
        if which == "c":
            if ty == "f16":
                e = max(1, min(30, 15 + cexp // 3 + rng.randint(-2, 2)))
                return rng.randrange(2) << 15 | e << 10 | rng.randrange(1024)
            e = max(1, min(254, 127 + cexp + rng.randint(-3, 3)))
            return rng.randrange(2) << 31 | e << 23 | rng.randrange(1 << 23)
        bits = rand_float(ty, spread)
        if not mant_full:
            keep = {"f16": 0xfc00 | 0x300, "bf16": 0xff80 | 0x60, "tf32": 0xff800000 | 0x600000,
                    "e4m3": 0xfc, "e5m2": 0xfe}[ty]
            bits &= keep
        if subnormal and rng.random() < 0.3:
            w = {"f16": 10, "bf16": 7, "tf32": 10, "e4m3": 3, "e5m2": 2}[ty]
            top = {"f16": 15, "bf16": 15, "tf32": 31, "e4m3": 7, "e5m2": 7}[ty]
            bits = (bits & (1 << top)) | rng.randrange(1, 1 << w) << (13 if ty == "tf32" else 0)
        return bits
    return gen


def study_cases():
    out = []
    for d, a, b in STUDY_TYPES:
        c = {"name": f"study_{d}_{a}_{b}", "n": 256, "d": d, "a": a, "b": b, "areg": False, "aswz": "none",
             "bswz": "none", "scale_d": 1, "sa": 1, "sb": 1, "ta": 0, "tb": 0, "gen": "study"}
        out.append(c)
    return out


def emit_all():
    generate()
    text = "// Generated by tests/interp/wgmma_fixtures.py: wgmma layout, descriptor and result cases.\n" + HEADER
    built = []
    for c in CASES + study_cases():
        if c["gen"] == "study":
            size, args, mats = None, None, None
            ctas = STUDY_CTAS
            # one generator per CTA
            parts = []
            for cta in range(ctas):
                g = study_gen(cta)
                s, ar, m = build(c, g, 1)
                parts.append((s, ar, m))
            size = parts[0][0]
            args = []
            for i in range(7):
                kinds = [p[1][i] for p in parts]
                if kinds[0].startswith("buf:hex:"):
                    args.append("buf:hex:" + "".join(k[8:] for k in kinds))
                elif kinds[0].startswith("zeros:"):
                    args.append(f"zeros:{int(kinds[0][6:]) * ctas}")
                else:
                    args.append(kinds[0])
            mats = [p[2][0] for p in parts]
        else:
            gen = {"int": gen_int, "rand": gen_rand, "probe": gen_probe, "special": gen_special}[c["gen"]]
            ctas = 1
            size, args, mats = build(c, gen, 1)
        text += kernel(c["name"], c, size) + "\n"
        built.append((c, size, args, mats, ctas))
    return text, built


# ------------------------------------------------------------------ checking against numpy

def reference(c, mats, out_bytes, ctas):
    """Largest relative difference between the GPU's D (read with the assumed D
    layout) and an f64 reference, per CTA; None for probes."""
    n, dty, aty, bty = c["n"], c["d"], c["a"], c["b"]
    R = acc_regs(dty, n)
    K = KDIM[aty]
    worst = 0.0
    for cta in range(ctas):
        A, B, Cm = mats[cta]
        for x in range(64):
            for y in range(n):
                t, r, h = d_holder(dty, x, y)
                o = ((cta * 128 + t) * R + r) * 4
                word = int.from_bytes(out_bytes[o:o + 4], "little")
                if dty == "f16":
                    got = value("f16", (word >> (16 * h)) & 0xffff)
                elif dty == "f32":
                    got = struct.unpack("<f", struct.pack("<I", word))[0]
                else:
                    got = word - (1 << 32) if word >> 31 else word
                if aty == "b1":
                    s = sum(A[x][k] & B[k][y] for k in range(K))
                else:
                    s = sum(value(aty, A[x][k]) * value(bty, B[k][y]) for k in range(K)) * c["sa"] * c["sb"]
                if Cm:
                    cv = Cm[x][y]
                    if dty == "f32":
                        s += struct.unpack("<f", struct.pack("<I", cv))[0]
                    elif dty == "f16":
                        s += value("f16", cv)
                    else:
                        s += cv - (1 << 32) if cv >> 31 else cv
                if dty == "s32":
                    if c.get("sat"):
                        s = max(-2**31, min(2**31 - 1, s))
                    else:
                        s = (s + 2**31) % 2**32 - 2**31
                    if s != got:
                        worst = max(worst, 1.0)
                    continue
                if s != s or got != got:
                    if not (s != s and got != got):
                        worst = max(worst, 1.0)
                    continue
                den = max(abs(s), 1e-30)
                worst = max(worst, abs(got - s) / den if abs(s) > 1e-20 else abs(got - s))
    return worst


# ------------------------------------------------------------------ launching

def launch(built, names, out, study_path):
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

    text = open(os.path.join(ROOT, PTX), "rb").read() + b"\0"
    module = ctypes.c_void_p()
    check(cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(text)), "cuModuleLoadData")
    study = {}
    for c, size, args, mats, ctas in built:
        if c["name"] not in names:
            continue
        fn = ctypes.c_void_p()
        check(cuda.cuModuleGetFunction(ctypes.byref(fn), module, c["name"].encode()), "cuModuleGetFunction")
        dev, keep, ptrs = [], [], []
        for a in args:
            kind, rest = a.split(":", 1)
            if kind in ("zeros", "buf"):
                data = bytes(int(rest)) if kind == "zeros" else bytes.fromhex(rest.split(":", 1)[1])
                d = cp.asarray(numpy.frombuffer(data, dtype=numpy.uint8).copy())
                dev.append((d, len(data)))
                cell = ctypes.c_uint64(d.data.ptr)
            elif kind == "u64":
                cell = ctypes.c_uint64(int(rest, 16))
            else:
                cell = ctypes.c_uint32(int(rest))
            keep.append(cell)
            ptrs.append(ctypes.cast(ctypes.pointer(cell), ctypes.c_void_p).value)
        params = (ctypes.c_void_p * len(ptrs))(*ptrs)
        u = ctypes.c_uint
        check(cuda.cuLaunchKernel(fn, u(ctas), u(1), u(1), u(128), u(1), u(1), u(0), None, params, None),
              "cuLaunchKernel")
        check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
        result = cp.asnumpy(dev[3][0]).tobytes()
        worst = None if ("probe" in c or c["gen"] == "study") else reference(c, mats, result, ctas)
        if c["gen"] == "study":
            study[c["name"]] = result
        else:
            line = {"name": c["name"], "file": PTX, "entry": c["name"], "grid": [ctas, 1, 1],
                    "block": [128, 1, 1], "smem": 0, "args": args,
                    "buffers": [{"arg": 3, "hex": result.hex()}], "reference_rel": worst}
            out.write(json.dumps(line) + "\n")
            out.flush()
    if study_path and study:
        # The inputs come again from the seeded generator: only the outputs.
        with open(study_path, "wb") as f:
            for d, a, b in STUDY_TYPES:
                f.write(study[f"study_{d}_{a}_{b}"])


def main():
    if sys.argv[1:2] == ["--emit"]:
        text, built = emit_all()
        with open(os.path.join(ROOT, PTX), "w") as f:
            f.write(text)
        print(len(built), "cases", file=sys.stderr)
    elif sys.argv[1:2] == ["--child"]:
        text, built = emit_all()
        names = set(sys.argv[3].split(","))
        with open(sys.argv[2], "w") as out:
            launch(built, names, out, sys.argv[4] if len(sys.argv) > 4 else None)
    elif sys.argv[1:2] == ["--run"]:
        text, built = emit_all()
        with open(os.path.join(ROOT, PTX), "w") as f:
            f.write(text)
        names = [c["name"] for c, *_ in built if c["gen"] != "study"]
        if os.environ.get("ONLY"):
            names = [n for n in names if n.startswith(os.environ["ONLY"])]
        study = [c["name"] for c, *_ in built if c["gen"] == "study"]
        groups = [names[i:i + 400] for i in range(0, len(names), 400)]
        lines = []
        for g, group in enumerate(groups):
            part = f"{sys.argv[2]}.part{g}"
            p = subprocess.run([sys.executable, __file__, "--child", part, ",".join(group)],
                               capture_output=True, text=True, timeout=900)
            if p.returncode != 0:
                print("group", g, "failed:", p.stderr.strip()[-600:], flush=True)
                done = [json.loads(l)["name"] for l in open(part).read().splitlines()] if os.path.exists(part) else []
                lines += open(part).read().splitlines() if os.path.exists(part) else []
                failures = 0
                for name in group:
                    if name in done:
                        continue
                    if failures >= 6:
                        lines.append(json.dumps({"name": name, "error": "not run after 6 failures"}))
                        continue
                    q = subprocess.run([sys.executable, __file__, "--child", part, name],
                                       capture_output=True, text=True, timeout=300)
                    if q.returncode == 0:
                        lines += open(part).read().splitlines()
                    else:
                        err = (q.stderr.strip().splitlines() or ["no output"])[-1][:300]
                        lines.append(json.dumps({"name": name, "error": err}))
                        print("FAIL", name, err, flush=True)
                        failures += 1
            else:
                lines += open(part).read().splitlines()
        with open(sys.argv[2], "w") as f:
            f.write("\n".join(lines) + "\n")
        print(len(lines), "launches", flush=True)
        if len(sys.argv) > 3 and not os.environ.get("ONLY"):
            p = subprocess.run([sys.executable, __file__, "--child", sys.argv[2] + ".study", ",".join(study),
                                sys.argv[3]], capture_output=True, text=True, timeout=900)
            print("study rc", p.returncode, p.stderr.strip()[-600:], flush=True)
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
