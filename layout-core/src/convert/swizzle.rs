//! Triton's `optimalSwizzlingLdSt` (lib/Tools/GenericSwizzling.cpp, after @apgoucher): the
//! shared-memory layout of a conversion, chosen for the widest vectors first, then the fewest bank
//! conflicts. Works on flattened tensors: every basis is a `u64` of coordinate bits.
//!
//! Also ported: `buildReps` (rounds that shrink the scratch buffer), the NVIDIA instruction tiles
//! (ldmatrix/stmatrix), and the multi-CTA block bases: the source's block bases become the shared
//! layout's, so each CTA's buffer holds a CTA's share of the tensor.

use alloc::vec::Vec;

use super::bits::FlatLayout;
use layout_plan::Target;

fn non_zero(v: &[u64]) -> Vec<u64> {
    v.iter().copied().filter(|&b| b != 0).collect()
}

/// The nonzero rows of the RREF of `rows` over `dim` columns, each row's pivot at its lowest set
/// bit, in pivot order (f2reduce's convention in Triton; the one reduction is `crate::f2`).
fn rref(rows: &[u64], dim: u32) -> Vec<u64> {
    let mut m: Vec<u128> = rows.iter().map(|&r| r as u128).collect();
    let rank = crate::f2::rref(&mut m, dim);
    m[..rank].iter().map(|&r| r as u64).collect()
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

/// `computeSegment`: address bits above one bank row, conflict-free ones first. Block bases count
/// as used by both sides.
fn compute_segment(
    bank_src: &[u64],
    bank_dst: &[u64],
    block: &[u64],
    dim: u32,
    len: usize,
) -> Vec<u64> {
    let mut set_src: Vec<u64> = non_zero(bank_src);
    let mut set_dst: Vec<u64> = non_zero(bank_dst);
    for &b in block {
        for set in [&mut set_src, &mut set_dst] {
            if b != 0 && !set.contains(&b) {
                set.push(b);
            }
        }
    }
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
/// both sides, done in sequential rounds so that the scratch buffer shrinks). The source's
/// non-zero block bases complete them to a basis of the tensor: which CTA's buffer holds what.
pub struct SmemBases {
    /// Offset bases, then rep bases.
    pub bases: Vec<u64>,
    /// The source's non-zero block bases.
    pub block: Vec<u64>,
    /// How many of `bases` are vector bases (kept for printing plans).
    #[allow(dead_code)]
    pub vector: usize,
    /// How many follow the vector bases as bank bases.
    pub bank: usize,
    /// How many follow as segment bases.
    pub segment: usize,
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
    target: &Target,
) -> SmemBases {
    let bank_bits = target.bank_bytes * 8;
    let dim = s.total_bits;
    let (reg_src, reg_dst) = (non_zero(&s.reg), non_zero(&t.reg));
    let mut vbasis = intersection(&reg_src, &reg_dst, dim);
    let max_vec = (128 / bitwidth).trailing_zeros() as usize;
    vbasis.truncate(max_vec);
    let mut src_fills_bank: Option<bool> = None;
    if (1u32 << vbasis.len()) * bitwidth < bank_bits {
        let per_bank = (bank_bits / bitwidth).trailing_zeros() as usize;
        src_fills_bank = Some(fill_bank(s, t, &mut vbasis, per_bank));
    }
    let log2_vec = (((1u32 << vbasis.len()) * bitwidth) / bank_bits)
        .max(1)
        .trailing_zeros() as usize;
    let lane_src = &s.lane[..s.lane.len().saturating_sub(log2_vec)];
    let lane_dst = &t.lane[..t.lane.len().saturating_sub(log2_vec)];
    let mut sb = swizzle_with(
        s, t, bitwidth, &vbasis, lane_src, lane_dst, 0, allow_reps, target,
    );
    if log2_vec < 2 && sb.bank > 0 {
        reorder_bank_bases(&mut sb, &reg_src, &reg_dst, src_fills_bank);
    }
    sb
}

/// Grow a vector narrower than one bank towards `per_bank` bases: registers of one side that are
/// warps of the other, then warps of both, then warps of either in turn (a destination warp
/// only if it is no source block). Whether the source's registers were the ones taken.
fn fill_bank(s: &FlatLayout, t: &FlatLayout, vbasis: &mut Vec<u64>, per_bank: usize) -> bool {
    let dim = s.total_bits;
    let block_src = non_zero(&s.block);
    let warp_src = non_zero(&s.warp);
    let warp_dst = non_zero(&t.warp);
    let (largest, src_fills) = regs_in_other_warps(s, t, vbasis);
    for v in largest {
        push_independent(vbasis, v);
    }
    if vbasis.len() < per_bank {
        for v in intersection(&warp_src, &warp_dst, dim) {
            push_independent(vbasis, v);
        }
    }
    let mut i = 0;
    while vbasis.len() < per_bank && (i < warp_src.len() || i < warp_dst.len()) {
        if i < warp_src.len() {
            push_independent(vbasis, warp_src[i]);
        }
        if vbasis.len() < per_bank && i < warp_dst.len() && !block_src.contains(&warp_dst[i]) {
            push_independent(vbasis, warp_dst[i]);
        }
        i += 1;
    }
    vbasis.truncate(per_bank);
    src_fills
}

/// Registers of one side, outside the vector `vbasis`, that are warps of the other side: the
/// side with more of them (on a tie, the one holding the lowest basis); and whether it is the
/// source.
fn regs_in_other_warps(s: &FlatLayout, t: &FlatLayout, vbasis: &[u64]) -> (Vec<u64>, bool) {
    let dim = s.total_bits;
    let (reg_src, reg_dst) = (non_zero(&s.reg), non_zero(&t.reg));
    let (warp_src, warp_dst) = (non_zero(&s.warp), non_zero(&t.warp));
    let remove_vec =
        |v: &[u64]| -> Vec<u64> { v.iter().copied().filter(|r| !vbasis.contains(r)).collect() };
    let reg_src_warp = intersection(&remove_vec(&reg_src), &warp_dst, dim);
    let reg_dst_warp = intersection(&remove_vec(&reg_dst), &warp_src, dim);
    let src_fills = if reg_src_warp.len() == reg_dst_warp.len() && !reg_src_warp.is_empty() {
        let min = |v: &[u64]| v.iter().copied().min().unwrap_or(0);
        min(&reg_src_warp) < min(&reg_dst_warp)
    } else {
        reg_src_warp.len() > reg_dst_warp.len()
    };
    if src_fills {
        (reg_src_warp, true)
    } else {
        (reg_dst_warp, false)
    }
}

/// Add `v` to the vector bases unless they already span it. Triton's real layouts never offer a
/// dependent vector here; random linear ones can, so only independent ones are taken.
fn push_independent(vbasis: &mut Vec<u64>, v: u64) {
    if super::bits::Span::new(vbasis).express(v).is_none() {
        vbasis.push(v);
    }
}

/// Extra vectorisation under broadcasting: put first the bank bases that are registers of the
/// side that filled the bank (or, if neither did, of the side with more of them).
fn reorder_bank_bases(
    sb: &mut SmemBases,
    reg_src: &[u64],
    reg_dst: &[u64],
    src_fills_bank: Option<bool>,
) {
    let nvec = sb.vector;
    let bbasis: Vec<u64> = sb.bases[nvec..nvec + sb.bank].to_vec();
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
    for (k, &i) in order.iter().enumerate() {
        sb.bases[nvec + k] = bbasis[i];
    }
}

/// Triton's `optimalSwizzling` for a given vector and access tiles, then `buildReps` leaving
/// `leave_reps` rep-able segment bases in the segment (for ldmatrix/stmatrix .x4).
#[allow(clippy::too_many_arguments)]
fn swizzle_with(
    s: &FlatLayout,
    t: &FlatLayout,
    bitwidth: u32,
    vbasis: &[u64],
    tile_src: &[u64],
    tile_dst: &[u64],
    leave_reps: usize,
    allow_reps: bool,
    target: &Target,
) -> SmemBases {
    // One row of banks, in bits.
    let row_bits = target.banks * target.bank_bytes * 8;
    let dim = s.total_bits;
    let (reg_src, reg_dst) = (non_zero(&s.reg), non_zero(&t.reg));
    let block = non_zero(&s.block);
    let mut bank_src = vbasis.to_vec();
    bank_src.extend_from_slice(tile_src);
    let mut bank_dst = vbasis.to_vec();
    bank_dst.extend_from_slice(tile_dst);
    let free = (dim as usize).saturating_sub(vbasis.len() + block.len());
    let len_b =
        ((row_bits / ((1u32 << vbasis.len()) * bitwidth)).trailing_zeros() as usize).min(free);
    let len_s = free - len_b;
    let sbasis = compute_segment(&bank_src, &bank_dst, &block, dim, len_s);
    let mut union = vbasis.to_vec();
    union.extend(&sbasis);
    union.extend(&block);
    let bbasis = complement(&union, dim);
    // buildReps: segment bases held in registers on both sides become sequential rounds.
    let mut left = leave_reps;
    let mut reps = Vec::new();
    let mut segment = Vec::new();
    for b in sbasis {
        if allow_reps && reg_src.contains(&b) && reg_dst.contains(&b) {
            if left > 0 {
                left -= 1;
                segment.push(b);
            } else {
                reps.push(b);
            }
        } else {
            segment.push(b);
        }
    }
    let (nvec, nbank, nseg, nreps) = (vbasis.len(), bbasis.len(), segment.len(), reps.len());
    let mut all = vbasis.to_vec();
    all.extend(bbasis);
    all.extend(segment);
    all.extend(reps);
    let mut with_block = all.clone();
    with_block.extend(&block);
    if with_block.len() != dim as usize || rref(&with_block, dim).len() != dim as usize {
        // Not a basis (a degenerate input): fall back to the unswizzled row-major layout of
        // what the block bases leave.
        let rest = complement(&block, dim);
        return SmemBases {
            segment: rest.len(),
            bases: rest,
            block,
            vector: 0,
            bank: 0,
            reps: 0,
        };
    }
    SmemBases {
        bases: all,
        block,
        vector: nvec,
        bank: nbank,
        segment: nseg,
        reps: nreps,
    }
}

/// How one side accesses shared memory: plain vector loads/stores, or `ldmatrix`/`stmatrix`
/// (16-bit elements), possibly `.trans`. Triton's `LocalMemOpTile`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    /// `ld.shared` / `st.shared`.
    Plain,
    /// `ldmatrix` / `stmatrix` `.x4`.
    Matrix,
    /// The `.trans` variants.
    MatrixTrans,
}

impl AccessKind {
    /// `(laneContig, laneAddr)`.
    fn tile(self) -> (&'static [usize], &'static [usize]) {
        match self {
            AccessKind::Plain => (&[], &[0, 1, 2]),
            AccessKind::Matrix => (&[0, 1], &[2, 3, 4]),
            AccessKind::MatrixTrans => (&[2, 3, 4], &[0, 1]),
        }
    }
}

/// Which hardware bits of `a` hold the element `v` of `b`: `(register mask, lane mask)`.
fn locate(a: &FlatLayout, v: u64) -> Option<(u64, u64)> {
    let mut all = a.reg.to_vec();
    all.extend(&a.lane);
    all.extend(&a.warp);
    let m = super::bits::Span::new(&all).express(v)?;
    let nr = a.reg.len();
    Some((m & ((1 << nr) - 1), (m >> nr) & ((1 << a.lane.len()) - 1)))
}

/// `optimalSwizzlingTile`: the vector bases that make both instruction tiles contiguous.
fn swizzling_tile(
    a: &FlatLayout,
    b: &FlatLayout,
    n_reg_a: usize,
    n_reg_b: usize,
    lanes_a: &[usize],
    lanes_b: &[usize],
) -> Option<Vec<u64>> {
    if n_reg_a < n_reg_b {
        return swizzling_tile(b, a, n_reg_b, n_reg_a, lanes_b, lanes_a);
    }
    let dim = a.total_bits;
    let mut vbasis = intersection(&non_zero(&a.reg), &non_zero(&b.reg), dim);
    if vbasis.len() < n_reg_b {
        return None;
    }
    vbasis.truncate(n_reg_b);
    if lanes_a.iter().chain(lanes_b).any(|&i| i >= a.lane.len()) {
        return None;
    }
    let tile_a: Vec<u64> = lanes_a.iter().map(|&i| a.lane[i]).collect();
    let tile_b: Vec<u64> = lanes_b.iter().map(|&i| b.lane[i]).collect();
    if tile_a.iter().chain(&tile_b).any(|&x| x == 0) {
        return None;
    }
    // The first lanes of b's tile must be registers in a; the rest lanes of a, in order.
    let extra = n_reg_a - n_reg_b;
    for &ib in lanes_b.iter().take(extra) {
        let (reg, _) = locate(a, b.lane[ib])?;
        if reg == 0 {
            return None;
        }
    }
    let from = lanes_b.len().saturating_sub(lanes_a.len());
    for (&ia, &ib) in lanes_a.iter().zip(&lanes_b[from..]) {
        let (reg, lane) = locate(a, b.lane[ib])?;
        if reg != 0 || lane != 1 << ia {
            return None;
        }
    }
    vbasis.extend(tile_b);
    Some(vbasis)
}

/// `getTile`: `3 - |laneAddr|` registers not in the vector, then the address lanes.
fn get_tile(kind: AccessKind, regs: &[u64], lanes: &[u64], vbasis: &[u64]) -> Option<Vec<u64>> {
    let (_, addr) = kind.tile();
    let need = 3 - addr.len();
    let mut tile: Vec<u64> = regs
        .iter()
        .copied()
        .filter(|r| !vbasis.contains(r))
        .take(need)
        .collect();
    if tile.len() < need || addr.iter().any(|&i| i >= lanes.len()) {
        return None;
    }
    tile.extend(addr.iter().map(|&i| lanes[i]));
    Some(tile)
}

/// `bankConflicts`: `2^dim(segment ∩ tile) - 1` for each side; their sum.
fn bank_conflicts(tile_src: &[u64], tile_dst: &[u64], sb: &SmemBases, dim: u32) -> usize {
    let seg = &sb.bases[sb.vector + sb.bank..sb.vector + sb.bank + sb.segment];
    let w = (1usize << intersection(seg, tile_src, dim).len()) - 1;
    let r = (1usize << intersection(seg, tile_dst, dim).len()) - 1;
    w + r
}

/// Triton's NVIDIA `optimalSwizzling` over instruction tiles: every pair of a store kind and a
/// load kind whose tiles fit, scored by bank conflicts (ties: more rounds); plain ld/st
/// (`optimal_swizzling_ld_st`) when none fits. Matrix kinds for elements of at most 32 bits,
/// `.trans` for 16-bit ones, as Triton's `getSrcDstTiles`; only those the target has.
pub fn optimal_swizzling(
    s: &FlatLayout,
    t: &FlatLayout,
    bitwidth: u32,
    allow_reps: bool,
    target: &Target,
) -> (SmemBases, AccessKind, AccessKind) {
    let kinds: &[AccessKind] = match bitwidth {
        16 => &[
            AccessKind::Plain,
            AccessKind::Matrix,
            AccessKind::MatrixTrans,
        ],
        8 | 32 => &[AccessKind::Plain, AccessKind::Matrix],
        _ => &[AccessKind::Plain],
    };
    let total = (128 / bitwidth).trailing_zeros() as usize;
    let dim = s.total_bits;
    let (reg_src, reg_dst) = (non_zero(&s.reg), non_zero(&t.reg));
    let mut best: Option<(usize, SmemBases, AccessKind, AccessKind)> = None;
    let has = |k: AccessKind, store: bool| match k {
        AccessKind::Plain => true,
        AccessKind::Matrix => target.matrix.has(store, 4, false),
        AccessKind::MatrixTrans => target.matrix.has(store, 4, true),
    };
    for &ks in kinds.iter().filter(|&&k| has(k, true)) {
        for &kd in kinds.iter().filter(|&&k| has(k, false)) {
            let (cs, _) = ks.tile();
            let (cd, _) = kd.tile();
            if cs.len() > total || cd.len() > total {
                continue;
            }
            let Some(vbasis) = swizzling_tile(s, t, total - cs.len(), total - cd.len(), cs, cd)
            else {
                continue;
            };
            let (Some(ts), Some(td)) = (
                get_tile(ks, &reg_src, &s.lane, &vbasis),
                get_tile(kd, &reg_dst, &t.lane, &vbasis),
            ) else {
                continue;
            };
            let missing = |k: AccessKind| {
                let (c, a) = k.tile();
                (c.len() + a.len()).saturating_sub(3)
            };
            let leave = missing(ks).min(missing(kd));
            let sb = swizzle_with(s, t, bitwidth, &vbasis, &ts, &td, leave, allow_reps, target);
            let score = bank_conflicts(&ts, &td, &sb, dim);
            let better = match &best {
                None => true,
                Some((b, bsb, _, _)) => score < *b || (score == *b && sb.reps > bsb.reps),
            };
            if better {
                best = Some((score, sb, ks, kd));
            }
        }
    }
    match best {
        Some((_, sb, ks, kd)) => (sb, ks, kd),
        None => (
            optimal_swizzling_ld_st(s, t, bitwidth, allow_reps, target),
            AccessKind::Plain,
            AccessKind::Plain,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_prefers_bits_no_tile_uses() {
        // src tile {1, 2}, dst tile {4, 8}: bit 16 is free of both.
        assert_eq!(
            compute_segment(&[1, 2], &[4, 8], &[], 5, 1),
            alloc::vec![16]
        );
        // Needing three: 16, then mixes 1^4 and 2^8.
        assert_eq!(
            compute_segment(&[1, 2], &[4, 8], &[], 5, 3),
            alloc::vec![16, 5, 10]
        );
        // A block basis is taken by both sides: never a segment bit.
        assert_eq!(
            compute_segment(&[1, 2], &[4, 8], &[16], 5, 2),
            alloc::vec![5, 10]
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
