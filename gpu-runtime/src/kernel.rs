//! What a host needs to launch a kernel, written by `#[kernel]` next to it: the entry point's
//! name, its parameter types (so a launcher checks the arguments' types at compile time) and
//! the launch shape the kernel was written for (block, dynamic shared memory, cluster), taken
//! from the kernel crate's consts so that host and kernel cannot disagree; the extents' check
//! of a launch's arguments and grid ([`KernelSpec::check_args`], each refusal a [`Refused`]);
//! and the compile-time checks `#[kernel]` makes of its partitions against its block.

use core::marker::PhantomData;

use crate::thread::Thread;

/// A kernel's launch description, written by `#[kernel]`. `P` is the tuple of its parameter
/// types (`Global<'static, f32>`, `u32`, ...). A launcher trusts it (the entry's parameters,
/// the block and shared memory the body was written for), so it is read-only and made only by
/// `#[kernel]` or through the `unsafe` [`KernelSpec::new`]:
///
/// ```compile_fail,E0133
/// use linear_layouts::KernelSpec;
/// // A spec for an entry that may not have these parameters: only `unsafe` can promise it.
/// const FAKE: KernelSpec<(u32,)> = KernelSpec::new("softmax_f32_1024", [128, 1, 1], 0, [1, 1, 1], 32);
/// ```
///
/// ```compile_fail,E0616
/// # use linear_layouts::{kernel, GlobalMut, Thread};
/// #[kernel(block = 128)]
/// fn fill(t: &impl Thread, y: GlobalMut<u32>) {
///     y.store1(t.thread_idx()[0] as usize, 1);
/// }
/// let mut spec = FILL;
/// spec.shared_bytes = 0; // read-only: `spec.shared_bytes()`
/// ```
pub struct KernelSpec<P> {
    name: &'static str,
    block: [u32; 3],
    shared_bytes: u32,
    cluster: [u32; 3],
    warp_size: u32,
    /// The parameters' names, in order (empty: not given).
    names: &'static [&'static str],
    /// The elements each buffer parameter must hold for the launch's other arguments and grid:
    /// held on the host only (a function pointer in a kernel crate's const would be compiled
    /// into its PTX or SPIR-V, where nothing launches).
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
    extents: Extents,
    params: PhantomData<fn(P)>,
}

/// What a launcher knows of one argument, for [`KernelSpec::check_args`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// A device buffer of `len` elements (for a `Global` or `GlobalMut` parameter).
    Buffer {
        /// Elements the buffer holds.
        len: u64,
    },
    /// An integer scalar.
    Int(i128),
    /// Anything else (a float, a tensor map).
    Other,
}

impl Arg {
    /// Argument `i` of `args` ([`Arg::Other`] past the end).
    pub fn at(args: &[Arg], i: usize) -> Arg {
        args.get(i).copied().unwrap_or(Arg::Other)
    }
    /// The integer's value (0 for anything but [`Arg::Int`]).
    pub const fn int(self) -> i128 {
        match self {
            Arg::Int(v) => v,
            _ => 0,
        }
    }
    /// The buffer's elements (`u64::MAX` for anything but [`Arg::Buffer`]: not a buffer, so
    /// nothing to check).
    pub const fn elements(self) -> u64 {
        match self {
            Arg::Buffer { len } => len,
            _ => u64::MAX,
        }
    }
}

/// A buffer argument that holds fewer elements than the kernel reaches: parameter `param`
/// (index `index`) holds `len`, the kernel's `extent(param = expr)` needs `need`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExtentError {
    /// The parameter's index among the kernel's parameters (after the thread).
    pub index: usize,
    /// The parameter's name.
    pub param: &'static str,
    /// The extent as written in `#[kernel(extent(..))]`.
    pub expr: &'static str,
    /// Its value for the launch's arguments.
    pub need: i128,
    /// Elements the argument holds.
    pub len: u64,
}

/// The most elements a view may have: every index of its shape is a `u32`.
pub const MAX_VIEW_ELEMENTS: i128 = 1 << 32;

