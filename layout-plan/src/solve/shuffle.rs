//! Conversions within a warp by selects and shuffles: Triton PR 7558's decomposition.
//!
//! Without register broadcasting, both layouts are bijections from (register, lane) bits to
//! tensor bits, and the conversion is the bit permutation `P` taking each destination bit to the
//! source bit that holds the same tensor bit. `P = M . Q` where `M` is a product of `m` disjoint
//! transpositions `(register bit, lane bit)` and `Q` keeps registers and lanes apart; `Q` is a
//! register renaming (free) and a lane permutation. Data moves in three stages: swap words by
//! lane bits (selects), shuffle each word (xor, or idx when lanes are permuted), swap again.
//! With one transposition and no lane permutation, the out-of-place "ship" form is cheaper.
//! Costs (what `exec::shuffles` issues): swap form `2 m W` selects and `(1 - 2^-m) W`
//! shuffles (`W` with a lane permutation); ship form `1.5 W` selects and `0.5 W` shuffles, `W`
//! the number of 32-bit words.

use super::Unplanned;
use crate::cost::{Cost, Strategy};
use crate::fixed::{Fixed, FixedBases, FixedList};
use crate::flat::{Bases, Flat, Span};
use crate::ir::ShufflePlan;
use crate::walk::packed_words;
use crate::MAX_SHUFFLE_WORDS;

/// Work register bits at most (512 work registers).
const MAX_WORK_REGS: usize = 9;
/// Work bits at most: registers, then lanes.
const MAX_WORK: usize = 64;
const NONE: usize = usize::MAX;

/// The shuffle plan and its cost, or why there is none: the conversion is not a permutation of
/// bits, or (unless `forced`) needs two or more mixed transpositions (Triton then prefers
/// shared memory), or moves more than [`MAX_SHUFFLE_WORDS`] words.
pub const fn plan_shuffles(
    s: &Flat,
    t: &Flat,
    elem_bits: u32,
    forced: bool,
) -> Result<(ShufflePlan<Fixed>, Cost), Unplanned> {
    let Some(bits) = WorkBits::new(s, t) else {
        return Err(Unplanned::TooLarge);
    };
    let Some(pi) = bits.permutation() else {
        return Err(Unplanned::NotAPermutation);
    };
    let d = Decomposition::new(&pi, bits.nr, bits.n);
    if d.m >= 2 && !forced {
        return Err(Unplanned::Transpositions);
    }
    let Some(plan) = tables(&bits, &d, elem_bits) else {
        return Err(Unplanned::TooLarge);
    };
    let (_, words) = packed_words(plan.gather.len(), plan.pack);
    if words > MAX_SHUFFLE_WORDS {
        return Err(Unplanned::TooLarge);
    }
    Ok((plan, cost(&plan, elem_bits)))
}

/// Whether the conversion is a permutation of (register, lane) bits: the shuffle plan's domain.
pub const fn is_permutation(s: &Flat, t: &Flat) -> bool {
    match WorkBits::new(s, t) {
        Some(b) => b.permutation().is_some(),
        None => false,
    }
}

/// What the executor issues for `p`: the shuffles and selects it records (`trace`'s count of
/// its own operations, so the cost is the code's, never a formula beside it).
const fn cost(p: &ShufflePlan<Fixed>, elem_bits: u32) -> Cost {
    let ops = crate::trace::trace(&crate::ir::Plan::Shuffles(p.as_borrowed()), elem_bits);
    Cost {
        shuffles: ops.shuffles(),
        selects: ops.selects(),
        ..Cost::of(Strategy::Shuffles)
    }
}

/// Both sides as bit vectors over the same positions: work register bits `0..nr` (each side's
/// distinct registers, padded with zero bases), then lane bits.
struct WorkBits {
    s_keep: [usize; MAX_WORK_REGS],
    s_kept: usize,
    t_keep: [usize; MAX_WORK_REGS],
    t_kept: usize,
    t_regs: usize,
    s_bits: [u64; MAX_WORK],
    t_bits: [u64; MAX_WORK],
    nr: usize,
    n: usize,
}

/// The positions of the non-zero bases of `b`, or `None` past [`MAX_WORK_REGS`].
const fn kept(b: &Bases) -> Option<([usize; MAX_WORK_REGS], usize)> {
    let mut keep = [0; MAX_WORK_REGS];
    let mut n = 0;
    let mut i = 0;
    while i < b.as_slice().len() {
        if b.as_slice()[i] != 0 {
            if n == MAX_WORK_REGS {
                return None;
            }
            keep[n] = i;
            n += 1;
        }
        i += 1;
    }
    Some((keep, n))
}

