"""Compare the main-loop (K-loop) SASS of GEMM kernels: Triton's tutorial matmul vs. a kernel from our PTX.

Triton side: the 03-matrix-multiplication tutorial `matmul_kernel` (scripts/triton_matmul.py, MASKED=False) (GROUP_SIZE_M swizzle, pointer increments,
`tl.dot` accumulating in f32, f16 output), compiled on the CPU with Triton 3.9 for sm_80 (128x128x32, 4 warps,
4 stages: mma.sync/ldmatrix/cp.async) and sm_90a (128x256x64, 8 warps, 3 stages: wgmma; plus 128x128x32/4/4),
f16 and bf16 inputs, B row-major (stride_bn == 1) and column-major (stride_bk == 1). The load/store masks are
dropped (M, N, K are assumed multiples of the tile); the `% M` / `% N` wrap of the tutorial is kept. Args are
specialised like the launcher does: unit strides become constexpr 1, the other ints/pointers get divisibility 16.
Our side: `--ptx FILE --kernel NAME` assembles FILE with ptxas (-v, --entry NAME) for `--arch` (default sm_90a).
Every PTX (Triton's too) goes through the same `ptxas -v --regAllocOptLevel=2` (Triton's flags minus -lineinfo;
the wheel's `ptxas` below sm_90, `ptxas-blackwell` from sm_90 on, as Triton does: the SASS equals Triton's own
cubin), then `cuobjdump -sass`. The K loop is the backward `BRA` whose body [target, branch] holds the most
HMMA/HGMMA (ties: most instructions); self-loops (the trailing `BRA .`) are ignored. If the body has forward
branches (e.g. a loop-invariant layout switch) each acyclic path head -> latch gets its own row, "[path i/n]".
Counts are per loop iteration, i.e. per BLOCK_K (column K/it; `--k-per-iter` for our kernel, default 32).
`LDS RZ, [RZ]` (dataless filler ptxas puts near cp.async/proxy fences) is counted apart: column "LDS (+RZ)".
WG = WARPGROUP.* + WARPSYNC, DEPBAR = LDGDEPBAR + DEPBAR, TMA = UTMALDG + UBLKCP, FENCE = MEMBAR + FENCE.*;
smem = Triton's dynamic shared bytes, else ptxas' static smem. --json adds per-row opcode histograms.
--tma: Triton's own TMA GEMM instead, the 09-persistent-matmul tutorial `matmul_kernel_descriptor_persistent`
(scripts/triton_tma_matmul.py: device-side `tl.make_tensor_descriptor`, persistent tile loop, f16, B column-major
as the tutorial's [N, K] descriptor, EPILOGUE_SUBTILE off, NUM_SMS 132) for sm_90a at 128x256x64, GROUP_SIZE_M 8,
3 stages: 8 warps without warp specialisation (FLATTEN on, as the tutorial on Hopper), 8 warps with
`warp_specialize=True` (FLATTEN off, as the tutorial on Hopper; Triton 3.9's Hopper pass only specialises
4-warp kernels and otherwise leaves the loop unspecialised, which the row says) and 4 warps with it (1 producer +
2 consumer warpgroups, 12 warps). The K loop is the innermost HGMMA loop whose latch is reachable from its head
inside the body (not the jump back from an out-of-line mbarrier retry stub); with partitions it is a consumer's,
and the producer's is the innermost such loop with UTMALDG/UBLKCP and no HMMA/HGMMA, a row of its own. The regs
cell of a partition adds the `setmaxnreg` value in force at its loop; notes under the table give threads,
`.maxnreg` and every `setmaxnreg` of the PTX.

Usage: python3 scripts/gemm_sass.py [--layouts] [--json OUT.json] [--only sm_80]
       python3 scripts/gemm_sass.py --tma [--triton] [--layouts] [--json OUT.json]
       python3 scripts/gemm_sass.py --ptx target/ptx/kernels.ptx --kernel gemm_f16 [--arch sm_90a] [--k-per-iter 32]
       python3 scripts/gemm_sass.py --ptx target/ptx/kernels.ptx --kernel gemm_hopper_f16 --k-per-iter 64 --innermost
       (--triton adds the tutorial-03 rows to a --ptx or --tma run; without either they are always printed;
       --tma adds the TMA rows to a --ptx run)"""
