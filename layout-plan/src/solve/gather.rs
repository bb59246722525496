//! Conversions within a warp where lanes read the same source (a gather): the destination
//! holds copies (a slice, a broadcast dim), or the source is broadcast over warps so that every
//! warp already holds what its threads need. Not a permutation of bits, so Triton PR 7558's
//! decomposition does not apply; Triton 3.9 still converts these with shuffles, and so do we.
//!
//! Every destination element `(register, lane, warp)` is found in the source of the same warp
//! by solving over GF(2): source register `R` and lane `L` are linear in the destination's
//! register, lane and warp bits. The lane and warp bits are known only at run time; where they
//! change `R`, each lane reads every candidate register from its source lane and selects by
//! them. Source registers are packed into 32-bit words (several elements per shuffle), choosing
//! the packed bits that take the fewest shuffles; where the run-time bits change a packed bit,
//! the candidates share a word and each lane shifts its element down before selecting (Triton's
//! run-time `prmt`).
//!
//! `const fn`, so the runtime plans gathers of generic layouts in a const as layout-core plans
//! them for `convert!`; the plan is checked here against the layouts on every lane of every
//! warp, and its cost counted as the executor issues it.

use crate::cost::{Cost, Strategy};
use crate::fixed::{Fixed, FixedBases, FixedList};
use crate::flat::{combine, Flat, Span, MAX_BASES};
use crate::ir::GatherPlan;
use crate::MAX_SHUFFLE_WORDS;

/// log2 of the most candidates per destination register (a tree of 15 selects).
pub const MAX_CHOICE_BITS: usize = 4;

/// Where one destination bit comes from: source register bits and source lane bits.
#[derive(Clone, Copy)]
struct Source {
    reg: u64,
    lane: u32,
}

/// The sources of one in-dim's bits.
type Sources = FixedList<Source, MAX_BASES>;

const NO_SOURCE: Source = Source { reg: 0, lane: 0 };

/// The source-register bits that the run-time (lane and warp) bits change: a basis of their
/// span, and each run-time bit's coordinates in it (lane bits first).
#[derive(Clone, Copy)]
struct Choice {
    basis: FixedList<u64, MAX_CHOICE_BITS>,
    coords: FixedList<u32, 64>,
}

/// Which source-register bits share a word (at most two: four 8-bit elements), low to high;
/// `wide`: 64-bit elements, two words each.
#[derive(Clone, Copy)]
struct Packing {
    bits: [usize; 2],
    len: usize,
    wide: bool,
}

/// The gather plan of converting `s` to `t` and its cost, or `None` when some destination
/// element is not held by the same warp of the source, or the plan would be too large. Both
/// layouts have the same shape, lanes, warps and CTAs (the caller checked).
pub const fn plan_gather(s: &Flat, t: &Flat, elem_bits: u32) -> Option<(GatherPlan<Fixed>, Cost)> {
    let Some((regs, lanes, warps)) = sources(s, t) else {
        return None;
    };
    let Some(choice) = choose(&lanes, &warps) else {
        return None;
    };
    let pack = best_packing(s, &regs, &choice, elem_bits);
    let halves = if pack.wide { 2 } else { 1 };
    if rounds_with(&regs, &choice, &pack) * halves > MAX_SHUFFLE_WORDS {
        return None;
    }
    let Some(p) = tables(s, &regs, (&lanes, &warps), &choice, &pack) else {
        return None;
    };
    if !delivers(&p, s, t) {
        return None;
    }
    // What the executor issues: the shuffles and selects it records.
    let ops = crate::trace::trace(&crate::ir::Plan::Gather(p.as_borrowed()), elem_bits);
    let cost = Cost {
        shuffles: ops.shuffles(),
        selects: ops.selects(),
        ..Cost::of(Strategy::Shuffles)
    };
    Some((p, cost))
}

