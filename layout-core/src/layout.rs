//! The [`LinearLayout`] value: its representation, invariants, accessors, equality and printing.
//!
//! Mirrors `include/triton/Tools/LinearLayout.h`: bases per in-dim (`bases[in][i]` is the image
//! of `in = 2^i`), out-dims with power-of-two sizes, both in minor-to-major order.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;
use core::hash::{Hash, Hasher};

use crate::error::bail;
use crate::f2;
use crate::Result;

/// The bases of one layout: for each in-dim in order, its name and `log2(size)` basis vectors,
/// each with one component per out-dim.
pub type Bases = Vec<(String, Vec<Vec<i32>>)>;

/// A linear map over GF(2) from named input dimensions to named output dimensions.
///
/// See the crate docs. Names follow Triton: [`LinearLayout::identity_1d`] is `identity1D`,
/// [`LinearLayout::invert_and_compose`] is `invertAndCompose`, `a * b` is `operator*`.
#[derive(Clone, Debug, Default)]
pub struct LinearLayout {
    pub(crate) bases: Bases,
    pub(crate) out_dims: Vec<(String, i32)>,
    /// GF(2) rank of the basis matrix, cached as Triton does.
    pub(crate) rank: u32,
}

/// Triton limits a layout to 64 input bits and 64 output bits (one `uint64_t` per matrix row);
/// one fewer here, so that `total_in_dim_size` and `total_out_dim_size` fit a `u64`.
pub const MAX_BITS: i32 = 63;

/// Triton keeps each in-dim's size in an `int32`, so a dim has at most 2^30 elements.
pub const MAX_DIM_BITS: i32 = 30;

/// An in-dim of `2^bits` elements fits Triton's `int32` sizes.
pub(crate) fn check_in_dim_bits(dim: &str, bits: i32) -> Result<()> {
    if bits > MAX_DIM_BITS {
        bail!(
            "in-dim '{}' has 2^{} elements; an in-dim holds at most 2^{} (its size is an int32, as in Triton): use a smaller shape",
            dim,
            bits,
            MAX_DIM_BITS
        );
    }
    Ok(())
}

pub(crate) fn is_pow2(x: i64) -> bool {
    x > 0 && (x & (x - 1)) == 0
}

pub(crate) fn log2(x: i32) -> i32 {
    31 - (x.max(1) as u32).leading_zeros() as i32
}

/// `llvm::NextPowerOf2`: the smallest power of two strictly greater than `x`.
pub(crate) fn next_power_of_2(x: i32) -> i64 {
    let mut p = 1i64;
    while p <= x as i64 {
        p <<= 1;
    }
    p
}

impl LinearLayout {
    /// The 0-dimensional layout, the identity of `*`.
    pub fn empty() -> Self {
        LinearLayout::default()
    }

    /// Build from bases and explicit out-dim sizes, checking the invariants (and surjectivity if
    /// asked). Triton's `LinearLayout(bases, outDims, requireSurjective)`.
    pub fn from_parts(
        bases: Bases,
        out_dims: Vec<(String, i32)>,
        require_surjective: bool,
    ) -> Result<Self> {
        let mut ll = LinearLayout {
            bases,
            out_dims,
            rank: 0,
        };
        ll.check_invariants(require_surjective)?;
        Ok(ll)
    }

    /// Build from bases, inferring each out-dim's size as the smallest power of two above every
    /// basis component; the result must be surjective. Triton's `LinearLayout(bases, outDimNames)`.
    pub fn from_bases<S: AsRef<str>>(bases: Bases, out_dim_names: &[S]) -> Result<Self> {
        let mut sizes: Vec<i64> = alloc::vec![1; out_dim_names.len()];
        for (in_dim, vs) in &bases {
            for b in vs {
                if b.len() != out_dim_names.len() {
                    bail!(
                        "basis {:?} of in-dim '{}' has {} components, but there are {} out-dims",
                        b,
                        in_dim,
                        b.len(),
                        out_dim_names.len()
                    );
                }
                for (i, &v) in b.iter().enumerate() {
                    if v < 0 {
                        bail!(
                            "basis {:?} of in-dim '{}' has a negative component",
                            b,
                            in_dim
                        );
                    }
                    sizes[i] = sizes[i].max(next_power_of_2(v));
                }
            }
        }
        let mut out_dims = Vec::with_capacity(out_dim_names.len());
        for (n, s) in out_dim_names.iter().zip(sizes) {
            if s > i32::MAX as i64 {
                bail!("out-dim '{}' would need size {}, above 2^30", n.as_ref(), s);
            }
            out_dims.push((n.as_ref().to_string(), s as i32));
        }
        Self::from_parts(bases, out_dims, true)
    }

