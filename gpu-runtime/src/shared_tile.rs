//! Typed handles on tiles of a kernel's shared memory, for what the copy engine writes
//! ([`TmaTile::load`](crate::TmaTile::load)) and the tensor cores read ([`SharedTile::dot_async`]): a
//! [`SharedTile`] is one `nvmma_shared` tile, [`SharedTiles`] a ring of them (a pipeline's
//! stages, Gluon's `allocate_shared_memory(dtype, [stages, ..], layout)` and `.index(s)`).
//! Either is made only where it lies inside the bytes the kernel declares
//! (`#[kernel(shared = ..)]`: a GPU thread must know them, a compile error otherwise; the
//! simulator checks every access itself) and starts on the alignment both engines require, so
//! safe code cannot aim them past the kernel's shared memory; the raw byte offsets they replace
//! are `unsafe` ([`Wgmma::run`](crate::Wgmma::run), [`Hopper::tma_load_2d`]). Still the caller's: that a tile's
//! data is ready before the tensor cores read it (its mbarrier's phase, `fence_proxy_async`),
//! which the simulator reports.

use core::marker::PhantomData;

use crate::element::Element;
use crate::hopper::Hopper;
use crate::layout::Layout;
use crate::nvmma::NvmmaTile;
use crate::thread::{declares_at_least, inside_declared, Thread};
use const_format::StrWriter;

/// `N` tiles of the shared layout `S` (an `nvmma_shared` tile of `E`), one after another from
/// a byte offset of the kernel's shared memory: a pipeline's stages of one operand.
pub struct SharedTiles<S, E, const N: u32> {
    offset: u32,
    tiles: PhantomData<fn() -> (S, E)>,
}

/// One tile of the shared layout `S` of `E` in the kernel's shared memory (from
/// [`SharedTile::new`] or [`SharedTiles::index`]).
pub struct SharedTile<S, E> {
    offset: u32,
    tile: PhantomData<fn() -> (S, E)>,
}

impl<S, E> Clone for SharedTile<S, E> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S, E> Copy for SharedTile<S, E> {}
impl<S, E, const N: u32> Clone for SharedTiles<S, E, N> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S, E, const N: u32> Copy for SharedTiles<S, E, N> {}

impl<S: Layout, E: Element> SharedTile<S, E> {
    /// The tile's form (its boxes for the copy engine, its rows for the tensor cores'
    /// descriptors); a compile error naming `S` where it has none.
    pub const TILE: NvmmaTile = match NvmmaTile::of(S::IN_DIMS, S::SHAPE, E::BITS / 8) {
        Some(t) => t,
        None => panic!("{}", Self::MESSAGE.r().as_str()),
    };
    /// Bytes the tile spans.
    pub const BYTES: u32 = Self::TILE.bytes();
    /// Where the tile may start, in the shared window: its swizzle pattern's period, and at
    /// least the copy engine's 128 bytes.
    pub const ALIGN: u32 = {
        let a = Self::TILE.swizzle.alignment();
        if a > 128 {
            a
        } else {
            128
        }
    };

    const MESSAGE: StrWriter<[u8; 1024]> = crate::mma::message(&[
        "SharedTile<",
        S::NAME,
        ">: not a tile the copy engine writes: rows of 32, 64 or 128 ",
        "bytes along the contiguous dim, swizzled in 16-byte chunks by the row modulo 8, ",
        "a multiple of 8 rows and at most 256, one CTA\n  S = ",
        S::SOURCE,
        "\n  help: use nvmma_shared(swizzlingByteWidth = 128, transposed = false, ",
        "elementBitWidth = 16) with the contiguous dim a multiple of 64 halves",
    ]);

    /// The tile at byte `offset` of the kernel's shared memory, checked: a trap (a panic on
    /// the simulator) unless all [`SharedTile::BYTES`] lie inside the bytes the kernel declares
    /// and `t.shared_base() + offset` is a multiple of [`SharedTile::ALIGN`].
    #[inline(always)]
    pub fn new<T: Hopper>(t: &T, offset: u32) -> Self {
        SharedTiles::<S, E, 1>::new(t, offset).index(0)
    }

    /// The tile at byte `offset`, unchecked.
    ///
    /// # Safety
    /// Bytes `offset..offset + BYTES` lie inside the kernel's dynamic shared memory, and
    /// `shared_base() + offset` is a multiple of [`SharedTile::ALIGN`].
    #[inline(always)]
    #[allow(unsafe_code)]
    pub const unsafe fn at(offset: u32) -> Self {
        SharedTile {
            offset,
            tile: PhantomData,
        }
    }

    /// Its byte offset in the kernel's shared memory.
    #[inline(always)]
    pub const fn offset(&self) -> u32 {
        self.offset
    }
}

