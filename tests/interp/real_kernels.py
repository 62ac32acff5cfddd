#!/usr/bin/env python3
"""Real kernels (nvcc, CUB and Triton PTX of tests/corpus) run on a GPU, for the
interpreter to match byte for byte.

Every run's arguments come from one seeded generator, so the list is the same on
every machine. Each run is launched through the CUDA driver with the exact
parameter bytes the interpreter receives, twice: bytes that differ between the
two launches (a clock read, an order-dependent atomic) are recorded as volatile
and not compared.

    python3 tests/interp/real_kernels.py --list            # the runs, one per line
    python3 tests/interp/real_kernels.py --run OUTFILE [FIRST]   # on a machine with a GPU and CuPy

OUTFILE (server/interp/fixtures/real_kernels.jsonl) has one line per run:
    {"name", "file", "entry", "grid", "block", "smem", "args": [CLI --arg specs],
     "buffers": [{"arg", "hex"}], "volatile": [[arg, start, end], ...]}
or {"name", "error"} when the launch failed.
"""

import json
import os
import random
import re
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SEED = 20261124
rng = random.Random(SEED)


# ------------------------------------------------------------- argument specs

def hexbuf(data):
    return "buf:hex:" + bytes(data).hex()


def f32s(values):
    return hexbuf(b"".join(struct.pack("<f", v) for v in values))


def f64s(values):
    return hexbuf(b"".join(struct.pack("<d", v) for v in values))


def f16s(values):
    return hexbuf(b"".join(struct.pack("<e", v) for v in values))


def bf16s(values):
    return hexbuf(b"".join(struct.pack("<f", v)[2:] for v in values))


def ints(values, fmt="<i"):
    return hexbuf(b"".join(struct.pack(fmt, v) for v in values))


def rand_f32(n, lo=-4.0, hi=4.0):
    # Rounded to f32 so that the text round-trips exactly.
    return [struct.unpack("<f", struct.pack("<f", rng.uniform(lo, hi)))[0] for _ in range(n)]


def small_ints(n, lo=-3, hi=3):
    return [float(rng.randint(lo, hi)) for _ in range(n)]


def zeros(n):
    return f"zeros:{n}"


def u32(v):
    return f"u32:{v}"


def f32(v):
    return "f32:0x" + struct.pack("<f", v)[::-1].hex()


def raw(nbytes, value=0):
    """The bytes of a by-value struct parameter (`.param .align A .b8 p[N]`)."""
    return "raw:" + value.to_bytes(nbytes, "little").hex()


NULL = "u64:0"

# ------------------------------------------------------------------ the runs
# (name, file under the repository root, entry or prefix, grid, block, dynamic smem, args)

RUNS = []


def run(name, file, entry, grid, block, args, smem=0):
    RUNS.append({"name": name, "file": file, "entry": entry, "grid": grid, "block": block,
                 "smem": smem, "args": args})


TRITON_SMEM = 64 << 10
MATMUL_SMEM = 160 << 10

# Triton kernels: two trailing pointers (global and profile scratch) are passed null.
run("triton_add", "tests/corpus/triton/triton_add_native.ptx", "add_kernel", [2, 1, 1], [128, 1, 1],
    [f32s(rand_f32(2048)), f32s(rand_f32(2048)), zeros(2048 * 4), u32(2000), NULL, NULL],
    TRITON_SMEM)
for file in ["triton_softmax_native", "triton_softmax_sm80"]:
    run(file.replace("_native", ""), f"tests/corpus/triton/{file}.ptx", "softmax_kernel", [3, 1, 1],
        [128, 1, 1], [zeros(3 * 1000 * 4), f32s(rand_f32(3000, -8, 8)), u32(1000), u32(1000),
                      NULL, NULL], TRITON_SMEM)
run("triton_layernorm", "tests/corpus/triton/triton_layernorm_native.ptx", "layernorm_kernel", [3, 1, 1],
    [128, 1, 1],
    [f16s(rand_f32(3 * 768, -2, 2)), zeros(3 * 768 * 2), f32s(rand_f32(768, 0.5, 1.5)),
     f32s(rand_f32(768, -0.5, 0.5)), u32(768), u32(768), f32(1e-5), NULL, NULL], TRITON_SMEM)
