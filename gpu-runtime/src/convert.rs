//! Executing a layout conversion plan. `convert!` solves the plan at compile time (in layout-core)
//! and writes it as const tables; [`convert`] is `#[inline(always)]` over those tables, so after
//! constant propagation what remains is the register moves, selects, shuffles and shared-memory
//! accesses themselves. Tests build the same tables at run time from random layouts and run them
//! on the simulator.

use crate::element::Element;
use crate::thread::{select, Thread};

pub use layout_plan::ir::{Instr, Plan, SharedPlan, ShufflePlan, SmemAccess, Static, Storage};
pub use layout_plan::{Barrier, Cost, Strategy, CTA_SHIFT, MAX_SHUFFLE_WORDS, OFFSET_MASK};

#[inline(always)]
fn bit(x: u32, b: u32) -> bool {
    (x >> b) & 1 == 1
}

/// Apply a lane permutation given by its bases.
#[inline(always)]
fn map_lane(map: &[u32], lane: u32) -> u32 {
    let mut r = 0;
    let mut b = 0;
    while b < map.len() {
        if bit(lane, b as u32) {
            r ^= map[b];
        }
        b += 1;
    }
    r
}

/// Run a plan: the values a thread holds in the source layout in, the values it holds in the
/// destination layout out.
#[inline(always)]
pub fn convert<E: Element, T: Thread, S: Storage, const NS: usize, const ND: usize>(
    plan: &Plan<S>,
    t: &T,
    src: &[E; NS],
) -> [E; ND] {
    let mut dst = [E::default(); ND];
    convert_slices(plan, t, src, &mut dst);
    dst
}

/// [`convert`] on slices (`src` has the source's register count, `dst` the destination's), for
/// plans built at run time.
#[inline(always)]
pub fn convert_slices<E: Element, T: Thread, S: Storage>(
    plan: &Plan<S>,
    t: &T,
    src: &[E],
    dst: &mut [E],
) {
    match plan {
        Plan::Registers(perm) => {
            let mut i = 0;
            while i < dst.len() {
                dst[i] = src[perm[i] as usize];
                i += 1;
            }
        }
        Plan::Shuffles(p) => shuffles(p, t, src, dst),
        Plan::Shared(p) => shared(p, t, src, dst),
    }
}

#[inline(always)]
fn shuffles<E: Element, T: Thread, S: Storage>(
    p: &ShufflePlan<S>,
    t: &T,
    src: &[E],
    dst: &mut [E],
) {
    let ne = p.gather.len();
    let (per_word, words) = if p.pack < 0 {
        (1usize, ne * 2)
    } else {
        (1usize << p.pack, ne >> p.pack)
    };
    let nw = words.min(MAX_SHUFFLE_WORDS);
    // Pack.
    let mut w = [0u32; MAX_SHUFFLE_WORDS];
    let mut e = 0;
    while e < ne {
        let v = src[p.gather[e] as usize].to_bits();
        if p.pack < 0 {
            w[2 * e] = v as u32;
            w[2 * e + 1] = (v >> 32) as u32;
        } else {
            w[e / per_word] |= (v as u32) << ((e % per_word) as u32 * E::BITS);
        }
        e += 1;
    }
    let lane = t.lane();
    if p.ship {
        let (r, l) = (p.swaps[0].0 as u32, p.swaps[0].1 as u32);
        let bl = bit(lane, l);
        let mut x0 = 0;
        while x0 < nw {
            if !bit(x0 as u32, r) {
                let x1 = x0 | (1 << r);
                let send = select(bl, w[x0], w[x1]);
                let recv = t.shfl_xor(send, 1 << l);
                let (a, b) = (w[x0], w[x1]);
                w[x0] = select(bl, recv, a);
                w[x1] = select(bl, b, recv);
            }
            x0 += 1;
        }
    } else {
        let src_lane = if p.lane_map.is_empty() {
            lane
        } else {
            map_lane(&p.lane_map, lane)
        };
        // Stage 1: word x ^= the swapped lane bits of this lane.
        swap_stage(&mut w, nw, &p.swaps, lane);
        // Stage 2: each word from lane (Lp(lane) ^ M(word)).
        let mut x = 0;
        while x < nw {
            let mut mask = 0u32;
            let mut k = 0;
            while k < p.swaps.len() {
                if bit(x as u32, p.swaps[k].0 as u32) {
                    mask |= 1 << p.swaps[k].1;
                }
                k += 1;
            }
            if !p.lane_map.is_empty() {
                w[x] = t.shfl_idx(w[x], src_lane ^ mask);
            } else if mask != 0 {
                w[x] = t.shfl_xor(w[x], mask);
            }
            x += 1;
        }
        // Stage 3: the same swaps by the bits of the lane we read from.
        swap_stage(&mut w, nw, &p.swaps, src_lane);
    }
    // Unpack into the destination order.
    let mut i = 0;
    while i < dst.len() {
        let e = p.scatter[i] as usize;
        let bits = if p.pack < 0 {
            (w[2 * e] as u64) | ((w[2 * e + 1] as u64) << 32)
        } else {
            let v = w[e / per_word] >> ((e % per_word) as u32 * E::BITS);
            (if E::BITS == 32 {
                v
            } else {
                v & ((1u32 << E::BITS) - 1)
            }) as u64
        };
        dst[i] = E::from_bits(bits);
        i += 1;
    }
}