/// `f`'s kept registers (padded with zeros to `nr`) then its lanes.
const fn side(f: &Flat, keep: &[usize], nr: usize) -> [u64; MAX_WORK] {
    let mut v = [0u64; MAX_WORK];
    let mut i = 0;
    while i < keep.len() {
        v[i] = f.reg.as_slice()[keep[i]];
        i += 1;
    }
    let lanes = f.lane.as_slice();
    let mut l = 0;
    while l < lanes.len() {
        v[nr + l] = lanes[l];
        l += 1;
    }
    v
}

impl WorkBits {
    const fn new(s: &Flat, t: &Flat) -> Option<WorkBits> {
        let (Some((s_keep, s_kept)), Some((t_keep, t_kept))) = (kept(&s.reg), kept(&t.reg)) else {
            return None;
        };
        let nr = if s_kept > t_kept { s_kept } else { t_kept };
        let n = nr + s.lane.as_slice().len();
        if n > MAX_WORK || t.lane.as_slice().len() != s.lane.as_slice().len() {
            return None;
        }
        Some(WorkBits {
            s_bits: side(s, s_keep.split_at(s_kept).0, nr),
            t_bits: side(t, t_keep.split_at(t_kept).0, nr),
            s_keep,
            s_kept,
            t_keep,
            t_kept,
            t_regs: t.reg.as_slice().len(),
            nr,
            n,
        })
    }

    /// `pi[b]`: the source bit holding destination bit `b`'s tensor bit, completed to a
    /// permutation (bits zero on both sides fixed, the rest paired in order); `None` when a
    /// destination bit is not a single source bit.
    const fn permutation(&self) -> Option<[usize; MAX_WORK]> {
        let n = self.n;
        let span = Span::new(self.s_bits.split_at(n).0);
        let mut pi = [NONE; MAX_WORK];
        // Source bits already taken, a mask (rust-gpu cannot fill an array of `bool`).
        let mut used = 0u64;
        let mut b = 0;
        while b < n {
            if self.t_bits[b] != 0 {
                let Some(c) = span.express(self.t_bits[b]) else {
                    return None;
                };
                let src = c.trailing_zeros() as usize;
                if c.count_ones() != 1 || (used >> src) & 1 == 1 {
                    return None;
                }
                used |= 1 << src;
                pi[b] = src;
            }
            b += 1;
        }
        let mut b = 0;
        while b < n {
            if pi[b] == NONE && self.s_bits[b] == 0 && (used >> b) & 1 == 0 {
                pi[b] = b;
                used |= 1 << b;
            }
            b += 1;
        }
        // The rest take the unused source bits in order.
        let mut free = 0;
        let mut b = 0;
        while b < n {
            if pi[b] == NONE {
                while free < n && (used >> free) & 1 == 1 {
                    free += 1;
                }
                if free == n {
                    return None;
                }
                pi[b] = free;
                used |= 1 << free;
            }
            b += 1;
        }
        Some(pi)
    }
}

/// `P = M . Q`: `M` pairs the source register bits fed to destination lanes with the source
/// lane bits fed to destination registers; `Q = M . P` keeps registers and lanes apart.
struct Decomposition {
    m_regs: [usize; MAX_WORK],
    m_lanes: [usize; MAX_WORK],
    m: usize,
    q: [usize; MAX_WORK],
}

/// `v[..n]` sorted ascending.
const fn sort(mut v: [usize; MAX_WORK], n: usize) -> [usize; MAX_WORK] {
    let mut i = 1;
    while i < n {
        let mut j = i;
        while j > 0 && v[j - 1] > v[j] {
            let tmp = v[j - 1];
            v[j - 1] = v[j];
            v[j] = tmp;
            j -= 1;
        }
        i += 1;
    }
    v
}

impl Decomposition {
    const fn new(pi: &[usize; MAX_WORK], nr: usize, n: usize) -> Decomposition {
        let (mut m_regs, mut m_lanes) = ([0; MAX_WORK], [0; MAX_WORK]);
        let (mut nreg, mut nlane) = (0, 0);
        let mut b = 0;
        while b < n {
            if b >= nr && pi[b] < nr {
                m_regs[nreg] = pi[b];
                nreg += 1;
            }
            if b < nr && pi[b] >= nr {
                m_lanes[nlane] = pi[b];
                nlane += 1;
            }
            b += 1;
        }
        let (m_regs, m_lanes) = (sort(m_regs, nreg), sort(m_lanes, nlane));
        let mut q = [0; MAX_WORK];
        let mut b = 0;
        while b < n {
            let x = pi[b];
            q[b] = x;
            let mut k = 0;
            while k < nreg {
                if m_regs[k] == x {
                    q[b] = m_lanes[k];
                } else if m_lanes[k] == x {
                    q[b] = m_regs[k];
                }
                k += 1;
            }
            b += 1;
        }
        Decomposition {
            m_regs,
            m_lanes,
            m: nreg,
            q,
        }
    }