run("triton_matmul_sm80", "tests/corpus/triton/triton_matmul_sm80.ptx", "matmul_kernel", [1, 1, 1], [128, 1, 1],
    [f16s(small_ints(128 * 128, -2, 2)), f16s(small_ints(128 * 128, -2, 2)), zeros(128 * 128 * 2),
     u32(128), u32(128), u32(128), u32(128), u32(1), u32(128), u32(1), u32(128), u32(1), NULL, NULL],
    MATMUL_SMEM)
run("triton_hist", "tests/corpus/triton/triton_hist_native.ptx", "atomic_hist_kernel", [2, 1, 1], [128, 1, 1],
    [ints([rng.randrange(0, 1 << 20) for _ in range(2048)]), zeros(257 * 4), u32(2000), NULL, NULL],
    TRITON_SMEM)
run("triton_int_ops", "tests/corpus/triton/triton_int_ops_sm80.ptx", "int_ops", [2, 1, 1], [128, 1, 1],
    [ints([rng.randrange(-(1 << 31), 1 << 31) for _ in range(1024)]), zeros(1024 * 2), u32(1000),
     NULL, NULL], TRITON_SMEM)
run("triton_dropout", "tests/corpus/triton/triton_dropout_0_sm89.ptx", "dropout", [2, 1, 1], [128, 1, 1],
    [f32s(rand_f32(2048)), zeros(2048 * 4), u32(2000), f32(0.3), u32(1234), NULL, NULL], TRITON_SMEM)
run("triton_reduce_atomic", "tests/corpus/triton/triton_reduce_atomic_sm90.ptx", "reduce_atomic", [2, 1, 1],
    [128, 1, 1], [f32s(small_ints(2048, -50, 50)), zeros(16), u32(2000), NULL, NULL], TRITON_SMEM)

# nvcc kernels of device_intrinsics.cu (the same source for sm_80 and sm_90a).
for arch in ["sm_80", "sm_90a"]:
    f = f"tests/corpus/nvcc/device_intrinsics_{arch}.ptx"
    run(f"int_ops_{arch}", f, "_Z7int_opsPKjS0_PjPx", [2, 1, 1], [64, 1, 1],
        [ints([rng.getrandbits(32) for _ in range(128)], "<I"),
         ints([rng.getrandbits(32) for _ in range(128)], "<I"), zeros(128 * 4),
         ints([rng.getrandbits(64) for _ in range(129)], "<Q")])
    run(f"float_ops_{arch}", f, "_Z9float_opsPKfPKdPfPdPi", [1, 1, 1], [64, 1, 1],
        [f32s(rand_f32(64, 0.25, 4)), f64s([rng.uniform(0.25, 4) for _ in range(64)]),
         zeros(64 * 4), zeros(64 * 8), zeros(64 * 4)])
    run(f"half_ops_{arch}", f, "_Z8half_opsPK7__half2PK14__nv_bfloat162PS_PS2_PtPf", [1, 1, 1],
        [64, 1, 1],
        [f16s(rand_f32(128, 0.25, 2)), bf16s(rand_f32(128, -2, 2)), zeros(64 * 4), zeros(64 * 4),
         zeros(65 * 2), zeros(64 * 4)])
    run(f"atomics_{arch}", f, "_Z7atomicsPiPjPyPfPdP7__half2P14__nv_bfloat162", [1, 1, 1], [1, 1, 1],
        [zeros(32), zeros(24), zeros(24), zeros(8), zeros(8), zeros(4), bf16s([0.5, 0.25, 1.0, 2.0])])
    run(f"warp_ops_{arch}", f, "_Z8warp_opsPKiPiPf", [1, 1, 1], [256, 1, 1],
        [ints([rng.randrange(-20, 20) for _ in range(256)]), zeros(256 * 4), zeros(256 * 4)])
    run(f"async_copy_{arch}", f, "_Z10async_copyPK6float4PS_", [1, 1, 1], [256, 1, 1],
        [f32s(small_ints(256 * 4, -100, 100)), zeros(512 * 16)])
    run(f"wmma_f16_{arch}", f, "_Z8wmma_f16PK6__halfS1_Pf", [1, 1, 1], [32, 1, 1],
        [f16s(small_ints(256)), f16s(small_ints(256)), zeros(256 * 4)])
    run(f"wmma_other_{arch}", f, "_Z10wmma_otherPK13__nv_bfloat16PKaPKdPKfPiPdPf", [1, 1, 1],
        [32, 1, 1],
        # The int8 B matrix (16x32, column-major, leading dimension 32) spans
        # 1008 bytes: 512 random ones, then zeros (no extra draws, so the
        # later runs keep their inputs).
        [bf16s(small_ints(512)), ints([rng.randint(-100, 100) for _ in range(512)], "<b") + "00" * 512,
         f64s(small_ints(32)), f32s(small_ints(128)), zeros(256 * 4), f64s(small_ints(64)),
         zeros(512 * 4)])
    # n == 77 leaves before the grid-wide barrier (which needs a cooperative launch).
    run(f"calls_and_locals_{arch}", f, "_Z16calls_and_localsPfi", [1, 1, 1], [64, 1, 1],
        [zeros(64 * 4), u32(77)])