import argparse, json, os, re, subprocess, sys, tempfile, warnings
from collections import Counter

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
os.environ["TRITON_ALWAYS_COMPILE"] = "1"
warnings.filterwarnings("ignore")
import triton, triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from triton_matmul import matmul_kernel  # noqa: E402
from triton_tma_matmul import matmul_kernel_descriptor_persistent  # noqa: E402

BIN = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin")
# (ptxas arch, capability, BM, BN, BK, GROUP_M, num_warps, num_stages)
CONFIGS = [("sm_80", 80, 128, 128, 32, 8, 4, 4), ("sm_90a", 90, 128, 256, 64, 8, 8, 3),
           ("sm_90a", 90, 128, 128, 32, 8, 4, 4)]
# table column -> SASS base opcodes (the part before the first '.') counted in the loop body
GROUPS = {"HMMA": ["HMMA"], "HGMMA": ["HGMMA"], "WG": ["WARPGROUP", "WARPSYNC"], "LDSM": ["LDSM"], "STSM": ["STSM"],
          "LDGSTS": ["LDGSTS"], "DEPBAR": ["LDGDEPBAR", "DEPBAR"], "TMA": ["UTMALDG", "UBLKCP"], "SYNCS": ["SYNCS"],
          "BAR": ["BAR"], "FENCE": ["MEMBAR", "FENCE"], "LDS": ["LDS"], "STS": ["STS"], "LDG": ["LDG"], "STG": ["STG"]}
TMA_ENTRY = "matmul_kernel_descriptor_persistent"
# --tma: (BM, BN, BK, GROUP_M, num_warps, num_stages, WARP_SPECIALIZE); FLATTEN = not WARP_SPECIALIZE, as the
# tutorial does on Hopper; sm_90a, f16, B column-major
TMA_CONFIGS = [(128, 256, 64, 8, 8, 3, False), (128, 256, 64, 8, 8, 3, True), (128, 256, 64, 8, 4, 3, True)]
TMA_NUM_SMS = 132  # H100 SXM: only the persistent tile loop's stride


def compile_triton(cc, bm, bn, bk, group, warps, stages, dtype, b_col):
    """Compile matmul_kernel for GPUTarget('cuda', cc); returns (ttgir, ptx, dynamic shared bytes)."""
    names = matmul_kernel.arg_names
    ones = ["stride_ak", "stride_cn", "stride_bk" if b_col else "stride_bn"]  # launcher: ints == 1 -> constexpr
    sig = {n: (f"*{dtype}" if n in ("a_ptr", "b_ptr") else "*fp16" if n == "c_ptr" else "i32") for n in names[:12]}
    sig |= {n: "constexpr" for n in names[12:] + ones}
    consts = {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": group, "MASKED": False}
    consts |= {n: 1 for n in ones}
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n in names[:12] if n not in ones}
    src = triton.compiler.ASTSource(fn=matmul_kernel, signature=sig, constexprs=consts, attrs=attrs)
    k = triton.compile(src, target=GPUTarget("cuda", cc, 32), options={"num_warps": warps, "num_stages": stages})
    return k.asm["ttgir"], k.asm["ptx"], getattr(k.metadata, "shared", None)


def compile_tma(bm, bn, bk, group, warps, stages, ws, dtype="fp16"):
    """Compile matmul_kernel_descriptor_persistent for GPUTarget('cuda', 90); returns (ttgir, ptx, metadata).
    The launcher's specialisation: pointers 16-byte aligned, M, N, K multiples of 16 (so are the TMA strides)."""
    kern = matmul_kernel_descriptor_persistent
    names = kern.arg_names
    sig = {n: ("i32" if n in ("M", "N", "K") else f"*{dtype}") for n in names[:6]} | {n: "constexpr" for n in names[6:]}
    consts = {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": group,
              "EPILOGUE_SUBTILE": False, "NUM_SMS": TMA_NUM_SMS, "WARP_SPECIALIZE": ws, "FLATTEN": not ws}
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n in names[:6]}
    src = triton.compiler.ASTSource(fn=kern, signature=sig, constexprs=consts, attrs=attrs)
    k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps, "num_stages": stages})
    return k.asm["ttgir"], k.asm["ptx"], k.metadata


