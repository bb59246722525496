//! The math functions' host model (what the simulator computes) against the true function in
//! `f64`, within each function's documented error, on 10^6 inputs each: random bit patterns
//! (every exponent, subnormals, infinities, NaNs), random values in the range that matters, and
//! the edge values.

use gpu_runtime::math::{self, precise};
use gpu_runtime::{Bf16, F16};

const N: usize = 1_000_000;

/// 10^6 inputs: edge values, then random bits and random values in `lo..hi`, alternately.
fn inputs(lo: f32, hi: f32) -> impl Iterator<Item = f32> {
    const EDGES: [f32; 16] = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        2.0,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        1e-45,
        -1e-45,
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        88.7,
    ];
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let random = (0..N - EDGES.len()).map(move |i| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        match i % 2 {
            0 => f32::from_bits((s >> 32) as u32),
            _ => lo + (hi - lo) * ((s >> 40) as f32 / (1u64 << 24) as f32),
        }
    });
    EDGES.into_iter().chain(random)
}

/// The distance from `want` to the next `f32` away from zero (the smallest subnormal at 0).
fn ulp(want: f64) -> f64 {
    let a = want.abs().min(f32::MAX as f64) as f32;
    let e = if a < f32::MIN_POSITIVE {
        -126
    } else {
        ((a.to_bits() >> 23) as i32) - 127
    };
    2f64.powi(e - 23)
}

/// Checks `got` against the true value `want` within `bound(x, want)` (absolute), allowing a
/// flush to zero of a subnormal input (`got_flushed`) or result.
fn check(name: &str, x: f32, got: f32, want: f64, bound: f64, got_flushed: Option<f32>) {
    let ok = |g: f32| {
        if want.is_nan() {
            return g.is_nan();
        }
        if want.is_infinite() || (want.abs() > f32::MAX as f64 && g.is_infinite()) {
            return g as f64 == want
                || (want.abs() > f32::MAX as f64
                    && g.is_infinite()
                    && g.signum() as f64 == want.signum());
        }
        let err = (g as f64 - want).abs();
        err <= bound || (want.abs() < f32::MIN_POSITIVE as f64 && g == 0.0)
    };
    assert!(
        ok(got) || got_flushed.is_some_and(|g| g == got),
        "{}({:e} = {:#x}) = {:e}, want {:e} within {:e}",
        name,
        x,
        x.to_bits(),
        got,
        want,
        bound
    );
}

/// A fast form of `name` with `.ftz`: a subnormal input acts as a zero of its sign.
fn fast(
    name: &str,
    f: fn(f32) -> f32,
    reference: fn(f64) -> f64,
    bound: impl Fn(f32, f64) -> f64,
    lo: f32,
    hi: f32,
) {
    fast_ftz(name, f, reference, bound, lo, hi, true)
}

fn fast_ftz(
    name: &str,
    f: fn(f32) -> f32,
    reference: fn(f64) -> f64,
    bound: impl Fn(f32, f64) -> f64,
    lo: f32,
    hi: f32,
    ftz: bool,
) {
    for x in inputs(lo, hi) {
        let want = reference(x as f64);
        let flushed = (ftz && x.is_subnormal()).then(|| {
            let z = 0.0f32.copysign(x);
            let w = reference(z as f64);
            assert!(want.is_nan() || w.is_nan() || f(x) == f(z), "{}: ftz", name);
            f(z)
        });
        check(name, x, f(x), want, bound(x, want), flushed);
    }
}

fn rel(bits: f64) -> impl Fn(f32, f64) -> f64 {
    move |_, want| want.abs() * 2f64.powf(-bits)
}

#[test]
fn fast_exponentials_and_logarithms_within_the_ptx_bounds() {
    fast("exp2", math::exp2, f64::exp2, rel(22.0), -130.0, 130.0);
    // The product x * log2(e) rounds: |x| * 2^-24 more relative error.
    fast(
        "exp",
        math::exp,
        f64::exp,
        |x, w| w.abs() * (2f64.powi(-22) + (x.abs() as f64) * 2f64.powi(-23)),
        -90.0,
        90.0,
    );
    let lg2 = |x: f32, w: f64| {
        if (0.5..=2.0).contains(&x) {
            2f64.powi(-22)
        } else {
            w.abs() * 2f64.powi(-22)
        }
    };
    fast("log2", math::log2, f64::log2, lg2, 0.0, 4.0);
    let ln = |x: f32, w: f64| {
        if (0.5..=2.0).contains(&x) {
            2f64.powi(-22)
        } else {
            w.abs() * (2f64.powi(-22) + 2f64.powi(-24))
        }
    };
    fast("log", math::log, f64::ln, ln, 0.0, 4.0);
}

