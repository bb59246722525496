//! How a plan runs, written once: the order of packs, selects, shuffles, shared-memory accesses
//! and barriers that one thread performs. What the operations *mean* is a [`Machine`]'s:
//!
//! * the runtime's interpreter computes them on values (`gpu-runtime`);
//! * `convert!`'s code generator writes each as a statement, so the plan becomes straight-line
//!   code (`layout-macros`);
//! * the planner's symbolic check runs them on a whole warp of element ids and counts them,
//!   which is where a shuffle plan's cost comes from (`layout-core`).
//!
//! The control flow depends only on the plan, never on data, so a machine may evaluate every
//! lane at once or emit code instead of running it.

use crate::cost::Barrier;
use crate::ir::{GatherPlan, Instr, Padding, Plan, SharedPlan, ShufflePlan, SmemAccess, Storage};
use crate::linear::{xor_of, Map};
use crate::MAX_SHUFFLE_WORDS;

/// The operations one thread of a plan performs. Values are handles (`Copy`): a number, a
/// variable of generated code, or a warp-wide symbolic value.
pub trait Machine {
    /// A 32-bit word of registers.
    type Word: Copy + Default;
    /// A 32-bit integer: a lane, a warp, a CTA rank or an address.
    type Int: Copy;
    /// A condition.
    type Bool: Copy;

    /// Bits per element (8, 16, 32 or 64).
    fn elem_bits(&self) -> u32;
    /// Destination register `dst` is source register `src`.
    fn mov(&mut self, dst: u16, src: u16);
    /// Destination register `dst` is destination register `from` (already written).
    fn copy(&mut self, dst: u16, from: u16);
    /// A word of source registers `regs` (`32 / elem_bits` at most, the first lowest), or for a
    /// 64-bit element, its low (`part` 0) or high (`part` 1) half.
    fn pack(&mut self, regs: &[u16], part: u32) -> Self::Word;
    /// Destination register `dst` is element `k` of `w` (its `k`-th `elem_bits` field).
    fn unpack(&mut self, dst: u16, w: Self::Word, k: u32);
    /// `w` shifted so that its element `k` is element 0 (one instruction).
    fn shift_down(&mut self, w: Self::Word, k: u32) -> Self::Word;
    /// Destination register `dst` is the 64-bit element with halves `lo` and `hi`.
    fn unpack_pair(&mut self, dst: u16, lo: Self::Word, hi: Self::Word);

