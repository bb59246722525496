//! Reductions of a [`Tile`] along a dim, lowered as Triton lowers `tt.reduce`: first within each
//! thread over the registers that differ only along the dim, then by `shfl.sync.bfly` over the
//! lane bits along it, then through shared memory across the warps along it. The result is in
//! the slice layout `S = slice(D, L)`, every copy of an element (lanes and warps that hold the
//! same one) equal.
//!
//! The plan is a const of the layouts' basis tables ([`Slice::PLAN`]), evaluated when the
//! reduction is instantiated, so it works for generic layouts; a type `S` that is not the slice
//! of `L` along `D` is a compile error that writes out the slice (as `layout!`'s `linear(...)`
//! form). Shared memory: [`Slice::SHARED_BYTES`] (0 when the dim stays within warps). A
//! cross-warp reduction has a barrier between its stores and its loads, and one before its
//! stores only when an earlier collective operation's loads from the scratch may be pending
//! (`Thread::scratch_write_begin`, Triton's membar rule): any sequence of conversions,
//! reductions and scans is race-free with no barrier written by hand, and costs Triton's
//! barriers.

use core::marker::PhantomData;

use crate::element::Element;
use crate::layout::{InDim, Registers, Tables};
use crate::redux::{widen, Max, Min, Op, Redux, Sum};
use crate::thread::Thread;
use crate::tile::Tile;

impl<S: Registers<M>, E: Element, const M: usize> Tile<S, E, M> {
    /// Each register of a tile of `L` takes its element of this slice `S = slice(D, L)`: the
    /// inverse of [`Tile::reduce`]'s layout change, Triton's `expand_dims` then `broadcast`,
    /// with no data movement (every thread already holds the elements it needs).
    #[inline(always)]
    pub fn broadcast<const D: usize, L: Registers<N>, const N: usize>(&self) -> Tile<L, E, N> {
        let plan = Slice::<L, S, D, N, M>::PLAN;
        let mut out = [E::default(); N];
        crate::unroll!(N, |r| out[r] = self.values[plan.group(r as u32) as usize]);
        Tile::new(out)
    }
}

/// How a tile of `L` reduces along a dim into one of `S`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReducePlan {
    /// The register bits of `L` that `S` keeps: register `r` of `L` is combined into register
    /// `pext(r, kept)` of `S`.
    pub kept: u32,
    /// Lane bits along the dim: a butterfly step each.
    pub lanes: u32,
    /// Warp bits along the dim: combined through shared memory.
    pub warps: u32,
    /// Lane bits whose threads hold copies (zero bases): the cross-warp stage reads other
    /// warps' partials with them too, as Triton does, when the lanes along the dim are fewer
    /// than the warps.
    pub spare: u32,
    /// Warps per CTA and lanes per warp of `L`.
    pub warps_per_cta: u32,
    /// Lanes per warp.
    pub lanes_per_warp: u32,
}

/// The slice of `L` along `D` with `M` registers per thread, named `S`: its reduction and
/// broadcast plan.
pub struct Slice<L, S, const D: usize, const N: usize, const M: usize>(PhantomData<(L, S)>);

