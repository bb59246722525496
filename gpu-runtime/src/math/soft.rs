//! Software forms of the functions without a correctly rounded instruction: `exp`, `exp2`,
//! `log`, `log2` (fdlibm's single-precision algorithms and constants, as bits, as in musl) and `erf` (minimax
//! polynomials fitted for this module). Plain `f32` arithmetic and `fma` only, so every backend
//! (the PTX's `mul.rn`/`add.rn` are not contracted) computes the same bits as the simulator.

use super::hw::fma;

/// `2^n` for `n` in -126..=127.
fn pow2(n: i32) -> f32 {
    f32::from_bits(((n + 127) as u32) << 23)
}

/// `y * 2^k` for `k` in -152..=128, rounded once (the first half-step is exact).
fn scale(y: f32, k: i32) -> f32 {
    let half = k / 2;
    y * pow2(half) * pow2(k - half)
}

/// `e^(hi - lo) * 2^k`, for `|hi - lo| <= ln(2)/2` (fdlibm's rational approximation).
fn exp_reduced(hi: f32, lo: f32, k: i32) -> f32 {
    const P1: f32 = f32::from_bits(0x3e2aaa8f);
    const P2: f32 = f32::from_bits(0xbb355215);
    let x = hi - lo;
    let xx = x * x;
    let c = x - xx * (P1 + xx * P2);
    scale(1.0 + (x * c / (2.0 - c) - lo + hi), k)
}

/// `e^x`, within 1 ulp.
pub(crate) fn exp(x: f32) -> f32 {
    const LN2_HI: f32 = f32::from_bits(0x3f317200);
    const LN2_LO: f32 = f32::from_bits(0x35bfbe8e);
    if x.is_nan() {
        return x;
    }
    if x > 88.722_83 {
        return f32::INFINITY;
    }
    if x < -103.972_08 {
        return 0.0;
    }
    let half = if x < 0.0 { -0.5 } else { 0.5 };
    let k = (core::f32::consts::LOG2_E * x + half) as i32;
    // `k * LN2_HI` is exact: LN2_HI has 16 trailing zero bits and |k| < 2^8.
    exp_reduced(x - k as f32 * LN2_HI, k as f32 * LN2_LO, k)
}

/// `2^x`, within 1 ulp.
pub(crate) fn exp2(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    if x >= 128.0 {
        return f32::INFINITY;
    }
    if x < -150.0 {
        return 0.0;
    }
    let half = if x < 0.0 { -0.5 } else { 0.5 };
    let k = (x + half) as i32;
    // `r` is exact; `hi - lo` is `r * ln(2)` to twice the precision.
    let r = x - k as f32;
    let hi = r * core::f32::consts::LN_2;
    let lo = -fma(r, core::f32::consts::LN_2, -hi);
    exp_reduced(hi, lo, k)
}

/// `x = 2^k * m` with `m` in [sqrt(2)/2, sqrt(2)), for finite positive `x` (subnormals too).
fn reduce_log(x: f32) -> (i32, f32) {
    let (mut bits, mut k) = (x.to_bits(), 0);
    if bits < 0x0080_0000 {
        k -= 25;
        bits = (x * 33_554_432.0).to_bits();
    }
    bits += 0x3f80_0000 - 0x3f35_04f3;
    k += (bits >> 23) as i32 - 0x7f;
    (k, f32::from_bits((bits & 0x007f_ffff) + 0x3f35_04f3))
}

/// `log(1 + f) - f + f*f/2` and `s = f / (2 + f)` for the reduced `m = 1 + f`.
fn log_tail(f: f32) -> (f32, f32) {
    const LG1: f32 = f32::from_bits(0x3f2aaaaa);
    const LG2: f32 = f32::from_bits(0x3eccce13);
    const LG3: f32 = f32::from_bits(0x3e91e9ee);
    const LG4: f32 = f32::from_bits(0x3e789e26);
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    (z * (LG1 + w * LG3) + w * (LG2 + w * LG4), s)
}

/// The special values of `log`/`log2`: NaN, 0, negative, infinity.
fn log_special(x: f32) -> Option<f32> {
    if x.is_nan() || x == f32::INFINITY {
        Some(x)
    } else if x == 0.0 {
        Some(f32::NEG_INFINITY)
    } else if x < 0.0 {
        Some(f32::NAN)
    } else {
        None
    }
}

