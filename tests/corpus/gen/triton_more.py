"""More Triton kernels (attention, fp8/int8 matmul, scans, sorts, random,
tensor descriptors), compiled ahead of time for several targets.

usage: python3 triton_more.py OUTDIR
"""
import os
import sys
import traceback

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)


@triton.jit
def attn_fwd(Q, K, V, O, stride, N, sm_scale, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr):
    start_m = tl.program_id(0)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, D)
    q = tl.load(Q + offs_m[:, None] * stride + offs_d[None, :])
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, D], dtype=tl.float32)
    for start_n in range(0, N, BLOCK_N):
        k = tl.load(K + (start_n + offs_n)[None, :] * stride + offs_d[:, None])
        qk = tl.dot(q, k) * sm_scale
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + (start_n + offs_n)[:, None] * stride + offs_d[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_ij
    tl.store(O + offs_m[:, None] * stride + offs_d[None, :], (acc / l_i[:, None]).to(tl.float16))


@triton.jit
def matmul_fp8(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc.to(tl.bfloat16))


@triton.jit
def scan_sort_rand(x_ptr, y_ptr, z_ptr, seed, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    c = tl.cumsum(x, 0)
    s = tl.sort(x)
    r = tl.rand(seed, offs)
    tl.store(y_ptr + offs, c + s)
    tl.store(z_ptr + offs, r)


@triton.jit
def reduce_atomic(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, 0))
    tl.atomic_max(out_ptr + 1, tl.max(x, 0))
    tl.atomic_cas(out_ptr + 2, 0.0, 1.0)


@triton.jit
def int_ops(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    y = (x >> 3) ^ (x << 5) | (x % 7) + x // 3
    y = tl.where(x > 0, y, -y)
    y = tl.minimum(y, 1000) + tl.umulhi(x.to(tl.uint32), 77).to(tl.int32)
    tl.store(y_ptr + offs, y.to(tl.int16), mask=offs < n)


@triton.jit
def desc_copy(in_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    din = tl.make_tensor_descriptor(in_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dout = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    x = din.load([tl.program_id(0) * BM, 0])
    dout.store([tl.program_id(0) * BM, 0], x * 2)


KERNELS = [
    ("attn", attn_fwd, {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "O": "*fp16", "stride": "i32", "N": "i32",
                         "sm_scale": "fp32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "D": "constexpr"},
     {"BLOCK_M": 128, "BLOCK_N": 64, "D": 64}, {"num_warps": 4}),
    ("matmul_fp8", matmul_fp8, {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", "c_ptr": "*bf16", "K": "i32",
                                 "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"},
     {"BM": 128, "BN": 128, "BK": 64}, {"num_warps": 8}),
    ("matmul_int8", matmul_fp8, {"a_ptr": "*i8", "b_ptr": "*i8", "c_ptr": "*bf16", "K": "i32",
                                  "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"},
     {"BM": 64, "BN": 64, "BK": 64}, {"num_warps": 4}),
    ("scan_sort_rand", scan_sort_rand, {"x_ptr": "*fp32", "y_ptr": "*fp32", "z_ptr": "*fp32", "seed": "i32",
                                         "N": "constexpr"}, {"N": 1024}, {}),
    ("reduce_atomic", reduce_atomic, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
     {"BLOCK": 1024}, {}),
    ("int_ops", int_ops, {"x_ptr": "*i32", "y_ptr": "*i16", "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 512}, {}),
    ("desc_copy", desc_copy, {"in_ptr": "*fp16", "out_ptr": "*fp16", "M": "i32", "N": "i32",
                               "BM": "constexpr", "BN": "constexpr"}, {"BM": 64, "BN": 64}, {}),
]

if __name__ == "__main__":
    try:
        import torch
        triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    except Exception:
        pass
    for name, fn, sig, consts, opts in KERNELS:
        for arch in (80, 90, 100):
            if name == "matmul_fp8" and arch == 80:
                continue
            try:
                src = ASTSource(fn=fn, signature=sig, constexprs=consts)
                k = triton.compile(src, target=GPUTarget("cuda", arch, 32), options=opts)
                path = os.path.join(OUT, f"triton_{name}_sm{arch}.ptx")
                with open(path, "w") as f:
                    f.write(k.asm["ptx"])
                print("wrote", path, len(k.asm["ptx"]))
            except Exception as e:
                print("FAIL", name, arch, type(e).__name__, str(e).splitlines()[0][:200] if str(e) else "")
