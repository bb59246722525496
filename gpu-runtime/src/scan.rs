//! Scans of a [`Tile`] along a dim (Triton's `tl.cumsum`, `tl.associative_scan`), inclusive or
//! exclusive, forward or reverse, for any layout whose every position bit along the dim is one
//! register, lane or warp bit (blocked, MMA and most linear layouts).
//!
//! The positions along the dim form a hypercube of bits, each a register, lane or warp bit. The
//! scan walks them from the lowest power of two up: at each, an element and its partner across
//! the bit (another register of the thread, the lane `lane ^ bit` through `shfl.sync.bfly`, or
//! the warp `warp ^ bit` through shared memory) swap the totals of their halves; the element on
//! the upper side (the lower one, reversed) adds its partner's total in front of its prefix.
//! The plan is `layout_plan::scan`'s, a const of the layout's tables ([`Scan::PLAN`]); this
//! module runs it. A layout it cannot scan along the dim is a compile error saying why. A warp step has a barrier between its stores and
//! loads, and one before its stores when loads of the scratch may be pending (every warp step
//! after the first), as a reduction's exchange has.

use core::marker::PhantomData;

use crate::element::Element;
use crate::layout::Registers;
use crate::thread::{scratch_fits, ScratchUse, Thread};
use crate::tile::Tile;
use layout_plan::reduce::pext;

use layout_plan::scan::MAX_PHASE_POSITIONS;
pub use layout_plan::scan::{scan_plan, ScanPlan, ScanStep};

/// Shared memory a scan of a tile of `L` holding `E`s along `D` needs (0 when the dim stays
/// within warps), the register count taken from the layout: what to write in
/// `#[kernel(shared = ..)]`, e.g. `scan::shared_bytes::<Rows, 1, f32>()`.
pub const fn shared_bytes<L: crate::layout::Layout, const D: usize, E: Element>() -> u32 {
    match scan_plan(L::TABLES, D) {
        Ok(p) => p.cost(L::ELEMENTS_PER_THREAD, E::BITS).shared_bytes,
        Err(why) => unscannable::<L>(D, why),
    }
}

/// Panics (at compile time, in a const) saying why `L` cannot be scanned along `d`, naming both.
const fn unscannable<L: crate::layout::Layout>(d: usize, why: &str) -> ! {
    let mut m = layout_plan::msg::Msg::new();
    m.push("a scan of `")
        .push(L::NAME)
        .push("` along dim ")
        .num(d as u32);
    if d >= L::RANK {
        m.push(": the layout has ")
            .num(L::RANK as u32)
            .push(" dims, numbered from 0 (Triton's `axis`)");
    } else if L::TABLES.in_dims.len() != 4 {
        m.push(": the layout is not distributed (a shared layout holds no registers to scan); load a tile of a distributed layout");
    } else {
        m.push(": ").push(why);
    }
    panic!("{}", m.as_str());
}

/// Scans of `L` (with `N` registers) along `D`.
pub struct Scan<L, const D: usize, const N: usize>(PhantomData<L>);

impl<L: Registers<N>, const D: usize, const N: usize> Scan<L, D, N> {
    /// The steps, checked against the layout.
    pub const PLAN: ScanPlan = match scan_plan(L::TABLES, D) {
        Ok(p) => p,
        Err(why) => unscannable::<L>(D, why),
    };

    /// The steps walked one by one, before the cross-warp phase.
    const STEPS: usize = Self::PLAN.phase;
    /// The register bits walked before each step.
    const DONE_BEFORE: [u32; 32] = before_each(&Self::PLAN, false);
    /// The lane bits walked before each step.
    const LANES_BEFORE: [u32; 32] = before_each(&Self::PLAN, true);
    /// The lane bits walked before the cross-warp phase (all lane bits along the dim).
    const WALKED: u32 = Self::PLAN.lanes_before(Self::PLAN.phase);
    /// Whether there is a cross-warp phase.
    const HAS_PHASE: bool = Self::PLAN.phase < Self::PLAN.len;
    /// The register bits walked before the cross-warp phase.
    const DONE: u32 = Self::PLAN.done_before(Self::PLAN.phase);
    /// Positions of the cross-warp phase (1 without one).
    const POSITIONS: usize = 1 << (Self::PLAN.len - Self::PLAN.phase);
    /// The register bits the cross-warp phase leaves apart: its groups of registers.
    const APART_BITS: u32 = (N as u32 - 1) & !Self::DONE & !Self::PLAN.phase_bits().0;
    /// Groups of registers the cross-warp phase reads separately.
    const APART: usize = 1 << Self::APART_BITS.count_ones();

