#!/usr/bin/env python3
"""Triton 3.9's cost for each classic conversion pair, read from the PTX it emits.

Input: the pairs exported by `CLASSIC_PAIRS_EXPORT=pairs.jsonl cargo test --test classic_pairs`
(name, element bits, shape, and both layouts' register/lane/warp bases). For each pair this
builds a Gluon kernel that loads a tensor in the source layout (as a DistributedLinearLayout with
the same bases, so Triton plans from exactly our linear layouts), `convert_layout`s it to the
destination and stores it; compiles it for sm_90 (no GPU needed); and counts in the PTX the
shuffles, selects and byte permutes, shared stores and loads (also stmatrix/ldmatrix, and the
distributed `ld/st.shared::cluster` of multi-CTA pairs, compiled with num_ctas) and barriers
(`bar.sync`, `bar.warp.sync`, `barrier.cluster`), plus the kernel's shared memory. Each case runs in a child
process (Triton aborts on some inputs).

A case with an "smem" field (offset bases) is a round trip through that shared layout instead:
registers stored with `allocate_shared_memory(..., value)` (local_alloc + local_store), loaded
back with `.load(DST)` (local_load).

Usage: python3 scripts/triton_convert_costs.py pairs.jsonl > fixtures/triton-3.9.0-convert-costs.jsonl
Needs: pip install triton==3.9.0
"""
import json
import multiprocessing as mp
import re
import sys

DTYPES = {8: "*i8", 16: "*fp16", 32: "*fp32", 64: "*fp64"}
# `st.shared` / `ld.shared` also count the distributed forms (`ld.shared::cluster`).
OPS = ["shfl", "selp", "prmt", "st.shared", "ld.shared", "stmatrix", "ldmatrix", "bar.sync",
       "bar.warp.sync", "barrier.cluster.wait"]


def compile_pair(case, q):
    try:
        import triton
        from triton.backends.compiler import GPUTarget
        from triton.experimental import gluon
        from triton.experimental.gluon import language as ttgl
        from triton.experimental.gluon._runtime import GluonASTSource

        @gluon.jit
        def cvt2d(src_ptr, dst_ptr, SRC: ttgl.constexpr, DST: ttgl.constexpr, M: ttgl.constexpr, N: ttgl.constexpr):
            rm = ttgl.arange(0, M, layout=ttgl.SliceLayout(1, SRC))
            rn = ttgl.arange(0, N, layout=ttgl.SliceLayout(0, SRC))
            x = ttgl.load(src_ptr + rm[:, None] * N + rn[None, :])
            y = ttgl.convert_layout(x, DST)
            dm = ttgl.arange(0, M, layout=ttgl.SliceLayout(1, DST))
            dn = ttgl.arange(0, N, layout=ttgl.SliceLayout(0, DST))
            ttgl.store(dst_ptr + dm[:, None] * N + dn[None, :], y)

        @gluon.jit
        def trip2d(src_ptr, dst_ptr, SRC: ttgl.constexpr, SMEM: ttgl.constexpr, DST: ttgl.constexpr, M: ttgl.constexpr, N: ttgl.constexpr):
            rm = ttgl.arange(0, M, layout=ttgl.SliceLayout(1, SRC))
            rn = ttgl.arange(0, N, layout=ttgl.SliceLayout(0, SRC))
            x = ttgl.load(src_ptr + rm[:, None] * N + rn[None, :])
            smem = ttgl.allocate_shared_memory(src_ptr.dtype.element_ty, [M, N], SMEM, x)
            y = smem.load(DST)
            dm = ttgl.arange(0, M, layout=ttgl.SliceLayout(1, DST))
            dn = ttgl.arange(0, N, layout=ttgl.SliceLayout(0, DST))
            ttgl.store(dst_ptr + dm[:, None] * N + dn[None, :], y)

        @gluon.jit
        def cvt1d(src_ptr, dst_ptr, SRC: ttgl.constexpr, DST: ttgl.constexpr, M: ttgl.constexpr):
            x = ttgl.load(src_ptr + ttgl.arange(0, M, layout=SRC))
            y = ttgl.convert_layout(x, DST)
            ttgl.store(dst_ptr + ttgl.arange(0, M, layout=DST), y)

        shape = case["shape"]

        def lay(b):
            return ttgl.DistributedLinearLayout(b["register"], b["lane"], b["warp"], b.get("block", []), shape)

        src, dst = lay(case["src"]), lay(case["dst"])
        warps = 1 << len(case["src"]["warp"])
        ctas = 1 << len(case["src"].get("block", []))
        dt = DTYPES[case["bits"]]
        if "smem" in case:
            smem = ttgl.SharedLinearLayout(case["smem"])
            fn, cx = trip2d, {"SRC": src, "SMEM": smem, "DST": dst, "M": shape[0], "N": shape[1]}
        elif len(shape) == 2:
            fn, cx = cvt2d, {"SRC": src, "DST": dst, "M": shape[0], "N": shape[1]}
        else:
            fn, cx = cvt1d, {"SRC": src, "DST": dst, "M": shape[0]}
        sig = {"src_ptr": dt, "dst_ptr": dt, **{k: "constexpr" for k in cx}}
        k = triton.compile(GluonASTSource(fn=fn, signature=sig, constexprs=cx),
                           target=GPUTarget("cuda", 90, 32), options={"num_warps": warps, "num_ctas": ctas})
        ptx = k.asm["ptx"]
        counts = {op: len(re.findall(r"^\s*" + re.escape(op), ptx, re.M)) for op in OPS}
        counts["shared_bytes"] = int(k.metadata.shared)
        q.put({"name": case["name"], "counts": counts})
    except Exception as e:  # reported, not fatal
        q.put({"name": case["name"], "error": str(e)[:500]})


def main():
    for line in open(sys.argv[1]):
        case = json.loads(line)
        q = mp.Queue()
        p = mp.Process(target=compile_pair, args=(case, q))
        p.start()
        p.join(300)
        out = q.get() if not q.empty() else {"name": case["name"], "error": f"exit {p.exitcode}"}
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
