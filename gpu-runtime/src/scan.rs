//! Scans of a [`Tile`] along a dim (Triton's `tl.cumsum`, `tl.associative_scan`), inclusive or
//! exclusive, forward or reverse, for any layout whose every position bit along the dim is one
//! register, lane or warp bit (blocked, MMA and most linear layouts).
//!
//! The positions along the dim form a hypercube of bits, each a register, lane or warp bit. The
//! scan walks them from the lowest power of two up: at each, an element and its partner across
//! the bit (another register of the thread, the lane `lane ^ bit` through `shfl.sync.bfly`, or
//! the warp `warp ^ bit` through shared memory) swap the totals of their halves; the element on
//! the upper side (the lower one, reversed) adds its partner's total in front of its prefix.
//! The plan is a const of the layout's tables ([`Scan::PLAN`]); a layout it cannot scan along
//! the dim is a compile error saying why. A warp step has a barrier between its stores and
//! loads, and one before its stores when loads of the scratch may be pending (every warp step
//! after the first), as a reduction's exchange has.

use core::marker::PhantomData;

use crate::element::Element;
use crate::layout::{InDim, Registers, Tables};
use crate::reduce::pext;
use crate::thread::Thread;
use crate::tile::Tile;

/// Where one position bit along the dim lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanStep {
    /// Register bit `n`.
    Register(u32),
    /// Lane bit `n`.
    Lane(u32),
    /// Warp bit `n`.
    Warp(u32),
}

/// The bits a scan along a dim walks, lowest power of two first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanPlan {
    /// The steps; `len` of them are used.
    pub steps: [ScanStep; 32],
    /// How many.
    pub len: usize,
    /// Where the steps from here on (two or more warp bits, and register bits, no lane bit) are
    /// one cross-warp phase, as Triton stages them: every block total stored, one barrier, each
    /// thread reading the totals that precede its own; `len` when none.
    pub phase: usize,
    /// Lanes per warp, warps per CTA.
    pub lanes_per_warp: u32,
    /// Warps per CTA.
    pub warps_per_cta: u32,
}

/// Scans of `L` (with `N` registers) along `D`.
pub struct Scan<L, const D: usize, const N: usize>(PhantomData<L>);

impl<L: Registers<N>, const D: usize, const N: usize> Scan<L, D, N> {
    /// The steps, checked against the layout.
    pub const PLAN: ScanPlan = match scan_plan(Tables::of::<L>(), D) {
        Ok(p) => p,
        Err(why) => panic!("{}", why),
    };

    /// The steps walked one by one, before the cross-warp phase.
    const STEPS: usize = Self::PLAN.phase;
    /// The register bits walked before each step.
    const DONE_BEFORE: [u32; 32] = {
        let mut done = [0; 32];
        let mut i = 0;
        while i < 32 {
            done[i] = Self::PLAN.done_before(i);
            i += 1;
        }
        done
    };
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

    /// Shared memory a scan of `elem_bytes`-byte elements needs: each thread's `N` totals,
    /// when warps hold parts of the dim; else 0.
    pub const fn shared_bytes(elem_bytes: u32) -> u32 {
        Self::PLAN.cost(N as u32, elem_bytes * 8).shared_bytes
    }
}

impl ScanPlan {
    /// The register bits walked before step `i`.
    pub const fn done_before(&self, i: usize) -> u32 {
        let (mut done, mut j) = (0, 0);
        while j < i && j < self.len {
            if let ScanStep::Register(b) = self.steps[j] {
                done |= 1 << b;
            }
            j += 1;
        }
        done
    }

    /// The register and warp bits the cross-warp phase walks.
    pub const fn phase_bits(&self) -> (u32, u32) {
        let (mut regs, mut warps, mut i) = (0, 0, self.phase);
        while i < self.len {
            match self.steps[i] {
                ScanStep::Register(b) => regs |= 1 << b,
                ScanStep::Warp(b) => warps |= 1 << b,
                ScanStep::Lane(_) => {}
            }
            i += 1;
        }
        (regs, warps)
    }

