//! Conversions through shared memory: every thread stores its distinct source elements, a
//! barrier, every thread loads its destination elements.
//!
//! The shared layout is Triton's `optimalSwizzlingLdSt` ([`super::swizzle`]): vectors first,
//! then bank bases, then segment bases chosen against bank conflicts. Each side then uses the
//! widest aligned vector its registers allow. Bank conflicts of the resulting accesses are
//! counted exactly, per instruction, by simulating warp 0's addresses.

use alloc::vec::Vec;

use super::bits::{combine, FlatLayout, Span};
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

/// The shared layout: offset bits, then rep (round) bits.
struct Smem {
    span: Span,
    offset_bits: u32,
}

impl Smem {
    fn mask(&self, v: u64) -> u64 {
        self.span.express(v).unwrap_or(0)
    }
}

/// Offset (in elements) of a flat tensor vector under the shared layout.
fn offset_of(v: u64, smem: &Smem) -> u32 {
    (smem.mask(v) & ((1u64 << smem.offset_bits) - 1)) as u32
}

/// The round a flat tensor vector is moved in.
fn round_of(v: u64, smem: &Smem) -> u32 {
    (smem.mask(v) >> smem.offset_bits) as u32
}

/// The register bits that carry a side's vector: register bases at offsets 1, 2, 4, ... (up to
/// `max_bits` of them), as long as no other basis has bits below the vector (alignment).
fn vector_bits(f: &FlatLayout, smem: &Smem, max_bits: usize, reg_free: u32) -> Vec<usize> {
    let offs: Vec<u32> = f.reg.iter().map(|&b| offset_of(b, smem)).collect();
    let mut vpos: Vec<usize> = Vec::new();
    while vpos.len() < max_bits {
        let want = 1u32 << vpos.len();
        match (0..offs.len())
            .find(|&i| offs[i] == want && f.reg[i] != 0 && (reg_free >> i) & 1 == 0)
        {
            Some(i) => vpos.push(i),
            None => break,
        }
    }
    loop {
        let low = (1u32 << vpos.len()) - 1;
        let others = offs
            .iter()
            .enumerate()
            .filter(|(i, _)| !vpos.contains(i))
            .map(|(_, &o)| o)
            .chain(f.lane.iter().chain(&f.warp).map(|&b| offset_of(b, smem)));
        let aligned = others.clone().all(|o| o & low == 0);
        if aligned || vpos.is_empty() {
            return vpos;
        }
        vpos.pop();
    }
}

struct Side<'a> {
    flat: &'a FlatLayout,
    reg_free: u32,
    lane_free: u32,
    warp_free: u32,
}

fn access(side: &Side, vpos: &[usize], smem: &Smem, ebytes: u32, store: bool) -> SmemAccess {
    let f = side.flat;
    let vmask: usize = vpos.iter().fold(0, |a, &p| a | (1 << p));
    let vec = 1u32 << vpos.len();
    let mut regs = Vec::new();
    let mut reg_offsets = Vec::new();
    // Accesses in round order: round r moves the registers whose rep bits are r.
    let mut groups: Vec<usize> = (0..1usize << f.reg.len())
        .filter(|&x| x & vmask == 0 && !(store && (x as u32) & side.reg_free != 0))
        .collect();
    groups.sort_by_key(|&x| round_of(combine(&f.reg, x as u64), smem));
    for x in groups {
        reg_offsets.push(offset_of(combine(&f.reg, x as u64), smem) * ebytes);
        for t in 0..vec as usize {
            let r = vpos
                .iter()
                .enumerate()
                .filter(|(i, _)| (t >> i) & 1 == 1)
                .fold(x, |a, (_, &p)| a | (1 << p));
            regs.push(r as u16);
        }
    }
    let bases =
        |v: &[u64]| -> Vec<u32> { v.iter().map(|&b| offset_of(b, smem) * ebytes).collect() };
    SmemAccess {
        vec,
        regs,
        reg_offsets,
        lane_bases: bases(&f.lane),
        warp_bases: bases(&f.warp),
        lane_skip: if store { side.lane_free } else { 0 },
        warp_skip: if store { side.warp_free } else { 0 },
    }
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
    let (sr, sl, sw) = free_masks(src);
    let (tr, _, tw) = free_masks(dst);
    // Triton's shared layout, computed without register broadcasting.
    let strip = |f: &FlatLayout| FlatLayout {
        reg: f.reg.iter().copied().filter(|&b| b != 0).collect(),
        ..f.clone()
    };
    // Rounds need every lane and warp basis to stay within one round (true of Triton's layouts;
    // a random XOR-mixed one may not), else the plan goes without them.
    let mut sb = super::swizzle::optimal_swizzling_ld_st(&strip(s), &strip(t), elem_bits, true);
    let make = |sb: &super::swizzle::SmemBases| Smem {
        span: Span::new(&sb.bases),
        offset_bits: total - sb.reps as u32,
    };
    let mut span = make(&sb);
    let in_round_0 =
        |f: &FlatLayout, m: &Smem| f.lane.iter().chain(&f.warp).all(|&b| round_of(b, m) == 0);
    if sb.reps > 0 && !(in_round_0(s, &span) && in_round_0(t, &span)) {
        sb = super::swizzle::optimal_swizzling_ld_st(&strip(s), &strip(t), elem_bits, false);
        span = make(&sb);
    }
    let offset_bases = sb.bases.clone();
    if offset_bases.len() != total as usize {
        bail!(
            "internal: the shared layout has {} offset bits for a tensor of {}",
            offset_bases.len(),
            total
        );
    }
    let rounds = 1u32 << sb.reps;
    let max_vec = (128 / elem_bits).trailing_zeros() as usize;
    let s_side = Side {
        flat: s,
        reg_free: sr,
        lane_free: sl,
        warp_free: sw,
    };
    let t_side = Side {
        flat: t,
        reg_free: 0,
        lane_free: 0,
        warp_free: 0,
    };
    let store = access(
        &s_side,
        &vector_bits(s, &span, max_vec, sr),
        &span,
        ebytes,
        true,
    );
    let load = access(
        &t_side,
        &vector_bits(t, &span, max_vec, tr),
        &span,
        ebytes,
        false,
    );
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
    let unflat_v = |v: u64| -> Vec<i32> {
        (0..64)
            .filter(|b| (v >> b) & 1 == 1)
            .fold(alloc::vec![0i32; dims.len()], |mut c, b| {
                let u = unflat(b);
                for d in 0..c.len() {
                    c[d] ^= u[d];
                }
                c
            })
    };
    let smem = LinearLayout::from_parts(
        alloc::vec![(
            alloc::string::String::from("offset"),
            offset_bases.iter().map(|&b| unflat_v(b)).collect()
        )],
        dims.clone(),
        true,
    )?;
    let cost = Cost {
        shared_bytes: (1u32 << (total - sb.reps as u32)) * ebytes,
        stores: store.reg_offsets.len() as u32,
        loads: load.reg_offsets.len() as u32,
        vector: store.vec.min(load.vec),
        write_conflicts: conflicts(&store, ebytes, lanes),
        read_conflicts: conflicts(&load, ebytes, lanes),
        barriers: 2 * rounds - 1,
        ..Cost::of(Strategy::SharedMemory)
    };
    Ok((
        SharedPlan {
            store,
            load,
            block_barrier,
            rounds,
            smem,
        },
        cost,
    ))
}
