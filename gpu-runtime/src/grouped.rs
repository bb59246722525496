//! Grouped block partitions ([`GroupedMut`]): a row-major `[rows, cols]` matrix cut into blocks
//! of a 2-D layout's shape `[bh, bw]`, numbered in Triton's grouped order (along the columns
//! within groups of [`GROUP_ROWS`] block rows, so that CTAs running together share the rows and
//! columns of a GEMM's operands in L2), CTA `b` of a 1-D grid owning block number `b` and, in a
//! persistent kernel's loop, `b + grid`, `b + 2 grid`, ...
//!
//! The launcher checks the buffer holds the matrix, both dims are whole blocks (no block is
//! cut, no element left unwritten) and the grid has at most one CTA per block, so a CTA stores
//! its blocks with no mask, and no two CTAs write one element: a [`BlockIndex`] comes only from
//! [`GroupedMut::block`] or [`GroupedMut::each`], and [`grouped_block`] is a bijection of the
//! block numbers onto the blocks (a test checks it over every shape up to 40 x 40 blocks).

use core::marker::PhantomData;

use crate::element::Element;
use crate::global::GlobalMut;
use crate::layout::{Layout, Registers};
use crate::thread::Thread;
use crate::tile::Tile;
use crate::tiles::{exclusive, GridStride};

/// Block rows per group of the grouped order (Triton's tutorial's `GROUP_SIZE_M`).
pub const GROUP_ROWS: u32 = 8;

/// Block `pid` of `[tiles_m, tiles_n]` blocks in grouped order, as `[block row, block column]`:
/// along the columns within groups of [`GROUP_ROWS`] block rows (the last group as many as
/// are left). A bijection of `0..tiles_m * tiles_n` onto the blocks.
#[inline(always)]
pub fn grouped_block(pid: u32, [tiles_m, tiles_n]: [u32; 2]) -> [u32; 2] {
    let group = GROUP_ROWS * tiles_n;
    let first_m = pid / group * GROUP_ROWS;
    let rows = if tiles_m - first_m < GROUP_ROWS {
        tiles_m - first_m
    } else {
        GROUP_ROWS
    };
    [first_m + pid % group % rows, pid % group / rows]
}

/// A matrix a kernel writes, one block of `L`'s shape per block number, in grouped order (see
/// the module).
pub struct GroupedMut<'a, E, L> {
    dst: GlobalMut<'a, E>,
    rows: u32,
    cols: u32,
    layout: PhantomData<fn() -> L>,
}

/// A block of a [`GroupedMut`]: made only by its CTA's [`GroupedMut::block`] or loop
/// ([`GroupedMut::each`]), so a CTA stores only its own blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockIndex {
    origin: [u32; 2],
    coords: [u32; 2],
    /// The partition it was made for: its matrix in blocks, and the blocks' shape.
    blocks: [u32; 2],
    size: [u32; 2],
}

impl BlockIndex {
    /// The partition's matrix in blocks and the blocks' shape: `coords` is below `blocks`.
    #[inline(always)]
    pub(crate) fn grid(self) -> ([u32; 2], [u32; 2]) {
        (self.blocks, self.size)
    }

    /// The block's first row and column in the matrix.
    #[inline(always)]
    pub fn origin(self) -> [u32; 2] {
        self.origin
    }

    /// The block's row and column among the matrix's blocks.
    #[inline(always)]
    pub fn coords(self) -> [u32; 2] {
        self.coords
    }
}

/// This CTA's blocks of a persistent loop: numbers `block`, `block + grid`, ... below the
/// block count, each in grouped order.
#[derive(Clone, Copy, Debug)]
pub struct EachBlock {
    /// Block numbers: `blocks` is below 2^31 and the grid at most `blocks` (the constructor's
    /// contract), so the step never wraps.
    ks: GridStride,
    shape: [u32; 2],
    size: [u32; 2],
}

impl Iterator for EachBlock {
    type Item = BlockIndex;
    #[inline(always)]
    fn next(&mut self) -> Option<BlockIndex> {
        let (shape, size) = (self.shape, self.size);
        self.ks.next().map(|k| numbered(k, shape, size))
    }
}

/// Block number `k` of `shape` blocks of `size` elements.
#[inline(always)]
fn numbered(k: u32, blocks: [u32; 2], size: [u32; 2]) -> BlockIndex {
    let [i, j] = grouped_block(k, blocks);
    BlockIndex {
        origin: [size[0] * i, size[1] * j],
        coords: [i, j],
        blocks,
        size,
    }
}

