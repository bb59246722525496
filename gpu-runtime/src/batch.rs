//! Batch partitions: a row-major `[batch, rows, cols]` tensor (an attention's heads) as one
//! matrix per row of a 2-D grid, CTA `(bx, by)` taking matrix `by`:
//!
//! - [`Batch`]: the CTA's matrix as a [`View`] (`q.matrix(t)`), read anywhere inside it,
//!   masked against its rows and columns;
//! - [`BatchChunksMut`]: the CTA's chunk of its matrix's rows (`bx * L::SHAPE[0]..`), stored
//!   masked against the matrix (`o.store(t, &tile)`, or band `b` of a wider matrix), so that
//!   a safe kernel writes only what its CTA owns.
//!
//! A kernel takes `q: Batch<f16, 64, true>` or `o: BatchChunksMut<f16, ORows, true>` with
//! `#[kernel(extent(q = [heads, seq, d]))]`; the device keeps only `rows` and `cols`, so
//! `batch` may be written over `grid` (`[grid[1], seq, 64]`). The launcher checks the buffer
//! holds the batch, the grid has one row of CTAs per matrix (and, for the chunks, enough
//! CTAs along x to cover the rows), and with `ALIGNED` the rows are whole 16-byte vectors.

use core::marker::PhantomData;

use crate::element::Element;
use crate::global::{Global, GlobalMut};
use crate::layout::{Layout, Registers};
use crate::thread::Thread;
use crate::tile::Tile;
use crate::tiles::contiguous;
use crate::tiles::exclusive;
use crate::view::View;

/// A batch of matrices a kernel reads, the CTA's own (matrix `block.y`) as a view (see the
/// module). `ALIGNED`: the `_aligned` promise, which the launcher checks.
pub struct Batch<'a, E, const ALIGNED: bool = false> {
    src: Global<'a, E>,
    rows: u32,
    cols: u32,
}

/// A batch of matrices a kernel writes, one chunk of `L`'s rows of one matrix per CTA of a 2-D
/// grid (see the module). `ALIGNED`: the `_aligned` promise, which the launcher checks (the
/// rows whole 16-byte vectors).
pub struct BatchChunksMut<'a, E, L, const ALIGNED: bool = false> {
    dst: GlobalMut<'a, E>,
    rows: u32,
    cols: u32,
    layout: PhantomData<fn() -> L>,
}

impl<'a, E: Element, const ALIGNED: bool> Batch<'a, E, ALIGNED> {
    /// `src` as a row-major batch of `[rows, cols]` matrices: what `#[kernel]` makes of the
    /// parameter.
    ///
    /// # Safety
    /// The launch's grid is `[_, batch, 1]`, `src` holds the batch (at most 2^32 elements), and
    /// with `ALIGNED` `src` is 16-byte aligned and `cols` a multiple of 16 bytes: the launcher
    /// checks all of it.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn new_unchecked(src: Global<'a, E>, [rows, cols]: [u32; 2]) -> Self {
        Batch { src, rows, cols }
    }

    /// Host memory as a batch of `[rows, cols]` matrices: host memory checks every access
    /// itself (the simulator reports one outside it).
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
    pub fn host(mem: &'a dyn crate::global::HostBuffer, [rows, cols]: [u32; 2]) -> Self {
        Batch {
            src: Global::host(mem),
            rows,
            cols,
        }
    }

    /// The CTA's matrix (number `block_idx().y`), `[rows, cols]`.
    #[inline(always)]
    pub fn matrix(&self, t: &impl Thread) -> View<'a, E, 2, ALIGNED> {
        let start = [t.block_idx()[1] * self.rows, 0];
        // SAFETY: matrix `block.y` of a grid of one row of CTAs per matrix is inside the
        // buffer (the constructor's contract), and its start, a whole number of rows, keeps
        // the rows' alignment.
        #[allow(unsafe_code)]
        unsafe {
            View::from_parts(self.src, [self.rows, self.cols], [self.cols, 1], start)
        }
    }
}

