#!/usr/bin/env python3
"""Kernels of other projects (PTX emulators' and simulators' test suites) run on a
GPU and in the interpreter, buffer for buffer.

None of these kernels is part of this repository: point `--collect` at checkouts
of the projects. It gathers every module (`.ptx` files, and PTX held in
triple-quoted Python strings), retargets `.target sm_1xx` to `sm_90` (the text is
otherwise unchanged), keeps those ptxas accepts for sm_90 with a 64-bit address
size and no texture or surface instructions, and lists four launches per entry:
every pointer parameter a 32 KiB buffer filled from a seed, once with f32
values in [-1, 1) and once with 32-bit integers in [0, 32) (indices stay in
bounds); 32-bit integer parameters 32, float parameters 0.5, structs zero; two
CTAs of 128 threads, and the same with one CTA; 16 KiB of dynamic shared memory when the kernel declares
an `.extern .shared` array.

    PTXAS=ptxas python3 tests/interp/external_kernels.py --collect OUTDIR SRCDIR...
    python3 tests/interp/external_kernels.py --run OUTDIR           # on a GPU: OUTDIR/gpu.jsonl
    python3 tests/interp/external_kernels.py --compare OUTDIR PTX_LSP [NAME_PREFIX]

`--run` launches each through the CUDA driver (ctypes) on the exact parameter
bytes `ptx-lsp run` receives, twice, from a freshly loaded module each time, and records every buffer (bytes that
differ between the two launches are volatile: not compared). A launch that
faults or runs past 20 seconds is recorded as an error. `--compare` runs
`ptx-lsp run --format json` kernel mode on the same arguments and compares
every buffer bit for bit; it prints one line per launch and the totals.
"""

import hashlib
import json
import os
import random
import re
import select
import struct
import subprocess
import sys
import time

BUF = 32 * 1024
SMEM = 16 * 1024
GRID = [2, 1, 1]
BLOCK = [128, 1, 1]

PY_STRING = re.compile(r'(?<![fF])("""|\'\'\')(.*?)\1', re.S)
PARAM = re.compile(
    r"\.param\s+(?:\.align\s+\d+\s+)?\.([a-z]+)(\d+)\s+(?:\.ptr[^,)]*?\s+)?([\w$%]+)(?:\s*\[(\d+)\])?")