/// Where each destination register, lane and warp bit comes from in the source of the same
/// warp (a warp bit: what the destination warp holds beyond what the source warp holds).
const fn sources(s: &Flat, t: &Flat) -> Option<(Sources, Sources, Sources)> {
    let nreg = s.reg.len();
    let held = super::shared::gf2::concat(s.reg.as_slice(), s.lane.as_slice());
    let span = Span::new(held.as_slice());
    let mut out = [Sources::new(NO_SOURCE); 3];
    let mut d = 0;
    while d < 3 {
        let dim = match d {
            0 => &t.reg,
            1 => &t.lane,
            _ => &t.warp,
        };
        let mut i = 0;
        while i < dim.len() {
            let v = if d == 2 {
                dim.get(i) ^ s.warp.get(i)
            } else {
                dim.get(i)
            };
            let Some(c) = span.express(v) else {
                return None;
            };
            // At most `MAX_BASES` (32) register bits, so the shifts stay within a `u64`.
            out[d].push(Source {
                reg: c & ((1u64 << nreg) - 1),
                lane: (c >> nreg) as u32,
            });
            i += 1;
        }
        d += 1;
    }
    Some((out[0], out[1], out[2]))
}

/// The run-time bits' [`Choice`], or `None` past [`MAX_CHOICE_BITS`].
const fn choose(lanes: &Sources, warps: &Sources) -> Option<Choice> {
    let mut all = [0u64; 2 * MAX_BASES];
    let n = lanes.len() + warps.len();
    let mut i = 0;
    while i < n {
        all[i] = if i < lanes.len() {
            lanes.get(i).reg
        } else {
            warps.get(i - lanes.len()).reg
        };
        i += 1;
    }
    let mut basis = FixedList::<u64, MAX_CHOICE_BITS>::new(0);
    let mut i = 0;
    while i < n {
        if Span::new(basis.as_slice()).express(all[i]).is_none() && !basis.try_push(all[i]) {
            return None;
        }
        i += 1;
    }
    let span = Span::new(basis.as_slice());
    let mut coords = FixedList::<u32, 64>::new(0);
    let mut i = 0;
    while i < n {
        coords.push(match span.express(all[i]) {
            Some(c) => c as u32,
            None => 0,
        });
        i += 1;
    }
    Some(Choice { basis, coords })
}

impl Packing {
    /// Word index and position of source register `r`: the word is
    /// `r` without its packed bits, the position those bits (the first packed bit lowest).
    /// Closed form: it runs once per candidate of every packing tried.
    const fn place(&self, r: u64) -> (u16, u8) {
        let (mut word, mut pos) = (r, 0u8);
        let mut k = self.len;
        while k > 0 {
            k -= 1;
            pos |= (((r >> self.bits[k]) & 1) as u8) << k;
        }
        let (lo, hi) = match self.len {
            0 => (64, 64),
            1 => (self.bits[0], 64),
            _ => (self.bits[0], self.bits[1]),
        };
        // The higher bit first, so that the lower one is still in place.
        if hi < 64 {
            word = without_bit(word, hi);
        }
        if lo < 64 {
            word = without_bit(word, lo);
        }
        (word as u16, pos)
    }

    /// How many packed bits some candidate flips.
    const fn touched(&self, choice: &Choice) -> usize {
        let mut flips = 0;
        let mut j = 0;
        while j < choice.basis.len() {
            flips |= choice.basis.get(j);
            j += 1;
        }
        let (mut n, mut k) = (0, 0);
        while k < self.len {
            n += ((flips >> self.bits[k]) & 1) as usize;
            k += 1;
        }
        n
    }
}

/// `x` with bit `b` taken out, the bits above it moved down one.
const fn without_bit(x: u64, b: usize) -> u64 {
    (x & ((1 << b) - 1)) | ((x >> (b + 1)) << b)
}

/// Combinations [`Candidates`] tabulates: registers of up to this many bits, choices of up to
/// this many.
const CANDIDATE_BITS: usize = 12;

/// Every candidate's register and lane offset before packing, from tables of all
/// combinations (one XOR each, built once per packing's count): a candidate is two lookups,
/// where summing its bits' sources would be most of a large gather's planning steps.
struct Candidates {
    /// The source register and lane offset of each combination of destination register bits.
    reg: [u64; 1 << CANDIDATE_BITS],
    lane: [u32; 1 << CANDIDATE_BITS],
    /// The source register bits each combination of the choice's basis flips.
    choice: [u64; 1 << CANDIDATE_BITS],
    /// Whether the tables hold them all (else each candidate is summed).
    tabulated: bool,
}

