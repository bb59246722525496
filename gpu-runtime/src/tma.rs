//! Tile loads by Hopper's copy engine into a shared layout ([`TmaTile`]): the boxes, their
//! shared offsets and global coordinates follow from the layout type (an `nvmma_shared` tile,
//! recognised by [`NvmmaTile::of`]), so the host's tensor map ([`TmaTile::BOX`],
//! [`TmaTile::SWIZZLE`]) and the kernel's copies cannot disagree with the layout the tensor
//! cores read.

use core::marker::PhantomData;

use crate::element::Element;
use crate::hopper::{Hopper, Swizzle, TensorMap};
use crate::layout::Layout;
use crate::mbarrier::MBarrier;
use crate::nvmma::NvmmaTile;
use crate::shared_tile::SharedTile;

/// Loads of shared layout `S`'s tile of `E` by the copy engine: `const LOAD: TmaTile<S, E> =
/// TmaTile::new();` is a compile error unless `S` is an `nvmma_shared` tile (rows of one
/// swizzle width, 8-row aligned, at most 256 rows).
#[derive(Clone, Copy, Debug)]
pub struct TmaTile<S, E>(PhantomData<fn() -> (S, E)>);

impl<S: Layout, E: Element> TmaTile<S, E> {
    /// The tile's box form; a compile error naming `S` if it has none.
    pub const TILE: NvmmaTile = SharedTile::<S, E>::TILE;
    /// The box one copy moves, `[rows, cols]` of the global tensor (cols contiguous): what the
    /// host encodes in the tensor map.
    pub const BOX: [u32; 2] = [Self::TILE.rows, Self::TILE.per_row];
    /// The swizzle the tensor map must have.
    pub const SWIZZLE: Swizzle = Self::TILE.swizzle;
    /// Bytes one [`TmaTile::load`] lands (what the mbarrier's `expect_tx` waits for).
    pub const BYTES: u32 = Self::TILE.bytes();

    /// The loads, checked.
    #[allow(clippy::new_without_default)] // a Default impl would check the layout at run time
    pub const fn new() -> Self {
        let _ = Self::TILE;
        TmaTile(PhantomData)
    }

    /// Issue the copies of the tile at `origin` (`[dim0, dim1]` of `S`'s tensor) of `map` into
    /// the shared tile `dst`, completing on mbarrier `bar`. One thread
    /// calls it (the tensor's elements `G` of `E`'s size), after `bar`'s `arrive_expect_tx` of [`TmaTile::BYTES`] (or with it). `map`'s
    /// tensor is `S`'s with the contiguous dim last: `S`'s own order when dim 1 is contiguous,
    /// its transpose otherwise.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub fn load<T: Hopper, G: Element>(
        &self,
        t: &T,
        map: &TensorMap<'_, G>,
        origin: [u32; 2],
        dst: &SharedTile<S, E>,
        bar: MBarrier,
    ) {
        const {
            assert!(
                G::BITS == E::BITS,
                "TmaTile: the tensor's elements are not the tile's size"
            )
        };
        let tile = Self::TILE;
        let (row, col) = (origin[1 - tile.contiguous], origin[tile.contiguous]);
        let dst = dst.offset();
        crate::unroll!(Self::TILE.boxes as usize, |j| {
            let j = j as u32;
            // SAFETY: the boxes fill `dst`'s tile, which was checked inside the kernel's shared
            // memory and aligned when it was made, when the map was encoded with this tile's
            // `BOX` and `SWIZZLE` (the kernel's maps are; a launcher does not check it yet);
            // `bar` was checked inside the kernel's shared memory, initialised and published
            // when its ring was made (that no other handle covers either is not checked yet:
            // the `mbarrier` module's doc).
            unsafe {
                t.tma_load_2d(
                    dst + j * tile.box_bytes(),
                    map,
                    [row, col + j * tile.per_row],
                    bar.offset(),
                )
            };
        });
    }
}
