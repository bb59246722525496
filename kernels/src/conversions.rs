//! Conversion kernels over a large tensor, tile by tile: each CTA loads a tile in the source
//! layout, converts it, and stores it in the destination layout (so every element is read and
//! written once and the conversion itself is what differs between implementations).
//!
//! * `fp16_to_fp8_operand`: the operand conversion of seed 002 (dot operand A of an Ampere MMA,
//!   kWidth 2 as fp16 wants, to kWidth 4 as fp8 wants), on 8-bit values: warp shuffles.
//! * `nvmma_roundtrip`: registers to the 128-byte-swizzled `nvmma_shared` layout and back
//!   (`convert!` into and out of a shared layout).

use crate::global::Global;
use linear_layouts::{convert, layout, Thread};

layout! {
    /// Ampere accumulator of a 64x64 tile, 4 warps along M.
    pub Acc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]) for [64, 64];
    /// Operand A as fp16 reads it.
    pub OpA16 = dot_op(opIdx = 0, parent = Acc, kWidth = 2) for [64, 64];
    /// Operand A as fp8 reads it.
    pub OpA8 = dot_op(opIdx = 0, parent = Acc, kWidth = 4) for [64, 64];
    /// Rows of 64 halves, 16 bytes per thread.
    pub Rows16 = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    /// The TMA / wgmma layout with the 128-byte swizzle.
    pub Nvmma128 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}> : tensor<64x64xf16>;
}

// The operand conversion must stay within warps (the kernel gives it no shared memory).
const _: () = assert!(matches!(
    convert!(OpA16 => OpA8, u8).cost.strategy,
    linear_layouts::gpu_runtime::Strategy::Shuffles
));

/// Shared memory of `nvmma_roundtrip` per CTA, in bytes.
pub const NVMMA_SMEM: u32 = convert!(Rows16 => Nvmma128, u16).cost.shared_bytes;

/// Elements per tile.
pub const TILE: usize = 64 * 64;

// Consecutive registers hold consecutive K: pairs in the fp16 layout, fours in the fp8 one.
const _: () = assert!(OpA16::CONTIG_PER_THREAD[1] >= 2 && OpA8::CONTIG_PER_THREAD[1] >= 4);

/// Tile `k` (elements `k*4096..`, row-major 64x64) from `OpA16` to `OpA8`: 8-bit values, loaded
/// two at a time (kWidth 2 keeps pairs), stored four at a time.
#[inline(always)]
pub fn fp16_to_fp8_operand_tile<T: Thread, G: Global<u8>>(t: &T, inp: &G, out: &G, k: u32) {
    let (lane, warp) = (t.lane(), t.warp());
    let base = k as usize * TILE;
    let mut v = [0u8; 32];
    for g in 0..16 {
        let [i, j] = OpA16::apply(2 * g as u32, lane, warp, 0);
        let x: [u8; 2] = inp.load_n(base + (i * 64 + j) as usize);
        v[2 * g..2 * g + 2].copy_from_slice(&x);
    }
    let w = convert!(OpA16 => OpA8, u8).run(t, &v);
    for g in 0..8 {
        let [i, j] = OpA8::apply(4 * g as u32, lane, warp, 0);
        out.store_n(
            base + (i * 64 + j) as usize,
            [w[4 * g], w[4 * g + 1], w[4 * g + 2], w[4 * g + 3]],
        );
    }
}

/// Tile `k` of 16-bit elements through the 128-byte-swizzled shared layout and back.
#[inline(always)]
pub fn nvmma_roundtrip_tile<T: Thread, G: Global<u16>>(t: &T, inp: &G, out: &G, k: u32) {
    let (lane, warp) = (t.lane(), t.warp());
    let base = k as usize * TILE;
    let mut v = [0u16; 32];
    for g in 0..4 {
        let [i, j] = Rows16::apply(8 * g as u32, lane, warp, 0);
        let x: [u16; 8] = inp.load16(base + (i * 64 + j) as usize);
        v[8 * g..8 * g + 8].copy_from_slice(&x);
    }
    convert!(Rows16 => Nvmma128, u16).store(t, &v);
    t.sync_block();
    let w = convert!(Nvmma128 => Rows16, u16).load(t);
    for g in 0..4 {
        let [i, j] = Rows16::apply(8 * g as u32, lane, warp, 0);
        let mut x = [0u16; 8];
        x.copy_from_slice(&w[8 * g..8 * g + 8]);
        out.store16(base + (i * 64 + j) as usize, x);
    }
    // The next tile's stores must not overtake this tile's loads.
    t.sync_block();
}

#[cfg(target_arch = "nvptx64")]
mod gpu {
    use super::*;
    use crate::global::{Ptr, A16};
    use core::arch::nvptx::*;
    use linear_layouts::gpu_runtime::nvptx::GpuThread;

    /// `fp16_to_fp8_operand_tile` over `tiles` tiles, grid-stride; 128 threads per CTA.
    ///
    /// # Safety
    /// `inp` and `out` hold `tiles * 4096` bytes.
    #[no_mangle]
    pub unsafe extern "ptx-kernel" fn fp16_to_fp8_operand(
        inp: *const u8,
        out: *mut u8,
        tiles: u32,
    ) {
        let t = unsafe { GpuThread::new(core::ptr::null_mut()) };
        let mut k = _block_idx_x() as u32;
        while k < tiles {
            fp16_to_fp8_operand_tile(&t, &Ptr(inp as *mut u8), &Ptr(out), k);
            k += _grid_dim_x() as u32;
        }
    }

    /// `nvmma_roundtrip_tile` over `tiles` tiles, grid-stride; 128 threads, `NVMMA_SMEM` bytes
    /// of dynamic shared memory.
    ///
    /// # Safety
    /// `inp` and `out` hold `tiles * 4096` 16-bit elements, 16-byte aligned.
    #[no_mangle]
    pub unsafe extern "ptx-kernel" fn nvmma_roundtrip(inp: *const u16, out: *mut u16, tiles: u32) {
        let t = unsafe {
            GpuThread::new(
                core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<A16<[u32; 4]>>() as *mut u8,
            )
        };
        let mut k = _block_idx_x() as u32;
        while k < tiles {
            nvmma_roundtrip_tile(&t, &Ptr(inp as *mut u16), &Ptr(out), k);
            k += _grid_dim_x() as u32;
        }
    }
}
