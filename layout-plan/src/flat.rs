//! Layouts as the planner reads them: each basis one `u64` of tensor-coordinate bits (dim 0's
//! bits lowest), in fixed-size tables so that planning is `const fn` (the runtime plans
//! generic conversions while the compiler evaluates a const), and a small GF(2) span that says
//! which bases make a vector.
//!
//! Contract: a [`Flat`] holds at most [`MAX_BASES`] bases per in-dim and 63 coordinate bits in
//! all; [`Flat::add`] reports an error past either limit instead of dropping bits.

use crate::fixed::FixedList;

/// The most bases one in-dim of a [`Flat`] holds (a thread with 2^32 registers is past any
/// layout a kernel holds).
pub const MAX_BASES: usize = 32;

/// The most vectors a [`Span`] takes: its combinations are `u64` masks.
pub const MAX_SPAN: usize = 64;

/// One in-dim's bases, flattened, in a fixed-size table.
pub type Bases = FixedList<u64, MAX_BASES>;

impl Bases {
    /// No bases.
    pub const EMPTY: Bases = FixedList::new(0);

    /// The bases that are not zero (register broadcasting left out).
    pub const fn non_zero(&self) -> Bases {
        let mut out = Bases::EMPTY;
        let mut i = 0;
        while i < self.len() {
            if self.get(i) != 0 {
                out.push(self.get(i));
            }
            i += 1;
        }
        out
    }

    /// Whether both hold the same bases in the same order (`==`, in a `const fn`).
    pub const fn same(&self, other: &Bases) -> bool {
        if self.len() != other.len() {
            return false;
        }
        let mut i = 0;
        while i < self.len() {
            if self.get(i) != other.get(i) {
                return false;
            }
            i += 1;
        }
        true
    }
}

/// The in-dims of a distributed layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HwDim {
    /// `register`.
    Register,
    /// `lane`.
    Lane,
    /// `warp`.
    Warp,
    /// `block`.
    Block,
}

impl HwDim {
    /// The in-dim called `name` (`register`, `lane`, `warp` or `block`).
    pub const fn named(name: &str) -> Option<HwDim> {
        match name.as_bytes() {
            b"register" => Some(HwDim::Register),
            b"lane" => Some(HwDim::Lane),
            b"warp" => Some(HwDim::Warp),
            b"block" => Some(HwDim::Block),
            _ => None,
        }
    }
}

/// Why a layout cannot be flattened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlatError {
    /// More than 63 coordinate bits (the count).
    TooManyBits(u32),
    /// More than [`MAX_BASES`] bases in one in-dim.
    TooManyBases,
    /// More than 8 dims.
    TooManyDims(usize),
}

/// The most tensor dims a [`Flat`] has.
pub const MAX_RANK: usize = 8;

/// A distributed layout's bases, flattened (dim 0 lowest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flat {
    /// Register bases.
    pub reg: Bases,
    /// Lane bases.
    pub lane: Bases,
    /// Warp bases.
    pub warp: Bases,
    /// Block bases.
    pub block: Bases,
    /// Bit position of each out-dim's lowest bit (`rank` of them).
    pub dim_shift: [u32; MAX_RANK],
    /// Tensor rank.
    pub rank: usize,
    /// Total coordinate bits.
    pub total_bits: u32,
}

impl Flat {
    /// A layout of a tensor of `shape` (powers of two) with no bases yet.
    pub const fn new(shape: &[u32]) -> Result<Flat, FlatError> {
        if shape.len() > MAX_RANK {
            return Err(FlatError::TooManyDims(shape.len()));
        }
        let mut dim_shift = [0; MAX_RANK];
        let mut total = 0u32;
        let mut k = 0;
        while k < shape.len() {
            dim_shift[k] = total;
            total += shape[k].trailing_zeros();
            k += 1;
        }
        if total > 63 {
            return Err(FlatError::TooManyBits(total));
        }
        Ok(Flat {
            reg: Bases::EMPTY,
            lane: Bases::EMPTY,
            warp: Bases::EMPTY,
            block: Bases::EMPTY,
            dim_shift,
            rank: shape.len(),
            total_bits: total,
        })
    }

    /// The flattened vector of one basis, given as its coordinates (dim 0 first).
    pub const fn flatten(&self, coords: &[u32]) -> u64 {
        let mut v = 0u64;
        let mut k = 0;
        while k < coords.len() && k < self.rank {
            v |= (coords[k] as u64) << self.dim_shift[k];
            k += 1;
        }
        v
    }

    /// Append a basis, given as its coordinates, to in-dim `dim`.
    pub const fn add(&mut self, dim: HwDim, coords: &[u32]) -> Result<(), FlatError> {
        let v = self.flatten(coords);
        let ok = match dim {
            HwDim::Register => self.reg.try_push(v),
            HwDim::Lane => self.lane.try_push(v),
            HwDim::Warp => self.warp.try_push(v),
            HwDim::Block => self.block.try_push(v),
        };
        if ok {
            Ok(())
        } else {
            Err(FlatError::TooManyBases)
        }
    }