/// Why an extent refuses a launch's sizes or grid whatever the buffer: the `*_elements`
/// functions return [`Refused::need`] (or [`Refused::needing`], with a number for the message)
/// for it, a negative need the launcher refuses, and its message says which rule broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// A dim negative or past a `u32`, or a shape past `i128`.
    Size,
    /// An `_aligned` tensor whose rows are not whole 16-byte vectors.
    NotAligned,
    /// A partition numbered by `block.x` launched on a grid of 2 or 3 dims.
    GridNot1D,
    /// A grid of 3 dims where a block partition numbers CTAs by x and y.
    Grid3D,
    /// A grid-stride loop whose count plus the grid's CTAs or threads passes a `u32`.
    LoopWraps,
    /// A block partition whose layout is not 2-D.
    NotMatrix,
    /// A block partition's CTAs reaching blocks past the matrix.
    CtasPastMatrix,
    /// A matrix that is not whole blocks of the layout.
    NotWholeBlocks,
    /// A grouped partition of 2^31 blocks or more, or more CTAs than blocks.
    Blocks,
    /// A grouped partition whose group of block rows passes a `u32` of blocks.
    Group,
    /// A row partition whose extent has another number of dims than its layout.
    Rank,
    /// A row partition whose CTAs cover fewer rows than the tensor has.
    TooFewCtas,
    /// A row partition whose rows pass 2^32, or a tensor wider than its layout's tile.
    RowShape,
    /// A batch whose grid has not one row of CTAs (`grid.y`) per matrix.
    BatchGrid,
}

impl Refused {
    /// The `need` that stands for it: negative, which no count of elements is.
    pub const fn need(self) -> i128 {
        self.needing(0)
    }

    /// The `need` that stands for it with `n`, a number its message gives (the CTAs a grid
    /// needs, ...).
    pub const fn needing(self, n: u64) -> i128 {
        -1 - (self as i128 | (n as i128) << 8)
    }

    /// The number a refusal's `need` carries ([`Refused::needing`]).
    pub const fn number(need: i128) -> u64 {
        ((-1 - need) >> 8) as u64
    }

    /// The refusal a `need` stands for, if it is one.
    pub const fn of(need: i128) -> Option<Refused> {
        // In the order declared (a test holds `of(r.need()) == Some(r)` for each).
        const ALL: [Refused; 14] = [
            Refused::Size,
            Refused::NotAligned,
            Refused::GridNot1D,
            Refused::Grid3D,
            Refused::LoopWraps,
            Refused::NotMatrix,
            Refused::CtasPastMatrix,
            Refused::NotWholeBlocks,
            Refused::Blocks,
            Refused::Group,
            Refused::Rank,
            Refused::TooFewCtas,
            Refused::RowShape,
            Refused::BatchGrid,
        ];
        let i = (-1 - need) & 0xff;
        if need < 0 && i < ALL.len() as i128 {
            Some(ALL[i as usize])
        } else {
            None
        }
    }

    /// What broke, and the fix.
    pub const fn why(self) -> &'static str {
        match self {
            Refused::Size => "a size is negative or past a u32, or the shape passes 2^32 elements: fix the sizes",
            Refused::NotAligned => "its rows are not whole 16-byte vectors, which `aligned` promises: pass a width that is, or make the parameter a view without `aligned`",
            Refused::GridNot1D => "its CTAs are numbered along x alone, and two CTAs of a 2-D or 3-D grid would share a part: launch a 1-D grid",
            Refused::Grid3D => "its CTAs are numbered along x and y: launch a grid whose z is 1",
            Refused::LoopWraps => "its grid-stride loop would wrap: the count plus the grid's CTAs (or threads) passes a u32; launch fewer",
            Refused::NotMatrix => "its layout is not 2-D, as a block partition's is",
            Refused::CtasPastMatrix => "the grid's CTAs reach blocks past the matrix: launch at most the matrix's blocks along each dim (its rows and columns over the layout's)",
            Refused::NotWholeBlocks => "the matrix is not whole blocks of the layout's shape: pad it, or take a layout whose blocks divide it",
            Refused::Blocks => "there are more CTAs than blocks, or 2^31 blocks or more: launch at most one CTA per block",
            Refused::Group => "a group of its block rows (Triton's grouped order) holds 2^32 blocks or more: the matrix is too wide for the partition's u32 block numbers",
            Refused::Rank => "the extent has another number of dims than the partition's layout",
            Refused::TooFewCtas => "the grid's CTAs cover fewer rows than the tensor has, so some would go unwritten; launch as many as its rows over the layout's, rounded up",
            Refused::RowShape => "the grid's rows pass 2^32, or the tensor is wider than its layout's tile (each CTA stores one tile's width): take a wider layout, or fewer CTAs",
            Refused::BatchGrid => "the grid has one row of CTAs per matrix (`grid.y` the batch, `grid.z` 1): launch that grid",
        }
    }
}

