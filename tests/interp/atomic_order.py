#!/usr/bin/env python3
"""The order in which the lanes of one warp apply same-address shared-memory
atomics on the GPU: each lane ORs (or ANDs away, XORs, adds) its own bit
into one 64-bit or 32-bit word, so the old value each lane gets back names
the lanes that came before it.

    python3 tests/interp/atomic_order.py OUT     # on an sm_90 GPU with CuPy

Writes OUT/atomic_order.json: per operation and slot pattern, the old value
of every lane, for two launches, and OUT/atomic_order_sass.txt when
cuobjdump is on PATH.
"""

import json
import os
import subprocess
import sys

OPS = [
    ("or.b64", "0", "b64"), ("and.b64", "-1", "b64"), ("xor.b64", "0", "b64"), ("add.u64", "0", "b64"),
    ("max.u64", "0", "b64"), ("min.u64", "-1", "b64"), ("exch.b64", "0", "b64"),
    ("or.b32", "0", "b32"), ("and.b32", "-1", "b32"), ("add.u32", "0", "b32"),
]


def kernel(i, op, init, t, slots):
    bits = 64 if t == "b64" else 32
    # value: the lane's own bit (and: every bit but its own; min: a value
    # that falls with the lane index; max: rises)
    val = {
        "and": f"not.b{bits} %v, %v;",
        "min": f"sub.u{bits} %v, -1, %v;",
    }.get(op.split(".")[0], "")
    return f""".visible .entry k{i}(.param .u64 out)
{{
.reg .b64 %o, %a64;
.reg .b{bits} %v, %d, %one;
.reg .b32 %l, %s, %sa, %s0;
.shared .align 8 .b8 sm[256];
ld.param.u64 %o, [out];
mov.u32 %l, %laneid;
and.b32 %s, %l, {slots};
mul.lo.u32 %s, %s, 8;
mov.u32 %s0, sm;
add.u32 %s, %s, %s0;
mul.lo.u32 %sa, %l, 8;
add.u32 %sa, %sa, %s0;
st.shared.b{bits} [%sa], {init};
bar.warp.sync -1;
mov.b{bits} %one, 1;
shl.b{bits} %v, %one, %l;
{val}
atom.shared.{op} %d, [%s], %v;
mul.wide.u32 %a64, %l, 8;
add.u64 %o, %o, %a64;
st.global.b{bits} [%o], %d;
ret;
}}
"""


def main():
    import cupy as cp
    import numpy as np
    out = sys.argv[1]
    cases = [(op, init, t, slots) for op, init, t in OPS for slots in (0, 3, 16)]
    text = ".version 8.7\n.target sm_90a\n.address_size 64\n" + "\n".join(
        kernel(i, *c) for i, c in enumerate(cases))
    path = os.path.join(out, "atomic_order.ptx")
    with open(path, "w") as f:
        f.write(text)
    mod = cp.RawModule(path=path)
    result = []
    for i, (op, init, t, slots) in enumerate(cases):
        runs = []
        for _ in range(2):
            buf = cp.zeros(32, dtype=np.uint64)
            mod.get_function(f"k{i}")((1,), (32,), (buf,))
            cp.cuda.runtime.deviceSynchronize()
            runs.append([hex(int(x)) for x in cp.asnumpy(buf)])
        result.append({"op": op, "slots": slots, "runs": runs})
    with open(os.path.join(out, "atomic_order.json"), "w") as f:
        json.dump(result, f, indent=0)
    try:
        subprocess.run(["ptxas", "-arch=sm_90a", path, "-o", os.path.join(out, "a.cubin")], check=True)
        sass = subprocess.run(["cuobjdump", "-sass", os.path.join(out, "a.cubin")], check=True,
                              capture_output=True, text=True).stdout
        with open(os.path.join(out, "atomic_order_sass.txt"), "w") as f:
            f.write(sass)
        os.remove(os.path.join(out, "a.cubin"))
    except Exception as e:  # no toolkit: the orders alone
        print("no SASS:", e)
    print(f"{len(cases)} probes")


if __name__ == "__main__":
    main()
