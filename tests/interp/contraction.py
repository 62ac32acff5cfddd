#!/usr/bin/env python3
"""Which `mul` + `add` pairs ptxas contracts into a fused multiply-add.

    python3 tests/interp/contraction.py OUT      # needs ptxas, cuobjdump, CuPy

Each kernel of `KERNELS` computes one pattern per thread from four inputs
(a, b, c, d) and stores its results. The module is compiled for sm_90 with
ptxas; OUT/contraction_sass.txt keeps each kernel's floating-point machine
instructions (`cuobjdump -sass`), and OUT/gpu_contraction.jsonl the GPU's
results of the compiled cubin on 512 seeded input rows per kernel:
    {"name", "ty", "ptx": kernel text, "rows": [[inputs hex...], ...],
     "outputs": [[hex...], ...]}
copied to server/interp/fixtures/ (`tests/contraction.rs` compares).
"""

import json
import os
import random
import struct
import subprocess
import sys

HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n"

# name: (type, body). Inputs %a %b %c %d, outputs %r (and %s where used).
F32 = {
    "add_tc": "mul.f32 %t, %a, %b;\nadd.f32 %r, %t, %c;",
    "add_ct": "mul.f32 %t, %a, %b;\nadd.f32 %r, %c, %t;",
    "sub_tc": "mul.f32 %t, %a, %b;\nsub.f32 %r, %t, %c;",
    "sub_ct": "mul.f32 %t, %a, %b;\nsub.f32 %r, %c, %t;",
    "use_twice_store": "mul.f32 %t, %a, %b;\nadd.f32 %r, %t, %c;\nmov.f32 %s, %t;",
    "two_adds": "mul.f32 %t, %a, %b;\nadd.f32 %r, %t, %c;\nadd.f32 %s, %t, %d;",
    "mul_rn": "mul.rn.f32 %t, %a, %b;\nadd.f32 %r, %t, %c;",
    "add_rn": "mul.f32 %t, %a, %b;\nadd.rn.f32 %r, %t, %c;",
    "mul_rz": "mul.rz.f32 %t, %a, %b;\nadd.f32 %r, %t, %c;",
    "ftz_both": "mul.ftz.f32 %t, %a, %b;\nadd.ftz.f32 %r, %t, %c;",
    "ftz_mul": "mul.ftz.f32 %t, %a, %b;\nadd.f32 %r, %t, %c;",
    "ftz_add": "mul.f32 %t, %a, %b;\nadd.ftz.f32 %r, %t, %c;",
    "sat_mul": "mul.sat.f32 %t, %a, %b;\nadd.f32 %r, %t, %c;",
    "sat_add": "mul.f32 %t, %a, %b;\nadd.sat.f32 %r, %t, %c;",
    "sat_both": "mul.sat.f32 %t, %a, %b;\nadd.sat.f32 %r, %t, %c;",
    "two_muls_add": "mul.f32 %t, %a, %b;\nmul.f32 %u, %c, %d;\nadd.f32 %r, %t, %u;",
    "two_muls_add_swapped": "mul.f32 %t, %a, %b;\nmul.f32 %u, %c, %d;\nadd.f32 %r, %u, %t;",
    "two_muls_sub": "mul.f32 %t, %a, %b;\nmul.f32 %u, %c, %d;\nsub.f32 %r, %t, %u;",
    "two_muls_sub_swapped": "mul.f32 %u, %c, %d;\nmul.f32 %t, %a, %b;\nsub.f32 %r, %t, %u;",
    "across_blocks": "mul.f32 %t, %a, %b;\nsetp.gt.f32 %p, %d, 0f00000000;\n@%p bra L1;\nadd.f32 %c, %c, %d;\nL1:\nadd.f32 %r, %t, %c;",
    "across_branch_add": "mul.f32 %t, %a, %b;\nsetp.gt.f32 %p, %d, 0f00000000;\n@%p bra L1;\nadd.f32 %r, %t, %c;\nbra L2;\nL1:\nsub.f32 %r, %t, %d;\nL2:",
    "neg_then_add": "mul.f32 %t, %a, %b;\nneg.f32 %t, %t;\nadd.f32 %r, %t, %c;",
    "add_self": "mul.f32 %t, %a, %b;\nadd.f32 %r, %t, %t;",
    "square_add": "mul.f32 %t, %a, %a;\nadd.f32 %r, %t, %c;",
    "imm_mul": "mul.f32 %t, %a, 0f3FC00000;\nadd.f32 %r, %t, %c;",
    "imm_add": "mul.f32 %t, %a, %b;\nadd.f32 %r, %t, 0f3F800000;",
    "pow2_mul": "mul.f32 %t, %a, 0f40000000;\nadd.f32 %r, %t, %c;",
    "chain3": "mul.f32 %t, %a, %b;\nadd.f32 %t, %t, %c;\nmul.f32 %u, %t, %d;\nadd.f32 %r, %u, %a;",
    "div_full_add": "div.full.f32 %t, %a, %b;\nadd.f32 %r, %t, %c;",
    "div_rn_add": "div.rn.f32 %t, %a, %b;\nadd.f32 %r, %t, %c;",
    "div_approx_add": "div.approx.f32 %t, %a, %b;\nadd.f32 %r, %t, %c;",
    "used_by_setp": "mul.f32 %t, %a, %b;\nadd.f32 %r, %t, %c;\nsetp.gt.f32 %p, %t, %d;\nselp.f32 %s, %a, %b, %p;",
    "loop_acc": "mov.f32 %r, %c;\nmov.u32 %i, 0;\nLOOP:\nmul.f32 %t, %a, %b;\nadd.f32 %r, %r, %t;\nadd.f32 %a, %a, %d;\nadd.u32 %i, %i, 1;\nsetp.lt.u32 %p, %i, 4;\n@%p bra LOOP;",
    "mul_then_mul_add": "mul.f32 %t, %a, %b;\nmul.f32 %u, %t, %c;\nadd.f32 %r, %t, %d;\nadd.f32 %s, %u, %d;",
    "sub_from_two": "mul.f32 %t, %a, %b;\nsub.f32 %r, %t, %c;\nsub.f32 %s, %d, %t;",
    "guarded_add": "mul.f32 %t, %a, %b;\nsetp.gt.f32 %p, %d, 0f00000000;\nmov.f32 %r, %d;\n@%p add.f32 %r, %t, %c;",
    "guarded_both": "setp.gt.f32 %p, %d, 0f00000000;\nmov.f32 %r, %d;\n@%p mul.f32 %t, %a, %b;\n@%p add.f32 %r, %t, %c;",
    "untargeted_label": "mul.f32 %t, %a, %b;\nUNUSED:\nadd.f32 %r, %t, %c;",
    "src_redefined": "mul.f32 %t, %a, %b;\nadd.f32 %a, %a, %d;\nadd.f32 %r, %t, %c;\nmov.f32 %s, %a;",
    "use_after_add": "mul.f32 %t, %a, %b;\nadd.f32 %r, %t, %c;\nadd.f32 %s, %r, %t;",
    "priority_conflict": "mul.f32 %t, %a, %b;\nmul.f32 %u, %c, %d;\nadd.f32 %r, %t, %u;\nadd.f32 %s, %u, %a;",
    "priority_second": "mul.f32 %t, %a, %b;\nmul.f32 %u, %c, %d;\nadd.f32 %r, %t, %u;\nmov.f32 %s, %t;",
    "abs_between": "mul.f32 %t, %a, %b;\nabs.f32 %t, %t;\nadd.f32 %r, %t, %c;",
    "reg_reused": "mul.f32 %t, %a, %b;\nadd.f32 %r, %t, %c;\nmul.f32 %t, %c, %d;\nadd.f32 %s, %t, %a;",
    "across_barrier": "mul.f32 %t, %a, %b;\nbar.sync 0;\nadd.f32 %r, %t, %c;",
    "div_full_twice": "div.full.f32 %t, %a, %b;\nadd.f32 %r, %t, %c;\nadd.f32 %s, %t, %d;",
    "div_full_store": "div.full.f32 %t, %a, %b;\nadd.f32 %r, %t, %c;\nmov.f32 %s, %t;",
    "div_full_ftz": "div.full.ftz.f32 %t, %a, %b;\nadd.ftz.f32 %r, %t, %c;",
    "div_full_ftz_mixed": "div.full.ftz.f32 %t, %a, %b;\nadd.f32 %r, %t, %c;",
    "div_full_sub": "div.full.f32 %t, %a, %b;\nsub.f32 %r, %c, %t;",
    "div_approx_ftz": "div.approx.ftz.f32 %t, %a, %b;\nadd.ftz.f32 %r, %t, %c;",
    "div_full_then_mul_add": "div.full.f32 %t, %a, %b;\nmul.f32 %u, %c, %d;\nadd.f32 %r, %t, %u;",
    "into_fma_addend": "mul.f32 %t, %a, %b;\nfma.rn.f32 %r, %c, %d, %t;",
    "ftz_sat": "mul.ftz.f32 %t, %a, %b;\nadd.ftz.sat.f32 %r, %t, %c;",
    "add_imm_first": "mul.f32 %t, %a, %b;\nadd.f32 %r, 0f3F800000, %t;",
    "mul_of_add": "add.f32 %t, %a, %b;\nmul.f32 %u, %t, %c;\nadd.f32 %r, %u, %t;",
}
F64 = {
    "f64_add_tc": "mul.f64 %t, %a, %b;\nadd.f64 %r, %t, %c;",
    "f64_sub_ct": "mul.f64 %t, %a, %b;\nsub.f64 %r, %c, %t;",
    "f64_mul_rn": "mul.rn.f64 %t, %a, %b;\nadd.f64 %r, %t, %c;",
    "f64_two_muls": "mul.f64 %t, %a, %b;\nmul.f64 %u, %c, %d;\nadd.f64 %r, %t, %u;",
    "f64_use_twice": "mul.f64 %t, %a, %b;\nadd.f64 %r, %t, %c;\nmov.f64 %s, %t;",
    "f64_two_adds": "mul.f64 %t, %a, %b;\nadd.f64 %r, %t, %c;\nsub.f64 %s, %d, %t;",
    "f64_div_add": "div.rn.f64 %t, %a, %b;\nadd.f64 %r, %t, %c;",
    "f64_across": "mul.f64 %t, %a, %b;\nsetp.gt.f64 %p, %d, 0d0000000000000000;\n@%p bra L1;\nadd.f64 %c, %c, %d;\nL1:\nadd.f64 %r, %t, %c;",
}
F16X2 = {
    "f16x2_add": "mul.f16x2 %t, %a, %b;\nadd.f16x2 %r, %t, %c;",
    "f16x2_sub": "mul.f16x2 %t, %a, %b;\nsub.f16x2 %r, %c, %t;",
    "f16x2_mul_rn": "mul.rn.f16x2 %t, %a, %b;\nadd.f16x2 %r, %t, %c;",
    "f16x2_ftz": "mul.ftz.f16x2 %t, %a, %b;\nadd.ftz.f16x2 %r, %t, %c;",
    "f16x2_sat": "mul.f16x2 %t, %a, %b;\nadd.sat.f16x2 %r, %t, %c;",
    "bf16x2_add": "mul.bf16x2 %t, %a, %b;\nadd.bf16x2 %r, %t, %c;",
    "bf16x2_sub": "mul.bf16x2 %t, %a, %b;\nsub.bf16x2 %r, %t, %c;",
    "f16x2_twice": "mul.f16x2 %t, %a, %b;\nadd.f16x2 %r, %t, %c;\nmov.b32 %s, %t;",
}
F16 = {
    "f16_ftz": "mul.ftz.f16 %t, %a, %b;\nadd.ftz.f16 %r, %t, %c;",
    "f16_sat": "mul.f16 %t, %a, %b;\nadd.sat.f16 %r, %t, %c;",
    "f16_sub": "mul.f16 %t, %a, %b;\nsub.f16 %r, %c, %t;",
    "f16_twice": "mul.f16 %t, %a, %b;\nadd.f16 %r, %t, %c;\nmov.b16 %s, %t;",
    "f16_add": "mul.f16 %t, %a, %b;\nadd.f16 %r, %t, %c;",
    "f16_mul_rn": "mul.rn.f16 %t, %a, %b;\nadd.f16 %r, %t, %c;",
    "bf16_add": "mul.bf16 %t, %a, %b;\nadd.bf16 %r, %t, %c;",
}