/// Panics (at compile time: `#[kernel]` calls it in a const) unless partition `param`'s layout
/// `layout`, of `threads` threads, spreads over exactly the kernel's `block`: with more threads
/// two would store one element, with fewer elements would go unstored. With `fewer` (a
/// partition whose stores come from the block's first threads, numbered along x) the block is
/// 1-D and at least the layout's threads.
pub const fn partition_block(param: &str, layout: &str, threads: u32, b: [u32; 3], fewer: bool) {
    let ok = match fewer {
        true => threads <= b[0] && b[1] == 1 && b[2] == 1,
        false => threads == b[0] * b[1] * b[2],
    };
    if ok {
        return;
    }
    let mut m = layout_plan::msg::Msg::new();
    m.push("`")
        .push(param)
        .push("`'s layout `")
        .push(layout)
        .push("` spreads over ");
    m.num(threads)
        .push(" threads, but the kernel's block is [")
        .num(b[0])
        .push(", ");
    m.num(b[1])
        .push(", ")
        .num(b[2])
        .push("] (")
        .num(b[0] * b[1] * b[2])
        .push(" threads): ");
    match fewer {
        true => m.push("its stores come from the block's first threads, numbered along x (write `block = <threads>`, 1-D and at least `").push(layout).push("::THREADS`)"),
        false => m.push("each element would be reached by several threads, or by none (write `block = ").push(layout).push("::THREADS`)"),
    };
    panic!("{}", m.as_str());
}

/// The elements of a view of shape `dims` (computed in `i128` by the extents check): their
/// product, or more than [`MAX_VIEW_ELEMENTS`] where a dim is negative or past a `u32` (the
/// device computes each dim as a `u32`).
pub const fn shape_elements(dims: &[i128]) -> i128 {
    let (mut n, mut d) = (1i128, 0);
    while d < dims.len() {
        if dims[d] < 0 || dims[d] > u32::MAX as i128 {
            return Refused::Size.need();
        }
        n = match n.checked_mul(dims[d]) {
            Some(n) => n,
            None => Refused::Size.need(),
        };
        d += 1;
    }
    n
}

/// Whether a launch's `grid` is 1-D: what a partition whose CTAs are numbered by `block.x`
/// needs for no two of them to share a part.
const fn one_d(grid: [i128; 3]) -> bool {
    grid[1] == 1 && grid[2] == 1
}

/// `need` (a view's elements), or more than any buffer holds where the `_aligned` promise does
/// not hold: the last dim `last` of `elem_bytes` elements is not a multiple of 16 bytes.
pub const fn aligned_elements(need: i128, last: i128, elem_bytes: usize) -> i128 {
    if (last * elem_bytes as i128) % 16 != 0 {
        return Refused::NotAligned.need();
    }
    need
}

/// A grid of more dims than the kernel's `#[kernel(grid_dims = ..)]`, as an [`ExtentError`]
/// names it (its `need` the dims).
pub const GRID_DIMS_EXTENT: &str = "grid_dims";

/// The extent of a partitioned tensor ([`Tiles`](crate::Tiles)), as an [`ExtentError`] names it.
pub const TILES_EXTENT: &str = "a tile per CTA";

/// The elements a partitioned tensor of tiles of `tile` elements needs for a launch of `grid`:
/// one tile per CTA of a 1-D grid (more than [`MAX_VIEW_ELEMENTS`] for a grid of 2 or 3 dims,
/// whose CTAs would share tiles).
pub const fn tiles_elements(grid: [i128; 3], tile: u64) -> i128 {
    if !one_d(grid) {
        return Refused::GridNot1D.need();
    }
    grid[0] * tile as i128
}

/// The elements a grid-stride partitioned tensor ([`Tiled`](crate::Tiled)) of `count` tiles of
/// `tile` elements needs for a launch of `grid`: `count` tiles, for a 1-D grid whose loop
/// cannot wrap (`count + grid.x` a u32); more than any buffer holds otherwise.
pub const fn tiled_elements(grid: [i128; 3], count: i128, tile: u64) -> i128 {
    if !one_d(grid) {
        return Refused::GridNot1D.need();
    }
    if count < 0 {
        return Refused::Size.need();
    }
    if count + grid[0] > u32::MAX as i128 {
        return Refused::LoopWraps.need();
    }
    count * tile as i128
}

