#!/usr/bin/env python3
"""Compile time as a kernel author meets it, next to Triton's in the same run.

Copies examples/kernel-template outside the workspace (its path dependencies made absolute;
its kernels: a transpose, SiLU, the guide's row softmax and a row cross-entropy), adds the
kernels in --extra FILE if given, builds it once (dependencies built), then times, median of
--runs:

* edit -> PTX: an edit of the kernel crate, then `cargo build` (build.rs builds the PTX);
* edit -> simulator test: an edit, then `cargo test` (the kernel crate's simulator tests);
* Triton: `triton.compile` of its tutorial softmax (BLOCK = 1024) for sm_90 on the CPU, in a
  fresh process with an empty cache.

    python3 scripts/template_compile_time.py [--runs 3] [--extra kernels.rs] [--no-triton]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TRITON = """
import os, sys, tempfile, time
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
sys.path.insert(0, os.path.join(sys.argv[1], "scripts"))
from triton_rows import softmax_kernel
sig = {"out_ptr": "*fp32", "in_ptr": "*fp32", "in_stride": "i32", "out_stride": "i32",
       "n_rows": "i32", "n_cols": "i32", "BLOCK": "constexpr"}
t = time.perf_counter()
triton.compile(ASTSource(fn=softmax_kernel, signature=sig, constexprs={"BLOCK": 1024}),
               target=GPUTarget("cuda", 90, 32))
print(time.perf_counter() - t)
"""


def template(dst, extra):
    """The template at `dst`, paths absolute, `extra` added."""
    shutil.copytree(os.path.join(ROOT, "examples/kernel-template"), dst)
    for toml, up in (("Cargo.toml", "../.."), ("kernel/Cargo.toml", "../../..")):
        path = os.path.join(dst, toml)
        text = open(path).read()
        text = text.replace(f'path = "{up}/layout-builder"', f'path = "{ROOT}/layout-builder"')
        text = text.replace(f'path = "{up}"', f'path = "{ROOT}"')
        open(path, "w").write(text)
    shutil.copy(os.path.join(ROOT, "Cargo.lock"), dst)
    if extra:
        with open(os.path.join(dst, "kernel/src/lib.rs"), "a") as f:
            f.write(open(extra).read())


def cargo(dst, target, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARGO_")}
    env["CARGO_TARGET_DIR"] = target
    r = subprocess.run(["cargo", *args], cwd=dst, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"cargo {' '.join(args)} failed:\n{r.stdout}\n{r.stderr}")


def timed_edits(dst, target, runs, args):
    """Median seconds of an edit then `cargo <args>`."""
    lib = os.path.join(dst, "kernel/src/lib.rs")
    times = []
    for i in range(runs):
        with open(lib, "a") as f:
            f.write(f"\npub const EDIT_{i}_{time.time_ns()}: u32 = {i};\n")
        t = time.perf_counter()
        cargo(dst, target, *args)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--extra", help="a file of kernels to add to the kernel crate")
    ap.add_argument("--no-triton", action="store_true")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="ll-compile-time-")
    dst = os.path.join(tmp, "template")
    target = os.path.join(ROOT, "target/template-timing")
    template(dst, a.extra)
    t = time.perf_counter()
    cargo(dst, target, "build")
    first = time.perf_counter() - t
    cargo(dst, target, "test", "--no-run")
    ptx = timed_edits(dst, target, a.runs, ["build"])
    test = timed_edits(dst, target, a.runs, ["test", "-q"])
    print(f"| measurement | seconds (median of {a.runs}) |")
    print("|---|---|")
    print(f"| first build (dependencies may have been built already) | {first:.1f} |")
    print(f"| edit -> PTX (`cargo build`) | {ptx:.1f} |")
    print(f"| edit -> simulator test (`cargo test`) | {test:.1f} |")
    if not a.no_triton:
        tri = statistics.median(
            float(subprocess.run([sys.executable, "-c", TRITON, ROOT], capture_output=True,
                                 text=True, check=True).stdout.split()[-1])
            for _ in range(a.runs))
        print(f"| Triton 3.9: `triton.compile` of its tutorial softmax for sm_90 | {tri:.1f} |")
        print(f"| edit -> PTX / Triton | {ptx / tri:.1f}x |")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
