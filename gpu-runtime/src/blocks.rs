//! Block partitions ([`Blocks`], [`BlocksMut`]): a row-major matrix cut into blocks of a 2-D
//! layout's shape `[bh, bw]`, CTA `(bx, by)` of a 2-D grid owning block `(by, bx)` (rows
//! `by * bh..`, columns `bx * bw..`), as cuTile partitions a matrix over a grid. The launcher
//! checks the matrix's shape against the buffer and the grid against the shape (every CTA's
//! block inside it), so a CTA loads and stores its own block with no mask, and no two CTAs
//! write one element.
//!
//! `TRANSPOSED = true` partitions the matrix's transpose instead: CTA `(bx, by)` owns block
//! `(by, bx)` of `xᵀ` (block `(bx, by)` of `x`, read or written transposed), what a transpose
//! stores: `out: BlocksMut<f32, TileOut, true>` takes `out.store(t, &tile)` of the input's block
//! as it is, and the launcher checks the grid against the transposed shape.
//!
//! A kernel takes `x: Blocks<f32, L>` with `#[kernel(extent(x = [rows, cols]))]`; the device
//! keeps only the row stride (`cols`), so `rows` may be written over `grid` where the kernel has
//! no parameter for it (`[64 * grid[1], n]`).
//!
//! [`BlockRows`] and [`BlockCols`] read a GEMM's operands instead: the CTA's block row of A
//! and block column of B, along K.

use core::marker::PhantomData;

use crate::element::Element;
use crate::global::{Global, GlobalMut};
use crate::grouped::BlockIndex;
use crate::layout::{Layout, Registers};
use crate::slices::{Build, Distributed, TileOf};
use crate::thread::Thread;
use crate::tile::Tile;
use crate::tiles::{contiguous, exclusive, same_shape, GridStride};

/// A matrix a kernel reads, one block of `L`'s shape per CTA (see the module).
pub struct Blocks<'a, E, L, const TRANSPOSED: bool = false> {
    src: Global<'a, E>,
    cols: u32,
    layout: PhantomData<fn() -> L>,
}

/// A matrix a kernel writes, one block of `L`'s shape per CTA, each CTA's its own.
pub struct BlocksMut<'a, E, L, const TRANSPOSED: bool = false> {
    dst: GlobalMut<'a, E>,
    cols: u32,
    layout: PhantomData<fn() -> L>,
}

/// What both share: the constructors and the CTA's block.
macro_rules! blocks_common {
    ($blocks:ident, $mem:ident, $global:ident) => {
        impl<'a, E: Element, L: Layout, const TRANSPOSED: bool> $blocks<'a, E, L, TRANSPOSED> {
            /// The row-major matrix `cols` wide at `mem`: what `#[kernel]` makes of the
            /// parameter.
            ///
            /// # Safety
            /// The launch's grid is 2-D at most, `mem` holds the matrix (`rows * cols`
            /// elements, at most `u32::MAX + 1`), and every CTA's block lies inside it
            /// (`grid.y * bh <= rows`, `grid.x * bw <= cols`; of the transpose's shape when
            /// `TRANSPOSED`): the launcher checks all of it.
            #[inline(always)]
            #[allow(unsafe_code)]
            pub unsafe fn new_unchecked($mem: $global<'a, E>, cols: u32) -> Self {
                $blocks {
                    $mem,
                    cols,
                    layout: PhantomData,
                }
            }

            /// Host memory as the row-major matrix `cols` wide: host memory checks every
            /// access itself (the simulator reports one outside it).
            #[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
            pub fn host(mem: &'a dyn crate::global::HostBuffer, cols: u32) -> Self {
                $blocks {
                    $mem: $global::host(mem),
                    cols,
                    layout: PhantomData,
                }
            }

            /// This CTA's block: its origin (in the partitioned matrix, `xᵀ` when
            /// `TRANSPOSED`) and that matrix's strides.
            #[inline(always)]
            fn block(&self, t: &impl Thread) -> ([u32; 2], [u32; 2]) {
                let [bx, by, _] = t.block_idx();
                (
                    origin::<L>([by, bx]),
                    if TRANSPOSED {
                        [1, self.cols]
                    } else {
                        [self.cols, 1]
                    },
                )
            }
        }
    };
}
blocks_common!(Blocks, src, Global);
blocks_common!(BlocksMut, dst, GlobalMut);