def ptxas(ptx_text, arch, entry):
    """Assemble PTX for one entry with `ptxas -v`; returns (cubin path, {regs, spill_st, spill_ld, stack, smem})."""
    d = tempfile.mkdtemp(prefix="gemm_sass_")
    src, cubin = os.path.join(d, "k.ptx"), os.path.join(d, "k.cubin")
    open(src, "w").write(ptx_text)
    tool = "ptxas" if int(re.sub(r"\D", "", arch)) < 90 else "ptxas-blackwell"  # Triton's choice (CUDA 12.9 / 13.x)
    cmd = [os.path.join(BIN, tool), "-v", "--regAllocOptLevel=2", f"--gpu-name={arch}", "--entry", entry, src,
           "-o", cubin]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"ptxas failed ({' '.join(cmd)}):\n{r.stderr}")
    log = r.stdout + r.stderr
    num = lambda pat: int(m.group(1)) if (m := re.search(pat, log)) else 0  # noqa: E731
    return cubin, {"regs": num(r"Used (\d+) registers"), "spill_st": num(r"(\d+) bytes spill stores"),
                   "spill_ld": num(r"(\d+) bytes spill loads"), "stack": num(r"(\d+) bytes stack frame"),
                   "smem": num(r"(\d+) bytes smem")}


def sass(cubin, entry):
    """Disassemble `entry` with `cuobjdump -sass`; returns [(address, opcode, text, predicate)]."""
    out = subprocess.run([os.path.join(BIN, "cuobjdump"), "-sass", "-fun", entry, cubin],
                         capture_output=True, text=True, check=True).stdout
    instrs = []
    for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", out):
        pm = re.match(r"(@!?U?P(?:\d|T)\s+)?(.*)", m.group(2).strip())
        text = pm.group(2)
        if text and not text.startswith("0x"):
            instrs.append((int(m.group(1), 16), text.split()[0], text, (pm.group(1) or "").strip()))
    return instrs


def target(ins):
    """Branch target address of a BRA (None for anything else, BRX included)."""
    m = re.match(r"BRA(\.\S+)?\s+.*?(0x[0-9a-f]+)", ins[2])
    return int(m.group(2), 16) if m else None


def loop_paths(body):
    """Acyclic paths head -> latch (last instr) through the loop's forward branches; [] if over 16."""
    paths, stack, pos = [], [(0, [])], {ins[0]: k for k, ins in enumerate(body)}
    while stack:
        k, acc = stack.pop()
        while k < len(body):
            ins = body[k]
            acc = acc + [ins]
            if k == len(body) - 1:
                paths.append(acc)
                break
            t = target(ins)
            if ins[1] == "EXIT" and not ins[3]:
                break
            if t is not None and t > ins[0] and t in pos:
                if ins[3] in ("", "@PT"):
                    k = pos[t]
                    continue
                stack.append((pos[t], acc))
            elif t is not None and not ins[3] and not body[0][0] <= t <= body[-1][0]:
                break  # unconditional jump out of the loop
            k += 1
        if len(paths) > 16:
            return []
    return paths


def ranges(path):
    """Contiguous address ranges of a path, as 'start-end' hex strings."""
    out = []
    for ins in path:
        if out and out[-1][1] + 16 == ins[0]:
            out[-1][1] = ins[0]
        else:
            out.append([ins[0], ins[0]])
    return [f"{a:#x}-{b:#x}" for a, b in out]


def latch_reachable(body):
    """Whether the body's last instruction (the backward branch) is reachable from its first without leaving
    [first, last]. False for the unconditional jump back out of an out-of-line mbarrier retry stub, which ptxas
    puts after the kernel's EXIT: the span [return point, stub] is no loop."""
    pos = {ins[0]: k for k, ins in enumerate(body)}
    seen, stack = {0}, [0]
    while stack:
        k = stack.pop()
        if k == len(body) - 1:
            return True
        ins, t = body[k], target(body[k])
        nxt = [pos[t]] if t is not None and t in pos else []
        operands = ins[2][len(ins[1]):]
        jumps = ins[1] == "EXIT" or (t is not None and "," not in operands)  # `BRA.U !UP0, 0x..` is conditional
        if not (jumps and ins[3] in ("", "@PT")):
            nxt.append(k + 1)
        for n in nxt:
            if n not in seen:
                seen.add(n)
                stack.append(n)
    return False