impl<L: Registers<N>, S: Registers<M>, const D: usize, const N: usize, const M: usize>
    Slice<L, S, D, N, M>
{
    /// The plan, checked against both layouts' tables.
    pub const PLAN: ReducePlan = match reduce_plan(Tables::of::<L>(), Tables::of::<S>(), D) {
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

/// What a reduction costs each thread, counted as Triton's are compared: a vector access is one
/// store or load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReduceCost {
    /// `shfl.sync` instructions (two per element of 64 bits).
    pub shuffles: u32,
    /// Shared-memory stores.
    pub stores: u32,
    /// Shared-memory loads.
    pub loads: u32,
    /// CTA barriers, as the kernel's first use of the scratch (an operation after another one
    /// that staged through shared memory adds one before its stores).
    pub barriers: u32,
    /// Scratch per CTA, in bytes.
    pub shared_bytes: u32,
    /// `redux.sync` instructions (one per output register, in place of the lane butterflies).
    pub redux: u32,
}

impl ReducePlan {
    /// The cost for `m` output registers of `elem_bits`-bit elements, combined by a closure.
    pub const fn cost(&self, m: u32, elem_bits: u32) -> ReduceCost {
        self.cost_with(m, elem_bits, false)
    }

    /// Lane bits off the dim whose lanes hold other elements (not copies): each value of them
    /// is a group of lanes that reduces apart.
    pub const fn distinct_lanes(&self) -> u32 {
        (self.lanes_per_warp - 1) & !self.lanes & !self.spare
    }

    /// How many `redux.sync` per output register reduce the lanes along the dim, for an
    /// operator that has one: a whole-warp instruction per group of lanes (each lane of
    /// another group, or holding a copy, contributes the operator's identity), where that
    /// takes fewer instructions than the butterflies, as Triton 3.9 chooses (its PTX: one per
    /// register with every lane bit along the dim or holding copies, two with four lane bits
    /// along it); 0 where the butterflies are used.
    pub const fn redux_groups(&self) -> u32 {
        let k = self.lanes.count_ones();
        let groups = 1 << self.distinct_lanes().count_ones();
        if self.lanes_per_warp == 32 && k > 0 && groups < k {
            groups
        } else {
            0
        }
    }

    /// [`ReducePlan::cost`] for an operator that has a `redux.sync` form (`redux`) or not.
    pub const fn cost_with(&self, m: u32, elem_bits: u32, redux: bool) -> ReduceCost {
        let words = elem_bits.div_ceil(32);
        let groups = if redux && elem_bits <= 32 {
            self.redux_groups()
        } else {
            0
        };
        let lanes = match groups {
            0 => self.lanes.count_ones() * m * words,
            _ => 0,
        };
        let redux = groups * m;
        if self.warps == 0 {
            return ReduceCost {
                shuffles: lanes,
                stores: 0,
                loads: 0,
                barriers: 0,
                shared_bytes: 0,
                redux,
            };
        }
        let s = Staging::of(self, m, elem_bits);
        ReduceCost {
            shuffles: lanes + s.butterflies * m * words,
            stores: s.chunks,
            loads: s.loads,
            barriers: 1,
            shared_bytes: self.warps_per_cta * s.slots_per_warp * s.row_bytes,
            redux,
        }
    }

    /// The lane bits whose lanes read other warps' partials: those along the dim, then spare
    /// ones (lanes holding copies), lowest first, until they are as many as the warp bits.
    pub const fn readers(&self) -> u32 {
        let kw = self.warps.count_ones();
        let (mut readers, mut spare) = (self.lanes, self.spare);
        while readers.count_ones() < kw && spare != 0 {
            readers |= spare & spare.wrapping_neg();
            spare &= spare - 1;
        }
        readers
    }

    /// The register of `S` that register `r` of `L` is combined into.
    #[inline(always)]
    pub const fn group(&self, r: u32) -> u32 {
        pext(r, self.kept)
    }
}

/// Coordinate `k` of basis `bit` of `dim`, or 0.
const fn coord(dim: &InDim, rank: usize, bit: usize, k: usize) -> u32 {
    dim.basis(bit, rank)[k]
}

/// Whether `dim`'s basis `bit` is zero off dim `d`.
const fn along_only(dim: &InDim, rank: usize, bit: usize, d: usize) -> bool {
    let mut k = 0;
    while k < rank {
        if k != d && coord(dim, rank, bit, k) != 0 {
            return false;
        }
        k += 1;
    }
    true
}

const fn bits(size: u32) -> usize {
    size.trailing_zeros() as usize
}

/// `return Err(..)`: `s` is not the slice of `l` along `d`, for the reason given.
macro_rules! not_the_slice {
    ($l:expr, $s:expr, $d:expr, $why:expr) => {
        return Err(slice_error($l, $s, $d, $why))
    };
}

/// The plan of reducing `l` along `d` into `s`, or why not (naming both and writing out the
/// slice).
// The message is built in place: a const fn of a crate without `alloc` cannot box it.
#[allow(clippy::result_large_err)]
pub const fn reduce_plan(l: Tables, s: Tables, d: usize) -> Result<ReducePlan, Msg> {
    let (rank, ls, ss) = (l.rank, l.in_dims, s.in_dims);
    if d >= rank || s.rank + 1 != rank || ls.len() != 4 || ss.len() != 4 {
        not_the_slice!(
            l,
            s,
            d,
            "the dim is not one of L's, or S's rank is not one less"
        );
    }
    let mut k = 0;
    while k < rank {
        if k != d && l.shape[k] != s.shape[k - (k > d) as usize] {
            not_the_slice!(l, s, d, "S's shape is not L's without the dim");
        }
        k += 1;
    }
    // Registers: S's are L's whose basis has a component off the dim, in order.
    let (reg, sreg) = (&ls[0], &ss[0]);
    let mut kept = 0u32;
    let (mut bit, mut next) = (0, 0);
    while bit < bits(reg.size) {
        if !along_only(reg, rank, bit, d) {
            if next >= bits(sreg.size) || !same_projection(reg, bit, sreg, next, rank, d) {
                not_the_slice!(l, s, d, "S's registers are not L's off the dim");
            }
            kept |= 1 << bit;
            next += 1;
        }
        bit += 1;
    }
    if next != bits(sreg.size) {
        not_the_slice!(l, s, d, "S has more registers than L off the dim");
    }
    let mut masks = [0u32; 4];
    let mut i = 1;
    while i < 4 {
        masks[i] = match thread_bits(l, s, i, d) {
            Ok(m) => m,
            Err(why) => not_the_slice!(l, s, d, why),
        };
        i += 1;
    }
    if masks[3] != 0 {
        not_the_slice!(l, s, d, "CTAs of a cluster hold parts of the dim");
    }
    Ok(ReducePlan {
        kept,
        lanes: masks[1],
        warps: masks[2],
        spare: zero_bits(&ls[1], rank),
        warps_per_cta: ls[2].size,
        lanes_per_warp: ls[1].size,
    })
}

/// The bits of `dim` whose basis is zero.
const fn zero_bits(dim: &InDim, rank: usize) -> u32 {
    let (mut mask, mut bit) = (0, 0);
    while bit < bits(dim.size) {
        let mut k = 0;
        while k < rank && coord(dim, rank, bit, k) == 0 {
            k += 1;
        }
        if k == rank {
            mask |= 1 << bit;
        }
        bit += 1;
    }
    mask
}

/// `x`'s bits at `mask`'s ones, packed low.
pub(crate) const fn pext(x: u32, mask: u32) -> u32 {
    let (mut out, mut k, mut bit) = (0, 0, 0);
    while bit < 32 {
        if mask >> bit & 1 == 1 {
            out |= (x >> bit & 1) << k;
            k += 1;
        }
        bit += 1;
    }
    out
}

/// Whether `a`'s basis `i` without dim `d` is `b`'s basis `j`.
const fn same_projection(a: &InDim, i: usize, b: &InDim, j: usize, rank: usize, d: usize) -> bool {
    let mut k = 0;
    while k < rank {
        if k != d && coord(a, rank, i, k) != coord(b, rank - 1, j, k - (k > d) as usize) {
            return false;
        }
        k += 1;
    }
    true
}

/// The bits of in-dim `i` (lane, warp, block) whose basis lies along the dim: those the
/// reduction combines. Every basis must equal S's without the dim, and lie along the dim only
/// or not at all.
const fn thread_bits(lt: Tables, st: Tables, i: usize, d: usize) -> Result<u32, &'static str> {
    let (l, s, rank) = (&lt.in_dims[i], &st.in_dims[i], lt.rank);
    if l.size != s.size {
        return Err("S has other lanes, warps or CTAs than L");
    }
    let (mut mask, mut bit) = (0, 0);
    while bit < bits(l.size) {
        if !same_projection(l, bit, s, bit, rank, d) {
            return Err("S's lanes, warps or CTAs are not L's without the dim");
        }
        let on_dim = coord(l, rank, bit, d) != 0;
        if on_dim && !along_only(l, rank, bit, d) {
            return Err("a lane, warp or CTA basis of L moves along the dim and off it at once (not reducible by butterflies)");
        }
        if on_dim {
            mask |= 1 << bit;
        }
        bit += 1;
    }
    Ok(mask)
}