/// For each transposition `(r, l)`: where lane bit `l` of `lane` is set, swap words `x` and
/// `x | 1 << r` (two selects per pair).
#[inline(always)]
fn swap_stage(w: &mut [u32; MAX_SHUFFLE_WORDS], nw: usize, swaps: &[(u8, u8)], lane: u32) {
    let mut k = 0;
    while k < swaps.len() {
        let (r, l) = (swaps[k].0 as u32, swaps[k].1 as u32);
        let c = bit(lane, l);
        let mut x0 = 0;
        while x0 < nw {
            if !bit(x0 as u32, r) {
                let x1 = x0 | (1 << r);
                let (a, b) = (w[x0], w[x1]);
                w[x0] = select(c, b, a);
                w[x1] = select(c, a, b);
            }
            x0 += 1;
        }
        k += 1;
    }
}

#[inline(always)]
fn base_offset<T: Thread, S: Storage>(a: &SmemAccess<S>, t: &T) -> u32 {
    let b = map_lane(&a.lane_bases, t.lane()) ^ map_lane(&a.warp_bases, t.warp());
    if a.block_bases.is_empty() {
        b
    } else {
        b ^ map_lane(&a.block_bases, t.cta_rank())
    }
}

/// `st.shared` at `addr`, or into another CTA's shared memory for a remote access.
#[inline(always)]
pub fn st_at<T: Thread>(t: &T, remote: bool, addr: u32, bytes: u32, words: [u32; 4]) {
    if remote {
        t.st_shared_cluster(addr >> CTA_SHIFT, addr & OFFSET_MASK, bytes, words)
    } else {
        t.st_shared(addr, bytes, words)
    }
}

/// `ld.shared` at `addr`, or from another CTA's shared memory for a remote access.
#[inline(always)]
pub fn ld_at<T: Thread>(t: &T, remote: bool, addr: u32, bytes: u32) -> [u32; 4] {
    if remote {
        t.ld_shared_cluster(addr >> CTA_SHIFT, addr & OFFSET_MASK, bytes)
    } else {
        t.ld_shared(addr, bytes)
    }
}

#[inline(always)]
fn shared<E: Element, T: Thread, S: Storage>(p: &SharedPlan<S>, t: &T, src: &[E], out: &mut [E]) {
    let (s, l) = (&p.store, &p.load);
    let rounds = p.rounds.max(1) as usize;
    let (sper, lper) = (s.reg_offsets.len() / rounds, l.reg_offsets.len() / rounds);
    let mut round = 0;
    while round < rounds {
        if round > 0 {
            barrier(p, t);
        }
        store_accesses(s, t, src, round * sper, (round + 1) * sper);
        barrier(p, t);
        load_accesses(l, t, out, round * lper, (round + 1) * lper);
        round += 1;
    }
    if matches!(p.barrier, Barrier::Cluster) {
        t.sync_cluster();
    }
}

/// Store accesses `from..to` of `s` (the threads that hold copies skip).
#[inline(always)]
pub fn store_accesses<E: Element, T: Thread, S: Storage>(
    s: &SmemAccess<S>,
    t: &T,
    src: &[E],
    from: usize,
    to: usize,
) {
    if t.lane() & s.lane_skip != 0 || t.warp() & s.warp_skip != 0 {
        return;
    }
    let base = base_offset(s, t);
    let vec = s.vec as usize;
    let mut v = from;
    while v < to {
        if let Instr::Matrix { trans, .. } = s.instr {
            let mut words = [0u32; 4];
            let per = vec / 4;
            let mut e = 0;
            while e < vec {
                let bits = src[s.regs[vec * v + e] as usize].to_bits() as u32;
                let w = if E::BITS == 32 {
                    bits
                } else {
                    bits & ((1u32 << E::BITS) - 1)
                };
                words[e / per] |= w << ((e % per) as u32 * E::BITS);
                e += 1;
            }
            t.stmatrix_x4(base ^ s.reg_offsets[v], trans, words);
        } else {
            let mut vals = [E::default(); 16];
            let mut k = 0;
            while k < vec {
                vals[k] = src[s.regs[v * vec + k] as usize];
                k += 1;
            }
            st_at(
                t,
                s.remote,
                base ^ s.reg_offsets[v],
                s.vec * (E::BITS / 8),
                pack(&vals[..vec]),
            );
        }
        v += 1;
    }
}

