//! Kernels written once and instantiated per warp (subgroup) size, for Vulkan devices whose
//! subgroups have 8, 16, 32 or 64 lanes: the f32 and 16-bit tiled transposes (the bodies of
//! [`crate::transpose`], through `transpose_tile!`) and a warp-shuffle conversion, each on 4
//! warps. [`subgroup_kernels!`](crate::subgroup_kernels) writes one module per size: its layouts
//! (`#[warp_size = N]`, Triton's semantics), the plans `convert!` solves for the `spirv_N` target
//! (no matrix instructions, no clusters), and `#[kernel(warp_size = N)]` entry points.
//!
//! The host build instantiates all four here, so `runner/tests/sim.rs` runs them on the simulator with
//! warps of their size and `table::SPIRV_KERNELS` describes them; `kernels-spirv` instantiates the
//! same four for rust-gpu. A NVIDIA build leaves them out (its warps have 32 lanes; the PTX
//! kernels are the other modules).

#[doc(hidden)]
pub use linear_layouts as __ll;

/// One module `$m` of kernels for warps of `$w` lanes, `4 * $w` threads per block. The f32
/// transpose's tiles are rows of `[$r0, $r1]` threads and columns of `[$c0, $c1]`; the 16-bit
/// one's `[$h0, $h1]` and `[$g0, $g1]`; the shuffle conversion renumbers the lanes of
/// `[$a0, $a1]` threads (rows of 4) from row-major to column-major on a `[$sr, $sc]` tile, so that
/// every element stays in its warp and moves between lanes. Entry points are named
/// `<kernel>_w<lanes>` (`$tf`, `$th`, `$sh`).
#[macro_export]
macro_rules! subgroup_kernels {
    ($m:ident, lanes = $w:tt, threads = $threads:tt, target = $tgt:ident,
     f32 = [$r0:tt, $r1:tt] => [$c0:tt, $c1:tt],
     u16 = [$h0:tt, $h1:tt] => [$g0:tt, $g1:tt],
     shuffle = [$a0:tt, $a1:tt] for [$sr:tt, $sc:tt],
     names = [$tf:ident, $th:ident, $sh:ident]) => {
        #[doc = concat!("Kernels for warps of ", stringify!($w), " lanes.")]
        pub mod $m {
            use $crate::subgroup::__ll::{convert, kernel, layout, Blocks, BlocksMut, Thread, Tile, Tiled, TiledMut};

            layout! {
                /// Rows of 64 f32, 4 consecutive elements per thread.
                #[warp_size = $w]
                pub TileIn = blocked(sizePerThread = [1, 4], threadsPerWarp = [$r0, $r1], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
                /// The same tile column-major.
                #[warp_size = $w]
                pub TileOut = blocked(sizePerThread = [4, 1], threadsPerWarp = [$c0, $c1], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 64];
                /// Rows of 64 halves, 8 consecutive elements (16 bytes) per thread.
                #[warp_size = $w]
                pub TileIn16 = blocked(sizePerThread = [1, 8], threadsPerWarp = [$h0, $h1], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
                /// Column-major, 8 consecutive rows per thread.
                #[warp_size = $w]
                pub TileOut16 = blocked(sizePerThread = [8, 1], threadsPerWarp = [$g0, $g1], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 64];
                /// Rows of 4 per thread.
                #[warp_size = $w]
                pub ShuffleIn = blocked(sizePerThread = [1, 4], threadsPerWarp = [$a0, $a1], warpsPerCTA = [4, 1], order = [1, 0]) for [$sr, $sc];
                /// The same threads' block, its lanes numbered down the columns first: each warp
                /// covers the same elements as in `ShuffleIn`, held by other lanes.
                #[warp_size = $w]
                pub ShuffleOut = blocked(sizePerThread = [1, 4], threadsPerWarp = [$a0, $a1], warpsPerCTA = [4, 1], order = [0, 1]) for [$sr, $sc];
            }

            /// Threads per block: 4 warps.
            pub const THREADS: u32 = TileIn::THREADS;
            const _: () = assert!(THREADS == $threads && TileIn16::THREADS == $threads && ShuffleIn::THREADS == $threads);
            /// Shared memory of the f32 transpose, in bytes.
            pub const TRANSPOSE_SMEM: u32 = convert!(TileIn => TileOut, f32, target = $tgt).cost.shared_bytes;
            /// Shared memory of the 16-bit transpose, in bytes.
            pub const TRANSPOSE16_SMEM: u32 = convert!(TileIn16 => TileOut16, u16, target = $tgt).cost.shared_bytes;

            $crate::transpose_tile!(
                /// One 64x64 tile of the f32 transpose.
                transpose_f32_tile, TileIn => TileOut, f32;
                target = $tgt
            );
            $crate::transpose_tile!(
                /// One 64x64 tile of the 16-bit transpose.
                transpose_u16_tile, TileIn16 => TileOut16, u16;
                target = $tgt
            );

            /// `out = in^T` for `n x n` f32 by 64x64 tiles: grid `(n / 64, n / 64)`.
            #[kernel(crate = $crate::subgroup::__ll, block = $threads, shared = TRANSPOSE_SMEM, warp_size = $w, extent(inp = [n, n], out = [n, n]))]
            pub fn $tf(t: &impl Thread, inp: Blocks<f32, TileIn>, out: BlocksMut<f32, TileOut, true>, n: u32) {
                transpose_f32_tile(t, &inp, &out);
            }

            /// `out = in^T` for `n x n` 16-bit elements by 64x64 tiles.
            #[kernel(crate = $crate::subgroup::__ll, block = $threads, shared = TRANSPOSE16_SMEM, warp_size = $w, extent(inp = [n, n], out = [n, n]))]
            pub fn $th(t: &impl Thread, inp: Blocks<u16, TileIn16>, out: BlocksMut<u16, TileOut16, true>, n: u32) {
                transpose_u16_tile(t, &inp, &out);
            }

            /// `out = in` through `ShuffleIn => ShuffleOut` by warp shuffles, `tiles`
            /// consecutive row-major tiles, grid-stride.
            #[kernel(crate = $crate::subgroup::__ll, block = $threads, warp_size = $w, extent(inp = tiles, out = tiles))]
            pub fn $sh(t: &impl Thread, inp: Tiled<f32, ShuffleIn>, out: TiledMut<f32, ShuffleOut>, tiles: u32) {
                out.each(t).for_each(|k| {
                    let a = inp.load(t, k);
                    let b = convert!(ShuffleIn => ShuffleOut, f32, shuffles, target = $tgt).run(t, &a.values);
                    out.store(t, k, &Tile::<ShuffleOut, f32, _>::new(b));
                });
            }
        }
    };
}

/// The module for warps of `lanes` (8, 16, 32 or 64), with the entry names both builds share.
#[macro_export]
macro_rules! subgroup_kernels_of {
    (8) => {
        $crate::subgroup_kernels!(w8, lanes = 8, threads = 32, target = spirv_8,
            f32 = [1, 8] => [8, 1], u16 = [1, 8] => [8, 1],
            shuffle = [4, 2] for [16, 8],
            names = [transpose_f32_w8, transpose_u16_w8, shuffle_f32_w8]);
    };
    (16) => {
        $crate::subgroup_kernels!(w16, lanes = 16, threads = 64, target = spirv_16,
            f32 = [1, 16] => [16, 1], u16 = [2, 8] => [8, 2],
            shuffle = [4, 4] for [16, 16],
            names = [transpose_f32_w16, transpose_u16_w16, shuffle_f32_w16]);
    };
    (32) => {
        $crate::subgroup_kernels!(w32, lanes = 32, threads = 128, target = spirv_32,
            f32 = [2, 16] => [16, 2], u16 = [4, 8] => [8, 4],
            shuffle = [8, 4] for [32, 16],
            names = [transpose_f32_w32, transpose_u16_w32, shuffle_f32_w32]);
    };
    (64) => {
        $crate::subgroup_kernels!(w64, lanes = 64, threads = 256, target = spirv_64,
            f32 = [4, 16] => [16, 4], u16 = [8, 8] => [8, 8],
            shuffle = [8, 8] for [32, 32],
            names = [transpose_f32_w64, transpose_u16_w64, shuffle_f32_w64]);
    };
}

/// Every warp size's module.
#[macro_export]
macro_rules! all_subgroup_kernels {
    () => {
        $crate::subgroup_kernels_of!(8);
        $crate::subgroup_kernels_of!(16);
        $crate::subgroup_kernels_of!(32);
        $crate::subgroup_kernels_of!(64);
    };
}

#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
crate::all_subgroup_kernels!();
