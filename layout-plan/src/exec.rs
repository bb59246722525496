//! How a plan runs over a [`Machine`]: [`crate::walk`]'s executor, generic over the machine.
//! What the operations *mean* is the machine's:
//!
//! * the runtime's interpreter computes them on values (`gpu-runtime`);
//! * `convert!`'s code generator writes each as a statement, so the plan becomes straight-line
//!   code (`layout-macros`);
//! * the planner's symbolic check runs them on a whole warp of element ids and counts them,
//!   which is where a shuffle plan's cost comes from (`layout-core`).
//!
//! The control flow depends only on the plan, never on data, so a machine may evaluate every
//! lane at once or emit code instead of running it.

use crate::ir::{Padding, Storage};

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

/// A [`Map`] of a plan's bases in storage `S` (its terms, where the storage keeps them).
macro_rules! storage_map {
    ($e:expr) => {
        S::map(&$e)
    };
}

crate::walk::executor!(
    qual: [],
    machine: [<M: Machine>],
    plans: [<M: Machine, S: Storage>],
    shared: [<M: SharedMachine, S: Storage>],
    m: M, s: S, word: M::Word, int: M::Int, zero: M::Word::default(), map: storage_map,
    each: each, vis: pub
);

/// The words a shuffle plan moves: `(elements per word, words)`.
#[inline(always)]
pub fn shuffle_words<S: Storage>(p: &ShufflePlan<S>) -> (usize, usize) {
    packed_words(p.gather.len(), p.pack)
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
    store_loop!(m, s, |at, v, addr| each(m, v, addr));
}
