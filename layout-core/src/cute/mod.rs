//! CuTe's layout notation, both ways.
//!
//! A CuTe layout `(shape):(stride)` maps a coordinate to an integer by adding `coord * stride`
//! over its modes. With power-of-two modes whose strides reach disjoint bits, that sum is an XOR:
//! the layout is linear over GF(2), and so is a `Swizzle<B, M, S>` composed on top. This module
//! reads such layouts ([`parse_cute`], [`Cute::to_linear_layout`]) as
//!
//! * a shared-memory layout: tensor coordinates -> offset, inverted into Triton's
//!   `offset, block -> dims` (the form CuTe users write their shared memory in);
//! * a thread-value layout `tv((thread, value):(...))`: (thread, value) -> index into the tile,
//!   colexicographic as CuTe's (dim0 fastest); thread bits are lanes, then warps.
//!
//! and prints any linear layout in that notation when one exists ([`to_cute`]), or says why not:
//! an XOR that no stride can express, beyond what one swizzle undoes.

mod linear;
mod parse;
mod print;
mod swizzle;

use alloc::string::String;
use alloc::vec::Vec;

pub use parse::{looks_like_cute, parse_cute};
pub use print::to_cute;
pub use swizzle::cute_swizzle;

/// CuTe's `Swizzle<B, M, S>`: `x ^ ((x & yyy) >> S)`, `yyy` being `B` bits from bit `M + S`
/// (`S < 0` shifts left).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Swizzle {
    /// Bits in the mask.
    pub b: i32,
    /// Least-significant bits kept constant.
    pub m: i32,
    /// How far the mask's bits move.
    pub s: i32,
}

/// A mode's size or stride, or a tuple of them, with where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IntTuple {
    /// An integer at bytes `at..at + len` of the text.
    Int {
        /// The value.
        value: i64,
        /// Its byte offset in the text.
        at: usize,
        /// Its length in bytes.
        len: usize,
    },
    /// A nested mode.
    Tuple(Vec<IntTuple>),
}

/// What a CuTe layout describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Tensor coordinates -> shared-memory offset (elements).
    Shared,
    /// (thread, value) -> index into the tile, `tv(...)`.
    ThreadValue,
}

/// A parsed CuTe layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cute {
    /// Shared or thread-value.
    pub kind: Kind,
    /// A swizzle composed on top (shared layouts), over element offsets: a `smem_ptr[16b]`
    /// form's byte-address `M` is converted (`Sw<3,4,3>` over halves is `Sw<3,3,3>` here).
    pub swizzle: Option<Swizzle>,
    /// The element width a `smem_ptr[16b]` form names.
    pub smem_ptr_bits: Option<u32>,
    /// The shape.
    pub shape: IntTuple,
    /// The stride, congruent with the shape.
    pub stride: IntTuple,
    text: String,
}

impl Swizzle {
    /// The swizzled offset.
    pub fn apply(&self, x: u64) -> u64 {
        let yyy = ((1u64 << self.b) - 1) << (self.m + self.s.max(0));
        let y = x & yyy;
        x ^ if self.s >= 0 {
            y >> self.s
        } else {
            y << -self.s
        }
    }

    /// One past the highest offset bit it reads or writes.
    pub fn top_bit(&self) -> u32 {
        (self.m + self.s.abs() + self.b) as u32
    }
}

impl core::fmt::Display for Swizzle {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Sw<{},{},{}>", self.b, self.m, self.s)
    }
}

impl core::fmt::Display for IntTuple {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            IntTuple::Int { value, .. } => write!(f, "{}", value),
            IntTuple::Tuple(items) => {
                f.write_str("(")?;
                for (i, t) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{}", t)?;
                }
                f.write_str(")")
            }
        }
    }
}

/// The layout in CuTe's own spelling, whatever the spacing it was written with: a
/// `smem_ptr[16b]` form keeps its byte-address swizzle (`Sw<3,4,3> o smem_ptr[16b](unset) o`).
impl core::fmt::Display for Cute {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // A lone integer mode prints bare in CuTe (`8:1`); a tuple brings its own parentheses.
        let body = alloc::format!("{}:{}", self.shape, self.stride);
        if self.kind == Kind::ThreadValue {
            return write!(f, "tv({})", body);
        }
        match (self.swizzle, self.smem_ptr_bits) {
            (Some(sw), Some(bits)) => {
                let bytes = Swizzle {
                    m: sw.m + (bits / 8).trailing_zeros() as i32,
                    ..sw
                };
                write!(f, "{} o smem_ptr[{}b](unset) o {}", bytes, bits, body)
            }
            (Some(sw), None) => write!(f, "{} o {}", sw, body),
            _ => f.write_str(&body),
        }
    }
}
