//! The executor as a `const fn`: a plan's operations recorded on a [`Tape`] while a const is
//! evaluated, in the order [`crate::exec`] performs them. It is a port of `exec`, which stays
//! generic over its machine (the proc macro's code writer, the runtime interpreter, a tape) where
//! a `const fn` cannot be; `tests/convert_sim.rs` checks that both record the same operations
//! on every random plan.

use crate::cost::Barrier;
use crate::ir::{GatherPlan, Instr, Plan, SharedPlan, ShufflePlan, SmemAccess, Static};
use crate::linear::{xor_of, Map};
use crate::slices::{same_u16, same_u8};
use crate::tape::Tape;
use crate::MAX_SHUFFLE_WORDS;

/// `&s[a..b]` in a const.
const fn sub<T>(s: &[T], a: usize, b: usize) -> &[T] {
    crate::slices::range(s, a, b)
}

const fn min(a: usize, b: usize) -> usize {
    if a < b {
        a
    } else {
        b
    }
}

/// A whole plan's operations.
pub const fn trace(plan: &Plan<Static>, bits: u32) -> Tape {
    let mut m = Tape::new(bits);
    match plan {
        Plan::Registers(perm) => {
            let mut i = 0;
            while i < perm.len() {
                m.mov(i as u16, perm[i]);
                i += 1;
            }
        }
        Plan::Shuffles(p) => shuffles(&mut m, p),
        Plan::Gather(p) => gather(&mut m, p),
        Plan::Shared(p) => shared(&mut m, p),
    }
    m
}

/// A store into a shared layout.
pub const fn trace_store(s: &SmemAccess<Static>, bits: u32) -> Tape {
    let mut m = Tape::new(bits);
    let at = ids(&mut m);
    let base = base(&mut m, s, at);
    let owner = m.owner(at.0, at.1, s.lane_skip, s.warp_skip);
    m.begin_if(owner);
    let mut v = 0;
    while v < s.reg_offsets.len() {
        let addr = address(&mut m, s, base, s.reg_offsets[v]);
        store_one(&mut m, s, at, v, addr);
        v += 1;
    }
    m.end_if();
    m
}

/// A load from a shared layout.
pub const fn trace_load(l: &SmemAccess<Static>, bits: u32) -> Tape {
    let mut m = Tape::new(bits);
    let at = ids(&mut m);
    let base = base(&mut m, l, at);
    let mut v = 0;
    while v < l.reg_offsets.len() {
        load_at(&mut m, l, at, base, v);
        v += 1;
    }
    copies(&mut m, l);
    m
}

const fn shuffles(m: &mut Tape, p: &ShufflePlan<Static>) {
    let (per, nw) = crate::exec::packed_words(p.gather.len(), p.pack);
    let nw = min(nw, MAX_SHUFFLE_WORDS);
    let mut w = [0u16; MAX_SHUFFLE_WORDS];
    let mut x = 0;
    while x < nw {
        w[x] = if p.pack < 0 {
            m.pack(sub(p.gather, x / 2, x / 2 + 1), (x % 2) as u32)
        } else {
            m.pack(sub(p.gather, x * per, (x + 1) * per), 0)
        };
        x += 1;
    }
    let lane = m.lane();
    if p.ship {
        ship(m, &mut w, nw, p.swaps[0], lane);
    } else {
        exchange(m, &mut w, nw, p, lane);
    }
    let mut i = 0;
    while i < p.scatter.len() {
        let e = p.scatter[i] as usize;
        if p.pack < 0 {
            m.unpack_pair(i as u16, w[2 * e], w[2 * e + 1]);
        } else {
            m.unpack(i as u16, w[e / per], (e % per) as u32);
        }
        i += 1;
    }
}

const fn ship(m: &mut Tape, w: &mut [u16], nw: usize, (r, l): (u8, u8), lane: u16) {
    let c = m.bit(lane, l as u32);
    let mut x0 = 0;
    while x0 < nw {
        if (x0 >> r) & 1 == 0 {
            let x1 = x0 | (1 << r);
            let (a, b) = (w[x0], w[x1]);
            let send = m.select(c, a, b);
            let recv = m.shfl_xor(send, 1 << l);
            w[x0] = m.select(c, recv, a);
            w[x1] = m.select(c, b, recv);
        }
        x0 += 1;
    }
}

const fn exchange(m: &mut Tape, w: &mut [u16], nw: usize, p: &ShufflePlan<Static>, lane: u16) {
    let permuted = !p.lane_map.is_empty();
    swap_stage(m, w, nw, p.swaps, lane);
    let src_lane = if permuted {
        m.linear(&[(Map::of(p.lane_map), lane)])
    } else {
        lane
    };
    let mut x = 0;
    while x < nw {
        let mut mask = 0u32;
        let mut k = 0;
        while k < p.swaps.len() {
            if (x >> p.swaps[k].0) & 1 == 1 {
                mask |= 1 << p.swaps[k].1;
            }
            k += 1;
        }
        if permuted {
            let from = m.xor(src_lane, mask);
            w[x] = m.shfl_idx(w[x], from);
        } else if mask != 0 {
            w[x] = m.shfl_xor(w[x], mask);
        }
        x += 1;
    }
    swap_stage(m, w, nw, p.swaps, src_lane);
}