/// Why `s` is not `slice(d, l)`, with the slice written out.
const fn slice_error(l: Tables, s: Tables, d: usize, why: &str) -> Msg {
    let mut m = Msg::new();
    m.push("`")
        .push(s.name)
        .push("` is not the slice of `")
        .push(l.name);
    m.push("` along dim ")
        .num(d as u32)
        .push(": ")
        .push(why)
        .push(". The slice is ");
    write_slice(l, &mut m, d);
    m.push(" (layout!'s form), or `slice(dim = ")
        .num(d as u32)
        .push(", parent = ");
    m.push(l.name).push(")`");
    m
}

/// `linear(register = [...], lane = [...], warp = [...], block = []) for [shape]`: L without dim `d`,
/// its registers along `d` dropped.
const fn write_slice(l: Tables, m: &mut Msg, d: usize) {
    let rank = l.rank;
    m.push("linear(");
    let mut i = 0;
    while i < 4 {
        let dim = &l.in_dims[i];
        m.push(dim.name).push(" = [");
        let (mut bit, mut first) = (0, true);
        while bit < bits(dim.size) {
            if i != 0 || !along_only(dim, rank, bit, d) {
                if !first {
                    m.push(", ");
                }
                first = false;
                m.push("[");
                let mut k = 0;
                let mut sep = false;
                while k < rank {
                    if k != d {
                        if sep {
                            m.push(", ");
                        }
                        sep = true;
                        m.num(if i == 0 || !along_only(dim, rank, bit, d) {
                            coord(dim, rank, bit, k)
                        } else {
                            0
                        });
                    }
                    k += 1;
                }
                m.push("]");
            }
            bit += 1;
        }
        m.push(if i < 3 { "], " } else { "])" });
        i += 1;
    }
    m.push(" for [");
    let mut k = 0;
    let mut sep = false;
    while k < rank {
        if k != d {
            if sep {
                m.push(", ");
            }
            sep = true;
            m.num(l.shape[k]);
        }
        k += 1;
    }
    m.push("]");
}