    /// The cost for `n` registers of `elem_bits`-bit elements: each lane step a shuffle per
    /// group of registers with equal totals (two for 64 bits), each warp step a store and a
    /// load per group, a barrier between them and (after the first) one before; the cross-warp
    /// phase a store per group and a load per position before the last (in each group of
    /// registers it leaves apart), one barrier (and one before, after another warp step).
    pub const fn cost(&self, n: u32, elem_bits: u32) -> crate::reduce::ReduceCost {
        let words = elem_bits.div_ceil(32);
        let mut c = crate::reduce::ReduceCost {
            shuffles: 0,
            stores: 0,
            loads: 0,
            barriers: 0,
            shared_bytes: 0,
            redux: 0,
        };
        let mut i = 0;
        while i < self.phase {
            let groups = n >> self.done_before(i).count_ones();
            match self.steps[i] {
                ScanStep::Lane(_) => c.shuffles += groups * words,
                ScanStep::Warp(_) => {
                    c.stores += groups;
                    c.loads += groups;
                    c.barriers += if c.barriers == 0 { 1 } else { 2 };
                    let bytes =
                        self.warps_per_cta * self.lanes_per_warp * groups * elem_bits.div_ceil(8);
                    if bytes > c.shared_bytes {
                        c.shared_bytes = bytes;
                    }
                }
                ScanStep::Register(_) => {}
            }
            i += 1;
        }
        if self.phase < self.len {
            let groups = n >> self.done_before(self.phase).count_ones();
            let (regs, warps) = self.phase_bits();
            let apart = groups >> regs.count_ones();
            let positions = 1u32 << (self.len - self.phase);
            c.stores += groups;
            c.loads += apart * (positions - 1);
            c.barriers += if c.barriers == 0 { 1 } else { 2 };
            let bytes = (self.warps_per_cta >> warps.count_ones())
                * self.lanes_per_warp
                * apart
                * positions
                * elem_bits.div_ceil(8);
            if bytes > c.shared_bytes {
                c.shared_bytes = bytes;
            }
        }
        c
    }
}

/// The bit of `dim` whose basis is exactly `value` along `d` and zero elsewhere, if any; an
/// error if a basis moves along `d` and off it at once.
const fn find(dim: &InDim, rank: usize, d: usize, value: u32) -> Result<Option<u32>, &'static str> {
    let mut bit = 0;
    while bit < dim.size.trailing_zeros() as usize {
        let b = dim.basis(bit, rank);
        let mut off = false;
        let mut k = 0;
        while k < rank {
            if k != d && b[k] != 0 {
                off = true;
            }
            k += 1;
        }
        if b[d] != 0 && off {
            return Err("scan: a basis of the layout moves along the dim and off it at once; convert to a blocked layout first");
        }
        if b[d] == value && !off {
            return Ok(Some(bit as u32));
        }
        bit += 1;
    }
    Ok(None)
}

/// [`find`] in in-dim `i` of `dims`.
const fn find_in(
    dims: &[InDim],
    i: usize,
    rank: usize,
    d: usize,
    value: u32,
) -> Result<Option<u32>, &'static str> {
    find(&dims[i], rank, d, value)
}

/// The steps of a scan of `l` along `d`, or why the layout cannot be scanned along it.
pub const fn scan_plan(l: Tables, d: usize) -> Result<ScanPlan, &'static str> {
    if d >= l.rank || l.in_dims.len() != 4 {
        return Err("scan: the dim is not one of the layout's, or the layout is not distributed");
    }
    let (rank, dims) = (l.rank, l.in_dims);
    let mut steps = [ScanStep::Register(0); 32];
    let (mut len, mut power) = (0, 1);
    while power < l.shape[d] {
        let mut found = None;
        let mut i = 0;
        while i < 3 && found.is_none() {
            found = match find_in(dims, i, rank, d, power) {
                Ok(Some(b)) => Some(match i {
                    0 => ScanStep::Register(b),
                    1 => ScanStep::Lane(b),
                    _ => ScanStep::Warp(b),
                }),
                Ok(None) => None,
                Err(why) => return Err(why),
            };
            i += 1;
        }
        steps[len] = match found {
            Some(s) => s,
            None => return Err("scan: a position bit along the dim is not one register, lane or warp bit (CTAs of a cluster, or a basis shared with another dim); convert to a blocked layout first"),
        };
        len += 1;
        power <<= 1;
    }
    Ok(ScanPlan {
        steps,
        len,
        phase: phase_start(&steps, len),
        lanes_per_warp: dims[1].size,
        warps_per_cta: dims[2].size,
    })
}

/// Positions a cross-warp phase handles at most (its totals are read into registers).
const MAX_PHASE_POSITIONS: usize = 64;