    /// Shared memory a scan of `elem_bytes`-byte elements needs when warps hold parts of the
    /// dim (a total per warp and group of registers and lanes with equal totals); else 0.
    pub const fn shared_bytes(elem_bytes: u32) -> u32 {
        Self::PLAN.cost(N as u32, elem_bytes * 8).shared_bytes
    }
}

/// [`ScanPlan::walked_before`] every step (register bits, or with `lanes` lane bits), as a
/// table indexed by step.
const fn before_each(plan: &ScanPlan, lanes: bool) -> [u32; 32] {
    let mut bits = [0; 32];
    let mut i = 0;
    while i < 32 {
        bits[i] = plan.walked_before(i, lanes);
        i += 1;
    }
    bits
}

/// A scan's direction and kind.
#[derive(Clone, Copy)]
struct How<E> {
    reverse: bool,
    exclusive: Option<E>,
}

impl<L: Registers<N>, E: Element, const N: usize> Tile<L, E, N> {
    /// The inclusive scan along dim `D` with `combine` (associative; it need not commute: the
    /// earlier element is its first argument). Triton's `tl.associative_scan(x, D, combine)`;
    /// with `+`, `tl.cumsum`. Needs [`Scan::shared_bytes`] of shared memory when warps hold
    /// parts of the dim.
    ///
    /// ```
    /// use linear_layouts::sim::{launch, Launch};
    /// use linear_layouts::{layout, Tile};
    ///
    /// layout! {
    ///     Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 32];
    /// }
    ///
    /// launch(Launch::new(1, 128, 0), |t| {
    ///     let ones = Tile::<Rows, u32, 4>::splat(1);
    ///     let sums = ones.scan::<1>(t, |a, b| a + b);
    ///     // Each element's prefix count is its column + 1.
    ///     let want = Tile::<Rows, u32, 4>::from_coords(t, |[_, j]| j + 1);
    ///     assert_eq!(sums.values, want.values);
    /// })
    /// .unwrap();
    /// ```
    #[inline(always)]
    pub fn scan<const D: usize>(&self, t: &impl Thread, combine: impl Fn(E, E) -> E) -> Self {
        self.scan_with::<D>(
            t,
            &combine,
            How {
                reverse: false,
                exclusive: None,
            },
        )
    }

    /// [`Tile::scan`] from the last element to the first (Triton's `reverse=True`).
    #[inline(always)]
    pub fn scan_reverse<const D: usize>(
        &self,
        t: &impl Thread,
        combine: impl Fn(E, E) -> E,
    ) -> Self {
        self.scan_with::<D>(
            t,
            &combine,
            How {
                reverse: true,
                exclusive: None,
            },
        )
    }

    /// The exclusive scan: each element the combination of those strictly before it, the first
    /// `identity` (which `combine` must leave unchanged: 0 for `+`).
    #[inline(always)]
    pub fn scan_exclusive<const D: usize>(
        &self,
        t: &impl Thread,
        identity: E,
        combine: impl Fn(E, E) -> E,
    ) -> Self {
        self.scan_with::<D>(
            t,
            &combine,
            How {
                reverse: false,
                exclusive: Some(identity),
            },
        )
    }

    /// [`Tile::scan_exclusive`] from the last element to the first.
    #[inline(always)]
    pub fn scan_exclusive_reverse<const D: usize>(
        &self,
        t: &impl Thread,
        identity: E,
        combine: impl Fn(E, E) -> E,
    ) -> Self {
        self.scan_with::<D>(
            t,
            &combine,
            How {
                reverse: true,
                exclusive: Some(identity),
            },
        )
    }

