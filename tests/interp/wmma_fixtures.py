#!/usr/bin/env python3
"""wmma on the GPU: fragment layouts and results of every shape and type, for
the interpreter to match byte for byte.

Writes tests/interp/kernels/wmma.ptx (one entry per case) and, with --run on a
machine with a GPU and CuPy, server/interp/fixtures/wmma_kernels.jsonl in the
format of real_kernels.jsonl (one line per launch: arguments and the bytes of
every buffer after it).

    python3 tests/interp/wmma_fixtures.py --emit           # the PTX module only
    python3 tests/interp/wmma_fixtures.py --run OUTFILE    # launch every case
    python3 tests/interp/wmma_fixtures.py --layouts JSONL  # print the measured layouts

Three kinds of case:
  load_*   loads planes of a matrix whose elements hold (bits of) their own
           index row * cols + col and writes every lane's fragment registers;
  store_*  fills every lane's registers with (lane, register, element) codes
           and stores the fragment into a buffer prefilled with 0xee;
  mma_*    loads A, B, C (two planes: small integers, whose sums are exact,
           then seeded random values), multiplies and stores D.
Sub-byte elements lie in memory lowest bits first (`.s4`: element 2i in the
low nibble of byte i; `.b1`: element 8i + j in bit j of byte i).
"""

import json
import os
import random
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PTX = "tests/interp/kernels/wmma.ptx"
SEED = 20261125
rng = random.Random(SEED)

BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "s32": 32, "f64": 64, "s8": 8, "u8": 8,
        "s4": 4, "u4": 4, "b1": 1}

# (shape, M, N, K): multiplicand types with their A and B register counts.
SHAPES = {
    "m16n16k16": (16, 16, 16, {"f16": (8, 8), "bf16": (4, 4), "s8": (2, 2), "u8": (2, 2)},
                  ["f16", "f32", "s32"]),
    "m32n8k16": (32, 8, 16, {"f16": (8, 8), "bf16": (8, 2), "s8": (4, 1), "u8": (4, 1)},
                 ["f16", "f32", "s32"]),
    "m8n32k16": (8, 32, 16, {"f16": (8, 8), "bf16": (2, 8), "s8": (1, 4), "u8": (1, 4)},
                 ["f16", "f32", "s32"]),
    "m16n16k8": (16, 16, 8, {"tf32": (4, 4)}, ["f32"]),
    "m8n8k32": (8, 8, 32, {"s4": (1, 1), "u4": (1, 1)}, ["s32"]),
    "m8n8k128": (8, 8, 128, {"b1": (1, 1)}, ["s32"]),
    "m8n8k4": (8, 8, 4, {"f64": (1, 1)}, ["f64"]),
}
# Sub-byte multiplicands: A row-major and B column-major only.
FIXED_LAYOUT = {"s4": ("row", "col"), "u4": ("row", "col"), "b1": ("row", "col")}


def acc_regs(shape, ty):
    m, n = SHAPES[shape][0], SHAPES[shape][1]
    if ty == "f16":
        return m * n // 64
    if ty == "f64":
        return m * n // 32
    return m * n // 32


def dims(shape, frag):
    """(rows, cols) of fragment `frag` (a, b, c)."""
    m, n, k = SHAPES[shape][:3]
    return {"a": (m, k), "b": (k, n), "c": (m, n)}[frag]


def default_stride(shape, frag, layout):
    rows, cols = dims(shape, frag)
    return cols if layout == "row" else rows


def reg_kind(ty, frag):
    """PTX register class of a fragment register."""
    if ty == "f64":
        return "fd"
    if frag == "c" and ty == "f32":
        return "f"
    return "r"


def regs(kind, start, count):
    return ", ".join(f"%{kind}{start + i}" for i in range(count))


def reg_bytes(kind):
    return 8 if kind == "fd" else 4


def st_type(kind):
    return {"fd": "f64", "f": "f32", "r": "b32"}[kind]


# ------------------------------------------------------------------ memory images