impl<'a, E: Element, L: Layout, const ALIGNED: bool> BatchChunksMut<'a, E, L, ALIGNED> {
    /// `dst` as a row-major batch of `[rows, cols]` matrices: what `#[kernel]` makes of the
    /// parameter.
    ///
    /// # Safety
    /// The launch's grid is `[chunks, batch, 1]` with `chunks * L::SHAPE[0]` covering `rows`
    /// (at most 2^32 of them), `dst` holds the batch (at most 2^32 elements), and with
    /// `ALIGNED` `cols` is a multiple of 16 bytes: the launcher checks all of it.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn new_unchecked(dst: GlobalMut<'a, E>, [rows, cols]: [u32; 2]) -> Self {
        BatchChunksMut {
            dst,
            rows,
            cols,
            layout: PhantomData,
        }
    }

    /// Host memory as a batch of `[rows, cols]` matrices: host memory checks every access
    /// itself (the simulator reports one outside it, and races between CTAs).
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
    pub fn host(mem: &'a dyn crate::global::HostBuffer, [rows, cols]: [u32; 2]) -> Self {
        BatchChunksMut {
            dst: GlobalMut::host(mem),
            rows,
            cols,
            layout: PhantomData,
        }
    }

    /// The matrices' rows.
    #[inline(always)]
    pub fn rows(&self) -> u32 {
        self.rows
    }

    /// Stores `tile` as this CTA's chunk (rows `block.x * L::SHAPE[0]..` of matrix `block.y`)
    /// from column 0: the elements inside the matrix, each once.
    #[inline(always)]
    pub fn store<T: Thread, const N: usize>(&self, t: &T, tile: &Tile<L, E, N>)
    where
        L: Registers<N>,
    {
        self.store_band(t, 0, tile)
    }

    /// Stores `tile` as band `band` of this CTA's chunk: its columns `band * L::SHAPE[1]..` (a
    /// matrix wider than `L`, in bands of `L`'s columns, each stored once: two bands share no
    /// element), the elements inside the matrix, each once.
    #[inline(always)]
    pub fn store_band<T: Thread, const N: usize>(&self, t: &T, band: u32, tile: &Tile<L, E, N>)
    where
        L: Registers<N>,
    {
        exclusive::<T>();
        contiguous::<L, E, N, false>();
        let [bx, by, _] = t.block_idx();
        let [rows_per, width] = const { [L::SHAPE[0], L::SHAPE[1]] };
        // Matrix `by` starts at row `by * rows` of the buffer, and the masks count its rows from
        // there: a CTA's first row `bx * rows_per` is below `grid.x * rows_per` (at most 2^32,
        // the launcher's check), so no row number wraps onto another matrix's; a row inside
        // the matrix has its element below the buffer's 2^32.
        let start = [by * self.rows, 0];
        // A band past a u32 of columns is past the matrix: nothing to store (a column number
        // that wrapped would be another band's).
        let Some(col) = band.checked_mul(width) else {
            return;
        };
        let origin = [bx * rows_per, col];
        let (strides, bounds) = ([self.cols, 1], [self.rows, self.cols]);
        // SAFETY: rows `bx * rows_per..` of matrix `by` are this CTA's own (the constructor's
        // contract: a 2-D grid of one row of CTAs per matrix), masked against the matrix, which
        // the buffer holds; with `ALIGNED` each vector is wholly inside or outside (the rows
        // and the bands, multiples of `L`'s vector-aligned width, whole vectors).
        #[allow(unsafe_code)]
        unsafe {
            tile.store_masked_at::<T, 2, ALIGNED>(t, &self.dst, start, origin, strides, bounds)
        }
    }
}

#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
crate::made::made! {
    impl['a, E, const A: bool] Batch<'a, E, A>, src, [u32; 2], |self| [self.rows, self.cols];
    impl['a, E, L, const A: bool] BatchChunksMut<'a, E, L, A>, dst, [u32; 2], |self| [self.rows, self.cols];
}