impl<'a, E: Element, L: Layout, const TRANSPOSED: bool> Blocks<'a, E, L, TRANSPOSED> {
    /// This CTA's block, in `L`.
    #[inline(always)]
    pub fn load(&self, t: &impl Thread) -> TileOf<L, E>
    where
        L: Distributed,
    {
        L::build(Loading::<E, L, TRANSPOSED, _> { blocks: self, t })
    }

    /// [`Blocks::load`] with the register count written out, for generic code.
    #[inline(always)]
    pub fn load_into<const N: usize>(&self, t: &impl Thread) -> Tile<L, E, N>
    where
        L: Registers<N>,
    {
        Loading::<E, L, TRANSPOSED, _> { blocks: self, t }.build()
    }
}

impl<'a, E: Element, L: Layout, const TRANSPOSED: bool> BlocksMut<'a, E, L, TRANSPOSED> {
    /// Stores `tile` as this CTA's block, each element once (in `L`, as `TilesMut::store`).
    #[inline(always)]
    pub fn store<T: Thread, const N: usize>(&self, t: &T, tile: &Tile<L, E, N>)
    where
        L: Registers<N>,
    {
        exclusive::<T>();
        contiguous::<L, E, N, TRANSPOSED>();
        let (origin, strides) = self.block(t);
        // SAFETY: the CTA's own block, which the constructor's contract keeps in the buffer.
        #[allow(unsafe_code)]
        unsafe {
            tile.store(t, &self.dst, origin, strides)
        }
    }
}

/// A block partition's load, built once the layout's register count is known.
struct Loading<'v, 'a, E, L, const TRANSPOSED: bool, T> {
    blocks: &'v Blocks<'a, E, L, TRANSPOSED>,
    t: &'v T,
}

impl<M: Layout, L: Layout, E: Element, T: Thread, const TRANSPOSED: bool> Build<M, E>
    for Loading<'_, '_, E, L, TRANSPOSED, T>
{
    #[inline(always)]
    fn build<const N: usize>(self) -> Tile<M, E, N>
    where
        M: Registers<N>,
    {
        same_shape::<L, M>();
        contiguous::<M, E, N, TRANSPOSED>();
        let (origin, strides) = self.blocks.block(self.t);
        // SAFETY: as `BlocksMut::store`.
        #[allow(unsafe_code)]
        unsafe {
            Tile::load(self.t, &self.blocks.src, origin, strides)
        }
    }
}

/// A GEMM's A: a row-major `[rows, cols]` matrix read in whole blocks of `L`'s shape, the
/// CTA's panel its block row `block_idx().y` (CuTe's `local_tile(A, tile, (m, _))`), read
/// along K by [`BlockRows::load`]. The launcher checks the buffer holds the matrix, both dims
/// are whole blocks and the grid has at most as many rows of CTAs as the matrix has block
/// rows; the device keeps only `cols`, so `rows` may be written over `grid` (`extent(a = [64 *
/// grid[1], k])`).
pub struct BlockRows<'a, E, L> {
    src: Global<'a, E>,
    cols: u32,
    layout: PhantomData<fn() -> L>,
}

/// A GEMM's B: a `[rows, cols]` matrix read in whole blocks of `L`'s shape, the CTA's panel
/// its block column `block_idx().x` (CuTe's `local_tile(B, tile, (_, n))`), read along K by
/// [`BlockCols::load`]; stored row-major, or column-major ([`BlockCols::column_major`]: the
/// buffer holds its transpose). The launcher checks the buffer holds the matrix, both dims are
/// whole blocks and the grid has at most as many columns of CTAs as the matrix has block
/// columns.
pub struct BlockCols<'a, E, L, const COLUMN_MAJOR: bool = false> {
    src: Global<'a, E>,
    rows: u32,
    cols: u32,
    layout: PhantomData<fn() -> L>,
}

