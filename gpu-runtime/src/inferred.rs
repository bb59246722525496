//! The tile operations whose result type the layouts determine, written with only the dim (as
//! Triton's `axis`) or the target layout: `x.sum::<1>(t)`, `x.max::<1>(t)`, `m.broadcast()`,
//! `x.convert::<B>(t)`. `layout!` states what they need as types: each distributed layout's
//! register count ([`Distributed`]), and for each `S = slice(dim = D, parent = L)` of a block,
//! `L`'s slice along `D` ([`SliceAlong`]) and `S`'s parent ([`SliceOf`]). The operations
//! themselves are the ones with the types spelled out ([`Tile::reduce_into`],
//! [`Tile::convert_into`], [`Tile::broadcast_into`]), which generic code (layouts as type
//! parameters) calls; this module only fills in those types, at no cost in instructions.

use crate::element::Element;
use crate::layout::Registers;
use crate::reduce::redux_of;
use crate::redux::{Max, Min, Op, Redux, Sum};
use crate::slices::{Build, Distributed, SliceAlong, SliceOf, SliceTile, TileOf};
use crate::thread::Thread;
use crate::tile::Tile;

/// A reduction of a tile of `L` along `D`, built once the slice's register count is known.
struct Reducing<'a, L: Registers<N>, E, T, F, const N: usize, const D: usize> {
    x: &'a Tile<L, E, N>,
    t: &'a T,
    combine: F,
    redux: Option<Redux>,
}

impl<L, E, T, F, const N: usize, const D: usize> Build<L::Slice, E>
    for Reducing<'_, L, E, T, F, N, D>
where
    L: Registers<N> + SliceAlong<D>,
    E: Element,
    T: Thread,
    F: Fn(E, E) -> E,
{
    #[inline(always)]
    fn build<const M: usize>(self) -> Tile<L::Slice, E, M>
    where
        L::Slice: Registers<M>,
    {
        self.x
            .reduce_by::<D, L::Slice, M>(self.t, self.combine, self.redux)
    }
}

/// A conversion of a tile of `A` to a layout of any count.
struct Converting<'a, A: Registers<N>, E, T, const N: usize> {
    x: &'a Tile<A, E, N>,
    t: &'a T,
}

impl<A: Registers<N>, B, E: Element, T: Thread, const N: usize> Build<B, E>
    for Converting<'_, A, E, T, N>
{
    #[inline(always)]
    fn build<const M: usize>(self) -> Tile<B, E, M>
    where
        B: Registers<M>,
    {
        self.x.convert_into::<B, M>(self.t)
    }
}

/// A slice tile taken to its parent.
struct Broadcasting<'a, S: Registers<M>, E, const M: usize>(&'a Tile<S, E, M>);

impl<S, E: Element, const M: usize> Build<S::Parent, E> for Broadcasting<'_, S, E, M>
where
    S: Registers<M> + SliceOf,
{
    #[inline(always)]
    fn build<const N: usize>(self) -> Tile<S::Parent, E, N>
    where
        S::Parent: Registers<N>,
    {
        let mut out = [E::default(); N];
        crate::unroll!(N, |r| out[r] = self.0.values[S::source(r)]);
        Tile::new(out)
    }
}

