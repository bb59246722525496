//! `vk-bench SPV [N]`: load the SPIR-V kernels (from `cargo xtask spirv`) on the first Vulkan
//! device, run every kernel of `runner::table::SPIRV_KERNELS` whose warp size the device's
//! subgroups can have, on fresh random inputs into poisoned outputs, check every element against
//! the table's CPU reference, and time each with GPU timestamp queries (1 warm-up, median of 5)
//! next to the copy kernel of the same module. A kernel built for another warp size is refused
//! with the reason. Without a Vulkan loader or device it says so and exits with status 2.
//!
//! `ash` (raw Vulkan, the loader opened at run time) rather than `wgpu`: the runner needs the
//! subgroup size control of Vulkan 1.3 (a required subgroup size, full subgroups) and timestamp
//! queries on a compute queue, which wgpu does not expose for SPIR-V passthrough.

#[path = "../host.rs"]
#[allow(dead_code)]
mod host;
mod launch;
mod spirv;
mod vulkan;

use std::process::ExitCode;

use runner::table::{Kernel, SPIRV_KERNELS};

const USAGE: &str = "usage: vk-bench [SPV [N]]
  SPV  the SPIR-V kernels (default target/spirv/kernels.spv, from `cargo xtask spirv`)
  N    problem size: N x N elements, a multiple of 64 (default 1024)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if matches!(args.first().map(String::as_str), Some("-h" | "--help")) {
        println!("{}", USAGE);
        return ExitCode::SUCCESS;
    }
    let spv = args
        .first()
        .map_or("target/spirv/kernels.spv", String::as_str);
    let n = match args.get(1).map(|s| s.parse::<u32>()) {
        None => 1024,
        Some(Ok(n)) if n > 0 && n.is_multiple_of(64) && n <= 1 << 14 => n,
        Some(_) => {
            eprintln!(
                "vk-bench: N must be a positive multiple of 64 up to 16384\n{}",
                USAGE
            );
            return ExitCode::from(2);
        }
    };
    let words = match std::fs::read(spv) {
        Ok(b) => match spirv::words(&b) {
            Ok(w) => w,
            Err(e) => return fail(2, format!("{}: {}", spv, e)),
        },
        Err(e) => {
            return fail(
                2,
                format!(
                    "cannot read {}: {} (build it with `cargo xtask spirv`)",
                    spv, e
                ),
            )
        }
    };
    let gpu = match vulkan::Gpu::new(&words) {
        Ok(g) => g,
        Err(vulkan::Error::NoDevice(e)) => return fail(2, e),
        Err(vulkan::Error::Failed(e)) => return fail(1, e),
    };
    println!("{}", gpu.describe());
    println!(
        "{} x {} elements; milliseconds per launch, median of 5 after 1 warm-up",
        n, n
    );
    println!(
        "{:<28} {:>5} {:>10} {:>9} {:>8}",
        "kernel", "lanes", "ms", "GB/s", "vs copy"
    );
    let entries = spirv::entry_points(&words);
    let mut copy_gbs = None;
    let mut failed = false;
    for (i, k) in SPIRV_KERNELS.iter().enumerate() {
        match bench(&gpu, &entries, k, n, i as u64) {
            Ok(Some(ms)) => {
                let gbs = k.bytes_moved(n) as f64 / (ms as f64 * 1e6);
                let ratio = match copy_gbs {
                    None => {
                        copy_gbs = Some(gbs);
                        "1.00".to_string()
                    }
                    Some(c) => format!("{:.2}", gbs / c),
                };
                println!(
                    "{:<28} {:>5} {:>10.3} {:>9.2} {:>8}",
                    k.name,
                    lanes(k),
                    ms,
                    gbs,
                    ratio
                );
            }
            Ok(None) => {}
            Err(e) => {
                failed = true;
                println!("{:<28} {:>5} FAILED: {}", k.name, lanes(k), e);
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn lanes(k: &Kernel) -> String {
    if k.warp_size == 0 {
        "any".into()
    } else {
        k.warp_size.to_string()
    }
}

/// Kernel `k` checked and timed; `None` (with the reason printed) where the device cannot run it.
fn bench(
    gpu: &vulkan::Gpu,
    entries: &[String],
    k: &Kernel,
    n: u32,
    i: u64,
) -> Result<Option<f32>, String> {
    if let Err(why) = gpu.can_run(k) {
        println!("{:<28} {:>5} refused: {}", k.name, lanes(k), why);
        return Ok(None);
    }
    let suffix = format!("::{}", k.name);
    let entry = entries
        .iter()
        .find(|e| *e == k.name || e.ends_with(&suffix))
        .ok_or_else(|| format!("no entry point `{}` in the module", k.name))?;
    let seed = host::time_seed() ^ (i << 56);
    let input = host::random_input(k.input_elems(n), k.elem.bytes(), seed);
    let mut expected = vec![0u8; k.output_elems(n) * k.elem.bytes()];
    k.reference.expected(k, n, &input, &mut expected);
    // The dispatch passes the kernel's own extents check first (bounds and grid).
    k.check_launch(n)?;
    let (out, times) = gpu.run(entry, k, n, &input, expected.len(), 6)?;
    host::check(k, n, &out, &expected)?;
    Ok(Some(median(times[1..].to_vec())))
}

/// The median (upper median for an even count).
fn median(mut v: Vec<f32>) -> f32 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn fail(code: u8, msg: String) -> ExitCode {
    eprintln!("vk-bench: {}", msg);
    ExitCode::from(code)
}
