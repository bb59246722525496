//! Triton's `optimalSwizzlingLdSt` (lib/Tools/GenericSwizzling.cpp, after @apgoucher): the
//! shared-memory layout of a conversion, chosen for the widest vectors first, then the fewest bank
//! conflicts. Works on flattened tensors: every basis is a `u64` of coordinate bits.
//!
//! Not ported (yet): `buildReps` (splitting the conversion into rounds to shrink scratch), the
//! ldmatrix/stmatrix tiles, and multi-CTA block bases.

use alloc::vec::Vec;

use super::bits::FlatLayout;

fn non_zero(v: &[u64]) -> Vec<u64> {
    v.iter().copied().filter(|&b| b != 0).collect()
}

/// RREF with each row's pivot at its lowest set bit (f2reduce's convention in Triton).
fn rref(rows: &[u64], dim: u32) -> Vec<u64> {
    let mut m: Vec<u64> = rows.iter().copied().filter(|&r| r != 0).collect();
    let mut out: Vec<u64> = Vec::new();
    for c in 0..dim {
        if let Some(i) = m.iter().position(|&r| (r >> c) & 1 == 1) {
            let p = m.swap_remove(i);
            for r in m.iter_mut().chain(out.iter_mut()) {
                if (*r >> c) & 1 == 1 {
                    *r ^= p;
                }
            }
            out.push(p);
        }
    }
    out
}

/// `nullspaceBasis`: vectors `x` with `<v, x> = 0` for every `v`.
fn nullspace(vs: &[u64], dim: u32) -> Vec<u64> {
    let m = rref(vs, dim);
    let pivots: Vec<u32> = m.iter().map(|r| r.trailing_zeros()).collect();
    (0..dim)
        .filter(|c| !pivots.contains(c))
        .map(|free| {
            let mut v = 1u64 << free;
            for &r in &m {
                if (r >> free) & 1 == 1 {
                    v ^= 1 << r.trailing_zeros();
                }
            }
            v
        })
        .collect()
}

/// `intersectionBasis`: for unit vectors, those of `b1` also in `b2`, in `b1`'s order.
pub fn intersection(b1: &[u64], b2: &[u64], dim: u32) -> Vec<u64> {
    let unit = |v: &[u64]| v.iter().all(|&x| x.count_ones() <= 1);
    if unit(b1) && unit(b2) {
        b1.iter()
            .copied()
            .filter(|&b| b != 0 && b2.contains(&b))
            .collect()
    } else {
        let mut joint = nullspace(b1, dim);
        joint.extend(nullspace(b2, dim));
        nullspace(&joint, dim)
    }
}

/// `complementBasis`: unit vectors of the non-pivot columns.
fn complement(basis: &[u64], dim: u32) -> Vec<u64> {
    let pivots: Vec<u32> = rref(basis, dim)
        .iter()
        .map(|r| r.trailing_zeros())
        .collect();
    (0..dim)
        .filter(|c| !pivots.contains(c))
        .map(|c| 1u64 << c)
        .collect()
}

/// `computeSegment`: address bits above one bank row, conflict-free ones first.
fn compute_segment(bank_src: &[u64], bank_dst: &[u64], dim: u32, len: usize) -> Vec<u64> {
    let mut set_src: Vec<u64> = non_zero(bank_src);
    let mut set_dst: Vec<u64> = non_zero(bank_dst);
    set_src.dedup();
    set_dst.dedup();
    let mut segment: Vec<u64> = (0..dim)
        .map(|b| 1u64 << b)
        .filter(|u| !set_src.contains(u) && !set_dst.contains(u))
        .collect();
    if segment.len() >= len {
        segment.truncate(len);
        return segment;
    }
    let mut a: Vec<u64> = set_src
        .iter()
        .copied()
        .filter(|v| !set_dst.contains(v))
        .collect();
    let mut b: Vec<u64> = set_dst
        .iter()
        .copied()
        .filter(|v| !set_src.contains(v))
        .collect();
    if a.len() > b.len() {
        core::mem::swap(&mut a, &mut b);
    }
    a.sort_unstable();
    b.sort_unstable();
    let k = (len as i64 - a.len() as i64 - segment.len() as i64).clamp(0, a.len() as i64) as usize;
    for i in k..a.len() {
        segment.push(a[i] ^ b[i]);
    }
    segment.extend_from_slice(&a[..k]);
    segment.extend_from_slice(&b[..k]);
    segment.truncate(len);
    segment
}

/// The shared layout's bases, in flattened coordinates: vector, bank and segment bases (the
/// offset bits), then the `reps` bases (Triton's `buildReps`: segment bases that are registers on
/// both sides, done in sequential rounds so that the scratch buffer shrinks).
pub struct SmemBases {
    /// Offset bases, then rep bases.
    pub bases: Vec<u64>,
    /// How many of `bases` are vector bases (kept for printing plans).
    #[allow(dead_code)]
    pub vector: usize,
    /// How many (at the end) are rep bases.
    pub reps: usize,
}

