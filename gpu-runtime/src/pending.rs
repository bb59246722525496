//! Tensor-core groups in flight: `wgmma` returns before the tensor cores are done, and until the
//! warpgroup waits for its group they write the accumulator's registers. An issued group's
//! accumulator is a [`Pending`] that holds the tile, so safe code cannot read or write those
//! registers meanwhile; waiting gives the tile back ([`Pending::wait`], `wgmma.wait_group 0`), or
//! for a group known to have a later one behind it ([`Older`], from [`Pending::then`]) with that
//! later group still running (`wgmma.wait_group 1`: FlashAttention-3's overlap of `S = Q · Kᵀ`
//! with `P · V`). CUTLASS's `warpgroup_wait<N>` and Gluon's `warpgroup_mma_wait(num_outstanding,
//! deps)` are the same waits with the dependencies checked by no one. Only this crate issues
//! groups ([`OperandA`] and [`Accumulate`] are sealed), so a `Pending` always stands for a
//! committed group.
//!
//! A's tile from registers is passed by value (a `Tile` is `Copy`): the caller's copy stays its
//! own, and the registers the group reads are the compiler's (ptxas keeps them until the wait,
//! as it keeps every register an in-flight `wgmma` uses).
//!
//! Still the kernel's: that a stage's tiles are not refilled while a group reads them (which
//! stage a copy may overwrite is a pipeline's runtime protocol of waits and barriers); the
//! simulator reports a break of it. A `Pending` dropped without a wait leaves its group to
//! that protocol too (`#[must_use]` warns).

use crate::hopper::Hopper;
use crate::layout::Layout;
use crate::mma::MmaInput;
use crate::shared_tile::SharedTile;
use crate::slices::{Distributed, Holds, TileOf};
use crate::tile::Tile;
use crate::wgmma::Wgmma;

/// The accumulator of issued `wgmma` groups: the tensor cores write it until [`Pending::wait`]
/// gives it back.
#[must_use = "the tensor cores write the accumulator until `wait` gives it back"]
pub struct Pending<C: Distributed> {
    acc: TileOf<C, f32>,
}

/// A [`Pending`] with a later group issued behind it ([`Pending::then`]): waiting until at most
/// one group is in flight completes it.
#[must_use = "the tensor cores write the accumulator until `wait` gives it back"]
pub struct Older<C: Distributed>(Pending<C>);

/// What seals [`Accumulate`] and [`OperandA`]: only this crate's types issue groups.
mod sealed {
    pub trait Sealed {}
    impl<C: crate::layout::Registers<N>, E, const N: usize> Sealed for crate::tile::Tile<C, E, N> {}
    impl<C: crate::slices::Distributed> Sealed for super::Pending<C> {}
    impl<S, E> Sealed for crate::shared_tile::SharedTile<S, E> {}
}

/// What a group accumulates into: a tile no group writes, or the [`Pending`] of earlier groups
/// into the same registers (the tensor cores order groups on one accumulator).
pub trait Accumulate<C: Distributed>: sealed::Sealed {
    /// As the accumulator of a group about to be issued.
    fn into_pending(self) -> Pending<C>;
}

impl<C: Holds<f32, NC>, const NC: usize> Accumulate<C> for Tile<C, f32, NC> {
    #[inline(always)]
    fn into_pending(self) -> Pending<C> {
        Pending::new(self)
    }
}

impl<C: Distributed> Accumulate<C> for Pending<C> {
    #[inline(always)]
    fn into_pending(self) -> Pending<C> {
        self
    }
}

/// A `wgmma`'s A operand of `E`: a [`SharedTile`], or a [`Tile`] of registers of a `dot_op`
/// layout.
pub trait OperandA<E: MmaInput>: sealed::Sealed {
    /// Issue `acc += self · b` as one committed group of the warpgroup (every thread of it
    /// calls this); the layouts are checked as [`Wgmma`] checks them, a compile error naming
    /// all three.
    fn issue<B: Layout, C: Holds<f32, NC>, T: Hopper, const NC: usize>(
        self,
        t: &T,
        b: &SharedTile<B, E>,
        acc: impl Accumulate<C>,
    ) -> Pending<C>;
}

impl<S: Layout, E: MmaInput> OperandA<E> for SharedTile<S, E> {
    #[inline(always)]
    #[allow(unsafe_code)]
    fn issue<B: Layout, C: Holds<f32, NC>, T: Hopper, const NC: usize>(
        self,
        t: &T,
        b: &SharedTile<B, E>,
        acc: impl Accumulate<C>,
    ) -> Pending<C> {
        let mma = const { Wgmma::<S, B, C, E>::new() };
        let mut acc = acc.into_pending();
        // SAFETY: both tiles were checked inside the kernel's shared memory and aligned when
        // they were made; the accumulator is the returned `Pending`'s until the group is
        // waited for.
        unsafe { mma.run(t, self.offset(), b.offset(), &mut acc.acc.values) };
        acc
    }
}

