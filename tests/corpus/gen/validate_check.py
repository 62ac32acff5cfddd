"""Compares `ptx-lsp check` with ptxas on a folder of real-world PTX (the output of
validate_more.sh and the Triton kernels of inductor_kernels.py): ptxas's verdict per file
against the checker's errors, and `ptx-lsp parse --stats` for syntax errors.
usage: PTXAS=... python3 validate_check.py PTX_LSP_BINARY FOLDER"""
import glob
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ptxas = os.environ["PTXAS"]
lsp, root = sys.argv[1], sys.argv[2]
files = sorted(glob.glob(os.path.join(root, "**", "*.ptx"), recursive=True))


def arch_of(text):
    m = re.search(r"^\s*\.target\s+(sm_\w+)", text, re.M)
    target = m.group(1) if m else "sm_90"
    # ptxas 13.5 takes `.target sm_101a` only as sm_110a.
    return {"sm_101a": "sm_110a"}.get(target, target)


def one(path):
    text = open(path, errors="replace").read()
    p = subprocess.run([ptxas, f"-arch={arch_of(text)}", path, "-o", "/dev/null"],
                       capture_output=True, text=True)
    c = subprocess.run([lsp, "check", "--format", "json", path], capture_output=True, text=True)
    errors = [d for d in json.loads(c.stdout or "[]") if d["severity"] == "error"]
    s = subprocess.run([lsp, "parse", "--stats", path], capture_output=True, text=True)
    return path, p.returncode == 0, p.stderr.strip()[:200], errors, s.returncode


with ThreadPoolExecutor(2) as pool:
    results = list(pool.map(one, files))
false_errors = missed = agree = parse_errors = 0
for path, accepted, ptxas_error, errors, parse_rc in results:
    if parse_rc != 0:
        parse_errors += 1
        print("syntax errors:", path)
    if accepted and errors:
        false_errors += 1
        e = errors[0]
        print(f"false error: {path}:{e['line']}: {e['code']} {e['message'][:150]}")
    elif not accepted and not errors:
        missed += 1
        print(f"missed: {path}: {ptxas_error}")
    else:
        agree += 1
print(f"files {len(results)}, agree {agree}, false-error files {false_errors}, "
      f"missed {missed}, with syntax errors {parse_errors}")
sys.exit(1 if false_errors or missed or parse_errors else 0)