f = "tests/corpus/nvcc/cuda_features_sm_90a.ptx"
run("cg_reduce", f, "_Z9cg_reducePKiPii", [2, 1, 1], [64, 1, 1],
    [ints([rng.randrange(-50, 50) for _ in range(128)]), zeros(12), u32(100)])
run("pipeline_copy", f, "_Z13pipeline_copyPKfPfi", [2, 1, 1], [256, 1, 1],
    [f32s(rand_f32(1024)), zeros(1024 * 4), u32(1000)])
run("barrier_copy", f, "_Z12barrier_copyPKiPi", [2, 1, 1], [128, 1, 1],
    [ints([rng.randrange(-1000, 1000) for _ in range(256)]), zeros(256 * 4)])
run("conversions", f, "_Z11conversionsPKfP13__nv_fp8_e4m3P13__nv_fp8_e5m2P13__nv_bfloat16P6__",
    [1, 1, 1], [64, 1, 1],
    [f32s(rand_f32(64, -300, 300)), zeros(64), zeros(64), zeros(128 * 2), zeros(128 * 2),
     zeros(128 * 4)])
run("wmma_tile", f, "_Z9wmma_tilePK6__halfS1_Pf", [1, 1, 1], [32, 1, 1],
    [f16s(small_ints(256)), f16s(small_ints(256)), zeros(256 * 4)])

# CUB device-wide algorithms, one tile each (the kernels a small input launches).
f = "tests/corpus/nvcc/cub_algorithms_sm_90a.ptx"
CUB = "_ZN3cub17CUB_300001_SM_9006detail"
run("cub_reduce_sum_f32", f, CUB + "6reduce28DeviceReduceSingleTileKernelINS2_10policy_hubIfjN4cuda3std3__44plusIvEEE10Policy1000EP",
    [1, 1, 1], [256, 1, 1], [f32s(rand_f32(3000)), zeros(4), u32(3000), raw(1), f32(0.0), raw(1)])
run("cub_reduce_max_i32", f, CUB + "6reduce28DeviceReduceSingleTileKernelINS2_10policy_hubIijN4cuda3__47maximumIvEEE10Policy1000EPi",
    [1, 1, 1], [256, 1, 1],
    [ints([rng.randrange(-(1 << 31), 1 << 31) for _ in range(2500)]), zeros(4), u32(2500), raw(1),
     "s32:-2147483648", raw(1)])
run("cub_reduce_sum_f64", f, CUB + "6reduce28DeviceReduceSingleTileKernelINS2_10policy_hubIdjN4cuda3std3__44plusIvEEE10Policy1000EP",
    [1, 1, 1], [256, 1, 1],
    [f64s([rng.uniform(-1, 1) for _ in range(1500)]), zeros(8), u32(1500), raw(1), "f64:0x0", raw(1)])
