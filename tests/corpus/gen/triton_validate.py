"""Triton kernels the committed corpus does not contain (layer-norm backward,
dropout, grouped GEMM with persistent loop, softmax in fp16, bf16 matmul with
tf32 inputs, fused GELU, swizzled matmul, argmax, histogram), compiled ahead
of time for sm_80, sm_89, sm_90 and sm_100, with several warp counts.

usage: python3 triton_validate.py OUTDIR
"""
import os
import sys

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)


@triton.jit
def ln_bwd(dy_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr, dx_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.0)
    wdy = tl.where(mask, w * dy, 0.0)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(dx_ptr + row * N + cols, dx.to(tl.float16), mask=mask)


@triton.jit
def dropout(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    r = tl.rand(seed, offs)
    keep = r > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@triton.jit
def gelu_bias(x_ptr, b_ptr, y_ptr, n, N: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32) + tl.load(b_ptr + offs % N, mask=mask).to(tl.float32)
    y = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    y = y + tl.sigmoid(x) * tl.math.tanh(x) + tl.sqrt(tl.abs(x)) + tl.math.rsqrt(x * x + 1.0)
    tl.store(y_ptr + offs, y.to(tl.bfloat16), mask=mask)


@triton.jit
def matmul_swizzle(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    group = pid // (GROUP * num_n)
    first_m = group * GROUP
    size_m = min(num_m - first_m, GROUP)
    pid_m = first_m + (pid % size_m)
    pid_n = (pid % (GROUP * num_n)) // size_m
    rm = (pid_m * BM + tl.arange(0, BM)) % M
    rn = (pid_n * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        av = tl.load(a, mask=rk[None, :] < K - k * BK, other=0.0)
        bv = tl.load(b, mask=rk[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(av, bv, acc)
        a += BK * sak
        b += BK * sbk
    c = c_ptr + rm[:, None] * scm + rn[None, :] * scn
    tl.store(c, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def persistent_gemm(a_ptr, b_ptr, c_ptr, M, N, K, NUM_SMS: tl.constexpr,
                    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    start = tl.program_id(0)
    tiles_n = tl.cdiv(N, BN)
    tiles = tl.cdiv(M, BM) * tiles_n
    for tile in range(start, tiles, NUM_SMS):
        pm = tile // tiles_n
        pn = tile % tiles_n
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            av = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
            bv = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
            acc += tl.dot(av, bv)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


@triton.jit
def argmax_hist(x_ptr, idx_ptr, hist_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + tl.program_id(0) * N + offs)
    tl.store(idx_ptr + tl.program_id(0), tl.argmax(x, 0))
    h = tl.histogram((x * 16).to(tl.int32) & 15, 16)
    tl.atomic_add(hist_ptr + tl.arange(0, 16), h)


@triton.jit
def softmax_fp16(x_ptr, y_ptr, stride, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + offs, mask=offs < n, other=-float("inf"))
    x = x - tl.max(x, 0)
    e = tl.exp(x.to(tl.float32))
    tl.store(y_ptr + row * stride + offs, (e / tl.sum(e, 0)).to(tl.float16), mask=offs < n)


MM_SIG = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
          "sam": "i32", "sak": "i32", "sbk": "i32", "sbn": "i32", "scm": "i32", "scn": "i32",
          "BM": "constexpr", "BN": "constexpr", "BK": "constexpr", "GROUP": "constexpr"}
KERNELS = [
    ("ln_bwd", ln_bwd, {"dy_ptr": "*fp16", "x_ptr": "*fp16", "w_ptr": "*fp16", "mean_ptr": "*fp32",
                        "rstd_ptr": "*fp32", "dx_ptr": "*fp16", "N": "i32", "BLOCK": "constexpr"},
     {"BLOCK": 1024}, [{"num_warps": 8}]),
    ("dropout", dropout, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "p": "fp32", "seed": "i32",
                          "BLOCK": "constexpr"}, {"BLOCK": 1024}, [{}]),
    ("gelu_bias", gelu_bias, {"x_ptr": "*fp16", "b_ptr": "*fp16", "y_ptr": "*bf16", "n": "i32",
                              "N": "constexpr", "BLOCK": "constexpr"}, {"N": 768, "BLOCK": 512}, [{}]),
    ("mm_swizzle", matmul_swizzle, MM_SIG, {"BM": 128, "BN": 128, "BK": 32, "GROUP": 8},
     [{"num_warps": 4, "num_stages": 3}, {"num_warps": 8, "num_stages": 4}]),
    ("mm_swizzle_bf16", matmul_swizzle, {**MM_SIG, "a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32"},
     {"BM": 64, "BN": 128, "BK": 64, "GROUP": 4}, [{"num_warps": 4, "num_stages": 2}]),
    ("mm_swizzle_tf32", matmul_swizzle, {**MM_SIG, "a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32"},
     {"BM": 64, "BN": 64, "BK": 32, "GROUP": 4}, [{"num_warps": 4}]),
    ("persistent", persistent_gemm, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32",
                                     "K": "i32", "NUM_SMS": "constexpr", "BM": "constexpr", "BN": "constexpr",
                                     "BK": "constexpr"}, {"NUM_SMS": 132, "BM": 128, "BN": 128, "BK": 64},
     [{"num_warps": 8, "num_stages": 3}]),
    ("argmax_hist", argmax_hist, {"x_ptr": "*fp32", "idx_ptr": "*i32", "hist_ptr": "*i32", "N": "constexpr"},
     {"N": 512}, [{}]),
    ("softmax_fp16", softmax_fp16, {"x_ptr": "*fp16", "y_ptr": "*fp16", "stride": "i32", "n": "i32",
                                    "BLOCK": "constexpr"}, {"BLOCK": 2048}, [{"num_warps": 16}]),
]

if __name__ == "__main__":
    for name, fn, sig, consts, option_sets in KERNELS:
        for arch in (80, 89, 90, 100):
            for n, opts in enumerate(option_sets):
                try:
                    src = ASTSource(fn=fn, signature=sig, constexprs=consts)
                    k = triton.compile(src, target=GPUTarget("cuda", arch, 32), options=opts)
                    path = os.path.join(OUT, f"triton_{name}_{n}_sm{arch}.ptx")
                    with open(path, "w") as f:
                        f.write(k.asm["ptx"])
                    print("wrote", path, len(k.asm["ptx"]))
                except Exception as e:
                    msg = str(e).splitlines()[0][:200] if str(e) else ""
                    print("FAIL", name, arch, n, type(e).__name__, msg)
