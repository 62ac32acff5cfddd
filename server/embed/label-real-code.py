#!/usr/bin/env python3
"""nvcc's verdict on every kernel that `asm_labels emit DIR` wrote (server/embed/REAL_WORLD.md).

Each `DIR/<target>-<k>.cu` is compiled with `nvcc -arch=<target> -cubin`; where a file fails,
its kernels are split in halves (`-DSEL_LO=a -DSEL_HI=b` selects a range) until every failing
kernel is found alone. Writes `OUT` (tab-separated: kernel, `accepted`/`rejected`, nvcc's first
error line) and joins it with `DIR/manifest.tsv` into `LABELS` (the labels file that
`asm_labels compare` reads).

usage: label-real-code.py DIR OUT LABELS [JOBS]   (nvcc from the PATH or /usr/local/cuda/bin;
LABEL_SECONDS=N stops compiling after N seconds)
"""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import time

# Kernels not labelled by then (a run limited in time) are written as `unknown`.
DEADLINE = time.time() + float(os.environ.get("LABEL_SECONDS", "1e9"))

nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"


def compile_range(path, target, lo, hi):
    """(ok, first error line) for kernels lo..hi of path."""
    r = subprocess.run(
        [nvcc, f"-arch={target}", "-cubin", "-o", os.devnull, f"-DSEL_LO={lo}", f"-DSEL_HI={hi}", path],
        capture_output=True,
        text=True,
    )
    if r.returncode == 0:
        return True, ""
    lines = (r.stderr + r.stdout).splitlines()
    first = next((l for l in lines if "error" in l.lower()), lines[0] if lines else "failed")
    first = re.sub(r"^\S*\.cu\(\d+\): ", "", first)
    first = re.sub(r"ptxas /tmp/\S+, line \d+; ", "ptxas: ", first)
    return False, first.strip()[:200]


def label_file(path):
    name = os.path.basename(path)
    target = name.rsplit("-", 1)[0]
    count = sum(1 for l in open(path) if l.startswith("#if SEL_LO"))
    verdicts = {}

    def walk(lo, hi):
        if time.time() > DEADLINE:
            for i in range(lo, hi):
                verdicts[i] = ("unknown", "not compiled in the time given")
            return
        ok, message = compile_range(path, target, lo, hi)
        if ok:
            for i in range(lo, hi):
                verdicts[i] = ("accepted", "")
        elif hi - lo == 1:
            verdicts[lo] = ("rejected", message)
        else:
            mid = (lo + hi) // 2
            walk(lo, mid)
            walk(mid, hi)

    walk(0, count)
    return name, verdicts


def main():
    folder, out, labels = sys.argv[1], sys.argv[2], sys.argv[3]
    jobs = int(sys.argv[4]) if len(sys.argv) > 4 else os.cpu_count()
    files = sorted(f for f in os.listdir(folder) if f.endswith(".cu"))
    results = {}
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for name, verdicts in pool.map(lambda f: label_file(os.path.join(folder, f)), files):
            results[name] = verdicts
    with open(out, "w") as o, open(labels, "w") as l:
        for line in open(os.path.join(folder, "manifest.tsv")):
            kernel, repo, file, lineno, target, place, digest, notes = line.rstrip("\n").split("\t")
            if kernel == "-":
                l.write(f"{repo}\t{file}\t{lineno}\t-\tunlabelled\t{digest}\t{notes}\n")
                continue
            name, index = place.rsplit(":", 1)
            verdict, message = results[name][int(index)]
            o.write(f"{kernel}\t{verdict}\t{message}\n")
            l.write(f"{repo}\t{file}\t{lineno}\t{target}\t{verdict}\t{digest}\t{notes}\t{message}\n")


main()
