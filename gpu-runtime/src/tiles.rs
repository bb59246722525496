//! Partitioned tensors: a global tensor cut into whole tiles of a layout's shape, as cuTile
//! partitions a kernel's outputs on the host. Tile `k` is the row-major tile of `L::SHAPE`
//! elements from element `k * elements(L)`: rows `k * L::SHAPE[0]..` of a row-major tensor
//! `L::SHAPE[1..]` wide. The launcher checks the buffer holds the tiles and the grid is 1-D, so
//! a CTA reaches its tiles with no mask, and no two CTAs write one element:
//!
//! - [`Tiles`], [`TilesMut`]: one tile per CTA, CTA `k`'s tile `k` (`x.load(t)`,
//!   `y.store(t, &tile)`; nothing to check on the device);
//! - [`Tiled`], [`TiledMut`]: `count` tiles (`#[kernel(extent(x = count))]`) taken grid-stride,
//!   `for k in y.each(t)` giving CTA `b` tiles `b`, `b + grid`, ... (`x.load(t, k)`,
//!   `y.store(t, k, &tile)`: a [`TileIndex`] comes only from such a loop, so writes stay the
//!   CTA's own; its check against the tensor's count folds into the loop's where the counts are
//!   one value).
//!
//! A kernel takes them as parameters; `#[kernel]` makes them from the launch's buffers. A tensor
//! that is not a whole number of tiles, or whose CTAs share tiles, is a [`View`](crate::View)
//! (masked accesses) instead.

use core::marker::PhantomData;

use crate::element::Element;
use crate::global::{Global, GlobalMut};
use crate::layout::{Layout, Registers};
use crate::slices::{Build, Distributed, TileOf};
use crate::thread::Thread;
use crate::tile::Tile;
use crate::view::row_major;

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
        // The CTA's own tile, which the constructor's contract keeps in the buffer.
        M::build(Loading::<E, L, _> {
            src: &self.src,
            t,
            k: t.block(),
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

    /// Stores `tile` as this CTA's tile, each element once (one layout per partition: two
    /// layouts would store an element from two threads).
    #[inline(always)]
    pub fn store<T: Thread, const N: usize>(&self, t: &T, tile: &Tile<L, E, N>)
    where
        L: Registers<N>,
    {
        exclusive::<T>();
        row_major_tile::<L, L, E, N>();
        // SAFETY: the CTA's own tile, which the constructor's contract keeps in the buffer.
        #[allow(unsafe_code)]
        unsafe {
            store_tile(t, &self.dst, t.block(), tile)
        }
    }
}

/// A tensor a kernel reads, `count` tiles of `L`'s shape taken grid-stride (see the module).
pub struct Tiled<'a, E, L> {
    src: Global<'a, E>,
    count: u32,
    layout: PhantomData<fn() -> L>,
}

/// A tensor a kernel writes, `count` tiles of `L`'s shape, tile `k` written by the CTA whose
/// grid-stride loop ([`TiledMut::each`]) reaches it.
pub struct TiledMut<'a, E, L> {
    dst: GlobalMut<'a, E>,
    count: u32,
    layout: PhantomData<fn() -> L>,
}

/// Tile `k` of a grid-stride loop ([`TiledMut::each`], [`Tiled::each`]): made only there, so a
/// CTA stores only the tiles its loop reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileIndex {
    k: u32,
    /// The CTAs that share it (a cluster's, for a layout over a cluster's CTAs): a tile shared
    /// by a cluster may be stored only in such a layout, each CTA its own part.
    ctas: u32,
}

impl TileIndex {
    /// The tile's number.
    #[inline(always)]
    pub fn get(self) -> u32 {
        self.k
    }
}

/// This CTA's tiles of `count`: `block`, `block + grid`, ... below `count`; for a layout over
/// the `C` CTAs of a cluster, its cluster's: `block / C`, `(block + grid) / C`, ..., each
/// tile shared by the cluster's CTAs, each storing its own part (its `cta_rank`'s). The step
/// never wraps past a tile below `count`: the tensor's maker promises `count + grid` fits a u32
/// (`new_unchecked`; the launchers check it).
pub struct Each<'t, T> {
    t: &'t T,
    k: u32,
    count: u32,
    ctas: u32,
}

// A thread reference is copied whatever the thread.
impl<T> Clone for Each<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Each<'_, T> {}

impl<T> core::fmt::Debug for Each<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Each")
            .field("k", &self.k)
            .field("count", &self.count)
            .field("ctas", &self.ctas)
            .finish()
    }
}