impl<'a, E: Element, L: Layout> BlockRows<'a, E, L> {
    /// The matrix at `src`, `cols` wide: what `#[kernel]` makes of the parameter.
    ///
    /// # Safety
    /// `src` holds the `[rows, cols]` matrix (at most `u32::MAX + 1` elements), both dims are
    /// multiples of `L`'s, and the launch's grid has at most `rows / L::SHAPE[0]` rows of CTAs:
    /// the launcher checks all of it.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn new_unchecked(src: Global<'a, E>, cols: u32) -> Self {
        BlockRows {
            src,
            cols,
            layout: PhantomData,
        }
    }

    /// Host memory as the matrix, `cols` wide: host memory checks every access itself (the
    /// simulator reports one outside it).
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
    pub fn host(mem: &'a dyn crate::global::HostBuffer, cols: u32) -> Self {
        // SAFETY: host memory checks every access.
        #[allow(unsafe_code)]
        unsafe {
            Self::new_unchecked(Global::host(mem), cols)
        }
    }

    /// The blocks along the CTA's block row: a loop over them reads each once, and its loads'
    /// checks fold into the loop's.
    #[inline(always)]
    pub fn blocks(&self) -> u32 {
        self.cols / const { block::<L>()[1] }
    }

    /// The CTA's block row (CuTe's `local_tile(A, tile, (m, _))`), its index read once: a loop
    /// over its blocks reads no special register.
    #[inline(always)]
    pub fn panel(&self, t: &impl Thread) -> Panel<'a, E, L, false> {
        Panel {
            src: self.src,
            at: origin::<L>([t.block_idx()[1], 0]),
            along: 1,
            extent: self.cols,
            strides: [self.cols, 1],
            layout: PhantomData,
        }
    }

    /// Block `j` of the CTA's block row (a trap past the last; it folds in a loop over
    /// [`BlockRows::blocks`]): [`BlockRows::panel`]'s block `j`.
    #[inline(always)]
    pub fn load(&self, t: &impl Thread, j: u32) -> TileOf<L, E>
    where
        L: Distributed,
    {
        self.panel(t).load(t, j)
    }
}

impl<'a, E: Element, L: Layout, const COLUMN_MAJOR: bool> BlockCols<'a, E, L, COLUMN_MAJOR> {
    /// The `[rows, cols]` matrix at `src`: what `#[kernel]` makes of the parameter.
    ///
    /// # Safety
    /// `src` holds the matrix (at most `u32::MAX + 1` elements), both dims are multiples of
    /// `L`'s, and the launch's grid has at most `cols / L::SHAPE[1]` columns of CTAs: the
    /// launcher checks all of it.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn new_unchecked(src: Global<'a, E>, [rows, cols]: [u32; 2]) -> Self {
        BlockCols {
            src,
            rows,
            cols,
            layout: PhantomData,
        }
    }

    /// Host memory as the `[rows, cols]` matrix: host memory checks every access itself (the
    /// simulator reports one outside it).
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
    pub fn host(mem: &'a dyn crate::global::HostBuffer, shape: [u32; 2]) -> Self {
        // SAFETY: host memory checks every access.
        #[allow(unsafe_code)]
        unsafe {
            Self::new_unchecked(Global::host(mem), shape)
        }
    }

    /// The blocks along the CTA's block column: a loop over them reads each once, and its
    /// loads' checks fold into the loop's.
    #[inline(always)]
    pub fn blocks(&self) -> u32 {
        self.rows / const { block::<L>()[0] }
    }

    /// The CTA's block column (CuTe's `local_tile(B, tile, (_, n))`), its index read once: a
    /// loop over its blocks reads no special register.
    #[inline(always)]
    pub fn panel(&self, t: &impl Thread) -> Panel<'a, E, L, COLUMN_MAJOR> {
        Panel {
            src: self.src,
            at: origin::<L>([0, t.block_idx()[0]]),
            along: 0,
            extent: self.rows,
            strides: strides::<COLUMN_MAJOR>([self.rows, self.cols]),
            layout: PhantomData,
        }
    }

    /// Block `i` of the CTA's block column (a trap past the last; it folds in a loop over
    /// [`BlockCols::blocks`]): [`BlockCols::panel`]'s block `i`.
    #[inline(always)]
    pub fn load(&self, t: &impl Thread, i: u32) -> TileOf<L, E>
    where
        L: Distributed,
    {
        self.panel(t).load(t, i)
    }
}

