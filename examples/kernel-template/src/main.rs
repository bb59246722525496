//! Launches the kernel on GPU 0 and checks the result. Without a GPU it says so and fails.
//! `cargo run -- --ptx-path` prints where the build put the PTX.

use std::process::ExitCode;

use linear_layouts::F16;
use linear_layouts::launch::{Gpu, LaunchError};
use my_kernels::{SILU, TRANSPOSE};

const PTX: &str = env!("MY_KERNELS_PTX");

fn main() -> ExitCode {
    if std::env::args().any(|a| a == "--ptx-path") {
        println!("{}", PTX);
        return ExitCode::SUCCESS;
    }
    match run() {
        Ok(0) => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {}", e);
            ExitCode::FAILURE
        }
    }
}

/// The number of wrong elements.
fn run() -> Result<usize, LaunchError> {
    let n = 1024u32;
    let input: Vec<f32> = (0..n * n).map(|i| i as f32).collect();
    let gpu = Gpu::new()?;
    let module = gpu.load_ptx(PTX)?;
    let inp = gpu.upload(&input)?;
    let mut out = gpu.zeros::<f32>((n * n) as usize)?;
    module.launch(&TRANSPOSE, [n / 64, n / 64, 1], (&inp, &mut out, n))?;
    let out = gpu.download(&out)?;
    let wrong = (0..n * n)
        .filter(|&k| out[((k % n) * n + k / n) as usize] != input[k as usize])
        .count();
    println!("transpose of {n}x{n}: {wrong} wrong elements");
    // The kernels' own F16 uploads and downloads as it is.
    let x: Vec<F16> = (0..n * n)
        .map(|i| F16::from_f32((i % 97) as f32 / 8.0 - 6.0))
        .collect();
    let dx = gpu.upload(&x)?;
    let mut dy = gpu.zeros::<F16>(x.len())?;
    module.launch(&SILU, [(n * n).div_ceil(1024), 1, 1], (&dx, &mut dy, n * n))?;
    let y = gpu.download(&dy)?;
    let silu_wrong = x
        .iter()
        .zip(&y)
        .filter(|(x, y)| {
            let (x, y) = (x.to_f32() as f64, y.to_f32() as f64);
            (y - x / (1.0 + (-x).exp())).abs() > 2e-3 * (1.0 + y.abs())
        })
        .count();
    println!("silu of {} halves: {silu_wrong} wrong elements", x.len());
    Ok(wrong + silu_wrong)
}