impl Candidates {
    const fn new(regs: &Sources, choice: &Choice) -> Self {
        let mut c = Candidates {
            reg: [0; 1 << CANDIDATE_BITS],
            lane: [0; 1 << CANDIDATE_BITS],
            choice: [0; 1 << CANDIDATE_BITS],
            tabulated: regs.len() <= CANDIDATE_BITS && choice.basis.len() <= CANDIDATE_BITS,
        };
        if !c.tabulated {
            return c;
        }
        let mut x = 1usize;
        while x < 1 << regs.len() {
            let (prev, b) = (x & (x - 1), x.trailing_zeros() as usize);
            c.reg[x] = c.reg[prev] ^ regs.get(b).reg;
            c.lane[x] = c.lane[prev] ^ regs.get(b).lane;
            x += 1;
        }
        let mut x = 1usize;
        while x < 1 << choice.basis.len() {
            let (prev, b) = (x & (x - 1), x.trailing_zeros() as usize);
            c.choice[x] = c.choice[prev] ^ choice.basis.get(b);
            x += 1;
        }
        c
    }
}

/// The packed bits with the fewest rounds, then the fewest run-time positions, then the most
/// bits: any `log2(32 / bits)` source register bits (or fewer) that hold distinct elements,
/// the first best in the order of their masks.
const fn best_packing(s: &Flat, regs: &Sources, choice: &Choice, elem_bits: u32) -> Packing {
    let max = match elem_bits {
        8 => 2,
        16 => 1,
        _ => 0,
    };
    let wide = elem_bits == 64;
    let mut best = Packing {
        bits: [0; 2],
        len: 0,
        wide,
    };
    let (mut best_rounds, mut best_touched) = (rounds_with(regs, choice, &best), 0);
    // Masks in increasing order: those with top bit `hi` are `{hi}`, then `{lo, hi}` for `lo`
    // rising; only bits whose registers hold distinct elements.
    let mut hi = 0;
    while hi < s.reg.len() && max > 0 {
        let mut lo = 0;
        while lo <= hi && s.reg.get(hi) != 0 {
            let p = Packing {
                bits: if lo == 0 { [hi, 0] } else { [lo - 1, hi] },
                len: if lo == 0 { 1 } else { 2 },
                wide,
            };
            if p.len <= max && (lo == 0 || s.reg.get(lo - 1) != 0) {
                let n = rounds_with(regs, choice, &p);
                let pt = p.touched(choice);
                if n < best_rounds
                    || (n == best_rounds
                        && (pt < best_touched || (pt == best_touched && p.len > best.len)))
                {
                    (best, best_rounds, best_touched) = (p, n, pt);
                }
            }
            lo += 1;
        }
        hi += 1;
    }
    best
}

/// The `(word, lane offset)` candidate `c` of destination register `i` reads, and the
/// element's position in that word.
const fn candidate(
    cands: &Candidates,
    regs: &Sources,
    choice: &Choice,
    pack: &Packing,
    (i, c): (usize, usize),
) -> ((u16, u32), u8) {
    let (reg, lane, flips) = if cands.tabulated {
        (cands.reg[i], cands.lane[i], cands.choice[c])
    } else {
        let (mut reg, mut lane) = (0u64, 0u32);
        let mut b = 0;
        while b < regs.len() {
            if (i >> b) & 1 == 1 {
                reg ^= regs.get(b).reg;
                lane ^= regs.get(b).lane;
            }
            b += 1;
        }
        (reg, lane, combine(choice.basis.as_slice(), c as u64))
    };
    let (word, pos) = pack.place(reg ^ flips);
    ((word, lane), pos)
}

