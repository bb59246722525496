//! # layout-plan
//!
//! The vocabulary that the conversion planner (`layout-core`, on the host and in the proc macros)
//! and the runtime (`gpu-runtime`, on the GPU and the simulator) share, and nothing else: a
//! change to either side's code does not touch this crate, so it does not rebuild the other.
//!
//! * [`ir`]: a solved conversion as data ([`Plan`]): register permutations, shuffle tables,
//!   shared-memory accesses with their instruction ([`Instr`]), barrier kinds. Its slices are
//!   generic over a [`Storage`]: `Vec`s where the planner builds a plan at run time, `&'static`
//!   slices where `convert!` wrote it as consts; the runtime executes either.
//! * [`banks`]: how many wavefronts a shared-memory access takes (Nsight Compute's count).
//! * [`cost`]: what a plan costs ([`Cost`], [`Strategy`], [`Barrier`]).
//! * [`exec`]: how a plan runs, written once over a [`exec::Machine`]: the interpreter computes
//!   its operations, `convert!` writes them as code, the planner checks and counts them.
//! * [`target`]: what the hardware offers the planner ([`Target`]: lanes per warp, shared-memory
//!   banks, matrix instructions, cluster memory).
//! * The address encoding of distributed shared memory ([`CTA_SHIFT`], [`OFFSET_MASK`]) and the
//!   planner's limits ([`MAX_SHUFFLE_WORDS`]).
//!
//! `no_std`, no `alloc`: it builds for every GPU target.
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod banks;
pub mod cost;
pub mod exec;
pub mod ir;
pub mod target;

pub use cost::{Barrier, Cost, Strategy};
pub use ir::{
    pad_address, padding_of, GatherPlan, Instr, Padding, Plan, SharedPlan, ShufflePlan, SmemAccess,
    Static, Storage, NO_PADDING,
};
pub use target::{Isa, MatrixOps, Target};

/// Where the CTA of a distributed shared-memory address sits: `byte offset | cta << CTA_SHIFT`
/// (shared memory per CTA is under 2^18 bytes on every NVIDIA GPU). Linear like the offset, so
/// the same XOR tables carry both.
pub const CTA_SHIFT: u32 = 24;

/// The byte-offset part of an address (below [`CTA_SHIFT`]).
pub const OFFSET_MASK: u32 = (1 << CTA_SHIFT) - 1;

/// The most 32-bit words a shuffle plan moves per thread: the runtime's interpreter keeps them in
/// an array of this size, and the planner sends larger conversions through shared memory.
pub const MAX_SHUFFLE_WORDS: usize = 512;
