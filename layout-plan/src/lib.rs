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
//! * [`msg`]: messages with numbers built in a const ([`msg::Msg`]), for errors of plans made there.
//! * [`target`]: what the hardware offers the planner ([`Target`]: lanes per warp, shared-memory
//!   banks, matrix instructions, cluster memory).
//! * The address encoding of distributed shared memory ([`CTA_SHIFT`], [`OFFSET_MASK`]) and the
//!   planner's limits ([`MAX_SHUFFLE_WORDS`]).
//!
//! `no_std`, no `alloc`: it builds for every GPU target.
#![no_std]
#![deny(unsafe_code)]
#![warn(missing_docs)]

/// `each!(n, |i| body)`: `body` for `i` = 0 .. `n`, in order. In optimised builds the first
/// iterations are written out as arms guarded by `i < n` (128, 16 with `small`, 8 with `few`:
/// each arm is compiled before `n` folds, so nested uses take fewer), a loop after: when a plan is a const (a generic conversion), `n` and every table entry an arm
/// reads fold to constants, so each register index is a constant and the registers stay in
/// registers, as in `convert!`'s emitted code. Debug builds loop, in the same order.
macro_rules! each {
    ($n:expr, |$i:ident| $body:expr) => {
        each!(@with $n, $i, $body;
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
            32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
            64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95
            96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120 121 122 123 124 125 126 127)
    };
    (small $n:expr, |$i:ident| $body:expr) => {
        each!(@with $n, $i, $body; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
    };
    (few $n:expr, |$i:ident| $body:expr) => {
        each!(@with $n, $i, $body; 0 1 2 3 4 5 6 7)
    };
    (@with $n:expr, $i:ident, $body:expr; $($k:literal)*) => {{
        let n: usize = $n;
        #[allow(unused_mut, unused_assignments)]
        let mut next: usize = 0;
        #[cfg(not(debug_assertions))]
        {
            $(
                if $k < n {
                    let $i: usize = $k;
                    $body;
                }
            )*
            next = [$($k),*].len();
        }
        while next < n {
            let $i = next;
            $body;
            next += 1;
        }
    }};
}

pub mod banks;
pub mod cost;
pub mod exec;
pub mod fixed;
pub mod flat;
pub mod ir;
pub mod linear;
pub mod msg;
pub mod slices;
pub mod solve;
pub mod tape;
pub mod target;
pub mod trace;

pub use cost::{Barrier, Cost, Strategy};
pub use ir::{
    pad_address, padding_of, GatherPlan, Instr, Padding, Plan, SharedPlan, ShufflePlan, SmemAccess,
    Static, Storage, NO_PADDING,
};
pub use target::{Isa, LdsTranspose, MatrixOps, Target};

/// Where the CTA of a distributed shared-memory address sits: `byte offset | cta << CTA_SHIFT`
/// (shared memory per CTA is under 2^18 bytes on every NVIDIA GPU). Linear like the offset, so
/// the same XOR tables carry both.
pub const CTA_SHIFT: u32 = 24;

/// The byte-offset part of an address (below [`CTA_SHIFT`]).
pub const OFFSET_MASK: u32 = (1 << CTA_SHIFT) - 1;

/// The most 32-bit words a shuffle plan moves per thread: the runtime's interpreter keeps them in
/// an array of this size, and the planner sends larger conversions through shared memory.
pub const MAX_SHUFFLE_WORDS: usize = 512;
