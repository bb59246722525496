//! Conversions through shared memory: every thread stores its distinct source elements, a
//! barrier, every thread loads its destination elements.
//!
//! The shared layout puts the widest vector both sides can use in the lowest offset bits (the
//! register bases common to source and destination, up to 128 bits, as Triton's
//! `optimalSwizzlingLdSt` starts), then the remaining tensor bits in order. Bank conflicts of
//! the resulting accesses are counted exactly, per instruction, by simulating a warp's addresses.

use alloc::vec::Vec;

use super::bits::{combine, FlatLayout};
use super::{Cost, SharedPlan, SmemAccess, Strategy};
use crate::error::bail;
use crate::{LinearLayout, Result};

/// Free (broadcast) bits of each in-dim, as masks.
fn free_masks(l: &LinearLayout) -> (u32, u32, u32) {
    let fm = l.free_variable_masks();
    let get = |d: &str| {
        fm.iter()
            .find(|(n, _)| n == d)
            .map_or(0, |(_, m)| *m as u32)
    };
    (get("register"), get("lane"), get("warp"))
}

/// Offset (in elements) of a flat tensor vector under the shared layout, given where each
/// tensor bit sits in the offset.
fn offset_of(v: u64, pos: &[u32]) -> u32 {
    (0..64)
        .filter(|&b| (v >> b) & 1 == 1)
        .fold(0u32, |a, b| a | (1 << pos[b as usize]))
}

struct Side<'a> {
    flat: &'a FlatLayout,
    reg_free: u32,
    lane_free: u32,
    warp_free: u32,
}

fn access(
    side: &Side,
    vbasis: &[u64],
    pos: &[u32],
    ebytes: u32,
    store: bool,
) -> Result<SmemAccess> {
    let f = side.flat;
    // Register bit carrying each vector element bit.
    let mut vpos = Vec::new();
    for v in vbasis {
        match f.reg.iter().position(|r| r == v) {
            Some(p) => vpos.push(p),
            None => bail!("internal: vector basis missing from a register layout"),
        }
    }
    let vmask: usize = vpos.iter().fold(0, |a, &p| a | (1 << p));
    let vec = 1u32 << vbasis.len();
    let mut regs = Vec::new();
    let mut reg_offsets = Vec::new();
    for x in 0..1usize << f.reg.len() {
        if x & vmask != 0 || (store && (x as u32) & side.reg_free != 0) {
            continue;
        }
        reg_offsets.push(offset_of(combine(&f.reg, x as u64), pos) * ebytes);
        for t in 0..vec as usize {
            let r = vpos
                .iter()
                .enumerate()
                .filter(|(i, _)| (t >> i) & 1 == 1)
                .fold(x, |a, (_, &p)| a | (1 << p));
            regs.push(r as u16);
        }
    }
    let bases = |v: &[u64]| -> Vec<u32> { v.iter().map(|&b| offset_of(b, pos) * ebytes).collect() };
    Ok(SmemAccess {
        vec,
        regs,
        reg_offsets,
        lane_bases: bases(&f.lane),
        warp_bases: bases(&f.warp),
        lane_skip: if store { side.lane_free } else { 0 },
        warp_skip: if store { side.warp_free } else { 0 },
    })
}

/// Extra wavefronts of the worst instruction of `a`, for warp 0.
fn conflicts(a: &SmemAccess, ebytes: u32, lanes: usize) -> u32 {
    let bytes = a.vec * ebytes;
    let lanes_per_phase = (128 / bytes.max(4)).min(lanes as u32).max(1) as usize;
    let base = |lane: usize| {
        (0..a.lane_bases.len())
            .filter(|&b| (lane >> b) & 1 == 1)
            .fold(0u32, |acc, b| acc ^ a.lane_bases[b])
    };
    let mut worst = 0;
    for &ro in &a.reg_offsets {
        let mut extra = 0;
        for phase in (0..lanes).step_by(lanes_per_phase) {
            // Distinct 4-byte words per bank in this phase.
            let mut words: Vec<(u32, u32)> = Vec::new();
            for lane in phase..(phase + lanes_per_phase).min(lanes) {
                if (lane as u32) & a.lane_skip != 0 {
                    continue;
                }
                let addr = base(lane) ^ ro;
                for k in 0..bytes.div_ceil(4) {
                    let w = addr / 4 + k;
                    if !words.contains(&(w % 32, w)) {
                        words.push((w % 32, w));
                    }
                }
            }
            let per_bank = (0..32)
                .map(|bank| words.iter().filter(|(b, _)| *b == bank).count() as u32)
                .max()
                .unwrap_or(0);
            extra += per_bank.saturating_sub(1);
        }
        worst = worst.max(extra);
    }
    worst
}