/// Load accesses `from..to` of `l` into `out`.
#[inline(always)]
pub fn load_accesses<E: Element, T: Thread, S: Storage>(
    l: &SmemAccess<S>,
    t: &T,
    out: &mut [E],
    from: usize,
    to: usize,
) {
    let base = base_offset(l, t);
    let vec = l.vec as usize;
    let mut v = from;
    while v < to {
        if let Instr::Matrix { trans, .. } = l.instr {
            let words = t.ldmatrix_x4(base ^ l.reg_offsets[v], trans);
            let per = vec / 4;
            let mut e = 0;
            while e < vec {
                let x = words[e / per] >> ((e % per) as u32 * E::BITS);
                let bits = if E::BITS == 32 {
                    x
                } else {
                    x & ((1u32 << E::BITS) - 1)
                };
                out[l.regs[vec * v + e] as usize] = E::from_bits(bits as u64);
                e += 1;
            }
        } else {
            let words = ld_at(t, l.remote, base ^ l.reg_offsets[v], l.vec * (E::BITS / 8));
            let mut k = 0;
            while k < vec {
                out[l.regs[v * vec + k] as usize] = unpack(&words, k);
                k += 1;
            }
        }
        v += 1;
    }
}

/// Registers to shared memory in a given shared layout (Triton's `local_store`), solved by
/// `convert!(Distributed => Shared, T)`. `X` is the emitted code or [`Interpret`].
#[derive(Clone, Copy, Debug)]
pub struct SharedStore<E, const N: usize, X = Interpret> {
    /// The stores.
    pub access: SmemAccess,
    /// What they cost.
    pub cost: Cost,
    _e: core::marker::PhantomData<fn() -> (E, X)>,
}

/// Shared memory in a given shared layout to registers (Triton's `local_load`), solved by
/// `convert!(Shared => Distributed, T)`.
#[derive(Clone, Copy, Debug)]
pub struct SharedLoad<E, const N: usize, X = Interpret> {
    /// The loads.
    pub access: SmemAccess,
    /// What they cost.
    pub cost: Cost,
    _e: core::marker::PhantomData<fn() -> (E, X)>,
}

/// How a [`SharedStore`] or [`SharedLoad`] runs (emitted code, or [`Interpret`]).
pub trait ExecuteAccess<E: Element, const N: usize> {
    /// Store `src` (this thread's registers) into shared memory.
    fn store<T: Thread>(a: &SmemAccess, t: &T, src: &[E; N]);
    /// Load this thread's registers from shared memory.
    fn load<T: Thread>(a: &SmemAccess, t: &T) -> [E; N];
}

impl<E: Element, const N: usize> ExecuteAccess<E, N> for Interpret {
    #[inline(always)]
    fn store<T: Thread>(a: &SmemAccess, t: &T, src: &[E; N]) {
        store_accesses(a, t, src, 0, a.reg_offsets.len());
    }
    #[inline(always)]
    fn load<T: Thread>(a: &SmemAccess, t: &T) -> [E; N] {
        let mut out = [E::default(); N];
        load_accesses(a, t, &mut out, 0, a.reg_offsets.len());
        out
    }
}

impl<E, const N: usize, X> SharedStore<E, N, X> {
    /// From solved tables (what `convert!` writes).
    pub const fn new(access: SmemAccess, cost: Cost) -> Self {
        SharedStore {
            access,
            cost,
            _e: core::marker::PhantomData,
        }
    }
}

impl<E: Element, const N: usize, X: ExecuteAccess<E, N>> SharedStore<E, N, X> {
    /// Store this thread's values (all threads of the CTA call it; a barrier must follow before
    /// other threads read).
    #[inline(always)]
    pub fn store<T: Thread>(&self, t: &T, src: &[E; N]) {
        X::store(&self.access, t, src)
    }
    /// The same tables, interpreted.
    pub const fn interpreted(&self) -> SharedStore<E, N, Interpret> {
        SharedStore::new(self.access, self.cost)
    }
}

impl<E, const N: usize, X> SharedLoad<E, N, X> {
    /// From solved tables (what `convert!` writes).
    pub const fn new(access: SmemAccess, cost: Cost) -> Self {
        SharedLoad {
            access,
            cost,
            _e: core::marker::PhantomData,
        }
    }
}