    #[inline(always)]
    fn scan_with<const D: usize>(
        &self,
        t: &impl Thread,
        combine: &impl Fn(E, E) -> E,
        how: How<E>,
    ) -> Self {
        // `pre`: the prefix within the block walked so far (exclusive or inclusive); `tot`:
        // the block's total.
        let mut pre = match how.exclusive {
            Some(id) => [id; N],
            None => self.values,
        };
        let mut tot = self.values;
        // Each step written out, only as many as the plan has, so its bit is a constant and
        // `r ^ (1 << b)` a constant index.
        crate::unroll!(Scan::<L, D, N>::STEPS, |i| step::<L, D, _, _, N>(
            t,
            &mut pre,
            &mut tot,
            i,
            combine,
            how.reverse,
        ));
        if const { Scan::<L, D, N>::HAS_PHASE } {
            phase::<L, D, _, _, N>(t, &mut pre, &tot, combine, how.reverse);
        }
        Tile::new(pre)
    }
}

/// Step `i` of a scan: swap block totals with the partner across the step's bit and add its
/// total in front where this side comes second.
#[inline(always)]
#[cfg_attr(target_arch = "nvptx64", rustc_no_mir_inline)]
fn step<L: Registers<N>, const D: usize, T: Thread, E: Element, const N: usize>(
    t: &T,
    pre: &mut [E; N],
    tot: &mut [E; N],
    i: usize,
    combine: &impl Fn(E, E) -> E,
    reverse: bool,
) {
    let plan = &Scan::<L, D, N>::PLAN;
    let (step, done) = (plan.steps[i], Scan::<L, D, N>::DONE_BEFORE[i]);
    let mut other = [E::default(); N];
    // Whether register `r` is on the upper side of this bit (its partner's block comes first).
    let side = |r: usize| -> bool {
        let bit = match step {
            ScanStep::Register(b) => (r as u32 >> b) & 1,
            ScanStep::Lane(b) => (t.lane() >> b) & 1,
            ScanStep::Warp(b) => (t.warp() >> b) & 1,
        };
        (bit == 1) != reverse
    };
    match step {
        ScanStep::Register(b) => crate::unroll!(N, |r| other[r] = tot[r ^ (1 << b)]),
        // Registers that differ only in register bits already walked hold equal totals: one
        // shuffle (or shared-memory slot) per group, the rest copy it.
        ScanStep::Lane(b) => crate::unroll!(N, |r| {
            other[r] = match r as u32 & done {
                0 => crate::reduce::shfl_xor(t, tot[r], 1 << b),
                _ => other[r & !(done as usize)],
            }
        }),
        ScanStep::Warp(b) => {
            let walked = Scan::<L, D, N>::LANES_BEFORE[i];
            exchange(t, tot, &mut other, b, (done, walked), plan)
        }
    }
    crate::unroll!(N, |r| {
        if side(r) {
            pre[r] = combine(other[r], pre[r]);
            tot[r] = combine(other[r], tot[r]);
        } else {
            tot[r] = combine(tot[r], other[r]);
        }
    });
}

/// `other` = the registers `tot` of the thread at the same lane of warp `warp ^ (1 << bit)`,
/// through shared memory, between barriers. Registers differing only in the register bits
/// `done` hold equal totals, as do lanes differing only in the lane bits `walked`: one slot
/// each, stored by the group's first lane.
#[inline(always)]
#[cfg_attr(target_arch = "nvptx64", rustc_no_mir_inline)]
#[allow(unsafe_code)]
fn exchange<T: Thread, E: Element, const N: usize>(
    t: &T,
    tot: &[E; N],
    other: &mut [E; N],
    bit: u32,
    (done, walked): (u32, u32),
    plan: &ScanPlan,
) {
    let bytes = E::BITS / 8;
    let groups = N as u32 >> done.count_ones();
    let free = (N as u32 - 1) & !done;
    let lanes = plan.lanes_per_warp >> walked.count_ones();
    let lane = pext(t.lane(), (plan.lanes_per_warp - 1) & !walked);
    let slot =
        |warp: u32, r: usize| ((warp * lanes + lane) * groups + pext(r as u32, free)) * bytes;
    let stores = t.lane() & walked == 0;
    t.scratch_write_begin();
    crate::unroll!(N, |r| if stores && r as u32 & done == 0 {
        let b = tot[r].to_bits();
        // SAFETY: the slots lie inside the scan's scratch (`shared_bytes`), written after
        // `scratch_write_begin` and read after the barrier below.
        unsafe { t.st_shared(slot(t.warp(), r), bytes, [b as u32, (b >> 32) as u32, 0, 0]) };
    });
    t.sync_block();
    crate::unroll!(N, |r| {
        other[r] = match r as u32 & done {
            0 => {
                // SAFETY: a slot stored above, after the barrier.
                let [lo, hi, _, _] = unsafe { t.ld_shared(slot(t.warp() ^ (1 << bit), r), bytes) };
                E::from_bits(lo as u64 | (hi as u64) << 32)
            }
            _ => other[r & !(done as usize)],
        }
    });
    t.scratch_reads_pending();
}

