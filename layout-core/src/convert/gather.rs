//! Conversions within a warp where lanes read the same source: the destination holds copies
//! (a slice, a broadcast dim), or the source is broadcast over warps so that every warp already
//! holds what its threads need. Not a permutation of bits, so Triton PR 7558's decomposition
//! does not apply; Triton 3.9 still converts these with shuffles, and so do we.
//!
//! Every destination element `(register, lane, warp)` is found in the source of the same warp by
//! solving over GF(2): source register `R` and lane `L` are linear in the destination's
//! register, lane and warp bits. The lane and warp bits are known only at run time; where they
//! change `R`, each lane reads every candidate register from its source lane and selects by
//! them. Source registers are packed into 32-bit words (several elements per shuffle), choosing
//! the packed bits that take the fewest shuffles; where the run-time bits change a packed bit,
//! the candidates share a word and each lane shifts its element down before selecting (Triton's
//! run-time `prmt`).

use alloc::vec;
use alloc::vec::Vec;

use super::bits::{combine, FlatLayout, Span};
use super::{symbolic, Cost, GatherPlan, Strategy};

/// log2 of the most candidates per destination register (a tree of 15 selects).
pub const MAX_CHOICE_BITS: usize = 4;

/// Where one destination bit comes from: source register bits and source lane bits.
#[derive(Clone, Copy)]
struct Source {
    reg: u64,
    lane: u32,
}

/// The gather plan and its cost, or `None` when some destination element is not held by the
/// same warp of the source, or the plan would be too large.
pub fn plan(s: &FlatLayout, t: &FlatLayout, elem_bits: u32) -> Option<(GatherPlan, Cost)> {
    let nreg = s.reg.len();
    let mut held: Vec<u64> = s.reg.to_vec();
    held.extend(&s.lane);
    let span = Span::new(&held);
    let source = |v: u64| -> Option<Source> {
        let c = span.express(v)?;
        Some(Source {
            reg: c & ((1u64 << nreg) - 1),
            lane: (c >> nreg) as u32,
        })
    };
    let regs: Vec<Source> = t.reg.iter().map(|&v| source(v)).collect::<Option<_>>()?;
    let lanes: Vec<Source> = t.lane.iter().map(|&v| source(v)).collect::<Option<_>>()?;
    // A warp bit: what the destination warp holds beyond what the source warp holds.
    let warps: Vec<Source> = (t.warp.iter().zip(&s.warp))
        .map(|(&d, &h)| source(d ^ h))
        .collect::<Option<_>>()?;
    let choice = Choice::new(lanes.iter().chain(&warps).map(|x| x.reg))?;
    let pack = best_packing(s, &regs, &choice, elem_bits);
    let p = tables(s, t, &regs, (&lanes, &warps), &choice, &pack);
    if p.rounds.len() * pack.halves() > super::MAX_SHUFFLE_WORDS {
        return None;
    }
    let run = symbolic::run_gather(&p, s, t, elem_bits);
    if !run.correct {
        return None;
    }
    let cost = Cost {
        shuffles: run.shuffles,
        selects: run.selects,
        ..Cost::of(Strategy::Shuffles)
    };
    Some((p, cost))
}

/// The source-register bits that the run-time (lane and warp) bits change: a basis of their
/// span, and each run-time bit's coordinates in it.
struct Choice {
    basis: Vec<u64>,
    coords: Vec<u32>,
}

impl Choice {
    fn new(runtime: impl Iterator<Item = u64>) -> Option<Self> {
        let runtime: Vec<u64> = runtime.collect();
        let mut basis: Vec<u64> = Vec::new();
        for &v in &runtime {
            if Span::new(&basis).express(v).is_none() {
                basis.push(v);
            }
        }
        if basis.len() > MAX_CHOICE_BITS {
            return None;
        }
        let span = Span::new(&basis);
        let coords = runtime
            .iter()
            .map(|&v| span.express(v).unwrap_or(0) as u32)
            .collect();
        Some(Choice { basis, coords })
    }

    /// Source-register bits that some candidate flips.
    fn touched(&self) -> u64 {
        self.basis.iter().fold(0, |a, &b| a | b)
    }
}

/// Which source-register bits share a word.
struct Packing {
    /// Source register bits packed into a word (low to high), empty for 32-bit elements.
    bits: Vec<usize>,
    wide: bool,
}

