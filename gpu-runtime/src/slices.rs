//! The facts about layouts that `layout!` states as types, so that the compiler infers what a
//! call would otherwise spell: each distributed layout's register count ([`Distributed`], and
//! [`TileOf`] for the tile type), a parent's slice along a dim ([`SliceAlong`]), a slice's
//! parent ([`SliceOf`]) and how its registers broadcast back ([`BroadcastTo`]). The operations
//! that use them are in [`crate::inferred`].

use crate::element::Element;
use crate::layout::Registers;
use crate::tile::Tile;

/// A distributed layout that knows its register count as a type: `layout!` implements it for
/// every distributed layout it declares, its `Tile<E>` being `Tile<Self, E, N>` with the
/// layout's own `N`. It is what lets a reduction, a conversion or a broadcast name its result
/// without a count ([`TileOf`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a distributed layout `layout!` declared",
    label = "its register count is not known here",
    note = "a layout that is a type parameter: bound it by `Holds<E, N>` (`N` a const parameter of the function) and the result is `Tile<L, E, N>`; a shared layout holds no registers"
)]
pub trait Distributed: crate::layout::Layout + Sized {
    /// The tile of this layout holding `E`s.
    type Tile<E: Element>;
    /// `b` built at this layout's register count.
    fn build<E: Element, B: Build<Self, E>>(b: B) -> Self::Tile<E>;
}

/// An operation whose result is a tile of `L` at any register count: [`Distributed::build`] runs
/// it at `L`'s own.
pub trait Build<L, E> {
    /// The result, `L` holding `N` registers a thread.
    fn build<const N: usize>(self) -> Tile<L, E, N>
    where
        L: Registers<N>;
}

/// A layout whose tiles of `E` hold `N` registers a thread, stated so that generic code infers
/// what the concrete code does: a function generic over a layout bounds it by `Holds<E, N>`
/// (`N` a const parameter of the function, filled in at each call), and then `x.sum::<1>(t)`,
/// `m.broadcast()` and `x.convert::<B>(t)` name their results as `Tile<L, E, N>`, with no count
/// written at the call. Every distributed layout `layout!` declares has it, at its own `N`.
///
/// ```
/// use linear_layouts::sim::{launch, Launch};
/// use linear_layouts::{layout, Holds, SliceAlong, Thread, Tile};
///
/// layout! {
///     Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 32];
///     RowSums = slice(dim = 1, parent = Rows) for [16];
/// }
///
/// /// Each row's sum over any layout with a slice along dim 1.
/// fn row_sums<L, S, const N: usize, const M: usize>(t: &impl Thread, x: &Tile<L, f32, N>) -> Tile<S, f32, M>
/// where
///     L: Holds<f32, N> + SliceAlong<1, Slice = S>,
///     S: Holds<f32, M>,
/// {
///     x.sum::<1>(t)
/// }
///
/// launch(Launch::new(1, 128, 0), |t| {
///     // Element (i, j) holds j: each row sums to 0 + 1 + ... + 31.
///     let x = Tile::<Rows, f32, _>::from_coords(t, |[_, j]| j as f32);
///     assert_eq!(row_sums(t, &x).values, [496.0]);
/// })
/// .unwrap();
/// ```
pub trait Holds<E: Element, const N: usize>:
    Registers<N> + Distributed<Tile<E> = Tile<Self, E, N>>
{
}

impl<L, E: Element, const N: usize> Holds<E, N> for L where
    L: Registers<N> + Distributed<Tile<E> = Tile<L, E, N>>
{
}

/// The tile of layout `L` holding `E`s: `Tile<L, E, N>` with `L`'s own register count `N`
/// (`TileOf<Rows, f32>` is `Tile<Rows, f32, 8>` for a `Rows` of 8 registers a thread).
pub type TileOf<L, E> = <L as Distributed>::Tile<E>;

/// The tile a reduction of a tile of `L` along `D` gives: the slice of `L` along `D`.
pub type SliceTile<L, const D: usize, E> = TileOf<<L as SliceAlong<D>>::Slice, E>;

/// `Self`'s slice along dim `D`: `layout!` implements it for `L` when its block defines
/// `S = slice(dim = D, parent = L)` (the first such `S`, if several).
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no slice along dim {D} declared",
    label = "reducing along dim {D} needs the slice layout of `{Self}` along it",
    note = "declare it in the `layout!` block that defines `{Self}`: `{Self}Slice{D} = slice(dim = {D}, parent = {Self}) for [..]`; a dim past `{Self}`'s rank has no slice; a layout that is a type parameter: bound it by `SliceAlong<{D}, Slice = S>` (and `S: Holds<E, M>`)"
)]
pub trait SliceAlong<const D: usize>: Distributed {
    /// The slice layout.
    type Slice: Distributed;
}

/// The layout `Self` is a slice of: `layout!` implements it for `S = slice(dim = D, parent =
/// L)` defined in the block that defines `L`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a slice of a layout of its `layout!` block",
    label = "`broadcast()` takes a tile of a slice layout to its parent",
    note = "define `{Self}` as `slice(dim = .., parent = ..)` in the block that defines the parent, or name the target: `broadcast_into::<D, L, N>()`"
)]
pub trait SliceOf: Distributed + BroadcastTo<Self::Parent> {
    /// The parent layout.
    type Parent: Distributed;
}

/// Tiles of `Self` broadcast to tiles of `L`, register by register and with no data movement:
/// `L` itself, and each slice of `L` (`layout!` implements it for `S = slice(dim = D, parent =
/// L)` defined in one block). It is what lets `x - m` subtract a row statistic `m` from every
/// element of its row of `x` (Triton's implicit broadcast) and `x.gt(m)` compare with it.
#[diagnostic::on_unimplemented(
    message = "a tile of `{Self}` does not broadcast to `{L}`",
    label = "neither `{L}` nor a slice of it",
    note = "a tile combines with a tile of its own layout, a scalar, or a tile of a slice of its layout: define `S = slice(dim = .., parent = {L})` in the `layout!` block that defines `{L}`, reduce into it (`x.max::<D>(t)`), and combine; or `convert` the tile to `{L}` first; a slice that is a type parameter: bound it by `BroadcastTo<{L}>`"
)]
pub trait BroadcastTo<L> {
    /// The register of a `Self` tile that register `r` of an `L` tile takes.
    fn source(r: usize) -> usize;
}

impl<L> BroadcastTo<L> for L {
    #[inline(always)]
    fn source(r: usize) -> usize {
        r
    }
}