#[test]
fn fast_roots_reciprocal_tanh_and_trigonometry_within_the_ptx_bounds() {
    fast(
        "rsqrt",
        math::rsqrt,
        |x| 1.0 / x.sqrt(),
        rel(22.9),
        0.0,
        100.0,
    );
    fast("sqrt", math::sqrt, f64::sqrt, rel(23.0), 0.0, 100.0);
    fast("rcp", math::rcp, |x| 1.0 / x, |_, w| ulp(w), -10.0, 10.0);
    // `tanh.approx.f32` has no `.ftz` form.
    fast_ftz(
        "tanh",
        math::tanh,
        f64::tanh,
        |_, w| w.abs() * 2f64.powf(-10.987),
        -10.0,
        10.0,
        false,
    );
    // 2^-20.5 absolute within 100π; the instruction's error beyond is not documented.
    let trig = |x: f32, _: f64| {
        if x.abs() <= 100.0 * std::f32::consts::PI {
            2f64.powf(-20.5)
        } else {
            2.0
        }
    };
    fast("sin", math::sin, f64::sin, trig, -400.0, 400.0);
    fast("cos", math::cos, f64::cos, trig, -400.0, 400.0);
}

/// A precise form within `ulps` of the true value (no flushing).
fn precise(name: &str, f: fn(f32) -> f32, reference: fn(f64) -> f64, ulps: f64, lo: f32, hi: f32) {
    for x in inputs(lo, hi) {
        let want = reference(x as f64);
        check(name, x, f(x), want, ulps * ulp(want), None);
    }
}

#[test]
fn precise_forms_within_their_ulps() {
    precise("precise::exp", precise::exp, f64::exp, 1.0, -104.0, 89.0);
    precise(
        "precise::exp2",
        precise::exp2,
        f64::exp2,
        1.0,
        -150.0,
        128.0,
    );
    precise("precise::log", precise::log, f64::ln, 1.0, 0.0, 4.0);
    precise("precise::log2", precise::log2, f64::log2, 1.0, 0.0, 4.0);
    precise("precise::erf", precise::erf, libm::erf, 2.0, -5.0, 5.0);
    precise("erf", math::erf, libm::erf, 2.0, -5.0, 5.0);
    precise("precise::sqrt", precise::sqrt, f64::sqrt, 0.5, 0.0, 100.0);
    precise("precise::rcp", precise::rcp, |x| 1.0 / x, 0.5, -10.0, 10.0);
}

#[test]
fn exact_operations() {
    let ys: Vec<f32> = inputs(-4.0, 4.0).collect();
    for (i, x) in inputs(-4.0, 4.0).enumerate() {
        let y = ys[(i * 7919) % ys.len()];
        let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        assert!(same(math::abs(x), x.abs()));
        assert!(same(math::copysign(x, y), x.copysign(y)));
        assert!(same(math::min(x, y), x.min(y)) && same(math::max(x, y), x.max(y)));
        assert!(same(math::fma(x, y, 1.5), x.mul_add(y, 1.5)));
        assert!(same(precise::div(x, y), ((x as f64) / (y as f64)) as f32));
    }
    assert_eq!(math::min(f32::NAN, 1.0), 1.0);
}

/// The 16-bit forms compute in f32 and round once more: every half and every bfloat16.
#[test]
fn sixteen_bit_forms_round_the_f32_result() {
    for b in 0..=u16::MAX {
        let h = F16(b);
        let want = F16::from_f32(precise::exp(h.to_f32()));
        assert_eq!(precise::exp(h), want, "exp({:?})", h);
        let want = Bf16::from_f32(math::tanh(Bf16(b).to_f32()));
        assert_eq!(math::tanh(Bf16(b)), want);
        let (e, w) = (math::exp(h).to_f32() as f64, (h.to_f32() as f64).exp());
        if w.is_finite() && w < 65504.0 && w > 1e-4 {
            assert!(
                (e - w).abs() <= w * 2f64.powi(-10),
                "exp({:e}) = {:e}, want {:e}",
                h.to_f32(),
                e,
                w
            );
        }
    }
}