impl<'t, T: Thread> Each<'t, T> {
    #[inline(always)]
    fn new<L: Layout>(t: &'t T, count: u32) -> Self {
        let ctas = const { crate::layout::cta_count::<L>() };
        Each {
            t,
            k: t.block() / ctas,
            count,
            ctas,
        }
    }

    /// The step from one of its tiles to the next: the grid's clusters (its CTAs, for a layout
    /// of one), read from the thread at each step.
    #[inline(always)]
    fn step(&self) -> u32 {
        self.t.grid_dim()[0] / self.ctas
    }
}

impl<T: Thread> Iterator for Each<'_, T> {
    type Item = TileIndex;
    #[inline(always)]
    fn next(&mut self) -> Option<TileIndex> {
        let (k, ctas) = (self.k, self.ctas);
        (k < self.count).then(|| {
            self.k = k.wrapping_add(self.step());
            TileIndex { k, ctas }
        })
    }

    // `for_each` takes the step after the body, as a hand-written `while k < count { ..;
    // k += grid }` does, so the next number is never live beside the current one (`next`
    // leaves a PTX `mov` per tile for that). The grid is read again at each step, as such a
    // loop reads it: a step LLVM sees fixed lets loop strength reduction keep a second
    // induction variable and narrow the lane math (4 more instructions in
    // `fp16_to_fp8_operand`, 133 against 129).
    #[inline(always)]
    fn fold<B, F: FnMut(B, TileIndex) -> B>(self, init: B, mut f: F) -> B {
        let (mut acc, mut k, ctas) = (init, self.k, self.ctas);
        while k < self.count {
            acc = f(acc, TileIndex { k, ctas });
            k = k.wrapping_add(self.step());
        }
        acc
    }
}

/// A grid-stride loop's numbers: `first`, `first + step`, ... below `end`. Its makers promise
/// that `end - 1 + step` fits a u32 (the grid's launchers check the grid against the count; a
/// step of 1 always does), so the step never wraps past a number below `end`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GridStride {
    next: u32,
    step: u32,
    end: u32,
}

impl GridStride {
    #[inline(always)]
    pub(crate) fn new(first: u32, step: u32, end: u32) -> Self {
        GridStride {
            next: first,
            step,
            end,
        }
    }

    /// The step and the end: what a loop over these numbers knows of each.
    #[inline(always)]
    pub(crate) fn step_end(&self) -> (u32, u32) {
        (self.step, self.end)
    }
}

impl Iterator for GridStride {
    type Item = u32;
    #[inline(always)]
    fn next(&mut self) -> Option<u32> {
        let k = self.next;
        (k < self.end).then(|| {
            self.next = k.wrapping_add(self.step);
            k
        })
    }
}

/// What both grid-stride tensors share: the count, the loop, the constructors.
macro_rules! tiled_common {
    ($tiled:ident, $mem:ident, $global:ident) => {
        impl<'a, E: Element, L: Layout> $tiled<'a, E, L> {
            /// `count` tiles of `mem`: what `#[kernel]` makes of the parameter.
            ///
            /// # Safety
            /// The launch's grid is 1-D, `count + grid.x` is at most `u32::MAX`, and `mem`
            /// holds `count` tiles (`count * tile_elements::<L>()` elements, at most
            /// `u32::MAX + 1`): the launcher checks all three.
            #[inline(always)]
            #[allow(unsafe_code)]
            pub unsafe fn new_unchecked($mem: $global<'a, E>, count: u32) -> Self {
                $tiled {
                    $mem,
                    count,
                    layout: PhantomData,
                }
            }

            /// `count` tiles of host memory, which checks every access itself (the simulator
            /// reports one outside it).
            #[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
            pub fn host(mem: &'a dyn crate::global::HostBuffer, count: u32) -> Self {
                $tiled {
                    $mem: $global::host(mem),
                    count,
                    layout: PhantomData,
                }
            }

            /// The tiles it holds.
            #[inline(always)]
            pub fn count(&self) -> u32 {
                self.count
            }

            /// This CTA's tiles, grid-stride: `y.each(t).for_each(|k| ..)` compiles to the
            /// hand-written loop; a `for` loop keeps one more register move per tile in the
            /// PTX (ptxas removes it).
            #[inline(always)]
            pub fn each<'t, T: Thread>(&self, t: &'t T) -> Each<'t, T> {
                Each::new::<L>(t, self.count)
            }

            /// Tile `k`, after the check that it is one of this tensor's tiles (a trap, a
            /// panic on the simulator, otherwise; it folds into the loop's own where the counts
            /// are one value).
            #[inline(always)]
            fn checked(&self, k: TileIndex) -> u32 {
                assert!(
                    k.k < self.count,
                    "a tile past the partitioned tensor's count"
                );
                // A tile a cluster's CTAs share, stored in a layout of one CTA, would be
                // stored whole by each (it folds: both are constants).
                assert!(
                    k.ctas == const { crate::layout::cta_count::<L>() },
                    "a tile of a loop over a layout of another number of CTAs"
                );
                k.k
            }
        }
    };
}
tiled_common!(Tiled, src, Global);
tiled_common!(TiledMut, dst, GlobalMut);

