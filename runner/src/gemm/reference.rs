//! The host side of `gemm-bench`: the cases, random operands, the CPU reference and the rows
//! it prints.
//!
//! The check: C is compared at 4096 positions (its corners and pseudo-random ones) with the
//! exact dot product of the same rounded inputs in f64. A kernel accumulates in f32 and rounds
//! once to the output format, so the tolerance is one unit in the last place of the format at
//! the reference value plus the worst-case f32 accumulation error, `k 2^-24 sum |a b|`.

use std::fmt;

use layout_launch::cudarc::driver::DeviceRepr;

use crate::Kernel;

/// A 16-bit float of the host (the `half` crate's), as the kernels' inputs and output.
pub trait Half: DeviceRepr + Copy + 'static {
    /// Its value, exactly.
    fn to_f32(self) -> f32;
    /// `x` rounded to nearest even.
    fn from_f32(x: f32) -> Self;
    /// One unit in the last place at 1.
    const ULP: f64;
}

impl Half for half::f16 {
    fn to_f32(self) -> f32 {
        half::f16::to_f32(self)
    }
    fn from_f32(x: f32) -> Self {
        half::f16::from_f32(x)
    }
    const ULP: f64 = 1.0 / 1024.0;
}

impl Half for half::bf16 {
    fn to_f32(self) -> f32 {
        half::bf16::to_f32(self)
    }
    fn from_f32(x: f32) -> Self {
        half::bf16::from_f32(x)
    }
    const ULP: f64 = 1.0 / 128.0;
}

/// One problem: a kernel, an element type, B's order and `M = N = K`.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    /// The kernel.
    pub kernel: Kernel,
    /// `f16` or `bf16`.
    pub dtype: &'static str,
    /// B column-major (else row-major).
    pub b_col_major: bool,
    /// `M = N = K`.
    pub size: u32,
}

impl fmt::Display for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = if self.b_col_major { "col" } else { "row" };
        write!(
            f,
            "{} {} B {} {}",
            self.kernel.name(),
            self.dtype,
            b,
            self.size
        )
    }
}

impl Case {
    /// Every case for `sizes`: both types, both B orders, every kernel (the Hopper kernels' for
    /// sizes that are multiples of their 256-column tile).
    pub fn all(sizes: &[u32]) -> Vec<Case> {
        let mut v = Vec::new();
        for &size in sizes {
            for dtype in ["f16", "bf16"] {
                for b_col_major in [false, true] {
                    for kernel in [
                        Kernel::Simple,
                        Kernel::Pipelined,
                        Kernel::Hopper,
                        Kernel::HopperWs,
                    ] {
                        if kernel.tma() && size % 256 != 0 {
                            continue;
                        }
                        v.push(Case {
                            kernel,
                            dtype,
                            b_col_major,
                            size,
                        });
                    }
                }
            }
        }
        v
    }

    /// `len` values uniform in [-1, 1), rounded to `H` (operand `which` of this size).
    pub fn operand<H: Half>(&self, len: usize, which: u64) -> Vec<H> {
        let mut s = (self.size as u64) << 8 | which | 1;
        (0..len)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                H::from_f32((s >> 40) as f32 / (1u64 << 23) as f32 - 1.0)
            })
            .collect()
    }

    /// The largest error of `c` at the sampled positions, or which element is wrong.
    pub fn check<H: Half>(&self, a: &[H], b: &[H], c: &[H]) -> Result<f64, String> {
        let n = self.size as usize;
        let b_at = |k: usize, j: usize| {
            b[if self.b_col_major {
                j * n + k
            } else {
                k * n + j
            }]
        };
        let mut worst = 0f64;
        for (i, j) in positions(n) {
            let (mut want, mut mag) = (0f64, 0f64);
            for k in 0..n {
                let p = a[i * n + k].to_f32() as f64 * b_at(k, j).to_f32() as f64;
                want += p;
                mag += p.abs();
            }
            let tol = H::ULP * want.abs() + n as f64 * mag / (1u64 << 24) as f64 + 1e-6;
            let got = c[i * n + j].to_f32() as f64;
            let err = (got - want).abs();
            if err.is_nan() || err > tol {
                return Err(format!(
                    "{}: C[{}][{}] = {}, want {} (tolerance {:.3e})",
                    self, i, j, got, want, tol
                ));
            }
            worst = worst.max(err);
        }
        Ok(worst)
    }
}

