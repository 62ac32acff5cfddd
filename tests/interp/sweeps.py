#!/usr/bin/env python3
"""Per-instruction sweeps on a GPU, and dense measurements of the approximate
instructions.

    sweeps.py sweep SWEEP_BIN WORK OUT   run every form of `SWEEP_BIN gen` on the GPU,
                                         then `SWEEP_BIN record` (interpreter vs GPU)
                                         writes OUT/summary.txt
    sweeps.py approx OUT                 dense sweeps of rcp/rsqrt/sqrt/ex2/lg2 .approx:
                                         residuals against the correctly rounded value
    sweeps.py tables16 OUT               every input of tanh.approx.f16/.bf16 (16-bit
                                         results, zlib) for server/interp/data/

SWEEP_BIN is the `sweep` example of ptx-interp (release build). Needs CuPy and
numpy; the summary lands in server/interp/fixtures/sweeps/.
"""

import lzma
import os
import subprocess
import sys
import time


def sweep(binary, work, out):
    import cupy as cp
    import numpy as np

    os.makedirs(work, exist_ok=True)
    subprocess.run([binary, "gen", work], check=True)
    started = time.time()
    failures = []
    with open(os.path.join(work, "manifest.tsv")) as f:
        manifest = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    for index, rows, cols, name in manifest:
        rows, cols = int(rows), int(cols)
        try:
            fn = cp.RawModule(path=os.path.join(work, f"k{index}.ptx")).get_function("sweep")
            tab = np.fromfile(os.path.join(work, f"k{index}.tab"), dtype=np.uint64)
            d_tab = cp.asarray(tab)
            d_out = cp.zeros(rows * cols, dtype=cp.uint64)
            fn((rows // 256,), (256,), (d_out, d_tab))
            cp.cuda.Device().synchronize()
            cp.asnumpy(d_out).tofile(os.path.join(work, f"k{index}.out"))
        except Exception as e:  # the record says "no GPU output" for this form
            failures.append(f"{index} {name}: {str(e)[:300]}")
    gpu_s = time.time() - started
    for line in failures:
        print("GPU failure:", line)
    started = time.time()
    env = dict(os.environ, SWEEP_THREADS=str(os.cpu_count() or 4))
    subprocess.run(
        [binary, "record", work, os.path.join(out, "summary.txt")], check=True, env=env
    )
    print(
        f"{len(manifest)} forms, {len(failures)} GPU failures, GPU {gpu_s:.1f}s,"
        f" record {time.time() - started:.1f}s"
    )


KERNEL = """
.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 src, .param .u64 dst)
{
  .reg .b64 %a, %b, %o;
  .reg .b32 %w, %x, %y;
  ld.param.u64 %a, [src];
  ld.param.u64 %b, [dst];
  mov.u32 %w, %ctaid.x;
  mov.u32 %x, %ntid.x;
  mov.u32 %y, %tid.x;
  mad.lo.u32 %w, %w, %x, %y;
  mul.wide.u32 %o, %w, 4;
  add.u64 %a, %a, %o;
  add.u64 %b, %b, %o;
  ld.global.b32 %x, [%a];
  INSTRUCTION %y, %x;
  st.global.b32 [%b], %y;
}
"""


def approx(out):
    import cupy as cp
    import numpy as np

    def run(instruction, xs):
        # CuPy caches modules by path: one file per instruction.
        path = f"/tmp/approx_{instruction.replace('.', '_')}.ptx"
        with open(path, "w") as f:
            f.write(KERNEL.replace("INSTRUCTION", instruction))
        fn = cp.RawModule(path=path).get_function("k")
        n = len(xs)
        pad = (-n) % 256
        src = cp.asarray(np.concatenate([xs, np.zeros(pad, np.float32)]).view(np.uint32))
        dst = cp.zeros_like(src)
        fn(((n + pad) // 256,), (256,), (src, dst))
        return cp.asnumpy(dst)[:n]

    def grid(lo_bits, count):
        return (np.arange(count, dtype=np.uint32) + np.uint32(lo_bits)).view(np.float32)

    one = 0x3F800000
    sets = {
        # name: (instruction, inputs, exact reference in f64)
        "rcp": ("rcp.approx.ftz.f32", grid(one, 1 << 23), lambda x: 1.0 / x),
        "rsqrt": ("rsqrt.approx.ftz.f32", grid(one, 1 << 24), lambda x: 1.0 / np.sqrt(x)),
        "sqrt": ("sqrt.approx.ftz.f32", grid(one, 1 << 24), np.sqrt),
        "lg2": ("lg2.approx.ftz.f32", grid(0x3F000000, 1 << 24), np.log2),
        "ex2": (
            "ex2.approx.ftz.f32",
            (np.arange(-(1 << 23), 1 << 23, dtype=np.float64) * 2.0**-23).astype(np.float32),
            np.exp2,
        ),
    }
    log = []
    for name, (instruction, xs, ref) in sets.items():
        got = run(instruction, xs)
        exact = ref(xs.astype(np.float64)).astype(np.float32).view(np.uint32)
        residual = got.astype(np.int64) - exact.astype(np.int64)
        values, counts = np.unique(np.clip(residual, -8, 8), return_counts=True)
        log.append(
            f"{name} {instruction}: {len(xs)} inputs from {xs[0]!r}; residual histogram "
            + " ".join(f"{v}:{c}" for v, c in zip(values, counts))
            + f"; max |residual| {np.abs(residual).max()}"
        )
        # The GPU's bits as int32 differences from the correctly rounded result.
        with open(os.path.join(out, f"approx_{name}.bin.xz"), "wb") as f:
            f.write(lzma.compress(residual.astype(np.int32).tobytes(), preset=6))
    # Scaling: is the result of a power-of-two multiple the scaled result?
    base = grid(one, 1 << 23)
    r0 = run("rcp.approx.ftz.f32", base)
    for k in [-100, -20, -1, 1, 7, 30, 100, 125]:
        rk = run("rcp.approx.ftz.f32", (base.astype(np.float64) * 2.0**k).astype(np.float32))
        same = np.count_nonzero((rk & 0x807FFFFF) == (r0 & 0x807FFFFF))
        log.append(f"rcp scale 2^{k}: same fraction {same} of {len(base)}")
    s0 = run("rsqrt.approx.ftz.f32", grid(one, 1 << 24))
    for k in [-100, -20, -2, 2, 8, 30, 100, 124]:
        xs = (grid(one, 1 << 24).astype(np.float64) * 2.0**k).astype(np.float32)
        for fn_name, r_ref in [("rsqrt", s0)]:
            rk = run("rsqrt.approx.ftz.f32", xs)
            same = np.count_nonzero((rk & 0x807FFFFF) == (r_ref & 0x807FFFFF))
            log.append(f"{fn_name} scale 2^{k}: same fraction {same} of {len(xs)}")
    q0 = run("sqrt.approx.ftz.f32", grid(one, 1 << 24))
    for k in [-100, -2, 2, 100]:
        xs = (grid(one, 1 << 24).astype(np.float64) * 2.0**k).astype(np.float32)
        rk = run("sqrt.approx.ftz.f32", xs)
        same = np.count_nonzero((rk & 0x807FFFFF) == (q0 & 0x807FFFFF))
        log.append(f"sqrt scale 2^{k}: same fraction {same} of {len(xs)}")
    # ex2 of n + f against 2^n ex2(f) on a grid of 2^-16.
    f = (np.arange(1 << 16, dtype=np.float64) * 2.0**-16).astype(np.float32)
    e0 = run("ex2.approx.ftz.f32", f)
    for n in [-100, -20, -1, 1, 5, 20, 100, 127]:
        rk = run("ex2.approx.ftz.f32", (f.astype(np.float64) + n).astype(np.float32))
        same = np.count_nonzero((rk & 0x807FFFFF) == (e0 & 0x807FFFFF))
        log.append(f"ex2 n={n}: same fraction as ex2(f) {same} of {len(f)}")
    with open(os.path.join(out, "approx.txt"), "w") as fh:
        fh.write("\n".join(log) + "\n")
    print("\n".join(log))


KERNEL16 = """
.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 dst)
{
  .reg .b64 %b, %o;
  .reg .b32 %w, %x, %y;
  .reg .b16 %h, %r;
  ld.param.u64 %b, [dst];
  mov.u32 %w, %ctaid.x;
  mov.u32 %x, %ntid.x;
  mov.u32 %y, %tid.x;
  mad.lo.u32 %w, %w, %x, %y;
  cvt.u16.u32 %h, %w;
  INSTRUCTION %r, %h;
  mul.wide.u32 %o, %w, 2;
  add.u64 %b, %b, %o;
  st.global.b16 [%b], %r;
}
"""


def tables16(out):
    import zlib

    import cupy as cp

    for name, instruction in [("tanh_f16", "tanh.approx.f16"), ("tanh_bf16", "tanh.approx.bf16")]:
        path = f"/tmp/table_{name}.ptx"
        with open(path, "w") as f:
            f.write(KERNEL16.replace("INSTRUCTION", instruction))
        fn = cp.RawModule(path=path).get_function("k")
        dst = cp.zeros(1 << 16, dtype=cp.uint16)
        fn((256,), (256,), (dst,))
        data = cp.asnumpy(dst).astype("<u2").tobytes()
        with open(os.path.join(out, f"mufu_{name}.bin"), "wb") as f:
            f.write(zlib.compress(data, 9))
        print(name, "done")


if __name__ == "__main__":
    if sys.argv[1] == "sweep":
        sweep(sys.argv[2], sys.argv[3], sys.argv[4])
    elif sys.argv[1] == "tables16":
        tables16(sys.argv[2])
    elif sys.argv[1] == "approx":
        approx(sys.argv[2])
    else:
        print(__doc__)
