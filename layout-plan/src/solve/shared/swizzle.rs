//! Triton's `optimalSwizzlingLdSt` (lib/Tools/GenericSwizzling.cpp, after @apgoucher): the
//! shared-memory layout of a conversion, chosen for the widest vectors first, then the fewest bank
//! conflicts. Works on flattened tensors: every basis is a `u64` of coordinate bits.
//!
//! Also ported: `buildReps` (rounds that shrink the scratch buffer), the NVIDIA instruction tiles
//! (ldmatrix/stmatrix), and the multi-CTA block bases: the source's block bases become the shared
//! layout's, so each CTA's buffer holds a CTA's share of the tensor.

use super::gf2::{complement, concat, contains, dedup, intersection, non_zero, sort, Vecs, NONE};
use crate::flat::{Flat, Span};
use crate::Target;

/// The shared layout's bases, in flattened coordinates: vector, bank and segment bases (the
/// offset bits), then the `reps` bases (Triton's `buildReps`: segment bases that are registers on
/// both sides, done in sequential rounds so that the scratch buffer shrinks). The source's
/// non-zero block bases complete them to a basis of the tensor: which CTA's buffer holds what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmemBases {
    /// Offset bases, then rep bases.
    pub bases: Vecs,
    /// The source's non-zero block bases.
    pub block: Vecs,
    /// How many of `bases` are vector bases.
    pub vector: usize,
    /// How many follow the vector bases as bank bases.
    pub bank: usize,
    /// How many follow as segment bases.
    pub segment: usize,
    /// How many (at the end) are rep bases.
    pub reps: usize,
}

/// `computeSegment`: address bits above one bank row, conflict-free ones first. Block bases count
/// as used by both sides.
const fn compute_segment(
    bank_src: &[u64],
    bank_dst: &[u64],
    block: &[u64],
    dim: u32,
    len: usize,
) -> Vecs {
    let mut set_src = non_zero(bank_src);
    let mut set_dst = non_zero(bank_dst);
    let mut i = 0;
    while i < block.len() {
        let b = block[i];
        if b != 0 && !contains(set_src.as_slice(), b) {
            set_src.push(b);
        }
        if b != 0 && !contains(set_dst.as_slice(), b) {
            set_dst.push(b);
        }
        i += 1;
    }
    dedup(&mut set_src);
    dedup(&mut set_dst);
    // The unit vectors either set holds, one bit each.
    let taken = units(set_src.as_slice()) | units(set_dst.as_slice());
    let mut segment = NONE;
    let mut b = 0;
    while b < dim {
        let u = 1u64 << b;
        if taken & u == 0 {
            segment.push(u);
        }
        b += 1;
    }
    if segment.len() >= len {
        segment.truncate(len);
        return segment;
    }
    let mut a = only_in(&set_src, &set_dst);
    let mut bb = only_in(&set_dst, &set_src);
    if a.len() > bb.len() {
        core::mem::swap(&mut a, &mut bb);
    }
    sort(&mut a);
    sort(&mut bb);
    let want = len as i64 - a.len() as i64 - segment.len() as i64;
    let k = if want < 0 {
        0
    } else if want > a.len() as i64 {
        a.len()
    } else {
        want as usize
    };
    let mut i = k;
    while i < a.len() {
        segment.push(a.get(i) ^ bb.get(i));
        i += 1;
    }
    // The first `len` of: the XORs, then `a`'s first `k`, then `b`'s (taken no further than
    // `len`, so the list never fills past what is kept).
    let (ak, bk) = (a.as_slice().split_at(k).0, bb.as_slice().split_at(k).0);
    let mut j = 0;
    while segment.len() < len && j < ak.len() + bk.len() {
        segment.push(if j < ak.len() {
            ak[j]
        } else {
            bk[j - ak.len()]
        });
        j += 1;
    }
    segment.truncate(len);
    segment
}

