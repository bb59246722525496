//! Conversions within a warp by selects and shuffles: Triton PR 7558's decomposition.
//!
//! Without register broadcasting, both layouts are bijections from (register, lane) bits to
//! tensor bits, and the conversion is the bit permutation `P` taking each destination bit to the
//! source bit that holds the same tensor bit. `P = M . Q` where `M` is a product of `m` disjoint
//! transpositions `(register bit, lane bit)` and `Q` keeps registers and lanes apart; `Q` is a
//! register renaming (free) and a lane permutation. Data moves in three stages: swap words by
//! lane bits (selects), shuffle each word (xor, or idx when lanes are permuted), swap again.
//! With one transposition and no lane permutation, the out-of-place "ship" form is cheaper.
//! Costs (counted by running the plan, `symbolic`): swap form `2 m W` selects and
//! `(1 - 2^-m) W` shuffles (`W` with a lane permutation); ship form `1.5 W` selects and `0.5 W`
//! shuffles, `W` the number of 32-bit words.

use alloc::vec;
use alloc::vec::Vec;

use super::bits::{FlatLayout, Span};
use super::symbolic;
use super::{Cost, ShufflePlan, Strategy};
use crate::Result;

/// Indices of the non-zero (non-broadcast) bases.
fn non_zero(v: &[u64]) -> Vec<usize> {
    (0..v.len()).filter(|&i| v[i] != 0).collect()
}

/// The shuffle plan, or `None` when the conversion is not a permutation of bits or, unless
/// forced, needs two or more mixed transpositions (Triton then prefers shared memory).
pub fn plan(
    s: &FlatLayout,
    t: &FlatLayout,
    elem_bits: u32,
    forced: bool,
) -> Result<Option<(ShufflePlan, Cost)>> {
    let Some(bits) = WorkBits::new(s, t) else {
        return Ok(None);
    };
    let Some(pi) = bits.permutation() else {
        return Ok(None);
    };
    let d = Decomposition::new(&pi, bits.nr);
    if d.m_regs.len() >= 2 && !forced {
        return Ok(None);
    }
    let plan = tables(&bits, &d, elem_bits);
    let (_, words) = super::exec::shuffle_words(&plan);
    if words > super::MAX_SHUFFLE_WORDS {
        return Ok(None);
    }
    // Run the plan on element ids: every destination slot must hold its element. The run also
    // counts what the plan issues.
    let run = symbolic::run(&plan, s, t, elem_bits);
    if !run.correct {
        return Ok(None);
    }
    let cost = Cost {
        shuffles: run.shuffles,
        selects: run.selects,
        ..Cost::of(Strategy::Shuffles)
    };
    Ok(Some((plan, cost)))
}

/// Whether the conversion is a permutation of (register, lane) bits: the shuffle plan's domain.
pub fn is_permutation(s: &FlatLayout, t: &FlatLayout) -> bool {
    WorkBits::new(s, t).is_some_and(|b| b.permutation().is_some())
}

/// Both sides as bit vectors over the same positions: work register bits `0..nr` (each side's
/// distinct registers, padded with zero bases), then lane bits.
struct WorkBits {
    s_keep: Vec<usize>,
    t_keep: Vec<usize>,
    t_regs: usize,
    s_bits: Vec<u64>,
    t_bits: Vec<u64>,
    nr: usize,
}

impl WorkBits {
    fn new(s: &FlatLayout, t: &FlatLayout) -> Option<Self> {
        let (s_keep, t_keep) = (non_zero(&s.reg), non_zero(&t.reg));
        let nr = s_keep.len().max(t_keep.len());
        if nr > 9 {
            return None;
        }
        let side = |l: &FlatLayout, keep: &[usize]| -> Vec<u64> {
            let mut v: Vec<u64> = keep.iter().map(|&i| l.reg[i]).collect();
            v.resize(nr, 0);
            v.extend(&l.lane);
            v
        };
        Some(WorkBits {
            s_bits: side(s, &s_keep),
            t_bits: side(t, &t_keep),
            s_keep,
            t_keep,
            t_regs: t.reg.len(),
            nr,
        })
    }

    /// `pi[b]`: the source bit holding destination bit `b`'s tensor bit, completed to a
    /// permutation (bits zero on both sides fixed, the rest paired in order); `None` when a
    /// destination bit is not a single source bit.
    fn permutation(&self) -> Option<Vec<usize>> {
        let n = self.s_bits.len();
        let span = Span::new(&self.s_bits);
        let mut pi: Vec<Option<usize>> = vec![None; n];
        let mut used = vec![false; n];
        for b in (0..n).filter(|&b| self.t_bits[b] != 0) {
            let c = span.express(self.t_bits[b])?;
            let src = c.trailing_zeros() as usize;
            if c.count_ones() != 1 || used[src] {
                return None;
            }
            used[src] = true;
            pi[b] = Some(src);
        }
        for b in 0..n {
            if pi[b].is_none() && self.s_bits[b] == 0 && !used[b] {
                pi[b] = Some(b);
                used[b] = true;
            }
        }
        let mut free_src = (0..n).filter(|&b| !used[b]);
        pi.into_iter()
            .map(|p| p.or_else(|| free_src.next()))
            .collect()
    }
}

