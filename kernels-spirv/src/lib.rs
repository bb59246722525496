//! The SPIR-V kernels: `kernels`' subgroup transposes and shuffle conversion for warps of 8,
//! 16, 32 and 64 lanes, and the copy kernel they are measured against, each a `#[kernel]`
//! entry point of one module. `cargo xtask spirv` builds it with rust-gpu into
//! `target/spirv/kernels.spv`; `vk-bench` runs it. The bodies are `kernels`' own (the same the
//! simulator tests and the PTX build run); only the entry points are written here. The 8-lane
//! kernels are always built; the wider subgroups' are the default features `lanes-16`,
//! `lanes-32` and `lanes-64` (`cargo xtask spirv --lanes 8` leaves them out: CI's Vulkan device,
//! lavapipe, runs only 8-lane subgroups, and each size adds a minute to rust-gpu's inliner).
#![no_std]

use linear_layouts::{kernel, Global, GlobalMut, Thread};

kernels::subgroup_kernels_of!(8);
#[cfg(feature = "lanes-16")]
kernels::subgroup_kernels_of!(16);
#[cfg(feature = "lanes-32")]
kernels::subgroup_kernels_of!(32);
#[cfg(feature = "lanes-64")]
kernels::subgroup_kernels_of!(64);

/// `out = in`, `n4` 16-byte vectors grid-stride: the bandwidth yardstick (`kernels`' `copy_v4`
/// body, 64 threads per workgroup).
#[kernel(block = 64, extent(inp = linear_layouts::runtime::kernel::within_grid(grid, (1 << 32) / 64, 4 * n4), out = linear_layouts::runtime::kernel::within_grid(grid, (1 << 32) / 64, 4 * n4)))]
pub fn copy_v4(t: &impl Thread, inp: Global<u32>, out: GlobalMut<u32>, n4: u32) {
    // SAFETY: the launcher checked both extents.
    #[allow(unsafe_code)]
    unsafe {
        kernels::transpose::copy_v4_body(t, &inp, &out, n4)
    }
}