impl<'a, E: Element, L: Layout> Tiled<'a, E, L> {
    /// Tile `k`, in `L`.
    #[inline(always)]
    pub fn load(&self, t: &impl Thread, k: TileIndex) -> TileOf<L, E>
    where
        L: Distributed,
    {
        self.load_as::<L>(t, k)
    }

    /// Tile `k`, in another layout `M` of the same shape.
    #[inline(always)]
    pub fn load_as<M: Distributed>(&self, t: &impl Thread, k: TileIndex) -> TileOf<M, E> {
        M::build(self.loading(t, k))
    }

    /// [`Tiled::load`] with the register count written out, for generic code.
    #[inline(always)]
    pub fn load_into<const N: usize>(&self, t: &impl Thread, k: TileIndex) -> Tile<L, E, N>
    where
        L: Registers<N>,
    {
        self.loading(t, k).build()
    }

    /// Tile `k`'s load, `k` checked to be one of this tensor's tiles (which the constructor's
    /// contract keeps in the buffer).
    #[inline(always)]
    fn loading<'v, T: Thread>(&'v self, t: &'v T, k: TileIndex) -> Loading<'v, 'a, E, L, T> {
        Loading {
            src: &self.src,
            t,
            k: self.checked(k),
            layout: PhantomData,
        }
    }
}

impl<'a, E: Element, L: Layout> TiledMut<'a, E, L> {
    /// Stores `tile` as tile `k`, each element once (in `L`, as `TilesMut::store`).
    #[inline(always)]
    pub fn store<T: Thread, const N: usize>(&self, t: &T, k: TileIndex, tile: &Tile<L, E, N>)
    where
        L: Registers<N>,
    {
        exclusive::<T>();
        row_major_tile::<L, L, E, N>();
        // SAFETY: tile `k` is one of the `count` the constructor's contract keeps in the
        // buffer (checked in `checked`), reached by this CTA's loop alone.
        #[allow(unsafe_code)]
        unsafe {
            store_tile(t, &self.dst, self.checked(k), tile)
        }
    }
}

/// A partition's store is exclusive only if its CTA's threads are numbered as the launch's: a
/// warp-specialised role's thread (`Partition`, whose warps count from 0 in each role) would
/// store the same elements from each role (a compile error naming the fix).
#[inline(always)]
pub(crate) fn exclusive<T: Thread>() {
    const {
        if T::PARTITION {
            panic!("a partitioned output is stored by the whole CTA's threads: store through the role's `thread()` (the CTA's numbering), not the role's own, whose warps every role numbers from 0");
        }
    }
}

/// `M` is a layout of `L`'s shape whose vectors run along the last (contiguous) dim of a
/// row-major tile (compile errors naming the problem otherwise).
#[inline(always)]
fn row_major_tile<L: Layout, M: Registers<N>, E: Element, const N: usize>() {
    same_shape::<L, M>();
    const {
        let (fast, v) = Tile::<M, E, N>::VECTOR;
        if v > 1 && fast + 1 != M::RANK {
            panic!("a partitioned tensor's tiles are row-major: they are loaded and stored in vectors along the layout's last dim; convert the tile to a layout whose fast dim is the last");
        }
    }
}

