//! Partitioned tensors ([`Tiles`], [`TilesMut`]): a global tensor cut into whole tiles of a
//! layout's shape, one per CTA of a 1-D grid, as cuTile partitions a kernel's outputs on the
//! host. The launcher checks the buffer holds a tile for every CTA (and that the grid is 1-D),
//! so a CTA reads and writes its own tile with no mask or check on the device, and no two CTAs
//! write one element. CTA `k`'s tile is the row-major tile of `L::SHAPE` elements from element
//! `k * elements(L)`: rows `k * L::SHAPE[0]..` of a row-major tensor `L::SHAPE[1..]` wide.
//!
//! A kernel takes `x: Tiles<f32, Rows>` (`TilesMut` to write); `#[kernel]` makes it from the
//! launch's buffer. A tensor that is not a whole number of tiles, or whose CTAs share tiles, is
//! a [`View`](crate::View) (masked accesses) instead.

use core::marker::PhantomData;

use crate::element::Element;
use crate::global::{Global, GlobalMut};
use crate::layout::{Layout, Registers};
use crate::slices::{Build, Distributed, TileOf};
use crate::thread::Thread;
use crate::tile::Tile;

/// The elements of a tile of `L`'s shape.
pub const fn tile_elements<L: Layout>() -> u64 {
    let (mut n, mut d) = (1u64, 0);
    while d < L::RANK {
        n *= L::SHAPE[d] as u64;
        d += 1;
    }
    n
}

/// A tensor a kernel reads, one tile of `L`'s shape per CTA (see the module).
pub struct Tiles<'a, E, L> {
    src: Global<'a, E>,
    layout: PhantomData<fn() -> L>,
}

/// A tensor a kernel writes, one tile of `L`'s shape per CTA, each CTA's its own.
pub struct TilesMut<'a, E, L> {
    dst: GlobalMut<'a, E>,
    layout: PhantomData<fn() -> L>,
}

impl<'a, E: Element, L: Layout> Tiles<'a, E, L> {
    /// `src` cut into CTAs' tiles: what `#[kernel]` makes of a `Tiles` parameter.
    ///
    /// # Safety
    /// The launch's grid is 1-D, `src` holds a tile for each of its CTAs
    /// (`grid.x * tile_elements::<L>()` elements) and that is at most `u32::MAX + 1` (the
    /// launcher checks all three).
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn new_unchecked(src: Global<'a, E>) -> Self {
        Tiles {
            src,
            layout: PhantomData,
        }
    }

    /// Host memory cut into CTAs' tiles: host memory checks every access itself (the simulator
    /// reports one outside it), so any buffer is safe.
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
    pub fn host(mem: &'a dyn crate::global::HostBuffer) -> Self {
        Tiles {
            src: Global::host(mem),
            layout: PhantomData,
        }
    }

    /// This CTA's tile, in `L`.
    #[inline(always)]
    pub fn load(&self, t: &impl Thread) -> TileOf<L, E>
    where
        L: Distributed,
    {
        self.load_as::<L>(t)
    }

    /// This CTA's tile, in another layout `M` of the same shape.
    #[inline(always)]
    pub fn load_as<M: Distributed>(&self, t: &impl Thread) -> TileOf<M, E> {
        M::build(Loading::<E, L, _> {
            src: &self.src,
            t,
            layout: PhantomData,
        })
    }
}

impl<'a, E: Element, L: Layout> TilesMut<'a, E, L> {
    /// `dst` cut into CTAs' tiles, as [`Tiles::new_unchecked`].
    ///
    /// # Safety
    /// As [`Tiles::new_unchecked`].
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn new_unchecked(dst: GlobalMut<'a, E>) -> Self {
        TilesMut {
            dst,
            layout: PhantomData,
        }
    }

    /// Host memory cut into CTAs' tiles a kernel writes, as [`Tiles::host`].
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
    pub fn host(mem: &'a dyn crate::global::HostBuffer) -> Self {
        TilesMut {
            dst: GlobalMut::host(mem),
            layout: PhantomData,
        }
    }

    /// Stores `tile` (of `L`'s shape, in any layout) as this CTA's tile, each element once.
    #[inline(always)]
    pub fn store<M: Registers<N>, const N: usize>(&self, t: &impl Thread, tile: &Tile<M, E, N>) {
        same_shape::<L, M>();
        // SAFETY: the CTA's own tile, which the constructor's contract keeps in the buffer.
        #[allow(unsafe_code)]
        unsafe {
            match L::RANK {
                1 => tile.store(t, &self.dst, origin::<L, 1>(t), strides::<L, 1>()),
                2 => tile.store(t, &self.dst, origin::<L, 2>(t), strides::<L, 2>()),
                3 => tile.store(t, &self.dst, origin::<L, 3>(t), strides::<L, 3>()),
                _ => tile.store(t, &self.dst, origin::<L, 4>(t), strides::<L, 4>()),
            }
        }
    }
}

/// `M` is a layout of `L`'s shape (a compile error naming both otherwise).
#[inline(always)]
fn same_shape<L: Layout, M: Layout>() {
    const {
        let ok = L::RANK == M::RANK && L::RANK <= 4 && {
            let mut d = 0;
            while d < L::RANK && L::SHAPE[d] == M::SHAPE[d] {
                d += 1;
            }
            d == L::RANK
        };
        if !ok {
            panic!("a partitioned tensor's tile is loaded or stored in a layout of the partition's shape (rank 4 at most): these two layouts' shapes differ");
        }
    }
}

/// This CTA's tile's origin: rows `block * L::SHAPE[0]..`.
#[inline(always)]
fn origin<L: Layout, const R: usize>(t: &impl Thread) -> [u32; R] {
    let mut o = [0; R];
    o[0] = t.block() * L::SHAPE[0];
    o
}

/// Row-major strides of `L`'s shape.
#[inline(always)]
const fn strides<L: Layout, const R: usize>() -> [u32; R] {
    let mut s = [1; R];
    let mut d = R;
    while d > 1 {
        d -= 1;
        s[d - 1] = s[d] * L::SHAPE[d];
    }
    s
}

/// A partitioned tensor's load, built once the layout's register count is known.
struct Loading<'v, 'a, E, L, T> {
    src: &'v Global<'a, E>,
    t: &'v T,
    layout: PhantomData<fn() -> L>,
}

impl<M: Layout, L: Layout, E: Element, T: Thread> Build<M, E> for Loading<'_, '_, E, L, T> {
    #[inline(always)]
    fn build<const N: usize>(self) -> Tile<M, E, N>
    where
        M: Registers<N>,
    {
        same_shape::<L, M>();
        let t = self.t;
        // SAFETY: as `TilesMut::store`.
        #[allow(unsafe_code)]
        unsafe {
            match L::RANK {
                1 => Tile::load(t, self.src, origin::<L, 1>(t), strides::<L, 1>()),
                2 => Tile::load(t, self.src, origin::<L, 2>(t), strides::<L, 2>()),
                3 => Tile::load(t, self.src, origin::<L, 3>(t), strides::<L, 3>()),
                _ => Tile::load(t, self.src, origin::<L, 4>(t), strides::<L, 4>()),
            }
        }
    }
}