/// The cross-warp phase ([`ScanPlan::phase`]): the first lane of each group with equal totals
/// stores the totals of its blocks (one per group of registers with equal totals) at their
/// positions, a barrier, then reads, per
/// group of registers the phase leaves apart, every position's total but the last (the first,
/// reversed), combines them in scan order, and adds to each register's prefix, in front, the
/// combination of those before its own position.
#[inline(always)]
#[cfg_attr(target_arch = "nvptx64", rustc_no_mir_inline)]
#[allow(unsafe_code)]
fn phase<L: Registers<N>, const D: usize, T: Thread, E: Element, const N: usize>(
    t: &T,
    pre: &mut [E; N],
    tot: &[E; N],
    combine: &impl Fn(E, E) -> E,
    reverse: bool,
) {
    const {
        let what = ScratchUse {
            op: "the scan",
            layout: L::NAME,
            dim: Some(D as u32),
            to: "",
        };
        scratch_fits(
            T::SHARED_BYTES,
            Scan::<L, D, N>::shared_bytes(E::BITS / 8),
            what,
        )
    };
    let plan = &Scan::<L, D, N>::PLAN;
    let bytes = E::BITS / 8;
    let (_, warps) = plan.phase_bits();
    let positions = Scan::<L, D, N>::POSITIONS as u32;
    let apart_bits = Scan::<L, D, N>::APART_BITS;
    // Lanes differing only in the lane bits walked hold equal totals: one slot each, stored
    // by the first of them.
    let walked = Scan::<L, D, N>::WALKED;
    let lanes = plan.lanes_per_warp >> walked.count_ones();
    let (lane, warp) = (
        pext(t.lane(), (plan.lanes_per_warp - 1) & !walked),
        t.warp(),
    );
    let stores = t.lane() & walked == 0;
    let group = pext(warp, (plan.warps_per_cta - 1) & !warps);
    let apart = Scan::<L, D, N>::APART as u32;
    let slot = |g: u32, pos: u32| (((group * lanes + lane) * apart + g) * positions + pos) * bytes;
    t.scratch_write_begin();
    crate::unroll!(N, |r| if stores && r as u32 & Scan::<L, D, N>::DONE == 0 {
        let b = tot[r].to_bits();
        let at = slot(pext(r as u32, apart_bits), position(plan, r as u32, warp));
        // SAFETY: the slots lie inside the scan's scratch (`shared_bytes`), written after
        // `scratch_write_begin` and read after the barrier below.
        unsafe { t.st_shared(at, bytes, [b as u32, (b >> 32) as u32, 0, 0]) };
    });
    t.sync_block();
    let (vector, _) = plan.phase_vectors(E::BITS);
    crate::unroll!(Scan::<L, D, N>::APART, |g| prefixes::<L, D, _, _, N>(
        t,
        pre,
        g as u32,
        // SAFETY: the slots stored above, after the barrier.
        |k| unsafe { t.ld_shared(slot(g as u32, 0) + k * vector, vector) },
        combine,
        reverse,
    ));
    t.scratch_reads_pending();
}

