//! Element-wise activations of f16 tensors, computed in f32 with `linear_layouts::math`'s fast
//! forms, as Triton's `tl.math` lowers them: GELU in its tanh form
//! (`torch.nn.functional.gelu(x, approximate="tanh")`: one `tanh.approx.f32`) and SiLU
//! (`x * sigmoid(x)`: one `ex2.approx.ftz.f32` and one `rcp.approx.ftz.f32`). Each CTA takes
//! 1,024 consecutive elements in [`Flat16`], 8 per thread: one 16-byte load and store each.

#[cfg(not(target_arch = "spirv"))]
use linear_layouts::kernel;
use linear_layouts::{layout, math, Thread, Tiles, TilesMut, F16};

layout! {
    /// 1,024 consecutive halves over 4 warps: 8 per thread (16 bytes), lanes then warps.
    pub Flat16 = blocked(sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]) for [1024];
}

/// Elements per CTA.
pub const ACTIVATION_TILE: u32 = Flat16::SHAPE[0];

/// GELU, tanh form: `x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))`.
#[inline(always)]
pub fn gelu_tanh(x: f32) -> f32 {
    const K: f32 = 0.797_884_6;
    let inner = K * math::fma(0.044_715 * x, x * x, x);
    0.5 * x * (1.0 + math::tanh(inner))
}

/// SiLU: `x * sigmoid(x) = x / (1 + e^-x)`.
#[inline(always)]
pub fn silu(x: f32) -> f32 {
    x * math::rcp(1.0 + math::exp(-x))
}

/// `y = f(x)` on the CTA's tile of `x`, each element computed in f32.
#[inline(always)]
pub fn activation_tile<T: Thread>(
    t: &T,
    x: &Tiles<F16, Flat16>,
    y: &TilesMut<F16, Flat16>,
    f: fn(f32) -> f32,
) {
    y.store(t, &x.load(t).to::<f32>().map(f).to::<F16>());
}

/// `y = gelu_tanh(x)` for `n` halves, `n` a multiple of [`ACTIVATION_TILE`]: grid
/// `n / ACTIVATION_TILE`.
#[cfg(not(target_arch = "spirv"))]
#[kernel(block = Flat16::THREADS)]
pub fn gelu_tanh_f16(t: &impl Thread, x: Tiles<F16, Flat16>, y: TilesMut<F16, Flat16>) {
    activation_tile(t, &x, &y, gelu_tanh);
}

/// `y = silu(x)` for `n` halves, as [`gelu_tanh_f16`].
#[cfg(not(target_arch = "spirv"))]
#[kernel(block = Flat16::THREADS)]
pub fn silu_f16(t: &impl Thread, x: Tiles<F16, Flat16>, y: TilesMut<F16, Flat16>) {
    activation_tile(t, &x, &y, silu);
}