    /// Build without checking; callers guarantee the invariants. The rank is still computed.
    pub(crate) fn new_unchecked(bases: Bases, out_dims: Vec<(String, i32)>) -> Self {
        let mut ll = LinearLayout {
            bases,
            out_dims,
            rank: 0,
        };
        ll.rank = ll.compute_rank();
        ll
    }

    /// `strided1D`: `L(x) = stride * x` for `x` in `[0, size)`; `size == 0` gives the empty layout.
    pub fn strided_1d(size: i32, stride: i32, in_dim: &str, out_dim: &str) -> Result<Self> {
        if size == 0 {
            return Ok(Self::empty());
        }
        if !is_pow2(size as i64) || !is_pow2(stride as i64) {
            bail!(
                "strided1D needs a power-of-two size and stride, got size {} and stride {}",
                size,
                stride
            );
        }
        let out = size as i64 * stride as i64;
        if out > 1 << 30 {
            bail!("strided1D({}, {}) is too large", size, stride);
        }
        let mut b = Vec::new();
        let mut i = 1;
        while i < size {
            b.push(alloc::vec![i * stride]);
            i *= 2;
        }
        Ok(Self::new_unchecked(
            alloc::vec![(in_dim.to_string(), b)],
            alloc::vec![(out_dim.to_string(), out as i32)],
        ))
    }

    /// `identity1D`: `L(x) = x` for `x` in `[0, size)`.
    pub fn identity_1d(size: i32, in_dim: &str, out_dim: &str) -> Result<Self> {
        Self::strided_1d(size, 1, in_dim, out_dim)
    }

    /// `zeros1D`: `L(x) = 0` for `x` in `[0, size)`, with out-dim size `out_dim_size`.
    pub fn zeros_1d(size: i32, in_dim: &str, out_dim: &str, out_dim_size: i32) -> Result<Self> {
        if size == 0 {
            return Ok(Self::empty());
        }
        if !is_pow2(size as i64) || !is_pow2(out_dim_size as i64) {
            bail!(
                "zeros1D needs power-of-two sizes, got size {} and out-dim size {}",
                size,
                out_dim_size
            );
        }
        let n = log2(size) as usize;
        Ok(Self::new_unchecked(
            alloc::vec![(in_dim.to_string(), alloc::vec![alloc::vec![0]; n])],
            alloc::vec![(out_dim.to_string(), out_dim_size)],
        ))
    }

    pub(crate) fn check_invariants(&mut self, require_surjective: bool) -> Result<()> {
        let n_out = self.out_dims.len();
        for (in_dim, vs) in &self.bases {
            check_in_dim_bits(in_dim, vs.len() as i32)?;
            for b in vs {
                if b.iter().any(|&v| v < 0) {
                    bail!(
                        "invalid bases: in-dim '{}' has a negative basis value in {:?}",
                        in_dim,
                        b
                    );
                }
                if b.len() != n_out {
                    bail!(
                        "invalid bases: basis {:?} of in-dim '{}' has {} components, expected one per out-dim ({})",
                        b, in_dim, b.len(), n_out
                    );
                }
            }
        }
        for (name, size) in &self.out_dims {
            if !is_pow2(*size as i64) {
                bail!(
                    "invalid out-dim size {} for out-dim '{}': out-dim sizes must be powers of 2",
                    size,
                    name
                );
            }
        }
        for (in_dim, vs) in &self.bases {
            for b in vs {
                for (i, &v) in b.iter().enumerate() {
                    if v >= self.out_dims[i].1 {
                        bail!(
                            "invalid basis {} for in-dim '{}' and out-dim '{}': it must be less than the out-dim size {}",
                            v, in_dim, self.out_dims[i].0, self.out_dims[i].1
                        );
                    }
                }
            }
        }
        for (i, (a, _)) in self.bases.iter().enumerate() {
            if self.bases[..i].iter().any(|(b, _)| b == a) {
                bail!("in-dim '{}' appears twice", a);
            }
        }
        for (i, (a, _)) in self.out_dims.iter().enumerate() {
            if self.out_dims[..i].iter().any(|(b, _)| b == a) {
                bail!("out-dim '{}' appears twice", a);
            }
        }
        if self.total_in_dim_size_log2() > MAX_BITS || self.total_out_dim_size_log2() > MAX_BITS {
            bail!(
                "layout too large: {} in-bits and {} out-bits, at most {} of each: use a smaller shape",
                self.total_in_dim_size_log2(),
                self.total_out_dim_size_log2(),
                MAX_BITS
            );
        }
        self.rank = self.compute_rank();
        if require_surjective && !self.is_surjective() {
            bail!(
                "layout is expected to be surjective, i.e. every `out` coordinate can be reached by some `in` coordinate, but was not:{}",
                self
            );
        }
        Ok(())
    }