const fn swap_stage(m: &mut Tape, w: &mut [u16], nw: usize, swaps: &[(u8, u8)], lane: u16) {
    let mut k = 0;
    while k < swaps.len() {
        let (r, l) = swaps[k];
        let c = m.bit(lane, l as u32);
        let mut x0 = 0;
        while x0 < nw {
            if (x0 >> r) & 1 == 0 {
                let x1 = x0 | (1 << r);
                let (a, b) = (w[x0], w[x1]);
                w[x0] = m.select(c, b, a);
                w[x1] = m.select(c, a, b);
            }
            x0 += 1;
        }
        k += 1;
    }
}

const fn gather(m: &mut Tape, p: &GatherPlan<Static>) {
    let (per, halves) = if p.pack < 0 { (1, 2) } else { (1 << p.pack, 1) };
    let nw = min(p.words.len() / per, MAX_SHUFFLE_WORDS / halves);
    let mut w = [0u16; MAX_SHUFFLE_WORDS];
    let mut x = 0;
    while x < nw * halves {
        let (word, part) = (x / halves, (x % halves) as u32);
        w[x] = m.pack(sub(p.words, word * per, (word + 1) * per), part);
        x += 1;
    }
    let (lane, warp) = (m.lane(), m.warp());
    let base = m.linear(&[(Map::of(p.lane_map), lane), (Map::of(p.warp_map), warp)]);
    let sel = m.linear(&[(Map::of(p.sel_lane), lane), (Map::of(p.sel_warp), warp)]);
    let nr = min(p.rounds.len(), MAX_SHUFFLE_WORDS / halves);
    let mut got = [0u16; MAX_SHUFFLE_WORDS];
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
    let mut chosen = [0u16; MAX_SHUFFLE_WORDS];
    let mut i = 0;
    while (i << k) < p.pick.len() && i * halves < MAX_SHUFFLE_WORDS {
        let cands = sub(p.pick, i << k, (i + 1) << k);
        let at = sub(p.pos, i << k, (i + 1) << k);
        let mut same = 0;
        while same < i && !same_choice(p, k, same, i) {
            same += 1;
        }
        let mut h = 0;
        while h < halves {
            chosen[i * halves + h] = if same < i {
                chosen[same * halves + h]
            } else {
                pick(m, cands, at, &got, halves, h, sel)
            };
            h += 1;
        }
        if halves == 2 {
            m.unpack_pair(i as u16, chosen[2 * i], chosen[2 * i + 1]);
        } else {
            let k = if varies(at) { 0 } else { at[0] as u32 };
            m.unpack(i as u16, chosen[i], k);
        }
        i += 1;
    }
}

const fn varies(at: &[u8]) -> bool {
    let mut c = 1;
    while c < at.len() {
        if at[c] != at[0] {
            return true;
        }
        c += 1;
    }
    false
}

const fn same_choice(p: &GatherPlan<Static>, k: usize, a: usize, b: usize) -> bool {
    let pa = sub(p.pos, a << k, (a + 1) << k);
    let pb = sub(p.pos, b << k, (b + 1) << k);
    same_u16(
        sub(p.pick, a << k, (a + 1) << k),
        sub(p.pick, b << k, (b + 1) << k),
    ) && (same_u8(pa, pb) || (!varies(pa) && !varies(pb)))
}