/// The OR of the unit vectors of `vs`.
const fn units(vs: &[u64]) -> u64 {
    let mut out = 0;
    let mut i = 0;
    while i < vs.len() {
        let v = vs[i];
        if v != 0 && v & (v - 1) == 0 {
            out |= v;
        }
        i += 1;
    }
    out
}

/// The vectors of `a` that are not in `b`.
const fn only_in(a: &Vecs, b: &Vecs) -> Vecs {
    let mut out = NONE;
    let mut i = 0;
    while i < a.len() {
        if !contains(b.as_slice(), a.get(i)) {
            out.push(a.get(i));
        }
        i += 1;
    }
    out
}

/// Triton's `optimalSwizzlingLdSt` followed by `buildReps` (with no bases left for ldmatrix).
/// `s` and `t` must have no register broadcasting.
pub const fn optimal_swizzling_ld_st(
    s: &Flat,
    t: &Flat,
    bitwidth: u32,
    allow_reps: bool,
    target: &Target,
) -> SmemBases {
    let bank_bits = target.bank_bytes * 8;
    let dim = s.total_bits;
    let (reg_src, reg_dst) = (non_zero(s.reg.as_slice()), non_zero(t.reg.as_slice()));
    let mut vbasis = intersection(reg_src.as_slice(), reg_dst.as_slice(), dim);
    let max_vec = (128 / bitwidth).trailing_zeros() as usize;
    vbasis.truncate(max_vec);
    let mut src_fills_bank: Option<bool> = None;
    if (1u32 << vbasis.len()) * bitwidth < bank_bits {
        let per_bank = (bank_bits / bitwidth).trailing_zeros() as usize;
        src_fills_bank = Some(fill_bank(s, t, &mut vbasis, per_bank));
    }
    let per = ((1u32 << vbasis.len()) * bitwidth) / bank_bits;
    let log2_vec = if per > 1 { per.trailing_zeros() } else { 0 } as usize;
    let lane_src = s
        .lane
        .as_slice()
        .split_at(s.lane.len().saturating_sub(log2_vec))
        .0;
    let lane_dst = t
        .lane
        .as_slice()
        .split_at(t.lane.len().saturating_sub(log2_vec))
        .0;
    let tiles = Tiles {
        vbasis: &vbasis,
        src: lane_src,
        dst: lane_dst,
    };
    let mut sb = swizzle_with(s, t, bitwidth, &tiles, 0, allow_reps, target);
    if log2_vec < 2 && sb.bank > 0 {
        reorder_bank_bases(&mut sb, &reg_src, &reg_dst, src_fills_bank);
    }
    sb
}

/// Grow a vector narrower than one bank towards `per_bank` bases: registers of one side that are
/// warps of the other, then warps of both, then warps of either in turn (a destination warp
/// only if it is no source block). Whether the source's registers were the ones taken.
const fn fill_bank(s: &Flat, t: &Flat, vbasis: &mut Vecs, per_bank: usize) -> bool {
    let dim = s.total_bits;
    let block_src = non_zero(s.block.as_slice());
    let warp_src = non_zero(s.warp.as_slice());
    let warp_dst = non_zero(t.warp.as_slice());
    let (largest, src_fills) = regs_in_other_warps(s, t, vbasis);
    let mut i = 0;
    while i < largest.len() {
        push_independent(vbasis, largest.get(i));
        i += 1;
    }
    if vbasis.len() < per_bank {
        let both = intersection(warp_src.as_slice(), warp_dst.as_slice(), dim);
        let mut i = 0;
        while i < both.len() {
            push_independent(vbasis, both.get(i));
            i += 1;
        }
    }
    let mut i = 0;
    while vbasis.len() < per_bank && (i < warp_src.len() || i < warp_dst.len()) {
        if i < warp_src.len() {
            push_independent(vbasis, warp_src.get(i));
        }
        if vbasis.len() < per_bank
            && i < warp_dst.len()
            && !contains(block_src.as_slice(), warp_dst.get(i))
        {
            push_independent(vbasis, warp_dst.get(i));
        }
        i += 1;
    }
    vbasis.truncate(per_bank);
    src_fills
}