/// Where the cross-warp phase starts: the first warp step, if from there on every step is a
/// warp or register step, two or more of them warp steps, over at most
/// [`MAX_PHASE_POSITIONS`] positions; else `len` (each warp step its own exchange).
const fn phase_start(steps: &[ScanStep; 32], len: usize) -> usize {
    let mut first = len;
    let (mut warps, mut i) = (0, 0);
    while i < len {
        match steps[i] {
            ScanStep::Warp(_) => {
                if first == len {
                    first = i;
                }
                warps += 1;
            }
            ScanStep::Lane(_) if first < len => return len,
            _ => {}
        }
        i += 1;
    }
    if warps >= 2 && (1usize << (len - first)) <= MAX_PHASE_POSITIONS {
        first
    } else {
        len
    }
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
        ScanStep::Warp(b) => exchange(t, tot, &mut other, b, done, plan),
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
/// through shared memory, between barriers.
#[inline(always)]
#[cfg_attr(target_arch = "nvptx64", rustc_no_mir_inline)]
fn exchange<T: Thread, E: Element, const N: usize>(
    t: &T,
    tot: &[E; N],
    other: &mut [E; N],
    bit: u32,
    done: u32,
    plan: &ScanPlan,
) {
    let bytes = E::BITS / 8;
    let groups = N as u32 >> done.count_ones();
    let free = (N as u32 - 1) & !done;
    let slot = |warp: u32, r: usize| {
        ((warp * plan.lanes_per_warp + t.lane()) * groups + pext(r as u32, free)) * bytes
    };
    t.scratch_write_begin();
    crate::unroll!(N, |r| if r as u32 & done == 0 {
        let b = tot[r].to_bits();
        t.st_shared(slot(t.warp(), r), bytes, [b as u32, (b >> 32) as u32, 0, 0]);
    });
    t.sync_block();
    crate::unroll!(N, |r| {
        other[r] = match r as u32 & done {
            0 => {
                let [lo, hi, _, _] = t.ld_shared(slot(t.warp() ^ (1 << bit), r), bytes);
                E::from_bits(lo as u64 | (hi as u64) << 32)
            }
            _ => other[r & !(done as usize)],
        }
    });
    t.scratch_reads_pending();
}

/// The cross-warp phase ([`ScanPlan::phase`]): each thread stores the totals of its blocks (one
/// per group of registers with equal totals) at their positions, a barrier, then reads, per
/// group of registers the phase leaves apart, every position's total but the last (the first,
/// reversed), combines them in scan order, and adds to each register's prefix, in front, the
/// combination of those before its own position.
#[inline(always)]
#[cfg_attr(target_arch = "nvptx64", rustc_no_mir_inline)]
fn phase<L: Registers<N>, const D: usize, T: Thread, E: Element, const N: usize>(
    t: &T,
    pre: &mut [E; N],
    tot: &[E; N],
    combine: &impl Fn(E, E) -> E,
    reverse: bool,
) {
    let plan = &Scan::<L, D, N>::PLAN;
    let bytes = E::BITS / 8;
    let (_, warps) = plan.phase_bits();
    let positions = Scan::<L, D, N>::POSITIONS as u32;
    let apart_bits = Scan::<L, D, N>::APART_BITS;
    let (lane, warp) = (t.lane(), t.warp());
    let group = pext(warp, (plan.warps_per_cta - 1) & !warps);
    let apart = Scan::<L, D, N>::APART as u32;
    let slot = |g: u32, pos: u32| {
        (((group * plan.lanes_per_warp + lane) * apart + g) * positions + pos) * bytes
    };
    t.scratch_write_begin();
    crate::unroll!(N, |r| if r as u32 & Scan::<L, D, N>::DONE == 0 {
        let b = tot[r].to_bits();
        let at = slot(pext(r as u32, apart_bits), position(plan, r as u32, warp));
        t.st_shared(at, bytes, [b as u32, (b >> 32) as u32, 0, 0]);
    });
    t.sync_block();
    crate::unroll!(Scan::<L, D, N>::APART, |g| prefixes::<L, D, _, _, N>(
        t,
        pre,
        g as u32,
        |pos| {
            let [lo, hi, _, _] = t.ld_shared(slot(g as u32, pos), bytes);
            E::from_bits(lo as u64 | (hi as u64) << 32)
        },
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
/// totals with `load`, combines them in scan order into the prefix before each position (one
/// combination per position), and adds to each register's prefix, in front, the one before its
/// own position (a select among the positions: the warp's bits are known only at run time).
#[inline(always)]
#[cfg_attr(target_arch = "nvptx64", rustc_no_mir_inline)]
fn prefixes<L: Registers<N>, const D: usize, T: Thread, E: Element, const N: usize>(
    t: &T,
    pre: &mut [E; N],
    g: u32,
    load: impl Fn(u32) -> E,
    combine: &impl Fn(E, E) -> E,
    reverse: bool,
) {
    let plan = &Scan::<L, D, N>::PLAN;
    let positions = Scan::<L, D, N>::POSITIONS;
    // `before[k]`: the combination of the totals preceding the k-th position in scan order
    // (`before[0]` unused: nothing precedes the first).
    let mut before = [E::default(); MAX_PHASE_POSITIONS];
    let order = |k: usize| if reverse { positions - 1 - k } else { k };
    crate::unroll!(Scan::<L, D, N>::POSITIONS - 1, |k| {
        let v = load(order(k) as u32);
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