/// How many distinct `(word, lane offset)` rounds `pack` takes (counted up to one past
/// [`MAX_SHUFFLE_WORDS`], beyond which no plan is made).
const fn rounds_with(regs: &Sources, choice: &Choice, pack: &Packing) -> usize {
    let mut seen = [(0u16, 0u32); MAX_SHUFFLE_WORDS];
    let mut index = RoundIndex::new();
    let cands = Candidates::new(regs, choice);
    let mut n = 0;
    let k = choice.basis.len();
    let count = 1usize << (regs.len() + k);
    let mut ic = 0;
    while ic < count {
        let (r, _) = candidate(&cands, regs, choice, pack, (ic >> k, ic & ((1 << k) - 1)));
        if index.find(crate::slices::prefix(&seen, n), r).is_none() {
            if n == MAX_SHUFFLE_WORDS {
                return MAX_SHUFFLE_WORDS + 1;
            }
            seen[n] = r;
            n += 1;
            index.insert(r, n);
        }
        ic += 1;
    }
    n
}

/// Rounds `(word, lane offset)` with words below this many: [`RoundIndex`] finds them in one
/// lookup.
const INDEXED_WORDS: usize = 512;

/// Where each round is in a list of distinct rounds: one lookup per candidate, where a search of
/// the list would make a large gather's planning quadratic in its rounds (past rustc's
/// const-evaluation budget). Rounds past [`INDEXED_WORDS`] or 64 lanes are searched.
struct RoundIndex {
    /// `position + 1` of round `(word, lane)` at `word * 64 + lane`, or 0.
    at: [u16; INDEXED_WORDS * 64],
}

impl RoundIndex {
    const fn new() -> Self {
        RoundIndex {
            at: [0; INDEXED_WORDS * 64],
        }
    }

    const fn key(r: (u16, u32)) -> Option<usize> {
        if (r.0 as usize) < INDEXED_WORDS && r.1 < 64 {
            Some(r.0 as usize * 64 + r.1 as usize)
        } else {
            None
        }
    }

    /// Where `r` is in `list` (the rounds inserted so far, in order).
    const fn find(&self, list: &[(u16, u32)], r: (u16, u32)) -> Option<usize> {
        match Self::key(r) {
            Some(key) if self.at[key] == 0 => None,
            Some(key) => Some(self.at[key] as usize - 1),
            None => position(list, r),
        }
    }

    /// `r` is at `position - 1` of the list (`position` counts from 1).
    const fn insert(&mut self, r: (u16, u32), position: usize) {
        if let Some(key) = Self::key(r) {
            self.at[key] = position as u16;
        }
    }
}

