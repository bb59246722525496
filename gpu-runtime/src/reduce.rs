//! Reductions of a [`Tile`] along a dim, lowered as Triton lowers `tt.reduce`: first within each
//! thread over the registers that differ only along the dim, then by `shfl.sync.bfly` over the
//! lane bits along it, then through shared memory across the warps along it. The result is in
//! the slice layout `S = slice(D, L)`, every copy of an element (lanes and warps that hold the
//! same one) equal.
//!
//! The plan is `layout_plan::reduce`'s, a const of the layouts' basis tables ([`Slice::PLAN`]),
//! evaluated when the reduction is instantiated, so it works for generic layouts; this module
//! runs it. A type `S` that is not the slice of `L` along `D` is a compile error that writes out the slice (as `layout!`'s `linear(...)`
//! form). Shared memory: [`Slice::SHARED_BYTES`] (0 when the dim stays within warps). A
//! cross-warp reduction has a barrier between its stores and its loads, and one before its
//! stores only when an earlier collective operation's loads from the scratch may be pending
//! (`Thread::scratch_write_begin`, Triton's membar rule): any sequence of conversions,
//! reductions and scans is race-free with no barrier written by hand, and costs Triton's
//! barriers.

use core::marker::PhantomData;

use crate::element::Element;
use crate::layout::Registers;
use crate::redux::{widen, Op, Redux};
use crate::thread::{scratch_fits, ScratchUse, Thread};
use crate::tile::Tile;

impl<S: Registers<M>, E: Element, const M: usize> Tile<S, E, M> {
    /// Each register of a tile of `L` takes its element of this slice `S = slice(D, L)`: the
    /// inverse of [`Tile::reduce`]'s layout change, Triton's `expand_dims` then `broadcast`,
    /// with no data movement (every thread already holds the elements it needs). For generic
    /// code; [`Tile::broadcast`] infers `L` from the slice.
    #[inline(always)]
    pub fn broadcast_into<const D: usize, L: Registers<N>, const N: usize>(&self) -> Tile<L, E, N> {
        let plan = Slice::<L, S, D, N, M>::PLAN;
        let mut out = [E::default(); N];
        crate::unroll!(N, |r| out[r] = self.values[plan.group(r as u32) as usize]);
        Tile::new(out)
    }
}

/// The slice of `L` along `D` with `M` registers per thread, named `S`: its reduction and
/// broadcast plan.
pub struct Slice<L, S, const D: usize, const N: usize, const M: usize>(PhantomData<(L, S)>);

impl<L: Registers<N>, S: Registers<M>, const D: usize, const N: usize, const M: usize>
    Slice<L, S, D, N, M>
{
    /// The plan, checked against both layouts' tables.
    pub const PLAN: ReducePlan = match reduce_plan(L::TABLES, S::TABLES, D) {
        Ok(p) => p,
        Err(why) => panic!("{}", why.as_str()),
    };
    /// Shared memory a reduction of 32-bit elements needs (scale by the element's size:
    /// [`Slice::shared_bytes`]).
    pub const SHARED_BYTES: u32 = Self::shared_bytes(4);

    /// Shared memory a reduction of `elem_bytes`-byte elements needs: each thread's `M`
    /// partials, when warps hold parts of the dim; else 0.
    pub const fn shared_bytes(elem_bytes: u32) -> u32 {
        Self::PLAN.cost(M as u32, elem_bytes * 8).shared_bytes
    }
}

use layout_plan::reduce::{bits, pdep, pext, Staging};
pub use layout_plan::reduce::{reduce_plan, ReduceCost, ReducePlan};

/// Shared memory a reduction of a tile of `L` holding `E`s along `D` needs (0 when the dim stays
/// within warps), with the slice and both register counts taken from the layouts: what to write
/// in `#[kernel(shared = ..)]`, e.g. `reduce::shared_bytes::<Rows, 1, f32>()`.
pub const fn shared_bytes<L: crate::slices::SliceAlong<D>, const D: usize, E: Element>() -> u32 {
    use crate::layout::Layout;
    type S<L, const D: usize> = <L as crate::slices::SliceAlong<D>>::Slice;
    match reduce_plan(L::TABLES, S::<L, D>::TABLES, D) {
        Ok(p) => p.cost(S::<L, D>::ELEMENTS_PER_THREAD, E::BITS).shared_bytes,
        Err(why) => panic!("{}", why.as_str()),
    }
}

