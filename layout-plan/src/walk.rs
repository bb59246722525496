//! How a plan runs, written once: the order of packs, selects, shuffles, shared-memory accesses
//! and barriers that one thread performs, as the body of `executor!`. A `const fn` cannot be
//! generic over a trait's methods, so the body is expanded twice: generic over an
//! [`crate::exec::Machine`] ([`crate::exec`]: the runtime's interpreter, `convert!`'s code writer,
//! the planner's symbolic check) and as `const fn`s recording a [`crate::tape::Tape`]
//! ([`crate::trace`]: what the runtime replays for plans in consts). The text is const-friendly
//! for both: loops are `while` or the expansion's `each` (`each!`, written out in optimised
//! builds so that a const plan folds on the GPU, or `each_loop`, one loop, for the const
//! expansion), slices are `sub`'s, maps [`crate::linear::Map`]s made by the expansion's `map`
//! macro.
//!
//! The control flow depends only on the plan, never on data, so a machine may evaluate every
//! lane at once or emit code instead of running it.

use crate::slices::{same_u16, same_u8};

/// `(elements per word, words)` of `elements` work elements packed `2^pack` per word (`pack`
/// -1: 64-bit elements, two words each): the words a shuffle plan moves, for the executor and
/// the planner's cost.
pub const fn packed_words(elements: usize, pack: i32) -> (usize, usize) {
    if pack < 0 {
        (1, elements * 2)
    } else {
        (1 << pack, elements >> pack)
    }
}

/// `&s[a..b]`, in a const too (a range past the slice is a panic, as `[a..b]` is).
#[inline(always)]
pub(crate) const fn sub<T>(s: &[T], a: usize, b: usize) -> &[T] {
    crate::slices::range(s, a, b)
}

/// The smaller of `a` and `b`, in a const.
#[inline(always)]
pub(crate) const fn min(a: usize, b: usize) -> usize {
    if a < b {
        a
    } else {
        b
    }
}

/// `n`, a count of a plan's words (or candidates) that the executor's arrays of `cap` hold: more
/// is a planner bug (the planner sends such conversions through shared memory), a panic (a
/// compile error in a const), never a shorter plan.
#[inline(always)]
pub(crate) const fn within(n: usize, cap: usize) -> usize {
    if n > cap {
        panic!("layout_plan: a plan moves more words than the executor holds (MAX_SHUFFLE_WORDS); please report the layouts named below");
    }
    n
}

/// This thread's lane and warp, read once per operation and handed to each address that needs
/// them, as `convert!`'s code binds them once: a thread whose ids are not pure reads (a
/// `Reread`) pays for every read.
#[derive(Clone, Copy)]
pub(crate) struct Ids<I> {
    pub(crate) lane: I,
    pub(crate) warp: I,
}

/// Whether the candidates' positions differ.
#[inline(always)]
pub(crate) const fn varies(at: &[u8]) -> bool {
    let mut c = 1;
    while c < at.len() {
        if at[c] != at[0] {
            return true;
        }
        c += 1;
    }
    false
}

/// Whether destination registers `a` and `b` of a gather choose the same word (`pick`, `pos`:
/// the plan's tables, `2^k` candidates each): the same rounds, and the same positions (or
/// positions that never move).
#[inline(always)]
pub(crate) const fn same_choice(pick: &[u16], pos: &[u8], k: usize, a: usize, b: usize) -> bool {
    let pa = sub(pos, a << k, (a + 1) << k);
    let pb = sub(pos, b << k, (b + 1) << k);
    same_u16(
        sub(pick, a << k, (a + 1) << k),
        sub(pick, b << k, (b + 1) << k),
    ) && (same_u8(pa, pb) || (!varies(pa) && !varies(pb)))
}

/// Whether any padding term is set.
#[inline(always)]
pub(crate) const fn padded(p: &crate::Padding) -> bool {
    let mut i = 0;
    while i < 4 {
        if p[i].0 != 0 || p[i].1 != 0 {
            return true;
        }
        i += 1;
    }
    false
}

/// A [`crate::Instr::TransRead`]'s source lane as a linear function of the lane: its
/// `lane_src` as words.
#[inline(always)]
pub(crate) const fn trans_sources(instr: &crate::Instr) -> [u32; 6] {
    let mut src = [0u32; 6];
    let mut b = 0;
    while b < 6 {
        src[b] = instr.trans_source(1 << b, 0);
        b += 1;
    }
    src
}