/// The elements a thread partition ([`Vectors`](crate::Vectors)) of `count` vectors of
/// `width` elements needs for a launch of `grid` CTAs of `threads` threads: `count` vectors, for
/// a 1-D grid whose loop over its threads cannot wrap (`count` plus the grid's threads a u32);
/// more than any buffer holds otherwise.
pub const fn vectors_elements(grid: [i128; 3], threads: i128, count: i128, width: u64) -> i128 {
    if !one_d(grid) {
        return Refused::GridNot1D.need();
    }
    if count < 0 {
        return Refused::Size.need();
    }
    if count + grid[0] * threads > u32::MAX as i128 {
        return Refused::LoopWraps.need();
    }
    count * width as i128
}

/// The elements a per-thread partition ([`PerThreadMut`](crate::PerThreadMut)) of vectors of
/// `width` elements needs for a launch of `grid` CTAs of `threads` threads: one vector per
/// thread of a 1-D grid; more than any buffer holds for a grid of 2 or 3 dims, whose threads
/// would share vectors.
pub const fn per_thread_elements(grid: [i128; 3], threads: i128, width: u64) -> i128 {
    if !one_d(grid) {
        return Refused::GridNot1D.need();
    }
    grid[0] * threads * width as i128
}

/// The elements a block partition ([`Blocks`](crate::Blocks)) of a `[rows, cols]` matrix in
/// blocks of `L`'s shape needs for a launch of `grid`: the matrix, where every CTA's block lies
/// inside it (of the transpose's shape when `transposed`) and the grid is 2-D at most; more
/// than any buffer holds otherwise.
pub fn blocks_elements<L: crate::layout::Layout>(
    grid: [i128; 3],
    [rows, cols]: [i128; 2],
    transposed: bool,
) -> i128 {
    if L::RANK != 2 {
        return Refused::NotMatrix.need();
    }
    let (bh, bw) = (L::SHAPE[0] as i128, L::SHAPE[1] as i128);
    let (r, c) = if transposed {
        (cols, rows)
    } else {
        (rows, cols)
    };
    if grid[2] != 1 {
        return Refused::Grid3D.need();
    }
    if grid[1] * bh > r || grid[0] * bw > c {
        return Refused::CtasPastMatrix.need();
    }
    shape_elements(&[rows, cols])
}

/// The elements a grouped block partition ([`GroupedMut`](crate::GroupedMut)) of a `[rows,
/// cols]` matrix in blocks of `L`'s shape needs for a launch of `grid`: the matrix, where both
/// dims are whole blocks, there are fewer than 2^31 blocks (and a group of block rows holds
/// fewer than 2^32), and the grid is 1-D with at most one CTA per block; more than any buffer
/// holds otherwise.
pub fn grouped_elements<L: crate::layout::Layout>(
    grid: [i128; 3],
    [rows, cols]: [i128; 2],
) -> i128 {
    let [block_rows, block_cols] = match whole_blocks::<L>([rows, cols]) {
        Ok(b) => b,
        Err(why) => return why.need(),
    };
    let blocks = block_rows * block_cols;
    // The device's group of block rows, `GROUP_ROWS * block_cols`, is a u32.
    let group = crate::grouped::GROUP_ROWS as i128 * block_cols;
    if !one_d(grid) {
        return Refused::GridNot1D.need();
    }
    if grid[0] > blocks || blocks >= 1 << 31 {
        return Refused::Blocks.need();
    }
    if group > u32::MAX as i128 {
        return Refused::Group.need();
    }
    shape_elements(&[rows, cols])
}

/// A `[rows, cols]` matrix's blocks of `L`'s (2-D) shape along each dim, if both dims are whole
/// blocks (a block cut short would be reached past the matrix, or skipped).
fn whole_blocks<L: crate::layout::Layout>([rows, cols]: [i128; 2]) -> Result<[i128; 2], Refused> {
    if L::RANK != 2 {
        return Err(Refused::NotMatrix);
    }
    if rows < 0 || cols < 0 {
        return Err(Refused::Size);
    }
    let (bh, bw) = (L::SHAPE[0] as i128, L::SHAPE[1] as i128);
    match rows % bh == 0 && cols % bw == 0 {
        true => Ok([rows / bh, cols / bw]),
        false => Err(Refused::NotWholeBlocks),
    }
}