/// `v` from the lane `lane ^ mask` of the warp, for any element size.
#[inline(always)]
pub(crate) fn shfl_xor<T: Thread, E: Element>(t: &T, v: E, mask: u32) -> E {
    let b = v.to_bits();
    let lo = t.shfl_xor(b as u32, mask) as u64;
    let hi = match E::BITS > 32 {
        true => (t.shfl_xor((b >> 32) as u32, mask) as u64) << 32,
        false => 0,
    };
    E::from_bits(lo | hi)
}

impl<L: Registers<N>, E: Element, const N: usize> Tile<L, E, N> {
    /// [`Tile::reduce`] with the slice `S = slice(D, L)` and its register count `M` written
    /// out, for generic code (layouts as type parameters). Needs
    /// `Slice::<L, S, D, N, M>::shared_bytes(size of E)` bytes of shared memory when warps
    /// hold parts of the dim. A type `S` that is not the slice of `L` along `D` is a compile
    /// error that writes out the slice.
    ///
    /// ```
    /// use linear_layouts::sim::{launch, Launch};
    /// use linear_layouts::{layout, Registers, Thread, Tile};
    ///
    /// layout! {
    ///     Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 32];
    ///     RowSums = slice(dim = 1, parent = Rows) for [16];
    /// }
    ///
    /// fn row_sums<L: Registers<N>, S: Registers<M>, const N: usize, const M: usize>(
    ///     t: &impl Thread,
    ///     x: &Tile<L, f32, N>,
    /// ) -> Tile<S, f32, M> {
    ///     x.reduce_into::<1, S, M>(t, |a, b| a + b)
    /// }
    ///
    /// launch(Launch::new(1, 128, 0), |t| {
    ///     // Element (i, j) holds j: each row sums to 0 + 1 + ... + 31.
    ///     let x = Tile::<Rows, f32, 4>::from_coords(t, |[_, j]| j as f32);
    ///     let s: Tile<RowSums, f32, 1> = row_sums(t, &x);
    ///     assert_eq!(s.values, [496.0]);
    /// })
    /// .unwrap();
    /// ```
    #[inline(always)]
    pub fn reduce_into<const D: usize, S: Registers<M>, const M: usize>(
        &self,
        t: &impl Thread,
        combine: impl Fn(E, E) -> E,
    ) -> Tile<S, E, M> {
        self.reduce_by::<D, S, M>(t, combine, None)
    }

    /// [`Tile::reduce_into`] by a named operator ([`Sum`], [`Max`], [`Min`], [`BitAnd`],
    /// [`BitOr`], [`BitXor`]): where the operator has a `redux.sync` form (integers of at most
    /// 32 bits), the lanes along the dim reduce by whole-warp `redux.sync`, one per output
    /// register and group of lanes off the dim (the other groups' lanes, and lanes holding
    /// copies, add the identity), wherever that takes fewer instructions than the butterflies:
    /// one in place of five where the dim spans the warp, two in place of four where it spans
    /// 16 lanes. Triton 3.9 lowers `tl.sum`/`tl.max` of `i32` so on sm_80 and later (its PTX,
    /// in the reduce differential). [`Tile::sum`], [`Tile::max`] and [`Tile::min`] are this
    /// with the slice inferred.
    ///
    /// ```
    /// use linear_layouts::sim::{launch, Launch};
    /// use linear_layouts::{layout, Thread, Tile};
    /// use linear_layouts::redux::Sum;
    ///
    /// layout! {
    ///     Rows = blocked(sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]) for [4, 64];
    ///     RowSums = slice(dim = 1, parent = Rows) for [4];
    /// }
    ///
    /// launch(Launch::new(1, 128, 0), |t| {
    ///     let x = Tile::<Rows, i32, 2>::from_coords(t, |[i, j]| (i * j) as i32);
    ///     let s: Tile<RowSums, i32, 1> = x.reduce_op_into::<1, _, 1>(t, Sum);
    ///     assert_eq!(s.values, [(t.warp() * 2016) as i32]);
    ///     // One redux.sync per thread, no shuffles.
    ///     assert_eq!((t.issued().redux, t.issued().shuffles), (1, 0));
    /// })
    /// .unwrap();
    /// ```
    ///
    /// [`Sum`]: crate::redux::Sum
    /// [`Max`]: crate::redux::Max
    /// [`Min`]: crate::redux::Min
    /// [`BitAnd`]: crate::redux::BitAnd
    /// [`BitOr`]: crate::redux::BitOr
    /// [`BitXor`]: crate::redux::BitXor
    #[inline(always)]
    pub fn reduce_op_into<const D: usize, S: Registers<M>, const M: usize>(
        &self,
        t: &impl Thread,
        op: impl Op<E>,
    ) -> Tile<S, E, M> {
        self.reduce_by::<D, S, M>(t, |a, b| op.combine(a, b), redux_of(&op))
    }

