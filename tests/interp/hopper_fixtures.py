#!/usr/bin/env python3
"""Hopper kernels nobody here wrote by hand, run on an sm_90a GPU for the
interpreter to match byte for byte.

    python3 tests/interp/hopper_fixtures.py --triton     # writes the attention PTX (Triton, sm_90a)
    python3 tests/interp/hopper_fixtures.py --run OUT.jsonl
    python3 tests/interp/hopper_fixtures.py --run-desc OUT.jsonl   # Triton's device-built tensor maps

`--triton` compiles the forward kernel of a FlashAttention-style fused
attention (the structure of Triton's fused-attention tutorial: a loop over
key/value blocks with an online softmax in base 2, two `tl.dot`s per block)
for sm_90a and writes tests/interp/kernels/triton_flash_attn_fwd_sm90a.ptx.
`--run` launches that PTX through the driver API on seeded f16 inputs, twice,
and writes one line per launch in the format of real_kernels.jsonl.

The CUTLASS GEMMs are tests/interp/kernels/cutlass_gemm.cu, whose host
program prints its own lines (see that file).
"""

import ctypes
import json
import os
import random
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
ATTN = "tests/interp/kernels/triton_flash_attn_fwd_sm90a.ptx"
META = "tests/interp/kernels/triton_flash_attn_fwd_sm90a.json"

# ------------------------------------------------------------------ Triton


def attention_source():
    import triton
    import triton.language as tl

    @triton.jit
    def attn_fwd(Q, K, V, Out, sm_scale, N_CTX,
                 HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
        start_m = tl.program_id(0)
        off_h = tl.program_id(1)
        base = off_h * N_CTX * HEAD_DIM
        offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.arange(0, BLOCK_N)
        offs_d = tl.arange(0, HEAD_DIM)
        q = tl.load(Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
        m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
        l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
        acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
        qk_scale = sm_scale * 1.44269504
        for start_n in range(0, N_CTX, BLOCK_N):
            k = tl.load(K + base + (start_n + offs_n)[None, :] * HEAD_DIM + offs_d[:, None])
            qk = tl.dot(q, k)
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
            p = tl.math.exp2(qk)
            l_ij = tl.sum(p, 1)
            alpha = tl.math.exp2(m_i - m_ij)
            l_i = l_i * alpha + l_ij
            acc = acc * alpha[:, None]
            v = tl.load(V + base + (start_n + offs_n)[:, None] * HEAD_DIM + offs_d[None, :])
            acc = tl.dot(p.to(tl.float16), v, acc)
            m_i = m_ij
        acc = acc / l_i[:, None]
        tl.store(Out + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], acc.to(tl.float16))

    return attn_fwd


CONSTS = {"HEAD_DIM": 64, "BLOCK_M": 128, "BLOCK_N": 64}
NUM_WARPS, NUM_STAGES = 8, 3


def compile_attention():
    import triton
    from triton.backends.compiler import GPUTarget
    fn = attention_source()
    sig = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "Out": "*fp16", "sm_scale": "fp32", "N_CTX": "i32"}
    try:  # Triton >= 3.3: constexprs by name, in the signature too
        src = triton.compiler.ASTSource(fn, signature=dict(sig, **{k: "constexpr" for k in CONSTS}),
                                        constexprs=dict(CONSTS))
    except TypeError:
        src = triton.compiler.ASTSource(fn, signature=sig, constants=dict(CONSTS))
    k = triton.compile(src, target=GPUTarget("cuda", 90, 32),
                       options={"num_warps": NUM_WARPS, "num_stages": NUM_STAGES})
    ptx = k.asm["ptx"]
    meta = {"triton": triton.__version__, "shared": k.metadata.shared, "num_warps": NUM_WARPS,
            "num_stages": NUM_STAGES, "name": k.metadata.name, **CONSTS}
    with open(os.path.join(ROOT, ATTN), "w") as f:
        f.write(ptx)
    with open(os.path.join(ROOT, META), "w") as f:
        json.dump(meta, f)
    print(json.dumps(meta))


# ------------------------------------------------------------------ cases


def hexbuf(data):
    return "buf:hex:" + data.hex()


def params_of(ptx, entry):
    start = ptx.index(".entry " + entry)
    body = ptx[start:ptx.index(")", start)]
    return [line.split()[1] for line in body.splitlines() if line.strip().startswith(".param")]