/// The elements a matrix read by block ([`Blocked`](crate::Blocked)) of `[rows, cols]` in
/// blocks of `L`'s shape needs: the matrix's, where both dims are whole blocks (a block cut
/// short would be read past the matrix, or skipped); more than any buffer holds otherwise.
pub fn blocked_elements<L: crate::layout::Layout>(dims: [i128; 2]) -> i128 {
    panel_elements::<L>([1, 1, 1], dims, 2)
}

/// The elements an operand panel ([`BlockRows`](crate::BlockRows) when `dim` is 0,
/// [`BlockCols`](crate::BlockCols) when 1, any block when 2) of a `[rows, cols]` matrix in blocks of `L`'s shape
/// needs for a launch of `grid`: the matrix's, where both dims are whole blocks (a block cut
/// short would be read past the matrix, or skipped) and the grid's CTAs along that dim (y for
/// rows, x for columns) are its blocks at most, the grid 2-D at most; more than any buffer
/// holds otherwise.
pub fn panel_elements<L: crate::layout::Layout>(
    grid: [i128; 3],
    [rows, cols]: [i128; 2],
    dim: usize,
) -> i128 {
    let [block_rows, block_cols] = match whole_blocks::<L>([rows, cols]) {
        Ok(b) => b,
        Err(why) => return why.need(),
    };
    let ctas_fit = if dim == 0 {
        grid[1] <= block_rows
    } else {
        grid[0] <= block_cols
    };
    if grid[2] != 1 {
        return Refused::Grid3D.need();
    }
    if !ctas_fit {
        return Refused::CtasPastMatrix.need();
    }
    shape_elements(&[rows, cols])
}

/// The elements a row partition ([`ChunksMut`](crate::ChunksMut)) of shape `dims` in chunks of
/// the layout's `tile` shape needs for a launch of `grid`: the shape's, for a 1-D grid whose
/// chunks' first rows are distinct u32s (`grid.x * tile[0]` at most 2^32) and cover the shape
/// (every row reached, every dim past the first no wider than the tile's), so that each
/// element is stored exactly once; more than any buffer holds otherwise.
pub const fn chunks_elements(grid: [i128; 3], dims: &[i128], tile: &[u32]) -> i128 {
    let rows = if tile.is_empty() { 1 } else { tile[0] as i128 };
    if !one_d(grid) {
        return Refused::GridNot1D.need();
    }
    if tile.len() != dims.len() || dims.is_empty() {
        return Refused::Rank.need();
    }
    if grid[0] * rows > MAX_VIEW_ELEMENTS {
        return Refused::RowShape.need();
    }
    if dims[0] > grid[0] * rows {
        return Refused::TooFewCtas.needing(ctas_for(dims[0], rows));
    }
    let mut d = 1;
    while d < dims.len() {
        if dims[d] > tile[d] as i128 {
            return Refused::RowShape.need();
        }
        d += 1;
    }
    shape_elements(dims)
}

/// The CTAs of `per` rows each that cover `rows` (at most a u64's worth, for a message).
const fn ctas_for(rows: i128, per: i128) -> u64 {
    let n = (rows + per - 1) / if per > 0 { per } else { 1 };
    if n < 0 {
        0
    } else if n > u64::MAX as i128 {
        u64::MAX
    } else {
        n as u64
    }
}

/// The elements a batch of matrices ([`Batch`](crate::Batch)) of `dims = [batch, rows, cols]`
/// needs for a launch of `grid`: the batch's, for a grid of one row of CTAs per matrix
/// (`grid.y` the batch, `grid.z` 1); more than any buffer holds otherwise.
pub const fn batch_elements(grid: [i128; 3], dims: [i128; 3]) -> i128 {
    if grid[2] != 1 || grid[1] != dims[0] {
        return Refused::BatchGrid.needing(if dims[0] < 0 { 0 } else { dims[0] as u64 });
    }
    shape_elements(&dims)
}

/// The elements a batch of row partitions ([`BatchChunksMut`](crate::BatchChunksMut)) of
/// `dims = [batch, rows, cols]` in chunks of `rows_per` rows needs for a launch of `grid`: the
/// batch's, as [`batch_elements`], for chunks along x that cover each matrix's rows and
/// whose first rows are distinct u32s; more than any buffer holds otherwise.
pub const fn batch_chunks_elements(grid: [i128; 3], dims: [i128; 3], rows_per: u32) -> i128 {
    let rows = grid[0] * rows_per as i128;
    if rows < dims[1] {
        return Refused::TooFewCtas.needing(ctas_for(dims[1], rows_per as i128));
    }
    if rows > MAX_VIEW_ELEMENTS {
        return Refused::RowShape.need();
    }
    batch_elements(grid, dims)
}