/// `M` is a layout of `L`'s shape (a compile error naming both otherwise).
#[inline(always)]
pub(crate) fn same_shape<L: Layout, M: Layout>() {
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

/// Tile `k`'s origin in a row-major tensor of `L`'s tiles: rows `k * L::SHAPE[0]..`.
#[inline(always)]
fn first<L: Layout, const R: usize>(k: u32) -> [u32; R] {
    let mut o = [0; R];
    o[0] = k * const { L::SHAPE[0] };
    o
}

/// Stores `tile` as tile `k` of `dst`, a row-major tensor of `L`'s tiles (at `L`'s rank: the
/// arms of the other ranks are never taken).
///
/// # Safety
/// Tile `k` is inside `dst`'s buffer, and no other thread writes it.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn store_tile<L: Registers<N>, E: Element, T: Thread, const N: usize>(
    t: &T,
    dst: &GlobalMut<'_, E>,
    k: u32,
    tile: &Tile<L, E, N>,
) {
    // SAFETY: the caller's.
    unsafe {
        match L::RANK {
            1 => tile.store(t, dst, first::<L, 1>(k), const { strides::<L, 1>() }),
            2 => tile.store(t, dst, first::<L, 2>(k), const { strides::<L, 2>() }),
            3 => tile.store(t, dst, first::<L, 3>(k), const { strides::<L, 3>() }),
            _ => tile.store(t, dst, first::<L, 4>(k), const { strides::<L, 4>() }),
        }
    }
}

/// Tile `k` of `src` (a row-major tensor of `L`'s tiles) in layout `M` of the same shape, as
/// [`store_tile`].
///
/// # Safety
/// Tile `k` is inside `src`'s buffer.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn load_tile<L: Layout, M: Registers<N>, E: Element, T: Thread, const N: usize>(
    t: &T,
    src: &Global<'_, E>,
    k: u32,
) -> Tile<M, E, N> {
    // SAFETY: the caller's.
    unsafe {
        match L::RANK {
            1 => Tile::load(t, src, first::<L, 1>(k), const { strides::<L, 1>() }),
            2 => Tile::load(t, src, first::<L, 2>(k), const { strides::<L, 2>() }),
            3 => Tile::load(t, src, first::<L, 3>(k), const { strides::<L, 3>() }),
            _ => Tile::load(t, src, first::<L, 4>(k), const { strides::<L, 4>() }),
        }
    }
}

/// Row-major strides of `L`'s shape (a const: SPIR-V has no slice constants to index at run
/// time).
#[inline(always)]
const fn strides<L: Layout, const R: usize>() -> [u32; R] {
    // Past the layout's rank (a match arm for another rank) the dims are 1.
    let mut shape = [1; R];
    let mut d = 0;
    while d < R && d < L::RANK {
        shape[d] = L::SHAPE[d];
        d += 1;
    }
    row_major(shape)
}

/// A partitioned tensor's load of tile `k` (one its buffer holds: the makers' promise), built
/// once the layout's register count is known.
struct Loading<'v, 'a, E, L, T> {
    src: &'v Global<'a, E>,
    t: &'v T,
    k: u32,
    layout: PhantomData<fn() -> L>,
}

impl<M: Layout, L: Layout, E: Element, T: Thread> Build<M, E> for Loading<'_, '_, E, L, T> {
    #[inline(always)]
    fn build<const N: usize>(self) -> Tile<M, E, N>
    where
        M: Registers<N>,
    {
        row_major_tile::<L, M, E, N>();
        // SAFETY: tile `k` is in the buffer (the makers' promise: the CTA's own tile, or a
        // checked one).
        #[allow(unsafe_code)]
        unsafe {
            load_tile::<L, M, E, T, N>(self.t, self.src, self.k)
        }
    }
}

/// The layout `M` a block is loaded or stored in moves its vectors along the partitioned
/// matrix's contiguous dim (1, or 0 when `TRANSPOSED`): a compile error otherwise, naming the fix.
#[inline(always)]
pub(crate) fn contiguous<M: Registers<N>, E: Element, const N: usize, const TRANSPOSED: bool>() {
    const {
        let (fast, v) = Tile::<M, E, N>::VECTOR;
        if v > 1 && fast != if TRANSPOSED { 0 } else { 1 } {
            panic!("a block is loaded and stored in vectors along its layout's fast dim, which must be the partitioned matrix's contiguous dim (dim 0 of a TRANSPOSED partition, dim 1 otherwise): convert the tile to a layout whose fast dim it is");
        }
    }
}

#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
crate::made::made! {
    impl['a, E, L] Tiles<'a, E, L>, src, (), |self| ();
    impl['a, E, L] TilesMut<'a, E, L>, dst, (), |self| ();
    impl['a, E, L] Tiled<'a, E, L>, src, u32, |self| self.count;
    impl['a, E, L] TiledMut<'a, E, L>, dst, u32, |self| self.count;
}