/// A block row or column of a matrix (CuTe's `local_tile` with one coordinate fixed): the CTA's
/// panel of a [`BlockRows`] or [`BlockCols`] operand, its block index read once, or a
/// [`Blocked`] matrix's row or column, its index checked once; its blocks along K.
#[derive(Clone, Copy)]
pub struct Panel<'a, E, L, const COLUMN_MAJOR: bool> {
    src: Global<'a, E>,
    /// Its first block's origin (in elements), its coordinate `along` 0.
    at: [u32; 2],
    along: usize,
    /// The matrix's elements along `along`: whole blocks.
    extent: u32,
    strides: [u32; 2],
    layout: PhantomData<fn() -> L>,
}

impl<'a, E: Element, L: Layout, const COLUMN_MAJOR: bool> Panel<'a, E, L, COLUMN_MAJOR> {
    /// Its blocks along K.
    #[inline(always)]
    pub fn blocks(&self) -> u32 {
        self.extent / self.len()
    }

    /// A block's elements along K.
    #[inline(always)]
    fn len(&self) -> u32 {
        let shape = const { block::<L>() };
        shape[self.along]
    }

    /// Its K steps, first to last: each a [`KStep`] inside its extent along K, which any panel
    /// as long along K, in blocks as long, loads with no check in the loop (A's steps index B's
    /// panel too). The loop counts elements, as a hand-written one would.
    #[inline(always)]
    pub fn steps(&self) -> KSteps {
        // GridStride's promise: the extent is whole blocks of a power-of-two length, so it is
        // at most 2^32 - len, and `extent - 1 + len` fits a u32.
        KSteps {
            ks: GridStride::new(0, self.len(), self.extent),
        }
    }

    /// Block `k` (a trap past the last; it folds in a loop over [`Panel::blocks`]).
    #[inline(always)]
    pub fn block(&self, k: u32) -> BlockAt<'_, 'a, E, L, COLUMN_MAJOR> {
        assert!(k < self.blocks(), "a block past the operand's panel");
        self.at_offset(k * self.len())
    }

    /// The block of step `s` (a trap if `s` is of a longer panel or of blocks of another length
    /// along K: a test of values fixed for the loop, which leaves it).
    #[inline(always)]
    pub fn block_at(&self, s: KStep) -> BlockAt<'_, 'a, E, L, COLUMN_MAJOR> {
        assert!(s.end <= self.extent, "a K step of a panel with more blocks");
        assert!(
            s.len == self.len(),
            "a K step of a panel of blocks of another length along K"
        );
        self.at_offset(s.k)
    }

    /// The block `k` elements along K, `k` a multiple of the blocks' length below the panel's
    /// extent (the callers' check).
    #[inline(always)]
    fn at_offset(&self, k: u32) -> BlockAt<'_, 'a, E, L, COLUMN_MAJOR> {
        let mut origin = self.at;
        origin[self.along] = k;
        // SAFETY: the block is inside the matrix: the launcher checked the grid's CTAs along
        // the panel's fixed dim against the matrix's blocks there (the operand's contract), and
        // `k` is checked above, the extent whole blocks.
        #[allow(unsafe_code)]
        unsafe {
            BlockAt::at(&self.src, origin, self.strides)
        }
    }