/// fdlibm's pieces of `ln(x)` for finite positive `x = 2^k (1 + f)`: `k`, `f`, `s = f / (2 + f)`,
/// the tail `r` and `hfsq = f^2 / 2`; or, for NaN, 0, negatives and infinity, the answer.
struct LogParts {
    k: f32,
    f: f32,
    s: f32,
    r: f32,
    hfsq: f32,
}

fn log_parts(x: f32) -> Result<LogParts, f32> {
    if let Some(v) = log_special(x) {
        return Err(v);
    }
    let (k, m) = reduce_log(x);
    let f = m - 1.0;
    let (r, s) = log_tail(f);
    Ok(LogParts {
        k: k as f32,
        f,
        s,
        r,
        hfsq: 0.5 * f * f,
    })
}

/// `ln(x)`, within 1 ulp.
pub(crate) fn log(x: f32) -> f32 {
    const LN2_HI: f32 = f32::from_bits(0x3f317180);
    const LN2_LO: f32 = f32::from_bits(0x3717f7d1);
    let LogParts { k, f, s, r, hfsq } = match log_parts(x) {
        Ok(p) => p,
        Err(v) => return v,
    };
    s * (hfsq + r) + k * LN2_LO - hfsq + f + k * LN2_HI
}

/// `log2(x)`, within 1 ulp.
pub(crate) fn log2(x: f32) -> f32 {
    const IVLN2_HI: f32 = f32::from_bits(0x3fb8b000);
    const IVLN2_LO: f32 = f32::from_bits(0xb9389ad4);
    let LogParts { k, f, s, r, hfsq } = match log_parts(x) {
        Ok(p) => p,
        Err(v) => return v,
    };
    // `hi` keeps 12 bits, so `hi * IVLN2_HI` is exact.
    let hi = f32::from_bits((f - hfsq).to_bits() & 0xffff_f000);
    let lo = f - hi - hfsq + s * (hfsq + r);
    (lo + hi) * IVLN2_LO + lo * IVLN2_HI + hi * IVLN2_HI + k
}

/// `p(t)` for coefficients from the highest degree down, by Horner's rule with `fma`.
fn horner(t: f32, c: &[f32]) -> f32 {
    let mut p = c[0];
    let mut i = 1;
    while i < c.len() {
        p = fma(p, t, c[i]);
        i += 1;
    }
    p
}

/// `erf(x)`, within 2 ulp: `x * P(x^2)` below 1 (`erf(x)/x` to 1.4e-9 relative), and
/// `1 - e^(-x^2) * Q(1/x)` from 1 to 4 (`erfc(x) * e^(x^2)` to 4.5e-9 relative); 1 beyond,
/// where `erf` rounds to 1.
pub(crate) fn erf(x: f32) -> f32 {
    const SMALL: [f32; 7] = [
        7.882_497e-5,
        -8.018_855e-4,
        5.189_312e-3,
        -2.685_432_9e-2,
        0.112_835_97,
        -0.376_126_26,
        0.128_379_17,
    ];
    const LARGE: [f32; 11] = [
        -3.335_385e-2,
        0.234_486_8,
        -0.728_070_74,
        1.293_122,
        -1.390_951_9,
        0.808_895_9,
        -2.752_688_3e-2,
        -0.298_030_97,
        5.539_639_4e-3,
        0.563_433_35,
        4.013_13e-5,
    ];
    let a = x.abs();
    if a.is_nan() {
        x
    } else if a < 1.0 {
        // x + x * (P(x^2) - 1): the leading term exact, the rest a small correction.
        fma(x, horner(x * x, &SMALL), x)
    } else if a < 4.0 {
        // e^(-a^2) with a^2's rounding error folded back in.
        let hi = a * a;
        let lo = fma(a, a, -hi);
        let e = exp(-hi);
        let erfc = fma(-lo, e, e) * horner(1.0 / a, &LARGE);
        (1.0 - erfc).copysign(x)
    } else {
        1.0f32.copysign(x)
    }
}
