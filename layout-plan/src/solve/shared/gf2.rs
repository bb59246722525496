//! Lists of flattened tensor vectors and the GF(2) operations the shared-memory planner builds
//! its layouts from (Triton's `nullspaceBasis`, `intersectionBasis`, `complementBasis`), as
//! `const fn` over fixed-size lists.

use crate::fixed::FixedList;
use crate::flat::MAX_SPAN;

/// Up to 64 flattened vectors (a tensor has at most 63 coordinate bits).
pub type Vecs = FixedList<u64, MAX_SPAN>;

/// No vectors.
pub const NONE: Vecs = FixedList::new(0);

/// The vectors of `vs` (64 at most: more is a planner bug, a panic as [`FixedList::push`]).
pub const fn vecs(vs: &[u64]) -> Vecs {
    let mut out = NONE;
    out.extend(vs);
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

/// `a` followed by `b` (64 at most, as [`vecs`]).
pub const fn concat(a: &[u64], b: &[u64]) -> Vecs {
    let mut out = vecs(a);
    out.extend(b);
    out
}

/// The nonzero rows of the reduced row echelon form of `rows` over `dim` columns, each row's
/// pivot at its lowest set bit, in pivot order (f2reduce's convention in Triton; the form is
/// unique, so any elimination order gives it).
pub const fn rref(rows: &[u64], dim: u32) -> Vecs {
    // On a plain array: a const evaluation pays for every call of a list's accessors.
    let mut m = [0u64; MAX_SPAN];
    let n = if rows.len() < MAX_SPAN {
        rows.len()
    } else {
        MAX_SPAN
    };
    let mut any = 0;
    let mut i = 0;
    while i < n {
        m[i] = rows[i];
        any |= rows[i];
        i += 1;
    }
    // No pivot past the rows' highest bit.
    let top = 64 - any.leading_zeros();
    let cols = if dim < top { dim } else { top };
    let mut rank = 0;
    let mut col = 0;
    while col < cols {
        let bit = 1u64 << col;
        let mut p = rank;
        while p < n && m[p] & bit == 0 {
            p += 1;
        }
        if p < n {
            let row = m[p];
            m[p] = m[rank];
            m[rank] = row;
            let mut i = 0;
            while i < n {
                if i != rank && m[i] & bit != 0 {
                    m[i] ^= row;
                }
                i += 1;
            }
            rank += 1;
        }
        col += 1;
    }
    vecs(m.split_at(rank).0)
}

/// The pivot columns of `m` (an [`rref`]), one bit each: each row's lowest set bit.
const fn pivots(m: &Vecs) -> u64 {
    let mut out = 0;
    let mut i = 0;
    while i < m.len() {
        let r = m.get(i);
        out |= r & r.wrapping_neg();
        i += 1;
    }
    out
}

/// `nullspaceBasis`: vectors `x` with `<v, x> = 0` for every `v` of `vs`.
pub const fn nullspace(vs: &[u64], dim: u32) -> Vecs {
    let m = rref(vs, dim);
    let piv = pivots(&m);
    let rows = m.as_slice();
    let mut out = NONE;
    let mut free = 0;
    while free < dim {
        if (piv >> free) & 1 == 0 {
            let mut v = 1u64 << free;
            let mut i = 0;
            while i < rows.len() {
                let r = rows[i];
                if (r >> free) & 1 == 1 {
                    v ^= r & r.wrapping_neg();
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
    let piv = pivots(&rref(basis, dim));
    let mut out = NONE;
    let mut c = 0;
    while c < dim {
        if (piv >> c) & 1 == 0 {
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
