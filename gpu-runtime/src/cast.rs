//! Element conversions: what `Tile::to` (Triton's `x.to(dtype)`) does to each register. A
//! narrowing to a 16-bit float rounds two registers at a time where the GPU has a packed
//! conversion (`cvt.rn.f16x2.f32`, `cvt.rn.bf16x2.f32`): one instruction per pair, and the pair
//! is already the 32-bit word that a store or an MMA operand of 16-bit elements wants.
//!
//! The trait is on the target type, so that a bound on it (an MMA input format is
//! `CastFrom<f32>`) lets generic code convert to it without naming more bounds.

use crate::element::Element;
use crate::float16::{Bf16, F16};

/// An element type that elements of `S` convert to.
pub trait CastFrom<S: Element>: Element {
    /// `x` as this type: floats round to nearest (ties to even), floats to integers truncate
    /// toward zero and saturate (NaN is 0), integers wrap (Rust's `as`, PTX's `cvt`).
    fn cast(x: S) -> Self;
    /// `[cast(lo), cast(hi)]`: on the GPU one packed conversion where there is one.
    #[inline(always)]
    fn cast2(lo: S, hi: S) -> [Self; 2] {
        [Self::cast(lo), Self::cast(hi)]
    }
}

impl<T: Element> CastFrom<T> for T {
    #[inline(always)]
    fn cast(x: T) -> T {
        x
    }
}

/// Narrowing `f32` to a 16-bit float: one `cvt.rn` each, or one packed `cvt.rn` per pair.
macro_rules! narrow {
    ($($t:ident),*) => {$(
        impl CastFrom<f32> for $t {
            #[inline(always)]
            fn cast(x: f32) -> $t {
                $t::round(x)
            }
            #[inline(always)]
            fn cast2(lo: f32, hi: f32) -> [$t; 2] {
                $t::round2(lo, hi)
            }
        }
        impl CastFrom<$t> for f32 {
            #[inline(always)]
            fn cast(x: $t) -> f32 {
                x.widen()
            }
        }
    )*};
}
narrow!(F16, Bf16);

/// Between the two 16-bit floats: exactly through `f32`, then rounded (as a pair where packed).
macro_rules! across {
    ($($s:ident => $t:ident),*) => {$(
        impl CastFrom<$s> for $t {
            #[inline(always)]
            fn cast(x: $s) -> $t {
                $t::round(x.widen())
            }
            #[inline(always)]
            fn cast2(lo: $s, hi: $s) -> [$t; 2] {
                $t::round2(lo.widen(), hi.widen())
            }
        }
    )*};
}
across!(F16 => Bf16, Bf16 => F16);

/// Rust's `as` between numbers: what PTX's `cvt` does for each pair (`cvt.rn.f32.s32`,
/// `cvt.rzi.s32.f32` saturating, integer truncation and extension).
macro_rules! numeric {
    ($($s:ty => $($t:ty),*;)*) => {$($(
        impl CastFrom<$s> for $t {
            #[inline(always)]
            fn cast(x: $s) -> $t {
                x as $t
            }
        }
    )*)*};
}
numeric! {
    f32 => i32, u32, i64, u64;
    i32 => f32, u32, i64, u64;
    u32 => f32, i32, i64, u64;
    i64 => f32, i32, u32;
    u64 => f32, i32, u32;
}
