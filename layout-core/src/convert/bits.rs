//! Layouts as flat bit vectors for planning: each basis becomes one `u64` of tensor-coordinate
//! bits (dim 0's bits lowest), and a small GF(2) span that says which bases make a vector.

use alloc::vec::Vec;

use crate::error::bail;
use crate::{LinearLayout, Result};

/// A distributed layout's bases, flattened (dim 0 lowest).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlatLayout {
    /// Register bases.
    pub reg: Vec<u64>,
    /// Lane bases.
    pub lane: Vec<u64>,
    /// Warp bases.
    pub warp: Vec<u64>,
    /// Block bases.
    pub block: Vec<u64>,
    /// Bit position of each out-dim's lowest bit.
    pub dim_shift: Vec<u32>,
    /// Total coordinate bits.
    pub total_bits: u32,
}

impl FlatLayout {
    /// Flatten `l` (out-dims must be powers of two, 63 bits in all at most).
    pub fn new(l: &LinearLayout) -> Result<Self> {
        let mut dim_shift = Vec::new();
        let mut total = 0u32;
        for (_, s) in l.out_dims() {
            dim_shift.push(total);
            total += s.trailing_zeros();
        }
        if total > 63 {
            bail!(
                "the tensor has {} coordinate bits; at most 63 are supported",
                total
            );
        }
        let flat = |d: &str| flat_in_dim(l, d, &dim_shift);
        Ok(FlatLayout {
            reg: flat("register"),
            lane: flat("lane"),
            warp: flat("warp"),
            block: flat("block"),
            dim_shift,
            total_bits: total,
        })
    }
}

/// The bases of in-dim `d`, flattened with each out-dim's bits at `dim_shift`.
pub fn flat_in_dim(l: &LinearLayout, d: &str, dim_shift: &[u32]) -> Vec<u64> {
    l.in_dim_bases(d)
        .unwrap_or(&[])
        .iter()
        .map(|b| {
            b.iter()
                .zip(dim_shift)
                .fold(0u64, |acc, (&x, &sh)| acc | ((x as u64) << sh))
        })
        .collect()
}

/// XOR of the `bases` selected by the bits of `mask`.
pub fn combine(bases: &[u64], mask: u64) -> u64 {
    bases
        .iter()
        .enumerate()
        .filter(|(i, _)| (mask >> i) & 1 == 1)
        .fold(0, |a, (_, &b)| a ^ b)
}

/// Row-reduced vectors with the combination of original vectors each one is.
pub struct Span {
    rows: Vec<(u64, u64)>,
}

impl Span {
    /// The span of `vs`; vector `i` is bit `i` of a combination.
    pub fn new(vs: &[u64]) -> Self {
        let mut s = Span { rows: Vec::new() };
        for (i, &v) in vs.iter().enumerate() {
            s.insert(v, 1u64 << i);
        }
        s
    }

    fn reduce(&self, mut v: u64, mut c: u64) -> (u64, u64) {
        for &(r, rc) in &self.rows {
            let top = 63 - r.leading_zeros();
            if (v >> top) & 1 == 1 {
                v ^= r;
                c ^= rc;
            }
        }
        (v, c)
    }

    fn insert(&mut self, v: u64, c: u64) {
        let (v, c) = self.reduce(v, c);
        if v != 0 {
            // Keep rows sorted by leading bit, highest first, so that reduce is one pass.
            let top = v.leading_zeros();
            let pos = self
                .rows
                .iter()
                .position(|(r, _)| r.leading_zeros() > top)
                .unwrap_or(self.rows.len());
            self.rows.insert(pos, (v, c));
        }
    }

    /// The dimension of the span.
    pub fn rank(&self) -> usize {
        self.rows.len()
    }

    /// A combination of the original vectors that XORs to `v` (dependent vectors unused), if any.
    pub fn express(&self, v: u64) -> Option<u64> {
        let (r, c) = self.reduce(v, 0);
        (r == 0).then_some(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn span_expresses_combinations() {
        let s = Span::new(&[0b0011, 0b0110, 0, 0b0011]);
        assert_eq!(s.express(0b0101), Some(0b011));
        assert_eq!(s.express(0), Some(0));
        assert_eq!(s.express(0b1000), None);
        assert_eq!(s.rank(), 2);
    }
}
