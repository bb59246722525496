//! `gpu-bench PTX [N]`: load the kernels' PTX (from `cargo xtask ptx`), run every kernel on
//! fresh random inputs into a poisoned output, check every element against a CPU reference, and
//! time each with CUDA events (3 warm-ups, median of 30) next to a device-to-device copy of the
//! same bytes. Without a CUDA driver or device it says so and exits with status 2.

use std::process::ExitCode;
use std::sync::Arc;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::Ptx;

type R<T> = Result<T, String>;

fn e<E: std::fmt::Debug>(what: &str) -> impl FnOnce(E) -> String + '_ {
    move |err| format!("{}: {:?}", what, err)
}

/// xorshift64*: inputs differ from run to run (seeded by time) and are never all zeros.
fn random(n: usize, seed: u64) -> Vec<u64> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            x.wrapping_mul(0x2545_F491_4F6C_DD1D)
        })
        .collect()
}

fn median(mut v: Vec<f32>) -> f32 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Milliseconds per call of `launch`: 3 warm-ups, then the median of 30 event-timed calls.
fn time(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    mut launch: impl FnMut() -> R<()>,
) -> R<f32> {
    for _ in 0..3 {
        launch()?;
    }
    stream.synchronize().map_err(e("synchronize"))?;
    let mut ts = Vec::new();
    for _ in 0..30 {
        let a = ctx
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(e("event"))?;
        let b = ctx
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(e("event"))?;
        a.record(stream).map_err(e("record"))?;
        launch()?;
        b.record(stream).map_err(e("record"))?;
        b.synchronize().map_err(e("event sync"))?;
        ts.push(a.elapsed_ms(&b).map_err(e("elapsed"))?);
    }
    Ok(median(ts))
}

struct Row {
    name: &'static str,
    ms: f32,
    bytes: f64,
    copy_ms: f32,
}

fn cfg(grid: (u32, u32), block: u32, smem: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (grid.0, grid.1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: smem,
    }
}

fn launch3<T: cudarc::driver::DeviceRepr>(
    stream: &Arc<CudaStream>,
    f: &CudaFunction,
    c: LaunchConfig,
    a: &CudaSlice<T>,
    b: &mut CudaSlice<T>,
    n: u32,
) -> R<()> {
    let mut l = stream.launch_builder(f);
    l.arg(a).arg(b).arg(&n);
    // SAFETY: the kernels' signatures are (const T*, T*, u32); sizes checked by the callers.
    unsafe { l.launch(c) }.map(|_| ()).map_err(e("launch"))
}