/// `P = M . Q`: `M` pairs the source register bits fed to destination lanes with the source
/// lane bits fed to destination registers; `Q = M . P` keeps registers and lanes apart.
struct Decomposition {
    m_regs: Vec<usize>,
    m_lanes: Vec<usize>,
    q: Vec<usize>,
}

impl Decomposition {
    fn new(pi: &[usize], nr: usize) -> Self {
        let n = pi.len();
        let mut m_regs: Vec<usize> = (nr..n).filter(|&b| pi[b] < nr).map(|b| pi[b]).collect();
        let mut m_lanes: Vec<usize> = (0..nr).filter(|&b| pi[b] >= nr).map(|b| pi[b]).collect();
        m_regs.sort_unstable();
        m_lanes.sort_unstable();
        let m_apply = |x: usize| -> usize {
            if let Some(k) = m_regs.iter().position(|&r| r == x) {
                m_lanes[k]
            } else if let Some(k) = m_lanes.iter().position(|&l| l == x) {
                m_regs[k]
            } else {
                x
            }
        };
        let q = pi.iter().map(|&x| m_apply(x)).collect();
        Decomposition { m_regs, m_lanes, q }
    }
}

/// The plan's tables: packing, the transpositions in word bits, the lane permutation, gather
/// and scatter. Work register bits are renumbered so that the bits no transposition touches come
/// first: those are the ones packed into a 32-bit word (Triton's `nPack = min(log2(32 / bits),
/// registers - m)`), so values that travel together share a word and a shuffle whichever of
/// their register bits the transpositions move.
fn tables(bits: &WorkBits, d: &Decomposition, elem_bits: u32) -> ShufflePlan {
    let (nr, n, q) = (bits.nr, bits.s_bits.len(), &d.q);
    let lane_identity = (nr..n).all(|b| q[b] == b);
    let lane_map: Vec<u32> = if lane_identity {
        Vec::new()
    } else {
        (nr..n).map(|b| 1u32 << (q[b] - nr)).collect()
    };
    let max_pack = match elem_bits {
        8 => 2,
        16 => 1,
        _ => 0,
    };
    let pack = max_pack.min(nr - d.m_regs.len());
    // `new[b]`: the position of work register bit `b` after renumbering (untouched bits first).
    let order: Vec<usize> = (0..nr)
        .filter(|b| !d.m_regs.contains(b))
        .chain(d.m_regs.iter().copied())
        .collect();
    let mut new = vec![0usize; nr];
    for (pos, &b) in order.iter().enumerate() {
        new[b] = pos;
    }
    let renumber = |e: usize| spread_by(e, &new);
    let word_bit = |r: usize| {
        (if elem_bits == 64 {
            new[r] + 1
        } else {
            new[r] - pack
        }) as u8
    };
    let swaps: Vec<(u8, u8)> = d
        .m_regs
        .iter()
        .zip(&d.m_lanes)
        .map(|(&r, &l)| (word_bit(r), (l - nr) as u8))
        .collect();
    let mut gather = vec![0u16; 1usize << nr];
    for e in 0..1usize << nr {
        gather[renumber(e)] = spread_by(e & ((1 << bits.s_keep.len()) - 1), &bits.s_keep) as u16;
    }
    let scatter = scatter(bits, q)
        .into_iter()
        .map(|e| renumber(e as usize) as u16);
    ShufflePlan {
        pack: if elem_bits == 64 { -1 } else { pack as i32 },
        gather,
        ship: swaps.len() == 1 && lane_identity,
        swaps,
        lane_map,
        scatter: scatter.collect(),
    }
}

/// Bit `i` of `x` moved to bit `new[i]` (bits of `x` past `new` dropped).
fn spread_by(x: usize, new: &[usize]) -> usize {
    (0..new.len())
        .filter(|&i| (x >> i) & 1 == 1)
        .fold(0, |a, i| a | (1 << new[i]))
}

/// Destination register `i` holds work register `j(i)` (its non-broadcast bits); after the
/// exchange that element is work element `Q(j)`.
fn scatter(bits: &WorkBits, q: &[usize]) -> Vec<u16> {
    (0..1usize << bits.t_regs)
        .map(|i| {
            let j = bits
                .t_keep
                .iter()
                .enumerate()
                .filter(|(_, &p)| (i >> p) & 1 == 1)
                .fold(0usize, |a, (k, _)| a | (1 << k));
            (0..bits.nr)
                .filter(|&b| (j >> b) & 1 == 1)
                .fold(0usize, |a, b| a | (1 << q[b])) as u16
        })
        .collect()
}
