//! `gemm-bench [PTX] [--json] [--check-only] [SIZE ...]`: the tensor-core GEMMs of `kernels`
//! (`gemm`, 64x64 tiles; `gemm_pipelined`, 128x128 tiles through 4 `cp.async` stages;
//! `gemm_hopper`, 128x256 tiles by TMA and wgmma on a persistent grid, and `gemm_hopper_ws`, the
//! same warp-specialised, sizes that are multiples of 256) on an NVIDIA GPU, for square problems of each SIZE (default 4096 8192; multiples of 128), f16 and
//! bf16, B row- and column-major: launched through `layout-launch` with the kernels' own
//! `KernelSpec`s, checked against a CPU reference and timed with CUDA events (3 warm-ups,
//! median of 10). Prints a table, or with `--json` one JSON object per case (what
//! `scripts/gemm_gpu_bench.py` reads). `--check-only` skips the timing (for compute-sanitizer).
//! Without a CUDA driver or device it says so and exits with status 2.

mod reference;

use std::process::ExitCode;

use kernels::gemm::gemm_grid;
use kernels::gemm_hopper::{hopper_grid, HOP_BOX_A, HOP_BOX_B, HOP_BOX_BT, HOP_SWIZZLE};
use kernels::gemm_pipelined::pipelined_grid;
use layout_launch::cudarc::driver::CudaSlice;
use layout_launch::{DeviceTensorMap, Gpu, LaunchError, Module, TmaElement};
use reference::{Case, Half, Row};

const USAGE: &str = "usage: gemm-bench [PTX] [--json] [--check-only] [SIZE ...]
  PTX   the kernels' PTX (default target/ptx/kernels.ptx, from `cargo xtask ptx`)
  SIZE  M = N = K, a multiple of 128 (default 4096 8192)";

/// The two kernels.
#[derive(Clone, Copy, Debug)]
pub enum Kernel {
    /// `kernels::gemm`: one CTA per 64x64 tile.
    Simple,
    /// `kernels::gemm_pipelined`: one CTA per 128x128 tile.
    Pipelined,
    /// `kernels::gemm_hopper`: one CTA per multiprocessor walking 128x256 tiles.
    Hopper,
    /// `kernels::gemm_hopper_ws`: the same, warp-specialised.
    HopperWs,
}

impl Kernel {
    /// The name reports use.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Simple => "gemm",
            Kernel::Pipelined => "gemm_pipelined",
            Kernel::Hopper => "gemm_hopper",
            Kernel::HopperWs => "gemm_hopper_ws",
        }
    }

    /// Whether A and B are read through tensor maps (TMA).
    pub fn tma(self) -> bool {
        matches!(self, Kernel::Hopper | Kernel::HopperWs)
    }
}

/// A case's tensor maps of A and B (borrowing them) and the multiprocessor count, for the
/// kernels that read through the copy engine.
pub struct Maps<'a, H> {
    a: DeviceTensorMap<'a, H>,
    b: DeviceTensorMap<'a, H>,
    sms: u32,
}

impl<'a, H: TmaElement> Maps<'a, H> {
    /// The maps of `a` (`[m, k]`) and `b` (`[k, n]`, or Bᵀ's `[n, k]` when B is column-major)
    /// if `kernel` reads through them.
    fn new(
        gpu: &Gpu,
        kernel: Kernel,
        [a, b]: [&'a CudaSlice<H>; 2],
        [m, n, k]: [u32; 3],
        bcm: bool,
    ) -> Result<Option<Self>, LaunchError> {
        if !kernel.tma() {
            return Ok(None);
        }
        let ma = DeviceTensorMap::new(gpu, a, [m, k], HOP_BOX_A, HOP_SWIZZLE)?;
        let mb = if bcm {
            DeviceTensorMap::new(gpu, b, [n, k], HOP_BOX_BT, HOP_SWIZZLE)?
        } else {
            DeviceTensorMap::new(gpu, b, [k, n], HOP_BOX_B, HOP_SWIZZLE)?
        };
        Ok(Some(Maps {
            a: ma,
            b: mb,
            sms: gpu.multiprocessors()?,
        }))
    }
}

/// A case's device operands: A and B, their tensor maps if the kernel reads through them.
pub struct Operands<'a, H> {
    a: &'a CudaSlice<H>,
    b: &'a CudaSlice<H>,
    maps: Option<Maps<'a, H>>,
}

/// The launch of `kernel` for element type `H` (one impl per type: each kernel's spec has its
/// own parameter types, checked against the arguments at compile time).
pub trait Launch: Half + TmaElement {
    /// Queue `c = a · b` for `[m, n, k]`.
    fn launch(
        module: &Module,
        kernel: Kernel,
        ops: &Operands<'_, Self>,
        c: &mut CudaSlice<Self>,
        mnk: [u32; 3],
        b_col_major: bool,
    ) -> Result<(), LaunchError>;
}