impl<E: Element, const N: usize, X: ExecuteAccess<E, N>> SharedLoad<E, N, X> {
    /// Load this thread's values.
    #[inline(always)]
    pub fn load<T: Thread>(&self, t: &T) -> [E; N] {
        X::load(&self.access, t)
    }
    /// The same tables, interpreted.
    pub const fn interpreted(&self) -> SharedLoad<E, N, Interpret> {
        SharedLoad::new(self.access, self.cost)
    }
}

#[inline(always)]
fn barrier<T: Thread, S: Storage>(p: &SharedPlan<S>, t: &T) {
    match p.barrier {
        Barrier::Warp => t.sync_warp(),
        Barrier::Block => t.sync_block(),
        Barrier::Cluster => t.sync_cluster(),
    }
}

/// How a [`Converter`] runs: by interpreting its tables ([`Interpret`], for plans built at run
/// time) or by the straight-line code `convert!` wrote for it.
pub trait Execute<E: Element, const NS: usize, const ND: usize> {
    /// Convert `src` (this thread's values in the source layout).
    fn execute<T: Thread>(plan: &Plan, t: &T, src: &[E; NS]) -> [E; ND];
}

/// Run the tables with [`convert`].
#[derive(Clone, Copy, Debug)]
pub struct Interpret;

impl<E: Element, const NS: usize, const ND: usize> Execute<E, NS, ND> for Interpret {
    #[inline(always)]
    fn execute<T: Thread>(plan: &Plan, t: &T, src: &[E; NS]) -> [E; ND] {
        convert(plan, t, src)
    }
}

/// `vals` (1 to 16 bytes of elements) as little-endian words, as a vector access stores them.
#[inline(always)]
pub fn pack<E: Element>(vals: &[E]) -> [u32; 4] {
    let mut w = [0u32; 4];
    let eb = E::BITS / 8;
    let mut k = 0;
    while k < vals.len() {
        let bits = vals[k].to_bits();
        let byte = k as u32 * eb;
        if eb == 8 {
            w[(byte / 4) as usize] = bits as u32;
            w[(byte / 4 + 1) as usize] = (bits >> 32) as u32;
        } else {
            w[(byte / 4) as usize] |= (bits as u32) << (8 * (byte % 4));
        }
        k += 1;
    }
    w
}

/// Element `k` of words loaded by a vector access.
#[inline(always)]
pub fn unpack<E: Element>(w: &[u32; 4], k: usize) -> E {
    let eb = E::BITS / 8;
    let byte = k as u32 * eb;
    let bits = if eb == 8 {
        (w[(byte / 4) as usize] as u64) | ((w[(byte / 4 + 1) as usize] as u64) << 32)
    } else {
        let x = w[(byte / 4) as usize] >> (8 * (byte % 4));
        (if eb == 4 {
            x
        } else {
            x & ((1u32 << (8 * eb)) - 1)
        }) as u64
    };
    E::from_bits(bits)
}

/// A conversion `convert!` solved at compile time for element type `E`: `NS` registers per
/// thread in, `ND` out. Its fields are consts, so `convert!(A => B, f32).cost.shuffles` can be
/// used in a `const`.
#[derive(Clone, Copy, Debug)]
pub struct Converter<E, const NS: usize, const ND: usize, X = Interpret> {
    /// The tables.
    pub plan: Plan,
    /// What it costs.
    pub cost: Cost,
    _e: core::marker::PhantomData<fn() -> (E, X)>,
}

impl<E, const NS: usize, const ND: usize, X> Converter<E, NS, ND, X> {
    /// A converter from solved tables (what `convert!` writes).
    pub const fn new(plan: Plan, cost: Cost) -> Self {
        Converter {
            plan,
            cost,
            _e: core::marker::PhantomData,
        }
    }
}

impl<E: Element, const NS: usize, const ND: usize, X: Execute<E, NS, ND>> Converter<E, NS, ND, X> {
    /// The values this thread holds in the destination layout, from those it holds in the
    /// source. Every thread of the CTA must call it (it may shuffle and synchronise), with
    /// [`Converter::shared_bytes`] of shared memory available to `t`.
    #[inline(always)]
    pub fn run<T: Thread>(&self, t: &T, src: &[E; NS]) -> [E; ND] {
        X::execute(&self.plan, t, src)
    }

    /// The same plan run by interpreting its tables (what tests compare the emitted code with).
    pub const fn interpreted(&self) -> Converter<E, NS, ND, Interpret> {
        Converter::new(self.plan, self.cost)
    }

    /// Scratch shared memory per CTA, in bytes.
    pub const fn shared_bytes(&self) -> u32 {
        self.cost.shared_bytes
    }
}