def modules_in(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    if path.endswith(".ptx"):
        return [text]
    if path.endswith(".py"):
        return [m.group(2) for m in PY_STRING.finditer(text) if ".entry" in m.group(2)]
    return []


def retarget(text):
    def sub(m):
        return ".target sm_90" if int(m.group(1)) > 90 else m.group(0)
    return re.sub(r"\.target\s+sm_(\d+)[af]?\b", sub, text, count=1)


def entries(text):
    """(name, parameter list text, body text) of every `.entry`."""
    out = []
    for m in re.finditer(r"\.entry\s+([\w$]+)\s*(\(([^)]*)\))?", text):
        end = text.find(".entry", m.end())
        out.append((m.group(1), m.group(3) or "", text[m.end():end if end >= 0 else len(text)]))
    return out


def args_for(params, seed, fill):
    args = []
    for i, (kind, bits, _name, count) in enumerate(params):
        size = int(bits) // 8 * int(count or 1)
        if count:
            args.append({"raw": "00" * size})
        elif kind in ("u", "s", "b") and size == 8:
            args.append({"buf": BUF, "seed": seed * 16 + i, "fill": fill})
        elif kind == "f":
            args.append({"f": 0.5, "size": size})
        else:
            args.append({"int": 32 if size >= 4 else 1, "size": size})
    return args


def collect(outdir, sources):
    ptxas = os.environ.get("PTXAS", "ptxas")
    os.makedirs(os.path.join(outdir, "modules"), exist_ok=True)
    seen = {}
    runs = []
    skipped = []
    for src in sources:
        for dirpath, _dirs, files in sorted(os.walk(src)):
            for f in sorted(files):
                path = os.path.join(dirpath, f)
                for text in modules_in(path):
                    rel = os.path.relpath(path, os.path.dirname(os.path.abspath(src)))
                    text = retarget(text)
                    key = hashlib.sha1(text.encode()).hexdigest()[:12]
                    if key in seen:
                        continue
                    seen[key] = rel
                    if re.search(r"\.address_size\s+32", text):
                        skipped.append((rel, "32-bit addresses"))
                        continue
                    mod = os.path.join(outdir, "modules", key + ".ptx")
                    open(mod, "w").write(text)
                    p = subprocess.run([ptxas, "-arch=sm_90", mod, "-o", "/dev/null"],
                                       capture_output=True, text=True)
                    if p.returncode != 0:
                        os.remove(mod)
                        skipped.append((rel, "ptxas: " + p.stderr.strip().splitlines()[-1][:120]))
                        continue
                    for name, plist, body in entries(text):
                        if re.search(r"\b(tex|tld4|suld|sust|sured|txq|suq)\.", body):
                            skipped.append((rel + ":" + name, "texture or surface"))
                            continue
                        params = PARAM.findall(plist)
                        smem = SMEM if re.search(r"\.extern\s+\.shared", text) else 0
                        for fill in ("f", "i"):
                            seed = len(runs)
                            runs.append({"name": f"{rel}:{name}:{fill}", "file": key + ".ptx",
                                         "entry": name, "grid": GRID, "block": BLOCK, "smem": smem,
                                         "args": args_for(params, seed, fill)})
    # The same launches with one CTA: what differs only with two CTAs comes
    # from CTAs that write the same bytes (kernels indexing by %tid alone).
    runs += [dict(r, name=r["name"] + ":g1", grid=[1, 1, 1]) for r in list(runs)]
    with open(os.path.join(outdir, "runs.jsonl"), "w") as f:
        for r in runs:
            f.write(json.dumps(r) + "\n")
    with open(os.path.join(outdir, "skipped.txt"), "w") as f:
        for rel, why in skipped:
            f.write(f"{rel}: {why}\n")
    print(f"{len(seen)} modules, {len(runs)} launches, {len(skipped)} skipped", file=sys.stderr)


def buffer_bytes(a):
    rng = random.Random(a["seed"])
    n = a["buf"] // 4
    if a["fill"] == "f":
        words = [struct.pack("<f", (rng.getrandbits(24) - (1 << 23)) / (1 << 23)) for _ in range(n)]
    else:
        words = [struct.pack("<I", rng.getrandbits(5)) for _ in range(n)]
    return b"".join(words)


def scalar_bytes(a):
    if "raw" in a:
        return bytes.fromhex(a["raw"])
    if "f" in a:
        return struct.pack("<f" if a["size"] == 4 else "<d", a["f"]) if a["size"] >= 4 else b"\0" * a["size"]
    return a["int"].to_bytes(a["size"], "little")


def cli_spec(a):
    if "buf" in a:
        return "buf:hex:" + buffer_bytes(a).hex()
    if "raw" in a:
        return "raw:" + a["raw"]
    data = scalar_bytes(a)
    if "f" in a and a["size"] in (4, 8):
        return ("f32" if a["size"] == 4 else "f64") + ":0x" + data[::-1].hex()
    return {1: "u8", 2: "u16", 4: "u32", 8: "u64"}[a["size"]] + ":" + str(int.from_bytes(data, "little"))


def changes(before, after):
    """The bytes a launch changed: [[offset, hex], ...] (runs closer than 8 bytes joined)."""
    out = []
    k = 0
    while k < len(after):
        if after[k] == before[k]:
            k += 1
            continue
        end = k + 1
        while end < len(after) and (after[end] != before[end] or
                                    any(after[j] != before[j] for j in range(end, min(end + 8, len(after))))):
            end += 1
        out.append([k, after[k:end].hex()])
        k = end
    return out


def apply(before, changed):
    data = bytearray(before)
    for offset, text in changed:
        chunk = bytes.fromhex(text)
        data[offset:offset + len(chunk)] = chunk
    return bytes(data)


# ------------------------------------------------------------------ the GPU side

def worker(outdir, start, end):
    import ctypes
    cuda = ctypes.CDLL("libcuda.so.1")

    def check(code, what):
        if code != 0:
            name = ctypes.c_char_p()
            cuda.cuGetErrorName(code, ctypes.byref(name))
            raise RuntimeError(f"{what}: {name.value.decode() if name.value else code}")

    check(cuda.cuInit(0), "cuInit")
    dev = ctypes.c_int()
    check(cuda.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    ctx = ctypes.c_void_p()
    check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    check(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    runs = [json.loads(l) for l in open(os.path.join(outdir, "runs.jsonl"))]
    u = ctypes.c_uint

    def load(r):
        # A fresh module for every launch: module variables (a block counter)
        # start from their initializers, as in the interpreter.
        image = open(os.path.join(outdir, "modules", r["file"]), "rb").read() + b"\0"
        module = ctypes.c_void_p()
        check(cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(image)), "cuModuleLoadData")
        fn = ctypes.c_void_p()
        check(cuda.cuModuleGetFunction(ctypes.byref(fn), module, r["entry"].encode()),
              "cuModuleGetFunction")
        if r["smem"]:
            check(cuda.cuFuncSetAttribute(fn, 8, ctypes.c_int(r["smem"])), "cuFuncSetAttribute")
        return module, fn

    def launch(r, fn):
        keep, pointers, bufs = [], [], []
        for i, a in enumerate(r["args"]):
            if "buf" in a:
                data = buffer_bytes(a)
                ptr = ctypes.c_uint64()
                check(cuda.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(len(data))), "cuMemAlloc")
                check(cuda.cuMemcpyHtoD_v2(ptr, data, ctypes.c_size_t(len(data))), "cuMemcpyHtoD")
                bufs.append((i, ptr, len(data)))
                cell = ctypes.c_uint64(ptr.value)
            else:
                data = scalar_bytes(a)
                cell = ctypes.create_string_buffer(data, len(data))
            keep.append(cell)
            pointers.append(ctypes.cast(ctypes.pointer(cell), ctypes.c_void_p).value)
        params = (ctypes.c_void_p * max(1, len(pointers)))(*pointers)
        check(cuda.cuLaunchKernel(fn, *[u(v) for v in r["grid"]], *[u(v) for v in r["block"]],
                                  u(r["smem"]), None, params, None), "cuLaunchKernel")
        check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
        out = []
        for i, ptr, n in bufs:
            host = ctypes.create_string_buffer(n)
            check(cuda.cuMemcpyDtoH_v2(host, ptr, ctypes.c_size_t(n)), "cuMemcpyDtoH")
            check(cuda.cuMemFree_v2(ptr), "cuMemFree")
            out.append((i, host.raw))
        return out

    for index in range(start, end):
        r = runs[index]
        try:
            results = []
            for _ in range(2):
                module, fn = load(r)
                results.append(launch(r, fn))
                check(cuda.cuModuleUnload(module), "cuModuleUnload")
            first, second = results
        except RuntimeError as e:
            print(json.dumps({"index": index, "name": r["name"], "error": str(e)}), flush=True)
            # A fault ends the context: the parent starts a new worker after this run.
            sys.exit(3)
        volatile = []
        for (arg, a), (_, b) in zip(first, second):
            start_v = None
            for k in range(len(a) + 1):
                differs = k < len(a) and a[k] != b[k]
                if differs and start_v is None:
                    start_v = k
                if not differs and start_v is not None:
                    volatile.append([arg, start_v, k])
                    start_v = None
        print(json.dumps({"index": index, "name": r["name"],
                          "buffers": [{"arg": i, "changes": changes(buffer_bytes(r["args"][i]), a)}
                                      for i, a in first],
                          "volatile": volatile}), flush=True)


def run_range(outdir, names, first, end, lines, deadline):
    index = first
    while index < end and time.time() < deadline:
        p = subprocess.Popen([sys.executable, __file__, "--worker", outdir, str(index), str(end)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        last = time.time()
        while True:
            ready, _, _ = select.select([p.stdout], [], [], 1.0)
            if ready:
                line = p.stdout.readline()
                if not line:
                    break
                rec = json.loads(line)
                lines.append(line)
                index = rec["index"] + 1
                last = time.time()
                if "error" in rec:
                    print("FAIL", rec["name"], rec["error"], flush=True)
            elif time.time() > deadline:
                p.kill()
                break
            elif time.time() - last > 20:
                p.kill()
                lines.append(json.dumps({"index": index, "name": names[index], "error": "timeout"}) + "\n")
                print("TIMEOUT", names[index], flush=True)
                index += 1
                break
        p.wait()
        if p.returncode not in (0, 3, -9) and index < end:
            err = p.stderr.read().strip().splitlines()
            lines.append(json.dumps({"index": index, "name": names[index],
                                     "error": "worker: " + (err[-1] if err else str(p.returncode))}) + "\n")
            index += 1


def run_all(outdir, shards=6):
    """Launches every run, in `shards` contiguous ranges side by side, until
    EXTERNAL_DEADLINE seconds (default 3600) have passed."""
    deadline = time.time() + float(os.environ.get("EXTERNAL_DEADLINE", "3600"))
    import threading
    names = [json.loads(l)["name"] for l in open(os.path.join(outdir, "runs.jsonl"))]
    lines = []
    bounds = [len(names) * k // shards for k in range(shards + 1)]
    threads = [threading.Thread(target=run_range, args=(outdir, names, bounds[k], bounds[k + 1], lines, deadline))
               for k in range(shards)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines.sort(key=lambda l: json.loads(l)["index"])
    with open(os.path.join(outdir, "gpu.jsonl"), "w") as out:
        out.writelines(lines)


# ------------------------------------------------------------------ comparing

def compare_one(outdir, ptx_lsp, r, g):
    if "error" in g:
        return "gpu-error", g["error"]
    cmd = [ptx_lsp, "run", os.path.join(outdir, "modules", r["file"]), "--format", "json",
           "--entry", r["entry"], "--grid", ",".join(map(str, r["grid"])),
           "--block", ",".join(map(str, r["block"])), "--max-steps", "20000000"]
    if r["smem"]:
        cmd += ["--dynamic-smem", str(r["smem"])]
    for a in r["args"]:
        cmd += ["--arg", cli_spec(a)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "interp-error", "timeout"
    if p.returncode != 0:
        return "interp-error", p.stderr.strip()[:300]
    mine = {b["arg"]: bytes.fromhex(b["hex"]) for b in json.loads(p.stdout)["buffers"]}
    diffs = []
    for b in g["buffers"]:
        want = apply(buffer_bytes(r["args"][b["arg"]]), b["changes"])
        got = mine.get(b["arg"], b"")
        vol = [(s, e) for a, s, e in g["volatile"] if a == b["arg"]]
        bad = [k for k in range(len(want))
               if (k >= len(got) or got[k] != want[k]) and not any(s <= k < e for s, e in vol)]
        if bad:
            w = bad[0] // 4 * 4
            diffs.append(f"arg {b['arg']}: {len(bad)} bytes from {bad[0]}"
                         f" (got {got[w:w + 4][::-1].hex()}, gpu {want[w:w + 4][::-1].hex()})")
    return ("differs", "; ".join(diffs)) if diffs else ("equal", "")


def compare(outdir, ptx_lsp, prefix=""):
    from concurrent.futures import ThreadPoolExecutor
    runs = [json.loads(l) for l in open(os.path.join(outdir, "runs.jsonl"))]
    gpu = {}
    for l in open(os.path.join(outdir, "gpu.jsonl")):
        rec = json.loads(l)
        gpu[rec["index"]] = rec
    # PREFIX, or @FILE: the names listed in FILE, one a line.
    names = set(open(prefix[1:]).read().split()) if prefix.startswith("@") else None
    todo = [(r, gpu[i]) for i, r in enumerate(runs)
            if (r["name"] in names if names is not None else r["name"].startswith(prefix)) and i in gpu]
    tally = {}
    with ThreadPoolExecutor(int(os.environ.get("JOBS", "2"))) as pool:
        for (r, _), (status, detail) in zip(todo, pool.map(lambda t: compare_one(outdir, ptx_lsp, *t), todo)):
            tally[status] = tally.get(status, 0) + 1
            print(status, r["name"], detail, flush=True)
    print(json.dumps(tally))


def main():
    cmd = sys.argv[1:2]
    if cmd == ["--collect"]:
        collect(sys.argv[2], sys.argv[3:])
    elif cmd == ["--run"]:
        run_all(sys.argv[2])
    elif cmd == ["--worker"]:
        worker(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif cmd == ["--compare"]:
        compare(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else "")
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