TYPES = {"f32": ("f32", 4), "f64": ("f64", 8), "f16x2": ("b32", 4), "f16": ("b16", 2)}


def kernels():
    out = []
    for table, ty in [(F32, "f32"), (F64, "f64"), (F16X2, "f16x2"), (F16, "f16")]:
        for name, body in table.items():
            out.append((name, ty, body))
    return out


def kernel_text(name, ty, body):
    reg, size = TYPES[ty]
    return f""".visible .entry {name}(.param .u64 pin, .param .u64 pout)
{{
.reg .{reg} %a, %b, %c, %d, %t, %u, %r, %s;
.reg .b64 %x, %y, %o;
.reg .b32 %n, %i;
.reg .pred %p;
ld.param.u64 %x, [pin];
ld.param.u64 %y, [pout];
mov.u32 %n, %tid.x;
mul.wide.u32 %o, %n, {4 * size};
add.u64 %x, %x, %o;
mul.wide.u32 %o, %n, {2 * size};
add.u64 %y, %y, %o;
ld.global.b{8 * size} %a, [%x];
ld.global.b{8 * size} %b, [%x+{size}];
ld.global.b{8 * size} %c, [%x+{2 * size}];
ld.global.b{8 * size} %d, [%x+{3 * size}];
mov.b{8 * size} %s, 0;
{body}
st.global.b{8 * size} [%y], %r;
st.global.b{8 * size} [%y+{size}], %s;
ret;
}}"""