/// `each!`'s syntax as one `while` loop, whatever the build: the `const` expansion's, which a
/// const evaluation interprets (written-out arms would only be more code to compile, and to
/// codegen where a target builds the `const fn`s as functions too).
macro_rules! each_loop {
    (small $n:expr, |$i:ident| $body:expr) => {
        each_loop!($n, |$i| $body)
    };
    ($n:expr, |$i:ident| $body:expr) => {{
        let n: usize = $n;
        let mut $i: usize = 0;
        while $i < n {
            $body;
            $i += 1;
        }
    }};
}
pub(crate) use each_loop;

/// The stores of access list `s`, in order, between `begin_if` and `end_if` on whether this
/// thread stores (threads that hold copies make none): `$body` with this thread's ids `$at`,
/// the access `$v` and its address `$addr` in scope. A store, and (with another body) where a
/// store writes.
macro_rules! store_loop {
    ($m:ident, $s:ident, |$at:ident, $v:ident, $addr:ident| $body:expr) => {{
        let $at = ids($m);
        let base = base($m, $s, $at);
        let owner = $m.owner($at.lane, $at.warp, $s.lane_skip, $s.warp_skip);
        $m.begin_if(owner);
        let mut $v = 0;
        while $v < $s.reg_offsets.len() {
            let $addr = address($m, $s, base, $s.reg_offsets[$v]);
            $body;
            $v += 1;
        }
        $m.end_if();
    }};
}
pub(crate) use store_loop;