    /// Append the bases of the in-dim called `name`, given as `rank` coordinates per basis
    /// (dim 0 first, bit 0's basis first: a `layout!` type's tables); in-dims other than
    /// `register, lane, warp, block` are left out.
    pub const fn add_in_dim(&mut self, name: &str, coords: &[u32]) -> Result<(), FlatError> {
        let Some(dim) = HwDim::named(name) else {
            return Ok(());
        };
        let mut at = 0;
        while self.rank > 0 && at + self.rank <= coords.len() {
            if let Err(e) = self.add(dim, crate::slices::range(coords, at, at + self.rank)) {
                return Err(e);
            }
            at += self.rank;
        }
        Ok(())
    }

    /// The bit position of each out-dim's lowest bit.
    pub const fn dim_shifts(&self) -> &[u32] {
        self.dim_shift.split_at(self.rank).0
    }
}

/// XOR of the `bases` selected by the bits of `mask`.
pub const fn combine(bases: &[u64], mask: u64) -> u64 {
    let mut acc = 0;
    let mut i = 0;
    while i < bases.len() && i < 64 {
        if (mask >> i) & 1 == 1 {
            acc ^= bases[i];
        }
        i += 1;
    }
    acc
}

/// Row-reduced vectors, each with the combination of original vectors it is. Rows have
/// distinct leading bits (an echelon form, in the order they came); a reduction follows the
/// leading bit of what is left, so that it takes one step per row it uses, not per row held.
/// Any echelon form gives the same answers: the original vectors that are rows form a basis of
/// the span, so each vector of it has one combination of them.
#[derive(Clone, Copy, Debug)]
pub struct Span {
    rows: [(u64, u64); MAX_SPAN],
    /// For each bit, 1 + the row that leads with it, or 0.
    lead: [u8; 64],
    len: usize,
}

impl Span {
    /// The span of `vs` (at most [`MAX_SPAN`]: more is a planner bug, a panic, which in a const
    /// is a compile error); vector `i` is bit `i` of a combination.
    pub const fn new(vs: &[u64]) -> Span {
        if vs.len() > MAX_SPAN {
            panic!("layout_plan::flat::Span: more vectors than a combination has bits; please report the layouts named below");
        }
        let mut s = Span {
            rows: [(0, 0); MAX_SPAN],
            lead: [0; 64],
            len: 0,
        };
        let mut i = 0;
        while i < vs.len() {
            s.insert(vs[i], 1u64 << i);
            i += 1;
        }
        s
    }

    /// Add `v` as original vector `i` (below [`MAX_SPAN`]): the span of `vs` plus `v`, where
    /// `vs` are the vectors before it, without making it again.
    pub const fn add(&mut self, v: u64, i: usize) {
        self.insert(v, 1u64 << i);
    }

    const fn reduce(&self, mut v: u64, mut c: u64) -> (u64, u64) {
        while v != 0 {
            let r = self.lead[63 - v.leading_zeros() as usize];
            if r == 0 {
                break;
            }
            let (rv, rc) = self.rows[r as usize - 1];
            v ^= rv;
            c ^= rc;
        }
        (v, c)
    }

    const fn insert(&mut self, v: u64, c: u64) {
        let (v, c) = self.reduce(v, c);
        if v == 0 {
            return;
        }
        self.rows[self.len] = (v, c);
        self.len += 1;
        self.lead[63 - v.leading_zeros() as usize] = self.len as u8;
    }

    /// The dimension of the span.
    pub const fn rank(&self) -> usize {
        self.len
    }

    /// A combination of the original vectors that XORs to `v` (dependent vectors unused), if any.
    pub const fn express(&self, v: u64) -> Option<u64> {
        let (r, c) = self.reduce(v, 0);
        if r == 0 {
            Some(c)
        } else {
            None
        }
    }

    /// Whether `v` is in the span.
    pub const fn contains(&self, v: u64) -> bool {
        self.reduce(v, 0).0 == 0
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

    #[test]
    fn flat_places_each_dim_after_the_last() {
        let mut f = Flat::new(&[4, 8]).unwrap();
        f.add(HwDim::Lane, &[0, 2]).unwrap();
        f.add(HwDim::Register, &[1, 0]).unwrap();
        assert_eq!(f.lane.as_slice(), &[0b1000]);
        assert_eq!(f.reg.as_slice(), &[0b1]);
        assert_eq!(f.total_bits, 5);
        assert_eq!(
            Flat::new(&[1 << 31, 1 << 31, 4]),
            Err(FlatError::TooManyBits(64))
        );
    }
}