/// Triton's `optimalSwizzlingLdSt` followed by `buildReps` (with no bases left for ldmatrix).
/// `s` and `t` must have no register broadcasting.
pub fn optimal_swizzling_ld_st(
    s: &FlatLayout,
    t: &FlatLayout,
    bitwidth: u32,
    allow_reps: bool,
) -> SmemBases {
    let dim = s.total_bits;
    let (reg_src, reg_dst) = (non_zero(&s.reg), non_zero(&t.reg));
    let mut vbasis = intersection(&reg_src, &reg_dst, dim);
    let max_vec = (128 / bitwidth).trailing_zeros() as usize;
    vbasis.truncate(max_vec);
    let mut src_fills_bank: Option<bool> = None;
    if (1u32 << vbasis.len()) * bitwidth < 32 {
        let per_bank = (32 / bitwidth).trailing_zeros() as usize;
        let warp_src = non_zero(&s.warp);
        let warp_dst = non_zero(&t.warp);
        let remove_vec = |v: &[u64], vb: &[u64]| -> Vec<u64> {
            v.iter().copied().filter(|r| !vb.contains(r)).collect()
        };
        let reg_src_warp = intersection(&remove_vec(&reg_src, &vbasis), &warp_dst, dim);
        let reg_dst_warp = intersection(&remove_vec(&reg_dst, &vbasis), &warp_src, dim);
        let largest = if reg_src_warp.len() == reg_dst_warp.len() && !reg_src_warp.is_empty() {
            let min = |v: &[u64]| v.iter().copied().min().unwrap_or(0);
            if min(&reg_src_warp) < min(&reg_dst_warp) {
                src_fills_bank = Some(true);
                reg_src_warp
            } else {
                src_fills_bank = Some(false);
                reg_dst_warp
            }
        } else {
            let src_fills = reg_src_warp.len() > reg_dst_warp.len();
            src_fills_bank = Some(src_fills);
            if src_fills {
                reg_src_warp
            } else {
                reg_dst_warp
            }
        };
        // Triton's real layouts never offer a dependent vector here; random linear ones can, so
        // only independent ones are taken.
        let push = |vb: &mut Vec<u64>, v: u64| {
            if super::bits::Span::new(vb).express(v).is_none() {
                vb.push(v);
            }
        };
        for v in largest {
            push(&mut vbasis, v);
        }
        if vbasis.len() < per_bank {
            for v in intersection(&warp_src, &warp_dst, dim) {
                push(&mut vbasis, v);
            }
        }
        let mut i = 0;
        while vbasis.len() < per_bank && (i < warp_src.len() || i < warp_dst.len()) {
            if i < warp_src.len() {
                push(&mut vbasis, warp_src[i]);
            }
            if vbasis.len() < per_bank && i < warp_dst.len() {
                push(&mut vbasis, warp_dst[i]);
            }
            i += 1;
        }
        vbasis.truncate(per_bank);
    }
    let log2_vec = (((1u32 << vbasis.len()) * bitwidth) / 32)
        .max(1)
        .trailing_zeros() as usize;
    let lane_src = &s.lane[..s.lane.len().saturating_sub(log2_vec)];
    let lane_dst = &t.lane[..t.lane.len().saturating_sub(log2_vec)];
    // optimalSwizzling.
    let mut bank_src = vbasis.clone();
    bank_src.extend_from_slice(lane_src);
    let mut bank_dst = vbasis.clone();
    bank_dst.extend_from_slice(lane_dst);
    let len_b = ((1024 / ((1u32 << vbasis.len()) * bitwidth)).trailing_zeros() as usize)
        .min(dim as usize - vbasis.len());
    let len_s = dim as usize - len_b - vbasis.len();
    let sbasis = compute_segment(&bank_src, &bank_dst, dim, len_s);
    let mut union = vbasis.clone();
    union.extend(&sbasis);
    let mut bbasis = complement(&union, dim);
    // Extra vectorisation under broadcasting: bank bases that are registers of the side that
    // filled the bank (or of the side with more of them) first.
    if log2_vec < 2 {
        let in_src: Vec<usize> = (0..bbasis.len())
            .filter(|&i| reg_src.contains(&bbasis[i]))
            .collect();
        let in_dst: Vec<usize> = (0..bbasis.len())
            .filter(|&i| reg_dst.contains(&bbasis[i]))
            .collect();
        let mut order = match src_fills_bank {
            Some(true) => in_src,
            Some(false) => in_dst,
            None if in_src.len() > in_dst.len() => in_src,
            None => in_dst,
        };
        for i in 0..bbasis.len() {
            if !order.contains(&i) {
                order.push(i);
            }
        }
        bbasis = order.iter().map(|&i| bbasis[i]).collect();
    }
    let nvec = vbasis.len();
    // buildReps: segment bases held in registers on both sides become sequential rounds.
    let (reps, segment): (Vec<u64>, Vec<u64>) = sbasis
        .iter()
        .partition(|b| allow_reps && reg_src.contains(b) && reg_dst.contains(b));
    let mut all = vbasis;
    all.extend(bbasis);
    all.extend(segment);
    let nreps = reps.len();
    all.extend(reps);
    if all.len() != dim as usize || rref(&all, dim).len() != dim as usize {
        // Not a basis (a degenerate input): fall back to the unswizzled row-major layout.
        return SmemBases {
            bases: (0..dim).map(|b| 1u64 << b).collect(),
            vector: 0,
            reps: 0,
        };
    }
    SmemBases {
        bases: all,
        vector: nvec,
        reps: nreps,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_prefers_bits_no_tile_uses() {
        // src tile {1, 2}, dst tile {4, 8}: bit 16 is free of both.
        assert_eq!(compute_segment(&[1, 2], &[4, 8], 5, 1), alloc::vec![16]);
        // Needing three: 16, then mixes 1^4 and 2^8.
        assert_eq!(
            compute_segment(&[1, 2], &[4, 8], 5, 3),
            alloc::vec![16, 5, 10]
        );
    }

    #[test]
    fn nullspace_and_intersection() {
        assert_eq!(intersection(&[1, 2, 4], &[4, 1], 3), alloc::vec![1, 4]);
        let i = intersection(&[0b011, 0b100], &[0b011, 0b001], 3);
        assert_eq!(i.len(), 1);
        assert_eq!(i[0], 0b011);
    }
}