impl<S: Layout, E: Element, const N: u32> SharedTiles<S, E, N> {
    /// Bytes the `N` tiles span.
    pub const BYTES: u32 = {
        assert!(N > 0, "SharedTiles: a ring of no tiles");
        N * SharedTile::<S, E>::BYTES
    };

    /// The `N` tiles from byte `offset` on, checked once for all of them: a trap (a panic on
    /// the simulator) unless all [`SharedTiles::BYTES`] lie inside the bytes the kernel
    /// declares and the first starts aligned ([`SharedTile::ALIGN`]; the tiles' size keeps
    /// the rest aligned). More tiles than the kernel declares bytes for is a compile error, and
    /// so is a GPU thread that does not know its kernel's bytes (`#[kernel]`'s always do).
    #[inline(always)]
    pub fn new<T: Hopper>(t: &T, offset: u32) -> Self {
        let align = SharedTile::<S, E>::ALIGN;
        let aligned = t.shared_base().wrapping_add(offset) & (align - 1) == 0;
        Self::checked::<T>(offset, aligned)
    }

    /// The tiles at `offset` if they lie inside the kernel's declared bytes and `start_ok` (the
    /// start's own check: aligned, or not wrapped) holds; a trap (a panic on the simulator)
    /// otherwise.
    #[inline(always)]
    fn checked<T: Thread>(offset: u32, start_ok: bool) -> Self {
        const {
            assert!(
                N == 1 || SharedTile::<S, E>::BYTES.is_multiple_of(SharedTile::<S, E>::ALIGN),
                "SharedTiles: the tile's size is not a multiple of its alignment, so the second \
                 tile of the ring would start off it"
            );
            assert!(
                declares_at_least(T::SHARED_BYTES, Self::BYTES),
                "SharedTiles: the tiles need more shared memory than the kernel declares"
            );
        };
        assert!(
            inside_declared::<T>(offset, Self::BYTES) && start_ok,
            "SharedTiles: not inside the kernel's shared memory, or not aligned to its swizzle pattern"
        );
        SharedTiles {
            offset,
            tiles: PhantomData,
        }
    }

    /// The `N` tiles from the first byte at or after `offset` where they start aligned
    /// ([`SharedTile::ALIGN`] in the shared window, so up to `ALIGN - 1` bytes later), checked
    /// as [`SharedTiles::new`] checks: what a kernel's shared memory holds after its mbarriers.
    #[inline(always)]
    pub fn after<T: Hopper>(t: &T, offset: u32) -> Self {
        // The bytes up to the next aligned address of the window: only the sum's low bits count.
        let pad =
            t.shared_base().wrapping_add(offset).wrapping_neg() & (SharedTile::<S, E>::ALIGN - 1);
        let start = offset.wrapping_add(pad);
        // Aligned by construction; an offset so near the end that the padding wraps is refused.
        Self::checked::<T>(start, start >= offset)
    }

    /// The tiles from byte `offset` on, unchecked.
    ///
    /// # Safety
    /// Bytes `offset..offset + BYTES` lie inside the kernel's dynamic shared memory, and
    /// `shared_base() + offset` is a multiple of [`SharedTile::ALIGN`].
    #[inline(always)]
    #[allow(unsafe_code)]
    pub const unsafe fn at(offset: u32) -> Self {
        SharedTiles {
            offset,
            tiles: PhantomData,
        }
    }

    /// Tile `i`: a trap (a panic on the simulator) unless `i < N`.
    #[inline(always)]
    pub fn index(&self, i: u32) -> SharedTile<S, E> {
        assert!(i < N, "SharedTiles::index: past the ring");
        SharedTile {
            offset: self.offset + i * SharedTile::<S, E>::BYTES,
            tile: PhantomData,
        }
    }

    /// The same bytes as `N` tiles of another layout `S2` of `E2` (Gluon's `_reinterpret`):
    /// a compile error unless they span the same bytes and need no stricter alignment.
    #[inline(always)]
    pub fn reinterpret<S2: Layout, E2: Element>(self) -> SharedTiles<S2, E2, N> {
        const {
            assert!(
                SharedTiles::<S2, E2, N>::BYTES == Self::BYTES
                    && SharedTile::<S2, E2>::ALIGN <= SharedTile::<S, E>::ALIGN,
                "SharedTiles::reinterpret: other bytes, or a stricter alignment"
            )
        };
        SharedTiles {
            offset: self.offset,
            tiles: PhantomData,
        }
    }

    /// The byte offset of the first tile.
    #[inline(always)]
    pub const fn offset(&self) -> u32 {
        self.offset
    }

    /// The byte offset just past the last tile: where the next buffer may start.
    #[inline(always)]
    pub const fn end(&self) -> u32 {
        self.offset + Self::BYTES
    }
}