def pack(values, bits):
    """Little-endian image of `values` (element bits), sub-byte lowest bits first."""
    if bits >= 8:
        return b"".join(v.to_bytes(bits // 8, "little") for v in values)
    out = bytearray((len(values) * bits + 7) // 8)
    for i, v in enumerate(values):
        o = i * bits
        out[o // 8] |= (v & ((1 << bits) - 1)) << (o % 8)
    return bytes(out)


def image(shape, frag, layout, stride, element, bits, pad):
    """Memory of a matrix: element(r, c) at its row/column-major place, `pad` elsewhere."""
    rows, cols = dims(shape, frag)
    lead = rows if layout == "row" else cols
    cells = [pad] * (lead * stride)
    for r in range(rows):
        for c in range(cols):
            o = r * stride + c if layout == "row" else c * stride + r
            cells[o] = element(r, c)
    return pack(cells, bits)


def hexbuf(data):
    return "buf:hex:" + bytes(data).hex()


# ------------------------------------------------------------------ the cases

CASES = []
HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n\n"
DECLS = """.reg .b32 %r<80>;
.reg .f32 %f<40>;
.reg .f64 %fd<8>;
.reg .b64 %rd<16>;
.reg .pred %p<4>;
"""


def kernel(name, nparams, body):
    params = ",\n".join(f"  .param .u64 {name}_p{i}" for i in range(nparams))
    loads = "".join(f"ld.param.u64 %rd{i}, [{name}_p{i}];\ncvta.to.global.u64 %rd{i}, %rd{i};\n"
                    for i in range(nparams))
    return (f".visible .entry {name}(\n{params}\n)\n{{\n{DECLS}{loads}"
            f"mov.u32 %r79, %laneid;\n{body}ret;\n}}\n")


def planes_for(bits, count):
    """Planes needed to spell indexes below `count` with `bits`-bit elements."""
    per = min(bits, 16)
    need = max(1, (count - 1).bit_length())
    return (need + per - 1) // per, per


def load_case(shape, ty, frag, layout, nregs):
    rows, cols = dims(shape, frag)
    bits = BITS[ty]
    kind = reg_kind(ty, frag)
    stride = 2 * default_stride(shape, frag, layout)
    nplanes, per = planes_for(bits, rows * cols)
    planes = []
    for p in range(nplanes):
        def element(r, c, p=p):
            field = ((r * cols + c) >> (per * p)) & ((1 << per) - 1)
            if bits == 32:
                return field << 16 | field
            if bits == 64:
                return field << 32 | field
            return field
        planes.append(image(shape, frag, layout, stride, element, bits, (1 << bits) - 1))
    plane_bytes = len(planes[0])
    name = f"load_{frag}_{layout}_{shape}_{ty}"
    dump = nregs * reg_bytes(kind)
    body = f"mul.wide.u32 %rd10, %r79, {dump};\nadd.u64 %rd10, %rd1, %rd10;\n"
    for p in range(nplanes):
        body += f"add.u64 %rd11, %rd0, {p * plane_bytes};\n"
        body += f"mov.u32 %r78, {stride};\n"
        body += (f"wmma.load.{frag}.sync.aligned.{layout}.{shape}.global.{ty} "
                 f"{{{regs(kind, 0, nregs)}}}, [%rd11], %r78;\n")
        for j in range(nregs):
            body += f"st.global.{st_type(kind)} [%rd10+{(p * 32 * nregs + j) * reg_bytes(kind)}], %{kind}{j};\n"
    CASES.append({"name": name, "code": kernel(name, 2, body),
                  "args": [hexbuf(b"".join(planes)), f"zeros:{nplanes * 32 * dump}"]})


def store_case(shape, ty, layout):
    rows, cols = dims(shape, "c")
    bits = BITS[ty]
    kind = reg_kind(ty, "c")
    nregs = acc_regs(shape, ty)
    stride = 2 * default_stride(shape, "c", layout)
    lead = rows if layout == "row" else cols
    name = f"store_{layout}_{shape}_{ty}"
    body = ""
    for j in range(nregs):
        if ty == "f16":
            # halves: lane * 16 + 2j + e
            body += f"mad.lo.u32 %r70, %r79, 16, {2 * j};\nmad.lo.u32 %r{j}, %r70, 0x10001, 0x10000;\n"
        elif ty == "f64":
            body += (f"mad.lo.u32 %r70, %r79, 256, {j};\ncvt.u64.u32 %rd12, %r70;\n"
                     f"shl.b64 %rd13, %rd12, 32;\nor.b64 %rd12, %rd12, %rd13;\nmov.b64 %fd{j}, %rd12;\n")
        else:
            body += f"mad.lo.u32 %r70, %r79, 256, {j};\nmov.b32 %{kind}{j}, %r70;\n"
    body += f"mov.u32 %r78, {stride};\n"
    body += (f"wmma.store.d.sync.aligned.{layout}.{shape}.global.{ty} [%rd0], "
             f"{{{regs(kind, 0, nregs)}}}, %r78;\n")
    CASES.append({"name": name, "code": kernel(name, 1, body),
                  "args": [hexbuf(b"\xee" * (lead * stride * bits // 8))]})


def rand_elem(ty, plane):
    """Bits of one random multiplicand element."""
    if ty in ("s8", "u8"):
        return rng.getrandbits(8)
    if ty in ("s4", "u4"):
        return rng.getrandbits(4)
    if ty == "b1":
        return rng.getrandbits(1)
    if plane == 0:
        v = float(rng.randint(-3, 3))
    else:
        v = rng.uniform(-2, 2) * 2.0 ** rng.randint(-3, 3)
    if ty == "f16":
        return struct.unpack("<H", struct.pack("<e", v))[0]
    if ty == "bf16":
        return struct.unpack("<I", struct.pack("<f", v))[0] >> 16
    if ty == "tf32":
        return struct.unpack("<I", struct.pack("<f", v))[0]
    return struct.unpack("<Q", struct.pack("<d", v))[0]


def rand_acc(ty, plane):
    if ty == "s32":
        if plane == 0:
            return rng.randrange(-1000, 1000) & 0xffffffff
        # near the ends of the range, for wrapping and .satfinite
        return rng.choice([rng.randrange(-2**31, -2**31 + 5000), rng.randrange(2**31 - 5000, 2**31),
                           rng.randrange(-2**31, 2**31)]) & 0xffffffff
    if plane == 0:
        v = float(rng.randint(-8, 8))
    else:
        v = rng.uniform(-4, 4)
    if ty == "f16":
        return struct.unpack("<H", struct.pack("<e", v))[0]
    if ty == "f32":
        return struct.unpack("<I", struct.pack("<f", v))[0]
    return struct.unpack("<Q", struct.pack("<d", v))[0]


def mma_case(shape, ab, dty, cty, alayout, blayout, extra=""):
    """`extra`: a qualifier after the types (satfinite, a rounding) or, for b1, the op."""
    m, n, k, types, _ = SHAPES[shape]
    na, nb = types[ab]
    nc, nd = acc_regs(shape, cty), acc_regs(shape, dty)
    akind, bkind = reg_kind(ab, "a"), reg_kind(ab, "b")
    ckind, dkind = reg_kind(cty, "c"), reg_kind(dty, "c")
    bufs = []
    for frag, layout, ty, rand in [("a", alayout, ab, rand_elem), ("b", blayout, ab, rand_elem),
                                   ("c", "row", cty, rand_acc)]:
        data = b""
        for plane in range(2):
            stride = default_stride(shape, frag, layout)
            data += image(shape, frag, layout, stride, lambda r, c: rand(ty, plane), BITS[ty], 0)
        bufs.append(data)
    plane_bytes = [len(b) // 2 for b in bufs]
    d_bytes = m * n * BITS[dty] // 8
    tag = "_".join(x for x in [extra] if x)
    name = f"mma_{alayout}_{blayout}_{shape}_{dty}_{ab}_{cty}" + (f"_{tag}" if tag else "")
    # Register numbering: A from 0, B from 16, C and D from 32 (%r) / 0, 10 (%f) / 0.. (%fd)
    a0, b0 = (0, 16) if akind == "r" else (0, 1)
    c0 = 32 if ckind == "r" else (0 if ckind == "f" else 2)
    d0 = 48 if dkind == "r" else (20 if dkind == "f" else 4)
    explicit = shape not in ("m16n16k16", "m32n8k16", "m8n32k16") or ab != "f16"
    type_quals = f"{dty}.{ab}.{ab}.{cty}" if explicit else f"{dty}.{cty}"
    if ab == "b1":
        head = f"wmma.mma.{extra}.popc.sync.aligned"
        tail = ""
    else:
        head = "wmma.mma.sync.aligned"
        tail = f".{extra}" if extra else ""
    body = ""
    for plane in range(2):
        for i, (frag, layout, ty, kind, first, count) in enumerate(
                [("a", alayout, ab, akind, a0, na), ("b", blayout, ab, bkind, b0, nb),
                 ("c", "row", cty, ckind, c0, nc)]):
            body += f"add.u64 %rd11, %rd{i}, {plane * plane_bytes[i]};\n"
            body += (f"wmma.load.{frag}.sync.aligned.{layout}.{shape}.{ty} "
                     f"{{{regs(kind, first, count)}}}, [%rd11];\n")
        body += (f"{head}.{alayout}.{blayout}.{shape}.{type_quals}{tail} {{{regs(dkind, d0, nd)}}}, "
                 f"{{{regs(akind, a0, na)}}}, {{{regs(bkind, b0, nb)}}}, {{{regs(ckind, c0, nc)}}};\n")
        body += f"add.u64 %rd11, %rd3, {plane * d_bytes};\n"
        body += (f"wmma.store.d.sync.aligned.row.{shape}.{dty} [%rd11], {{{regs(dkind, d0, nd)}}}, "
                 f"{n};\n")
    CASES.append({"name": name, "code": kernel(name, 4, body),
                  "args": [hexbuf(b) for b in bufs] + [f"zeros:{2 * d_bytes}"]})


def generate():
    for shape, (m, n, k, types, accs) in SHAPES.items():
        for ty, (na, nb) in types.items():
            for frag, count in [("a", na), ("b", nb)]:
                for layout in ["row", "col"]:
                    fixed = FIXED_LAYOUT.get(ty)
                    if fixed and layout != fixed[0 if frag == "a" else 1]:
                        continue
                    load_case(shape, ty, frag, layout, count)
        for acc in accs:
            for layout in ["row", "col"]:
                load_case(shape, acc, "c", layout, acc_regs(shape, acc))
                store_case(shape, acc, layout)
    for shape in ["m16n16k16", "m32n8k16", "m8n32k16"]:
        for al in ["row", "col"]:
            for bl in ["row", "col"]:
                for d in ["f16", "f32"]:
                    for c in ["f16", "f32"]:
                        mma_case(shape, "f16", d, c, al, bl)
                mma_case(shape, "bf16", "f32", "f32", al, bl)
                for t in ["s8", "u8"]:
                    mma_case(shape, t, "s32", "s32", al, bl)
                    mma_case(shape, t, "s32", "s32", al, bl, "satfinite")
    for al in ["row", "col"]:
        for bl in ["row", "col"]:
            mma_case("m16n16k8", "tf32", "f32", "f32", al, bl)
            for rnd in ["rn", "rz", "rm", "rp"]:
                mma_case("m8n8k4", "f64", "f64", "f64", al, bl, rnd)
    for t in ["s4", "u4"]:
        mma_case("m8n8k32", t, "s32", "s32", "row", "col")
        mma_case("m8n8k32", t, "s32", "s32", "row", "col", "satfinite")
    for op in ["xor", "and"]:
        mma_case("m8n8k128", "b1", "s32", "s32", "row", "col", op)


generate()


def emit():
    text = "// Generated by tests/interp/wmma_fixtures.py: wmma layout and result probes.\n"
    text += HEADER + "\n".join(c["code"] for c in CASES)
    with open(os.path.join(ROOT, PTX), "w") as f:
        f.write(text)


# ------------------------------------------------------------------ launching

def launch_all(names, out):
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

    image_ = open(os.path.join(ROOT, PTX), "rb").read() + b"\0"
    module = ctypes.c_void_p()
    check(cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(image_)), "cuModuleLoadData")
    by_name = {c["name"]: c for c in CASES}
    for name in names:
        c = by_name[name]
        fn = ctypes.c_void_p()
        check(cuda.cuModuleGetFunction(ctypes.byref(fn), module, name.encode()), "cuModuleGetFunction")
        results = []
        for _ in range(2):
            dev, keep, ptrs = [], [], []
            for a in c["args"]:
                kind, rest = a.split(":", 1)
                data = bytes(int(rest)) if kind == "zeros" else bytes.fromhex(rest.split(":", 1)[1])
                d = cp.asarray(numpy.frombuffer(data, dtype=numpy.uint8).copy())
                dev.append((d, len(data)))
                cell = ctypes.c_uint64(d.data.ptr)
                keep.append(cell)
                ptrs.append(ctypes.cast(ctypes.pointer(cell), ctypes.c_void_p).value)
            params = (ctypes.c_void_p * len(ptrs))(*ptrs)
            u = ctypes.c_uint
            check(cuda.cuLaunchKernel(fn, u(1), u(1), u(1), u(32), u(1), u(1), u(0), None, params, None),
                  "cuLaunchKernel")
            check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
            results.append([cp.asnumpy(d).tobytes()[:n] for d, n in dev])
        volatile = []
        for arg, (a, b) in enumerate(zip(*results)):
            for i in range(len(a)):
                if a[i] != b[i]:
                    volatile.append([arg, i, i + 1])
        line = {"name": name, "file": PTX, "entry": name, "grid": [1, 1, 1], "block": [32, 1, 1],
                "smem": 0, "args": c["args"],
                "buffers": [{"arg": i, "hex": b.hex()} for i, b in enumerate(results[0])
                            if not c["args"][i].startswith("u")],
                "volatile": volatile}
        out.write(json.dumps(line) + "\n")
        out.flush()


def main():
    if sys.argv[1:2] == ["--emit"]:
        emit()
        print(len(CASES), "cases", file=sys.stderr)
    elif sys.argv[1:2] == ["--child"]:
        with open(sys.argv[2], "w") as out:
            launch_all(sys.argv[3].split(","), out)
    elif sys.argv[1:2] == ["--run"]:
        emit()
        # Groups of cases per process: a faulting launch ends its CUDA context,
        # and the group is then retried one case per process.
        names = [c["name"] for c in CASES]
        groups = [names[i:i + 40] for i in range(0, len(names), 40)]
        lines = []
        for g, group in enumerate(groups):
            part = f"{sys.argv[2]}.part{g}"
            p = subprocess.run([sys.executable, __file__, "--child", part, ",".join(group)],
                               capture_output=True, text=True, timeout=300)
            if p.returncode != 0:
                print("group", g, "failed:", p.stderr.strip()[-300:], flush=True)
                for name in group:
                    q = subprocess.run([sys.executable, __file__, "--child", part, name],
                                       capture_output=True, text=True, timeout=120)
                    if q.returncode == 0:
                        lines += open(part).read().splitlines()
                    else:
                        err = (q.stderr.strip().splitlines() or ["no output"])[-1][:300]
                        lines.append(json.dumps({"name": name, "error": err}))
                        print("FAIL", name, err, flush=True)
            else:
                lines += open(part).read().splitlines()
            os.remove(part)
        with open(sys.argv[2], "w") as f:
            f.write("\n".join(lines) + "\n")
        print(len(lines), "launches", flush=True)
    else:
        print(__doc__)
        sys.exit(2)



# ------------------------------------------------------------------ measured layouts

def measured(line):
    """{(lane, register, element): (row, col)} of a load case's register dump."""
    _, frag, layout, shape, ty = line["name"].split("_")
    rows, cols = dims(shape, frag)
    bits = BITS[ty]
    kind = reg_kind(ty, frag)
    rb = reg_bytes(kind)
    data = bytes.fromhex(line["buffers"][1]["hex"])
    nplanes, per = planes_for(bits, rows * cols)
    nregs = len(data) // (nplanes * 32 * rb)
    width = bits if bits == 64 else min(bits, 32)
    count = max(1, 32 // bits)
    out = {}
    for lane in range(32):
        for j in range(nregs):
            for e in range(count):
                idx = 0
                for p in range(nplanes):
                    o = (p * 32 * nregs + lane * nregs + j) * rb
                    v = int.from_bytes(data[o:o + rb], "little")
                    field = (v >> (width * e)) & ((1 << width) - 1)
                    if bits == 32:
                        field >>= 16
                    elif bits == 64:
                        field >>= 32
                    idx |= field << (per * p)
                out[(lane, j, e)] = (idx // cols, idx % cols) if idx < rows * cols else None
    return out, nregs, count


def bases(table, nregs, count):
    """The (row, col) offset each bit of (element, register, lane) adds, if the
    layout is linear (coordinates are the XOR of the bases of the set bits)."""
    eb, rbits = (count - 1).bit_length(), (nregs - 1).bit_length()
    out = []
    for b in range(eb + rbits + 5):
        flat = 1 << b
        e, j, lane = flat & (count - 1), (flat >> eb) & (nregs - 1), flat >> (eb + rbits)
        out.append(table[(lane, j, e)])
    for (lane, j, e), rc in table.items():
        flat = (lane << (eb + rbits)) | (j << eb) | e
        r = c = 0
        for b, (br, bc) in enumerate(out):
            if flat >> b & 1:
                r ^= br
                c ^= bc
        if (r, c) != rc:
            return None
    return out


def layouts(path):
    for l in open(path):
        line = json.loads(l)
        if not line["name"].startswith("load_"):
            continue
        table, nregs, count = measured(line)
        b = bases(table, nregs, count)
        print(line["name"], nregs, count, "linear" if b else "NOT LINEAR", b)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--layouts"]:
        layouts(sys.argv[2])
    else:
        main()
