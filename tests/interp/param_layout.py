#!/usr/bin/env python3
"""Kernel parameter layout as ptxas lays it out: compiles kernels with
assorted parameter lists for sm_90 and reads each parameter's offset from
the cubin (`cuobjdump -elf`, EIATTR_KPARAM_INFO), then launches the first
kernel to check that the values arrive.

    python3 tests/interp/param_layout.py OUT     # needs ptxas, cuobjdump, CuPy

Writes OUT/param_layout.txt: one line per kernel, `name: offset:size ...`
in declaration order, or the ptxas error.
"""

import os
import re
import subprocess
import sys

HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n"

KERNELS = {
    "ptr_align1_after_3u32": ".param .u32 a, .param .u32 b, .param .u32 c, .param .u64 .ptr .global .align 1 p",
    "ptr_align1_after_1u32": ".param .u32 a, .param .u64 .ptr .global .align 1 p",
    "ptr_align16_after_1u32": ".param .u32 a, .param .u64 .ptr .global .align 16 p",
    "ptr_align2_after_u8": ".param .u8 a, .param .u64 .ptr .align 2 p",
    "ptr_shared_align1": ".param .u32 a, .param .u64 .ptr .shared .align 1 p, .param .u32 b",
    "ptr_const_align4_u32ptr": ".param .u16 a, .param .u32 .ptr .const .align 4 p",
    "b8x8_align1_after_u8": ".param .u8 a, .param .align 1 .b8 x[8]",
    "b8x16_align16_after_u32": ".param .u32 a, .param .align 16 .b8 x[16]",
    "b8x3_align8": ".param .b32 a, .param .align 8 .b8 x[3], .param .u32 b",
    "u64_align4": ".param .u32 a, .param .align 4 .u64 x",
    "u64_align16": ".param .u32 a, .param .align 16 .u64 x",
    "f64_after_u16": ".param .u16 a, .param .f64 x, .param .u8 b, .param .u64 .ptr .align 32 p",
}


def kernel(name, params):
    names = re.findall(r"(\w+)(?:\[\d+\])?(?=,|$)", params.replace(" ", " "))
    body = ["{", ".reg .b64 %s, %t;", "mov.u64 %s, 0;"]
    for decl in params.split(","):
        decl = decl.strip()
        n = re.search(r"(\w+)(\[\d+\])?$", decl).group(1)
        if ".v2" in decl:
            body += [".reg .b32 %v<2>;", f"ld.param.v2.u32 {{%v0, %v1}}, [{n}];", "cvt.u64.u32 %t, %v0;",
                     "xor.b64 %s, %s, %t;"]
        elif "[" in decl:
            body += [".reg .b16 %c<4>;", f"ld.param.u8 %c0, [{n}];", "cvt.u64.u16 %t, %c0;", "xor.b64 %s, %s, %t;"]
        elif ".u64" in decl or ".f64" in decl:
            body += [f"ld.param.b64 %t, [{n}];", "xor.b64 %s, %s, %t;"]
        else:
            width = 8 if ".u8" in decl else 16 if ".u16" in decl else 32
            reg = "%t"
            if width == 32:
                body += [f".reg .b32 %w_{n};", f"ld.param.b32 %w_{n}, [{n}];", f"cvt.u64.u32 %t, %w_{n};"]
            else:
                body += [f".reg .b16 %h_{n};", f"ld.param.b{width} %h_{n}, [{n}];", f"cvt.u64.u16 %t, %h_{n};"]
            body += ["xor.b64 %s, %s, %t;"]
    body += ["st.global.u64 [sink], %s;", "ret;", "}"]
    return f".visible .entry {name}({params})\n" + "\n".join(body)


def main(out):
    os.makedirs(out, exist_ok=True)
    work = os.path.join(out, "work")
    os.makedirs(work, exist_ok=True)
    lines = []
    for name, params in KERNELS.items():
        ptx = os.path.join(work, name + ".ptx")
        cubin = os.path.join(work, name + ".cubin")
        with open(ptx, "w") as f:
            f.write(HEADER + ".global .u64 sink;\n" + kernel(name, params) + "\n")
        r = subprocess.run(["ptxas", "-arch=sm_90", ptx, "-o", cubin], capture_output=True, text=True)
        if r.returncode != 0:
            lines.append(f"{name} [{params}]: ptxas error: {r.stderr.strip().splitlines()[0]}")
            continue
        elf = subprocess.run(["cuobjdump", "-elf", cubin], capture_output=True, text=True).stdout
        infos = re.findall(r"Ordinal\s*:\s*(0x[0-9a-f]+)\s+Offset\s*:\s*(0x[0-9a-f]+)\s+Size\s*:\s*(0x[0-9a-f]+)", elf)
        infos = sorted((int(o, 16), int(off, 16), int(s, 16)) for o, off, s in infos)
        lines.append(f"{name} [{params}]: " + " ".join(f"{off}:{size}" for _, off, size in infos))
        if not infos:
            lines.append(elf[:3000])
    # The values arrive: a, b, c and the pointer of the first kernel.
    try:
        import cupy as cp
        import numpy as np
        src = HEADER + """.visible .entry k(.param .u32 a, .param .u32 b, .param .u32 c, .param .u64 .ptr .global .align 1 p)
{
.reg .b32 %r<4>;
.reg .b64 %d;
ld.param.u32 %r0, [a];
ld.param.u32 %r1, [b];
ld.param.u32 %r2, [c];
ld.param.u64 %d, [p];
st.global.v4.u32 [%d], {%r0, %r1, %r2, %r0};
ret;
}
"""
        path = os.path.join(work, "launch.ptx")
        with open(path, "w") as f:
            f.write(src)
        fn = cp.RawModule(path=path).get_function("k")
        buf = cp.zeros(4, dtype=cp.uint32)
        fn((1,), (1,), (np.uint32(11), np.uint32(22), np.uint32(33), buf))
        lines.append(f"launch of ptr_align1_after_3u32: {cp.asnumpy(buf).tolist()}")
    except Exception as e:  # recorded, not fatal
        lines.append(f"launch failed: {e}")
    with open(os.path.join(out, "param_layout.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1])
