#!/usr/bin/env python3
"""Packs the residual files of `sweeps.py approx` into the interpreter's
tables of the special-function unit (server/interp/data/mufu_*.bin).

    mufu_tables.py DIR          DIR holds approx_{rcp,rsqrt,sqrt,ex2}.bin.xz
    mufu_tables.py sin DIR      DIR holds mufu_sin_grid.bin.xz (mufu_sincos.py)
    mufu_tables.py lg2 DIR      DIR holds approx_lg2.bin.xz (sweeps.py approx)

Each residual is the GPU's result minus the correctly rounded one, in units of
the last place, for every input of the measured range, in input order. A table
stores residual + 2 in two bits, four to a byte (first input in the low bits),
zlib-compressed.
"""

import array
import lzma
import os
import sys
import zlib

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "server", "interp", "data")


def sine(grid_dir):
    """mufu_sin.bin: MUFU.SIN over half a turn, one entry per 2^-25 turn.

    The grid file holds, for every k in [0, 2^25), the GPU's sin.approx.ftz.f32
    bits minus those of the f32-rounded sin(2 pi k 2^-25) (numpy), or -2^31
    where no f32 input reaches k. The unit is odd over half turns
    (sin(k + 2^24) is exactly -sin(k)), so the second half fills the first
    half's gaps. The table stores, for k in [0, 2^24), the result bits minus
    those of the f32-rounded sin (Python's math.sin, the C library's, as the
    interpreter computes it), zigzag-coded, as four byte planes (lowest
    first), zlib-compressed.
    """
    import math

    import numpy as np

    K = 1 << 25
    with open(os.path.join(grid_dir, "mufu_sin_grid.bin.xz"), "rb") as f:
        r = np.frombuffer(lzma.decompress(f.read()), dtype=np.int32).astype(np.int64)
    valid = r != -(1 << 31)
    angle = np.arange(K) * (2.0 * np.pi / K)
    gpu = (np.sin(angle).astype(np.float32).view(np.int32).astype(np.int64) + r) & 0xFFFFFFFF
    # cos.approx at k is the sine at k + 2^23 (mufu_cos_grid.bin.xz, if there).
    cos_path = os.path.join(grid_dir, "mufu_cos_grid.bin.xz")
    if os.path.exists(cos_path):
        with open(cos_path, "rb") as f:
            rc = np.frombuffer(lzma.decompress(f.read()), dtype=np.int32).astype(np.int64)
        cvalid = rc != -(1 << 31)
        cgpu = (np.cos(angle).astype(np.float32).view(np.int32).astype(np.int64) + rc) & 0xFFFFFFFF
        shifted = np.roll(cgpu, K // 4)
        svalid = np.roll(cvalid, K // 4)
        both = valid & svalid
        assert (gpu[both] == shifted[both]).all()
        gpu = np.where(valid, gpu, shifted)
        valid = valid | svalid
    half = K // 2
    bits = np.where(valid[:half], gpu[:half], gpu[half:] ^ (1 << 31))
    known = valid[:half] | valid[half:]
    both = valid[:half] & valid[half:]
    assert (gpu[:half][both] == (gpu[half:][both] ^ (1 << 31))).all()
    ref = np.array(
        [math.sin(k * (2.0 * math.pi / K)) for k in range(half)], dtype=np.float32
    ).view(np.int32).astype(np.int64)
    res = np.where(known, bits - (ref & 0xFFFFFFFF), 0)
    z = ((res << 1) ^ (res >> 63)).astype(np.uint32)
    planes = b"".join(((z >> (8 * i)) & 255).astype(np.uint8).tobytes() for i in range(4))
    data = zlib.compress(planes, 9)
    with open(os.path.join(OUT, "mufu_sin.bin"), "wb") as f:
        f.write(data)
    table = (ref + res) & 0xFFFFFFFF
    print("sin", half, "entries,", int(known.sum()), "measured,", len(data), "bytes")
    print("sum of entries mod 2^64:", int(table.astype(np.uint64).sum()))


def planes(res):
    """Zigzag-coded residuals as four byte planes (lowest first), zlib."""
    import numpy as np

    z = ((res << 1) ^ (res >> 63)).astype(np.uint32)
    return zlib.compress(b"".join(((z >> (8 * i)) & 255).astype(np.uint8).tobytes() for i in range(4)), 9)


def lg2(grid_dir):
    """mufu_lg2.bin: lg2.approx.ftz.f32 for every input of [0.5, 2).

    The residual file holds the GPU's bits minus those of numpy's
    f32-rounded log2; the table stores them against Python's math.log2 (the C
    library's, as the interpreter computes it), coded as for the sine.
    """
    import math

    import numpy as np

    with open(os.path.join(grid_dir, "approx_lg2.bin.xz"), "rb") as f:
        r = np.frombuffer(lzma.decompress(f.read()), dtype=np.int32).astype(np.int64)
    xs = (np.arange(1 << 24, dtype=np.uint32) + np.uint32(0x3F000000)).view(np.float32)
    gpu = np.log2(xs.astype(np.float64)).astype(np.float32).view(np.int32).astype(np.int64) + r
    ref = np.array([math.log2(float(v)) for v in xs], dtype=np.float32).view(np.int32).astype(np.int64)
    data = planes(gpu - ref)
    with open(os.path.join(OUT, "mufu_lg2.bin"), "wb") as f:
        f.write(data)
    print("lg2", len(xs), "entries,", len(data), "bytes")
    print("sum of entries mod 2^64:", int((gpu & 0xFFFFFFFF).astype(np.uint64).sum()))


if len(sys.argv) > 2 and sys.argv[1] == "sin":
    sine(sys.argv[2])
    sys.exit(0)
if len(sys.argv) > 2 and sys.argv[1] == "lg2":
    lg2(sys.argv[2])
    sys.exit(0)

for name in ["rcp", "rsqrt", "sqrt", "ex2"]:
    residual = array.array("i")
    with open(os.path.join(sys.argv[1], f"approx_{name}.bin.xz"), "rb") as f:
        residual.frombytes(lzma.decompress(f.read()))
    assert min(residual) >= -2 and max(residual) <= 1, name
    v = bytes(x + 2 for x in residual)
    packed = bytes(v[i] | v[i + 1] << 2 | v[i + 2] << 4 | v[i + 3] << 6 for i in range(0, len(v), 4))
    with open(os.path.join(OUT, f"mufu_{name}.bin"), "wb") as f:
        f.write(zlib.compress(packed, 9))
    print(name, len(residual), "inputs,", len(zlib.compress(packed, 9)), "bytes")