impl Packing {
    fn halves(&self) -> usize {
        if self.wide {
            2
        } else {
            1
        }
    }
    /// Word index and position of source register `r` (registers of `nreg` bits).
    fn place(&self, r: u64, nreg: usize) -> (u16, u8) {
        let (mut word, mut pos, mut wk) = (0u16, 0u8, 0);
        for b in 0..nreg {
            if (r >> b) & 1 == 0 {
                if !self.bits.contains(&b) {
                    wk += 1;
                }
                continue;
            }
            match self.bits.iter().position(|&x| x == b) {
                Some(k) => pos |= 1 << k,
                None => {
                    word |= 1 << wk;
                    wk += 1;
                }
            }
        }
        (word, pos)
    }
}

/// The packed bits with the fewest rounds, then the fewest run-time positions: any
/// `log2(32 / bits)` source register bits (or fewer) that hold distinct elements.
fn best_packing(s: &FlatLayout, regs: &[Source], choice: &Choice, elem_bits: u32) -> Packing {
    let max = match elem_bits {
        8 => 2,
        16 => 1,
        _ => 0,
    };
    let wide = elem_bits == 64;
    let free: Vec<usize> = (0..s.reg.len()).filter(|&b| s.reg[b] != 0).collect();
    let touched = |p: &Packing| {
        p.bits
            .iter()
            .filter(|&&b| (choice.touched() >> b) & 1 == 1)
            .count()
    };
    let mut best = Packing {
        bits: Vec::new(),
        wide,
    };
    let mut best_rounds = rounds_with(s, regs, choice, &best);
    for mask in 1u32..1 << free.len() {
        if mask.count_ones() > max {
            continue;
        }
        let bits: Vec<usize> = (0..free.len())
            .filter(|&i| (mask >> i) & 1 == 1)
            .map(|i| free[i])
            .collect();
        let p = Packing { bits, wide };
        let n = rounds_with(s, regs, choice, &p);
        let key = |p: &Packing| (touched(p), core::cmp::Reverse(p.bits.len()));
        if n < best_rounds || (n == best_rounds && key(&p) < key(&best)) {
            (best, best_rounds) = (p, n);
        }
    }
    best
}

/// The `(word, lane offset)` each candidate of destination register `i` reads, and the
/// element's position in that word.
fn candidates(
    regs: &[Source],
    choice: &Choice,
    pack: &Packing,
    i: usize,
    nreg: usize,
) -> Vec<((u16, u32), u8)> {
    let (mut reg, mut lane) = (0u64, 0u32);
    for (b, r) in regs.iter().enumerate() {
        if (i >> b) & 1 == 1 {
            reg ^= r.reg;
            lane ^= r.lane;
        }
    }
    (0..1usize << choice.basis.len())
        .map(|c| {
            let (word, pos) = pack.place(reg ^ combine(&choice.basis, c as u64), nreg);
            ((word, lane), pos)
        })
        .collect()
}

fn rounds_with(s: &FlatLayout, regs: &[Source], choice: &Choice, pack: &Packing) -> usize {
    let mut seen: Vec<(u16, u32)> = Vec::new();
    for i in 0..1usize << regs.len() {
        for (r, _) in candidates(regs, choice, pack, i, s.reg.len()) {
            if !seen.contains(&r) {
                seen.push(r);
            }
        }
    }
    seen.len()
}

fn tables(
    s: &FlatLayout,
    t: &FlatLayout,
    regs: &[Source],
    (lanes, warps): (&[Source], &[Source]),
    choice: &Choice,
    pack: &Packing,
) -> GatherPlan {
    let nreg = s.reg.len();
    let per = 1usize << pack.bits.len();
    let nwords = (1usize << nreg) / per;
    let mut words = vec![0u16; nwords * per];
    for r in 0..1u64 << nreg {
        let (w, p) = pack.place(r, nreg);
        words[w as usize * per + p as usize] = r as u16;
    }
    let (mut rounds, mut pick, mut pos) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..1usize << t.reg.len() {
        for (r, p) in candidates(regs, choice, pack, i, nreg) {
            pos.push(p);
            let at = rounds.iter().position(|&x| x == r).unwrap_or_else(|| {
                rounds.push(r);
                rounds.len() - 1
            });
            pick.push(at as u16);
        }
    }
    let nl = lanes.len();
    GatherPlan {
        pack: if pack.wide {
            -1
        } else {
            pack.bits.len() as i32
        },
        words,
        lane_map: lanes.iter().map(|x| x.lane).collect(),
        warp_map: warps.iter().map(|x| x.lane).collect(),
        rounds,
        sel_lane: choice.coords[..nl].to_vec(),
        sel_warp: choice.coords[nl..].to_vec(),
        choices: choice.basis.len() as u8,
        pick,
        pos,
    }
}