def cases():
    rng = random.Random(20261127)
    meta = json.load(open(os.path.join(ROOT, META)))
    ptx = open(os.path.join(ROOT, ATTN)).read()
    entry = meta["name"]
    kinds = params_of(ptx, entry)
    runs = []
    for heads, n_ctx, scale in [(2, 256, 0.125), (1, 512, 0.3)]:
        d = meta["HEAD_DIM"]
        q, k, v = (b"".join(struct.pack("<e", rng.uniform(-2, 2)) for _ in range(heads * n_ctx * d))
                   for _ in range(3))
        args = [hexbuf(q), hexbuf(k), hexbuf(v), f"zeros:{heads * n_ctx * d * 2}",
                f"f32:{scale}", f"u32:{n_ctx}"]
        # Triton's trailing scratch pointers (global and profile scratch)
        args += ["u64:0"] * (len(kinds) - len(args))
        runs.append(dict(name=f"triton_flash_attn_h{heads}_n{n_ctx}", file=ATTN, entry=entry,
                         grid=[n_ctx // meta["BLOCK_M"], heads, 1], block=[32 * meta["num_warps"], 1, 1],
                         smem=meta["shared"], cluster=None, args=args))
    return runs


DESC = "tests/corpus/triton/triton_desc_copy_sm90.ptx"


def desc_cases():
    """Triton's copy through tensor maps it builds on the device
    (`tensormap.replace` in shared memory, `tensormap.cp_fenceproxy` into
    the global scratch, a TMA load and store of a 64 x 64 f16 box, each
    element doubled): M x N tensors, one CTA per 64 rows."""
    rng = random.Random(20261128)
    runs = []
    for rows, cols in [(256, 64), (160, 64), (128, 128)]:
        a = b"".join(struct.pack("<e", rng.uniform(-2, 2)) for _ in range(rows * cols))
        ctas = -(-rows // 64)
        runs.append(dict(name=f"triton_desc_copy_{rows}x{cols}", file=DESC, entry="desc_copy",
                         grid=[ctas, 1, 1], block=[128, 1, 1], smem=16384, cluster=None,
                         args=[hexbuf(a), f"zeros:{rows * cols * 2}", f"u32:{rows}", f"u32:{cols}",
                               f"zeros:{ctas * 256}", "u64:0"]))
    return runs


# ------------------------------------------------------------------ launching


def arg_bytes(spec):
    kind, rest = spec.split(":", 1)
    if kind == "zeros":
        return "buf", bytes(int(rest))
    if kind == "buf":
        return "buf", bytes.fromhex(rest.split(":", 1)[1])
    if kind == "f32":
        return "scalar", struct.pack("<f", float(rest))
    width = {"u32": 4, "s32": 4, "u64": 8}[kind]
    return "scalar", (int(rest) % (1 << (8 * width))).to_bytes(width, "little")


def launch(r):
    import numpy
    import cupy as cp
    cp.cuda.runtime.deviceSynchronize()
    cuda = ctypes.CDLL("libcuda.so.1")

    def check(code, what):
        if code != 0:
            name = ctypes.c_char_p()
            cuda.cuGetErrorName(code, ctypes.byref(name))
            raise RuntimeError(f"{what}: {name.value.decode() if name.value else code}")

    image = open(os.path.join(ROOT, r["file"]), "rb").read() + b"\0"
    module = ctypes.c_void_p()
    check(cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(image)), "cuModuleLoadData")
    fn = ctypes.c_void_p()
    check(cuda.cuModuleGetFunction(ctypes.byref(fn), module, r["entry"].encode()), "cuModuleGetFunction")
    if r["smem"]:
        check(cuda.cuFuncSetAttribute(fn, 8, ctypes.c_int(r["smem"])), "cuFuncSetAttribute")
    parsed = [arg_bytes(a) for a in r["args"]]
    dev = [None] * len(parsed)
    keep, pointers = [], []
    for i, (kind, data) in enumerate(parsed):
        if kind == "buf":
            dev[i] = cp.asarray(numpy.frombuffer(data or bytes(1), dtype=numpy.uint8).copy())
            cell = ctypes.c_uint64(dev[i].data.ptr)
        else:
            cell = ctypes.create_string_buffer(data, len(data))
        keep.append(cell)
        pointers.append(ctypes.cast(ctypes.pointer(cell), ctypes.c_void_p).value)
    params = (ctypes.c_void_p * max(1, len(pointers)))(*pointers)
    u = ctypes.c_uint
    check(cuda.cuLaunchKernel(fn, *[u(v) for v in r["grid"]], *[u(v) for v in r["block"]],
                              u(r["smem"]), None, params, None), "cuLaunchKernel")
    check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
    return [(i, bytes(cp.asnumpy(dev[i]).tobytes()[:len(parsed[i][1])]))
            for i in range(len(parsed)) if parsed[i][0] == "buf"]


def run_all(path, runs=None, output=3):
    lines = []
    for r in runs or cases():
        first, second = launch(r), launch(r)
        volatile = []
        for (arg, a), (_, b) in zip(first, second):
            start = None
            for k in range(len(a) + 1):
                differs = k < len(a) and a[k] != b[k]
                if differs and start is None:
                    start = k
                if not differs and start is not None:
                    volatile.append([arg, start, k])
                    start = None
        # Only the output buffer is recorded; the inputs are in `args`.
        out = [{"arg": arg, "hex": a.hex()} for arg, a in first if arg == output]
        lines.append(json.dumps(dict(r, buffers=out, volatile=volatile)))
        print("ok", r["name"], "volatile", volatile[:4], flush=True)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    if sys.argv[1:2] == ["--triton"]:
        compile_attention()
    elif sys.argv[1:2] == ["--run"]:
        run_all(sys.argv[2])
    elif sys.argv[1:2] == ["--run-desc"]:
        run_all(sys.argv[2], desc_cases(), output=1)
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