    /// Block `k`, in `L`.
    #[inline(always)]
    pub fn load(&self, t: &impl Thread, k: u32) -> TileOf<L, E>
    where
        L: Distributed,
    {
        self.block(k).load(t)
    }

    /// The block of step `s`, in `L` ([`Panel::block_at`]).
    #[inline(always)]
    pub fn load_at(&self, t: &impl Thread, s: KStep) -> TileOf<L, E>
    where
        L: Distributed,
    {
        self.block_at(s).load(t)
    }
}

/// A step of a [`Panel`]'s loop along K ([`Panel::steps`]): its first element along K, inside
/// the panel it came from.
#[derive(Clone, Copy, Debug)]
pub struct KStep {
    /// Elements along K: a multiple of `len`, below `end`.
    k: u32,
    /// The panel's blocks' length along K.
    len: u32,
    /// The panel's extent along K.
    end: u32,
}

impl KStep {
    /// The step's index along K (its block's).
    #[inline(always)]
    pub fn index(&self) -> u32 {
        self.k / self.len
    }

    /// Its first element along K.
    #[inline(always)]
    pub fn offset(&self) -> u32 {
        self.k
    }
}

/// A panel's K steps ([`Panel::steps`]): its blocks' first elements along K, one by one.
#[derive(Clone, Copy, Debug)]
pub struct KSteps {
    /// The step the panel's blocks' length, the end its extent.
    ks: GridStride,
}

impl Iterator for KSteps {
    type Item = KStep;
    #[inline(always)]
    fn next(&mut self) -> Option<KStep> {
        let (len, end) = self.ks.step_end();
        self.ks.next().map(|k| KStep { k, len, end })
    }
}

impl<'a, E: Element, L: Layout> BlockCols<'a, E, L, false> {
    /// The same matrix stored column-major (the buffer holds its transpose, row-major), in
    /// blocks of `M` (of `L`'s shape): an operand a kernel takes in either order at run time.
    #[inline(always)]
    pub fn column_major<M: Layout>(&self) -> BlockCols<'a, E, M, true> {
        crate::tiles::same_shape::<L, M>();
        BlockCols {
            src: self.src,
            rows: self.rows,
            cols: self.cols,
            layout: PhantomData,
        }
    }
}

/// The strides of a `[rows, cols]` matrix stored row-major, or column-major (its transpose
/// row-major).
const fn strides<const COLUMN_MAJOR: bool>([rows, cols]: [u32; 2]) -> [u32; 2] {
    if COLUMN_MAJOR {
        [1, rows]
    } else {
        [cols, 1]
    }
}

/// The origin of block `[i, j]` of `L`'s shape.
#[inline(always)]
fn origin<L: Layout>([i, j]: [u32; 2]) -> [u32; 2] {
    let [bh, bw] = const { block::<L>() };
    [i * bh, j * bw]
}

/// A 2-D layout's block shape.
const fn block<L: Layout>() -> [u32; 2] {
    assert!(L::RANK == 2, "a block panel's layout is 2-D");
    [L::SHAPE[0], L::SHAPE[1]]
}

/// A matrix a kernel reads by block, any block: `[rows, cols]` in whole blocks of `L`'s shape,
/// stored row-major (column-major when `COLUMN_MAJOR`: the buffer holds its transpose). A
/// panel's index is checked once ([`Blocked::row`], [`Blocked::col`]: a trap past the last),
/// and a block's along it ([`Panel::block`]: a check that folds into a loop over the panel's
/// blocks, or none for a [`KStep`]); a [`BlockAt`] is then a block inside the matrix, which
/// loads and async copies ([`AsyncCopy::start_block`](crate::AsyncCopy::start_block)) read
/// with no mask. What a persistent GEMM reads its operands through, at the rows and columns
/// of the output block it is at. The launcher checks the buffer holds the matrix and both
/// dims are whole blocks.
#[derive(Clone, Copy)]
pub struct Blocked<'a, E, L, const COLUMN_MAJOR: bool = false> {
    src: Global<'a, E>,
    rows: u32,
    cols: u32,
    layout: PhantomData<fn() -> L>,
}