    fn compute_rank(&self) -> u32 {
        let mut m = self.matrix();
        f2::rref(&mut m, self.total_in_dim_size_log2() as u32) as u32
    }

    /// Triton's `getMatrix`: one row per out-bit (out-dims in order, low bits first), one column
    /// per in-bit (in-dims in order).
    pub(crate) fn matrix(&self) -> Vec<u128> {
        let mut m = alloc::vec![0u128; self.total_out_dim_size_log2() as usize];
        let mut r = 0usize;
        for (o, (_, size)) in self.out_dims.iter().enumerate() {
            let nbits = log2(*size) as usize;
            let mut c = 0;
            for (_, vs) in &self.bases {
                for b in vs {
                    let v = b[o] as u32;
                    for j in 0..nbits {
                        m[r + j] |= (((v >> j) & 1) as u128) << c;
                    }
                    c += 1;
                }
            }
            r += nbits;
        }
        m
    }

    // ----- accessors -----

    /// The bases, per in-dim.
    pub fn bases(&self) -> &Bases {
        &self.bases
    }
    /// The bases of one in-dim, if present.
    pub fn in_dim_bases(&self, in_dim: &str) -> Option<&[Vec<i32>]> {
        self.in_dim_pos(in_dim).map(|i| &self.bases[i].1[..])
    }
    /// `getBasis(inDim, pos, outDim)`: component `out_dim` of basis `pos` of `in_dim`.
    pub fn basis(&self, in_dim: &str, pos: usize, out_dim: &str) -> Option<i32> {
        let o = self.out_dim_index(out_dim)?;
        self.in_dim_bases(in_dim)?.get(pos).map(|b| b[o])
    }
    /// In-dim names, minor to major.
    pub fn in_dim_names(&self) -> impl Iterator<Item = &str> + '_ {
        self.bases.iter().map(|(n, _)| n.as_str())
    }
    /// Out-dim names, minor to major.
    pub fn out_dim_names(&self) -> impl Iterator<Item = &str> + '_ {
        self.out_dims.iter().map(|(n, _)| n.as_str())
    }
    /// Out-dims with their sizes.
    pub fn out_dims(&self) -> &[(String, i32)] {
        &self.out_dims
    }
    /// In-dims with their sizes.
    pub fn in_dims(&self) -> Vec<(String, i32)> {
        self.bases
            .iter()
            .map(|(n, b)| (n.clone(), 1i32 << b.len()))
            .collect()
    }
    /// Number of in-dims.
    pub fn num_in_dims(&self) -> usize {
        self.bases.len()
    }
    /// Number of out-dims.
    pub fn num_out_dims(&self) -> usize {
        self.out_dims.len()
    }
    pub(crate) fn in_dim_pos(&self, d: &str) -> Option<usize> {
        self.bases.iter().position(|(n, _)| n == d)
    }
    /// The position of in-dim `d` among the in-dims, as [`LinearLayout::out_dim_index`].
    pub fn in_dim_index(&self, d: &str) -> Option<usize> {
        self.in_dim_pos(d)
    }
    /// `getOutDimIndex`.
    pub fn out_dim_index(&self, d: &str) -> Option<usize> {
        self.out_dims.iter().position(|(n, _)| n == d)
    }
    /// `hasInDim`.
    pub fn has_in_dim(&self, d: &str) -> bool {
        self.in_dim_pos(d).is_some()
    }
    /// `hasOutDim`.
    pub fn has_out_dim(&self, d: &str) -> bool {
        self.out_dim_index(d).is_some()
    }
    /// `getInDimSizeLog2`; 0 for an absent dim.
    pub fn in_dim_size_log2(&self, d: &str) -> i32 {
        self.in_dim_bases(d).map_or(0, |b| b.len() as i32)
    }
    /// `getInDimSize`; 1 for an absent dim.
    pub fn in_dim_size(&self, d: &str) -> i32 {
        1 << self.in_dim_size_log2(d)
    }
    /// `getOutDimSizeLog2`; 0 for an absent dim.
    pub fn out_dim_size_log2(&self, d: &str) -> i32 {
        log2(self.out_dim_size(d))
    }
    /// `getOutDimSize`; 1 for an absent dim.
    pub fn out_dim_size(&self, d: &str) -> i32 {
        self.out_dim_index(d).map_or(1, |i| self.out_dims[i].1)
    }
    /// `getTotalInDimSizeLog2`.
    pub fn total_in_dim_size_log2(&self) -> i32 {
        self.bases.iter().map(|(_, b)| b.len() as i32).sum()
    }
    /// `getTotalInDimSize`.
    pub fn total_in_dim_size(&self) -> u64 {
        1u64 << self.total_in_dim_size_log2()
    }
    /// `getTotalOutDimSizeLog2`.
    pub fn total_out_dim_size_log2(&self) -> i32 {
        self.out_dims.iter().map(|(_, s)| log2(*s)).sum()
    }
    /// `getTotalOutDimSize`.
    pub fn total_out_dim_size(&self) -> u64 {
        1u64 << self.total_out_dim_size_log2()
    }
    /// The GF(2) rank of the basis matrix.
    pub fn rank(&self) -> u32 {
        self.rank
    }
    /// Every out coordinate is reached.
    pub fn is_surjective(&self) -> bool {
        self.rank as i32 == self.total_out_dim_size_log2()
    }
    /// No two in coordinates map to the same out coordinate.
    pub fn is_injective(&self) -> bool {
        self.rank as i32 == self.total_in_dim_size_log2()
    }
    /// Surjective and square.
    pub fn is_invertible(&self) -> bool {
        self.is_surjective() && self.total_in_dim_size_log2() == self.total_out_dim_size_log2()
    }

    /// Structural equality ignoring out-dim sizes (`equalIgnoringOutDimSizes`).
    pub fn equal_ignoring_out_dim_sizes(&self, other: &Self) -> bool {
        self.out_dims.len() == other.out_dims.len()
            && self
                .out_dims
                .iter()
                .zip(&other.out_dims)
                .all(|(a, b)| a.0 == b.0)
            && self.bases == other.bases
    }

    /// `getNumConsecutiveInOut`: how many consecutive in values of the first in-dim map to
    /// consecutive values of the first out-dim (a power of two).
    pub fn num_consecutive_in_out(&self) -> i32 {
        if self.bases.is_empty() || self.out_dims.is_empty() {
            return 1;
        }
        let first = &self.bases[0].1;
        let mut consec = 0;
        while consec < first.len() {
            let b = &first[consec];
            if b[0] != (1 << consec) || b[1..].iter().any(|&x| x != 0) {
                break;
            }
            consec += 1;
        }
        let mut other = 0i32;
        for (d, (_, vs)) in self.bases.iter().enumerate() {
            for (i, b) in vs.iter().enumerate() {
                if d != 0 || i >= consec {
                    other |= b[0];
                }
            }
        }
        let tz = if other != 0 {
            other.trailing_zeros() as usize
        } else {
            31
        };
        1 << consec.min(tz)
    }
}

