//! The instructions the math functions are made of, per backend: PTX on NVIDIA GPUs,
//! GLSL.std.450 on SPIR-V, and on the host a model of the PTX instruction (the correctly
//! rounded result with its flush-to-zero and special values), which the simulator runs.

#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
pub(crate) use model::*;
#[cfg(target_arch = "nvptx64")]
pub(crate) use nvptx::*;
#[cfg(target_arch = "spirv")]
pub(crate) use spirv::*;

#[cfg(target_arch = "nvptx64")]
mod nvptx {
    /// `fn name(x: f32) -> f32` as one PTX instruction.
    macro_rules! ptx {
        ($($name:ident($($a:ident),*) => $op:literal;)*) => {$(
            #[inline(always)]
            pub(crate) fn $name($($a: f32),*) -> f32 {
                let y: f32;
                // SAFETY: an arithmetic instruction on registers.
                unsafe {
                    core::arch::asm!(
                        concat!($op, " {y}", $(", {", stringify!($a), "}",)* ";"),
                        y = out(reg32) y, $($a = in(reg32) $a,)*
                        options(pure, nomem, nostack)
                    )
                };
                y
            }
        )*};
    }
    ptx! {
        ex2(x) => "ex2.approx.ftz.f32";
        lg2(x) => "lg2.approx.ftz.f32";
        rsqrt(x) => "rsqrt.approx.ftz.f32";
        sqrt_approx(x) => "sqrt.approx.ftz.f32";
        sqrt_rn(x) => "sqrt.rn.f32";
        rcp_approx(x) => "rcp.approx.ftz.f32";
        rcp_rn(x) => "rcp.rn.f32";
        tanh(x) => "tanh.approx.f32";
        sin(x) => "sin.approx.ftz.f32";
        cos(x) => "cos.approx.ftz.f32";
        fma(a, b, c) => "fma.rn.f32";
        div_rn(a, b) => "div.rn.f32";
    }
}

#[cfg(target_arch = "spirv")]
mod spirv {
    // rust-gpu compiles calls into `libm` as GLSL.std.450 instructions.
    pub(crate) fn ex2(x: f32) -> f32 {
        libm::exp2f(x)
    }
    pub(crate) fn lg2(x: f32) -> f32 {
        libm::log2f(x)
    }
    pub(crate) fn rsqrt(x: f32) -> f32 {
        1.0 / libm::sqrtf(x)
    }
    pub(crate) fn sqrt_approx(x: f32) -> f32 {
        libm::sqrtf(x)
    }
    pub(crate) fn sqrt_rn(x: f32) -> f32 {
        libm::sqrtf(x)
    }
    pub(crate) fn rcp_approx(x: f32) -> f32 {
        1.0 / x
    }
    pub(crate) fn rcp_rn(x: f32) -> f32 {
        1.0 / x
    }
    pub(crate) fn tanh(x: f32) -> f32 {
        libm::tanhf(x)
    }
    pub(crate) fn sin(x: f32) -> f32 {
        libm::sinf(x)
    }
    pub(crate) fn cos(x: f32) -> f32 {
        libm::cosf(x)
    }
    pub(crate) fn fma(a: f32, b: f32, c: f32) -> f32 {
        libm::fmaf(a, b, c)
    }
    pub(crate) fn div_rn(a: f32, b: f32) -> f32 {
        a / b
    }
}

/// The host model: each PTX instruction's result, correctly rounded (within the instruction's
/// documented error), with its `.ftz` flushing and special values.
#[cfg(not(any(target_arch = "nvptx64", target_arch = "spirv")))]
mod model {
    /// `.ftz`: a subnormal input or result is a zero of its sign.
    fn ftz(x: f32) -> f32 {
        if x.is_subnormal() {
            0.0f32.copysign(x)
        } else {
            x
        }
    }
    /// A function of `f64` rounded to `f32`, as an `.ftz` instruction computes it.
    fn ftz_via(x: f32, f: fn(f64) -> f64) -> f32 {
        ftz(f(ftz(x) as f64) as f32)
    }

    pub(crate) fn ex2(x: f32) -> f32 {
        ftz_via(x, libm::exp2)
    }
    pub(crate) fn lg2(x: f32) -> f32 {
        ftz_via(x, libm::log2)
    }
    pub(crate) fn rsqrt(x: f32) -> f32 {
        ftz_via(x, |x| 1.0 / libm::sqrt(x))
    }
    pub(crate) fn sqrt_approx(x: f32) -> f32 {
        ftz_via(x, libm::sqrt)
    }
    pub(crate) fn sqrt_rn(x: f32) -> f32 {
        libm::sqrtf(x)
    }
    pub(crate) fn rcp_approx(x: f32) -> f32 {
        ftz(1.0 / ftz(x))
    }
    pub(crate) fn rcp_rn(x: f32) -> f32 {
        1.0 / x
    }
    pub(crate) fn tanh(x: f32) -> f32 {
        libm::tanh(x as f64) as f32
    }
    pub(crate) fn sin(x: f32) -> f32 {
        ftz_via(x, libm::sin)
    }
    pub(crate) fn cos(x: f32) -> f32 {
        ftz_via(x, libm::cos)
    }
    pub(crate) fn fma(a: f32, b: f32, c: f32) -> f32 {
        libm::fmaf(a, b, c)
    }
    pub(crate) fn div_rn(a: f32, b: f32) -> f32 {
        a / b
    }
}
