#!/usr/bin/env python3
"""Second dense measurement for the special-function unit:

    mufu_probe.py OUT

1. tanh.approx.f32 on every non-negative f32 below 16: the smallest number of
   mantissa bits whose value alone decides the result, and the result for
   each such key (xz, uint32), plus a check of tanh(-x) = -tanh(x).
2. sin/cos.approx.f32 on random inputs against the fixed-point-turn keys of
   mufu_sincos.py (OUT/bad.txt: rows whose result differs from the key's).
"""

import lzma
import os
import sys

import cupy as cp
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import mufu_sincos as sc  # noqa: E402


def tanh_probe(out, log):
    top = 0x41800000  # 16.0
    xs = cp.arange(top, dtype=cp.uint32).view(cp.float32)
    got = sc.run("tanh.approx.f32", xs)
    neg = sc.run("tanh.approx.f32", (cp.arange(top, dtype=cp.uint32) | np.uint32(0x80000000)).view(cp.float32))
    log.append(f"tanh(-x) == -tanh(x): {int((neg == (got | np.uint32(0x80000000))).sum())} of {top}")
    for n in range(8, 23):
        drop = 23 - n
        base = cp.arange(top, dtype=cp.uint32) >> drop << drop
        same = int((got == got[base]).sum())
        log.append(f"tanh: result decided by {n} mantissa bits: {same} of {top}")
        if same == top:
            keys = got[:: 1 << drop]
            with open(os.path.join(out, f"tanh_key{n}.bin.xz"), "wb") as f:
                f.write(lzma.compress(cp.asnumpy(keys).tobytes(), preset=6))
            break
    else:
        # Not piecewise constant: keep [0.5, 1) and [1, 2) whole for study.
        for lo in [0x3F000000, 0x3F800000]:
            part = cp.asnumpy(got[lo : lo + (1 << 23)])
            with open(os.path.join(out, f"tanh_{lo:08x}.bin.xz"), "wb") as f:
                f.write(lzma.compress(part.tobytes(), preset=6))
    # ftz form on the same inputs
    del got, neg


def sincos_check(out, log):
    K = 1 << 25
    tables = {}
    # rebuild the tables from the grid as mufu_sincos does
    k = cp.arange(K, dtype=cp.int64)
    best = cp.full(K, -1, dtype=cp.int64)
    x0 = (((k.astype(cp.float64) + 0.5) * 2.0**-25) / sc.C).astype(cp.float32)
    for d in [0, -1, 1, -2, 2, -3, 3]:
        xb = cp.maximum(x0.view(cp.int32) + d, 0)
        kk = sc.key(sc.turns(xb.view(cp.float32)))
        best = cp.where((kk == k) & (best < 0), xb.astype(cp.int64), best)
    xs = cp.where(best >= 0, best, 0).astype(cp.int32).view(cp.float32)
    for name in ["sin", "cos"]:
        tables[name] = sc.run(f"{name}.approx.ftz.f32", xs).view(cp.int32)
    rng = np.random.default_rng(1)
    samples = [
        ("bits", rng.integers(0, 1 << 32, 1 << 24, dtype=np.uint64).astype(np.uint32).view(np.float32)),
        ("small", (rng.uniform(-20, 20, 1 << 24)).astype(np.float32)),
        ("tiny", (rng.uniform(-1e-3, 1e-3, 1 << 22)).astype(np.float32)),
    ]
    rows = []
    for sname, xs_h in samples:
        xs_h = xs_h[np.isfinite(xs_h)]
        xr = cp.asarray(xs_h)
        t = sc.turns(xr)
        # two readings of a negative angle: |t| cut (sign-symmetric) or t floored
        k_abs = sc.key(t)
        k_floor = (cp.floor(t * 2.0**25) % K).astype(cp.int64)
        for name in ["sin", "cos"]:
            for plain in ["", ".ftz"]:
                got = sc.run(f"{name}.approx{plain}.f32", xr).view(cp.int32)
                pa = tables[name][k_abs]
                if name == "sin":
                    pa = cp.where(xr < 0, pa ^ np.int32(-(1 << 31)), pa)
                pf = tables[name][k_floor]
                for label, pred in [("abs", pa), ("floor", pf)]:
                    bad = got != pred
                    nb = int(bad.sum())
                    log.append(f"check {sname} {name}{plain} key-{label}: {nb} of {len(xs_h)} differ")
                    if nb:
                        i = cp.nonzero(bad)[0][:300]
                        a = cp.asnumpy(xr.view(cp.uint32)[i])
                        b = cp.asnumpy(got.view(cp.uint32)[i])
                        c = cp.asnumpy(pred.view(cp.uint32)[i])
                        for u, v, w in zip(a, b, c):
                            rows.append(f"{sname} {name}{plain} {label} {int(u):08x} {int(v):08x} {int(w):08x}")
    with open(os.path.join(out, "bad.txt"), "w") as f:
        f.write("\n".join(rows) + "\n")


def main(out):
    log = []
    for step in [tanh_probe, sincos_check]:
        try:
            step(out, log)
        except Exception as e:  # keep what the other step found
            log.append(f"{step.__name__} failed: {e!r}")
        cp.get_default_memory_pool().free_all_blocks()
    with open(os.path.join(out, "probe.txt"), "w") as f:
        f.write("\n".join(log) + "\n")
    print("\n".join(log))


if __name__ == "__main__":
    main(sys.argv[1])