impl<L: Registers<N>, E: Element, const N: usize> Tile<L, E, N> {
    /// Reduces along dim `D` with `combine` (associative and commutative, as Triton's
    /// `tl.reduce` requires: `+`, `max`, `min`, a two-value argmax on a pair) into `L`'s slice
    /// along `D`, each thread's copies of an element equal. Needs the slice's
    /// `Slice::shared_bytes(size of E)` bytes of shared memory when warps hold parts of the dim.
    ///
    /// ```
    /// use linear_layouts::sim::{launch, Launch};
    /// use linear_layouts::{layout, Thread, Tile};
    ///
    /// layout! {
    ///     Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 32];
    ///     RowSums = slice(dim = 1, parent = Rows) for [16];
    /// }
    ///
    /// launch(Launch::new(1, 128, 0), |t| {
    ///     // Element (i, j) holds j: each row sums to 0 + 1 + ... + 31.
    ///     let x = Tile::<Rows, f32, _>::from_coords(t, |[_, j]| j as f32);
    ///     let s: Tile<RowSums, f32, 1> = x.reduce::<1>(t, |a, b| a + b);
    ///     assert_eq!(s.values, [496.0]);
    /// })
    /// .unwrap();
    /// ```
    ///
    /// A dim with no slice declared is an error at the call, naming the slice to declare:
    ///
    /// ```compile_fail
    /// # use linear_layouts::{layout, Thread, Tile};
    /// # layout! {
    /// #     Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 32];
    /// #     RowSums = slice(dim = 1, parent = Rows) for [16];
    /// # }
    /// # fn f(t: &impl Thread, x: Tile<Rows, f32, 4>) {
    /// let _ = x.reduce::<0>(t, |a, b| a + b);
    /// # }
    /// ```
    #[inline(always)]
    pub fn reduce<const D: usize>(
        &self,
        t: &impl Thread,
        combine: impl Fn(E, E) -> E,
    ) -> SliceTile<L, D, E>
    where
        L: SliceAlong<D>,
    {
        let redux = None;
        let x = self;
        <L::Slice as Distributed>::build(Reducing::<_, _, _, _, N, D> {
            x,
            t,
            combine,
            redux,
        })
    }

    /// [`Tile::reduce`] by a named operator ([`Sum`], [`Max`], [`Min`], `BitAnd`, `BitOr`,
    /// `BitXor`), by whole-warp `redux.sync` where that takes fewer instructions:
    /// [`Tile::reduce_op_into`].
    #[inline(always)]
    pub fn reduce_op<const D: usize>(&self, t: &impl Thread, op: impl Op<E>) -> SliceTile<L, D, E>
    where
        L: SliceAlong<D>,
    {
        let (x, redux) = (self, redux_of(&op));
        let combine = |a, b| op.combine(a, b);
        <L::Slice as Distributed>::build(Reducing::<_, _, _, _, N, D> {
            x,
            t,
            combine,
            redux,
        })
    }

    /// `tl.sum` along dim `D`: [`Tile::reduce_op`] by [`Sum`].
    #[inline(always)]
    pub fn sum<const D: usize>(&self, t: &impl Thread) -> SliceTile<L, D, E>
    where
        L: SliceAlong<D>,
        Sum: Op<E>,
    {
        self.reduce_op::<D>(t, Sum)
    }

    /// `tl.max` along dim `D`: [`Tile::reduce_op`] by [`Max`].
    #[inline(always)]
    pub fn max<const D: usize>(&self, t: &impl Thread) -> SliceTile<L, D, E>
    where
        L: SliceAlong<D>,
        Max: Op<E>,
    {
        self.reduce_op::<D>(t, Max)
    }

    /// `tl.min` along dim `D`: [`Tile::reduce_op`] by [`Min`].
    #[inline(always)]
    pub fn min<const D: usize>(&self, t: &impl Thread) -> SliceTile<L, D, E>
    where
        L: SliceAlong<D>,
        Min: Op<E>,
    {
        self.reduce_op::<D>(t, Min)
    }

    /// The same tensor in layout `B` (Triton's `convert_layout`): [`Tile::convert_into`] with
    /// `B`'s register count filled in.
    #[inline(always)]
    pub fn convert<B: Distributed>(&self, t: &impl Thread) -> TileOf<B, E> {
        B::build(Converting { x: self, t })
    }

    /// Each register of a tile of the parent takes its element of this slice: Triton's
    /// `expand_dims` then `broadcast`, no data movement ([`Tile::broadcast_into`] with the
    /// parent filled in). Operators broadcast a slice by themselves (`x - m`).
    #[inline(always)]
    pub fn broadcast(&self) -> TileOf<L::Parent, E>
    where
        L: SliceOf,
    {
        <L::Parent as Distributed>::build(Broadcasting(self))
    }
}