/// A block of a matrix of `L`'s shape, inside it: made only by a [`Blocked`] panel's checked
/// `block`, or inside [`BlockRows`]/[`BlockCols`] under their launcher's checks.
#[derive(Clone, Copy)]
pub struct BlockAt<'v, 'a, E, L, const COLUMN_MAJOR: bool> {
    src: &'v Global<'a, E>,
    origin: [u32; 2],
    strides: [u32; 2],
    layout: PhantomData<fn() -> L>,
}

impl<'a, E: Element, L: Layout, const COLUMN_MAJOR: bool> Blocked<'a, E, L, COLUMN_MAJOR> {
    /// The `[rows, cols]` matrix at `src`: what `#[kernel]` makes of the parameter.
    ///
    /// # Safety
    /// `src` holds the matrix (at most `u32::MAX + 1` elements) and both dims are multiples of
    /// `L`'s: the launcher checks both.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn new_unchecked(src: Global<'a, E>, [rows, cols]: [u32; 2]) -> Self {
        Blocked {
            src,
            rows,
            cols,
            layout: PhantomData,
        }
    }

    /// Host memory as the `[rows, cols]` matrix: host memory checks every access itself (the
    /// simulator reports one outside it).
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
    pub fn host(mem: &'a dyn crate::global::HostBuffer, shape: [u32; 2]) -> Self {
        // SAFETY: host memory checks every access.
        #[allow(unsafe_code)]
        unsafe {
            Self::new_unchecked(Global::host(mem), shape)
        }
    }

    /// Its blocks along each dim.
    #[inline(always)]
    pub fn blocks(&self) -> [u32; 2] {
        let [bh, bw] = const { block::<L>() };
        [self.rows / bh, self.cols / bw]
    }

    /// Block row `i` (a trap past the last).
    #[inline(always)]
    pub fn row(&self, i: u32) -> Panel<'a, E, L, COLUMN_MAJOR> {
        assert!(i < self.blocks()[0], "a block row past the matrix");
        self.panel([i, 0], 1)
    }

    /// Block column `j` (a trap past the last).
    #[inline(always)]
    pub fn col(&self, j: u32) -> Panel<'a, E, L, COLUMN_MAJOR> {
        assert!(j < self.blocks()[1], "a block column past the matrix");
        self.panel([0, j], 0)
    }

    /// The block row of output block `c` (a GEMM's A at C's block: CuTe's `local_tile(A, tile,
    /// (m, _))`): checked as `c`'s partition against this matrix, `c`'s blocks as tall as this
    /// one's and no more block rows than it has (a test of values fixed for the kernel, which
    /// folds where both shapes come from one parameter), rather than `c`'s row itself.
    #[inline(always)]
    pub fn row_of(&self, c: BlockIndex) -> Panel<'a, E, L, COLUMN_MAJOR> {
        let (blocks, size) = c.grid();
        assert!(
            size[0] == const { block::<L>()[0] } && blocks[0] <= self.blocks()[0],
            "an output block row past the matrix's block rows"
        );
        self.panel([c.coords()[0], 0], 1)
    }

    /// The block column of output block `c` (a GEMM's B at C's block), checked as
    /// [`Blocked::row_of`] checks rows.
    #[inline(always)]
    pub fn col_of(&self, c: BlockIndex) -> Panel<'a, E, L, COLUMN_MAJOR> {
        let (blocks, size) = c.grid();
        assert!(
            size[1] == const { block::<L>()[1] } && blocks[1] <= self.blocks()[1],
            "an output block column past the matrix's block columns"
        );
        self.panel([0, c.coords()[1]], 0)
    }

    /// The panel through block `at` along dim `along` (`at`'s coordinate there 0), `at`'s other
    /// coordinate inside the matrix (the callers' check).
    #[inline(always)]
    fn panel(&self, at: [u32; 2], along: usize) -> Panel<'a, E, L, COLUMN_MAJOR> {
        Panel {
            src: self.src,
            at: origin::<L>(at),
            along,
            extent: [self.rows, self.cols][along],
            strides: strides::<COLUMN_MAJOR>([self.rows, self.cols]),
            layout: PhantomData,
        }
    }
}

