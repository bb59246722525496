//! # layout-plan
//!
//! The planner: what a collective operation on a tile does, decided from the layouts' tables by
//! `const fn`s, so that one algorithm plans at compile time (a const of `layout!` types,
//! generic ones included), in the proc macros, and at run time (the CLI, the tests). The
//! runtime (`gpu-runtime`) only runs the plans.
//!
//! * Conversions: [`solve`] decides how one layout becomes another (registers, shuffles, or
//!   shared memory with its swizzle and instructions) and writes the plan as data ([`ir`]:
//!   [`Plan`]); [`walk`] is how a plan runs, written once and expanded twice: [`exec`] walks a
//!   plan over an [`exec::Machine`] (the interpreter, `convert!`'s code writer, the planner's
//!   counts) and [`trace`] records the operations one thread performs as a [`tape`], which the
//!   runtime replays with every operand a constant.
//! * Reductions and scans: [`reduce`] ([`reduce::ReducePlan`], its shared-memory staging and
//!   cost) and [`scan`] ([`scan::ScanPlan`]), over a layout's [`tables`].
//! * Costs and hardware: [`cost`] ([`Cost`], [`Strategy`], [`Barrier`]), [`banks`] (the
//!   wavefronts of a shared-memory access, Nsight Compute's count), [`target`] ([`Target`]:
//!   lanes per warp, banks, matrix instructions, cluster memory).
//! * Const-friendly containers and math: [`fixed`] (bounded lists whose overflow is an error),
//!   [`flat`], [`linear`] (GF(2) maps), [`slices`], [`msg`] (messages with numbers built in a
//!   const).
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
pub mod reduce;
pub mod scan;
pub mod slices;
pub mod solve;
pub mod tables;
pub mod tape;
pub mod target;
pub mod trace;
pub mod walk;

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