const fn pick(
    m: &mut Tape,
    cands: &[u16],
    at: &[u8],
    got: &[u16],
    halves: usize,
    h: usize,
    sel: u16,
) -> u16 {
    let moved = varies(at);
    let mut v = [0u16; 16];
    let n = min(cands.len(), 16);
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

const fn shared(m: &mut Tape, p: &SharedPlan<Static>) {
    m.scratch_write_begin();
    let (s, l) = (&p.store, &p.load);
    let rounds = if p.rounds > 1 { p.rounds as usize } else { 1 };
    let (sper, lper) = (s.reg_offsets.len() / rounds, l.reg_offsets.len() / rounds);
    let at = ids(m);
    let sbase = base(m, s, at);
    let lbase = base(m, l, at);
    let owner = m.owner(at.0, at.1, s.lane_skip, s.warp_skip);
    let per = sper + lper;
    let mut i = 0;
    while i < rounds * per {
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
        i += 1;
    }
    copies(m, l);
    if let Barrier::Cluster = p.barrier {
        m.barrier(Barrier::Cluster);
    } else {
        m.scratch_reads_pending();
    }
}

const fn copies(m: &mut Tape, l: &SmemAccess<Static>) {
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

const fn padded(p: &crate::Padding) -> bool {
    let mut i = 0;
    while i < 4 {
        if p[i].0 != 0 || p[i].1 != 0 {
            return true;
        }
        i += 1;
    }
    false
}

const fn address(m: &mut Tape, a: &SmemAccess<Static>, base: u16, off: u32) -> u16 {
    let addr = m.xor(base, off);
    if !padded(&a.padding) {
        return addr;
    }
    m.pad(addr, a.padding)
}

/// `(lane, warp)`, read once per operation.
const fn ids(m: &mut Tape) -> (u16, u16) {
    let lane = m.lane();
    (lane, m.warp())
}

const fn base(m: &mut Tape, a: &SmemAccess<Static>, at: (u16, u16)) -> u16 {
    base_with(m, a, Map::of(a.lane_bases), at)
}

const fn base_with(
    m: &mut Tape,
    a: &SmemAccess<Static>,
    lane_bases: Map<'_>,
    at: (u16, u16),
) -> u16 {
    let (lane, warp) = at;
    let rank = if a.block_bases.is_empty() {
        lane
    } else {
        m.cta_rank()
    };
    m.linear(&[
        (lane_bases, lane),
        (Map::of(a.warp_bases), warp),
        (Map::of(a.block_bases), rank),
    ])
}

const fn words_of(m: &mut Tape, a: &SmemAccess<Static>, v: usize) -> [u16; 4] {
    let vec = a.vec as usize;
    let regs = sub(a.regs, v * vec, (v + 1) * vec);
    let mut words = [0u16; 4];
    let bits = m.bits() as usize;
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
            let end = if (q + 1) * per < vec {
                (q + 1) * per
            } else {
                vec
            };
            words[q] = m.pack(sub(regs, q * per, end), 0);
            q += 1;
        }
    }
    words
}

const fn store_one(m: &mut Tape, s: &SmemAccess<Static>, at: (u16, u16), v: usize, addr: u16) {
    if let Instr::TransRead { .. } = s.instr {
        return trans_store(m, s, at, v);
    }
    let words = words_of(m, s, v);
    match s.instr {
        Instr::Matrix { count, trans } => m.stmatrix(count, addr, trans, words),
        _ => {
            let bytes = s.vec * (m.bits() / 8);
            m.st_shared(s.remote, addr, bytes, words)
        }
    }
}

const fn trans_store(m: &mut Tape, s: &SmemAccess<Static>, at: (u16, u16), v: usize) {
    let vec = s.vec as usize;
    let bytes = m.bits() / 8;
    let mut lanes = [0u32; 6];
    let mut b = 0;
    while b < s.lane_bases.len() && b < 6 {
        let elem = if (1usize << b) < vec { bytes << b } else { 0 };
        lanes[b] = xor_of(s.lane_bases, s.instr.trans_source(1 << b, 0)) ^ elem;
        b += 1;
    }
    let base = base_with(m, s, Map::of(sub(&lanes, 0, b)), at);
    let mut k = 0;
    while k < vec {
        let off = s.reg_offsets[v] ^ xor_of(s.lane_bases, s.instr.trans_source(0, k as u32));
        let addr = address(m, s, base, off);
        let mut words = [0u16; 4];
        words[0] = m.pack(sub(s.regs, v * vec + k, v * vec + k + 1), 0);
        m.st_shared(s.remote, addr, bytes, words);
        k += 1;
    }
}

const fn trans_load(m: &mut Tape, l: &SmemAccess<Static>, lane: u16, v: usize, addr: u16) {
    let vec = l.vec;
    let bits = m.bits();
    let row = m.ld_shared(l.remote, addr, vec * bits / 8);
    let per = 32 / bits;
    let words = (vec / per) as usize;
    let mut src = [0u32; 6];
    let mut b = 0;
    while b < 6 {
        src[b] = l.instr.trans_source(1 << b, 0);
        b += 1;
    }
    let src0 = m.linear(&[(Map::of(&src), lane)]);
    let mut k = 0;
    while k < vec as usize {
        let s = m.xor(src0, l.instr.trans_source(0, k as u32));
        let mut got = [0u16; 4];
        let mut w = 0;
        while w < words {
            got[w] = m.shfl_idx(row[w], s);
            w += 1;
        }
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

const fn load_at(m: &mut Tape, l: &SmemAccess<Static>, at: (u16, u16), base: u16, v: usize) {
    let addr = address(m, l, base, l.reg_offsets[v]);
    if let Instr::TransRead { .. } = l.instr {
        trans_load(m, l, at.0, v, addr);
    } else {
        load_one(m, l, v, addr);
    }
}

const fn load_one(m: &mut Tape, l: &SmemAccess<Static>, v: usize, addr: u16) {
    let vec = l.vec as usize;
    let bits = m.bits();
    let (words, per) = match l.instr {
        Instr::Matrix { count, trans } => (m.ldmatrix(count, addr, trans), vec / count as usize),
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