pub use layout_plan::msg::Msg;

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
    /// Reduces along dim `D` with `combine` (associative and commutative, as Triton's
    /// `tl.reduce` requires: `+`, `max`, `min`, a two-value argmax on a pair): a tile of the
    /// slice layout `S = slice(D, L)`, each thread's copies of an element equal. Needs
    /// `Slice::<L, S, D, N, M>::shared_bytes(size of E)` bytes of shared memory when warps
    /// hold parts of the dim.
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
    ///     let x = Tile::<Rows, f32, 4>::from_coords(t, |[_, j]| j as f32);
    ///     let s: Tile<RowSums, f32, 1> = x.reduce::<1, _, 1>(t, |a, b| a + b);
    ///     assert_eq!(s.values, [496.0]);
    /// })
    /// .unwrap();
    /// ```
    #[inline(always)]
    pub fn reduce<const D: usize, S: Registers<M>, const M: usize>(
        &self,
        t: &impl Thread,
        combine: impl Fn(E, E) -> E,
    ) -> Tile<S, E, M> {
        self.reduce_by::<D, S, M>(t, combine, None)
    }

    /// [`Tile::reduce`] by a named operator ([`Sum`], [`Max`], [`Min`], [`BitAnd`], [`BitOr`],
    /// [`BitXor`]): where the operator has a `redux.sync` form (integers of at most 32 bits),
    /// the lanes along the dim reduce by whole-warp `redux.sync`, one per output register and
    /// group of lanes off the dim (the other groups' lanes, and lanes holding copies, add the
    /// identity), wherever that takes fewer instructions than the butterflies: one in place of
    /// five where the dim spans the warp, two in place of four where it spans 16 lanes. Triton
    /// 3.9 lowers `tl.sum`/`tl.max` of `i32` so on sm_80 and later (its PTX, in the reduce
    /// differential).
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
    ///     let s: Tile<RowSums, i32, 1> = x.reduce_op::<1, _, 1>(t, Sum);
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
    pub fn reduce_op<const D: usize, S: Registers<M>, const M: usize>(
        &self,
        t: &impl Thread,
        op: impl Op<E>,
    ) -> Tile<S, E, M> {
        self.reduce_by::<D, S, M>(t, |a, b| op.combine(a, b), redux_of(&op))
    }

    /// `tl.sum` along dim `D`: [`Tile::reduce_op`] by [`Sum`](crate::redux::Sum).
    #[inline(always)]
    pub fn sum<const D: usize, S: Registers<M>, const M: usize>(
        &self,
        t: &impl Thread,
    ) -> Tile<S, E, M>
    where
        Sum: Op<E>,
    {
        self.reduce_op::<D, S, M>(t, Sum)
    }

    /// `tl.max` along dim `D`: [`Tile::reduce_op`] by [`Max`](crate::redux::Max).
    #[inline(always)]
    pub fn max<const D: usize, S: Registers<M>, const M: usize>(
        &self,
        t: &impl Thread,
    ) -> Tile<S, E, M>
    where
        Max: Op<E>,
    {
        self.reduce_op::<D, S, M>(t, Max)
    }

    /// `tl.min` along dim `D`: [`Tile::reduce_op`] by [`Min`](crate::redux::Min).
    #[inline(always)]
    pub fn min<const D: usize, S: Registers<M>, const M: usize>(
        &self,
        t: &impl Thread,
    ) -> Tile<S, E, M>
    where
        Min: Op<E>,
    {
        self.reduce_op::<D, S, M>(t, Min)
    }

    /// The reduction, by `redux.sync` over a whole warp where `redux` names its operation.
    #[inline(always)]
    fn reduce_by<const D: usize, S: Registers<M>, const M: usize>(
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
const fn redux_of<E, O: Op<E>>(_: &O) -> Option<Redux> {
    O::REDUX
}

/// Combines the partials of the warps that differ only in `plan.warps` bits, through shared
/// memory, as Triton stages them: one copy of each partial (the lane with no reader bit) stores
/// its `M` partials in vectors; then the reader lanes (those along the dim, and lanes holding
/// copies where those are fewer than the warps) each read one warp's vectors (or several, with
/// more warps than readers), and butterflies over the readers combine the warps. Every copy
/// computes the same tree (a commutative `combine` makes mirrored pairs equal), so all copies
/// agree.
#[inline(always)]
fn across_warps<L, S, const D: usize, const N: usize, T: Thread, E: Element, const M: usize>(
    t: &T,
    acc: &mut [E; M],
    combine: &impl Fn(E, E) -> E,
) where
    L: Registers<N>,
    S: Registers<M>,
{
    let plan = &Slice::<L, S, D, N, M>::PLAN;
    let s = Staged::<L, S, D, N, E, M>::OF;
    let lane = t.lane();
    let q = pext(lane, s.readers);
    let slot = pext(lane, s.other_lanes);
    t.scratch_write_begin();
    if q == 0 {
        let at = s.row(plan, slot, t.warp());
        crate::unroll!(Staged::<L, S, D, N, E, M>::OF.chunks as usize, |c| {
            t.st_shared(
                at + c as u32 * s.chunk,
                s.chunk,
                pack(acc, c * s.per, s.per),
            )
        });
    }
    t.sync_block();
    // This lane's rows are adjacent: read them in the widest vectors.
    let first = (t.warp() & !plan.warps) | pdep(q % s.warps, plan.warps);
    let at = s.row(plan, slot, first);
    crate::unroll!(Staged::<L, S, D, N, E, M>::OF.loads as usize, |c| {
        let w = t.ld_shared(at + c as u32 * s.load, s.load);
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

impl<L: Registers<N>, S: Registers<M>, const D: usize, const N: usize, E: Element, const M: usize>
    Staged<L, S, D, N, E, M>
{
    const OF: Staging = Staging::of(&Slice::<L, S, D, N, M>::PLAN, M as u32, E::BITS);
}

/// How a cross-warp reduction lays its partials out in shared memory: a row of `M` elements
/// per warp and output copy, moved in vectors of up to 16 bytes.
struct Staging {
    /// The lanes that read partials: the lane bits along the dim, then spare ones.
    readers: u32,
    /// Reader lanes (2^a) and warps along the dim (2^k).
    lanes: u32,
    warps: u32,
    /// Lane bits off the dim, and the rows per warp they index.
    other_lanes: u32,
    slots_per_warp: u32,
    /// Bytes per row, per vector, elements per vector, vectors per row.
    row_bytes: u32,
    chunk: u32,
    per: usize,
    chunks: u32,
    /// Rows each lane reads (adjacent), and the butterflies after.
    reads: u32,
    butterflies: u32,
    /// Bytes per load of a lane's rows, elements per load, loads.
    load: u32,
    per_load: usize,
    loads: u32,
}

impl Staging {
    const fn of(plan: &ReducePlan, m: u32, elem_bits: u32) -> Staging {
        let bytes = elem_bits.div_ceil(8);
        let kw = plan.warps.count_ones();
        let readers = plan.readers();
        let ka = readers.count_ones();
        let row_bytes = m * bytes;
        let chunk = if row_bytes < 16 { row_bytes } else { 16 };
        let reads = if kw > ka { 1 << (kw - ka) } else { 1 };
        let load = if reads * row_bytes < 16 {
            reads * row_bytes
        } else {
            16
        };
        Staging {
            readers,
            lanes: 1 << ka,
            warps: 1 << kw,
            other_lanes: (plan.lanes_per_warp - 1) & !readers,
            slots_per_warp: plan.lanes_per_warp >> ka,
            row_bytes,
            chunk,
            per: (chunk / bytes) as usize,
            chunks: row_bytes / chunk,
            reads,
            butterflies: if kw < ka { kw } else { ka },
            load,
            per_load: (load / bytes) as usize,
            loads: reads * row_bytes / load,
        }
    }

    /// The byte offset of the row of warp `w` and output copy `slot`. Where each lane reads one
    /// row: by warp, then copy. Where it reads several: by copy, then the warp bits off the
    /// dim, then the warps along it, placed so that the rows each reader lane combines are
    /// adjacent (reader `q` reads warps `q, q + lanes, ...` along the dim) and read together.
    const fn row(&self, plan: &ReducePlan, slot: u32, w: u32) -> u32 {
        if self.reads == 1 {
            return (w * self.slots_per_warp + slot) * self.row_bytes;
        }
        let others = (plan.warps_per_cta - 1) & !plan.warps;
        let v = pext(w, plan.warps);
        let pos = (v % self.lanes) * self.reads + v / self.lanes;
        ((slot * (plan.warps_per_cta / self.warps) + pext(w, others)) * self.warps + pos)
            * self.row_bytes
    }
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
fn get_bits(w: &[u32; 4], at: u32, bits: u32) -> u64 {
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

/// `x`'s low bits spread to `mask`'s ones.
#[inline(always)]
const fn pdep(x: u32, mask: u32) -> u32 {
    let (mut out, mut k, mut bit) = (0, 0, 0);
    while bit < 32 {
        if mask >> bit & 1 == 1 {
            out |= (x >> k & 1) << bit;
            k += 1;
        }
        bit += 1;
    }
    out
}