    /// The reduction, by `redux.sync` over a whole warp where `redux` names its operation.
    #[inline(always)]
    pub(crate) fn reduce_by<const D: usize, S: Registers<M>, const M: usize>(
        &self,
        t: &impl Thread,
        combine: impl Fn(E, E) -> E,
        redux: Option<Redux>,
    ) -> Tile<S, E, M> {
        let plan = Slice::<L, S, D, N, M>::PLAN;
        let mut acc = [E::default(); M];
        let mut seen = [false; M];
        crate::unroll!(N, |r| {
            let m = plan.group(r as u32) as usize;
            acc[m] = if seen[m] {
                combine(acc[m], self.values[r])
            } else {
                self.values[r]
            };
            seen[m] = true;
        });
        match redux {
            Some(op) if plan.redux_groups() > 0 && E::BITS <= 32 => {
                let lane = t.lane();
                let (mine, copy) = (pext(lane, plan.distinct_lanes()), lane & plan.spare != 0);
                crate::unroll!(M, |m| {
                    let w = widen(op, acc[m].to_bits(), E::BITS);
                    let mut out = w;
                    let mut g = 0;
                    while g < plan.redux_groups() {
                        let part = if g == mine && !copy { w } else { op.identity() };
                        let r = t.redux(op, part);
                        if g == mine {
                            out = r;
                        }
                        g += 1;
                    }
                    acc[m] = E::from_bits(out as u64);
                });
            }
            _ => {
                let mut bit = 0;
                while bit < bits(plan.lanes_per_warp) {
                    if plan.lanes >> bit & 1 == 1 {
                        crate::unroll!(M, |m| acc[m] =
                            combine(acc[m], shfl_xor(t, acc[m], 1 << bit)));
                    }
                    bit += 1;
                }
            }
        }
        if plan.warps != 0 {
            across_warps::<L, S, D, N, _, E, M>(t, &mut acc, &combine);
        }
        Tile::new(acc)
    }
}

/// The `redux.sync` form of `op`'s type.
pub(crate) const fn redux_of<E, O: Op<E>>(_: &O) -> Option<Redux> {
    O::REDUX
}

