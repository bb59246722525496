//! Transpose of an `n x n` matrix by 64x64 tiles: each CTA of 4 warps loads its tile in a
//! row-major blocked layout (16-byte coalesced loads), `convert!`s it to the column-major blocked
//! layout through the shared memory the plan picks, and stores it transposed (16-byte coalesced
//! stores). Plus a plain copy kernel, the bandwidth yardstick.

use linear_layouts::runtime::global::Global;
use linear_layouts::{convert, layout, Thread};

layout! {
    /// Rows of 64 f32: lanes 0-15 cover a row with 4 consecutive elements each.
    pub TileIn = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    /// The same tile column-major: each thread holds 4 consecutive rows of one column.
    pub TileOut = blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 64];
    /// Rows of 64 halves: 8 consecutive elements (16 bytes) per thread.
    pub TileIn16 = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    /// Column-major, 8 consecutive rows per thread.
    pub TileOut16 = blocked(sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 64];
}

layout! {
    /// 128x128 halves for 8 warps: rows of 16-byte vectors.
    pub BigIn16 = blocked(sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]) for [128, 128];
    /// Column-major.
    pub BigOut16 = blocked(sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]) for [128, 128];
}

/// Shared memory of the 128x128 16-bit transpose per CTA, in bytes.
pub const TRANSPOSE16_BIG_SMEM: u32 = convert!(BigIn16 => BigOut16, u16).cost.shared_bytes;

/// Shared memory of the 16-bit transpose per CTA, in bytes.
pub const TRANSPOSE16_SMEM: u32 = convert!(TileIn16 => TileOut16, u16).cost.shared_bytes;

/// Shared memory the transpose needs per CTA, in bytes (the plan's, solved at compile time).
pub const TRANSPOSE_SMEM: u32 = convert!(TileIn => TileOut, f32).cost.shared_bytes;

/// A transpose tile function: load `$tile x $tile` with `$vec`-element (16-byte) loads in layout
/// `$in`, `convert!` to `$out`, store transposed with 16-byte stores.
macro_rules! transpose_tile {
    ($(#[$m:meta])* $name:ident, $in:ident => $out:ident, $e:ident, $tile:literal, $regs:literal, $vec:literal) => {
        $(#[$m])*
        #[inline(always)]
        pub fn $name<T: Thread, G: Global<$e>>(t: &T, inp: &G, out: &G, n: u32, bx: u32, by: u32) {
            let (lane, warp) = (t.lane(), t.warp());
            let (row0, col0) = (by * $tile, bx * $tile);
            let mut v = [<$e>::default(); $regs];
            for g in 0..$regs / $vec {
                let [i, j] = $in::apply(($vec * g) as u32, lane, warp, 0);
                let x: [$e; $vec] = inp.load16(((row0 + i) * n + col0 + j) as usize);
                v[$vec * g..$vec * g + $vec].copy_from_slice(&x);
            }
            let w = convert!($in => $out, $e).run(t, &v);
            for g in 0..$regs / $vec {
                let [i, j] = $out::apply(($vec * g) as u32, lane, warp, 0);
                let mut x = [<$e>::default(); $vec];
                x.copy_from_slice(&w[$vec * g..$vec * g + $vec]);
                out.store16(((col0 + j) * n + row0 + i) as usize, x);
            }
        }
    };
}

transpose_tile!(
    /// One 64x64 tile of the f32 transpose: tile `(bx, by)` of `inp` to tile `(by, bx)` of
    /// `out`. The whole CTA (4 warps) calls it; `t` has `TRANSPOSE_SMEM` bytes of shared memory.
    transpose_f32_tile, TileIn => TileOut, f32, 64, 32, 4
);
transpose_tile!(
    /// One 64x64 tile of the 16-bit transpose (4 warps, `TRANSPOSE16_SMEM` bytes).
    transpose_u16_tile, TileIn16 => TileOut16, u16, 64, 32, 8
);
transpose_tile!(
    /// One 128x128 tile of the 16-bit transpose (8 warps, `TRANSPOSE16_BIG_SMEM` bytes).
    transpose_u16_big_tile, BigIn16 => BigOut16, u16, 128, 64, 8
);

#[cfg(target_arch = "nvptx64")]
mod gpu {
    use super::*;
    use core::arch::nvptx::*;
    use linear_layouts::runtime::global::{Ptr, A16};
    use linear_layouts::runtime::nvptx::GpuThread;

    #[inline(always)]
    unsafe fn thread() -> GpuThread {
        unsafe {
            GpuThread::new(
                core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<A16<[u32; 4]>>() as *mut u8,
            )
        }
    }

    /// A transpose kernel over a tile function: grid `(n / tile, n / tile)`, one tile per CTA.
    macro_rules! transpose_kernel {
        ($(#[$m:meta])* $name:ident, $tile:ident, $e:ident) => {
            $(#[$m])*
            ///
            /// # Safety
            /// `inp` and `out` hold `n * n` elements, 16-byte aligned.
            #[no_mangle]
            pub unsafe extern "ptx-kernel" fn $name(inp: *const $e, out: *mut $e, n: u32) {
                let t = unsafe { thread() };
                let (bx, by) = (_block_idx_x() as u32, _block_idx_y() as u32);
                $tile(&t, &unsafe { Ptr::new(inp as *mut $e) }, &unsafe { Ptr::new(out) }, n, bx, by);
            }
        };
    }

    transpose_kernel!(
        /// `out = in^T` for `n x n` f32, `n` a multiple of 64; 128 threads, `TRANSPOSE_SMEM`
        /// bytes of dynamic shared memory.
        transpose_f32, transpose_f32_tile, f32
    );
    transpose_kernel!(
        /// `out = in^T` for `n x n` 16-bit elements; 128 threads, `TRANSPOSE16_SMEM` bytes of
        /// dynamic shared memory.
        transpose_u16, transpose_u16_tile, u16
    );
    transpose_kernel!(
        /// `out = in^T` for `n x n` 16-bit elements by 128x128 tiles; 256 threads,
        /// `TRANSPOSE16_BIG_SMEM` bytes of dynamic shared memory.
        transpose_u16_128, transpose_u16_big_tile, u16
    );

    /// `out = in`, `n4` 16-byte vectors, one per thread per iteration (grid-stride).
    ///
    /// # Safety
    /// `inp` and `out` hold `n4` 16-byte vectors.
    #[no_mangle]
    pub unsafe extern "ptx-kernel" fn copy_v4(
        inp: *const A16<[u32; 4]>,
        out: *mut A16<[u32; 4]>,
        n4: u32,
    ) {
        let stride = _grid_dim_x() as u32 * _block_dim_x() as u32;
        let mut i = _block_idx_x() as u32 * _block_dim_x() as u32 + _thread_idx_x() as u32;
        while i < n4 {
            unsafe { out.add(i as usize).write(inp.add(i as usize).read()) };
            i += stride;
        }
    }
}
