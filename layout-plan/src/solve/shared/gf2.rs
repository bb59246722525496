//! Lists of flattened tensor vectors and the GF(2) operations the shared-memory planner builds
//! its layouts from (Triton's `nullspaceBasis`, `intersectionBasis`, `complementBasis`), as
//! `const fn` over fixed-size lists.

use crate::fixed::FixedList;
use crate::flat::MAX_SPAN;

/// Up to 64 flattened vectors (a tensor has at most 63 coordinate bits).
pub type Vecs = FixedList<u64, MAX_SPAN>;

/// No vectors.
pub const NONE: Vecs = FixedList::new(0);

/// The vectors of `vs` (the first 64).
pub const fn vecs(vs: &[u64]) -> Vecs {
    let mut out = NONE;
    let mut i = 0;
    while i < vs.len() && i < MAX_SPAN {
        out.push(vs[i]);
        i += 1;
    }
    out
}

/// Whether `v` is one of `vs`.
pub const fn contains(vs: &[u64], v: u64) -> bool {
    let mut i = 0;
    while i < vs.len() {
        if vs[i] == v {
            return true;
        }
        i += 1;
    }
    false
}

/// `vs` without its zero vectors.
pub const fn non_zero(vs: &[u64]) -> Vecs {
    let mut out = NONE;
    let mut i = 0;
    while i < vs.len() {
        if vs[i] != 0 {
            out.push(vs[i]);
        }
        i += 1;
    }
    out
}

/// `a` followed by `b` (what fits of 64).
pub const fn concat(a: &[u64], b: &[u64]) -> Vecs {
    let mut out = vecs(a);
    out.extend(b);
    out
}

/// The nonzero rows of the reduced row echelon form of `rows` over `dim` columns, each row's
/// pivot at its lowest set bit, in pivot order (f2reduce's convention in Triton; the form is
/// unique, so any elimination order gives it).
pub const fn rref(rows: &[u64], dim: u32) -> Vecs {
    let mut m = vecs(rows);
    let mut rank = 0;
    let mut col = 0;
    while col < dim && col < 64 {
        let bit = 1u64 << col;
        let mut p = rank;
        while p < m.len() && m.get(p) & bit == 0 {
            p += 1;
        }
        if p < m.len() {
            let row = m.get(p);
            m.set(p, m.get(rank));
            m.set(rank, row);
            let mut i = 0;
            while i < m.len() {
                if i != rank && m.get(i) & bit != 0 {
                    m.set(i, m.get(i) ^ row);
                }
                i += 1;
            }
            rank += 1;
        }
        col += 1;
    }
    m.truncate(rank);
    m
}

/// Whether column `c` is a pivot of `m` (an [`rref`]).
const fn is_pivot(m: &Vecs, c: u32) -> bool {
    let mut i = 0;
    while i < m.len() {
        if m.get(i).trailing_zeros() == c {
            return true;
        }
        i += 1;
    }
    false
}

/// `nullspaceBasis`: vectors `x` with `<v, x> = 0` for every `v` of `vs`.
pub const fn nullspace(vs: &[u64], dim: u32) -> Vecs {
    let m = rref(vs, dim);
    let mut out = NONE;
    let mut free = 0;
    while free < dim {
        if !is_pivot(&m, free) {
            let mut v = 1u64 << free;
            let mut i = 0;
            while i < m.len() {
                let r = m.get(i);
                if (r >> free) & 1 == 1 {
                    v ^= 1 << r.trailing_zeros();
                }
                i += 1;
            }
            out.push(v);
        }
        free += 1;
    }
    out
}

/// Whether every vector has at most one bit set.
const fn all_unit(vs: &[u64]) -> bool {
    let mut i = 0;
    while i < vs.len() {
        if vs[i].count_ones() > 1 {
            return false;
        }
        i += 1;
    }
    true
}

/// `intersectionBasis`: for unit vectors, those of `b1` also in `b2`, in `b1`'s order.
pub const fn intersection(b1: &[u64], b2: &[u64], dim: u32) -> Vecs {
    if all_unit(b1) && all_unit(b2) {
        let mut out = NONE;
        let mut i = 0;
        while i < b1.len() {
            if b1[i] != 0 && contains(b2, b1[i]) {
                out.push(b1[i]);
            }
            i += 1;
        }
        return out;
    }
    let n1 = nullspace(b1, dim);
    let n2 = nullspace(b2, dim);
    let joint = concat(n1.as_slice(), n2.as_slice());
    nullspace(joint.as_slice(), dim)
}

/// `complementBasis`: unit vectors of the columns that are no pivot of `basis`.
pub const fn complement(basis: &[u64], dim: u32) -> Vecs {
    let m = rref(basis, dim);
    let mut out = NONE;
    let mut c = 0;
    while c < dim {
        if !is_pivot(&m, c) {
            out.push(1u64 << c);
        }
        c += 1;
    }
    out
}

/// Sort `v` ascending in place.
pub const fn sort(v: &mut Vecs) {
    let mut i = 1;
    while i < v.len() {
        let x = v.get(i);
        let mut j = i;
        while j > 0 && v.get(j - 1) > x {
            v.set(j, v.get(j - 1));
            j -= 1;
        }
        v.set(j, x);
        i += 1;
    }
}

/// Drop consecutive repeats.
pub const fn dedup(v: &mut Vecs) {
    let mut out = NONE;
    let mut i = 0;
    while i < v.len() {
        if i == 0 || v.get(i) != v.get(i - 1) {
            out.push(v.get(i));
        }
        i += 1;
    }
    *v = out;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nullspace_and_intersection() {
        assert_eq!(intersection(&[1, 2, 4], &[4, 1], 3).as_slice(), &[1, 4]);
        let i = intersection(&[0b011, 0b100], &[0b011, 0b001], 3);
        assert_eq!(i.as_slice(), &[0b011]);
        assert_eq!(rref(&[0b110, 0b011], 3).as_slice(), &[0b101, 0b110]);
        assert_eq!(complement(&[0b110], 3).as_slice(), &[1, 4]);
    }
}