/// Combines the partials of the warps that differ only in `plan.warps` bits, through shared
/// memory, as Triton stages them: one copy of each partial (the lane with no reader or copy
/// bit, in a warp with no copy bit) stores its `M` partials in vectors; then the reader lanes (those along the dim, and lanes holding
/// copies where those are fewer than the warps) each read one warp's vectors (or several, with
/// more warps than readers), and butterflies over the readers combine the warps. Every copy
/// computes the same tree (a commutative `combine` makes mirrored pairs equal), so all copies
/// agree.
#[inline(always)]
#[allow(unsafe_code)]
fn across_warps<L, S, const D: usize, const N: usize, T: Thread, E: Element, const M: usize>(
    t: &T,
    acc: &mut [E; M],
    combine: &impl Fn(E, E) -> E,
) where
    L: Registers<N>,
    S: Registers<M>,
{
    const {
        let what = ScratchUse {
            op: "the reduction",
            layout: L::NAME,
            dim: Some(D as u32),
            to: "",
        };
        scratch_fits(
            T::SHARED_BYTES,
            Slice::<L, S, D, N, M>::shared_bytes(E::BITS / 8),
            what,
        )
    };
    let plan = &Slice::<L, S, D, N, M>::PLAN;
    let s = Staged::<L, S, D, N, E, M>::OF;
    let lane = t.lane();
    let q = pext(lane, s.readers);
    let slot = pext(lane, s.other_lanes);
    t.scratch_write_begin();
    if q == 0 && lane & s.copies == 0 && t.warp() & plan.spare_warps == 0 {
        let at = s.row(plan, slot, t.warp());
        crate::unroll!(Staged::<L, S, D, N, E, M>::OF.chunks as usize, |c| {
            // SAFETY: the staging rows lie inside the reduction's scratch (`SHARED_BYTES`),
            // written after `scratch_write_begin` and read after the barrier below.
            unsafe {
                t.st_shared(
                    at + c as u32 * s.chunk,
                    s.chunk,
                    pack(acc, c * s.per, s.per),
                )
            }
        });
    }
    t.sync_block();
    // This lane's rows are adjacent: read them in the widest vectors.
    let first = (t.warp() & !plan.warps) | pdep(q % s.warps, plan.warps);
    let at = s.row(plan, slot, first);
    crate::unroll!(Staged::<L, S, D, N, E, M>::OF.loads as usize, |c| {
        // SAFETY: the rows stored above, after the barrier.
        let w = unsafe { t.ld_shared(at + c as u32 * s.load, s.load) };
        combine_loaded(acc, &w, c * s.per_load, s.per_load, combine);
    });
    let mut step = 0;
    while step < s.butterflies {
        let mask = pdep(1 << step, s.readers);
        crate::unroll!(M, |m| acc[m] = combine(acc[m], shfl_xor(t, acc[m], mask)));
        step += 1;
    }
    t.scratch_reads_pending();
}

/// Combine the `n` elements of a loaded vector, elements `at..at + n` of this lane's adjacent
/// rows of `M` partials, into `acc` (the first row's replace it). A function of its own: its
/// written-out loop inside the loads' would be 128 times as long.
#[inline(always)]
fn combine_loaded<E: Element, const M: usize>(
    acc: &mut [E; M],
    w: &[u32; 4],
    at: usize,
    n: usize,
    combine: &impl Fn(E, E) -> E,
) {
    crate::unroll!(16, |i| if i < n {
        let e = at + i;
        let v = E::from_bits(get_bits(w, i as u32 * E::BITS, E::BITS));
        acc[e % M] = if e < M { v } else { combine(acc[e % M], v) };
    });
}

/// The staging of slice `S`'s cross-warp reduction of `E`s: a const per instance, evaluated
/// once (the written-out loops test their arms against it).
struct Staged<L, S, const D: usize, const N: usize, E, const M: usize>(PhantomData<(L, S, E)>);

impl<
        L: Registers<N>,
        S: Registers<M>,
        const D: usize,
        const N: usize,
        E: Element,
        const M: usize,
    > Staged<L, S, D, N, E, M>
{
    const OF: Staging = Staging::of(&Slice::<L, S, D, N, M>::PLAN, M as u32, E::BITS);
}

/// Elements `at..at + n` of `v` as the low `n` elements of a vector's words.
#[inline(always)]
fn pack<E: Element, const M: usize>(v: &[E; M], at: usize, n: usize) -> [u32; 4] {
    let mut w = [0u32; 4];
    crate::unroll!(16, |i| if i < n {
        put_bits(&mut w, i as u32 * E::BITS, E::BITS, v[at + i].to_bits())
    });
    w
}

/// `bits` bits of `x` at bit `at` of the 128-bit `w` (element-aligned: no field straddles a
/// 64-bit half).
#[inline(always)]
fn put_bits(w: &mut [u32; 4], at: u32, bits: u32, x: u64) {
    let (word, shift) = ((at / 32) as usize, at % 32);
    w[word] |= (x << shift) as u32;
    if bits + shift > 32 {
        w[word + 1] |= (x >> (32 - shift)) as u32;
    }
}

/// `bits` bits of `w` from bit `at`.
#[inline(always)]
pub(crate) fn get_bits(w: &[u32; 4], at: u32, bits: u32) -> u64 {
    let (word, shift) = ((at / 32) as usize, at % 32);
    let mut x = (w[word] >> shift) as u64;
    if bits + shift > 32 {
        x |= (w[word + 1] as u64) << (32 - shift);
    }
    if bits < 64 {
        x &= (1u64 << bits) - 1;
    }
    x
}
