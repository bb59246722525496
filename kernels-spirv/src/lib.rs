//! The SPIR-V kernels: `kernels`' subgroup transposes and shuffle conversion for warps of 8,
//! 16, 32 and 64 lanes, and the copy kernel they are measured against, each a `#[kernel]`
//! entry point of one module. `cargo xtask spirv` builds it with rust-gpu into
//! `target/spirv/kernels.spv`; `vk-bench` runs it. The bodies are `kernels`' own (the same the
//! simulator tests and the PTX build run); only the entry points are written here. The 8-lane
//! kernels are always built; the wider subgroups' are the default features `lanes-16`,
//! `lanes-32` and `lanes-64` (`cargo xtask spirv --lanes 8` leaves them out: CI's Vulkan device,
//! lavapipe, runs only 8-lane subgroups, and each size adds a minute to rust-gpu's inliner).
#![no_std]
#![deny(unsafe_code)]

use linear_layouts::{kernel, Thread, Vectors, VectorsMut};

kernels::subgroup_kernels_of!(8);
#[cfg(feature = "lanes-16")]
kernels::subgroup_kernels_of!(16);
#[cfg(feature = "lanes-32")]
kernels::subgroup_kernels_of!(32);
#[cfg(feature = "lanes-64")]
kernels::subgroup_kernels_of!(64);

/// `out = in`, `n4` 16-byte vectors grid-stride: the bandwidth yardstick (`kernels`' `copy_v4`
/// body, 64 threads per workgroup).
#[kernel(block = 64, extent(inp = n4, out = n4))]
pub fn copy_v4(t: &impl Thread, inp: Vectors<u32, 4>, out: VectorsMut<u32, 4>, n4: u32) {
    kernels::transpose::copy_v4_body(t, &inp, &out)
}
