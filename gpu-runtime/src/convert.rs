//! Executing a layout conversion plan. `convert!` solves the plan at compile time (in layout-core)
//! and writes it as const tables; [`convert`] is `#[inline(always)]` over those tables, so after
//! constant propagation what remains is the register moves, selects, shuffles and shared-memory
//! accesses themselves. Tests build the same tables at run time from random layouts and run them
//! on the simulator.

use crate::element::Element;
use crate::thread::{select, Thread};

pub use layout_plan::ir::{
    GatherPlan, Instr, Plan, SharedPlan, ShufflePlan, SmemAccess, Static, Storage,
};
pub use layout_plan::{Barrier, Cost, Strategy, CTA_SHIFT, MAX_SHUFFLE_WORDS, OFFSET_MASK};

use layout_plan::exec::{self, Machine, SharedMachine};
use layout_plan::linear::{self, Map};

/// One thread running a plan on values: `src` in the source layout, `dst` filled in the
/// destination layout. The one meaning of each operation on a thread: the executor's walks of a
/// plan call it, and so does the replay of a recorded tape (`replay`).
pub(crate) struct Values<'a, E, T> {
    t: &'a T,
    src: &'a [E],
    dst: &'a mut [E],
    /// Whether stores take effect ([`SharedMachine::begin_if`]'s condition).
    active: bool,
}

impl<'a, E, T> Values<'a, E, T> {
    #[inline(always)]
    pub(crate) fn new(t: &'a T, src: &'a [E], dst: &'a mut [E]) -> Self {
        Values {
            t,
            src,
            dst,
            active: true,
        }
    }
}

