"""Compile a few typical Triton kernels and write their PTX.

usage: python3 triton_kernels.py OUTDIR
Runs each kernel on the local GPU (its native target) and also compiles it
ahead of time for sm_80 and sm_100 where the installed Triton can.
"""
import os
import sys
import traceback

import torch
import triton
import triton.language as tl

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * stride + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)


@triton.jit
def layernorm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, stride, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / n
    y = xc * tl.rsqrt(var + eps) * tl.load(w_ptr + cols, mask=mask) + tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * stride + cols, y.to(tl.float16), mask=mask)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc += tl.dot(tl.load(a), tl.load(b))
        a += BK * sak
        b += BK * sbk
    c = c_ptr + rm[:, None] * scm + rn[None, :] * scn
    tl.store(c, acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def atomic_hist_kernel(x_ptr, hist_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.atomic_add(hist_ptr + (v & 255), 1, mask=offs < n)


def save(name, compiled):
    path = os.path.join(OUT, name + ".ptx")
    with open(path, "w") as f:
        f.write(compiled.asm["ptx"])
    print("wrote", path)


def run_native():
    dev = "cuda"
    x = torch.randn(4096, device=dev)
    y = torch.randn(4096, device=dev)
    save("triton_add_native", add_kernel[(4,)](x, y, x, 4096, BLOCK=1024))
    m = torch.randn(64, 1000, device=dev)
    save("triton_softmax_native", softmax_kernel[(64,)](m, m, m.stride(0), 1000, BLOCK=1024))
    h = torch.randn(64, 768, device=dev, dtype=torch.float16)
    w = torch.randn(768, device=dev)
    save("triton_layernorm_native", layernorm_kernel[(64,)](h, h, w, w, h.stride(0), 768, 1e-5, BLOCK=1024))
    a = torch.randn(512, 512, device=dev, dtype=torch.float16)
    c = torch.empty(512, 512, device=dev, dtype=torch.float16)
    save("triton_matmul_native", matmul_kernel[(4, 4)](a, a, c, 512, 512, 512, a.stride(0), a.stride(1), a.stride(0),
                                                       a.stride(1), c.stride(0), c.stride(1), BM=128, BN=128, BK=64,
                                                       num_warps=8, num_stages=3))
    iv = torch.randint(0, 1 << 20, (8192,), device=dev, dtype=torch.int32)
    hist = torch.zeros(257, device=dev, dtype=torch.int32)
    save("triton_hist_native", atomic_hist_kernel[(8,)](iv, hist, 8192, BLOCK=1024))


def cross(arch):
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    target = GPUTarget("cuda", arch, 32)
    sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
           "sam": "i32", "sak": "i32", "sbk": "i32", "sbn": "i32", "scm": "i32", "scn": "i32",
           "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"}
    src = ASTSource(fn=matmul_kernel, signature=sig, constexprs={"BM": 128, "BN": 128, "BK": 64})
    save(f"triton_matmul_sm{arch}", triton.compile(src, target=target, options={"num_warps": 4, "num_stages": 3}))
    sig = {"out_ptr": "*fp32", "in_ptr": "*fp32", "stride": "i32", "n_cols": "i32", "BLOCK": "constexpr"}
    src = ASTSource(fn=softmax_kernel, signature=sig, constexprs={"BLOCK": 1024})
    save(f"triton_softmax_sm{arch}", triton.compile(src, target=target))


if __name__ == "__main__":
    print("triton", triton.__version__)
    try:
        run_native()
    except Exception:
        traceback.print_exc()
    for arch in (80, 100):
        try:
            cross(arch)
        except Exception:
            traceback.print_exc()