def main_loop(instrs, innermost=False, reachable=False, want=("HMMA", "HGMMA"), without=()):
    """Body [target, branch] of the backward BRA with the most HMMA/HGMMA (then most instructions; with
    `innermost`, the smallest body holding any: the K loop inside a persistent kernel's tile loop, whose
    copies per B order may share one outer loop), self-loops excluded; returns (body,
    paths), paths as loop_paths (one per combination of the body's forward branches). `reachable` skips the
    spans that latch_reachable rejects; `want` / `without` are the opcodes counted / excluded (the producer
    of a warp-specialised kernel: want UTMALDG/UBLKCP, without HMMA/HGMMA)."""
    best, best_key = [], (-1, -1)
    for ins in instrs:
        t = target(ins)
        if t is None or t >= ins[0]:
            continue
        body = [i for i in instrs if t <= i[0] <= ins[0]]
        if without and any(i[1].split(".")[0] in without for i in body):
            continue
        if reachable and not latch_reachable(body):
            continue
        mma = sum(i[1].split(".")[0] in want for i in body)
        key = (mma > 0, -len(body)) if innermost else (mma, len(body))
        if key > best_key:
            best, best_key = body, key
    return best, (loop_paths(best) or [best])


def count(body):
    """Per-group counts (GROUPS), total instructions and the full opcode histogram of a loop body."""
    hist = Counter(ins[1] for ins in body)
    base = Counter()
    for op, n in hist.items():
        base[op.split(".")[0]] += n
    row = {g: sum(base[o] for o in ops) for g, ops in GROUPS.items()}
    row["LDS_RZ"] = sum(ins[2].startswith("LDS RZ, [RZ]") for ins in body)  # ptxas filler, no data
    row["LDS"] -= row["LDS_RZ"]
    row["instrs"] = len(body)
    row["opcodes"] = dict(sorted(hist.items()))
    return row


def layouts(ttgir):
    """TTGIR layout aliases (#shared/#mma/#blocked...), inline dot_op layouts and memdesc types, deduplicated."""
    aliases = [ln for ln in ttgir.splitlines() if re.match(r"#\w+ = #ttg\.", ln)]
    inline = sorted(set(re.findall(r"#ttg\.dot_op<\{[^}]*\}>", ttgir)))
    memdesc = sorted(set(re.findall(r"!ttg\.memdesc<[^>]*>", ttgir)))
    return aliases + inline + memdesc


def analyse(name, ptx_text, arch, entry, k_per_iter, desc, extra=None, innermost=False):
    """ptxas + SASS + main-loop counts for one kernel; one row (dict) per path through the loop body."""
    cubin, res = ptxas(ptx_text, arch, entry)
    body, paths = main_loop(sass(cubin, entry), innermost)
    return loop_rows(name, arch, k_per_iter, desc, res, extra, body, paths)


def loop_rows(name, arch, k_per_iter, desc, res, extra, body, paths):
    """One row (dict) per path through the loop body: ptxas' numbers, `extra`, the path's counts."""
    rows = []
    for k, path in enumerate(paths):
        label = f"{name} [path {k + 1}/{len(paths)}]" if len(paths) > 1 else name
        rows.append({"name": label, "arch": arch, "config": desc, "k_per_iter": k_per_iter} | res | (extra or {})
                    | count(path) | {"loop": [hex(body[0][0]), hex(body[-1][0])], "body_instrs": len(body),
                                     "path": ranges(path)})
    return rows


def setmaxnreg_at(instrs, addr):
    """Register count set by the last USETMAXREG before `addr` in address order (None if none): the
    partition's budget when its code follows its `setmaxnreg` as in Triton's warp-specialised kernels."""
    last = None
    for ins in instrs:
        if ins[0] >= addr:
            break
        if ins[1].startswith("USETMAXREG"):
            last = int(ins[2].rsplit(",", 1)[-1].strip().split()[-1], 0)
    return last