    /// Whether work register bit `b` is one that a transposition moves.
    const fn moves(&self, b: usize) -> bool {
        let mut k = 0;
        while k < self.m {
            if self.m_regs[k] == b {
                return true;
            }
            k += 1;
        }
        false
    }
}

/// Bit `i` of `x` moved to bit `new[i]` (bits of `x` past `new` dropped).
const fn spread_by(x: usize, new: &[usize]) -> usize {
    let mut out = 0;
    let mut i = 0;
    while i < new.len() {
        if (x >> i) & 1 == 1 {
            out |= 1 << new[i];
        }
        i += 1;
    }
    out
}

/// The plan's tables: packing, the transpositions in word bits, the lane permutation, gather
/// and scatter. Work register bits are renumbered so that the bits no transposition touches come
/// first: those are the ones packed into a 32-bit word (Triton's `nPack = min(log2(32 / bits),
/// registers - m)`), so values that travel together share a word and a shuffle whichever of
/// their register bits the transpositions move. `None` when a table would not fit.
const fn tables(bits: &WorkBits, d: &Decomposition, elem_bits: u32) -> Option<ShufflePlan<Fixed>> {
    let (nr, n, q) = (bits.nr, bits.n, &d.q);
    let mut lane_identity = true;
    let mut b = nr;
    while b < n {
        lane_identity &= q[b] == b;
        b += 1;
    }
    let mut lane_map = FixedBases::new();
    if !lane_identity {
        let mut b = nr;
        while b < n {
            lane_map.push(1u32 << (q[b] - nr));
            b += 1;
        }
    }
    let max_pack = match elem_bits {
        8 => 2,
        16 => 1,
        _ => 0,
    };
    let pack = if max_pack < nr - d.m {
        max_pack
    } else {
        nr - d.m
    };
    // `new[b]`: the position of work register bit `b` after renumbering (untouched bits first).
    let mut new = [0usize; MAX_WORK_REGS];
    let mut pos = 0;
    let mut b = 0;
    while b < nr {
        if !d.moves(b) {
            new[b] = pos;
            pos += 1;
        }
        b += 1;
    }
    let mut k = 0;
    while k < d.m {
        new[d.m_regs[k]] = pos;
        pos += 1;
        k += 1;
    }
    let new = new.split_at(nr).0;
    let mut swaps = FixedList::new((0u8, 0u8));
    let mut k = 0;
    while k < d.m {
        let r = new[d.m_regs[k]];
        let word_bit = if elem_bits == 64 { r + 1 } else { r - pack };
        swaps.push((word_bit as u8, (d.m_lanes[k] - nr) as u8));
        k += 1;
    }
    let Some(mut gather) = FixedList::filled(0u16, 1 << nr) else {
        return None;
    };
    let s_keep = bits.s_keep.split_at(bits.s_kept).0;
    let mut e = 0;
    while e < 1 << nr {
        let src = spread_by(e & ((1 << bits.s_kept) - 1), s_keep);
        gather.set(spread_by(e, new), src as u16);
        e += 1;
    }
    let Some(scatter) = scatter(bits, q, new) else {
        return None;
    };
    Some(ShufflePlan {
        pack: if elem_bits == 64 { -1 } else { pack as i32 },
        gather,
        ship: d.m == 1 && lane_identity,
        swaps,
        lane_map,
        scatter,
    })
}

/// Destination register `i` holds work register `j(i)` (its non-broadcast bits); after the
/// exchange that element is work element `Q(j)`, renumbered by `new`.
const fn scatter(bits: &WorkBits, q: &[usize; MAX_WORK], new: &[usize]) -> Option<FixedList<u16>> {
    let Some(mut out) = FixedList::filled(0u16, 1 << bits.t_regs) else {
        return None;
    };
    let t_keep = bits.t_keep.split_at(bits.t_kept).0;
    let mut i = 0;
    while i < 1 << bits.t_regs {
        let mut j = 0usize;
        let mut k = 0;
        while k < t_keep.len() {
            if (i >> t_keep[k]) & 1 == 1 {
                j |= 1 << k;
            }
            k += 1;
        }
        let mut e = 0usize;
        let mut b = 0;
        while b < bits.nr {
            if (j >> b) & 1 == 1 {
                e |= 1 << q[b];
            }
            b += 1;
        }
        out.set(i, spread_by(e, new) as u16);
        i += 1;
    }
    Some(out)
}
