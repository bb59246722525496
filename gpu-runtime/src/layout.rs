//! The `Layout` trait: what every type that `layout!` defines exposes to kernels, generic code
//! and the host. Everything is a const or an inlined bit operation; nothing allocates.

pub use layout_plan::tables::{InDim, LayoutKind, Tables};

/// Where an element lives among threads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HwIndex {
    /// Register within the thread.
    pub register: u32,
    /// Lane within the warp.
    pub lane: u32,
    /// Warp within the CTA.
    pub warp: u32,
    /// CTA within the cluster.
    pub block: u32,
}

/// Where an element lives in shared memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SharedIndex {
    /// Element offset within the CTA's buffer.
    pub offset: u32,
    /// CTA within the cluster.
    pub block: u32,
}

/// A tensor layout solved at compile time by `layout!`.
///
/// The generated type also has inherent, `const`, `#[inline(always)]` functions with concrete
/// types (`apply(register, lane, warp, block) -> [u32; RANK]`, `locate(coords)`); this trait is
/// the same information for generic code.
///
/// # Safety
/// The tables describe a layout `layout!` solved: every hardware index a `Tile` of it holds
/// (`coord` of its registers, lanes, warps and blocks) is inside `SHAPE`, and `TABLES`,
/// `IN_DIMS`, `ELEMENTS_PER_THREAD` and the vector facts agree with `coord`, and
/// `parent_coord` is the coordinate `SLICE_OF` names of the layout whose tables it holds. Loads
/// and stores that partitions make without masks (`Tiles`, `Blocks`, ...) rely on it, and
/// stores write each element once by it, so only `layout!` implements it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a layout defined with `layout!`",
    label = "not a `layout!` type",
    note = "convert! takes a type that implements `Layout`: a `layout!` type by any path, an alias of one, or a generic parameter bounded by `Layout`; or a layout written inline with its shape: `#ttg.blocked<{{...}}> : tensor<64x64xf32>` or `blocked(...) for [64, 64]`"
)]
#[allow(unsafe_code)]
pub unsafe trait Layout: Copy + Default + 'static {
    /// The type's name, as `layout!` declared it (for compile-time messages about it).
    const NAME: &'static str;
    /// The layout as written in `layout!`.
    const SOURCE: &'static str;
    /// Distributed or shared.
    const KIND: LayoutKind;
    /// Tensor rank.
    const RANK: usize;
    /// Tensor shape, dim 0 first.
    const SHAPE: &'static [u32];
    /// In-dims in Triton's order (`register, lane, warp, block` or `offset, block`).
    const IN_DIMS: &'static [InDim];
    /// Registers per thread (distributed layouts; 0 for shared ones).
    const ELEMENTS_PER_THREAD: u32;
    /// Consecutive elements along the fastest dim held in consecutive registers (or offsets):
    /// the widest vector a load or store can use, in elements.
    const CONTIGUITY_PER_THREAD: u32;
    /// The solved layout as a self-contained `#ttg.linear<...>` (or `#ttg.shared_linear<...>`).
    const LINEAR_TTGIR: &'static str;
    /// A padded shared layout's `(interval, pad)` pairs in elements (`#ttg.padded_shared`): after
    /// every `interval` elements of the offsets come `pad` unused ones. Empty for the others.
    const PADDING: &'static [(u32, u32)] = &[];
    /// The tables plans read ([`Tables`]): the above, as one value.
    const TABLES: Tables = Tables {
        name: Self::NAME,
        kind: Self::KIND,
        rank: Self::RANK,
        shape: Self::SHAPE,
        in_dims: Self::IN_DIMS,
        padding: Self::PADDING,
    };

    /// Coordinate `dim` (0 past the rank) of the element at `index` (`[register, lane, warp,
    /// block]`, or `[offset, block, _, _]` for a shared layout): the type's straight-line
    /// `apply`, for generic code (e.g. [`Tile`](crate::tile::Tile)). One coordinate, not an
    /// out-slice, so that backends without slices (SPIR-V) compile it.
    fn coord(index: [u32; 4], dim: usize) -> u32;

    /// For a slice `layout!` declared beside its parent (`S = slice(dim = D, parent = P)` in
    /// `P`'s block): `P`'s tables and `D`. `None` for every other layout.
    const SLICE_OF: Option<(Tables, usize)> = None;

    /// For a slice ([`Layout::SLICE_OF`]): `P`'s coordinate `D` of the element at `index`,
    /// which the parent's own accesses compute too (a store of the slice tests it to find the
    /// thread holding the first copy of its elements, as a kernel's author tests the column).
    /// 0 for every other layout.
    fn parent_coord(index: [u32; 4]) -> u32 {
        let _ = index;
        0
    }

    /// Coordinates of the element at positional in-dim values `index` (in [`Layout::IN_DIMS`]
    /// order, missing ones zero), written to `out[..RANK]`. This generic form XORs the basis
    /// tables; the inherent `apply` of a `layout!` type is the straight-line version.
    fn apply_index(index: &[u32], out: &mut [u32]) {
        let rank = Self::RANK.min(out.len());
        for o in out[..rank].iter_mut() {
            *o = 0;
        }
        for (d, dim) in Self::IN_DIMS.iter().enumerate() {
            let x = index.get(d).copied().unwrap_or(0);
            for bit in 0..dim.size.trailing_zeros() as usize {
                if (x >> bit) & 1 == 1 {
                    let b = dim.basis(bit, Self::RANK);
                    for k in 0..rank {
                        out[k] ^= b[k];
                    }
                }
            }
        }
    }

    /// The in-dim named `name`, if the layout has it.
    fn in_dim(name: &str) -> Option<&'static InDim> {
        Self::IN_DIMS
            .iter()
            .find(|d| d.name.as_bytes() == name.as_bytes())
    }
}