impl PartialEq for LinearLayout {
    fn eq(&self, other: &Self) -> bool {
        self.equal_ignoring_out_dim_sizes(other)
            && self
                .out_dims
                .iter()
                .zip(&other.out_dims)
                .all(|(a, b)| a.1 == b.1)
    }
}
impl Eq for LinearLayout {}

impl Hash for LinearLayout {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // Not the cached rank: it is derived.
        self.bases.hash(state);
        self.out_dims.hash(state);
    }
}

impl fmt::Display for LinearLayout {
    /// Exactly Triton's `LinearLayout::toString`, leading newline included.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut outs = String::from("[");
        for (i, (n, s)) in self.out_dims.iter().enumerate() {
            if i > 0 {
                outs.push_str(", ");
            }
            outs.push_str(&alloc::format!("{} (size {})", n, s));
        }
        outs.push(']');
        if self.bases.is_empty() {
            return if self.out_dims.is_empty() {
                f.write_str("\n(empty layout)")
            } else {
                write!(f, "\n(empty layout with out-dims {})", outs)
            };
        }
        f.write_str("\n")?;
        for (in_dim, vs) in &self.bases {
            if vs.is_empty() {
                writeln!(f, " - {} is a size 1 dimension", in_dim)?;
                continue;
            }
            f.write_str(" - ")?;
            for (i, b) in vs.iter().enumerate() {
                if i > 0 {
                    f.write_str("\n   ")?;
                }
                write!(f, "{}={} -> (", in_dim, 1i64 << i)?;
                for (j, v) in b.iter().enumerate() {
                    if j > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}", v)?;
                }
                f.write_str(")")?;
            }
            f.write_str("\n")?;
        }
        write!(f, "where out dims are: {}", outs)
    }
}
