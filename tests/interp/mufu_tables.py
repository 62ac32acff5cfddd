#!/usr/bin/env python3
"""Packs the residual files of `sweeps.py approx` into the interpreter's
tables of the special-function unit (server/interp/data/mufu_*.bin).

    mufu_tables.py DIR     DIR holds approx_{rcp,rsqrt,sqrt,ex2}.bin.xz

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