/// The extents check `#[kernel(extent(..))]` writes: every buffer parameter against its
/// extent, for the launch's arguments (one per parameter, in order) and grid.
pub type Extents = fn(&[Arg], [u32; 3]) -> Result<(), ExtentError>;

/// The check of a kernel that states no extents.
#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
fn no_extents(_: &[Arg], _: [u32; 3]) -> Result<(), ExtentError> {
    Ok(())
}

/// A kernel's launch check ([`KernelSpec::args_check`]) without its parameter types.
#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
#[derive(Clone, Copy, Debug)]
pub struct ArgsCheck {
    kernel: &'static str,
    names: &'static [&'static str],
    extents: Extents,
}

/// One kernel's checks are equal: a kernel (its entry's name) has one extents check.
#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
impl PartialEq for ArgsCheck {
    fn eq(&self, other: &Self) -> bool {
        (self.kernel, self.names) == (other.kernel, other.names)
    }
}
#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
impl Eq for ArgsCheck {}

#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
impl ArgsCheck {
    /// As [`KernelSpec::check_args`].
    #[allow(clippy::result_large_err)]
    pub fn check_args<'a>(&self, args: &'a [Arg], grid: [u32; 3]) -> Result<(), ArgsMismatch<'a>> {
        (self.extents)(args, grid).map_err(|error| ArgsMismatch {
            kernel: self.kernel,
            names: self.names,
            args,
            grid,
            error,
        })
    }
}

/// A launch's arguments that fail the kernel's extents, written out for the user: the kernel,
/// the parameter, both sizes and the scalar arguments the extent was computed from.
#[derive(Clone, Copy, Debug)]
pub struct ArgsMismatch<'a> {
    kernel: &'static str,
    names: &'static [&'static str],
    args: &'a [Arg],
    grid: [u32; 3],
    /// What failed.
    pub error: ExtentError,
}

impl core::fmt::Display for ArgsMismatch<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let e = &self.error;
        if e.expr == GRID_DIMS_EXTENT {
            return write!(
                f,
                "{}: the kernel is launched with grids of {} dims (`#[kernel(grid_dims = {})]`: the CTA indices past them read 0), but the grid is {:?}: launch a grid whose other dims are 1",
                self.kernel, e.need, e.need, self.grid
            );
        }
        if e.expr == TILES_EXTENT {
            let g = self.grid;
            if g[1] != 1 || g[2] != 1 {
                return write!(
                    f,
                    "{}: parameter `{}` is cut into one tile per CTA of a 1-D grid, but the grid is {:?}: launch a grid of [n, 1, 1]",
                    self.kernel, e.param, g
                );
            }
            return write!(
                f,
                "{}: parameter `{}` is cut into one tile per CTA: {} CTAs reach {} elements, but the buffer holds {}: pass a buffer of at least {} elements, or launch fewer CTAs",
                self.kernel, e.param, g[0], e.need, e.len, e.need
            );
        }
        // The extent as written, without the spaces tokens print with (`grid [1]`).
        let expr = ExprText(e.expr);
        if let Some(why) = Refused::of(e.need) {
            write!(
                f,
                "{}: parameter `{}`: its extent `{}`",
                self.kernel, e.param, expr
            )?;
            self.values(f, &expr, true)?;
            write!(f, " refuses this launch: {}", why.why())?;
            let n = Refused::number(e.need);
            return match why {
                Refused::TooFewCtas => write!(f, ": {n} CTAs along x"),
                Refused::BatchGrid => write!(f, ": grid.y = {n}"),
                _ => Ok(()),
            };
        }
        // A view's indices are u32s, whatever its buffer holds (a `Global`'s need only fit it).
        if e.need > MAX_VIEW_ELEMENTS && e.len as i128 >= e.need {
            write!(
                f,
                "{}: parameter `{}`: its extent `{}`",
                self.kernel, e.param, expr
            )?;
            self.values(f, &expr, false)?;
            return write!(
                f,
                " is {} elements, past 2^32: every index of a view is a u32; launch smaller sizes",
                e.need
            );
        }
        write!(
            f,
            "{}: parameter `{}` is a buffer of {} elements, but the kernel reaches {} of them (its extent `{}`",
            self.kernel, e.param, e.len, e.need, expr
        )?;
        self.values(f, &expr, false)?;
        write!(
            f,
            "): pass a buffer of at least {} elements, or smaller sizes",
            e.need
        )
    }
}

