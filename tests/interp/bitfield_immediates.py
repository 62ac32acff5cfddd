#!/usr/bin/env python3
"""`bfi.b32` and `bfe.s32` with every immediate position and length (0..255,
the range ptxas accepts), on the GPU: one kernel per position with one
instruction per length, fed from registers so that nothing folds but the
immediates.

    python3 tests/interp/bitfield_immediates.py OUT    # needs CuPy, an sm_90 GPU

Writes OUT/bitfield_immediates.bin: for bfi (4 input pairs) then bfe.s32
(6 inputs), per position, per length, per input, the result (u32 LE).
"""

import os
import sys

HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n"
BFI_INPUTS = [(0xFFFFFFFF, 0), (0, 0xFFFFFFFF), (0x12345678, 0x9ABCDEF0), (0x80000001, 0x7FFFFFFE)]
BFE_INPUTS = [0, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0x12345678, 0xEDCBA987]


def kernel(op, pos):
    lines = [f".visible .entry k{op}{pos}(.param .u64 pin, .param .u64 pout)", "{",
             ".reg .b64 %x, %y, %o;", ".reg .b32 %a, %b, %d, %n;",
             "ld.param.u64 %x, [pin];", "ld.param.u64 %y, [pout];", "mov.u32 %n, %tid.x;",
             "mul.wide.u32 %o, %n, 8;", "add.u64 %x, %x, %o;", "mul.wide.u32 %o, %n, 4;", "add.u64 %y, %y, %o;",
             "ld.global.b32 %a, [%x];", "ld.global.b32 %b, [%x+4];"]
    for length in range(256):
        if op == "bfi":
            lines.append(f"bfi.b32 %d, %a, %b, {pos}, {length};")
        else:
            lines.append(f"bfe.s32 %d, %a, {pos}, {length};")
        lines.append(f"st.global.b32 [%y+{length * 64}], %d;")
    lines += ["ret;", "}"]
    return "\n".join(lines)


def main(out):
    import cupy as cp
    import numpy as np
    os.makedirs(out, exist_ok=True)
    results = []
    for op, inputs in [("bfi", BFI_INPUTS), ("bfe", [(a, 0) for a in BFE_INPUTS])]:
        d_in = cp.asarray(np.array(inputs, dtype=np.uint32).reshape(-1))
        for start in range(0, 256, 32):
            path = f"/tmp/bitfield_{op}{start}.ptx"
            with open(path, "w") as f:
                f.write(HEADER + "\n".join(kernel(op, p) for p in range(start, start + 32)) + "\n")
            mod = cp.RawModule(path=path)
            for pos in range(start, start + 32):
                d_out = cp.zeros(256 * 16, dtype=cp.uint32)
                mod.get_function(f"k{op}{pos}")((1,), (len(inputs),), (d_in, d_out))
                res = cp.asnumpy(d_out).reshape(256, 16)[:, :len(inputs)]
                results.append(res.astype("<u4").tobytes())
    with open(os.path.join(out, "bitfield_immediates.bin"), "wb") as f:
        f.write(b"".join(results))
    print("bitfield immediates:", sum(len(r) for r in results), "bytes")


if __name__ == "__main__":
    main(sys.argv[1])
