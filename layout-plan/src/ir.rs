//! A solved conversion as data: the one description that the planner produces and that the
//! runtime's interpreter, the simulator and `convert!`'s code generator consume.
//!
//! The slices of a plan are generic over a [`Storage`]: the planner builds plans in `Vec`s (its
//! own storage type), `convert!` writes them as `&'static` consts ([`Static`]), and the runtime
//! executes any storage, so no plan is copied from one form to the other.

use core::fmt::Debug;
use core::ops::Deref;

use crate::cost::Barrier;
use crate::linear::{Map, Term, SHORT_TERMS};

/// Where a plan's tables live: a family of slice types.
pub trait Storage {
    /// A list of `T`, read as a slice.
    type List<T: Copy + Debug + Eq + 'static>: Deref<Target = [T]> + Clone + Debug + Eq;
    /// The bases of a map from a lane, warp or CTA index to an integer (a source lane, an
    /// address): at most 32, one per bit of the index.
    type Bases: Deref<Target = [u32]> + Clone + Debug + Eq;

    /// The terms of `b` ([`crate::linear::terms_of`]), where this storage keeps them.
    fn terms(b: &Self::Bases) -> Option<&[Term; SHORT_TERMS]> {
        let _ = b;
        None
    }

    /// `b` as a machine reads it.
    fn map(b: &Self::Bases) -> Map<'_> {
        Map {
            bases: b,
            terms: Self::terms(b),
        }
    }
}

/// Tables as slices borrowed for `'a`: a view of another storage's plan (the const planner's,
/// which it records to count what the executor issues), or [`Static`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Borrowed<'a>(core::marker::PhantomData<&'a ()>);

impl<'a> Storage for Borrowed<'a> {
    type List<T: Copy + Debug + Eq + 'static> = &'a [T];
    type Bases = &'a [u32];
}

/// Tables as `&'static` slices: what `convert!` writes into a kernel.
pub type Static = Borrowed<'static>;

/// The instruction of a shared-memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Instr {
    /// `ld.shared` / `st.shared` of `vec` elements (1, 2, 4, 8 or 16 bytes).
    Vector,
    /// `ldmatrix` / `stmatrix` `.x{count}` (`.trans` when `trans`): `count` 8x8 matrices of
    /// 16-bit halves, 8 registers per x4 access; the side's `lane_bases` are the address
    /// function of the lane that supplies a row address.
    Matrix {
        /// Matrices per instruction: 1, 2 or 4.
        count: u8,
        /// Transposed (16-bit elements only).
        trans: bool,
    },
    /// AMD's transposed LDS read (`ds_read_b64_tr_b16` and kin), a load: each lane reads the
    /// `vec` contiguous elements at its address (a row), and lane `l` receives, as its `k`-th
    /// element, element `l % vec` of the row lane `src(l, k)` read: the XOR of `lane_src[b]`
    /// over the set bits `b` of `l` and of `reg_src[c]` over those of `k`. No transposed store
    /// exists; a store with it (which the planner never makes) writes each element where the
    /// load would read it, one at a time.
    TransRead {
        /// The source-lane bits each lane bit contributes (0 for the bits that pick the element).
        lane_src: [u8; 6],
        /// The source-lane bits each bit of the element index `k` contributes.
        reg_src: [u8; 3],
    },
}

impl Instr {
    /// The source lane of element `k` of a [`Instr::TransRead`] from lane bits `l` (0 for other
    /// instructions).
    pub const fn trans_source(&self, l: u32, k: u32) -> u32 {
        let Instr::TransRead { lane_src, reg_src } = self else {
            return 0;
        };
        let mut s = 0u32;
        let mut b = 0;
        while b < 6 {
            if (l >> b) & 1 == 1 {
                s ^= lane_src[b] as u32;
            }
            if b < 3 && (k >> b) & 1 == 1 {
                s ^= reg_src[b] as u32;
            }
            b += 1;
        }
        s
    }
}

/// The shuffle strategy's tables. Work registers hold the source's distinct elements; they are
/// packed `2^pack` per 32-bit word (or split in two words for 64-bit elements, `pack = -1`).
/// Stage 1 swaps words by lane bits, stage 2 shuffles, stage 3 swaps again (or, with `ship`, one
/// select, one shuffle and two selects per pair of words).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShufflePlan<S: Storage = Static> {
    /// log2 of elements per 32-bit word; -1 for 64-bit elements (two words each).
    pub pack: i32,
    /// Work element `e` is source register `gather[e]`.
    pub gather: S::List<u16>,
    /// Transpositions `(word bit, lane bit)`.
    pub swaps: S::List<(u8, u8)>,
    /// Lane permutation: the source lane of lane `L` is the XOR of `lane_map[b]` over the set
    /// bits `b` of `L`; empty when it is the identity.
    pub lane_map: S::Bases,
    /// One transposition, no lane permutation: the out-of-place "ship" form.
    pub ship: bool,
    /// Destination register `i` is work element `scatter[i]` after the exchange.
    pub scatter: S::List<u16>,
}