impl ArgsMismatch<'_> {
    /// ` with grid = [..], n = ..`: the grid (where `grid` is wanted or the extent names it)
    /// and the integer arguments the extent names.
    fn values(
        &self,
        f: &mut core::fmt::Formatter<'_>,
        expr: &ExprText,
        grid: bool,
    ) -> core::fmt::Result {
        let mut sep = " with ";
        if grid || expr.names("grid") {
            write!(f, "{}grid = {:?}", sep, self.grid)?;
            sep = ", ";
        }
        for (name, arg) in self.names.iter().zip(self.args) {
            if let (Arg::Int(v), true) = (arg, expr.names(name)) {
                write!(f, "{}{} = {}", sep, name, v)?;
                sep = ", ";
            }
        }
        Ok(())
    }
}

/// An extent's text as `#[kernel]` recorded it (tokens separated by spaces), printed as written.
struct ExprText(&'static str);

impl ExprText {
    /// Whether the extent names `name` (a whole word).
    fn names(&self, name: &str) -> bool {
        self.0
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == name)
    }
}

impl core::fmt::Display for ExprText {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let (mut prev, mut chars) = (' ', self.0.chars().peekable());
        while let Some(c) = chars.next() {
            // `grid [1]` and `f (x)` were written `grid[1]` and `f(x)`.
            let next = chars.peek().copied().unwrap_or(' ');
            let call = (prev.is_alphanumeric() || "_)]".contains(prev)) && "[(".contains(next);
            if !(c == ' ' && call) {
                write!(f, "{c}")?;
            }
            prev = c;
        }
        Ok(())
    }
}

impl<P> KernelSpec<P> {
    /// A description (what `#[kernel]` writes).
    ///
    /// # Safety
    ///
    /// `name` is a kernel entry whose parameters are `P`, in order, with their meaning (a
    /// `Global` is read, a `GlobalMut` written, within what the launch's arguments hold); the
    /// entry is correct for blocks of `block` threads in clusters of `cluster` CTAs on warps of
    /// `warp_size` lanes (0: any), and uses at most `shared_bytes` of dynamic shared memory. A
    /// launch through this description runs the entry on that promise.
    // The crate denies unsafe code off the GPU: this is a contract, not an unsafe operation.
    #[allow(unsafe_code)]
    pub const unsafe fn new(
        name: &'static str,
        block: [u32; 3],
        shared_bytes: u32,
        cluster: [u32; 3],
        warp_size: u32,
    ) -> Self {
        KernelSpec {
            name,
            block,
            shared_bytes,
            cluster,
            warp_size,
            names: &[],
            #[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
            extents: no_extents,
            params: PhantomData,
        }
    }

    /// This description with the parameters' names, in order (what `#[kernel]` writes): the
    /// launcher's messages name them.
    pub const fn with_names(mut self, names: &'static [&'static str]) -> Self {
        self.names = names;
        self
    }

    /// This description with the check of its parameters' extents (what
    /// `#[kernel(extent(..))]` writes): a launcher refuses arguments that fail it.
    pub const fn with_extents(self, extents: Extents) -> Self {
        #[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
        return Self { extents, ..self };
        #[cfg(any(target_arch = "nvptx64", target_arch = "spirv"))]
        {
            let _ = extents;
            self
        }
    }

    /// The parameters' names, in order (empty where the description gives none).
    pub const fn param_names(&self) -> &'static [&'static str] {
        self.names
    }

    /// Whether the launch's arguments (one [`Arg`] per parameter, in order) and grid meet the
    /// kernel's extents: each buffer holds every element the kernel reaches. What a launcher
    /// checks before it launches; it needs no GPU.
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
    // The error is made once, before a launch that does not happen: its size costs nothing.
    #[allow(clippy::result_large_err)]
    pub fn check_args<'a>(&self, args: &'a [Arg], grid: [u32; 3]) -> Result<(), ArgsMismatch<'a>> {
        self.args_check().check_args(args, grid)
    }

    /// The launch check alone, for a launcher that holds kernels of several parameter types
    /// (a table of them): it checks arguments, and launches nothing.
    #[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
    pub const fn args_check(&self) -> ArgsCheck {
        ArgsCheck {
            kernel: self.name,
            names: self.names,
            extents: self.extents,
        }
    }

    /// The PTX entry point's name (the function's name: entries are not mangled).
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// Threads per block, x first (`[0, 0, 0]` when the attribute left it to the launch).
    pub const fn block(&self) -> [u32; 3] {
        self.block
    }

    /// Dynamic shared memory per block, in bytes.
    pub const fn shared_bytes(&self) -> u32 {
        self.shared_bytes
    }

    /// CTAs per cluster, x first (`[1, 1, 1]`: no clusters).
    pub const fn cluster(&self) -> [u32; 3] {
        self.cluster
    }

    /// Lanes per warp (subgroup size) the kernel's layouts were written for (0: any): a
    /// launcher refuses a device whose warps differ.
    pub const fn warp_size(&self) -> u32 {
        self.warp_size
    }

    /// Threads per block (the product of `block`).
    pub const fn threads(&self) -> u32 {
        self.block[0] * self.block[1] * self.block[2]
    }
}

