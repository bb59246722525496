//! Kernels written with linear-layouts. Built for `nvptx64-nvidia-cuda` by `cargo xtask ptx`
//! (nightly, `-Z build-std=core`); on the host the same code is plain Rust that tests call.
//!
//! * [`activations`]: GELU and SiLU of f16 tensors with the device math's fast forms.
//! * [`index_math`]: the index functions of eleven layouts, each next to a hand-written
//!   shift/and/or version of the same map; `cargo xtask ptx-check` compares their PTX.
//! * [`transpose`]: tiled transposes through `convert!`, and a copy kernel for comparison.
//! * [`conversions`]: tile by tile over a large tensor, the fp16-to-fp8 operand conversion
//!   (shuffles), the MMA accumulator to operand A (free) and to its registers permuted, a round
//!   trip through the 128-byte-swizzled `nvmma_shared` layout, and the GEMM epilogue's
//!   accumulator to rows (`stmatrix` in rounds) once by `convert!` and once generically.
//! * [`gemm`]: `C = A · B` on tensor cores (`mma.sync`), every fragment a `layout!` type.
//! * [`gemm_pipelined`]: the Ampere-style GEMM: `cp.async` stages into swizzled shared
//!   layouts, `ldmatrix` fragments, `mma.sync`, every index from a layout.
//! * [`gemm_hopper`]: the Hopper GEMM: TMA loads into `nvmma_shared` stages completing on
//!   mbarriers, `wgmma` from shared memory into an `nvidia_mma` v3 accumulator, persistent tiles.
//! * [`gemm_hopper_ws`]: the same GEMM warp-specialised: a producer warpgroup issuing the
//!   copies, two consumer warpgroups multiplying, meeting at full and empty mbarriers.
//! * [`attention`]: flash attention forward (FlashAttention-2's loop) on `mma.sync`, the
//!   online softmax from `Tile`'s reductions and broadcasts, P handed to the next product with
//!   `Tile::convert`.
//! * [`attention_hopper`]: the same on Hopper: `cp.async` into `nvmma_shared` tiles, double
//!   buffered, `wgmma` for both products from shared memory, P stored for the second.
//! * [`rows`]: row softmax (f32, f16) and layer norm (f16, bf16) from `Tile`'s reductions,
//!   broadcasts and math, in width classes from 64 to 8,192 columns (`rows::CLASSES`).
//! * [`scans`]: row and cross-warp prefix sums (`Tile::scan`, Triton's `tl.cumsum`).
//! * [`relayouts`]: `Tile`'s relayouts in kernels: join, split and reshape (interleaving two
//!   tensors and back), expand_dims after a reduction, trans before a conversion.
//! * [`subgroup`]: the transposes and a shuffle conversion instantiated for warps of 8, 16, 32
//!   and 64 lanes (Vulkan subgroups; `kernels-spirv` builds them with rust-gpu).
//! * [`cluster`]: a transpose whose conversion moves data between the 2 CTAs of a cluster
//!   (distributed shared memory, cluster barriers).
//! * Global memory is the runtime's public `linear_layouts::runtime::global` (`Ptr` on the GPU,
//!   `sim::HostMemory` on the simulator); bodies are generic over it and over
//!   [`linear_layouts::Thread`], so `runner/tests/sim.rs` runs the same bodies on the simulator
//!   (the kernel table, launch shapes and CPU references are the runner's: `runner::table`).
//!
//! The nightly features the nvptx build needs are enabled by `layout-builder`, not here.
#![no_std]
// Every kernel is safe code: its views and partitions are what the launcher checks (the entry
// `#[kernel]` writes makes them, in its own `unsafe`, under those checks). `deny`, not
// `forbid`: the macros' own blocks allow it; `tests/safe.rs` finds none written here.
#![deny(unsafe_code)]

#[cfg(not(target_arch = "spirv"))]
pub mod activations;
#[cfg(not(target_arch = "spirv"))]
pub mod attention;
#[cfg(not(target_arch = "spirv"))]
pub mod attention_hopper;
#[cfg(not(target_arch = "spirv"))]
pub mod cluster;
#[cfg(not(target_arch = "spirv"))]
pub mod conversions;
#[cfg(not(target_arch = "spirv"))]
pub mod gemm;
#[cfg(not(target_arch = "spirv"))]
pub mod gemm_hopper;
#[cfg(not(target_arch = "spirv"))]
pub mod gemm_hopper_ws;
#[cfg(not(target_arch = "spirv"))]
pub mod gemm_pipelined;
#[cfg(not(target_arch = "spirv"))]
pub mod index_math;
#[cfg(not(target_arch = "spirv"))]
pub mod relayouts;
#[cfg(not(target_arch = "spirv"))]
pub mod rows;
#[cfg(not(target_arch = "spirv"))]
pub mod scans;
pub mod subgroup;
pub mod transpose;