offsets = sorted(rng.sample(range(1, 2000), 7))
offsets = [0] + offsets + [2000]
run("cub_segmented_reduce", f, CUB + "6reduce27DeviceSegmentedReduceKernel", [8, 1, 1], [256, 1, 1],
    [f32s(rand_f32(2000)), zeros(8 * 4), ints(offsets[:-1]), ints(offsets[1:]), raw(1), f32(0.0)])
run("cub_radix_sort_pairs_f32", f, CUB + "10radix_sort31DeviceRadixSortSingleTileKernelINS1_5radix10policy_hubIfijE",
    [1, 1, 1], [256, 1, 1],
    [f32s(rand_f32(1000, -100, 100)), zeros(1000 * 4), ints(list(range(1000))), zeros(1000 * 4),
     u32(1000), u32(0), u32(32), raw(1)])
run("cub_radix_sort_keys_u64", f, CUB + "10radix_sort31DeviceRadixSortSingleTileKernelINS1_5radix10policy_hubImNS0_8NullTypeEjE",
    [1, 1, 1], [256, 1, 1],
    [ints([rng.getrandbits(64) for _ in range(700)], "<Q"), zeros(700 * 8), NULL, NULL, u32(700),
     u32(0), u32(64), raw(1)])
run("cub_radix_sort_keys_f16_desc", f, CUB + "10radix_sort31DeviceRadixSortSingleTileKernelINS1_5radix10policy_hubI6__halfNS0_8NullTypeEjE",
    [1, 1, 1], [256, 1, 1],
    [f16s(rand_f32(900, -60000, 60000)), zeros(900 * 2), NULL, NULL, u32(900), u32(0), u32(16),
     raw(1)])
run("cub_scan_inclusive_i32", f, CUB + "4scan16DeviceScanKernelINS2_10policy_hubIiiijN4cuda3std3__44plusIvEEE10Policy1000EPiSC_NS0_13Sc",
    [1, 1, 1], [128, 1, 1],
    [ints([rng.randrange(-1000, 1000) for _ in range(1200)]), zeros(1200 * 4), zeros(64 * 8), u32(0),
     raw(1), raw(1), u32(1200)])
run("cub_merge_sort_block", f, CUB + "10merge_sort30DeviceMergeSortBlockSortKernel", [1, 1, 1], [256, 1, 1],
    ["u8:0", f32s(rand_f32(1500, -10, 10)), NULL, zeros(1500 * 4), NULL, u32(1500), zeros(1500 * 4),
     NULL, raw(1), NULL])

# Declarations and addressing (tests/interp/kernels/constructs.ptx).
f = "tests/interp/kernels/constructs.ptx"
run("vector_registers", f, "vector_registers", [1, 1, 1], [64, 1, 1],
    [ints([rng.getrandbits(32) for _ in range(256)], "<I"), zeros(64 * 16)])
run("warp_size", f, "warp_size", [1, 1, 1], [100, 1, 1], [zeros(400)])
run("named_addresses", f, "named_addresses", [2, 1, 1], [64, 1, 1], [zeros(64 * 12), u32(12345)])
run("nested_scopes", f, "nested_scopes", [1, 1, 1], [32, 1, 1], [zeros(128)])
run("dynamic_shared", f, "dynamic_shared", [1, 1, 1], [128, 1, 1], [zeros(512)], 512)
run("dynamic_shared_4k", f, "dynamic_shared", [2, 1, 1], [96, 1, 1], [zeros(384)], 4096)
run("shared_ldmatrix", f, "shared_ldmatrix", [1, 1, 1], [32, 1, 1], [zeros(512)])
run("calls", f, "calls", [1, 1, 1], [64, 1, 1], [zeros(64 * 12)])


def video_word():
    edges = [0x00, 0x01, 0x7f, 0x80, 0x81, 0xfe, 0xff, 0x40, 0xc0]
    if rng.random() < 0.5:
        return int.from_bytes(bytes(rng.choice(edges) for _ in range(4)), "little")
    return rng.getrandbits(32)