impl<A: crate::layout::Registers<NA>, E: MmaInput, const NA: usize> OperandA<E> for Tile<A, E, NA> {
    #[inline(always)]
    #[allow(unsafe_code)]
    fn issue<B: Layout, C: Holds<f32, NC>, T: Hopper, const NC: usize>(
        self,
        t: &T,
        b: &SharedTile<B, E>,
        acc: impl Accumulate<C>,
    ) -> Pending<C> {
        let mma = const { Wgmma::<A, B, C, E>::new() };
        let mut acc = acc.into_pending();
        // SAFETY: B's tile was checked inside the kernel's shared memory and aligned when it
        // was made; the accumulator is the returned `Pending`'s until the group is waited for,
        // and A's registers are this call's copy.
        unsafe { mma.run_registers(t, &self.values, b.offset(), &mut acc.acc.values) };
        acc
    }
}

impl<C: Distributed> Pending<C> {
    /// `acc` as the accumulator of groups still to be issued (none writes it yet): a loop's
    /// accumulator before its first group.
    #[inline(always)]
    pub fn new<const NC: usize>(acc: Tile<C, f32, NC>) -> Self
    where
        C: Holds<f32, NC>,
    {
        Pending { acc }
    }

    /// Wait until no group of this warpgroup is in flight (`wgmma.wait_group 0`), and the
    /// accumulator is the caller's again.
    #[inline(always)]
    pub fn wait<T: Hopper, const NC: usize>(self, t: &T) -> Tile<C, f32, NC>
    where
        C: Holds<f32, NC>,
    {
        let Pending { mut acc } = self;
        t.wgmma_wait::<0>();
        // No read of the registers moves above the wait.
        t.wgmma_fence_operand(&mut acc.values);
        acc
    }

    /// Issue `acc += a · b` behind this group's (as [`SharedTile::dot_async`] or
    /// [`Tile::dot_async`]): this one is then [`Older`], complete once at most one group is in
    /// flight.
    #[inline(always)]
    pub fn then<A, E, B, D, T, const ND: usize>(
        self,
        t: &T,
        a: A,
        b: &SharedTile<B, E>,
        acc: impl Accumulate<D>,
    ) -> (Older<C>, Pending<D>)
    where
        A: OperandA<E>,
        E: MmaInput,
        B: Layout,
        D: Holds<f32, ND>,
        T: Hopper,
    {
        let later = a.issue(t, b, acc);
        (Older(self), later)
    }
}

impl<C: Distributed> Older<C> {
    /// Wait until at most one group of this warpgroup is in flight (`wgmma.wait_group 1`):
    /// the later one, so this accumulator is the caller's again.
    #[inline(always)]
    pub fn wait<T: Hopper, const NC: usize>(self, t: &T) -> Tile<C, f32, NC>
    where
        C: Holds<f32, NC>,
    {
        let Pending { mut acc } = self.0;
        t.wgmma_wait::<1>();
        // No read of the registers moves above the wait.
        t.wgmma_fence_operand(&mut acc.values);
        acc
    }
}

impl<S: Layout, E: MmaInput> SharedTile<S, E> {
    /// Issue `acc += self · b` on the tensor cores (`wgmma`, this tile A `[M, K]`, `b` B
    /// `[K, N]`, `acc` their `nvidia_mma` v3 accumulator, or the [`Pending`] of earlier groups
    /// into it; the layouts are checked as [`Wgmma`] checks them, a compile error naming all
    /// three) as one committed group of the warpgroup: every thread of it calls this, and it
    /// returns before the tensor cores are done, the accumulator held by the [`Pending`]
    /// until a wait. [`SharedTile::dot`] waits at once.
    #[inline(always)]
    pub fn dot_async<B: Layout, C: Holds<f32, NC>, T: Hopper, const NC: usize>(
        &self,
        t: &T,
        b: &SharedTile<B, E>,
        acc: impl Accumulate<C>,
    ) -> Pending<C> {
        self.issue(t, b, acc)
    }

    /// `self · b + acc` (Triton's `tl.dot` on shared operands): [`SharedTile::dot_async`],
    /// then wait for every group of the warpgroup.
    #[inline(always)]
    pub fn dot<B: Layout, C: Holds<f32, NC>, T: Hopper, const NC: usize>(
        &self,
        t: &T,
        b: &SharedTile<B, E>,
        acc: Tile<C, f32, NC>,
    ) -> Tile<C, f32, NC> {
        self.dot_async(t, b, acc).wait(t)
    }
}

impl<A: crate::layout::Registers<NA>, E: MmaInput, const NA: usize> Tile<A, E, NA> {
    /// Issue `acc += self · b` with this tile in registers (A, a `dot_op(opIdx = 0)` of the
    /// accumulator's layout) and B's tile in shared memory: [`SharedTile::dot_async`]'s
    /// `wgmma`, A from registers.
    #[inline(always)]
    pub fn dot_async<B: Layout, C: Holds<f32, NC>, T: Hopper, const NC: usize>(
        self,
        t: &T,
        b: &SharedTile<B, E>,
        acc: impl Accumulate<C>,
    ) -> Pending<C> {
        self.issue(t, b, acc)
    }
}