/// Shuffles where several lanes read the same source: the destination holds copies (or the source
/// is broadcast over warps, so each warp holds what its threads need). Each round, every lane
/// sends one word and reads the word of lane `base ^ offset`, `base` a linear function of its lane
/// and warp; a destination register whose source register depends on the lane or warp reads
/// every candidate and keeps, by selects, the one its own bits choose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GatherPlan<S: Storage = Static> {
    /// log2 elements per 32-bit word; -1 for 64-bit elements (two words each).
    pub pack: i32,
    /// Word `w` packs source registers `words[w << pack ..][..1 << pack]` (64-bit: `words[w]`).
    pub words: S::List<u16>,
    /// The lane read from, before a round's offset: the XOR of `lane_map[b]` over the set bits
    /// `b` of the lane and of `warp_map[b]` over those of the warp.
    pub lane_map: S::Bases,
    /// See `lane_map`.
    pub warp_map: S::Bases,
    /// Rounds: `(word sent, lane offset)`.
    pub rounds: S::List<(u16, u32)>,
    /// The candidate index: bit `j` of the XOR of `sel_lane[b]` over the set bits of the lane and
    /// `sel_warp[b]` over those of the warp.
    pub sel_lane: S::Bases,
    /// See `sel_lane`.
    pub sel_warp: S::Bases,
    /// log2 candidates per destination register.
    pub choices: u8,
    /// Destination register `i` is element `pos[i << choices | c]` of the word of round
    /// `pick[i << choices | c]`, `c` the candidate index.
    pub pick: S::List<u16>,
    /// See `pick`.
    pub pos: S::List<u8>,
}

/// One side of a shared-memory round trip (or a store to / load from a shared layout).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmemAccess<S: Storage = Static> {
    /// Elements per access.
    pub vec: u32,
    /// Registers in access order: access `v` moves registers `regs[v*vec .. (v+1)*vec]` (for a
    /// matrix access, element `k` of word `q` is `regs[vec v + (vec / 4) q + k]`).
    pub regs: S::List<u16>,
    /// Address of access `v` contributed by the register bits.
    pub reg_offsets: S::List<u32>,
    /// Address contributed by each lane bit.
    pub lane_bases: S::Bases,
    /// Address contributed by each warp bit.
    pub warp_bases: S::Bases,
    /// Address contributed by each bit of the CTA's rank in its cluster (empty: none).
    pub block_bases: S::Bases,
    /// Registers with these bits set hold copies: a store leaves them out, a load fills them
    /// after its accesses from the register with these bits clear.
    pub reg_skip: u32,
    /// Lanes with these bits set hold copies and do not store (0 for loads).
    pub lane_skip: u32,
    /// Warps with these bits set do not store.
    pub warp_skip: u32,
    /// Whether addresses name other CTAs of the cluster: an address is then
    /// `byte offset | cta << CTA_SHIFT`, and accesses go through distributed shared memory.
    pub remote: bool,
    /// The instruction.
    pub instr: Instr,
    /// A padded layout's padding (Triton's `#ttg.padded_shared`): `(log2 interval, log2 pad)` in
    /// bytes, `(0, 0)` where unused; see [`pad_address`].
    pub padding: Padding,
}

/// Up to four `(log2 interval, log2 pad)` pairs in bytes; `(0, 0)` is no padding.
pub type Padding = [(u8, u8); 4];

/// No padding.
pub const NO_PADDING: Padding = [(0, 0); 4];

/// `(interval, pad)` pairs (powers of two, in elements) as a [`Padding`] in units of `2^unit_log2`
/// (bytes per element for byte addresses, 0 for element offsets); pairs past four are ignored.
pub const fn padding_of(pairs: &[(u32, u32)], unit_log2: u32) -> Padding {
    let mut out = NO_PADDING;
    let mut k = 0;
    while k < pairs.len() && k < out.len() {
        let (i, p) = pairs[k];
        out[k] = (
            (i.trailing_zeros() + unit_log2) as u8,
            (p.trailing_zeros() + unit_log2) as u8,
        );
        k += 1;
    }
    out
}

/// The byte address of linear offset `addr` (bytes) in a padded buffer: after every `interval`
/// bytes come `pad` bytes of padding, for each pair (Triton's `paddedLinearLayout`).
#[inline(always)]
pub const fn pad_address(addr: u32, padding: &Padding) -> u32 {
    let mut out = addr;
    let mut i = 0;
    while i < padding.len() {
        let (li, lp) = padding[i];
        if li != 0 || lp != 0 {
            out += (addr >> li) << lp;
        }
        i += 1;
    }
    out
}

/// The shared-memory strategy's tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedPlan<S: Storage = Static> {
    /// How source registers are stored.
    pub store: SmemAccess<S>,
    /// How destination registers are loaded.
    pub load: SmemAccess<S>,
    /// The barrier between stores and loads (and between rounds).
    pub barrier: Barrier,
    /// Sequential rounds (Triton's reps): round `r` stores and loads the `r`-th equal share of
    /// each side's accesses through a scratch buffer that many times smaller.
    pub rounds: u32,
}

/// How a conversion moves data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Plan<S: Storage = Static> {
    /// `dst[i] = src[perm[i]]`.
    Registers(S::List<u16>),
    /// Warp shuffles.
    Shuffles(ShufflePlan<S>),
    /// Warp shuffles that several lanes read alike.
    Gather(GatherPlan<S>),
    /// Shared memory.
    Shared(SharedPlan<S>),
}

impl Copy for ShufflePlan<Borrowed<'_>> {}
impl Copy for GatherPlan<Borrowed<'_>> {}
impl Copy for SmemAccess<Borrowed<'_>> {}
impl Copy for SharedPlan<Borrowed<'_>> {}
impl Copy for Plan<Borrowed<'_>> {}