ROWS = 512


def inputs(ty, rng):
    """Rows of four inputs: products and addends of comparable size (where
    a fused and an unfused result differ most often), plus edge values."""
    def f32(x):
        return struct.unpack("<I", struct.pack("<f", x))[0]

    def f64(x):
        return struct.unpack("<Q", struct.pack("<d", x))[0]

    def f16(x):
        return struct.unpack("<H", struct.pack("<e", x))[0]

    rows = []
    for i in range(ROWS):
        scale = 2.0 ** rng.randrange(-8, 8)
        vals = [rng.uniform(-2, 2) * scale for _ in range(4)]
        if i % 4 == 1:
            vals[2] = -vals[0] * vals[1] * (1 + rng.uniform(-1e-3, 1e-3))
        if i % 16 == 3:
            vals[rng.randrange(4)] = rng.choice([0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1e-40,
                                                 3e38, -1e-45])
        if ty == "f32":
            rows.append([f32(v) if abs(v) < 3.4e38 or v != v or abs(v) == float("inf") else f32(3e38) for v in vals])
        elif ty == "f64":
            rows.append([f64(v) for v in vals])
        elif ty == "f16":
            rows.append([f16(max(min(v, 65504.0), -65504.0)) if v == v else 0x7e00 for v in vals])
        else:
            lo = [f16(max(min(v, 65504.0), -65504.0)) if v == v else 0x7e00 for v in vals]
            hi = [f16(max(min(v * 0.75, 65504.0), -65504.0)) if v == v else 0x7e00 for v in vals]
            rows.append([h << 16 | l for h, l in zip(hi, lo)])
    return rows


