//! Device math: what `f32::exp` and friends are in a `no_std` kernel, as Triton lowers
//! `tl.exp`, `tl.math.exp2`, `tl.rsqrt`, ... .
//!
//! Every function takes `f32`, [`F16`] or [`Bf16`] ([`Real`]); the 16-bit types compute in
//! `f32` and round back (ties to even), as Triton does for `fp16` math.
//!
//! * The functions here are the **fast forms**: one hardware instruction each on NVIDIA GPUs
//!   (`ex2.approx.ftz.f32`, `lg2.approx.ftz.f32`, `rsqrt.approx.ftz.f32`, `tanh.approx.f32`,
//!   `sin.approx.ftz.f32`, ...; `exp` and `log` scale by a constant around `ex2`/`lg2`, exactly
//!   as Triton's `tl.exp`/`tl.log`), GLSL.std.450 instructions on SPIR-V, and on the host (the
//!   simulator) a model of the instruction: the correctly rounded value with the instruction's
//!   flush-to-zero and special values, which lies within the PTX ISA's documented error of
//!   what the GPU returns. Each function's doc states that error.
//! * [`precise`] holds the **precise forms** (within 1 or 2 ulp, the same bits on every
//!   backend): software `exp`, `exp2`, `log`, `log2`, `erf`, and the correctly rounded `sqrt`,
//!   `rcp` and `div`.
//!
//! ```
//! // `linear_layouts::math` in a kernel crate.
//! use gpu_runtime::{math, F16};
//!
//! let y = math::exp(1.0f32);
//! assert!((y - core::f32::consts::E).abs() < 1e-6);
//! let h = math::max(F16::from_f32(2.5), F16::from_f32(-1.0));
//! assert_eq!(h.to_f32(), 2.5);
//! ```

mod hw;
pub mod precise;
mod soft;

use crate::float16::{Bf16, F16};

/// A floating-point element the math functions take: computed in `f32`.
pub trait Real: Copy {
    /// The exact `f32` of this value.
    fn to_f32(self) -> f32;
    /// `x` rounded to this type (nearest, ties to even).
    fn from_f32(x: f32) -> Self;
}

impl Real for f32 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self
    }
    #[inline(always)]
    fn from_f32(x: f32) -> Self {
        x
    }
}

macro_rules! real16 {
    ($($t:ident),*) => {$(
        impl Real for $t {
            #[inline(always)]
            fn to_f32(self) -> f32 {
                $t::widen(self)
            }
            #[inline(always)]
            fn from_f32(x: f32) -> Self {
                $t::round(x)
            }
        }
    )*};
}
real16!(F16, Bf16);

/// `fn name<T: Real>(x: T) -> T` computing `$f32` in `f32`.
macro_rules! unary {
    ($($(#[$doc:meta])* $name:ident => $f32:expr;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        pub fn $name<T: Real>(x: T) -> T {
            T::from_f32($f32(x.to_f32()))
        }
    )*};
}
pub(crate) use unary;

/// `fn name<T: Real>(a: T, b: T) -> T` computing `$f32` in `f32`.
macro_rules! binary {
    ($($(#[$doc:meta])* $name:ident => $f32:expr;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        pub fn $name<T: Real>(a: T, b: T) -> T {
            T::from_f32($f32(a.to_f32(), b.to_f32()))
        }
    )*};
}
pub(crate) use binary;

const LOG2_E: f32 = core::f32::consts::LOG2_E;
const LN_2: f32 = core::f32::consts::LN_2;

unary! {
    /// `2^x`: `ex2.approx.ftz.f32`. Relative error at most 2^-22 (PTX ISA), subnormal inputs
    /// and results flushed to zero; `exp2(-inf) = 0`, `exp2(inf) = inf`.
    exp2 => hw::ex2;
    /// `e^x` as Triton's `tl.exp`: `ex2.approx.ftz.f32(x * log2(e))`. The product's rounding
    /// and `log2(e)`'s add a relative error of up to `|x| * 2^-23`, so the error is 2^-22 plus
    /// that ([`precise::exp`] is within 1 ulp everywhere).
    exp => |x: f32| hw::ex2(x * LOG2_E);
    /// `log2(x)`: `lg2.approx.ftz.f32`. Absolute error at most 2^-22 for x in [0.5, 2],
    /// relative 2^-22 elsewhere (PTX ISA); `log2(0) = -inf`, negative gives NaN.
    log2 => hw::lg2;
    /// `ln(x)` as Triton's `tl.log`: `lg2.approx.ftz.f32(x) * ln(2)`: [`log2`]'s error plus one
    /// rounding.
    log => |x: f32| hw::lg2(x) * LN_2;
    /// `1/sqrt(x)`: `rsqrt.approx.ftz.f32`. Relative error at most 2^-22.9; `rsqrt(0) = inf`.
    rsqrt => hw::rsqrt;
    /// `sqrt(x)`: `sqrt.approx.ftz.f32`. Relative error at most 2^-23 (PTX ISA); the correctly
    /// rounded form is [`precise::sqrt`].
    sqrt => hw::sqrt_approx;
    /// `1/x`: `rcp.approx.ftz.f32`. Within 1 ulp (PTX ISA); [`precise::rcp`] rounds correctly.
    rcp => hw::rcp_approx;
    /// `tanh(x)`: `tanh.approx.f32` (sm_75 on). Relative error at most 2^-10.987 (PTX ISA).
    tanh => hw::tanh;
    /// `sin(x)`: `sin.approx.ftz.f32`. Absolute error at most 2^-20.5 for |x| <= 100π; it grows
    /// beyond (the instruction does not reduce large arguments exactly).
    sin => hw::sin;
    /// `cos(x)`: `cos.approx.ftz.f32`, with [`sin`]'s error.
    cos => hw::cos;
    /// `erf(x)`: the same software as [`precise::erf`] (there is no erf instruction): within
    /// 2 ulp.
    erf => soft::erf;
    /// `|x|`, exact (`abs.f32`).
    abs => f32::abs;
}

binary! {
    /// The smaller of `a` and `b`: exact (`min.f32`); NaN only when both are NaN (IEEE minNum).
    min => f32::min;
    /// The larger of `a` and `b`: exact (`max.f32`); NaN only when both are NaN (IEEE maxNum).
    max => f32::max;
    /// `a` with the sign of `b`: exact (`copysign.f32`).
    copysign => f32::copysign;
}

/// `a * b + c` rounded once: `fma.rn.f32`.
#[inline(always)]
pub fn fma<T: Real>(a: T, b: T, c: T) -> T {
    T::from_f32(hw::fma(a.to_f32(), b.to_f32(), c.to_f32()))
}