/// The smallest vector of `v` (0 if none).
const fn min_of(v: &Vecs) -> u64 {
    let mut m = u64::MAX;
    let mut i = 0;
    while i < v.len() {
        if v.get(i) < m {
            m = v.get(i);
        }
        i += 1;
    }
    if v.is_empty() {
        0
    } else {
        m
    }
}

/// Registers of one side, outside the vector `vbasis`, that are warps of the other side: the
/// side with more of them (on a tie, the one holding the lowest basis); and whether it is the
/// source.
const fn regs_in_other_warps(s: &Flat, t: &Flat, vbasis: &Vecs) -> (Vecs, bool) {
    let dim = s.total_bits;
    let (reg_src, reg_dst) = (non_zero(s.reg.as_slice()), non_zero(t.reg.as_slice()));
    let (warp_src, warp_dst) = (non_zero(s.warp.as_slice()), non_zero(t.warp.as_slice()));
    let src_regs = only_in(&reg_src, vbasis);
    let dst_regs = only_in(&reg_dst, vbasis);
    let reg_src_warp = intersection(src_regs.as_slice(), warp_dst.as_slice(), dim);
    let reg_dst_warp = intersection(dst_regs.as_slice(), warp_src.as_slice(), dim);
    let src_fills = if reg_src_warp.len() == reg_dst_warp.len() && !reg_src_warp.is_empty() {
        min_of(&reg_src_warp) < min_of(&reg_dst_warp)
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
const fn push_independent(vbasis: &mut Vecs, v: u64) {
    if Span::new(vbasis.as_slice()).express(v).is_none() {
        vbasis.push(v);
    }
}

/// The indices of `bbasis` whose vectors are in `regs`.
const fn indices_in(bbasis: &Vecs, regs: &Vecs) -> Vecs {
    let mut out = NONE;
    let mut i = 0;
    while i < bbasis.len() {
        if contains(regs.as_slice(), bbasis.get(i)) {
            out.push(i as u64);
        }
        i += 1;
    }
    out
}

/// Extra vectorisation under broadcasting: put first the bank bases that are registers of the
/// side that filled the bank (or, if neither did, of the side with more of them).
const fn reorder_bank_bases(
    sb: &mut SmemBases,
    reg_src: &Vecs,
    reg_dst: &Vecs,
    src_fills_bank: Option<bool>,
) {
    let nvec = sb.vector;
    let mut bbasis = NONE;
    let mut i = 0;
    while i < sb.bank {
        bbasis.push(sb.bases.get(nvec + i));
        i += 1;
    }
    let in_src = indices_in(&bbasis, reg_src);
    let in_dst = indices_in(&bbasis, reg_dst);
    let mut order = match src_fills_bank {
        Some(true) => in_src,
        Some(false) => in_dst,
        None if in_src.len() > in_dst.len() => in_src,
        None => in_dst,
    };
    let mut i = 0;
    while i < bbasis.len() {
        if !contains(order.as_slice(), i as u64) {
            order.push(i as u64);
        }
        i += 1;
    }
    let mut k = 0;
    while k < order.len() {
        sb.bases.set(nvec + k, bbasis.get(order.get(k) as usize));
        k += 1;
    }
}

/// The vector bases and each side's access tile.
struct Tiles<'a> {
    vbasis: &'a Vecs,
    src: &'a [u64],
    dst: &'a [u64],
}

/// Triton's `optimalSwizzling` for a given vector and access tiles, then `buildReps` leaving
/// `leave_reps` rep-able segment bases in the segment (for ldmatrix/stmatrix .x4).
const fn swizzle_with(
    s: &Flat,
    t: &Flat,
    bitwidth: u32,
    tiles: &Tiles,
    leave_reps: usize,
    allow_reps: bool,
    target: &Target,
) -> SmemBases {
    // One row of banks, in bits.
    let row_bits = target.banks * target.bank_bytes * 8;
    let dim = s.total_bits;
    let vbasis = tiles.vbasis;
    let (reg_src, reg_dst) = (non_zero(s.reg.as_slice()), non_zero(t.reg.as_slice()));
    let block = non_zero(s.block.as_slice());
    let bank_src = concat(vbasis.as_slice(), tiles.src);
    let bank_dst = concat(vbasis.as_slice(), tiles.dst);
    let free = (dim as usize).saturating_sub(vbasis.len() + block.len());
    let len_b = (row_bits / ((1u32 << vbasis.len()) * bitwidth)).trailing_zeros() as usize;
    let len_b = if len_b < free { len_b } else { free };
    let len_s = free - len_b;
    let sbasis = compute_segment(
        bank_src.as_slice(),
        bank_dst.as_slice(),
        block.as_slice(),
        dim,
        len_s,
    );
    let mut union = concat(vbasis.as_slice(), sbasis.as_slice());
    union.extend(block.as_slice());
    let bbasis = complement(union.as_slice(), dim);
    // buildReps: segment bases held in registers on both sides become sequential rounds.
    let mut left = leave_reps;
    let mut reps = NONE;
    let mut segment = NONE;
    let mut i = 0;
    while i < sbasis.len() {
        let b = sbasis.get(i);
        if allow_reps && contains(reg_src.as_slice(), b) && contains(reg_dst.as_slice(), b) {
            if left > 0 {
                left -= 1;
                segment.push(b);
            } else {
                reps.push(b);
            }
        } else {
            segment.push(b);
        }
        i += 1;
    }
    let mut all = concat(vbasis.as_slice(), bbasis.as_slice());
    all.extend(segment.as_slice());
    all.extend(reps.as_slice());
    let with_block = concat(all.as_slice(), block.as_slice());
    if with_block.len() != dim as usize || Span::new(with_block.as_slice()).rank() != dim as usize {
        // Not a basis (a degenerate input): fall back to the unswizzled row-major layout of
        // what the block bases leave.
        let rest = complement(block.as_slice(), dim);
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
        vector: vbasis.len(),
        bank: bbasis.len(),
        segment: segment.len(),
        reps: reps.len(),
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
    const fn tile(self) -> (&'static [usize], &'static [usize]) {
        match self {
            AccessKind::Plain => (&[], &[0, 1, 2]),
            AccessKind::Matrix => (&[0, 1], &[2, 3, 4]),
            AccessKind::MatrixTrans => (&[2, 3, 4], &[0, 1]),
        }
    }

    /// Whether `target` has the kind's `.x4` form (plain accesses always).
    const fn on(self, target: &Target, store: bool) -> bool {
        match self {
            AccessKind::Plain => true,
            AccessKind::Matrix => target.matrix.has(store, 4, false),
            AccessKind::MatrixTrans => target.matrix.has(store, 4, true),
        }
    }

    /// Tile lanes past the three a plain access spans.
    const fn missing(self) -> usize {
        let (c, a) = self.tile();
        (c.len() + a.len()).saturating_sub(3)
    }
}

/// Which hardware bits of `a` hold the element `v`: `(register mask, lane mask)`. `span` is
/// the span of `a`'s register, lane and warp bases, made on the first call that needs it.
const fn locate(a: &Flat, span: &mut Option<Span>, v: u64) -> Option<(u64, u64)> {
    if span.is_none() {
        let mut all = concat(a.reg.as_slice(), a.lane.as_slice());
        all.extend(a.warp.as_slice());
        *span = Some(Span::new(all.as_slice()));
    }
    let Some(s) = span else {
        return None;
    };
    let Some(m) = s.express(v) else {
        return None;
    };
    let nr = a.reg.len();
    Some((m & ((1 << nr) - 1), (m >> nr) & ((1 << a.lane.len()) - 1)))
}

/// `optimalSwizzlingTile`: the vector bases that make both instruction tiles contiguous.
const fn swizzling_tile(
    a: &Flat,
    b: &Flat,
    (n_reg_a, n_reg_b): (usize, usize),
    lanes_a: &[usize],
    lanes_b: &[usize],
) -> Option<Vecs> {
    if n_reg_a < n_reg_b {
        return swizzling_tile(b, a, (n_reg_b, n_reg_a), lanes_b, lanes_a);
    }
    let dim = a.total_bits;
    let ra = non_zero(a.reg.as_slice());
    let rb = non_zero(b.reg.as_slice());
    let mut vbasis = intersection(ra.as_slice(), rb.as_slice(), dim);
    if vbasis.len() < n_reg_b {
        return None;
    }
    vbasis.truncate(n_reg_b);
    let mut i = 0;
    while i < lanes_a.len() {
        if lanes_a[i] >= a.lane.len() || a.lane.get(lanes_a[i]) == 0 {
            return None;
        }
        i += 1;
    }
    let mut i = 0;
    while i < lanes_b.len() {
        if lanes_b[i] >= a.lane.len() || lanes_b[i] >= b.lane.len() || b.lane.get(lanes_b[i]) == 0 {
            return None;
        }
        i += 1;
    }
    // The first lanes of b's tile must be registers in a; the rest lanes of a, in order.
    let mut span = None;
    let extra = n_reg_a - n_reg_b;
    let mut i = 0;
    while i < extra && i < lanes_b.len() {
        match locate(a, &mut span, b.lane.get(lanes_b[i])) {
            Some((reg, _)) if reg != 0 => {}
            _ => return None,
        }
        i += 1;
    }
    let from = lanes_b.len().saturating_sub(lanes_a.len());
    let mut k = 0;
    while k < lanes_a.len() && from + k < lanes_b.len() {
        match locate(a, &mut span, b.lane.get(lanes_b[from + k])) {
            Some((0, lane)) if lane == 1 << lanes_a[k] => {}
            _ => return None,
        }
        k += 1;
    }
    let mut i = 0;
    while i < lanes_b.len() {
        vbasis.push(b.lane.get(lanes_b[i]));
        i += 1;
    }
    Some(vbasis)
}

/// `getTile`: `3 - |laneAddr|` registers not in the vector, then the address lanes.
const fn get_tile(kind: AccessKind, regs: &Vecs, lanes: &[u64], vbasis: &Vecs) -> Option<Vecs> {
    let (_, addr) = kind.tile();
    let need = 3 - addr.len();
    let mut tile = NONE;
    let mut i = 0;
    while i < regs.len() && tile.len() < need {
        if !contains(vbasis.as_slice(), regs.get(i)) {
            tile.push(regs.get(i));
        }
        i += 1;
    }
    if tile.len() < need {
        return None;
    }
    let mut i = 0;
    while i < addr.len() {
        if addr[i] >= lanes.len() {
            return None;
        }
        tile.push(lanes[addr[i]]);
        i += 1;
    }
    Some(tile)
}

/// `bankConflicts`: `2^dim(segment ∩ tile) - 1` for each side; their sum.
const fn bank_conflicts(tile_src: &Vecs, tile_dst: &Vecs, sb: &SmemBases) -> usize {
    let mut seg = NONE;
    let mut i = 0;
    while i < sb.segment {
        seg.push(sb.bases.get(sb.vector + sb.bank + i));
        i += 1;
    }
    let w = (1usize << meet_rank(seg.as_slice(), tile_src.as_slice())) - 1;
    let r = (1usize << meet_rank(seg.as_slice(), tile_dst.as_slice())) - 1;
    w + r
}

/// `dim(span(a) ∩ span(b))`, as `rank(a) + rank(b) - rank(a, b)`: the length of Triton's
/// `intersectionBasis`, which is all `bankConflicts` reads, without the basis itself.
const fn meet_rank(a: &[u64], b: &[u64]) -> usize {
    let both = concat(a, b);
    Span::new(a).rank() + Span::new(b).rank() - Span::new(both.as_slice()).rank()
}

/// The kinds of access Triton considers for `bitwidth`-bit elements (`getSrcDstTiles`).
const fn kinds_for(bitwidth: u32) -> &'static [AccessKind] {
    match bitwidth {
        16 => &[
            AccessKind::Plain,
            AccessKind::Matrix,
            AccessKind::MatrixTrans,
        ],
        8 | 32 => &[AccessKind::Plain, AccessKind::Matrix],
        _ => &[AccessKind::Plain],
    }
}

/// The shared layout for one pair of access kinds, and its score (bank conflicts), if both
/// tiles fit.
const fn try_kinds(
    s: &Flat,
    t: &Flat,
    bitwidth: u32,
    (ks, kd): (AccessKind, AccessKind),
    allow_reps: bool,
    target: &Target,
) -> Option<(usize, SmemBases)> {
    let total = (128 / bitwidth).trailing_zeros() as usize;
    let (cs, _) = ks.tile();
    let (cd, _) = kd.tile();
    if cs.len() > total || cd.len() > total {
        return None;
    }
    let regs = (total - cs.len(), total - cd.len());
    let Some(vbasis) = swizzling_tile(s, t, regs, cs, cd) else {
        return None;
    };
    let (reg_src, reg_dst) = (non_zero(s.reg.as_slice()), non_zero(t.reg.as_slice()));
    let (Some(ts), Some(td)) = (
        get_tile(ks, &reg_src, s.lane.as_slice(), &vbasis),
        get_tile(kd, &reg_dst, t.lane.as_slice(), &vbasis),
    ) else {
        return None;
    };
    let leave = if ks.missing() < kd.missing() {
        ks.missing()
    } else {
        kd.missing()
    };
    let tiles = Tiles {
        vbasis: &vbasis,
        src: ts.as_slice(),
        dst: td.as_slice(),
    };
    let sb = swizzle_with(s, t, bitwidth, &tiles, leave, allow_reps, target);
    Some((bank_conflicts(&ts, &td, &sb), sb))
}

/// Triton's NVIDIA `optimalSwizzling` over instruction tiles: every pair of a store kind and a
/// load kind whose tiles fit, scored by bank conflicts (ties: more rounds); plain ld/st
/// (`optimal_swizzling_ld_st`) when none fits. Matrix kinds for elements of at most 32 bits,
/// `.trans` for 16-bit ones, as Triton's `getSrcDstTiles`; only those the target has.
pub const fn optimal_swizzling(
    s: &Flat,
    t: &Flat,
    bitwidth: u32,
    allow_reps: bool,
    target: &Target,
) -> (SmemBases, AccessKind, AccessKind) {
    let kinds = kinds_for(bitwidth);
    let mut best: Option<(usize, SmemBases, AccessKind, AccessKind)> = None;
    let mut i = 0;
    while i < kinds.len() {
        let ks = kinds[i];
        let mut j = 0;
        while j < kinds.len() {
            let kd = kinds[j];
            j += 1;
            if !ks.on(target, true) || !kd.on(target, false) {
                continue;
            }
            let Some((score, sb)) = try_kinds(s, t, bitwidth, (ks, kd), allow_reps, target) else {
                continue;
            };
            let better = match &best {
                None => true,
                Some((b, bsb, _, _)) => score < *b || (score == *b && sb.reps > bsb.reps),
            };
            if better {
                best = Some((score, sb, ks, kd));
            }
        }
        i += 1;
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
            compute_segment(&[1, 2], &[4, 8], &[], 5, 1).as_slice(),
            &[16]
        );
        // Needing three: 16, then mixes 1^4 and 2^8.
        assert_eq!(
            compute_segment(&[1, 2], &[4, 8], &[], 5, 3).as_slice(),
            &[16, 5, 10]
        );
        // A block basis is taken by both sides: never a segment bit.
        assert_eq!(
            compute_segment(&[1, 2], &[4, 8], &[16], 5, 2).as_slice(),
            &[5, 10]
        );
    }
}