impl<P> Clone for KernelSpec<P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P> Copy for KernelSpec<P> {}

impl<P> core::fmt::Debug for KernelSpec<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("KernelSpec")
            .field("name", &self.name)
            .field("block", &self.block)
            .field("shared_bytes", &self.shared_bytes)
            .field("cluster", &self.cluster)
            .field("warp_size", &self.warp_size)
            .finish()
    }
}

/// The largest of `needs`: a kernel's shared memory from its collective operations' needs,
/// `#[kernel(shared = max_shared(&[reduce::shared_bytes::<Rows, 1, f32>(), ..]))]` (they share one
/// scratch from offset 0).
pub const fn max_shared(needs: &[u32]) -> u32 {
    let (mut i, mut m) = (0, 0);
    while i < needs.len() {
        if needs[i] > m {
            m = needs[i];
        }
        i += 1;
    }
    m
}

/// The thread a `#[kernel]` body runs on the simulator (and wherever else it is not the GPU's
/// own [`GpuThread`](crate::nvptx::GpuThread)): `t`, knowing the kernel's declared shared memory
/// `SHARED` as [`Thread::SHARED_BYTES`], so the body's conversions, reductions and scans check
/// their scratch against it when the body is compiled for the simulator, as they do for the
/// GPU. Everything else is `t`'s.
#[derive(Clone, Copy, Debug)]
pub struct KernelThread<'a, T, const SHARED: u32> {
    t: &'a T,
}

impl<'a, T: Thread, const SHARED: u32> KernelThread<'a, T, SHARED> {
    /// `t` as the thread of a kernel that declares `SHARED` bytes of shared memory.
    ///
    /// # Safety
    /// The kernel `t` runs has at least `SHARED` bytes of dynamic shared memory: safe code
    /// places shared tiles and scratch anywhere inside them ([`SharedTile`](crate::SharedTile)).
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn new(t: &'a T) -> Self {
        KernelThread { t }
    }
}

// SAFETY: the wrapped thread's ids and barriers; SHARED is the launch's bytes (the contract of
// `KernelThread::new`).
#[allow(unsafe_code)]
unsafe impl<T: Thread, const SHARED: u32> Thread for KernelThread<'_, T, SHARED> {
    const SHARED_BYTES: Option<u32> = Some(SHARED);
    crate::thread::forward_thread!(
        launch_shape,
        partition,
        block_threads,
        opaque,
        scratch_reads,
        lane,
        warp,
        block,
        thread_idx,
        block_dim,
        block_idx,
        grid_dim,
        shfl_idx,
        shfl_xor,
        redux,
        sync_warp,
        sync_block,
        st_shared,
        ld_shared,
        cta_rank,
        sync_cluster,
        st_shared_cluster,
        ld_shared_cluster,
        ldmatrix,
        stmatrix,
        cp_async,
        cp_async_commit,
        cp_async_wait,
        mma_m16n8k16,
    );
}

// SAFETY: every promise of the trait is the wrapped thread's, forwarded unchanged.
#[cfg(not(target_arch = "spirv"))]
#[allow(unsafe_code)]
unsafe impl<T: crate::hopper::Hopper, const SHARED: u32> crate::hopper::Hopper
    for KernelThread<'_, T, SHARED>
{
    crate::hopper::forward_hopper!();
}
