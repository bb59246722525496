//! The activation kernels on the simulator against the functions in f64, on every finite half
//! in [-12, 12] and random ones. Tolerances: the rounding of the f16 result (half an f16 ulp)
//! plus the fast instructions' error carried through: for SiLU a few f32 ulps (negligible: one
//! f16 ulp in all), for GELU `tanh.approx`'s relative 2^-10.987 of `tanh`, which near
//! `tanh = -1` is an absolute error of `|x|/2 * 2^-10.987` in the output (Triton's `tl.math`
//! tanh has the same).

use kernels::activations::{gelu_tanh_f16, silu_f16, ACTIVATION_TILE};
use linear_layouts::sim::{launch, HostMemory, Launch};
use linear_layouts::F16;

/// The spacing of halves around `v`.
fn ulp16(v: f64) -> f64 {
    let e = v.abs().max(6.2e-5).log2().floor();
    2f64.powf(e - 10.0)
}

/// Every finite half in [-12, 12], padded to whole tiles with random halves in [-4, 4].
fn inputs() -> Vec<F16> {
    let mut x: Vec<F16> = (0..=u16::MAX)
        .map(F16)
        .filter(|h| h.to_f32().is_finite() && h.to_f32().abs() <= 12.0)
        .collect();
    let mut s = 12345u32;
    while !x.len().is_multiple_of(ACTIVATION_TILE as usize) {
        s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        x.push(F16::from_f32(
            (s >> 8) as f32 / (1 << 24) as f32 * 8.0 - 4.0,
        ));
    }
    x
}

fn run(
    kernel: fn(&linear_layouts::sim::SimThread, &HostMemory, &HostMemory),
) -> (Vec<F16>, Vec<F16>) {
    let x = inputs();
    let (xm, ym) = (
        HostMemory::new(x.iter().map(|h| h.0 as u64)),
        HostMemory::new(x.iter().map(|_| 0xffff)),
    );
    let grid = x.len() as u32 / ACTIVATION_TILE;
    launch(Launch::new(grid, 128, 0), |t| kernel(t, &xm, &ym)).expect("no simulator issue");
    let y = (0..x.len()).map(|i| F16(ym.get(i) as u16)).collect();
    (x, y)
}

#[test]
fn gelu_tanh_within_tanh_approx_error() {
    let (x, y) = run(|t, x, y| gelu_tanh_f16(t, x.tiles(), y.tiles_mut()));
    for (x, y) in x.iter().zip(&y) {
        let xf = x.to_f32() as f64;
        let want = 0.5
            * xf
            * (1.0 + ((2.0 / std::f64::consts::PI).sqrt() * (xf + 0.044715 * xf.powi(3))).tanh());
        let bound = ulp16(want) / 2.0 + 0.5 * xf.abs() * 2f64.powf(-10.987) * 1.01 + 1e-7;
        let got = y.to_f32() as f64;
        assert!(
            (got - want).abs() <= bound,
            "gelu({}) = {}, want {} within {:e}",
            xf,
            got,
            want,
            bound
        );
    }
}

#[test]
fn silu_within_one_f16_ulp() {
    let (x, y) = run(|t, x, y| silu_f16(t, x.tiles(), y.tiles_mut()));
    for (x, y) in x.iter().zip(&y) {
        let xf = x.to_f32() as f64;
        let want = xf / (1.0 + (-xf).exp());
        let got = y.to_f32() as f64;
        assert!(
            (got - want).abs() <= ulp16(want),
            "silu({}) = {}, want {}",
            xf,
            got,
            want
        );
    }
}