impl<'a, E: Element, L: Layout> GroupedMut<'a, E, L> {
    /// The row-major `[rows, cols]` matrix at `dst`: what `#[kernel]` makes of the parameter.
    ///
    /// # Safety
    /// `dst` holds `rows * cols` elements (at most `u32::MAX + 1`), both dims are multiples of
    /// `L`'s, there are fewer than 2^31 blocks, the launch's grid is 1-D with at most one CTA
    /// per block, and its block is 1-D of at least `L`'s threads: the launcher and `#[kernel]`
    /// check all of it.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn new_unchecked(dst: GlobalMut<'a, E>, [rows, cols]: [u32; 2]) -> Self {
        GroupedMut {
            dst,
            rows,
            cols,
            layout: PhantomData,
        }
    }

    /// Host memory as the row-major `[rows, cols]` matrix; host memory checks every access
    /// itself (the simulator reports one outside it).
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
    pub fn host(mem: &'a dyn crate::global::HostBuffer, [rows, cols]: [u32; 2]) -> Self {
        GroupedMut {
            dst: GlobalMut::host(mem),
            rows,
            cols,
            layout: PhantomData,
        }
    }

    /// `L`'s block shape and the matrix's in blocks.
    #[inline(always)]
    fn shapes(&self) -> ([u32; 2], [u32; 2]) {
        const { assert!(L::RANK == 2, "a block partition's layout is 2-D") };
        let size = const { [L::SHAPE[0], L::SHAPE[1]] };
        (size, [self.rows / size[0], self.cols / size[1]])
    }

    /// The CTA's block of a grid of one CTA per block: number `block.x`.
    #[inline(always)]
    pub fn block(&self, t: &impl Thread) -> BlockIndex {
        let (size, shape) = self.shapes();
        numbered(t.block(), shape, size)
    }

    /// The CTA's blocks of a persistent grid: numbers `block.x`, `block.x + grid.x`, ...
    #[inline(always)]
    pub fn each(&self, t: &impl Thread) -> EachBlock {
        let (size, shape) = self.shapes();
        EachBlock {
            ks: GridStride::new(t.block(), t.grid_dim()[0], shape[0] * shape[1]),
            shape,
            size,
        }
    }

    /// Stores `tile` as block `at`, each element once (in `L`, as `TilesMut::store`).
    #[inline(always)]
    pub fn store<T: Thread, const N: usize>(&self, t: &T, at: BlockIndex, tile: &Tile<L, E, N>)
    where
        L: Registers<N>,
    {
        exclusive::<T>();
        crate::tiles::contiguous::<L, E, N, false>();
        // A block of another partition's shape is another CTA's here, or outside (a trap; it
        // folds where the block came from this partition).
        let (size, blocks) = self.shapes();
        assert!(
            at.blocks == blocks && at.size == size,
            "a block of a partition of another shape"
        );
        // A block of more threads than `L`'s (a warp-specialised kernel's, whose other roles
        // do not store) stores from its first threads: the others would repeat their elements.
        let threads = const { crate::layout::cta_threads::<L>() };
        let whole_block = const { within(T::BLOCK_THREADS, crate::layout::cta_threads::<L>()) };
        if whole_block || t.thread_idx()[0] < threads {
            // SAFETY: block `at` is one of the matrix's (`grouped_block` maps the block
            // numbers below the count onto them), which the constructor's contract keeps in
            // the buffer, reached by this CTA alone, each element from one of its threads.
            #[allow(unsafe_code)]
            unsafe {
                tile.store(t, &self.dst, at.origin, [self.cols, 1])
            }
        }
    }
}

/// Whether every thread of a block whose `thread_idx()[0]` is below `bound` (`None`: any) is
/// one of the first `threads`: a store from them needs no test of the thread.
const fn within(bound: Option<u32>, threads: u32) -> bool {
    match bound {
        Some(b) => b <= threads,
        None => false,
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec;
    use std::vec::Vec;

    /// Every block number below the count lands on a distinct block inside the matrix, for
    /// every shape up to 40 x 40 blocks (whole groups, a short last group, one block row).
    #[test]
    fn the_grouped_order_is_a_bijection() {
        for tiles_m in 1..=40u32 {
            for tiles_n in 1..=40u32 {
                let mut seen = vec![false; (tiles_m * tiles_n) as usize];
                for pid in 0..tiles_m * tiles_n {
                    let [i, j] = grouped_block(pid, [tiles_m, tiles_n]);
                    assert!(i < tiles_m && j < tiles_n, "{pid} of {tiles_m}x{tiles_n}");
                    let at = (i * tiles_n + j) as usize;
                    assert!(!seen[at], "{pid} of {tiles_m}x{tiles_n}: ({i}, {j}) twice");
                    seen[at] = true;
                }
            }
        }
    }

    /// Triton's tutorial order: down a group's 8 block rows, then the next column.
    #[test]
    fn blocks_run_down_a_group_first() {
        let order: Vec<[u32; 2]> = (0..10).map(|p| grouped_block(p, [16, 4])).collect();
        assert_eq!(order[..3], [[0, 0], [1, 0], [2, 0]]);
        assert_eq!(order[8..], [[0, 1], [1, 1]]);
        // The last group of a 10-row matrix has 2 rows.
        assert_eq!(grouped_block(8 * 3, [10, 3]), [8, 0]);
        assert_eq!(grouped_block(8 * 3 + 1, [10, 3]), [9, 0]);
        assert_eq!(grouped_block(8 * 3 + 2, [10, 3]), [8, 1]);
    }

    /// A store tests the thread only where the block may have more threads than its layout.
    #[test]
    fn a_store_skips_its_thread_test_only_where_the_block_is_no_larger() {
        assert!(within(Some(128), 128));
        assert!(within(Some(64), 128));
        assert!(!within(Some(256), 128));
        assert!(!within(None, 128));
    }
}

#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
crate::made::made! {
    impl['a, E, L] GroupedMut<'a, E, L>, dst, [u32; 2], |self| [self.rows, self.cols];
}
