#!/usr/bin/env bash
# Every GPU check of the repository in one call, for a lent machine (an NVIDIA GPU, cupy, torch,
# triton and compute-sanitizer there; nothing built there). Built here first:
#     cargo xtask gpu        # target/ptx/kernels.ptx, target/release/{gpu-bench,gemm-bench}
# then, on the device machine from the repository root (carry target/ptx and the two binaries):
#     bash scripts/device_check.sh [OUT_DIR]
# (STEPS="rows gemm" runs only the steps named: rows, rows-memcheck, rows-racecheck, attention,
# attention-memcheck, attention-racecheck, gemm, table.)
# Each step has its own time limit so that one slow step cannot eat the others; each step's log
# goes to OUT_DIR (default: $OUT, else target/device), the summary lines to stdout.
set -u
out=${1:-${OUT:-target/device}}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
ptx=target/ptx/kernels.ptx

step() { # step NAME SECONDS COMMAND...
  local name=$1 secs=$2
  shift 2
  [[ -z "${STEPS:-}" || " $STEPS " == *" $name "* ]] || return 0
  [[ " ${SKIP:-} " != *" $name "* ]] || return 0
  local t0=$SECONDS
  timeout "$secs" "$@" >"$out/$name.log" 2>&1
  local rc=$?
  echo "== $name: exit $rc in $((SECONDS - t0)) s"
  tail -n "${TAIL:-40}" "$out/$name.log"
}

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
# compute-sanitizer refuses the device under gVisor (kernel 4.4.0: "Device not supported"), so
# there the sanitizer steps are skipped rather than left to spend the lease failing.
sanitize=--sanitize
if [[ "$(uname -r)" == 4.4.0* ]]; then
  echo "gVisor runtime (kernel $(uname -r)): compute-sanitizer steps skipped"
  SKIP="rows-memcheck rows-racecheck attention-memcheck attention-racecheck"
  sanitize=
fi
# The row kernels next to Triton's tutorials, then their sanitizers.
step rows 120 python3 scripts/rows_gpu_bench.py "$ptx"
step rows-memcheck 60 compute-sanitizer --tool memcheck python3 scripts/rows_gpu_bench.py "$ptx" --sanitize
step rows-racecheck 60 compute-sanitizer --tool racecheck python3 scripts/rows_gpu_bench.py "$ptx" --sanitize
# Flash attention next to Triton's tutorial loop and torch's SDPA, then its sanitizers.
TAIL=60 step attention 300 python3 scripts/attention_gpu_bench.py "$ptx"
step attention-memcheck 60 compute-sanitizer --tool memcheck python3 scripts/attention_gpu_bench.py "$ptx" --sanitize
step attention-racecheck 60 compute-sanitizer --tool racecheck python3 scripts/attention_gpu_bench.py "$ptx" --sanitize
# The GEMMs: ours (gemm-bench) next to Triton autotuned and cuBLAS, with compute-sanitizer.
TAIL=60 step gemm 240 python3 scripts/gemm_gpu_bench.py --bench target/release/gemm-bench --ptx "$ptx" --sizes 4096 8192 $sanitize
# Every kernel of the table (conversions, transposes, clusters), checked against the CPU.
step table 90 target/release/gpu-bench "$ptx" 16384