    /// This thread's lane.
    fn lane(&mut self) -> Self::Int;
    /// This thread's warp in its CTA.
    fn warp(&mut self) -> Self::Int;
    /// Whether bit `bit` of `x` is set.
    fn bit(&mut self, x: Self::Int, bit: u32) -> Self::Bool;
    /// `x ^ mask`.
    fn xor(&mut self, x: Self::Int, mask: u32) -> Self::Int;
    /// The XOR of each map on its integer (a map's `bases[b]` over the integer's set bits `b`).
    fn linear(&mut self, maps: &[(Map<'_>, Self::Int)]) -> Self::Int;
    /// `if c { a } else { b }`.
    fn select(&mut self, c: Self::Bool, a: Self::Word, b: Self::Word) -> Self::Word;
    /// `w` of lane `lane ^ mask`.
    fn shfl_xor(&mut self, w: Self::Word, mask: u32) -> Self::Word;
    /// `w` of lane `src`.
    fn shfl_idx(&mut self, w: Self::Word, src: Self::Int) -> Self::Word;
}

/// What shared-memory plans need besides [`Machine`].
pub trait SharedMachine: Machine {
    /// This CTA's rank in its cluster.
    fn cta_rank(&mut self) -> Self::Int;
    /// Whether this thread stores: its `lane` and `warp` have none of the bits of threads that
    /// hold copies.
    fn owner(
        &mut self,
        lane: Self::Int,
        warp: Self::Int,
        lane_skip: u32,
        warp_skip: u32,
    ) -> Self::Bool;
    /// What runs from here to the next [`SharedMachine::end_if`] takes effect only where `c`
    /// holds (never nested). A code generator opens a block; an interpreter skips the stores
    /// (no closure, so the executor inlines whole and a const plan's loops fold away).
    fn begin_if(&mut self, c: Self::Bool);
    /// Closes [`SharedMachine::begin_if`].
    fn end_if(&mut self);
    /// `addr ^ off`.
    fn offset(&mut self, addr: Self::Int, off: u32) -> Self::Int {
        self.xor(addr, off)
    }
    /// `addr` in a padded buffer ([`crate::pad_address`]; some padding is nonzero).
    fn pad(&mut self, addr: Self::Int, padding: Padding) -> Self::Int;
    /// Store `bytes` (1 to 16) from `words` at `addr` (another CTA's memory when `remote`).
    fn st_shared(&mut self, remote: bool, addr: Self::Int, bytes: u32, words: [Self::Word; 4]);
    /// Load `bytes` (1 to 16) from `addr`.
    fn ld_shared(&mut self, remote: bool, addr: Self::Int, bytes: u32) -> [Self::Word; 4];
    /// `stmatrix` of `count` (1, 2 or 4) 8x8 matrices, the row address of this lane at `addr`
    /// (words from `count` on unused).
    fn stmatrix(&mut self, count: u8, addr: Self::Int, trans: bool, words: [Self::Word; 4]);
    /// `ldmatrix` of `count` 8x8 matrices (words from `count` on zero).
    fn ldmatrix(&mut self, count: u8, addr: Self::Int, trans: bool) -> [Self::Word; 4];
    /// Wait for the threads of a warp, the CTA or the cluster.
    fn barrier(&mut self, b: Barrier);
    /// Before a conversion's first store to the scratch: a CTA barrier if an earlier
    /// collective operation's loads from it may be pending (the thread's record decides at run
    /// time; see the runtime's `Thread::scratch_write_begin`).
    fn scratch_write_begin(&mut self);
    /// After a conversion's loads from the scratch: the next store must wait for them.
    fn scratch_reads_pending(&mut self);
}

/// Run a whole plan.
#[inline(always)]
pub fn run<M: SharedMachine, S: Storage>(m: &mut M, plan: &Plan<S>) {
    match plan {
        Plan::Registers(perm) => each!(perm.len(), |i| m.mov(i as u16, perm[i])),
        Plan::Shuffles(p) => shuffles(m, p),
        Plan::Gather(p) => gather(m, p),
        Plan::Shared(p) => shared(m, p),
    }
}

/// The words a shuffle plan moves: `(elements per word, words)`.
#[inline(always)]
pub fn shuffle_words<S: Storage>(p: &ShufflePlan<S>) -> (usize, usize) {
    packed_words(p.gather.len(), p.pack)
}

/// `(elements per word, words)` of `elements` work elements packed `2^pack` per word (`pack`
/// -1: 64-bit elements, two words each): [`shuffle_words`] in a `const fn`, for the planner.
pub const fn packed_words(elements: usize, pack: i32) -> (usize, usize) {
    if pack < 0 {
        (1, elements * 2)
    } else {
        (1 << pack, elements >> pack)
    }
}

/// Run a shuffle plan: pack, exchange, unpack.
#[inline(always)]
pub fn shuffles<M: Machine, S: Storage>(m: &mut M, p: &ShufflePlan<S>) {
    let (per, nw) = shuffle_words(p);
    let nw = nw.min(MAX_SHUFFLE_WORDS);
    let mut w = [M::Word::default(); MAX_SHUFFLE_WORDS];
    each!(nw, |x| {
        w[x] = if p.pack < 0 {
            m.pack(&p.gather[x / 2..x / 2 + 1], (x % 2) as u32)
        } else {
            m.pack(&p.gather[x * per..(x + 1) * per], 0)
        }
    });
    let lane = m.lane();
    if p.ship {
        ship(m, &mut w[..nw], p.swaps[0], lane);
    } else {
        exchange(m, &mut w[..nw], p, lane);
    }
    each!(p.scatter.len(), |i| {
        let e = p.scatter[i] as usize;
        if p.pack < 0 {
            m.unpack_pair(i as u16, w[2 * e], w[2 * e + 1]);
        } else {
            m.unpack(i as u16, w[e / per], (e % per) as u32);
        }
    });
}

/// Run a gather plan: pack the source words, one shuffle per round (two for 64-bit elements),
/// then per destination register a tree of selects over its candidates (shared by registers
/// with the same candidates) and an unpack.
#[inline(always)]
pub fn gather<M: Machine, S: Storage>(m: &mut M, p: &GatherPlan<S>) {
    let (per, halves) = if p.pack < 0 { (1, 2) } else { (1 << p.pack, 1) };
    let nw = (p.words.len() / per).min(MAX_SHUFFLE_WORDS / halves);
    let mut w = [M::Word::default(); MAX_SHUFFLE_WORDS];
    let mut x = 0;
    while x < nw * halves {
        let (word, part) = (x / halves, (x % halves) as u32);
        w[x] = m.pack(&p.words[word * per..(word + 1) * per], part);
        x += 1;
    }
    let (lane, warp) = (m.lane(), m.warp());
    let base = m.linear(&[(S::map(&p.lane_map), lane), (S::map(&p.warp_map), warp)]);
    let sel = m.linear(&[(S::map(&p.sel_lane), lane), (S::map(&p.sel_warp), warp)]);
    let nr = p.rounds.len().min(MAX_SHUFFLE_WORDS / halves);
    let mut got = [M::Word::default(); MAX_SHUFFLE_WORDS];
    let mut r = 0;
    while r < nr {
        let (word, off) = p.rounds[r];
        let from = m.xor(base, off);
        let mut h = 0;
        while h < halves {
            got[r * halves + h] = m.shfl_idx(w[word as usize * halves + h], from);
            h += 1;
        }
        r += 1;
    }
    let k = p.choices as usize;
    let mut chosen = [M::Word::default(); MAX_SHUFFLE_WORDS];
    let mut i = 0;
    while (i << k) < p.pick.len() && i * halves < MAX_SHUFFLE_WORDS {
        let (cands, at) = (&p.pick[i << k..(i + 1) << k], &p.pos[i << k..(i + 1) << k]);
        // A register choosing among the same words as an earlier one reuses its choice.
        let mut same = 0;
        while same < i && !same_choice(p, k, same, i) {
            same += 1;
        }
        let mut h = 0;
        while h < halves {
            chosen[i * halves + h] = if same < i {
                chosen[same * halves + h]
            } else {
                pick(m, (cands, at), &got, (halves, h), sel)
            };
            h += 1;
        }
        if halves == 2 {
            m.unpack_pair(i as u16, chosen[2 * i], chosen[2 * i + 1]);
        } else {
            // Candidates at different places of their words were moved to element 0.
            let k = if varies(at) { 0 } else { at[0] as u32 };
            m.unpack(i as u16, chosen[i], k);
        }
        i += 1;
    }
}

/// Whether the candidates' positions differ.
#[inline(always)]
fn varies(at: &[u8]) -> bool {
    let mut c = 1;
    while c < at.len() {
        if at[c] != at[0] {
            return true;
        }
        c += 1;
    }
    false
}

/// Whether destination registers `a` and `b` choose the same word: the same rounds, and the
/// same positions (or positions that never move).
#[inline(always)]
fn same_choice<S: Storage>(p: &GatherPlan<S>, k: usize, a: usize, b: usize) -> bool {
    let (pa, pb) = (&p.pos[a << k..(a + 1) << k], &p.pos[b << k..(b + 1) << k]);
    p.pick[a << k..(a + 1) << k] == p.pick[b << k..(b + 1) << k]
        && (pa == pb || (!varies(pa) && !varies(pb)))
}

/// The candidate that the bits of `sel` choose among the rounds `cands` (half `h` of each),
/// each first moved to element 0 when the candidates sit at different places (`at`).
#[inline(always)]
fn pick<M: Machine>(
    m: &mut M,
    (cands, at): (&[u16], &[u8]),
    got: &[M::Word],
    (halves, h): (usize, usize),
    sel: M::Int,
) -> M::Word {
    let moved = varies(at);
    let mut v = [M::Word::default(); 16];
    let n = cands.len().min(16);
    let mut c = 0;
    while c < n {
        v[c] = got[cands[c] as usize * halves + h];
        if moved && at[c] != 0 {
            v[c] = m.shift_down(v[c], at[c] as u32);
        }
        c += 1;
    }
    let (mut len, mut bit) = (n, 0);
    while len > 1 {
        let b = m.bit(sel, bit);
        let mut x = 0;
        while 2 * x < len {
            v[x] = m.select(b, v[2 * x + 1], v[2 * x]);
            x += 1;
        }
        len /= 2;
        bit += 1;
    }
    v[0]
}

/// One transposition `(word bit r, lane bit l)` out of place: per pair of words, the lane sends
/// the one its partner needs and keeps the other (three selects, one shuffle).
#[inline(always)]
fn ship<M: Machine>(m: &mut M, w: &mut [M::Word], (r, l): (u8, u8), lane: M::Int) {
    let c = m.bit(lane, l as u32);
    each!(w.len(), |x0| {
        if (x0 >> r) & 1 == 0 {
            let x1 = x0 | (1 << r);
            let (a, b) = (w[x0], w[x1]);
            let send = m.select(c, a, b);
            let recv = m.shfl_xor(send, 1 << l);
            w[x0] = m.select(c, recv, a);
            w[x1] = m.select(c, b, recv);
        }
    });
}

/// The general form: swap words by this lane's bits, shuffle each word from lane
/// `lane_map(lane) ^ mask(word)`, swap again by the bits of the lane read from.
#[inline(always)]
fn exchange<M: Machine, S: Storage>(
    m: &mut M,
    w: &mut [M::Word],
    p: &ShufflePlan<S>,
    lane: M::Int,
) {
    let permuted = !p.lane_map.is_empty();
    swap_stage(m, w, &p.swaps, lane);
    let src_lane = if permuted {
        m.linear(&[(S::map(&p.lane_map), lane)])
    } else {
        lane
    };
    each!(w.len(), |x| {
        let mut mask = 0u32;
        each!(small p.swaps.len(), |k| {
            if (x >> p.swaps[k].0) & 1 == 1 {
                mask |= 1 << p.swaps[k].1;
            }
        });
        if permuted {
            let from = m.xor(src_lane, mask);
            w[x] = m.shfl_idx(w[x], from);
        } else if mask != 0 {
            w[x] = m.shfl_xor(w[x], mask);
        }
    });
    swap_stage(m, w, &p.swaps, src_lane);
}

/// For each transposition `(r, l)`: where lane bit `l` of `lane` is set, swap words `x` and
/// `x | 1 << r` (two selects per pair).
#[inline(always)]
fn swap_stage<M: Machine>(m: &mut M, w: &mut [M::Word], swaps: &[(u8, u8)], lane: M::Int) {
    each!(small swaps.len(), |k| {
        let (r, l) = swaps[k];
        let c = m.bit(lane, l as u32);
        each!(w.len(), |x0| {
            if (x0 >> r) & 1 == 0 {
                let x1 = x0 | (1 << r);
                let (a, b) = (w[x0], w[x1]);
                w[x0] = m.select(c, b, a);
                w[x1] = m.select(c, a, b);
            }
        });
    });
}

/// Run a shared-memory plan: per round, store (owners only), barrier, load. Before the first
/// store, the barrier an earlier operation's pending loads need (none when there are none);
/// after the loads, those loads pending for the next operation, or (in a cluster) a closing
/// cluster barrier.
#[inline(always)]
pub fn shared<M: SharedMachine, S: Storage>(m: &mut M, p: &SharedPlan<S>) {
    m.scratch_write_begin();
    let (s, l) = (&p.store, &p.load);
    let rounds = p.rounds.max(1) as usize;
    let (sper, lper) = (s.reg_offsets.len() / rounds, l.reg_offsets.len() / rounds);
    let at = ids(m);
    let sbase = base(m, s, at);
    let lbase = base(m, l, at);
    let owner = m.owner(at.lane, at.warp, s.lane_skip, s.warp_skip);
    // One written-out loop over every access of every round (stores, then loads, per round):
    // a plan in a const folds it to straight-line code, and one loop is far less code for LLVM
    // to fold than a loop of accesses inside a loop of rounds.
    let per = sper + lper;
    each!(rounds * per, |i| {
        let (round, j) = (i / per, i % per);
        if j == 0 {
            if round > 0 {
                m.barrier(p.barrier);
            }
            m.begin_if(owner);
        }
        if j < sper {
            let v = round * sper + j;
            let addr = address(m, s, sbase, s.reg_offsets[v]);
            store_one(m, s, at, v, addr);
        }
        if j + 1 == sper || (sper == 0 && j == 0) {
            m.end_if();
            m.barrier(p.barrier);
        }
        if j >= sper {
            load_at(m, l, at, lbase, round * lper + (j - sper));
        }
    });
    copies(m, l);
    if matches!(p.barrier, Barrier::Cluster) {
        // No CTA moves on while others still read its buffer.
        m.barrier(Barrier::Cluster);
    } else {
        m.scratch_reads_pending();
    }
}

/// Store every access of `s` (threads that hold copies skip): a store to a shared layout.
#[inline(always)]
pub fn store<M: SharedMachine, S: Storage>(m: &mut M, s: &SmemAccess<S>) {
    store_each(m, s, |m, at, v, addr| store_one(m, s, at, v, addr));
}

/// `each(m, v, address)` for every access `v` of `s`, in order, between
/// [`SharedMachine::begin_if`] and `end_if` on whether this thread stores (threads that hold
/// copies make none): where [`store`] writes, for an operation that fills the same places
/// another way (an async copy from global memory).
#[inline(always)]
pub fn store_addresses<M: SharedMachine, S: Storage>(
    m: &mut M,
    s: &SmemAccess<S>,
    mut each: impl FnMut(&mut M, usize, M::Int),
) {
    store_each(m, s, |m, _, v, addr| each(m, v, addr));
}

/// [`store_addresses`], `each` also given this thread's ids.
#[inline(always)]
fn store_each<M: SharedMachine, S: Storage>(
    m: &mut M,
    s: &SmemAccess<S>,
    mut each: impl FnMut(&mut M, Ids<M::Int>, usize, M::Int),
) {
    let at = ids(m);
    let base = base(m, s, at);
    let owner = m.owner(at.lane, at.warp, s.lane_skip, s.warp_skip);
    m.begin_if(owner);
    let mut v = 0;
    while v < s.reg_offsets.len() {
        let addr = address(m, s, base, s.reg_offsets[v]);
        each(m, at, v, addr);
        v += 1;
    }
    m.end_if();
}

/// Load every access of `l`: a load from a shared layout.
#[inline(always)]
pub fn load<M: SharedMachine, S: Storage>(m: &mut M, l: &SmemAccess<S>) {
    let at = ids(m);
    let base = base(m, l, at);
    each!(l.reg_offsets.len(), |v| load_at(m, l, at, base, v));
    copies(m, l);
}

/// The registers a load leaves out (copies of others): each from the one with `reg_skip` clear.
#[inline(always)]
fn copies<M: Machine, S: Storage>(m: &mut M, l: &SmemAccess<S>) {
    if l.reg_skip == 0 {
        return;
    }
    let mut top = 0;
    let mut i = 0;
    while i < l.regs.len() {
        top |= l.regs[i];
        i += 1;
    }
    let skip = l.reg_skip as u16;
    let mut r = 0;
    while r <= top | skip {
        if r & skip != 0 {
            m.copy(r, r & !skip);
        }
        r += 1;
    }
}

/// The address of one access: the base XOR its registers' offset, padded if the layout is.
#[inline(always)]
fn address<M: SharedMachine, S: Storage>(
    m: &mut M,
    a: &SmemAccess<S>,
    base: M::Int,
    off: u32,
) -> M::Int {
    let addr = m.offset(base, off);
    if a.padding == crate::NO_PADDING {
        return addr;
    }
    m.pad(addr, a.padding)
}

/// This thread's lane and warp, read once per operation and handed to each address that needs
/// them, as `convert!`'s code binds them once: a thread whose ids are not pure reads (a
/// `Reread`) pays for every read.
#[derive(Clone, Copy)]
struct Ids<I> {
    lane: I,
    warp: I,
}

#[inline(always)]
fn ids<M: Machine>(m: &mut M) -> Ids<M::Int> {
    Ids {
        lane: m.lane(),
        warp: m.warp(),
    }
}

/// The address of a side's accesses contributed by the lane, the warp and the CTA rank.
#[inline(always)]
fn base<M: SharedMachine, S: Storage>(m: &mut M, a: &SmemAccess<S>, at: Ids<M::Int>) -> M::Int {
    base_with(m, a, S::map(&a.lane_bases), at)
}

/// [`base`] with the lane's contribution given by `lane_bases`.
#[inline(always)]
fn base_with<M: SharedMachine, S: Storage>(
    m: &mut M,
    a: &SmemAccess<S>,
    lane_bases: Map<'_>,
    at: Ids<M::Int>,
) -> M::Int {
    let Ids { lane, warp } = at;
    // Only the rank is read under a condition (an empty map adds nothing, whatever its
    // integer): the lane and warp terms stay outside any branch, so LLVM merges the terms the
    // store and load addresses share before it reshapes them one by one.
    let rank = if a.block_bases.is_empty() {
        lane
    } else {
        m.cta_rank()
    };
    m.linear(&[
        (lane_bases, lane),
        (S::map(&a.warp_bases), warp),
        (S::map(&a.block_bases), rank),
    ])
}

/// Access `v` moves registers `regs[v vec ..][..vec]`; a word holds `32 / bits` of them (or
/// half of one 64-bit element).
#[inline(always)]
fn words_of<M: Machine, S: Storage>(m: &mut M, a: &SmemAccess<S>, v: usize) -> [M::Word; 4] {
    let vec = a.vec as usize;
    let regs = &a.regs[v * vec..(v + 1) * vec];
    let mut words = [M::Word::default(); 4];
    let bits = m.elem_bits() as usize;
    if bits == 64 {
        let mut x = 0;
        while x < 2 * vec {
            words[x] = m.pack(&regs[x / 2..x / 2 + 1], (x % 2) as u32);
            x += 1;
        }
    } else {
        let per = match a.instr {
            Instr::Matrix { count, .. } => vec / count as usize,
            Instr::Vector | Instr::TransRead { .. } => 32 / bits,
        };
        let mut q = 0;
        while q * per < vec {
            let end = if (q + 1) * per < vec {
                (q + 1) * per
            } else {
                vec
            };
            words[q] = m.pack(&regs[q * per..end], 0);
            q += 1;
        }
    }
    words
}

/// Store access `v` of `s` at `addr`.
#[inline(always)]
fn store_one<M: SharedMachine, S: Storage>(
    m: &mut M,
    s: &SmemAccess<S>,
    at: Ids<M::Int>,
    v: usize,
    addr: M::Int,
) {
    if let Instr::TransRead { .. } = s.instr {
        return trans_store(m, s, at, v);
    }
    let words = words_of(m, s, v);
    match s.instr {
        Instr::Matrix { count, trans } => m.stmatrix(count, addr, trans, words),
        _ => {
            let bytes = s.vec * (m.elem_bits() / 8);
            m.st_shared(s.remote, addr, bytes, words)
        }
    }
}

/// A [`Instr::TransRead`] access as stores: each element of access `v`, one at a time, where
/// the transposed read would find it (the row of its source lane, at its own lane's element).
/// That address is linear in the lane (the rows' bases composed with the source-lane map, and
/// the element's place in the row) plus a constant per element.
#[inline(always)]
fn trans_store<M: SharedMachine, S: Storage>(
    m: &mut M,
    s: &SmemAccess<S>,
    at: Ids<M::Int>,
    v: usize,
) {
    let vec = s.vec as usize;
    let bytes = m.elem_bits() / 8;
    let rows = |src: u32| xor_of(&s.lane_bases, src);
    let mut lanes = [0u32; 6];
    let mut b = 0;
    while b < s.lane_bases.len() && b < 6 {
        let elem = if (1usize << b) < vec { bytes << b } else { 0 };
        lanes[b] = rows(s.instr.trans_source(1 << b, 0)) ^ elem;
        b += 1;
    }
    let base = base_with(m, s, Map::of(&lanes[..b]), at);
    let mut k = 0;
    while k < vec {
        let off = s.reg_offsets[v] ^ rows(s.instr.trans_source(0, k as u32));
        let addr = address(m, s, base, off);
        let mut words = [M::Word::default(); 4];
        words[0] = m.pack(&s.regs[v * vec + k..v * vec + k + 1], 0);
        m.st_shared(s.remote, addr, bytes, words);
        k += 1;
    }
}

/// A [`Instr::TransRead`]'s source lane as a linear function of the lane: its `lane_src` as
/// words.
#[inline(always)]
fn trans_sources(instr: &Instr) -> [u32; 6] {
    let mut src = [0u32; 6];
    let mut b = 0;
    while b < 6 {
        src[b] = instr.trans_source(1 << b, 0);
        b += 1;
    }
    src
}

/// Load access `v` of a [`Instr::TransRead`] from `addr` into registers: this lane's row, then
/// each element from the row of its source lane (a shuffle per word of the row, a select per
/// lane bit that picks the word or the element).
#[inline(always)]
fn trans_load<M: SharedMachine, S: Storage>(
    m: &mut M,
    l: &SmemAccess<S>,
    lane: M::Int,
    v: usize,
    addr: M::Int,
) {
    let vec = l.vec;
    let bits = m.elem_bits();
    let row = m.ld_shared(l.remote, addr, vec * bits / 8);
    let per = 32 / bits;
    let words = (vec / per) as usize;
    let src0 = m.linear(&[(Map::of(&trans_sources(&l.instr)), lane)]);
    let mut k = 0;
    while k < vec as usize {
        let src = m.xor(src0, l.instr.trans_source(0, k as u32));
        let mut got = [M::Word::default(); 4];
        let mut w = 0;
        while w < words {
            got[w] = m.shfl_idx(row[w], src);
            w += 1;
        }
        // The word of element `lane % vec`: halve the candidates by each lane bit above a word.
        let (mut n, mut b) = (words, per.trailing_zeros());
        while n > 1 {
            let c = m.bit(lane, b);
            let mut i = 0;
            while i < n / 2 {
                got[i] = m.select(c, got[2 * i + 1], got[2 * i]);
                i += 1;
            }
            n /= 2;
            b += 1;
        }
        // The element in its word.
        let mut x = got[0];
        let mut b = 0;
        while (1u32 << b) < per {
            let c = m.bit(lane, b);
            let down = m.shift_down(x, 1 << b);
            x = m.select(c, down, x);
            b += 1;
        }
        m.unpack(l.regs[v * vec as usize + k], x, 0);
        k += 1;
    }
}

/// Load access `v` of `l` at `base ^ reg_offsets[v]`.
#[inline(always)]
fn load_at<M: SharedMachine, S: Storage>(
    m: &mut M,
    l: &SmemAccess<S>,
    at: Ids<M::Int>,
    base: M::Int,
    v: usize,
) {
    let addr = address(m, l, base, l.reg_offsets[v]);
    if let Instr::TransRead { .. } = l.instr {
        trans_load(m, l, at.lane, v, addr);
    } else {
        load_one(m, l, v, addr);
    }
}

/// Load access `v` of `l` (a vector or matrix access) from `addr` into its registers.
#[inline(always)]
fn load_one<M: SharedMachine, S: Storage>(m: &mut M, l: &SmemAccess<S>, v: usize, addr: M::Int) {
    let vec = l.vec as usize;
    let bits = m.elem_bits();
    let (words, per) = match l.instr {
        Instr::Matrix { count, trans } => (m.ldmatrix(count, addr, trans), vec / count as usize),
        _ => {
            let bytes = l.vec * (bits / 8);
            let per = (32 / bits).max(1) as usize;
            (m.ld_shared(l.remote, addr, bytes), per)
        }
    };
    let mut e = 0;
    while e < vec {
        let reg = l.regs[v * vec + e];
        if bits == 64 {
            m.unpack_pair(reg, words[2 * e], words[2 * e + 1]);
        } else {
            m.unpack(reg, words[e / per], (e % per) as u32);
        }
        e += 1;
    }
}