def label_paths(rows, paths):
    """Name the paths through a flattened persistent loop (tile and K loops fused, the tile's start and
    epilogue under branches) against the shortest one, the plain K step: a path that also runs code before
    the first HGMMA adds 'tile start', code after the last one 'epilogue'."""
    if len(paths) < 2:
        return rows
    base = {i[0] for i in min(paths, key=len)}
    for r, path in zip(rows, paths):
        mma = [i[0] for i in path if i[1].startswith("HGMMA") or i[1].startswith("HMMA")]
        extra = [i[0] for i in path if i[0] not in base]
        parts = [p for p, hit in (("tile start", any(a < mma[0] for a in extra)),
                                  ("epilogue", any(a > mma[-1] for a in extra))) if hit] if mma else []
        r["name"] = r["name"][:-1] + ": K step" + "".join(" + " + p for p in parts) + "]"
    return rows


def tma_rows(show_layouts):
    """Compile and analyse Triton's TMA persistent matmul for every TMA_CONFIGS entry; returns (rows, notes)."""
    rows, notes = [], []
    for bm, bn, bk, group, warps, stages, ws in TMA_CONFIGS:
        ttgir, ptx, md = compile_tma(bm, bn, bk, group, warps, stages, ws)
        split = "ttg.warp_specialize(" in ttgir
        threads = md.num_warps * 32
        desc = f"{bm}x{bn}x{bk} w{warps} s{stages}" + (f" ({md.num_warps} warps)" if md.num_warps != warps else "")
        name = "triton TMA persistent fp16 B-col" + (" WS" if ws else "") + ("" if ws else " (flattened)")
        if ws and not split:
            name += " (warp_specialize not applied: Triton's Hopper WS needs num_warps 4)"
        if show_layouts:
            print(f"## {name} sm_90a {desc}\n" + "\n".join(layouts(ttgir)) + "\n")
        cubin, res = ptxas(ptx, "sm_90a", TMA_ENTRY)
        instrs = sass(cubin, TMA_ENTRY)
        maxnreg = re.findall(r"\.maxnreg\s+(\d+)", ptx)
        setmax = re.findall(r"setmaxnreg\.(inc|dec)\.sync\.aligned\.u32\s+(\d+)", ptx)
        extra = {"dyn_smem": getattr(md, "shared", None), "threads": threads, "warp_specialized": split,
                 "global_scratch": getattr(md, "global_scratch_size", None), "maxnreg": maxnreg,
                 "setmaxnreg": [f"{d} {n}" for d, n in setmax]}
        body, paths = main_loop(instrs, innermost=True, reachable=True)
        same = 0
        if split:  # one copy of the consumer loop per consumer partition
            for ins in instrs:
                t = target(ins)
                if t is not None and t < ins[0]:
                    b = [i for i in instrs if t <= i[0] <= ins[0]]
                    same += [i[1] for i in b] == [i[1] for i in body]
            reg = setmaxnreg_at(instrs, body[0][0])
            rows += loop_rows(f"{name} consumer K loop (x{same})", "sm_90a", bk, desc, res,
                              extra | {"regs_note": f"setmaxnreg {reg}" if reg else None}, body, paths)
            pbody, ppaths = main_loop(instrs, innermost=True, reachable=True, want=("UTMALDG", "UBLKCP"),
                                      without=("HMMA", "HGMMA"))
            if pbody and any(i[1].split(".")[0] in ("UTMALDG", "UBLKCP") for i in pbody):
                reg = setmaxnreg_at(instrs, pbody[0][0])
                rows += loop_rows(f"{name} producer K loop", "sm_90a", bk, desc, res,
                                  extra | {"regs_note": f"setmaxnreg {reg}" if reg else None}, pbody, ppaths)
            else:
                notes.append(f"{name} {desc}: no producer loop (backward loop with UTMALDG/UBLKCP, no HGMMA) found")
        else:
            rows += label_paths(loop_rows(name, "sm_90a", bk, desc, res, extra, body, paths), paths)
        notes.append(f"{name} {desc}: {threads} threads ({md.num_warps} warps), ptxas {res['regs']} registers, "
                     f".maxnreg {', '.join(maxnreg) or 'none'}, setmaxnreg "
                     f"{', '.join(f'{d} {n}' for d, n in setmax) or 'none'}, "
                     f"{len(paths)} path(s) through the K loop, global scratch {extra['global_scratch']} B")
    return rows, notes


