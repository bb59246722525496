//! A conversion that moves data between the CTAs of a cluster (Hopper's distributed shared
//! memory): each 64x64 f32 tile is handled by a cluster of 2 CTAs, loaded with its rows split
//! between them and stored transposed with its columns split, so that half of every CTA's
//! elements end up in the other CTA. `convert!` plans it as Triton does: each CTA stores into its
//! own shared memory, a cluster barrier, loads from either CTA through `mapa` +
//! `ld.shared::cluster`, in rounds, and a closing cluster barrier.

use linear_layouts::{convert, kernel, layout, Global, GlobalMut, Thread};

layout! {
    /// Rows split between the 2 CTAs; each thread holds 4 consecutive columns.
    pub ClusterRows = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]) for [64, 64];
    /// Columns split between the 2 CTAs; each thread holds 4 consecutive rows.
    pub ClusterCols = blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1], CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [0, 1]) for [64, 64];
}

/// Shared memory per CTA of `cluster_transpose`, in bytes.
pub const CLUSTER_SMEM: u32 = convert!(ClusterRows => ClusterCols, f32).cost.shared_bytes;

/// Elements per tile.
pub const TILE: usize = 64 * 64;

// Across CTAs: a shared-memory plan with cluster barriers.
const _: () = assert!(
    matches!(
        convert!(ClusterRows => ClusterCols, f32).cost.strategy,
        linear_layouts::runtime::Strategy::SharedMemory
    ) && ClusterRows::ELEMENTS_PER_THREAD == 16
        && ClusterCols::ELEMENTS_PER_THREAD == 16
);

/// Tile `k` (row-major 64x64 f32 at `k * 4096`) transposed into the same place of `out`, by CTA
/// `cta_rank()` of a 2-CTA cluster: 16-byte loads along rows, 16-byte stores along columns.
///
/// # Safety
/// Both buffers hold tile `k` (its elements from `k * TILE`), and no other CTA writes it: a
/// kernel's launcher checks its `extent(..)`, and a grid-stride loop gives each tile one CTA
/// (one cluster, for a cluster's tiles).
#[inline(always)]
#[allow(unsafe_code)]
pub unsafe fn cluster_transpose_tile<T: Thread>(
    t: &T,
    inp: &Global<f32>,
    out: &GlobalMut<f32>,
    k: u32,
) {
    let (lane, warp, cta) = (t.lane(), t.warp(), t.cta_rank());
    let base = k as usize * TILE;
    let mut v = [0f32; 16];
    for g in 0..4 {
        let [i, j] = ClusterRows::apply(4 * g as u32, lane, warp, cta);
        let x: [f32; 4] = inp.load_n(base + (i * 64 + j) as usize);
        v[4 * g..4 * g + 4].copy_from_slice(&x);
    }
    let w = convert!(ClusterRows => ClusterCols, f32).run(t, &v);
    for g in 0..4 {
        let [i, j] = ClusterCols::apply(4 * g as u32, lane, warp, cta);
        out.store_n(
            base + (j * 64 + i) as usize,
            [w[4 * g], w[4 * g + 1], w[4 * g + 2], w[4 * g + 3]],
        );
    }
}

/// `cluster_transpose_tile` over `tiles` tiles (`tiles * 4096` f32), grid-stride by cluster:
/// clusters of 2 CTAs along x, on sm_90.
#[kernel(block = ClusterRows::THREADS, shared = CLUSTER_SMEM, cluster = 2, extent(inp = linear_layouts::runtime::kernel::within_grid(grid, grid[0], tiles * TILE as i128), out = linear_layouts::runtime::kernel::within_grid(grid, grid[0], tiles * TILE as i128)))]
pub fn cluster_transpose(t: &impl Thread, inp: Global<f32>, out: GlobalMut<f32>, tiles: u32) {
    // Both CTAs of a cluster walk the same tiles (the conversion's barriers join them).
    let mut k = t.block() / 2;
    while k < tiles {
        // SAFETY: the launcher checked both buffers hold `tiles` tiles and the grid is 1-D; the
        // clusters take distinct tiles, and a cluster's two CTAs store disjoint halves of one.
        #[allow(unsafe_code)]
        unsafe {
            cluster_transpose_tile(t, &inp, &out, k)
        };
        k += t.grid_dim()[0] / 2;
    }
}