/// The executor. `qual`: `const` or nothing; `machine`, `plans`, `shared`: the generic
/// parameters of the functions that need a machine, a machine and a storage, a shared-memory
/// machine and a storage (empty for the `const` expansion); `m`, `s`: the machine and storage
/// types; `word`, `int`: its value types; `zero`: a word to fill arrays with; `map`: a macro
/// making a [`crate::linear::Map`] of a plan's bases; `each`: `each` (written out, so that a
/// const plan folds on the GPU) or `each_loop` (one loop: what a const evaluation interprets);
/// `vis`: the entry points' visibility.
macro_rules! executor {
    (
        qual: [$($c:tt)?],
        machine: [$($gm:tt)*],
        plans: [$($gp:tt)*],
        shared: [$($gs:tt)*],
        m: $M:ty, s: $S:ty, word: $W:ty, int: $I:ty, zero: $zero:expr, map: $map:ident,
        each: $each:ident, vis: $vis:vis
    ) => {
        use $crate::cost::Barrier;
        use $crate::ir::{GatherPlan, Instr, Plan, SharedPlan, ShufflePlan, SmemAccess};
        use $crate::linear::{xor_of, Map};
        #[allow(unused_imports)]
        use $crate::walk::each_loop;
        use $crate::walk::{
            min, packed_words, padded, same_choice, store_loop, sub, trans_sources, varies,
            within, Ids,
        };
        use $crate::MAX_SHUFFLE_WORDS;

        /// Run a whole plan.
        #[inline(always)]
        $vis $($c)? fn run $($gs)* (m: &mut $M, plan: &Plan<$S>) {
            match plan {
                Plan::Registers(perm) => $each!(perm.len(), |i| m.mov(i as u16, perm[i])),
                Plan::Shuffles(p) => shuffles(m, p),
                Plan::Gather(p) => gather(m, p),
                Plan::Shared(p) => shared(m, p),
            }
        }

        /// Run a shuffle plan: pack, exchange, unpack.
        #[inline(always)]
        $vis $($c)? fn shuffles $($gp)* (m: &mut $M, p: &ShufflePlan<$S>) {
            let (per, nw) = packed_words(p.gather.len(), p.pack);
            let nw = within(nw, MAX_SHUFFLE_WORDS);
            let mut w = [$zero; MAX_SHUFFLE_WORDS];
            $each!(nw, |x| {
                w[x] = if p.pack < 0 {
                    m.pack(sub(&p.gather, x / 2, x / 2 + 1), (x % 2) as u32)
                } else {
                    m.pack(sub(&p.gather, x * per, (x + 1) * per), 0)
                }
            });
            let lane = m.lane();
            if p.ship {
                ship(m, &mut w, nw, p.swaps[0], lane);
            } else {
                exchange(m, &mut w, nw, p, lane);
            }
            $each!(p.scatter.len(), |i| {
                let e = p.scatter[i] as usize;
                if p.pack < 0 {
                    m.unpack_pair(i as u16, w[2 * e], w[2 * e + 1]);
                } else {
                    m.unpack(i as u16, w[e / per], (e % per) as u32);
                }
            });
        }

        /// One transposition `(word bit r, lane bit l)` out of place: per pair of the first
        /// `nw` words, the lane sends the one its partner needs and keeps the other (three
        /// selects, one shuffle).
        #[inline(always)]
        $($c)? fn ship $($gm)* (m: &mut $M, w: &mut [$W], nw: usize, (r, l): (u8, u8), lane: $I) {
            let c = m.bit(lane, l as u32);
            $each!(nw, |x0| {
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
        $($c)? fn exchange $($gp)* (
            m: &mut $M,
            w: &mut [$W],
            nw: usize,
            p: &ShufflePlan<$S>,
            lane: $I,
        ) {
            let permuted = !p.lane_map.is_empty();
            swap_stage(m, w, nw, &p.swaps, lane);
            let src_lane = if permuted {
                m.linear(&[($map!(p.lane_map), lane)])
            } else {
                lane
            };
            $each!(nw, |x| {
                let mut mask = 0u32;
                $each!(small p.swaps.len(), |k| {
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
            swap_stage(m, w, nw, &p.swaps, src_lane);
        }

        /// For each transposition `(r, l)`: where lane bit `l` of `lane` is set, swap words `x`
        /// and `x | 1 << r` of the first `nw` (two selects per pair).
        #[inline(always)]
        $($c)? fn swap_stage $($gm)* (
            m: &mut $M,
            w: &mut [$W],
            nw: usize,
            swaps: &[(u8, u8)],
            lane: $I,
        ) {
            $each!(small swaps.len(), |k| {
                let (r, l) = swaps[k];
                let c = m.bit(lane, l as u32);
                $each!(nw, |x0| {
                    if (x0 >> r) & 1 == 0 {
                        let x1 = x0 | (1 << r);
                        let (a, b) = (w[x0], w[x1]);
                        w[x0] = m.select(c, b, a);
                        w[x1] = m.select(c, a, b);
                    }
                });
            });
        }

        /// Run a gather plan: pack the source words, one shuffle per round (two for 64-bit
        /// elements), then per destination register a tree of selects over its candidates
        /// (shared by registers with the same candidates) and an unpack.
        #[inline(always)]
        $vis $($c)? fn gather $($gp)* (m: &mut $M, p: &GatherPlan<$S>) {
            let (per, halves) = if p.pack < 0 { (1, 2) } else { (1 << p.pack, 1) };
            let nw = within(p.words.len() / per, MAX_SHUFFLE_WORDS / halves);
            let mut w = [$zero; MAX_SHUFFLE_WORDS];
            let mut x = 0;
            while x < nw * halves {
                let (word, part) = (x / halves, (x % halves) as u32);
                w[x] = m.pack(sub(&p.words, word * per, (word + 1) * per), part);
                x += 1;
            }
            let (lane, warp) = (m.lane(), m.warp());
            let base = m.linear(&[($map!(p.lane_map), lane), ($map!(p.warp_map), warp)]);
            let sel = m.linear(&[($map!(p.sel_lane), lane), ($map!(p.sel_warp), warp)]);
            let nr = within(p.rounds.len(), MAX_SHUFFLE_WORDS / halves);
            let mut got = [$zero; MAX_SHUFFLE_WORDS];
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
            let mut chosen = [$zero; MAX_SHUFFLE_WORDS];
            within((p.pick.len() >> k) * halves, MAX_SHUFFLE_WORDS);
            let mut i = 0;
            while (i << k) < p.pick.len() {
                let cands = sub(&p.pick, i << k, (i + 1) << k);
                let at = sub(&p.pos, i << k, (i + 1) << k);
                // A register choosing among the same words as an earlier one reuses its choice.
                let mut same = 0;
                while same < i && !same_choice(&p.pick, &p.pos, k, same, i) {
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

        /// The candidate that the bits of `sel` choose among the rounds `cands` (half `h` of
        /// each), each first moved to element 0 when the candidates sit at different places
        /// (`at`).
        #[inline(always)]
        $($c)? fn pick $($gm)* (
            m: &mut $M,
            (cands, at): (&[u16], &[u8]),
            got: &[$W],
            (halves, h): (usize, usize),
            sel: $I,
        ) -> $W {
            let moved = varies(at);
            let mut v = [$zero; 16];
            let n = within(cands.len(), 16);
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

        /// Run a shared-memory plan: per round, store (owners only), barrier, load. Before the
        /// first store, the barrier an earlier operation's pending loads need (none when there
        /// are none); after the loads, those loads pending for the next operation, or (in a
        /// cluster) a closing cluster barrier.
        #[inline(always)]
        $vis $($c)? fn shared $($gs)* (m: &mut $M, p: &SharedPlan<$S>) {
            m.scratch_write_begin();
            let (s, l) = (&p.store, &p.load);
            let rounds = if p.rounds > 1 { p.rounds as usize } else { 1 };
            let (sper, lper) = (s.reg_offsets.len() / rounds, l.reg_offsets.len() / rounds);
            let at = ids(m);
            let sbase = base(m, s, at);
            let lbase = base(m, l, at);
            let owner = m.owner(at.lane, at.warp, s.lane_skip, s.warp_skip);
            // One written-out loop over every access of every round (stores, then loads, per
            // round): a plan in a const folds it to straight-line code, and one loop is far
            // less code for LLVM to fold than a loop of accesses inside a loop of rounds.
            let per = sper + lper;
            $each!(rounds * per, |i| {
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

        /// Store every access of `s` (threads that hold copies skip): a store to a shared
        /// layout.
        #[inline(always)]
        $vis $($c)? fn store $($gs)* (m: &mut $M, s: &SmemAccess<$S>) {
            store_loop!(m, s, |at, v, addr| store_one(m, s, at, v, addr));
        }

        /// Load every access of `l`: a load from a shared layout.
        #[inline(always)]
        $vis $($c)? fn load $($gs)* (m: &mut $M, l: &SmemAccess<$S>) {
            let at = ids(m);
            let base = base(m, l, at);
            $each!(l.reg_offsets.len(), |v| load_at(m, l, at, base, v));
            copies(m, l);
        }

        /// The registers a load leaves out (copies of others): each from the one with
        /// `reg_skip` clear.
        #[inline(always)]
        $($c)? fn copies $($gs)* (m: &mut $M, l: &SmemAccess<$S>) {
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

        /// The address of one access: the base XOR its registers' offset, padded if the layout
        /// is.
        #[inline(always)]
        $($c)? fn address $($gs)* (m: &mut $M, a: &SmemAccess<$S>, base: $I, off: u32) -> $I {
            let addr = m.offset(base, off);
            if !padded(&a.padding) {
                return addr;
            }
            m.pad(addr, a.padding)
        }

        /// This thread's lane and warp.
        #[inline(always)]
        $($c)? fn ids $($gm)* (m: &mut $M) -> Ids<$I> {
            let lane = m.lane();
            Ids {
                lane,
                warp: m.warp(),
            }
        }

        /// The address of a side's accesses contributed by the lane, the warp and the CTA rank.
        #[inline(always)]
        $($c)? fn base $($gs)* (m: &mut $M, a: &SmemAccess<$S>, at: Ids<$I>) -> $I {
            base_with(m, a, $map!(a.lane_bases), at)
        }

        /// [`base`] with the lane's contribution given by `lane_bases`.
        #[inline(always)]
        $($c)? fn base_with $($gs)* (
            m: &mut $M,
            a: &SmemAccess<$S>,
            lane_bases: Map<'_>,
            at: Ids<$I>,
        ) -> $I {
            // Only the rank is read under a condition (an empty map adds nothing, whatever its
            // integer): the lane and warp terms stay outside any branch, so LLVM merges the
            // terms the store and load addresses share before it reshapes them one by one.
            let rank = if a.block_bases.is_empty() {
                at.lane
            } else {
                m.cta_rank()
            };
            m.linear(&[
                (lane_bases, at.lane),
                ($map!(a.warp_bases), at.warp),
                ($map!(a.block_bases), rank),
            ])
        }

        /// Access `v` moves registers `regs[v vec ..][..vec]`; a word holds `32 / bits` of them
        /// (or half of one 64-bit element).
        #[inline(always)]
        $($c)? fn words_of $($gs)* (m: &mut $M, a: &SmemAccess<$S>, v: usize) -> [$W; 4] {
            let vec = a.vec as usize;
            let regs = sub(&a.regs, v * vec, (v + 1) * vec);
            let mut words = [$zero; 4];
            let bits = m.elem_bits() as usize;
            if bits == 64 {
                let mut x = 0;
                while x < 2 * vec {
                    words[x] = m.pack(sub(regs, x / 2, x / 2 + 1), (x % 2) as u32);
                    x += 1;
                }
            } else {
                let per = match a.instr {
                    Instr::Matrix { count, .. } => vec / count as usize,
                    Instr::Vector | Instr::TransRead { .. } => 32 / bits,
                };
                let mut q = 0;
                while q * per < vec {
                    let end = min((q + 1) * per, vec);
                    words[q] = m.pack(sub(regs, q * per, end), 0);
                    q += 1;
                }
            }
            words
        }

        /// Store access `v` of `s` at `addr`.
        #[inline(always)]
        $($c)? fn store_one $($gs)* (
            m: &mut $M,
            s: &SmemAccess<$S>,
            at: Ids<$I>,
            v: usize,
            addr: $I,
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

        /// A [`Instr::TransRead`] access as stores: each element of access `v`, one at a time,
        /// where the transposed read would find it (the row of its source lane, at its own
        /// lane's element). That address is linear in the lane (the rows' bases composed with
        /// the source-lane map, and the element's place in the row) plus a constant per element.
        #[inline(always)]
        $($c)? fn trans_store $($gs)* (m: &mut $M, s: &SmemAccess<$S>, at: Ids<$I>, v: usize) {
            let vec = s.vec as usize;
            let bytes = m.elem_bits() / 8;
            let mut lanes = [0u32; 6];
            let nl = within(s.lane_bases.len(), 6);
            let mut b = 0;
            while b < nl {
                let elem = if (1usize << b) < vec { bytes << b } else { 0 };
                lanes[b] = xor_of(&s.lane_bases, s.instr.trans_source(1 << b, 0)) ^ elem;
                b += 1;
            }
            let base = base_with(m, s, Map::of(sub(&lanes, 0, b)), at);
            let mut k = 0;
            while k < vec {
                let row = xor_of(&s.lane_bases, s.instr.trans_source(0, k as u32));
                let addr = address(m, s, base, s.reg_offsets[v] ^ row);
                let mut words = [$zero; 4];
                words[0] = m.pack(sub(&s.regs, v * vec + k, v * vec + k + 1), 0);
                m.st_shared(s.remote, addr, bytes, words);
                k += 1;
            }
        }

        /// Load access `v` of a [`Instr::TransRead`] from `addr` into registers: this lane's
        /// row, then each element from the row of its source lane (a shuffle per word of the
        /// row, a select per lane bit that picks the word or the element).
        #[inline(always)]
        $($c)? fn trans_load $($gs)* (
            m: &mut $M,
            l: &SmemAccess<$S>,
            lane: $I,
            v: usize,
            addr: $I,
        ) {
            let vec = l.vec;
            let bits = m.elem_bits();
            let row = m.ld_shared(l.remote, addr, vec * bits / 8);
            let per = 32 / bits;
            let words = (vec / per) as usize;
            let src = trans_sources(&l.instr);
            let src0 = m.linear(&[(Map::of(&src), lane)]);
            let mut k = 0;
            while k < vec as usize {
                let from = m.xor(src0, l.instr.trans_source(0, k as u32));
                let mut got = [$zero; 4];
                let mut w = 0;
                while w < words {
                    got[w] = m.shfl_idx(row[w], from);
                    w += 1;
                }
                // The word of element `lane % vec`: halve the candidates by each lane bit
                // above a word.
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
        $($c)? fn load_at $($gs)* (
            m: &mut $M,
            l: &SmemAccess<$S>,
            at: Ids<$I>,
            base: $I,
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
        $($c)? fn load_one $($gs)* (m: &mut $M, l: &SmemAccess<$S>, v: usize, addr: $I) {
            let vec = l.vec as usize;
            let bits = m.elem_bits();
            let (words, per) = match l.instr {
                Instr::Matrix { count, trans } => {
                    (m.ldmatrix(count, addr, trans), vec / count as usize)
                }
                _ => {
                    let bytes = l.vec * (bits / 8);
                    let per = if bits < 32 { (32 / bits) as usize } else { 1 };
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
    };
}
pub(crate) use executor;