/// The CTAs of a cluster a distributed layout spreads over (its `block` in-dim; 1 without).
pub const fn cta_count<L: Layout>() -> u32 {
    let mut i = 0;
    while i < L::IN_DIMS.len() {
        if layout_plan::slices::same_u8(L::IN_DIMS[i].name.as_bytes(), b"block") {
            return L::IN_DIMS[i].size;
        }
        i += 1;
    }
    1
}

/// The threads of a CTA a distributed layout spreads over (its lanes times its warps; the
/// `THREADS` that `layout!` writes on the type), from its in-dims.
pub const fn cta_threads<L: Layout>() -> u32 {
    let (mut n, mut i) = (1, 0);
    while i < L::IN_DIMS.len() {
        let d = &L::IN_DIMS[i];
        let name = d.name.as_bytes();
        if layout_plan::slices::same_u8(name, b"lane")
            || layout_plan::slices::same_u8(name, b"warp")
        {
            n *= d.size;
        }
        i += 1;
    }
    n
}

/// A distributed layout whose threads hold `N` registers each. `layout!` implements it for the
/// layout's own count only, so a [`Tile`](crate::Tile)`<L, E, N>` with another `N` is a type
/// error that `cargo check` reports, naming both counts. Generic code states the count it
/// relies on: `fn f<L: Registers<N>, const N: usize>(..)`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not hold {N} registers per thread",
    label = "`{Self}` holds another register count than {N}",
    note = "the `Registers<..>` implementation listed below is the count the layout holds (`{Self}::ELEMENTS_PER_THREAD`): write that for `N`, or `_`; a layout that is a type parameter: bound it by `Holds<E, N>` (`N` a const parameter of the function); a shared layout holds none (store into it or load from it: `Planned`'s `store` and `load`)"
)]
pub trait Registers<const N: usize>: Layout {}

/// A layout type `layout!` declared (under any name: an alias of one is one too), as opposed to a
/// type parameter bounded by [`Layout`]. It is what lets
/// [`Planned`](crate::planned::Planned)'s `run`, `store` and `load` read the arrays' lengths off
/// the layouts; `layout!` implements it for every layout, and generic code has no need to name
/// it.
pub trait Declared: Layout {}