/// Where `r` is in `list`.
const fn position(list: &[(u16, u32)], r: (u16, u32)) -> Option<usize> {
    let mut i = 0;
    while i < list.len() {
        if list[i].0 == r.0 && list[i].1 == r.1 {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// The plan's tables (`None` where they outgrow a [`Fixed`] plan).
const fn tables(
    s: &Flat,
    regs: &Sources,
    (lanes, warps): (&Sources, &Sources),
    choice: &Choice,
    pack: &Packing,
) -> Option<GatherPlan<Fixed>> {
    let nreg = s.reg.len();
    let k = choice.basis.len();
    let Some(mut words) = FixedList::filled(0u16, 1 << nreg) else {
        return None;
    };
    let per = 1usize << pack.len;
    let mut r = 0u64;
    while r < 1 << nreg {
        let (w, p) = pack.place(r);
        words.set(w as usize * per + p as usize, r as u16);
        r += 1;
    }
    let mut rounds = FixedList::new((0, 0));
    let mut index = RoundIndex::new();
    let cands = Candidates::new(regs, choice);
    let (mut pick, mut pos) = (FixedList::new(0), FixedList::new(0));
    let mut ic = 0;
    while ic < 1usize << (regs.len() + k) {
        let (r, p) = candidate(&cands, regs, choice, pack, (ic >> k, ic & ((1 << k) - 1)));
        let at = match index.find(rounds.as_slice(), r) {
            Some(at) => at,
            None => {
                rounds.push(r);
                index.insert(r, rounds.len());
                rounds.len() - 1
            }
        };
        if !pos.try_push(p) || !pick.try_push(at as u16) {
            return None;
        }
        ic += 1;
    }
    let (mut lane_map, mut warp_map) = (FixedBases::new(), FixedBases::new());
    let (mut sel_lane, mut sel_warp) = (FixedBases::new(), FixedBases::new());
    let mut i = 0;
    while i < lanes.len() {
        lane_map.push(lanes.get(i).lane);
        sel_lane.push(choice.coords.get(i));
        i += 1;
    }
    let mut i = 0;
    while i < warps.len() {
        warp_map.push(warps.get(i).lane);
        sel_warp.push(choice.coords.get(lanes.len() + i));
        i += 1;
    }
    Some(GatherPlan {
        pack: if pack.wide { -1 } else { pack.len as i32 },
        words,
        lane_map,
        warp_map,
        rounds,
        sel_lane,
        sel_warp,
        choices: k as u8,
        pick,
        pos,
    })
}

/// Combinations [`delivers`] reads from tables: registers of up to this many bits (256 per
/// thread; the executor's word arrays hold fewer) and lanes (64 per warp at most).
const TABLE_BITS: usize = 8;

/// The value of every combination of `bases` (`out[x]` is the XOR of the bases of `x`'s set
/// bits), one XOR each; `None` past [`TABLE_BITS`] bases.
const fn all_values(bases: &[u64]) -> Option<[u64; 1 << TABLE_BITS]> {
    let n = bases.len();
    if n > TABLE_BITS {
        return None;
    }
    let mut out = [0u64; 1 << TABLE_BITS];
    let mut x = 1usize;
    while x < 1 << n {
        out[x] = out[x & (x - 1)] ^ bases[x.trailing_zeros() as usize];
        x += 1;
    }
    Some(out)
}

/// Whether every lane of every warp ends with the element the destination holds in each
/// register, reading as the executor does: from lane `base ^ offset` of the candidate its
/// selection bits pick, the element at that candidate's position of the word. Every element
/// is checked; the layouts' values come from tables of all their register and lane
/// combinations, so each check is a few lookups (the const planner's compile time).
const fn delivers(p: &GatherPlan<Fixed>, s: &Flat, t: &Flat) -> bool {
    let (per, halves) = if p.pack < 0 {
        (1, 2)
    } else {
        (1usize << p.pack, 1)
    };
    // The executor keeps the source words, and the chosen ones, in arrays of this size.
    let limit = MAX_SHUFFLE_WORDS / halves;
    if p.words.len() / per > limit || 1 << t.reg.len() > limit {
        return false;
    }
    let (Some(sreg), Some(slane), Some(treg), Some(tlane)) = (
        all_values(s.reg.as_slice()),
        all_values(s.lane.as_slice()),
        all_values(t.reg.as_slice()),
        all_values(t.lane.as_slice()),
    ) else {
        // Past 256 registers per thread: no gather (the plan goes through shared memory).
        return false;
    };
    let (rounds, pick, pos, words) = (
        p.rounds.as_slice(),
        p.pick.as_slice(),
        p.pos.as_slice(),
        p.words.as_slice(),
    );
    let (lane_map, warp_map) = (p.lane_map.as_slice(), p.warp_map.as_slice());
    let (sel_lane, sel_warp) = (p.sel_lane.as_slice(), p.sel_warp.as_slice());
    let (swarp, twarp) = (s.warp.as_slice(), t.warp.as_slice());
    let nlanes = 1u32 << s.lane.len();
    let nregs = 1usize << t.reg.len();
    let k = p.choices as usize;
    let mut warp = 0u64;
    while warp < 1 << s.warp.len() {
        let (sw, tw) = (combine(swarp, warp), combine(twarp, warp));
        let (bw, selw) = (
            crate::linear::xor_of(warp_map, warp as u32),
            crate::linear::xor_of(sel_warp, warp as u32),
        );
        let mut lane = 0u32;
        while lane < nlanes {
            let base = crate::linear::xor_of(lane_map, lane) ^ bw;
            let sel = crate::linear::xor_of(sel_lane, lane) ^ selw;
            let c = (sel as usize) & ((1 << k) - 1);
            let want_lw = tlane[lane as usize] ^ tw;
            let mut i = 0;
            while i < nregs {
                let at = (i << k) | c;
                let (word, off) = rounds[pick[at] as usize];
                let from = (base ^ off) % nlanes;
                let r = words[word as usize * per + pos[at] as usize];
                if sreg[r as usize] ^ slane[from as usize] ^ sw != treg[i] ^ want_lw {
                    return false;
                }
                i += 1;
            }
            lane += 1;
        }
        warp += 1;
    }
    true
}