def triton_rows(only, show_layouts):
    """Compile and analyse every Triton configuration (CONFIGS x dtypes x B layouts)."""
    rows = []
    for arch, cc, bm, bn, bk, group, warps, stages in CONFIGS:
        if only and only != arch:
            continue
        for dtype in ("fp16", "bf16"):
            for b_col in (False, True):
                ttgir, ptx, shared = compile_triton(cc, bm, bn, bk, group, warps, stages, dtype, b_col)
                name = f"triton {dtype} B-{'col' if b_col else 'row'}"
                desc = f"{bm}x{bn}x{bk} w{warps} s{stages}"
                if show_layouts:
                    print(f"## {name} {arch} {desc}\n" + "\n".join(layouts(ttgir)) + "\n")
                rows += analyse(name, ptx, arch, "matmul_kernel", bk, desc, {"dyn_smem": shared})
    return rows


def table(rows):
    """Markdown table, one row per kernel; counts are per main-loop iteration (= K/it elements of K)."""
    cols = ["kernel", "arch", "tile/warps/stages", "K/it", "regs", "spill st/ld", "stack", "smem", "loop instrs",
            "HMMA/HGMMA", "WG", "LDSM", "STSM", "LDGSTS", "DEPBAR", "TMA", "SYNCS", "BAR", "FENCE", "LDS (+RZ)", "STS",
            "LDG", "STG"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        smem = r.get("dyn_smem") if r.get("dyn_smem") is not None else r["smem"]
        regs = f"{r['regs']} ({r['regs_note']})" if r.get("regs_note") else r["regs"]
        vals = [r["name"], r["arch"], r["config"], r["k_per_iter"], regs, f"{r['spill_st']}/{r['spill_ld']}",
                r["stack"], smem, r["instrs"], f"{r['HMMA']}/{r['HGMMA']}"] + \
               [r[g] for g in ("WG", "LDSM", "STSM", "LDGSTS", "DEPBAR", "TMA", "SYNCS", "BAR", "FENCE")] + \
               [f"{r['LDS']} (+{r['LDS_RZ']})"] + [r[g] for g in ("STS", "LDG", "STG")]
        lines.append("| " + " | ".join(str(v) for v in vals) + " |")
    return "\n".join(lines)


def main():
    """Parse arguments, analyse the kernels, print the table (and --json)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ptx", help="our PTX file"); p.add_argument("--kernel", help="entry name in --ptx")
    p.add_argument("--arch", default="sm_90a", help="ptxas --gpu-name for --ptx (sm_80, sm_90a, ...)")
    p.add_argument("--k-per-iter", type=int, default=32, help="K elements per main-loop iteration of --kernel")
    p.add_argument("--desc", default="ours", help="tile/warps/stages text for the --kernel row")
    p.add_argument("--innermost", action="store_true", help="--kernel's K loop is the innermost HMMA/HGMMA loop "
                   "(a persistent kernel's K loop inside its tile loop)")
    p.add_argument("--triton", action="store_true", help="with --ptx or --tma: also compile the tutorial-03 kernels")
    p.add_argument("--tma", action="store_true", help="Triton's TMA persistent matmul (tutorial 09, "
                   "matmul_kernel_descriptor_persistent) for sm_90a, with and without warp_specialize")
    p.add_argument("--only", help="Triton configs for this arch only (sm_80 or sm_90a)")
    p.add_argument("--layouts", action="store_true", help="print each Triton kernel's TTGIR layouts")
    p.add_argument("--json", help="also write the rows (with opcode histograms) to this file")
    a = p.parse_args()
    if a.ptx and not a.kernel:
        p.error("--ptx needs --kernel")
    rows = triton_rows(a.only, a.layouts) if (a.triton or not (a.ptx or a.tma)) else []
    notes = []
    if a.tma:
        tma, notes = tma_rows(a.layouts)
        rows += tma
    if a.ptx:
        rows += analyse(a.kernel, open(a.ptx).read(), a.arch, a.kernel, a.k_per_iter, a.desc, innermost=a.innermost)
    print(table(rows))
    if notes:
        print("\n" + "\n".join(f"- {n}" for n in notes))
    if a.json:
        json.dump(rows, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
