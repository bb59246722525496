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

/// Spread the bits of `x` to the positions `pos` (bit `i` of `x` goes to `pos[i]`).
fn spread(x: usize, pos: &[usize]) -> usize {
    pos.iter()
        .enumerate()
        .filter(|(i, _)| (x >> i) & 1 == 1)
        .fold(0, |a, (_, &p)| a | (1 << p))
}

/// The shuffle plan, or `None` when the conversion is not a permutation of bits or, unless
/// forced, needs two or more mixed transpositions (Triton then prefers shared memory).
pub fn plan(
    s: &FlatLayout,
    t: &FlatLayout,
    elem_bits: u32,
    forced: bool,
) -> Result<Option<(ShufflePlan, Cost)>> {
    // Distinct registers of each side.
    let s_keep = non_zero(&s.reg);
    let t_keep = non_zero(&t.reg);
    let nr = s_keep.len().max(t_keep.len());
    let nl = s.lane.len();
    if nr > 9 {
        return Ok(None);
    }
    // Source bits: work register bits 0..nr (padded with zero bases), then lane bits.
    let mut s_bits: Vec<u64> = s_keep.iter().map(|&i| s.reg[i]).collect();
    s_bits.resize(nr, 0);
    s_bits.extend(&s.lane);
    let mut t_bits: Vec<u64> = t_keep.iter().map(|&i| t.reg[i]).collect();
    t_bits.resize(nr, 0);
    t_bits.extend(&t.lane);
    let n = nr + nl;
    // pi[b]: the source bit holding destination bit b's tensor bit.
    let span = Span::new(&s_bits);
    let mut pi: Vec<Option<usize>> = vec![None; n];
    let mut used = vec![false; n];
    for b in 0..n {
        if t_bits[b] == 0 {
            continue;
        }
        let Some(c) = span.express(t_bits[b]) else {
            return Ok(None);
        };
        if c.count_ones() != 1 {
            return Ok(None);
        }
        let src = c.trailing_zeros() as usize;
        if used[src] {
            return Ok(None);
        }
        used[src] = true;
        pi[b] = Some(src);
    }
    // Complete: bits zero on both sides are fixed; the rest pair in order.
    for b in 0..n {
        if pi[b].is_none() && s_bits[b] == 0 && !used[b] {
            pi[b] = Some(b);
            used[b] = true;
        }
    }
    let mut free_src = (0..n).filter(|&b| !used[b]);
    for slot in pi.iter_mut().take(n) {
        if slot.is_none() {
            match free_src.next() {
                Some(x) => *slot = Some(x),
                None => return Ok(None),
            }
        }
    }
    let pi: Vec<usize> = pi.into_iter().map(|x| x.unwrap_or(0)).collect();
    let is_reg = |b: usize| b < nr;
    // M pairs the source register bits fed to destination lanes with the source lane bits fed
    // to destination registers.
    let mut m_regs: Vec<usize> = (nr..n).filter(|&b| is_reg(pi[b])).map(|b| pi[b]).collect();
    let mut m_lanes: Vec<usize> = (0..nr).filter(|&b| !is_reg(pi[b])).map(|b| pi[b]).collect();
    m_regs.sort_unstable();
    m_lanes.sort_unstable();
    let m = m_regs.len();
    if m >= 2 && !forced {
        return Ok(None);
    }
    let m_apply = |x: usize| -> usize {
        if let Some(k) = m_regs.iter().position(|&r| r == x) {
            m_lanes[k]
        } else if let Some(k) = m_lanes.iter().position(|&l| l == x) {
            m_regs[k]
        } else {
            x
        }
    };
    // Q = M . P keeps classes: a register renaming and a lane permutation.
    let q: Vec<usize> = pi.iter().map(|&x| m_apply(x)).collect();
    let lane_identity = (nr..n).all(|b| q[b] == b);
    let lane_map: Vec<u32> = if lane_identity {
        Vec::new()
    } else {
        (nr..n).map(|b| 1u32 << (q[b] - nr)).collect()
    };
    // Packing: low work-register bits that no transposition touches share a 32-bit word.
    let max_pack = match elem_bits {
        8 => 2,
        16 => 1,
        _ => 0,
    };
    let mut pack = 0usize;
    while pack < max_pack && pack < nr && !m_regs.contains(&pack) {
        pack += 1;
    }
    let word_bit = |r: usize| -> u8 {
        if elem_bits == 64 {
            (r + 1) as u8
        } else {
            (r - pack) as u8
        }
    };
    let swaps: Vec<(u8, u8)> = m_regs
        .iter()
        .zip(&m_lanes)
        .map(|(&r, &l)| (word_bit(r), (l - nr) as u8))
        .collect();
    let ne = 1usize << nr;
    let gather: Vec<u16> = (0..ne)
        .map(|e| spread(e & ((1 << s_keep.len()) - 1), &s_keep) as u16)
        .collect();
    // Destination register i holds T' register j(i) = i's non-broadcast bits; after the
    // exchange that element is work element Q(j).
    let scatter: Vec<u16> = (0..1usize << t.reg.len())
        .map(|i| {
            let j = t_keep
                .iter()
                .enumerate()
                .filter(|(_, &p)| (i >> p) & 1 == 1)
                .fold(0usize, |a, (k, _)| a | (1 << k));
            (0..nr)
                .filter(|&b| (j >> b) & 1 == 1)
                .fold(0usize, |a, b| a | (1 << q[b])) as u16
        })
        .collect();
    let ship = m == 1 && lane_identity;
    let words = if elem_bits == 64 { 2 * ne } else { ne >> pack };
    if words > super::MAX_SHUFFLE_WORDS {
        return Ok(None);
    }
    let plan = ShufflePlan {
        pack: if elem_bits == 64 { -1 } else { pack as i32 },
        gather,
        swaps,
        lane_map,
        ship,
        scatter,
    };
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
