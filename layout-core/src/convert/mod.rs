//! Conversion planning: how to move a tensor from one distributed layout to another, solved at
//! compile time as Triton does in `ConvertLayoutOpToLLVM`.
//!
//! [`plan_conversion`] computes Triton's minimal conversion (`dst.invertAndCompose(src)` with
//! the unchanged slow in-dims quotiented away) and picks: nothing, a register permutation, warp
//! shuffles (the decomposition P = P_mixed . P_lane . P_reg of Triton PR 7558, used when it has
//! fewer than two mixed transpositions, Triton's rule), or a shared-memory round trip (through
//! distributed shared memory and cluster barriers when data moves between CTAs). Every plan
//! is data ([`ConversionPlan`]); the `convert!` macro writes it as const tables and gpu-runtime
//! executes it. Shuffle plans are checked by executing them symbolically here before they are
//! returned.

mod bits;
mod shared;
mod shuffle;
mod swizzle;

use alloc::string::String;
use alloc::vec::Vec;

use crate::error::bail;
use crate::{LinearLayout, Result};

pub use bits::FlatLayout;
pub use shared::plan_shared_access;

/// The most 32-bit words a shuffle plan moves per thread: gpu-runtime's interpreter keeps them in
/// an array of this size (`gpu_runtime::convert::MAX_WORDS`, checked equal by a test). Larger
/// conversions go through shared memory.
pub const MAX_SHUFFLE_WORDS: usize = 512;

/// The strategy and cost types are gpu-runtime's, so that the consts `convert!` writes and
/// the plans layout-core returns are the same values.
pub use gpu_runtime::convert::{Barrier, Cost, Strategy};

/// The shuffle strategy's tables (see `gpu_runtime::convert::ShufflePlan`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShufflePlan {
    /// log2 elements per word; -1 for 64-bit elements.
    pub pack: i32,
    /// Work element -> source register.
    pub gather: Vec<u16>,
    /// `(word bit, lane bit)` transpositions.
    pub swaps: Vec<(u8, u8)>,
    /// Source-lane map bases (empty: identity).
    pub lane_map: Vec<u32>,
    /// The out-of-place form for one transposition.
    pub ship: bool,
    /// Destination register -> work element.
    pub scatter: Vec<u16>,
}

/// One side of a shared-memory round trip (see `gpu_runtime::convert::SmemAccess`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmemAccess {
    /// Elements per vector access.
    pub vec: u32,
    /// Registers in vector order.
    pub regs: Vec<u16>,
    /// Byte offset of each access from its register bits.
    pub reg_offsets: Vec<u32>,
    /// Byte offset of each lane bit.
    pub lane_bases: Vec<u32>,
    /// Byte offset of each warp bit.
    pub warp_bases: Vec<u32>,
    /// Address of each bit of the CTA's rank in its cluster (empty when it adds nothing).
    pub block_bases: Vec<u32>,
    /// Lane bits of threads that hold copies and do not store.
    pub lane_skip: u32,
    /// Warp bits of warps that hold copies and do not store.
    pub warp_skip: u32,
    /// Addresses name CTAs of the cluster (`byte offset | cta << CTA_SHIFT`): distributed shared
    /// memory.
    pub remote: bool,
    /// 0: `ld/st.shared` of `vec` elements; 1: `ldmatrix`/`stmatrix` `.x4` (8 registers per
    /// access, `lane_bases` the row-address function); 2: the same `.trans`.
    pub matrix: u8,
}

/// The shared-memory strategy's tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedPlan {
    /// Stores of the source registers.
    pub store: SmemAccess,
    /// Loads of the destination registers.
    pub load: SmemAccess,
    /// The barrier between stores and loads (a cluster barrier also ends the conversion).
    pub barrier: Barrier,
    /// Sequential rounds (Triton's reps): each moves an equal share of the accesses through a
    /// scratch buffer that many times smaller.
    pub rounds: u32,
    /// The shared-memory layout used: offset (then round) and block -> tensor coordinates.
    pub smem: LinearLayout,
}

/// The data movement of a plan.
// A plan is made once per `convert!` at compile time and read whole; boxing the larger variant
// would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanBody {
    /// `dst[i] = src[perm[i]]`.
    Registers(Vec<u16>),
    /// Warp shuffles.
    Shuffles(ShufflePlan),
    /// Shared memory.
    Shared(SharedPlan),
}

/// A solved conversion: what it costs and how it moves data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConversionPlan {
    /// The cost, public as consts by `convert!`.
    pub cost: Cost,
    /// The tables.
    pub body: PlanBody,
    /// Registers per thread in the source and destination layouts.
    pub src_regs: usize,
    /// Registers per thread in the destination.
    pub dst_regs: usize,
}