/// The corners of an `n x n` matrix and pseudo-random positions, 4096 in all.
fn positions(n: usize) -> impl Iterator<Item = (usize, usize)> {
    let corners = [(0, 0), (0, n - 1), (n - 1, 0), (n - 1, n - 1)];
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    let random = (0..4092).map(move |_| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        ((s >> 20) as usize % n, (s >> 42) as usize % n)
    });
    corners.into_iter().chain(random)
}

/// A size argument: a positive multiple of 128, at most 32768.
pub fn parse_size(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(v) if v > 0 && v % 128 == 0 && v <= 32768 => Ok(v),
        _ => Err(format!(
            "size `{}`: give M = N = K as a positive multiple of 128 (the pipelined kernel's tile), at most 32768",
            s
        )),
    }
}

/// One checked and timed case.
pub struct Row {
    /// The case.
    pub case: Case,
    /// Median milliseconds (NaN when not timed).
    pub ms: f32,
    /// The largest error at the checked positions.
    pub max_err: f64,
}

impl Row {
    /// TFLOP/s: `2 m n k` per run.
    pub fn tflops(&self) -> f64 {
        2.0 * (self.case.size as f64).powi(3) / (self.ms as f64 * 1e-3) / 1e12
    }

    /// The table's header.
    pub fn header() -> String {
        format!(
            "4096 positions of C checked per case (f32 accumulation bound + 1 ulp); median of 10 (CUDA events)\n{:16} {:5} {:5} {:>6} {:>9} {:>8} {:>9}",
            "kernel", "dtype", "B", "size", "ms", "TFLOP/s", "max err"
        )
    }

    /// The row as one JSON object.
    pub fn json(&self) -> String {
        let c = &self.case;
        let num = |x: f64| {
            if x.is_finite() {
                format!("{}", x)
            } else {
                "null".into()
            }
        };
        format!(
            "{{\"kernel\": \"{}\", \"dtype\": \"{}\", \"b\": \"{}\", \"m\": {s}, \"n\": {s}, \"k\": {s}, \"ms\": {}, \"tflops\": {}, \"max_err\": {}, \"ok\": true}}",
            c.kernel.name(),
            c.dtype,
            if c.b_col_major { "col" } else { "row" },
            num(self.ms as f64),
            num(self.tflops()),
            num(self.max_err),
            s = c.size
        )
    }
}

impl fmt::Display for Row {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = &self.case;
        write!(
            f,
            "{:16} {:5} {:5} {:>6} {:>9.3} {:>8.1} {:>9.2e}",
            c.kernel.name(),
            c.dtype,
            if c.b_col_major { "col" } else { "row" },
            c.size,
            self.ms,
            self.tflops(),
            self.max_err
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_multiples_of_the_tile() {
        assert_eq!(parse_size("4096"), Ok(4096));
        for bad in ["0", "100", "x", "65536", "-128"] {
            assert!(
                parse_size(bad).unwrap_err().contains("multiple of 128"),
                "{}",
                bad
            );
        }
    }

    /// The reference accepts the exact product and refuses one off by 2 ulp.
    #[test]
    fn the_check_catches_a_wrong_element() {
        let case = Case {
            kernel: Kernel::Pipelined,
            dtype: "f16",
            b_col_major: true,
            size: 128,
        };
        let (a, b) = (
            case.operand::<half::f16>(128 * 128, 1),
            case.operand::<half::f16>(128 * 128, 2),
        );
        let mut c: Vec<half::f16> = (0..128 * 128)
            .map(|x| {
                let (i, j) = (x / 128, x % 128);
                let s: f32 = (0..128)
                    .map(|k| a[i * 128 + k].to_f32() * b[j * 128 + k].to_f32())
                    .sum();
                half::f16::from_f32(s)
            })
            .collect();
        assert!(case.check(&a, &b, &c).is_ok());
        let bad = c[0].to_f32() + 4.0 * c[0].to_f32().abs().max(1.0) / 1024.0;
        c[0] = half::f16::from_f32(bad);
        assert!(case.check(&a, &b, &c).unwrap_err().contains("C[0][0]"));
    }
}
