#!/usr/bin/env python3
"""Every input of `tanh.approx.f32` on the GPU.

    python3 tests/interp/tanh_probe.py OUT            # needs CuPy and an sm_75+ GPU
    python3 tests/interp/tanh_probe.py pack OUT FILE  # FILE: server/interp/data/mufu_tanh_f32.bin

Runs all 2^32 inputs; writes OUT/tanh_summary.txt (sign symmetry, and per
binade of the input the largest distance in ulps from the correctly
rounded tanh and how many results are exact, equal to x or to 1) and, for
a few binades, every result as lzma-compressed deltas of the result bits
(OUT/tanh_e<biased exponent>.xz, int32 little endian, first value absolute).
"""

import lzma
import os
import sys


def main(out):
    import cupy as cp
    import numpy as np
    os.makedirs(out, exist_ok=True)
    k = cp.RawKernel(r"""
extern "C" __global__ void k(unsigned base, unsigned *o) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = __uint_as_float(base + i), y;
    asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
    o[i] = __float_as_uint(y);
}""", "k")
    n = 1 << 23
    buf = cp.zeros(n, dtype=cp.uint32)
    neg = cp.zeros(n, dtype=cp.uint32)
    lines = []
    asym = 0
    keep = {int(e) for e in os.environ.get("TANH_KEEP", ",".join(str(e) for e in range(115, 131))).split(",")}
    for e in range(256):
        base = e << 23
        k((n // 256,), (256,), (np.uint32(base), buf))
        k((n // 256,), (256,), (np.uint32(base | 0x80000000), neg))
        asym += int(cp.count_nonzero(neg != (buf ^ np.uint32(0x80000000))))
        xs = (cp.arange(n, dtype=cp.uint32) + np.uint32(base))
        if e < 255:
            ref = cp.tanh(xs.view(cp.float32).astype(cp.float64)).astype(cp.float32).view(cp.uint32)
            diff = buf.astype(cp.int64) - ref.astype(cp.int64)
            maxd = int(cp.abs(diff).max())
            exact = int(cp.count_nonzero(diff == 0))
        else:
            maxd, exact = -1, -1
        same = int(cp.count_nonzero(buf == xs))
        ones = int(cp.count_nonzero(buf == np.uint32(0x3F800000)))
        lines.append(f"e={e} max_ulp={maxd} exact={exact} equal_x={same} one={ones}"
                     f" first={int(buf[0]):08x} last={int(buf[-1]):08x}")
        if e in keep:
            h = cp.asnumpy(buf).astype(np.int64)
            d = np.empty_like(h)
            d[0] = h[0]
            d[1:] = np.diff(h)
            with open(os.path.join(out, f"tanh_e{e}.xz"), "wb") as f:
                f.write(lzma.compress(d.astype("<i4").tobytes(), preset=1))
    lines.append(f"negative inputs whose result is not the negated positive one: {asym}")
    with open(os.path.join(out, "tanh_summary.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines[-5:]))


def pack(out, path):
    """Checks that each binade's results depend only on the input cut to a
    fixed number of fraction bits, and packs those results: "TANH", the
    number of binades, per binade the first result (u32) and the bits cut
    (u8), then every binade's differences of consecutive results (zigzag
    u16, the first 0), zlib."""
    import struct
    import zlib

    import numpy as np
    head, body, binades = b"", b"", 0
    for e in range(119, 130):
        d = np.frombuffer(lzma.decompress(open(os.path.join(out, f"tanh_e{e}.xz"), "rb").read()), dtype="<i4")
        r = np.cumsum(d.astype(np.int64))
        cut = max(k for k in range(16) if np.array_equal(r, r[np.arange(len(r)) & ~((1 << k) - 1)]))
        q = r[:: 1 << cut]
        diff = np.diff(q)
        zz = np.where(diff >= 0, 2 * diff, -2 * diff - 1)
        assert zz.max() < 65536
        head += struct.pack("<IB", int(q[0]), cut)
        body += np.concatenate([[0], zz]).astype("<u2").tobytes()
        binades += 1
    data = b"TANH" + struct.pack("<I", binades) + head + body
    with open(path, "wb") as f:
        f.write(zlib.compress(data, 9))


if __name__ == "__main__":
    if sys.argv[1] == "pack":
        pack(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[1])