/// The position in the cross-warp phase of register `r` of warp `warp`: a bit per step of the
/// phase, in walk order.
#[inline(always)]
fn position(plan: &ScanPlan, r: u32, warp: u32) -> u32 {
    let (mut pos, mut i) = (0, plan.phase);
    while i < plan.len {
        let bit = match plan.steps[i] {
            ScanStep::Register(b) => (r >> b) & 1,
            ScanStep::Warp(b) => (warp >> b) & 1,
            ScanStep::Lane(_) => 0,
        };
        pos |= bit << (i - plan.phase);
        i += 1;
    }
    pos
}

/// For the registers of group `g` (of the bits [`Scan::APART_BITS`]): reads the positions'
/// totals with `load` (its `k`-th vector of [`ScanPlan::phase_vectors`]), combines them in scan order into the prefix before each position (one
/// combination per position), and adds to each register's prefix, in front, the one before its
/// own position (a select among the positions: the warp's bits are known only at run time).
#[inline(always)]
#[cfg_attr(target_arch = "nvptx64", rustc_no_mir_inline)]
fn prefixes<L: Registers<N>, const D: usize, T: Thread, E: Element, const N: usize>(
    t: &T,
    pre: &mut [E; N],
    g: u32,
    load: impl Fn(u32) -> [u32; 4],
    combine: &impl Fn(E, E) -> E,
    reverse: bool,
) {
    let plan = &Scan::<L, D, N>::PLAN;
    let positions = Scan::<L, D, N>::POSITIONS;
    let mut totals = [E::default(); MAX_PHASE_POSITIONS];
    let (vector, _) = plan.phase_vectors(E::BITS);
    crate::unroll!(
        Scan::<L, D, N>::PLAN.phase_vectors(E::BITS).1 as usize,
        |k| {
            let per = vector / (E::BITS / 8);
            unpack(&mut totals, &load(k as u32), k * per as usize, per as usize)
        }
    );
    // `before[k]`: the combination of the totals preceding the k-th position in scan order
    // (`before[0]` unused: nothing precedes the first).
    let mut before = [E::default(); MAX_PHASE_POSITIONS];
    let order = |k: usize| if reverse { positions - 1 - k } else { k };
    crate::unroll!(Scan::<L, D, N>::POSITIONS - 1, |k| {
        let v = totals[order(k) % MAX_PHASE_POSITIONS];
        // `% MAX_PHASE_POSITIONS`: arms past the phase's positions are never instantiated, but
        // a constant index out of range in them would not compile.
        let m = MAX_PHASE_POSITIONS;
        before[(k + 1) % m] = match k {
            0 => v,
            _ => combine(before[k % m], v),
        };
    });
    let warp = t.warp();
    crate::unroll!(N, |r| if pext(r as u32, Scan::<L, D, N>::APART_BITS) == g {
        let own = position(plan, r as u32, warp) as usize;
        let k = order(own);
        if k != 0 {
            pre[r] = combine(pick::<L, D, E, N>(&before, k), pre[r]);
        }
    });
}

/// Elements `at..at + n` of `totals` from the low `n` elements of a loaded vector. A function
/// of its own: its written-out loop inside the loads' would be 16 times as long.
#[inline(always)]
fn unpack<E: Element>(totals: &mut [E; MAX_PHASE_POSITIONS], w: &[u32; 4], at: usize, n: usize) {
    crate::unroll!(16, |i| if i < n {
        let v = E::from_bits(crate::reduce::get_bits(w, i as u32 * E::BITS, E::BITS));
        totals[(at + i) % MAX_PHASE_POSITIONS] = v;
    });
}

/// `before[k]`, `k` known only at run time (it holds warp bits): a select among the phase's
/// positions, each a constant index. A function of its own: an `unroll!` inside another in one
/// body is written out (and its arms' consts evaluated) 128 x 128 times.
#[inline(always)]
#[cfg_attr(target_arch = "nvptx64", rustc_no_mir_inline)]
fn pick<L: Registers<N>, const D: usize, E: Element, const N: usize>(
    before: &[E; MAX_PHASE_POSITIONS],
    k: usize,
) -> E {
    let mut a = before[0];
    crate::unroll!(Scan::<L, D, N>::POSITIONS, |j| if j == k {
        a = before[j % MAX_PHASE_POSITIONS];
    });
    a
}
