"""Our row kernels' SASS next to Triton 3.9's tutorial kernels for the same rows, on the CPU.

Triton side: scripts/triton_rows.py's softmax (tutorial 02, one program per row) and layer norm
forward (tutorial 05), compiled with `triton.compile` for sm_90 with the tutorials' BLOCK and
warps for the width, specialised as the launcher does (pointers 16-byte aligned; a row stride
and width divisible by 16 marked so, a ragged width such as 1001 not).
Ours: the class entry (`softmax_f32_W_aligned` where the width is a multiple of the 16-byte vector, as
Triton's launcher specialises on divisibility by 16; else `softmax_f32_W`) of target/ptx/kernels.ptx (`cargo xtask ptx`). Both
go through the same ptxas (`-v --regAllocOptLevel=2`, Triton's flags) and `cuobjdump -sass`
(scripts/gemm_sass.py's helpers). Counts are of the whole kernel (neither has a loop for a row
that fits one block; ours also holds the element-by-element path of a masked tail, which a full
row does not run: "LDG/STG" split as vector + scalar). "rows/CTA" is what one CTA covers;
occupancy is resident warps per SM from registers, threads and shared memory (H100: 64K
registers in 256-register warp units, 64 warps, 32 CTAs, 228 KiB shared).

Usage: python3 scripts/rows_sass.py [--ptx target/ptx/kernels.ptx] [--json OUT.json]
"""
import argparse
import json
import os
import sys
from collections import Counter

os.environ["TRITON_ALWAYS_COMPILE"] = "1"
import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gemm_sass import ptxas, sass  # noqa: E402
import triton_rows  # noqa: E402

# (kernel, element, width)
CASES = [("softmax", "f32", 128), ("softmax", "f16", 1001), ("layer_norm", "f16", 1001), ("softmax", "f32", 1024), ("softmax", "f32", 8192),
         ("softmax", "f16", 1024), ("layer_norm", "f16", 1024), ("layer_norm", "f16", 4096),
         ("layer_norm", "f16", 8192), ("layer_norm", "bf16", 1024), ("layer_norm", "bf16", 4096),
         ("softmax", "f16", 8001), ("layer_norm", "f16", 8001)]
TRITON_TYPES = {"f32": "fp32", "f16": "fp16", "bf16": "bf16"}
BYTES = {"f32": 4, "f16": 2, "bf16": 2}
GROUPS = {"LDG": "LDG", "STG": "STG", "SHFL": "SHFL", "BAR": "BAR", "LDS": "LDS", "STS": "STS",
          "MUFU": "MUFU", "FFMA/FMUL/FADD": ("FFMA", "FMUL", "FADD")}


def compile_triton(kind, elem, width):
    """Triton's tutorial kernel for rows of `width`; returns (ptx, entry, threads, smem)."""
    t = TRITON_TYPES[elem]
    if kind == "softmax":
        fn = triton_rows.softmax_kernel
        block, warps = triton_rows.softmax_config(width)
        sig = {"out_ptr": f"*{t}", "in_ptr": f"*{t}", "in_stride": "i32", "out_stride": "i32",
               "n_rows": "i32", "n_cols": "i32", "BLOCK": "constexpr"}
        consts = {"BLOCK": block}
        aligned = ["out_ptr", "in_ptr", "in_stride", "out_stride", "n_cols"]
    else:
        fn = triton_rows.layer_norm_fwd
        block, warps = triton_rows.layer_norm_config(width, BYTES[elem])
        sig = {"X": f"*{t}", "Y": f"*{t}", "W": f"*{t}", "B": f"*{t}", "Mean": "*fp32",
               "Rstd": "*fp32", "stride": "i32", "N": "i32", "eps": "fp32",
               "BLOCK_SIZE": "constexpr"}
        consts = {"BLOCK_SIZE": block}
        aligned = ["X", "Y", "W", "B", "Mean", "Rstd", "stride", "N"]
    names = fn.arg_names
    if width % 16:  # the launcher marks only pointers, and ints divisible by 16
        aligned = [n for n in aligned if sig[n].startswith("*")]
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n in aligned}
    src = triton.compiler.ASTSource(fn=fn, signature=sig, constexprs=consts, attrs=attrs)
    k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})
    return k.asm["ptx"], k.metadata.name, 32 * warps, k.metadata.shared


def counts(instrs):
    hist = Counter(i[1] for i in instrs)
    base = Counter()
    for op, n in hist.items():
        base[op.split(".")[0]] += n
    row = {g: sum(base[o] for o in ((ops,) if isinstance(ops, str) else ops)) for g, ops in GROUPS.items()}
    vec = lambda p: sum(n for op, n in hist.items() if op.startswith(p) and op.endswith(".128"))  # noqa: E731
    row["LDG"] = f"{vec('LDG')}+{row['LDG'] - vec('LDG')}"
    row["STG"] = f"{vec('STG')}+{row['STG'] - vec('STG')}"
    row["instrs"] = len(instrs)
    return row


def occupancy(regs, threads, smem):
    """Resident warps per SM on an H100."""
    warps = threads // 32
    per_warp = -(-max(regs, 1) * 32 // 256) * 256
    by_regs = 65536 // (per_warp * warps)
    by_smem = (228 * 1024) // smem if smem else 32
    return min(by_regs, by_smem, 32, 64 // warps) * warps


def row(name, ptx, entry, threads, smem_dyn, rows_per_cta):
    cubin, res = ptxas(ptx, "sm_90a", entry)
    smem = (smem_dyn or 0) + res["smem"]
    r = {"kernel": name, "threads": threads, "rows/CTA": rows_per_cta, "regs": res["regs"],
         "spill": res["spill_st"] + res["spill_ld"], "smem": smem,
         "warps/SM": occupancy(res["regs"], threads, smem)}
    r.update(counts(sass(cubin, entry)))
    return r


def classes(ptx_path):
    """Our classes' launches (kernels::rows::CLASSES through `gpu-bench --rows`)."""
    import subprocess
    out = subprocess.run(["cargo", "run", "-q", "--release", "-p", "runner", "--bin", "gpu-bench", "--",
                          "--rows"], capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptx", default="target/ptx/kernels.ptx")
    ap.add_argument("--json")
    args = ap.parse_args()
    ours_ptx = open(args.ptx).read()
    ours = classes(args.ptx)
    rows = []
    for kind, elem, width in CASES:
        c = next(c for c in ours if width <= c["width"])
        entry = (c["aligned"] if width % (16 // BYTES[elem]) == 0 else c)[f"{kind}_{elem}"]
        ptx, tentry, tthreads, tsmem = compile_triton(kind, elem, width)
        rows.append(row(f"ours {entry}", ours_ptx, entry, c["threads"], c["shared_bytes"], c["rows_per_cta"]))
        rows.append(row(f"Triton {kind} {elem} {width}", ptx, tentry, tthreads, tsmem, 1))
    cols = ["kernel", "threads", "rows/CTA", "regs", "spill", "smem", "warps/SM", *GROUPS, "instrs"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(str(r[c]) for c in cols) + " |")
    if args.json:
        json.dump(rows, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
