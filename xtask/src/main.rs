//! `cargo xtask`: build tasks that need more than `cargo build`.
//!
//! * `ptx`: build the `kernels` crate for `nvptx64-nvidia-cuda` (nightly, `-Z build-std=core`,
//!   installing nightly's `rust-src` if missing) and write `target/ptx/kernels.ptx`.
//! * `ptx-check`: `ptx`, then check every kernel's global loads and stores (kind, width, count)
//!   against the table in `ptx.rs`, the run-time checks (`trap`) each kernel keeps against
//!   `RUNTIME_CHECKS`, that no aligned instruction (barrier, mma, wgmma) is reached by part
//!   of a warp (`layout_builder::convergence`, which every build also runs), and count the
//!   PTX instructions of every `<name>_macro` / `<name>_hand` pair of `kernels::index_math`
//!   and fail if a generated version is longer.
//! * `gpu`: `ptx`, then the host runner `gpu-bench` (cudarc, dynamic loading), and the exact
//!   command to run both on a machine with a GPU.
//! * `spirv`: build the `kernels-spirv` crate with rust-gpu (its pinned nightly installed with
//!   rustup if missing) into `target/spirv/kernels.spv` and check it with `spirv-val`.
//! * `compile-time`: time the build of a crate with N `layout!` layouts against the same crate
//!   without them.

mod compile_time;
mod ptx;
mod ptxas;
mod spirv;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "cargo xtask", about = "Build tasks of linear-layouts")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Build the kernels' PTX (target/ptx/kernels.ptx).
    Ptx,
    /// Build the PTX and the cudarc host runner, and print the command that runs them on a GPU.
    Gpu,
    /// Build the PTX and check that generated index math is no longer than hand-written.
    PtxCheck {
        /// Print the table as Markdown (for BENCHMARKS.md).
        #[arg(long)]
        markdown: bool,
    },
    /// Build the SPIR-V kernels with rust-gpu (target/spirv/kernels.spv) and validate them.
    Spirv {
        /// Keep rust-gpu's bounds checks (each an early return of the entry point).
        #[arg(long)]
        checked: bool,
        /// The subgroup sizes to build kernels for (8 always; 16, 32, 64 by default too).
        #[arg(long, value_delimiter = ',', default_values_t = [8, 16, 32, 64])]
        lanes: Vec<u32>,
    },
    /// Measure what N layouts add to a crate's build time.
    CompileTime {
        /// Number of layouts.
        #[arg(long, default_value_t = 200)]
        layouts: usize,
        /// Builds per variant; the median is reported.
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Instead: time N conversions planned by `convert!` against the same N planned as
        /// generic consts (`Planned`), each against the crate with only their layouts.
        #[arg(long)]
        conversions: Option<usize>,
        /// With `--conversions`: conversions that move data between warps (shared memory).
        #[arg(long)]
        shared: bool,
        /// With `--conversions` or `--reductions`: also compile each one's code (a function
        /// that runs it on the simulator's thread), not only its plan.
        #[arg(long)]
        run: bool,
        /// Instead: time N reductions (their plans, shared memory and cost as consts) against
        /// the crate with only their layouts.
        #[arg(long)]
        reductions: Option<usize>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Ptx => ptx::build().map(|p| println!("{}", p.display())),
        Cmd::Gpu => ptx::gpu(),
        Cmd::PtxCheck { markdown } => ptx::check(markdown),
        Cmd::Spirv { checked, lanes } => spirv::build(checked, &lanes).map(|_| ()),
        Cmd::CompileTime {
            layouts,
            runs,
            conversions,
            shared,
            run,
            reductions,
        } => match (conversions, reductions) {
            (Some(n), _) => compile_time::conversions(n, shared, run, runs),
            (None, Some(n)) => compile_time::reductions(n, run, runs),
            (None, None) => compile_time::run(layouts, runs),
        },
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {}", e);
            ExitCode::FAILURE
        }
    }
}

/// The workspace root (xtask lives one level below it).
pub fn root() -> std::path::PathBuf {
    let here = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent().map(|p| p.to_path_buf()).unwrap_or(here)
}