/// The shared-memory plan and its cost.
pub fn plan(
    src: &LinearLayout,
    dst: &LinearLayout,
    s: &FlatLayout,
    t: &FlatLayout,
    elem_bits: u32,
    crosses_warps: bool,
) -> Result<(SharedPlan, Cost)> {
    let ebytes = elem_bits / 8;
    let total = s.total_bits;
    if total + ebytes.trailing_zeros() > 31 {
        bail!("the tensor is too large to convert through shared memory");
    }
    // Vector: unit register bases common to both sides, in source order, up to 128 bits.
    let max_vec = (128 / elem_bits).trailing_zeros() as usize;
    // A vector bit must be a register basis of both sides that no other basis touches, or the
    // accesses would not be aligned.
    let alone = |f: &FlatLayout, u: u64| {
        f.reg.contains(&u)
            && f.reg
                .iter()
                .chain(&f.lane)
                .chain(&f.warp)
                .filter(|&&b| b & u != 0)
                .count()
                == 1
    };
    let vbasis: Vec<u64> = s
        .reg
        .iter()
        .copied()
        .filter(|&b| b.count_ones() == 1 && alone(s, b) && alone(t, b))
        .take(max_vec)
        .collect();
    // Offset bits: the vector's tensor bits first, then the other tensor bits in order.
    let mut order: Vec<u32> = vbasis.iter().map(|b| b.trailing_zeros()).collect();
    let rest: Vec<u32> = (0..total).filter(|b| !order.contains(b)).collect();
    order.extend(rest);
    let mut pos = alloc::vec![0u32; 64];
    for (i, &b) in order.iter().enumerate() {
        pos[b as usize] = i as u32;
    }
    let (sr, sl, sw) = free_masks(src);
    let (_, _, tw) = free_masks(dst);
    let store = access(
        &Side {
            flat: s,
            reg_free: sr,
            lane_free: sl,
            warp_free: sw,
        },
        &vbasis,
        &pos,
        ebytes,
        true,
    )?;
    let load = access(
        &Side {
            flat: t,
            reg_free: 0,
            lane_free: 0,
            warp_free: 0,
        },
        &vbasis,
        &pos,
        ebytes,
        false,
    )?;
    let lanes = 1usize << s.lane.len();
    let block_barrier = crosses_warps || sw != 0 || tw != 0;
    // The shared layout as a LinearLayout (offset -> tensor coordinates) for printing.
    let dims: Vec<(alloc::string::String, i32)> = src.out_dims().to_vec();
    let unflat = |bitpos: u32| -> Vec<i32> {
        let mut c = alloc::vec![0i32; dims.len()];
        for d in 0..dims.len() {
            let lo = s.dim_shift[d];
            let hi = lo + dims[d].1.trailing_zeros();
            if (lo..hi).contains(&bitpos) {
                c[d] = 1 << (bitpos - lo);
            }
        }
        c
    };
    let smem = LinearLayout::from_parts(
        alloc::vec![(
            alloc::string::String::from("offset"),
            order.iter().map(|&b| unflat(b)).collect()
        )],
        dims.clone(),
        true,
    )?;
    let cost = Cost {
        shared_bytes: (1u32 << total) * ebytes,
        stores: store.reg_offsets.len() as u32,
        loads: load.reg_offsets.len() as u32,
        vector: store.vec,
        write_conflicts: conflicts(&store, ebytes, lanes),
        read_conflicts: conflicts(&load, ebytes, lanes),
        barriers: 1,
        ..Cost::of(Strategy::SharedMemory)
    };
    Ok((
        SharedPlan {
            store,
            load,
            block_barrier,
            smem,
        },
        cost,
    ))
}