impl<'a, E: Element, L: Layout> Blocked<'a, E, L, false> {
    /// The same matrix stored column-major (the buffer holds its transpose, row-major), in
    /// blocks of `M` (of `L`'s shape): an operand a kernel takes in either order at run time.
    #[inline(always)]
    pub fn column_major<M: Layout>(&self) -> Blocked<'a, E, M, true> {
        same_shape::<L, M>();
        Blocked {
            src: self.src,
            rows: self.rows,
            cols: self.cols,
            layout: PhantomData,
        }
    }
}

impl<'v, 'a, E: Element, L: Layout, const COLUMN_MAJOR: bool> BlockAt<'v, 'a, E, L, COLUMN_MAJOR> {
    /// The block of `L`'s shape at `origin` of the matrix at `src` of `strides`.
    ///
    /// # Safety
    /// The block is inside the matrix, which `src` holds.
    #[inline(always)]
    #[allow(unsafe_code)]
    unsafe fn at(src: &'v Global<'a, E>, origin: [u32; 2], strides: [u32; 2]) -> Self {
        BlockAt {
            src,
            origin,
            strides,
            layout: PhantomData,
        }
    }

    /// The block, in `L`.
    #[inline(always)]
    pub fn load(self, t: &impl Thread) -> TileOf<L, E>
    where
        L: Distributed,
    {
        L::build(Loaded { block: self, t })
    }

    /// The buffer, the block's origin and the matrix's strides: a block inside the buffer.
    #[inline(always)]
    pub(crate) fn parts(&self) -> (&'v Global<'a, E>, [u32; 2], [u32; 2]) {
        (self.src, self.origin, self.strides)
    }
}

/// A block's load, built once its layout's register count is known.
struct Loaded<'v, 'a, 't, E, L, const COLUMN_MAJOR: bool, T> {
    block: BlockAt<'v, 'a, E, L, COLUMN_MAJOR>,
    t: &'t T,
}

impl<L: Layout, E: Element, T: Thread, const COLUMN_MAJOR: bool> Build<L, E>
    for Loaded<'_, '_, '_, E, L, COLUMN_MAJOR, T>
{
    #[inline(always)]
    fn build<const N: usize>(self) -> Tile<L, E, N>
    where
        L: Registers<N>,
    {
        contiguous::<L, E, N, COLUMN_MAJOR>();
        let BlockAt {
            src,
            origin,
            strides,
            ..
        } = self.block;
        // SAFETY: the block is inside the matrix (its makers' contract), which the buffer
        // holds; its vectors run along the contiguous dim (checked above).
        #[allow(unsafe_code)]
        unsafe {
            Tile::load(self.t, src, origin, strides)
        }
    }
}

#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
crate::made::made! {
    impl['a, E, L, const T: bool] Blocks<'a, E, L, T>, src, u32, |self| self.cols;
    impl['a, E, L, const T: bool] BlocksMut<'a, E, L, T>, dst, u32, |self| self.cols;
    impl['a, E, L] BlockRows<'a, E, L>, src, u32, |self| self.cols;
    impl['a, E, L, const C: bool] BlockCols<'a, E, L, C>, src, [u32; 2], |self| [self.rows, self.cols];
    impl['a, E, L, const C: bool] Blocked<'a, E, L, C>, src, [u32; 2], |self| [self.rows, self.cols];
}
