#!/usr/bin/env python3
"""Whole Triton 3.9 dumps for today's targets, compiled on the CPU, for `layout explain`:

* Blackwell (cuda:100): the tutorial matmul and flash attention, whose tl.dot lowers to tcgen05
  MMAs into tensor memory (ttng.tmem_alloc / tmem_store / tc_gen5_mma / tmem_load);
* Hopper (cuda:90): tutorial 09's persistent TMA matmul, and flash attention at 8 warps (wgmma);
* AMD: the matmul and flash attention for gfx942 (MI300) and gfx950 (MI350), 64-lane MFMA, and
  the matmul for gfx1250, 32-lane WMMA.

Writes fixtures/ttgir/targets/*.ttgir with locations, as Triton dumps them, and
fixtures/ttgir/targets/expected.json: per dump, its target, the layout-moving and tensor-memory
ops found by this script's own regular expression (layout-cli/tests/explain_targets.rs checks
that `layout explain` names each), for NVIDIA targets the tcgen05.ld/st instructions of
Triton's own PTX (explain's messages must be the same), and for AMD targets the LDS loads and
stores of Triton's own AMDGCN, per mnemonic (LLVM's paired `ds_read2st64_b64` counted as two
`ds_read_b64`; explain's accesses must add up to the same).
Usage: python3 scripts/triton_target_ttgir.py (needs `pip install triton==3.9.0`)."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402

from triton_tma_matmul import matmul_kernel_descriptor_persistent  # noqa: E402
from triton_tutorial_ttgir import attn_fwd_kernel, matmul_kernel  # noqa: E402

os.environ["TRITON_ALWAYS_COMPILE"] = "1"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "ttgir", "targets")

MATMUL = ({k: "*fp16" for k in ["a_ptr", "b_ptr", "c_ptr"]}
          | {k: "i32" for k in ["M", "N", "K", "sam", "sbk", "scm"]}
          | {k: "constexpr" for k in ["sak", "sbn", "scn", "BM", "BN", "BK"]},
          {"BM": 128, "BN": 128, "BK": 64, "sak": 1, "sbn": 1, "scn": 1},
          ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "sam", "sbk", "scm"])
ATTENTION = ({k: "*fp16" for k in ["Q", "K", "V", "Out"]} | {"sm_scale": "fp32", "stride_m": "i32", "N_CTX": "i32"}
             | {k: "constexpr" for k in ["BLOCK_M", "BLOCK_N", "HEAD_DIM"]},
             {"BLOCK_M": 128, "BLOCK_N": 64, "HEAD_DIM": 64}, ["Q", "K", "V", "Out", "stride_m", "N_CTX"])


OP = re.compile(r"^\s*(?:(%[\w#:]+)(?:, %[\w#:]+)* = )?"
                r"((?:ttg\.(?:convert_layout|local_alloc|local_store|local_load))|"
                r"(?:ttng\.(?:tmem_alloc|tmem_store|tmem_load|tc_gen5_mma)))\b")
EXPECTED = {}


def dump(fn, spec, name, target, warps, stages=3):
    sig, consts, div16 = spec
    attrs = {(fn.arg_names.index(a),): [["tt.divisibility", 16]] for a in div16}
    src = triton.compiler.ASTSource(fn=fn, signature=sig, constexprs=consts, attrs=attrs)
    k = triton.compile(src, target=target, options={"num_warps": warps, "num_stages": stages})
    ttgir = k.asm["ttgir"]
    with open(os.path.join(OUT, name + ".ttgir"), "w") as f:
        f.write(ttgir)
    ops = []
    for i, line in enumerate(ttgir.splitlines()):
        m = OP.match(line)
        if m:
            ops.append({"op": m.group(2), "result": m.group(1), "line": i + 1})
    ptx = k.asm.get("ptx", "") if target.backend == "cuda" else ""
    EXPECTED[name] = {"target": re.search(r'ttg\.target = "([^"]+)"', ttgir).group(1), "ops": ops,
                      "tcgen05": sorted(set(re.findall(r"tcgen05\.(?:ld|st)\.sync\.aligned\.[\w.]+", ptx)))}
    if target.backend == "hip":
        EXPECTED[name]["lds"] = lds_accesses(k.asm["amdgcn"])


# LDS accesses that are no loads or stores of a layout (shuffles through LDS, atomics).
NOT_ACCESSES = re.compile(r"ds_(?:bpermute|permute|swizzle|add|max|min|append|consume)")


def lds_accesses(amdgcn):
    """Every LDS load and store of the kernel by mnemonic, a paired one as its two halves."""
    counts = {}
    for line in amdgcn.splitlines():
        m = re.match(r"\s+(ds_\w+)", line)
        if not m or NOT_ACCESSES.match(m.group(1)):
            continue
        op, n = m.group(1), 1
        pair = re.match(r"ds_(read|write|load|store)2(?:st64)?_(b\d+)$", op)
        if pair:
            op, n = "ds_%s_%s" % pair.groups(), 2
        counts[op] = counts.get(op, 0) + n
    return counts


def persistent_tma():
    names = matmul_kernel_descriptor_persistent.arg_names
    sig = {n: ("i32" if n in ("M", "N", "K") else "*fp16") for n in names[:6]} | {n: "constexpr" for n in names[6:]}
    consts = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8,
              "EPILOGUE_SUBTILE": False, "NUM_SMS": 132, "WARP_SPECIALIZE": False, "FLATTEN": True}
    return sig, consts, names[:6]


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    B, H = GPUTarget("cuda", 100, 32), GPUTarget("cuda", 90, 32)
    dump(matmul_kernel, MATMUL, "sm100_matmul", B, 4)
    dump(attn_fwd_kernel, ATTENTION, "sm100_attention", B, 4)
    dump(matmul_kernel_descriptor_persistent, persistent_tma(), "sm90_persistent_tma_matmul", H, 8)
    dump(attn_fwd_kernel, ATTENTION, "sm90_attention_8warps", H, 8)
    for arch in ["gfx942", "gfx950"]:
        dump(matmul_kernel, MATMUL, arch + "_matmul", GPUTarget("hip", arch, 64), 4, 2)
        dump(attn_fwd_kernel, ATTENTION, arch + "_attention", GPUTarget("hip", arch, 64), 4, 2)
    dump(matmul_kernel, MATMUL, "gfx1250_matmul", GPUTarget("hip", "gfx1250", 32), 4, 2)
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(EXPECTED, f, indent=1, sort_keys=True)
        f.write("\n")