/// Which strategy to use: the cheapest (as Triton decides), or forced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Force {
    /// Triton's choice.
    #[default]
    Auto,
    /// Shuffles where the conversion stays within warps and is a permutation of bits.
    Shuffles,
    /// Always shared memory (unless nothing or registers suffice).
    SharedMemory,
}

/// Triton's `minimalCvtLayout`: `dst.invertAndCompose(src)`, then the slow in-dims (block, warp,
/// lane, register) quotiented away while they map identically.
pub fn minimal_cvt_layout(src: &LinearLayout, dst: &LinearLayout) -> Result<LinearLayout> {
    let mut comp = dst.invert_and_compose(src)?;
    for d in ["block", "warp", "lane", "register"] {
        if !comp.has_in_dim(d) {
            continue;
        }
        match comp.quotient(&[d]) {
            Some(q) => comp = q,
            None => break,
        }
    }
    Ok(comp)
}

/// Plan the conversion of `elem_bits`-bit elements from `src` to `dst` (distributed layouts of
/// the same tensor, in-dims `register, lane, warp, block`).
pub fn plan_conversion(
    src: &LinearLayout,
    dst: &LinearLayout,
    elem_bits: u32,
    force: Force,
) -> Result<ConversionPlan> {
    if !matches!(elem_bits, 8 | 16 | 32 | 64) {
        bail!(
            "element size {} bits is not supported: use 8, 16, 32 or 64-bit elements",
            elem_bits
        );
    }
    if src.out_dims() != dst.out_dims() {
        bail!(
            "the layouts cover different tensors: {:?} and {:?}; a conversion keeps the shape",
            src.out_dims(),
            dst.out_dims()
        );
    }
    for (l, which) in [(src, "source"), (dst, "destination")] {
        if l.has_in_dim("offset") || !l.has_in_dim("register") {
            bail!(
                "the {} is not a distributed layout (in-dims register, lane, warp, block)",
                which
            );
        }
    }
    let s = FlatLayout::new(src)?;
    let t = FlatLayout::new(dst)?;
    if s.lane.len() != t.lane.len() {
        bail!(
            "the layouts have different warp sizes ({} and {} lanes)",
            1u32 << s.lane.len(),
            1u32 << t.lane.len()
        );
    }
    if s.warp.len() != t.warp.len() {
        bail!(
            "the layouts use different numbers of warps ({} and {})",
            1u32 << s.warp.len(),
            1u32 << t.warp.len()
        );
    }
    if s.block.len() != t.block.len() {
        bail!(
            "the layouts span different numbers of CTAs ({} and {}); a conversion stays within a cluster of one size",
            1u32 << s.block.len(),
            1u32 << t.block.len()
        );
    }
    let cvt = minimal_cvt_layout(src, dst)?;
    let dims: Vec<String> = cvt.in_dim_names().map(String::from).collect();
    let has = |d: &str| dims.iter().any(|x| x == d);
    let (src_regs, dst_regs) = (1usize << s.reg.len(), 1usize << t.reg.len());
    let done = |cost: Cost, body: PlanBody| ConversionPlan {
        cost,
        body,
        src_regs,
        dst_regs,
    };
    // Data that moves between CTAs goes through distributed shared memory.
    if !has("block") && !has("warp") && !has("lane") {
        let perm = register_permutation(&s, &t)?;
        let strategy = if !has("register") && src_regs == dst_regs {
            Strategy::Nothing
        } else {
            Strategy::Registers
        };
        return Ok(done(Cost::of(strategy), PlanBody::Registers(perm)));
    }
    if !has("block") && !has("warp") && force != Force::SharedMemory {
        if let Some((p, cost)) = shuffle::plan(&s, &t, elem_bits, force == Force::Shuffles)? {
            return Ok(done(cost, PlanBody::Shuffles(p)));
        }
    }
    let (p, cost) = shared::plan(src, dst, &s, &t, elem_bits, has("warp") || has("block"))?;
    Ok(done(cost, PlanBody::Shared(p)))
}

/// `dst[i] = src[perm[i]]` when no data crosses threads.
fn register_permutation(s: &FlatLayout, t: &FlatLayout) -> Result<Vec<u16>> {
    let span = bits::Span::new(&s.reg);
    (0..1usize << t.reg.len())
        .map(|i| {
            let e = bits::combine(&t.reg, i as u64);
            match span.express(e) {
                Some(m) => Ok(m as u16),
                None => bail!(
                    "internal: destination register {} is not held by the source thread",
                    i
                ),
            }
        })
        .collect()
}
