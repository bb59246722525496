//! # layout-builder
//!
//! Builds a kernel crate (a `no_std` library written with `linear-layouts`) into one PTX file,
//! from the host crate's `build.rs` or from the `layout-builder` command line, the way rust-gpu's
//! `spirv-builder` and Rust-CUDA's `cuda_builder` do:
//!
//! ```no_run
//! // In the host crate's build.rs, `fn main` does:
//! let ptx = layout_builder::PtxBuilder::new("../kernel").arch("sm_90").build().unwrap();
//! // `KERNEL_PTX` (the crate's name, upper-cased, then `_PTX`) now names the file:
//! // `include_str!(env!("KERNEL_PTX"))` in the host crate.
//! # let _ = ptx;
//! ```
//!
//! What it does, so that the kernel crate needs nothing but its code:
//! * checks for the nightly toolchain and its `rust-src` and installs them with `rustup` when
//!   missing (nvptx needs `-Z build-std=core`, which only nightly has);
//! * builds the crate's library for `nvptx64-nvidia-cuda` with `-Z build-std=core`, with the
//!   nightly features a kernel needs enabled on the crate (`abi_ptx`, `stdarch_nvptx`,
//!   `core_intrinsics`, `gpu_intrinsics`, `gpu_launch_sized_workgroup_mem`: the crate must not
//!   enable them itself);
//! * builds with `-C panic=immediate-abort`, so a panic anywhere (a failed bounds check) is a
//!   `trap` in the PTX rather than a call to an unresolved `core::panicking` function that
//!   `ptxas` refuses;
//! * links into the PTX what it calls of its dependencies (`libm`, or any crate whose functions
//!   are neither generic nor inline), from their LLVM bitcode, so the PTX is self-contained,
//!   and fails the build naming any function still unresolved (`link`);
//! * fails the build, naming the entry and the instructions, when an aligned instruction (a
//!   `bar.sync`, `mma.sync`, `wgmma`, ...) is reached by part of a warp, between a branch on
//!   the lane and the point where the warp meets again ([`convergence`]): undefined on the GPU
//!   (a barrier completes early), and invisible to the simulator, which runs the Rust;
//! * writes the launch bounds `#[kernel(min_blocks = ..)]` asks for as the entries'
//!   `.maxntid`/`.minnctapersm` (`bounds`);
//! * copies the PTX to one stable file: `<out dir>/<crate>.ptx`, the out dir being `$OUT_DIR`
//!   in a build script (and `cargo:rustc-env=<CRATE>_PTX=<path>` is printed) or
//!   `<target dir>/ptx` otherwise;
//! * builds in `$OUT_DIR/nvptx`, or in the directory `LAYOUT_NVPTX_TARGET_DIR` names: kernel
//!   crates (or CI jobs) that set it to one directory share one nvptx build of `core` and of
//!   the runtime.

mod bounds;
mod build;
pub mod convergence;
mod error;
mod host_errors;
mod link;
mod progress;
mod toolchain;

pub use build::{PtxBuilder, TARGET_DIR_VAR};
pub use error::BuildError;
pub use toolchain::{assemble, clean_env, ensure_components, ensure_toolchain, find_ptxas};