/// The XOR of each map on its integer ([`Map::xor_into`]). A plan has at most three maps in one sum (lane, warp,
/// CTA), each written out: a loop over them would read the maps from the stack, so their terms
/// would not fold.
#[inline(always)]
fn sum(maps: &[(Map<'_>, u32)]) -> u32 {
    let n = maps.len();
    let terms = |i: usize| {
        if i < n {
            maps[i].0.terms()
        } else {
            &linear::NO_TERMS
        }
    };
    // Three maps at most carry terms (lane, warp, CTA); later ones are read by their bases.
    let disjoint = linear::disjoint(terms(0), terms(1), terms(2));
    let mut r = 0;
    if n > 0 {
        r = maps[0].0.join_into(r, maps[0].1, disjoint);
    }
    if n > 1 {
        r = maps[1].0.join_into(r, maps[1].1, disjoint);
    }
    if n > 2 {
        r = maps[2].0.join_into(r, maps[2].1, disjoint);
    }
    let mut i = 3;
    while i < n {
        r = maps[i].0.xor_into(r, maps[i].1);
        i += 1;
    }
    r
}

/// The low `bits` of `x`.
#[inline(always)]
fn low(x: u32, bits: u32) -> u32 {
    if bits >= 32 {
        x
    } else {
        x & ((1u32 << bits) - 1)
    }
}

impl<E: Element, T: Thread> Machine for Values<'_, E, T> {
    type Word = u32;
    type Int = u32;
    type Bool = bool;

    #[inline(always)]
    fn elem_bits(&self) -> u32 {
        E::BITS
    }
    #[inline(always)]
    fn mov(&mut self, dst: u16, src: u16) {
        self.dst[dst as usize] = self.src[src as usize];
    }
    #[inline(always)]
    fn copy(&mut self, dst: u16, from: u16) {
        self.dst[dst as usize] = self.dst[from as usize];
    }
    #[inline(always)]
    fn pack(&mut self, regs: &[u16], part: u32) -> u32 {
        let mut vals = [E::default(); 4];
        let mut k = 0;
        while k < regs.len() {
            vals[k] = self.src[regs[k] as usize];
            k += 1;
        }
        word(&vals, regs.len(), part)
    }
    #[inline(always)]
    fn unpack(&mut self, dst: u16, w: u32, k: u32) {
        self.dst[dst as usize] = field(w, k);
    }
    #[inline(always)]
    fn shift_down(&mut self, w: u32, k: u32) -> u32 {
        w >> (k * E::BITS)
    }
    #[inline(always)]
    fn unpack_pair(&mut self, dst: u16, lo: u32, hi: u32) {
        self.dst[dst as usize] = join(lo, hi);
    }
    #[inline(always)]
    fn lane(&mut self) -> u32 {
        self.t.lane()
    }
    #[inline(always)]
    fn warp(&mut self) -> u32 {
        self.t.warp()
    }
    #[inline(always)]
    fn bit(&mut self, x: u32, bit: u32) -> bool {
        // The comparison `convert!` writes, so that LLVM starts from the same one.
        (x >> bit) & 1 != 0
    }
    #[inline(always)]
    fn xor(&mut self, x: u32, mask: u32) -> u32 {
        x ^ mask
    }
    #[inline(always)]
    fn linear(&mut self, maps: &[(Map<'_>, u32)]) -> u32 {
        sum(maps)
    }
    #[inline(always)]
    fn select(&mut self, c: bool, a: u32, b: u32) -> u32 {
        select(c, a, b)
    }
    #[inline(always)]
    fn shfl_xor(&mut self, w: u32, mask: u32) -> u32 {
        self.t.shfl_xor(w, mask)
    }
    #[inline(always)]
    fn shfl_idx(&mut self, w: u32, src: u32) -> u32 {
        self.t.shfl_idx(w, src)
    }
}

#[allow(unsafe_code)]
impl<E: Element, T: Thread> SharedMachine for Values<'_, E, T> {
    #[inline(always)]
    fn cta_rank(&mut self) -> u32 {
        self.t.cta_rank()
    }
    #[inline(always)]
    fn owner(&mut self, lane: u32, warp: u32, lane_skip: u32, warp_skip: u32) -> bool {
        lane & lane_skip == 0 && warp & warp_skip == 0
    }
    #[inline(always)]
    fn begin_if(&mut self, c: bool) {
        self.active = c;
    }
    #[inline(always)]
    fn end_if(&mut self) {
        self.active = true;
    }
    #[inline(always)]
    fn pad(&mut self, addr: u32, padding: layout_plan::Padding) -> u32 {
        layout_plan::pad_address(addr, &padding)
    }
    #[inline(always)]
    fn st_shared(&mut self, remote: bool, addr: u32, bytes: u32, words: [u32; 4]) {
        if self.active {
            // SAFETY: the plan's address (see `st_at`).
            unsafe { st_at(self.t, remote, addr, bytes, words) }
        }
    }
    #[inline(always)]
    fn ld_shared(&mut self, remote: bool, addr: u32, bytes: u32) -> [u32; 4] {
        // SAFETY: the plan's address (see `st_at`).
        unsafe { ld_at(self.t, remote, addr, bytes) }
    }
    #[inline(always)]
    fn stmatrix(&mut self, count: u8, addr: u32, trans: bool, words: [u32; 4]) {
        if self.active {
            // SAFETY: the plan's address (see `st_at`).
            unsafe { self.t.stmatrix(count as u32, addr, trans, words) }
        }
    }
    #[inline(always)]
    fn ldmatrix(&mut self, count: u8, addr: u32, trans: bool) -> [u32; 4] {
        // SAFETY: the plan's address (see `st_at`).
        unsafe { self.t.ldmatrix(count as u32, addr, trans) }
    }
    #[inline(always)]
    fn barrier(&mut self, b: Barrier) {
        match b {
            Barrier::Warp => self.t.sync_warp(),
            Barrier::Block => self.t.sync_block(),
            Barrier::Cluster => self.t.sync_cluster(),
        }
    }
    #[inline(always)]
    fn scratch_write_begin(&mut self) {
        self.t.scratch_write_begin()
    }
    #[inline(always)]
    fn scratch_reads_pending(&mut self) {
        self.t.scratch_reads_pending()
    }
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
    exec::run(&mut Values::new(t, src, dst), plan)
}

/// Store this thread's registers `src` by the accesses of `s` (threads holding copies skip).
#[inline(always)]
pub fn store_access<E: Element, T: Thread, S: Storage>(s: &SmemAccess<S>, t: &T, src: &[E]) {
    exec::store(&mut Values::new(t, src, &mut []), s)
}

/// `each(v, byte address)` for every access `v` of `s` this thread stores (see
/// [`exec::store_addresses`]): where a store of `s` would write.
#[inline(always)]
pub fn store_addresses<T: Thread, S: Storage>(
    s: &SmemAccess<S>,
    t: &T,
    mut each: impl FnMut(usize, u32),
) {
    let mut m = Values::<u8, T>::new(t, &[], &mut []);
    exec::store_addresses(&mut m, s, |m, v, addr| {
        if m.active {
            each(v, addr)
        }
    })
}

/// Load this thread's registers `dst` by the accesses of `l`.
#[inline(always)]
pub fn load_access<E: Element, T: Thread, S: Storage>(l: &SmemAccess<S>, t: &T, dst: &mut [E]) {
    exec::load(&mut Values::new(t, &[], dst), l)
}

/// `st.shared` at `addr`, or into another CTA's shared memory for a remote access.
///
/// # Safety
/// [`Thread`]'s shared-memory contract for the bytes at `addr`. A plan's addresses keep it:
/// they lie inside its scratch (`cost.shared_bytes`, which the kernel's `shared` bytes must
/// cover) and its barriers order every access; the simulator checks both.
#[inline(always)]
#[allow(unsafe_code)]
pub unsafe fn st_at<T: Thread>(t: &T, remote: bool, addr: u32, bytes: u32, words: [u32; 4]) {
    // SAFETY: the caller's promise.
    unsafe {
        if remote {
            t.st_shared_cluster(addr >> CTA_SHIFT, addr & OFFSET_MASK, bytes, words)
        } else {
            t.st_shared(addr, bytes, words)
        }
    }
}

/// `ld.shared` at `addr`, or from another CTA's shared memory for a remote access.
///
/// # Safety
/// As [`st_at`].
#[inline(always)]
#[allow(unsafe_code)]
pub unsafe fn ld_at<T: Thread>(t: &T, remote: bool, addr: u32, bytes: u32) -> [u32; 4] {
    // SAFETY: the caller's promise.
    unsafe {
        if remote {
            t.ld_shared_cluster(addr >> CTA_SHIFT, addr & OFFSET_MASK, bytes)
        } else {
            t.ld_shared(addr, bytes)
        }
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
        store_access(a, t, src);
    }
    #[inline(always)]
    fn load<T: Thread>(a: &SmemAccess, t: &T) -> [E; N] {
        let mut out = [E::default(); N];
        load_access(a, t, &mut out);
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
        fits_declared::<T>(self.cost.shared_bytes);
        X::store(&self.access, t, src)
    }
    /// The same tables, interpreted.
    pub const fn interpreted(&self) -> SharedStore<E, N, Interpret> {
        SharedStore::new(self.access, self.cost)
    }
}

/// A trap (a panic on the simulator) unless a shared layout of `bytes` fits the shared memory
/// `T` declares (the kernel's, or a [`SharedWindow`](crate::SharedWindow)'s): the tables'
/// addresses stay inside it. The tables are consts, so this folds away where it holds.
#[inline(always)]
pub(crate) fn fits_declared<T: Thread>(bytes: u32) {
    assert!(
        crate::thread::declares_at_least(T::SHARED_BYTES, bytes),
        "a shared layout larger than the kernel's shared memory (or its SharedWindow's)"
    );
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
        fits_declared::<T>(self.cost.shared_bytes);
        X::load(&self.access, t)
    }
    /// The same tables, interpreted.
    pub const fn interpreted(&self) -> SharedLoad<E, N, Interpret> {
        SharedLoad::new(self.access, self.cost)
    }
}

/// How a [`Converter`] runs, and where its tables are: a [`Plan`] is interpreted (plans built
/// at run time); `convert!` writes a zero-sized type whose `execute` is the straight-line code
/// and whose `plan` returns the tables. A converter's value is then its cost alone, so a kernel
/// never carries the tables (SPIR-V has no pointers in constants, and the GPU needs none).
pub trait Execute<E: Element, const NS: usize, const ND: usize>: Copy + Sync {
    /// Convert `src` (this thread's values in the source layout) as `c` says.
    fn execute<T: Thread>(c: &Converter<E, NS, ND, Self>, t: &T, src: &[E; NS]) -> [E; ND];
    /// `c`'s tables.
    fn plan(c: &Converter<E, NS, ND, Self>) -> Plan;
}

/// Run the tables with [`convert`].
#[derive(Clone, Copy, Debug)]
pub struct Interpret;

impl<E: Element, const NS: usize, const ND: usize> Execute<E, NS, ND> for Plan {
    #[inline(always)]
    fn execute<T: Thread>(c: &Converter<E, NS, ND, Self>, t: &T, src: &[E; NS]) -> [E; ND] {
        convert(&c.exec, t, src)
    }
    fn plan(c: &Converter<E, NS, ND, Self>) -> Plan {
        c.exec
    }
}

/// The word that holds the first `count` of `vals` (at most `32 / E::BITS`, the first lowest),
/// or half `part` (0 low, 1 high) of a 64-bit element: how registers sit in the 32-bit words
/// that shuffles and shared-memory accesses move. An array and a count, not a slice: SPIR-V
/// cannot make slices of arrays.
#[inline(always)]
pub fn word<E: Element, const N: usize>(vals: &[E; N], count: usize, part: u32) -> u32 {
    if E::BITS == 64 {
        return (vals[0].to_bits() >> (32 * part)) as u32;
    }
    let mut w = 0;
    let mut k = 0;
    while k < count {
        w |= low(vals[k].to_bits() as u32, E::BITS) << (k as u32 * E::BITS);
        k += 1;
    }
    w
}

/// Element `k` of a word (its `k`-th `E::BITS` field).
#[inline(always)]
pub fn field<E: Element>(w: u32, k: u32) -> E {
    E::from_bits(low(w >> (k * E::BITS), E::BITS) as u64)
}

/// The 64-bit element with halves `lo` and `hi`.
#[inline(always)]
pub fn join<E: Element>(lo: u32, hi: u32) -> E {
    E::from_bits(lo as u64 | (hi as u64) << 32)
}

/// A conversion `convert!` solved at compile time for element type `E`: `NS` registers per
/// thread in, `ND` out, run by `X` (the emitted code, or a [`Plan`] interpreted). Its cost is a
/// const, so `convert!(A => B, f32).cost.shuffles` can be used in a `const`.
#[derive(Clone, Copy, Debug)]
pub struct Converter<E, const NS: usize, const ND: usize, X = Plan> {
    /// What it costs.
    pub cost: Cost,
    exec: X,
    _e: core::marker::PhantomData<fn() -> E>,
}

impl<E, const NS: usize, const ND: usize, X> Converter<E, NS, ND, X> {
    /// A converter run by `exec` (what `convert!` writes; a [`Plan`] to interpret one).
    pub const fn new(exec: X, cost: Cost) -> Self {
        Converter {
            cost,
            exec,
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
        X::execute(self, t, src)
    }

    /// The tables.
    pub fn plan(&self) -> Plan {
        X::plan(self)
    }

    /// The same plan run by interpreting its tables (what tests compare the emitted code with).
    pub fn interpreted(&self) -> Converter<E, NS, ND, Plan> {
        Converter::new(self.plan(), self.cost)
    }

    /// Scratch shared memory per CTA, in bytes.
    pub const fn shared_bytes(&self) -> u32 {
        self.cost.shared_bytes
    }
}
