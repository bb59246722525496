"""Our flash attention forward's SASS next to Triton 3.9's for the same tile, on the CPU.

Triton side: tutorial 06's forward loop (scripts/triton_attention.py: one program per 64 query
rows of a head, keys and values 32 at a time, causal as an unmasked and a masked stage), head dim 64, 4 warps,
`num_stages` 1 (ours has no software pipeline yet), compiled with `triton.compile` for sm_80 so
that both use `mma.sync` (for sm_90 Triton would use wgmma). Ours: `attention_f16` of
target/ptx/kernels.ptx (`cargo xtask ptx`). Both go through ptxas for sm_90a (`-v
--regAllocOptLevel=2`) and `cuobjdump -sass` (scripts/gemm_sass.py's helpers); the counts are of
the key loop's body (the backward branch with the most HMMA).

With `--hopper`: ours is `attention_hopper_f16` (128 query rows per CTA of 8 warps, 64 keys a
step, wgmma) and Triton's loop is compiled for sm_90 at the same tile, 8 warps, 3 stages (its
own choice on an H100: wgmma, its pipeliner's cp.async stages).

With `--d128`: head dimension 128 on both sides (`attention_d128_f16`, or
`attention_hopper_d128_f16`).

Usage: python3 scripts/attention_sass.py [--ptx target/ptx/kernels.ptx] [--causal] [--hopper] [--d128]
"""
import argparse
import os
import sys

os.environ["TRITON_ALWAYS_COMPILE"] = "1"
import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gemm_sass import count, main_loop, ptxas, sass  # noqa: E402
from triton_attention import attn_fwd  # noqa: E402

BLOCK_M, BLOCK_N, HEAD_DIM = 64, 32, 64
COLS = ["HMMA", "LDSM", "LDGSTS", "STS", "LDS", "LDG", "BAR", "MUFU", "SHFL", "instrs"]
HOPPER_COLS = ["HGMMA", "WG", "LDGSTS", "TMA", "SYNCS", "DEPBAR", "BAR", "FENCE", "MUFU", "SHFL",
               "instrs"]


def compile_triton(causal, hopper=False, head_dim=HEAD_DIM):
    names = attn_fwd.arg_names
    sig = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "O": "*fp16", "seq": "i32", "qk_scale": "fp32",
           "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "HEAD_DIM": "constexpr", "CAUSAL": "constexpr"}
    bm, bn, cc, warps, stages = (128, 64, 90, 8, 3) if hopper else (BLOCK_M, BLOCK_N, 80, 4, 1)
    consts = {"BLOCK_M": bm, "BLOCK_N": bn, "HEAD_DIM": head_dim, "CAUSAL": causal}
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n in ("Q", "K", "V", "O", "seq")}
    src = triton.compiler.ASTSource(fn=attn_fwd, signature=sig, constexprs=consts, attrs=attrs)
    k = triton.compile(src, target=GPUTarget("cuda", cc, 32),
                       options={"num_warps": warps, "num_stages": stages})
    return k.asm["ptx"], k.metadata.name


def rows(name, ptx, entry, want=("HMMA",)):
    """One row per path through the key loop's body (a run-time branch, such as our `causal`
    flag's mask, which LLVM may also unswitch into two loops, gives several)."""
    cubin, res = ptxas(ptx, "sm_90a", entry)
    # `reachable`: the out-of-line retry stubs of mbarrier waits (after EXIT) jump back, and
    # are no loop.
    body, paths = main_loop(sass(cubin, entry), want=want, reachable=True)
    out = []
    for k, path in enumerate(paths):
        c = count(path)
        ops = c["opcodes"]
        base = lambda p: sum(n for op, n in ops.items() if op.split(".")[0] == p)  # noqa: E731
        c.update({"MUFU": base("MUFU"), "SHFL": base("SHFL")})
        label = f"{name} [path {k + 1}/{len(paths)}]" if len(paths) > 1 else name
        out.append({"kernel": label, "regs": res["regs"], "spill": res["spill_st"] + res["spill_ld"]} | c)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptx", default="target/ptx/kernels.ptx")
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--hopper", action="store_true")
    ap.add_argument("--d128", action="store_true", help="head dimension 128 (both sides)")
    args = ap.parse_args()
    tptx, tentry = compile_triton(args.causal, args.hopper, 128 if args.d128 else HEAD_DIM)
    ours, want = ("attention_hopper_f16", ("HGMMA",)) if args.hopper else ("attention_f16", ("HMMA",))
    if args.d128:
        ours = ours.replace("attention_", "attention_d128_", 1).replace("d128_hopper", "hopper_d128")
    table = rows(f"ours {ours}", open(args.ptx).read(), ours, want)
    table += rows(f"Triton 3.9 ({'causal' if args.causal else 'not causal'})", tptx, tentry, want)
    cols = ["kernel", "regs", "spill", *(HOPPER_COLS if args.hopper else COLS)]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in table:
        print("| " + " | ".join(str(r[c]) for c in cols) + " |")


if __name__ == "__main__":
    main()
