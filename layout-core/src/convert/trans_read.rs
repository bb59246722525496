//! AMD's transposed LDS reads (`ds_read_b64_tr_b16` and `_b8` on gfx950, `ds_load_tr16_b128`
//! and `ds_load_tr8_b64` on gfx1250): whether a load from a shared layout fits one, and its
//! tables when it does, as Triton 3.9's `TransLocalLoadOpConversion` decides and lowers it.
//!
//! Each lane reads a row of `T` contiguous elements (64 or 128 bits); the instruction hands
//! lane `l` element `l % T` of `T` rows, one per register. Triton's `fullTile` says which: lane
//! bits below `log2 T` pick the element, and the other lane bits and the `log2 T` register bits
//! pick the row, whose address the lane with that number supplies. A load fits when the
//! destination's first `log2 T` lane bits walk offsets 1, 2, 4, ... (Triton's `divideLeft` by
//! the tile) and every other basis keeps rows aligned; it then takes a register group's `T`
//! elements per instruction.

use alloc::vec::Vec;

use super::bits::combine;
use super::{Instr, Target};
use layout_plan::fixed::{Fixed, FixedBases, FixedList};
use layout_plan::solve::shared::{access_groups, Side, Smem};
use layout_plan::SmemAccess;

/// Where one bit of a row number (a supplying lane's bit) comes from in `fullTile`.
#[derive(Clone, Copy)]
enum RowBit {
    Lane(usize),
    Reg(usize),
}

/// The row-number bits of `fullTile`, lowest first, for rows of `2^t` elements in a warp of
/// `2^lanes` lanes: `other` lane bits, the register bits, the remaining lane bits (gfx1250's
/// 8-bit read splits its register bits around the `other` lane bit).
fn row_bits(t: usize, lanes: usize, other: usize, split: bool) -> Vec<RowBit> {
    let mut bits = Vec::new();
    let lane_run = |from: usize, to: usize| (from..to).map(RowBit::Lane);
    if split {
        bits.extend((0..t - 1).map(RowBit::Reg));
        bits.extend(lane_run(t, t + other));
        bits.push(RowBit::Reg(t - 1));
    } else {
        bits.extend(lane_run(t, t + other));
        bits.extend((0..t).map(RowBit::Reg));
    }
    bits.extend(lane_run(t + other, lanes));
    bits
}

/// The transposed read of a load of `ebytes`-byte elements, if the target has one and the
/// side's layout fits it (padding, if any, keeps rows of `widest` bytes whole).
pub(super) fn trans_read_access(
    side: &Side,
    smem: &Smem,
    ebytes: u32,
    widest: u32,
    target: &Target,
) -> Option<SmemAccess<Fixed>> {
    let f = side.flat;
    let row_bits_total = target.trans_read.lane_bits(8 * ebytes)?;
    let t = (row_bits_total / (8 * ebytes)).trailing_zeros() as usize;
    let lanes = f.lane.len();
    if lanes > 6 || 1u32 << lanes != target.lanes || f.reg.len() < t || t > 3 {
        return None;
    }
    if widest < row_bits_total / 8 || side.reg_free & ((1 << t) - 1) != 0 {
        return None;
    }
    // The tile: lanes below T read consecutive elements of one row.
    let tile = (0..t).all(|i| {
        smem.offset_of(f.lane[i]) == 1 << i
            && smem.round_of(f.lane[i]) == 0
            && smem.cta_of(f.lane[i]) == 0
    });
    // Everything else moves whole rows; each CTA reads its own buffer.
    let aligned = f
        .reg
        .iter()
        .chain(&f.lane[t..])
        .chain(&f.warp)
        .all(|&b| smem.offset_of(b) & ((1 << t) - 1) == 0 && smem.round_of(b) == 0);
    let local = f
        .block
        .iter()
        .all(|&b| smem.cta_of(b) == 0 && smem.offset_of(b) == 0);
    if !tile || !aligned || !local {
        return None;
    }
    let (other, split) = match (target.trans_read, ebytes) {
        (layout_plan::LdsTranspose::Cdna4, 1) => (1, false),
        (layout_plan::LdsTranspose::Cdna4, _) => (2, false),
        (_, 1) => (1, true),
        _ => (0, false),
    };
    let rows = row_bits(t, lanes, other.min(lanes - t), split);
    let (mut lane_src, mut reg_src) = ([0u8; 6], [0u8; 3]);
    let lane_bases: Vec<u32> = rows
        .iter()
        .enumerate()
        .map(|(j, r)| match *r {
            RowBit::Lane(b) => {
                lane_src[b] = 1 << j;
                smem.addr_of(f.lane[b], ebytes)
            }
            RowBit::Reg(c) => {
                reg_src[c] = 1 << j;
                smem.addr_of(f.reg[c], ebytes)
            }
        })
        .collect();
    let mut regs = FixedList::new(0);
    let mut reg_offsets = FixedList::new(0);
    for &x in access_groups(side, (1 << t) - 1, smem)?.iter() {
        reg_offsets.push(smem.addr_of(combine(&f.reg, x as u64), ebytes));
        for k in 0..1u16 << t {
            regs.push(x | k);
        }
    }
    let warp_bases: Vec<u32> = f.warp.iter().map(|&b| smem.addr_of(b, ebytes)).collect();
    Some(SmemAccess {
        vec: 1 << t,
        regs,
        reg_offsets,
        lane_bases: FixedBases::from_slice(&lane_bases)?,
        warp_bases: FixedBases::from_slice(&warp_bases)?,
        block_bases: FixedBases::new(),
        reg_skip: side.reg_free,
        lane_skip: 0,
        warp_skip: 0,
        remote: false,
        instr: Instr::TransRead { lane_src, reg_src },
        padding: layout_plan::NO_PADDING,
    })
}
