//! The shared layout as the planner sees it: which offset, round and CTA a tensor element goes
//! to, and the sides that store and load through it.

use alloc::vec::Vec;

use super::bits::{combine, FlatLayout, Span};
use layout_plan::CTA_SHIFT;

/// The shared layout: offset bits, then rep (round) bits, then one bit per source block bit
/// (the CTA whose buffer holds an element; zero block bases are never used).
pub(super) struct Smem {
    pub(super) span: Span,
    pub(super) offset_bits: u32,
    rep_bits: u32,
    /// Source block bits that are zero (CTAs holding copies): each CTA uses its own buffer there.
    pub(super) own: u32,
}

impl Smem {
    /// The shared layout of `bases` (offset bases, then `rep_bits` rep bases) and `block` (the
    /// block bases, one per CTA rank bit, zero ones included: their CTAs keep their own copy).
    pub(super) fn new(bases: &[u64], rep_bits: usize, block: &[u64]) -> Self {
        let mut all = bases.to_vec();
        all.extend(block);
        Smem {
            span: Span::new(&all),
            offset_bits: (bases.len() - rep_bits) as u32,
            rep_bits: rep_bits as u32,
            own: block
                .iter()
                .enumerate()
                .filter(|(_, &b)| b == 0)
                .fold(0u32, |a, (i, _)| a | (1 << i)),
        }
    }

    fn mask(&self, v: u64) -> u64 {
        self.span.express(v).unwrap_or(0)
    }
}

/// Offset (in elements) of a flat tensor vector under the shared layout.
pub(super) fn offset_of(v: u64, smem: &Smem) -> u32 {
    (smem.mask(v) & ((1u64 << smem.offset_bits) - 1)) as u32
}

/// The round a flat tensor vector is moved in.
pub(super) fn round_of(v: u64, smem: &Smem) -> u32 {
    ((smem.mask(v) >> smem.offset_bits) & ((1u64 << smem.rep_bits) - 1)) as u32
}

/// The CTA (rank bits) whose buffer holds a flat tensor vector.
pub(super) fn cta_of(v: u64, smem: &Smem) -> u32 {
    (smem.mask(v) >> (smem.offset_bits + smem.rep_bits)) as u32
}

/// The address of a flat tensor vector: byte offset, and its CTA at `CTA_SHIFT`.
pub(super) fn addr_of(v: u64, smem: &Smem, ebytes: u32) -> u32 {
    (offset_of(v, smem) * ebytes) | (cta_of(v, smem) << CTA_SHIFT)
}

/// The first register of each access (the registers `used` leaves at zero, copies left out), in
/// round order: round `r` moves the registers whose rep bits are `r`.
pub(super) fn access_groups(side: &Side, used: usize, smem: &Smem) -> Vec<usize> {
    let f = side.flat;
    let mut groups: Vec<usize> = (0..1usize << f.reg.len())
        .filter(|&x| x & used == 0 && (x as u32) & side.reg_free == 0)
        .collect();
    groups.sort_by_key(|&x| round_of(combine(&f.reg, x as u64), smem));
    groups
}

/// One side of the conversion and the bits of its threads and registers that hold copies.
pub(super) struct Side<'a> {
    pub(super) flat: &'a FlatLayout,
    pub(super) reg_free: u32,
    pub(super) lane_free: u32,
    pub(super) warp_free: u32,
}
