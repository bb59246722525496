//! `gpu-bench PTX [N]`: load the kernels' PTX (from `cargo xtask ptx`), run every kernel of
//! `runner::table` on fresh random inputs into a poisoned output, check every element against
//! the table's CPU reference, and time each with CUDA events (3 warm-ups, median of 30) next to
//! a device-to-device copy of the same bytes. Without a CUDA driver or device it says so and
//! exits with status 2.
//!
//! `gpu-bench --list [N]`: the table as JSON lines, one kernel per line with its launch for
//! `N x N` elements (what `scripts/gpu_bench.py` reads); needs no GPU.
//!
//! `gpu-bench --rows`: the row kernels' width classes (`kernels::rows::CLASSES`) as JSON lines,
//! each with its launch and entry points (what `scripts/rows_gpu_bench.py` reads).
//!
//! `gpu-bench --attention`: flash attention's tile, launch and entry points as one JSON line
//! (what `scripts/attention_gpu_bench.py` reads).

mod gpu;
mod host;

use std::process::ExitCode;

use runner::table::KERNELS;

const USAGE: &str =
    "usage: gpu-bench [PTX [N]] | gpu-bench --list [N] | gpu-bench --rows | gpu-bench --attention
  PTX  the kernels' PTX (default target/ptx/kernels.ptx, from `cargo xtask ptx`)
  N    problem size: N x N elements (default 16384)";

/// Every kernel of the table checked and timed, in the table's order.
fn run(ptx: &str, n: u32) -> Result<Vec<host::Row>, String> {
    let gpu = gpu::Gpu::new(ptx)?;
    let seed = host::time_seed();
    let mut copies = Vec::new();
    KERNELS
        .iter()
        .enumerate()
        .map(|(i, k)| gpu.bench(k, n, seed ^ ((i as u64) << 56), &mut copies))
        .collect()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| args.get(i).map(String::as_str);
    if matches!(arg(0), Some("-h" | "--help")) {
        println!("{}", USAGE);
        return ExitCode::SUCCESS;
    }
    if arg(0) == Some("--rows") {
        for c in &kernels::rows::CLASSES {
            println!("{}", host::row_class_json(c));
        }
        return ExitCode::SUCCESS;
    }
    if arg(0) == Some("--attention") {
        println!("{}", host::attention_json());
        return ExitCode::SUCCESS;
    }
    let list = arg(0) == Some("--list");
    let n = match host::parse_n(arg(1)) {
        Ok(n) => n,
        Err(msg) => {
            eprintln!("gpu-bench: {}", msg);
            return ExitCode::from(2);
        }
    };
    if list {
        for k in KERNELS {
            println!("{}", host::json_line(k, n));
        }
        return ExitCode::SUCCESS;
    }
    match run(arg(0).unwrap_or("target/ptx/kernels.ptx"), n) {
        Ok(rows) => {
            println!("{}", host::header(n));
            for r in rows {
                println!("{}", r);
            }
            ExitCode::SUCCESS
        }
        Err(msg) => {
            eprintln!("gpu-bench: {}", msg);
            ExitCode::from(2)
        }
    }
}