run("video", "tests/interp/kernels/video.ptx", "video", [1, 1, 1], [256, 1, 1],
    [ints([video_word() for _ in range(256 * 3)], "<I"), zeros(256 * 98 * 4)])
run("array_operands", "tests/interp/kernels/constructs.ptx", "array_operands", [1, 1, 1], [64, 1, 1],
    [ints([rng.getrandbits(32) for _ in range(64)], "<I"), zeros(64 * 16)])


def legacy_word():
    """f32 bits around the subnormal range: subnormals, the smallest normals,
    values whose products underflow, small and ordinary numbers, zeros."""
    sign = rng.getrandbits(1) << 31
    kind = rng.randrange(6)
    if kind == 0:
        return sign | rng.randrange(1, 1 << 23)
    if kind == 1:
        return sign | rng.randrange(1 << 23, 40 << 23)
    if kind == 2:
        return sign | rng.randrange(40 << 23, 100 << 23)
    if kind == 3:
        return sign | rng.randrange(120 << 23, 130 << 23)
    if kind == 4:
        return sign
    return sign | rng.randrange(100 << 23, 160 << 23)


# Single-precision instructions in a module for an sm_1x target (flushed as .ftz).
run("legacy_sm1x", "tests/interp/kernels/legacy_sm1x.ptx", "legacy_ftz", [1, 1, 1], [64, 1, 1],
    [ints([legacy_word() for _ in range(64 * 3)], "<I"), zeros(64 * 30 * 4)])
# Module-level .local variables (tests/interp/kernels/module_local.ptx).
run("module_local", "tests/interp/kernels/module_local.ptx", "module_local", [1, 1, 1], [48, 1, 1],
    [zeros(48 * 16)])
# Lanes of a warp storing to one global address (tests/interp/kernels/same_address.ptx).
run("same_address_store", "tests/interp/kernels/same_address.ptx", "same_address_store", [1, 1, 1],
    [128, 1, 1], [ints([rng.getrandbits(32) for _ in range(50)], "<I")])

# ------------------------------------------------------------------ resolving

def entries(text):
    return re.findall(r"\.entry\s+([\w$]+)\s*\(", text)


