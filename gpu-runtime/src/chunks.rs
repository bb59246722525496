//! Row partitions of a tensor a kernel writes ([`ChunksMut`]): a [`ViewMut`] cut along dim 0
//! into chunks of a layout's rows, one per CTA of a 1-D grid, the last one cut short by the
//! tensor's shape (as `slice::chunks`' last chunk): CTA `k` stores rows `k * L::SHAPE[0]..`,
//! masked against the shape, so a safe kernel writes only what its CTA owns. What a row softmax,
//! a layer norm or an element-wise kernel over any length writes; the inputs are [`View`](crate::View)s,
//! read anywhere.
//!
//! A kernel takes `y: ChunksMut<f32, RowTile, 2>` with `#[kernel(extent(y = [n_rows,
//! n_cols]))]`: the launcher checks the shape against the buffer and the grid is 1-D.
//!
//! [`BatchChunksMut`](crate::BatchChunksMut) does the same for each matrix of a batch.

use core::marker::PhantomData;

use crate::element::Element;
use crate::global::GlobalMut;
use crate::layout::{Layout, Registers};
use crate::thread::Thread;
use crate::tile::Tile;
use crate::tiles::exclusive;
use crate::view::ViewMut;

/// A tensor a kernel writes, one chunk of `L`'s rows per CTA (see the module). `ALIGNED`:
/// the `_aligned` promise, which the launcher checks (the last dim whole 16-byte vectors).
pub struct ChunksMut<'a, E, L, const R: usize, const ALIGNED: bool = false> {
    view: ViewMut<'a, E, R, ALIGNED>,
    layout: PhantomData<fn() -> L>,
}

impl<'a, E: Element, L: Layout, const R: usize, const ALIGNED: bool>
    ChunksMut<'a, E, L, R, ALIGNED>
{
    /// `dst` as a row-major tensor of `shape` cut into chunks: what `#[kernel]` makes of the
    /// parameter.
    ///
    /// # Safety
    /// As [`ViewMut::new_unchecked`] (the buffer holds the shape, at most 2^32 elements, and
    /// with `ALIGNED` its last dim is a multiple of 16 bytes), and the launch's grid is 1-D with
    /// at most 2^32 rows of chunks: the launcher checks all of it.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn new_unchecked(dst: GlobalMut<'a, E>, shape: [u32; R]) -> Self {
        ChunksMut {
            // SAFETY: the caller's.
            view: unsafe { ViewMut::new_unchecked(dst, shape) },
            layout: PhantomData,
        }
    }

    /// Host memory as a row-major tensor of `shape` in chunks: host memory checks every access
    /// itself (the simulator reports one outside it, and races between CTAs).
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
    pub fn host(mem: &'a dyn crate::global::HostBuffer, shape: [u32; R]) -> Self {
        ChunksMut {
            view: ViewMut::host(mem, shape),
            layout: PhantomData,
        }
    }
}

impl<'a, E: Element, L: Layout, const R: usize, const ALIGNED: bool>
    ChunksMut<'a, E, L, R, ALIGNED>
{
    /// The tensor's shape.
    #[inline(always)]
    pub fn shape(&self) -> [u32; R] {
        self.view.shape()
    }

    /// Stores `tile` as this CTA's chunk from column 0: the elements inside the tensor, each
    /// once.
    #[inline(always)]
    pub fn store<T: Thread, const N: usize>(&self, t: &T, tile: &Tile<L, E, N>)
    where
        L: Registers<N>,
    {
        exclusive::<T>();
        const {
            if L::RANK != R {
                panic!("a chunk is stored as a tile of the partition's rank: its layout's differs");
            }
        }
        let mut origin = [0; R];
        origin[0] = t.block() * const { L::SHAPE[0] };
        // SAFETY: rows `block * L::SHAPE[0]..` of a 1-D grid's CTA are its own (the
        // constructor's contract); the view masks them against the shape.
        #[allow(unsafe_code)]
        unsafe {
            self.view.store(t, origin, tile)
        }
    }
}

#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
impl<E, L, const R: usize, const A: bool> crate::made::Made for ChunksMut<'_, E, L, R, A> {
    type Sizes = [u32; R];
    fn sizes(&self) -> [u32; R] {
        self.view.sizes()
    }
    fn elements(&self) -> Option<u64> {
        self.view.elements()
    }
    fn whole(&self) -> bool {
        self.view.whole()
    }
}