macro_rules! launches {
    ($host:ty, $simple:path, $pipelined:path, $hopper:path, $hopper_ws:path) => {
        impl Launch for $host {
            fn launch(
                module: &Module,
                kernel: Kernel,
                ops: &Operands<'_, Self>,
                c: &mut CudaSlice<Self>,
                [m, n, k]: [u32; 3],
                b_col_major: bool,
            ) -> Result<(), LaunchError> {
                let bcm = b_col_major as u32;
                let (a, b) = (ops.a, ops.b);
                match (kernel, &ops.maps) {
                    (Kernel::Hopper, Some(maps)) => {
                        let grid = hopper_grid(m, n, maps.sms);
                        let (ma, mb) = (&maps.a, &maps.b);
                        module
                            .launch(&$hopper, grid, (ma, mb, c, m, n, k, bcm))
                            .map(drop)
                    }
                    (Kernel::HopperWs, Some(maps)) => {
                        let grid = hopper_grid(m, n, maps.sms);
                        let (ma, mb) = (&maps.a, &maps.b);
                        module
                            .launch(&$hopper_ws, grid, (ma, mb, c, m, n, k, bcm))
                            .map(drop)
                    }
                    (Kernel::Simple, _) => module
                        .launch(&$simple, gemm_grid(m, n), (a, b, c, n, k, bcm))
                        .map(drop),
                    (Kernel::Pipelined, _) => {
                        let grid = pipelined_grid(m, n);
                        module
                            .launch(&$pipelined, grid, (a, b, c, m, n, k, bcm))
                            .map(drop)
                    }
                    (Kernel::Hopper | Kernel::HopperWs, None) => Err(LaunchError::Kernel(format!(
                        "{} reads A and B through tensor maps: make them with Maps::new",
                        kernel.name()
                    ))),
                }
            }
        }
    };
}
launches!(
    half::f16,
    kernels::gemm::GEMM_F16,
    kernels::gemm_pipelined::GEMM_PIPELINED_F16,
    kernels::gemm_hopper::GEMM_HOPPER_F16,
    kernels::gemm_hopper_ws::GEMM_HOPPER_WS_F16
);
launches!(
    half::bf16,
    kernels::gemm::GEMM_BF16,
    kernels::gemm_pipelined::GEMM_PIPELINED_BF16,
    kernels::gemm_hopper::GEMM_HOPPER_BF16,
    kernels::gemm_hopper_ws::GEMM_HOPPER_WS_BF16
);

/// One case: upload random operands, run once into a poisoned C and check it, then time.
fn run_case<H: Launch>(
    gpu: &Gpu,
    module: &Module,
    case: Case,
    time: bool,
) -> Result<Row, (u8, String)> {
    let s = case.size as usize;
    let (a, b) = (case.operand::<H>(s * s, 1), case.operand::<H>(s * s, 2));
    let err = |e: LaunchError| (2, format!("{}: {}", case, e));
    let (mnk, bcm) = ([case.size; 3], case.b_col_major);
    let poison = vec![H::from_f32(f32::NAN); s * s];
    let upload = |h: &[H]| gpu.upload(h).map_err(err);
    let (da, db, mut dc) = (upload(&a)?, upload(&b)?, upload(&poison)?);
    let maps = Maps::new(gpu, case.kernel, [&da, &db], mnk, bcm).map_err(err)?;
    let ops = Operands {
        a: &da,
        b: &db,
        maps,
    };
    let launch = |c: &mut CudaSlice<H>| H::launch(module, case.kernel, &ops, c, mnk, bcm);
    launch(&mut dc).map_err(err)?;
    let c = gpu.download(&dc).map_err(err)?;
    let max_err = case.check(&a, &b, &c).map_err(|e| (1, e))?;
    let ms = if time {
        gpu.time_ms(10, || launch(&mut dc)).map_err(err)?
    } else {
        f32::NAN
    };
    Ok(Row { case, ms, max_err })
}

/// Every case of `sizes`, in order; stops at the first failure: `(exit status, message)`, 1 for
/// a wrong result, 2 for no GPU or a launch that failed.
fn run(
    ptx: &str,
    sizes: &[u32],
    time: bool,
    mut emit: impl FnMut(&Row),
) -> Result<(), (u8, String)> {
    let no_gpu = |e: LaunchError| {
        (
            2,
            format!("{}: run gemm-bench on a machine with an NVIDIA GPU", e),
        )
    };
    let gpu = Gpu::new().map_err(no_gpu)?;
    let module = gpu.load_ptx(ptx).map_err(|e| (2, e.to_string()))?;
    for case in Case::all(sizes) {
        let row = match case.dtype {
            "f16" => run_case::<half::f16>(&gpu, &module, case, time),
            _ => run_case::<half::bf16>(&gpu, &module, case, time),
        };
        emit(&row?);
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{}", USAGE);
        return ExitCode::SUCCESS;
    }
    let flag = |f: &str| args.iter().any(|a| a == f);
    let (json, check_only) = (flag("--json"), flag("--check-only"));
    let rest: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let ptx = rest.first().filter(|a| a.parse::<u32>().is_err());
    let sizes: Result<Vec<u32>, String> = rest
        .iter()
        .skip(ptx.is_some() as usize)
        .map(|s| reference::parse_size(s))
        .collect();
    let sizes = match sizes {
        Ok(s) if s.is_empty() => vec![4096, 8192],
        Ok(s) => s,
        Err(e) => {
            eprintln!("gemm-bench: {}\n{}", e, USAGE);
            return ExitCode::from(2);
        }
    };
    let ptx = ptx.map(|s| s.as_str()).unwrap_or("target/ptx/kernels.ptx");
    let mut first = true;
    let emit = |r: &Row| {
        if !json && std::mem::take(&mut first) {
            println!("{}", Row::header());
        }
        println!("{}", if json { r.json() } else { r.to_string() })
    };
    match run(ptx, &sizes, !check_only, emit) {
        Ok(()) => ExitCode::SUCCESS,
        Err((status, e)) => {
            eprintln!("gemm-bench: {}", e);
            ExitCode::from(status)
        }
    }
}
