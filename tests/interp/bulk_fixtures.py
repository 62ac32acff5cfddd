#!/usr/bin/env python3
"""Bulk copies (cp.async.bulk, cp.reduce.async.bulk) with mbarrier transaction
counts and a wgmma pipeline fed by them (tests/interp/kernels/bulk.ptx), run on
an sm_90a GPU for the interpreter to match byte for byte.

    python3 tests/interp/bulk_fixtures.py --run OUT.jsonl    # with CuPy

OUT has one line per launch in the format of real_kernels.jsonl.
"""

import json
import os
import random
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import wgmma_fixtures as W  # noqa: E402

PTX = "tests/interp/kernels/bulk.ptx"
rng = random.Random(20261128)


def tiles(values):
    """The eight k16 steps of A (64 x 128) and B (128 x 64) as 2048-byte
    K-major tiles without swizzle (leading byte offset 128, stride 256)."""
    A, B = values
    out = bytearray()
    for step in range(8):
        for mat, get in ((A, lambda x, k: A[x][16 * step + k]), (B, lambda x, k: B[16 * step + k][x])):
            t = bytearray(2048)
            for x in range(64):
                for k in range(16):
                    o = W.smem_offset("K", "none", 2, 128, 256, x, k)
                    t[o:o + 2] = get(x, k).to_bytes(2, "little")
            out += t
    return out


def cases():
    out = []
    src = bytes(rng.randrange(256) for _ in range(4096))
    acc = bytes(rng.randrange(256) for _ in range(4096))
    out.append(("bulk_roundtrip", "bulk_roundtrip", ["buf:hex:" + src.hex(), "zeros:4096", "buf:hex:" + acc.hex()]))
    for kind in ("int", "rand"):
        gen = (lambda: W.code_of("f16", float(rng.randint(-3, 3)))) if kind == "int" else (lambda: W.rand_float("f16", 3))
        A = [[gen() for _ in range(128)] for _ in range(64)]
        B = [[gen() for _ in range(64)] for _ in range(128)]
        out.append((f"wgmma_pipeline_{kind}", "wgmma_pipeline", ["buf:hex:" + tiles((A, B)).hex(), "zeros:16384"]))
    out.append(("cluster_of_one", "cluster_of_one", ["zeros:12288"]))
    return out


def run(path):
    import ctypes
    import numpy
    import cupy as cp
    cp.cuda.runtime.deviceSynchronize()
    cuda = ctypes.CDLL("libcuda.so.1")

    def check(code, what):
        if code != 0:
            raise RuntimeError(f"{what}: {code}")

    text = open(os.path.join(ROOT, PTX), "rb").read() + b"\0"
    module = ctypes.c_void_p()
    check(cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(text)), "cuModuleLoadData")
    with open(path, "w") as f:
        for name, entry, args in cases():
            grid = 2 if entry == "cluster_of_one" else 1
            fn = ctypes.c_void_p()
            check(cuda.cuModuleGetFunction(ctypes.byref(fn), module, entry.encode()), "cuModuleGetFunction")
            dev, keep, ptrs = [], [], []
            for a in args:
                kind, rest = a.split(":", 1)
                data = bytes(int(rest)) if kind == "zeros" else bytes.fromhex(rest.split(":", 1)[1])
                d = cp.asarray(numpy.frombuffer(data, dtype=numpy.uint8).copy())
                dev.append(d)
                cell = ctypes.c_uint64(d.data.ptr)
                keep.append(cell)
                ptrs.append(ctypes.cast(ctypes.pointer(cell), ctypes.c_void_p).value)
            params = (ctypes.c_void_p * len(ptrs))(*ptrs)
            u = ctypes.c_uint
            check(cuda.cuLaunchKernel(fn, u(grid), u(1), u(1), u(128), u(1), u(1), u(0), None, params, None),
                  "cuLaunchKernel")
            check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
            bufs = [{"arg": i, "hex": cp.asnumpy(d).tobytes().hex()} for i, d in enumerate(dev)]
            f.write(json.dumps({"name": name, "file": PTX, "entry": entry, "grid": [grid, 1, 1],
                                "block": [128, 1, 1], "smem": 0, "args": args, "buffers": bufs}) + "\n")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--run"]:
        run(sys.argv[2])
    else:
        print(__doc__)
        sys.exit(2)