def resolve(r):
    text = open(os.path.join(ROOT, r["file"])).read()
    names = [e for e in entries(text) if e.startswith(r["entry"])]
    # The first entry with the prefix (instantiations that differ only in
    # later template arguments share it).
    if not names:
        raise SystemExit(f"{r['name']}: no entry starts with {r['entry']}")
    # The arguments must match the parameters: a buffer is an 8-byte address.
    body = text[text.index(".entry " + names[0] + "("):]
    params = re.findall(r"\.param\s+(?:\.align\s+\d+\s+)?\.([a-z]+)(\d+)\s+(?:\.ptr[^,)]*?\s+)?[\w$]+(?:\[(\d+)\])?",
                        body[:body.index(")")])
    sizes = [int(bits) // 8 * int(count or 1) for _, bits, count in params]
    given = [8 if kind == "buf" else len(data) for kind, data in map(arg_bytes, r["args"])]
    if sizes != given:
        raise SystemExit(f"{r['name']}: parameters take {sizes} bytes, arguments give {given}")
    return dict(r, entry=names[0])


def arg_bytes(spec):
    """("buf", bytes) or ("scalar", bytes) for a --arg spec."""
    kind, rest = spec.split(":", 1)
    if kind == "zeros":
        return "buf", bytes(int(rest))
    if kind == "buf":
        t, values = rest.split(":", 1)
        assert t == "hex"
        return "buf", bytes.fromhex(values)
    if kind == "raw":
        return "scalar", bytes.fromhex(rest)
    width = {"u8": 1, "s8": 1, "u16": 2, "s16": 2, "u32": 4, "s32": 4, "f32": 4, "u64": 8, "s64": 8,
             "f64": 8, "b32": 4, "b64": 8}[kind]
    value = int(rest, 16) if rest.startswith("0x") else int(rest)
    return "scalar", (value % (1 << (8 * width))).to_bytes(width, "little")


# ------------------------------------------------------------------ launching

def launch_once(r):
    """Loads and launches through libcuda itself (ctypes); CuPy only holds the memory."""
    import ctypes
    import numpy
    import cupy as cp
    cp.cuda.runtime.deviceSynchronize()  # makes the primary context current
    cuda = ctypes.CDLL("libcuda.so.1")

    def check(code, what):
        if code != 0:
            name = ctypes.c_char_p()
            cuda.cuGetErrorName(code, ctypes.byref(name))
            raise RuntimeError(f"{what}: {name.value.decode() if name.value else code}")

    path = os.path.join(ROOT, r["file"])
    image = open(path, "rb").read() + b"\0"
    module = ctypes.c_void_p()
    check(cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(image)), "cuModuleLoadData")
    fn = ctypes.c_void_p()
    check(cuda.cuModuleGetFunction(ctypes.byref(fn), module, r["entry"].encode()), "cuModuleGetFunction")
    if r["smem"]:
        # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        check(cuda.cuFuncSetAttribute(fn, 8, ctypes.c_int(r["smem"])), "cuFuncSetAttribute")
    parsed = [arg_bytes(a) for a in r["args"]]
    keep = []
    pointers = []
    dev = []
    for kind, data in parsed:
        if kind == "buf":
            d = cp.asarray(numpy.frombuffer(data or bytes(1), dtype=numpy.uint8).copy())
            dev.append(d)
            cell = ctypes.c_uint64(d.data.ptr)
        else:
            dev.append(None)
            cell = ctypes.create_string_buffer(data, len(data))
        keep.append(cell)
        pointers.append(ctypes.cast(ctypes.pointer(cell), ctypes.c_void_p).value)
    params = (ctypes.c_void_p * max(1, len(pointers)))(*pointers)
    cp.cuda.runtime.deviceSynchronize()
    u = ctypes.c_uint
    check(cuda.cuLaunchKernel(fn, *[u(v) for v in r["grid"]], *[u(v) for v in r["block"]],
                              u(r["smem"]), None, params, None), "cuLaunchKernel")
    check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
    out = [(i, bytes(cp.asnumpy(d).tobytes()[:len(parsed[i][1])]))
           for i, d in enumerate(dev) if d is not None]
    check(cuda.cuModuleUnload(module), "cuModuleUnload")
    return out


def child(index):
    r = resolve(RUNS[index])
    first = launch_once(r)
    second = launch_once(r)
    volatile = []
    for (arg, a), (_, b) in zip(first, second):
        start = None
        for k in range(len(a) + 1):
            differs = k < len(a) and a[k] != b[k]
            if differs and start is None:
                start = k
            if not differs and start is not None:
                volatile.append([arg, start, k])
                start = None
    out = dict(r, buffers=[{"arg": arg, "hex": a.hex()} for arg, a in first], volatile=volatile)
    print(json.dumps(out))


def main():
    if sys.argv[1:2] == ["--list"]:
        for r in RUNS:
            r = resolve(r)
            print(json.dumps({k: v for k, v in r.items() if k != "args"}))
        print(len(RUNS), "runs", file=sys.stderr)
    elif sys.argv[1:2] == ["--child"]:
        child(int(sys.argv[2]))
    elif sys.argv[1:2] == ["--run"]:
        # An optional third argument: the first run to launch (for runs added later).
        first = int(sys.argv[3]) if len(sys.argv) > 3 else 0
        lines = []
        for index, r in enumerate(RUNS):
            if index < first:
                continue
            # One process per run: a faulting kernel ends its CUDA context.
            p = subprocess.run([sys.executable, __file__, "--child", str(index)], capture_output=True,
                               text=True, timeout=120)
            if p.returncode == 0 and p.stdout.strip():
                lines.append(p.stdout.strip().splitlines()[-1])
                print("ok", r["name"], flush=True)
            else:
                err = (p.stderr.strip().splitlines() or ["no output"])[-1][:500]
                lines.append(json.dumps({"name": r["name"], "error": err}))
                print("FAIL", r["name"], err, flush=True)
        with open(sys.argv[2], "w") as f:
            f.write("\n".join(lines) + "\n")
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