def main(out):
    import cupy as cp
    import numpy as np
    os.makedirs(out, exist_ok=True)
    ks = kernels()
    src = HEADER + "\n\n".join(kernel_text(*k) for k in ks) + "\n"
    work = os.path.join(out, "work")
    os.makedirs(work, exist_ok=True)
    ptx = os.path.join(work, "contraction.ptx")
    cubin = os.path.join(work, "contraction.cubin")
    with open(ptx, "w") as f:
        f.write(src)
    subprocess.run(["ptxas", "-arch=sm_90", ptx, "-o", cubin], check=True)
    sass = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True, text=True).stdout
    with open(os.path.join(out, "contraction_sass_full.txt"), "w") as f:
        f.write(sass)
    mod = cp.RawModule(path=cubin)
    jit = cp.RawModule(path=ptx)  # the driver's own compiler
    jit_differs = []
    rng = random.Random(20261126)
    lines = []
    for name, ty, body in ks:
        reg, size = TYPES[ty]
        dtype = {2: np.uint16, 4: np.uint32, 8: np.uint64}[size]
        rows = inputs(ty, rng)
        d_in = cp.asarray(np.array(rows, dtype=dtype).reshape(-1))
        d_out = cp.zeros(ROWS * 2, dtype=dtype)
        mod.get_function(name)((1,), (ROWS,), (d_in, d_out))
        res = cp.asnumpy(d_out).reshape(ROWS, 2)
        d_out2 = cp.zeros(ROWS * 2, dtype=dtype)
        jit.get_function(name)((1,), (ROWS,), (d_in, d_out2))
        if not np.array_equal(res, cp.asnumpy(d_out2).reshape(ROWS, 2)):
            jit_differs.append(name)
        w = 2 * size
        lines.append({"name": name, "ty": ty, "ptx": kernel_text(name, ty, body),
                      "rows": [[f"{v:0{w}x}" for v in r] for r in rows],
                      "outputs": [[f"{int(v):0{w}x}" for v in r] for r in res]})
    with open(os.path.join(out, "gpu_contraction.jsonl"), "w") as f:
        for line in lines:
            f.write(json.dumps(line, separators=(",", ":")) + "\n")
    # Per kernel: the floating-point and memory instructions.
    summary = []
    current = None
    for line in sass.splitlines():
        m = __import__("re").search(r"Function : (\w+)", line)
        if m:
            current = m.group(1)
            summary.append(f"== {current}")
            continue
        m = __import__("re").search(r"/\*[0-9a-f]{4}\*/\s+(.*?);", line)
        if m and current and any(op in m.group(1) for op in
                                 ["FMUL", "FADD", "FFMA", "DMUL", "DADD", "DFMA", "HMUL", "HADD", "HFMA", "MUFU",
                                  "FSEL", "FSETP", "BRA", "FCHK", "CALL"]):
            summary.append("   " + m.group(1))
    with open(os.path.join(out, "contraction_sass.txt"), "w") as f:
        f.write("\n".join(summary) + "\n")
    summary.append(f"kernels whose results differ between ptxas and the driver's compiler: {jit_differs}")
    with open(os.path.join(out, "contraction_sass.txt"), "w") as f:
        f.write("\n".join(summary) + "\n")
    print(f"{len(lines)} contraction kernels recorded; JIT differs: {jit_differs}")


if __name__ == "__main__":
    main(sys.argv[1])