fn run(ptx: &str, n: usize) -> R<Vec<Row>> {
    // SAFETY: only tries to open the driver library; cudarc would panic without it.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err("no CUDA driver (libcuda) on this machine: run gpu-bench on a machine with an NVIDIA GPU and driver".into());
    }
    let ctx = CudaContext::new(0).map_err(|err| {
        format!(
            "no CUDA device or driver ({:?}): run gpu-bench on a machine with an NVIDIA GPU",
            err
        )
    })?;
    let stream = ctx.default_stream();
    let src = std::fs::read_to_string(ptx).map_err(|err| format!("{}: {}", ptx, err))?;
    let module = ctx.load_module(Ptx::from_src(src)).map_err(e("load PTX"))?;
    let f = |name: &str| module.load_function(name).map_err(e("load function"));
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(7);
    let mut rows = Vec::new();
    let nn = n * n;
    let tiles = (nn / 4096) as u32;

    // f32 transpose.
    let x: Vec<f32> = random(nn, seed).iter().map(|&v| (v >> 40) as f32).collect();
    let dx = stream.memcpy_stod(&x).map_err(e("copy in"))?;
    let mut dy = stream
        .memcpy_stod(&vec![f32::NAN; nn])
        .map_err(e("alloc"))?;
    let t32 = f("transpose_f32")?;
    let c = cfg(((n / 64) as u32, (n / 64) as u32), 128, 16384);
    launch3(&stream, &t32, c, &dx, &mut dy, n as u32)?;
    let y = stream.memcpy_dtov(&dy).map_err(e("copy out"))?;
    for i in 0..n {
        for j in 0..n {
            if y[j * n + i].to_bits() != x[i * n + j].to_bits() {
                return Err(format!("transpose_f32 wrong at ({}, {})", i, j));
            }
        }
    }
    let copy32 = time(&ctx, &stream, || {
        stream.memcpy_dtod(&dx, &mut dy).map_err(e("copy"))
    })?;
    let ms = time(&ctx, &stream, || {
        launch3(&stream, &t32, c, &dx, &mut dy, n as u32)
    })?;
    rows.push(Row {
        name: "transpose f32 (64x64, 4 warps)",
        ms,
        bytes: 8.0 * nn as f64,
        copy_ms: copy32,
    });

    // 16-bit transposes.
    let x: Vec<u16> = random(nn, seed ^ 1)
        .iter()
        .map(|&v| (v >> 48) as u16 % 60000)
        .collect();
    let dx = stream.memcpy_stod(&x).map_err(e("copy in"))?;
    let mut dy = stream
        .memcpy_stod(&vec![0xFFFFu16; nn])
        .map_err(e("alloc"))?;
    let copy16 = time(&ctx, &stream, || {
        stream.memcpy_dtod(&dx, &mut dy).map_err(e("copy"))
    })?;
    for (name, kernel, tile, warps, smem) in [
        (
            "transpose 16-bit (64x64, 4 warps)",
            "transpose_u16",
            64usize,
            4u32,
            8192u32,
        ),
        (
            "transpose 16-bit (128x128, 8 warps)",
            "transpose_u16_128",
            128,
            8,
            32768,
        ),
    ] {
        let k = f(kernel)?;
        let c = cfg(((n / tile) as u32, (n / tile) as u32), 32 * warps, smem);
        stream
            .memcpy_htod(&vec![0xFFFFu16; nn], &mut dy)
            .map_err(e("poison"))?;
        launch3(&stream, &k, c, &dx, &mut dy, n as u32)?;
        let y = stream.memcpy_dtov(&dy).map_err(e("copy out"))?;
        for i in 0..n {
            for j in 0..n {
                if y[j * n + i] != x[i * n + j] {
                    return Err(format!("{} wrong at ({}, {})", kernel, i, j));
                }
            }
        }
        let ms = time(&ctx, &stream, || {
            launch3(&stream, &k, c, &dx, &mut dy, n as u32)
        })?;
        rows.push(Row {
            name,
            ms,
            bytes: 4.0 * nn as f64,
            copy_ms: copy16,
        });
    }

    // nvmma_shared round trip (16-bit): out == in.
    let k = f("nvmma_roundtrip")?;
    let c = cfg((tiles, 1), 128, 8192);
    stream
        .memcpy_htod(&vec![0xFFFFu16; nn], &mut dy)
        .map_err(e("poison"))?;
    launch3(&stream, &k, c, &dx, &mut dy, tiles)?;
    if stream.memcpy_dtov(&dy).map_err(e("copy out"))? != x {
        return Err("nvmma_roundtrip wrong".into());
    }
    let ms = time(&ctx, &stream, || {
        launch3(&stream, &k, c, &dx, &mut dy, tiles)
    })?;
    rows.push(Row {
        name: "round trip through nvmma_shared 128B, 16-bit",
        ms,
        bytes: 4.0 * nn as f64,
        copy_ms: copy16,
    });

    // Accumulator to dot operand A (16-bit): out == in.
    let k = f("mma_acc_to_operand")?;
    let c = cfg((tiles, 1), 128, 0);
    stream
        .memcpy_htod(&vec![0xFFFFu16; nn], &mut dy)
        .map_err(e("poison"))?;
    launch3(&stream, &k, c, &dx, &mut dy, tiles)?;
    if stream.memcpy_dtov(&dy).map_err(e("copy out"))? != x {
        return Err("mma_acc_to_operand wrong".into());
    }
    let ms = time(&ctx, &stream, || {
        launch3(&stream, &k, c, &dx, &mut dy, tiles)
    })?;
    rows.push(Row {
        name: "mma accumulator -> dot operand A, 16-bit",
        ms,
        bytes: 4.0 * nn as f64,
        copy_ms: copy16,
    });

    // Register-only accumulator permutation (f32): out == in.
    let x: Vec<f32> = random(nn, seed ^ 3)
        .iter()
        .map(|&v| (v >> 40) as f32)
        .collect();
    let dx = stream.memcpy_stod(&x).map_err(e("copy in"))?;
    let mut dy = stream
        .memcpy_stod(&vec![f32::NAN; nn])
        .map_err(e("alloc"))?;
    let k = f("mma_acc_regperm")?;
    let c = cfg((tiles, 1), 128, 0);
    launch3(&stream, &k, c, &dx, &mut dy, tiles)?;
    if stream
        .memcpy_dtov(&dy)
        .map_err(e("copy out"))?
        .iter()
        .zip(&x)
        .any(|(a, b)| a.to_bits() != b.to_bits())
    {
        return Err("mma_acc_regperm wrong".into());
    }
    let ms = time(&ctx, &stream, || {
        launch3(&stream, &k, c, &dx, &mut dy, tiles)
    })?;
    rows.push(Row {
        name: "mma accumulator register permutation, f32",
        ms,
        bytes: 8.0 * nn as f64,
        copy_ms: copy32,
    });

    // fp16 -> fp8 operand conversion (8-bit): out == in (row-major both ways).
    let x8: Vec<u8> = random(nn, seed ^ 2)
        .iter()
        .map(|&v| (v >> 56) as u8)
        .collect();
    let dx8 = stream.memcpy_stod(&x8).map_err(e("copy in"))?;
    let mut dy8 = stream.memcpy_stod(&vec![0u8; nn]).map_err(e("alloc"))?;
    let copy8 = time(&ctx, &stream, || {
        stream.memcpy_dtod(&dx8, &mut dy8).map_err(e("copy"))
    })?;
    let k = f("fp16_to_fp8_operand")?;
    let c = cfg((tiles, 1), 128, 0);
    launch3(&stream, &k, c, &dx8, &mut dy8, tiles)?;
    if stream.memcpy_dtov(&dy8).map_err(e("copy out"))? != x8 {
        return Err("fp16_to_fp8_operand wrong".into());
    }
    let ms = time(&ctx, &stream, || {
        launch3(&stream, &k, c, &dx8, &mut dy8, tiles)
    })?;
    rows.push(Row {
        name: "fp16 -> fp8 operand conversion, 8-bit",
        ms,
        bytes: 2.0 * nn as f64,
        copy_ms: copy8,
    });
    Ok(rows)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let ptx = args
        .get(1)
        .map(String::as_str)
        .unwrap_or("target/ptx/kernels.ptx");
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(16384);
    if !n.is_multiple_of(128) || n == 0 {
        eprintln!("gpu-bench: N must be a positive multiple of 128, got {}", n);
        return ExitCode::from(2);
    }
    match run(ptx, n) {
        Ok(rows) => {
            println!("N = {}; every kernel checked element by element on fresh random inputs; median of 30 (CUDA events)", n);
            println!(
                "{:48} {:>8} {:>7} {:>9}",
                "kernel", "ms", "TB/s", "% of copy"
            );
            for r in rows {
                println!(
                    "{:48} {:8.3} {:7.2} {:8.1}%",
                    r.name,
                    r.ms,
                    r.bytes / r.ms as f64 / 1e9,
                    100.0 * r.copy_ms / r.ms
                );
            }
            ExitCode::SUCCESS
        }
        Err(msg) => {
            eprintln!("gpu-bench: {}", msg);
            ExitCode::from(2)
        }
    }
}
