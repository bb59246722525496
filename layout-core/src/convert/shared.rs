//! Conversions through shared memory: every thread stores its distinct source elements, a
//! barrier, every thread loads its destination elements.
//!
//! The shared layout is Triton's `optimalSwizzlingLdSt` ([`super::swizzle`]): vectors first,
//! then bank bases, then segment bases chosen against bank conflicts. Each side then uses the
//! widest aligned vector its registers allow. Bank conflicts of the resulting accesses are
//! counted exactly, per instruction, by simulating warp 0's addresses.
//!
//! Across CTAs (layouts of a cluster that split the tensor differently), each CTA's buffer holds
//! what the source CTA holds (Triton's choice: the shared layout's block bases are the source's),
//! and the accesses that reach another CTA's buffer go through distributed shared memory. An
//! address is then `byte offset | cta << CTA_SHIFT`, linear like the offset, so the same tables
//! carry both.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::bits::{combine, FlatLayout, Span};
use super::{Barrier, Cost, Instr, SharedPlan, SmemAccess, Strategy, Target};
use crate::error::bail;
use crate::{LinearLayout, Result};
use layout_plan::{CTA_SHIFT, OFFSET_MASK};

use super::banks::bank_conflicts_of_warp;
use super::matrix::matrix_access;
use super::smem::{access_groups, addr_of, cta_of, offset_of, round_of, Side, Smem};
use super::swizzle::{optimal_swizzling, AccessKind, SmemBases};
use super::trans_read::trans_read_access;

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

/// The register bits that carry a side's vector: register bases at offsets 1, 2, 4, ... (up to
/// `max_bits` of them), as long as no lane, warp or block basis has bits below the vector
/// (alignment). Other registers may: their low bits only permute the vector's registers, which
/// [`access`] resolves at compile time (a swizzle that XORs a row bit into the column bit).
fn vector_bits(f: &FlatLayout, smem: &Smem, max_bits: usize, reg_free: u32) -> Vec<usize> {
    let offs: Vec<u32> = f.reg.iter().map(|&b| offset_of(b, smem)).collect();
    let mut vpos: Vec<usize> = Vec::new();
    while vpos.len() < max_bits {
        let want = 1u32 << vpos.len();
        match (0..offs.len()).find(|&i| {
            offs[i] == want
                && f.reg[i] != 0
                && (reg_free >> i) & 1 == 0
                // A vector never spans two rounds, nor two CTAs.
                && round_of(f.reg[i], smem) == 0
                && cta_of(f.reg[i], smem) == 0
        }) {
            Some(i) => vpos.push(i),
            None => break,
        }
    }
    loop {
        let low = (1u32 << vpos.len()) - 1;
        let aligned = f
            .lane
            .iter()
            .chain(&f.warp)
            .chain(&f.block)
            .all(|&b| offset_of(b, smem) & low == 0);
        if aligned || vpos.is_empty() {
            return vpos;
        }
        vpos.pop();
    }
}

fn access(side: &Side, vpos: &[usize], smem: &Smem, ebytes: u32, store: bool) -> SmemAccess {
    let f = side.flat;
    let vmask: usize = vpos.iter().fold(0, |a, &p| a | (1 << p));
    let vec = 1u32 << vpos.len();
    let mut regs = Vec::new();
    let mut reg_offsets = Vec::new();
    for x in access_groups(side, vmask, smem) {
        let addr = addr_of(combine(&f.reg, x as u64), smem, ebytes);
        // The registers outside the vector may set offset bits inside it: the vector then
        // starts lower, its registers permuted by those bits.
        let shift = (addr / ebytes) & (vec - 1);
        reg_offsets.push(addr - shift * ebytes);
        for t in 0..vec as usize {
            let r = vpos
                .iter()
                .enumerate()
                .filter(|(i, _)| ((t ^ shift as usize) >> i) & 1 == 1)
                .fold(x, |a, (_, &p)| a | (1 << p));
            regs.push(r as u16);
        }
    }
    let bases = |v: &[u64]| -> Vec<u32> { v.iter().map(|&b| addr_of(b, smem, ebytes)).collect() };
    let mut a = SmemAccess {
        vec,
        regs,
        reg_offsets,
        lane_bases: bases(&f.lane),
        warp_bases: bases(&f.warp),
        block_bases: f
            .block
            .iter()
            .enumerate()
            .map(|(i, &b)| {
                let own = if (smem.own >> i) & 1 == 1 {
                    1 << (CTA_SHIFT + i as u32)
                } else {
                    0
                };
                addr_of(b, smem, ebytes) ^ own
            })
            .collect(),
        reg_skip: side.reg_free,
        lane_skip: if store { side.lane_free } else { 0 },
        warp_skip: if store { side.warp_free } else { 0 },
        remote: true,
        instr: Instr::Vector,
        padding: layout_plan::NO_PADDING,
    };
    localize(&mut a);
    a
}

/// Whether every address of `a` is in the accessing CTA's own buffer (the CTA part of the address
/// is the CTA's rank): then the CTA bits are dropped and plain `ld/st.shared` do.
fn localize(a: &mut SmemAccess) {
    let cta = |x: u32| x >> CTA_SHIFT;
    let local = a
        .reg_offsets
        .iter()
        .chain(&a.lane_bases)
        .chain(&a.warp_bases)
        .all(|&x| cta(x) == 0)
        && a.block_bases
            .iter()
            .enumerate()
            .all(|(i, &x)| cta(x) == 1 << i);
    a.remote = !local;
    if local {
        for x in &mut a.block_bases {
            *x &= OFFSET_MASK;
        }
        if a.block_bases.iter().all(|&x| x == 0) {
            a.block_bases.clear();
        }
    }
}

/// Extra wavefronts of the worst instruction of `a`, for warp 0.
fn conflicts(a: &SmemAccess, ebytes: u32, lanes: usize, load: bool, target: &Target) -> u32 {
    // Every warp has warp 0's conflicts, but with padding.
    let warps = if a.padding == layout_plan::NO_PADDING {
        1
    } else {
        1u32 << a.warp_bases.len()
    };
    (0..warps)
        .flat_map(|w| bank_conflicts_of_warp(a, ebytes, lanes, load, target, w))
        .map(|i| i.conflicts())
        .max()
        .unwrap_or(0)
}

/// Whether every element is held by the same warp in both layouts (each layout one-to-one apart
/// from zero bases): then, with every access in the CTA's own buffer, a warp barrier orders each
/// load after the store it reads, even when the conversion moves data between CTAs' copies
/// (Triton's `isCvtDimSync` over warps).
fn same_warps(s: &FlatLayout, t: &FlatLayout) -> bool {
    let warp_of = |f: &FlatLayout| {
        let all: Vec<u64> = f
            .reg
            .iter()
            .chain(&f.lane)
            .chain(&f.warp)
            .chain(&f.block)
            .copied()
            .collect();
        let nonzero = all.iter().filter(|&&b| b != 0).count();
        let span = Span::new(&all);
        let shift = f.reg.len() + f.lane.len();
        let mask = (1u64 << f.warp.len()) - 1;
        let warps: Option<Vec<u64>> = (0..f.total_bits)
            .map(|b| span.express(1u64 << b).map(|m| (m >> shift) & mask))
            .collect();
        // One-to-one apart from zero bases.
        warps.filter(|_| span.rank() == nonzero)
    };
    match (warp_of(s), warp_of(t)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// The shared-memory plan, its cost, and the scratch buffer's layout.
pub fn plan(
    src: &LinearLayout,
    dst: &LinearLayout,
    (s, t): (&FlatLayout, &FlatLayout),
    elem_bits: u32,
    crosses_warps: bool,
    target: &Target,
) -> Result<(SharedPlan, Cost, LinearLayout)> {
    let ebytes = elem_bits / 8;
    if s.total_bits + ebytes.trailing_zeros() > 31 {
        bail!("the tensor is too large to convert through shared memory");
    }
    let (sr, sl, sw) = free_masks(src);
    let (tr, _, tw) = free_masks(dst);
    let (sb, (ks, kd), span) = scratch(s, t, elem_bits, target)?;
    let s_side = Side {
        flat: s,
        reg_free: sr,
        lane_free: sl,
        warp_free: sw,
    };
    let t_side = Side {
        flat: t,
        reg_free: tr,
        lane_free: 0,
        warp_free: 0,
    };
    let accesses = |ks, kd| {
        (
            side_access(&s_side, ks, true, &span, elem_bits, 16),
            side_access(&t_side, kd, false, &span, elem_bits, 16),
        )
    };
    let (mut store, mut load) = accesses(ks, kd);
    if store.remote || load.remote {
        // Across CTAs: plain accesses on both sides (no ldmatrix into another CTA's buffer).
        (store, load) = accesses(AccessKind::Plain, AccessKind::Plain);
    }
    let barrier = if store.remote || load.remote {
        Barrier::Cluster
    } else if (crosses_warps && !same_warps(s, t)) || sw != 0 || tw != 0 {
        Barrier::Block
    } else {
        Barrier::Warp
    };
    let rounds = 1u32 << sb.reps;
    let lanes = 1usize << s.lane.len();
    let cost = Cost {
        shared_bytes: (1u32 << span.offset_bits) * ebytes,
        stores: store.reg_offsets.len() as u32,
        loads: load.reg_offsets.len() as u32,
        vector: store.vec.min(load.vec),
        write_conflicts: conflicts(&store, ebytes, lanes, false, target),
        read_conflicts: conflicts(&load, ebytes, lanes, true, target),
        barriers: 2 * rounds - 1 + u32::from(barrier == Barrier::Cluster),
        ..Cost::of(Strategy::SharedMemory)
    };
    let plan = SharedPlan {
        store,
        load,
        barrier,
        rounds,
    };
    Ok((plan, cost, scratch_layout(src, s, &sb.bases)?))
}

/// Triton's scratch layout for the pair (computed without register broadcasting) and the access
/// kind it chose for each side. Rounds need every lane and warp basis to stay within one round
/// (true of Triton's layouts; a random XOR-mixed one may not), else it goes without them.
fn scratch(
    s: &FlatLayout,
    t: &FlatLayout,
    elem_bits: u32,
    target: &Target,
) -> Result<(SmemBases, (AccessKind, AccessKind), Smem)> {
    let strip = |f: &FlatLayout| FlatLayout {
        reg: f.reg.non_zero(),
        ..*f
    };
    let solve = |reps| optimal_swizzling(&strip(s), &strip(t), elem_bits, reps, target);
    // CTA bits follow the offset and rep bits: one per source block bit, zero ones included
    // (never used by the span), so that bit `i` of an address's CTA is bit `i` of a rank.
    let make = |sb: &SmemBases| Smem::new(&sb.bases, sb.reps, &s.block);
    let (mut sb, mut ks, mut kd) = solve(true);
    let mut span = make(&sb);
    let in_round_0 = |f: &FlatLayout, m: &Smem| {
        f.lane
            .iter()
            .chain(&f.warp)
            .chain(&f.block)
            .all(|&b| round_of(b, m) == 0)
    };
    if sb.reps > 0 && !(in_round_0(s, &span) && in_round_0(t, &span)) {
        (sb, ks, kd) = solve(false);
        span = make(&sb);
    }
    if sb.bases.len() + sb.block.len() != s.total_bits as usize {
        bail!(
            "internal: the shared layout has {} offset and {} block bits for a tensor of {}",
            sb.bases.len(),
            sb.block.len(),
            s.total_bits
        );
    }
    Ok((sb, (ks, kd), span))
}

/// A side's accesses: the matrix instruction of `kind` where it fits, else the widest vectors.
fn side_access(
    side: &Side,
    kind: AccessKind,
    store: bool,
    span: &Smem,
    elem_bits: u32,
    widest: u32,
) -> SmemAccess {
    let ebytes = elem_bits / 8;
    let matrix = match kind {
        AccessKind::Plain => None,
        k => matrix_access(side, span, k == AccessKind::MatrixTrans, ebytes, store),
    };
    let max_vec = (widest.min(16) * 8 / elem_bits).max(1).trailing_zeros() as usize;
    let plain = access(
        side,
        &vector_bits(side.flat, span, max_vec, side.reg_free),
        span,
        ebytes,
        store,
    );
    // A matrix access where it takes fewer instructions (an `.x1` or `.x2` may not).
    match matrix {
        Some(m) if m.reg_offsets.len() <= plain.reg_offsets.len() => m,
        _ => plain,
    }
}

/// The scratch buffer's layout (offset, block -> tensor coordinates), for printing.
fn scratch_layout(src: &LinearLayout, s: &FlatLayout, offsets: &[u64]) -> Result<LinearLayout> {
    let dims: Vec<(String, i32)> = src.out_dims().to_vec();
    // A flat vector back to coordinates: bit `b` lies in the dim whose bit range holds it.
    let unflat = |v: u64| -> Vec<i32> {
        (0..dims.len())
            .map(|d| {
                let (lo, n) = (s.dim_shift[d], dims[d].1.trailing_zeros());
                ((v >> lo) & ((1u64 << n) - 1)) as i32
            })
            .collect()
    };
    LinearLayout::from_parts(
        vec![
            (
                String::from("offset"),
                offsets.iter().map(|&b| unflat(b)).collect(),
            ),
            (
                String::from("block"),
                s.block.iter().map(|&b| unflat(b)).collect(),
            ),
        ],
        dims.clone(),
        true,
    )
}

/// Stores of a distributed layout's registers into shared memory laid out as `smem` (Triton's
/// `local_store`), or loads from it (`local_load`): the offsets are `smem`'s, the vector as wide
/// as the registers allow, `ldmatrix`/`stmatrix` where the layout fits them.
pub fn plan_shared_access(
    dist: &LinearLayout,
    smem: &LinearLayout,
    elem_bits: u32,
    store: bool,
    target: &Target,
) -> Result<(SmemAccess, Cost)> {
    plan_padded_access(dist, smem, &[], elem_bits, store, target)
}

/// `padding` as the access tables keep it: `(interval, pad)` in elements to log2 bytes, and the
/// widest access in bytes that neither crosses an interval nor loses alignment to a pad.
fn padding_bytes(padding: &[(u32, u32)], ebytes: u32) -> Result<(layout_plan::Padding, u32)> {
    let mut out = layout_plan::NO_PADDING;
    let mut widest = 16;
    if padding.len() > out.len() {
        bail!(
            "a padded layout has at most {} intervals here, not {}",
            out.len(),
            padding.len()
        );
    }
    for (k, &(interval, pad)) in padding.iter().enumerate() {
        let (ib, pb) = (interval as u64 * ebytes as u64, pad as u64 * ebytes as u64);
        if !ib.is_power_of_two()
            || !pb.is_power_of_two()
            || !(2..=1 << 24).contains(&ib)
            || pb > 1 << 24
        {
            bail!(
                "padding [{}:+{}] must be powers of two (in elements) within 2^24 bytes",
                interval,
                pad
            );
        }
        out[k] = (ib.trailing_zeros() as u8, pb.trailing_zeros() as u8);
        widest = widest.min(ib.min(pb) as u32);
    }
    Ok((out, widest))
}

/// [`plan_shared_access`] for a padded shared layout (Triton's `#ttg.padded_shared`): `smem` is
/// its linear component, `padding` its `(interval, pad)` pairs in elements.
pub fn plan_padded_access(
    dist: &LinearLayout,
    smem: &LinearLayout,
    padding: &[(u32, u32)],
    elem_bits: u32,
    store: bool,
    target: &Target,
) -> Result<(SmemAccess, Cost)> {
    super::check_element(elem_bits)?;
    if dist.out_dims() != smem.out_dims() {
        bail!(
            "the layouts cover different tensors: {:?} and {:?}",
            dist.out_dims(),
            smem.out_dims()
        );
    }
    let f = super::bits::flatten(dist)?;
    let (span, cgas_differ) = shared_span(&f, smem)?;
    let ebytes = elem_bits / 8;
    // A load fills registers that hold copies from the one it loads; only stores skip threads.
    let (fr, fl, fw) = free_masks(dist);
    let (fl, fw) = if store { (fl, fw) } else { (0, 0) };
    let side = Side {
        flat: &f,
        reg_free: fr,
        lane_free: fl,
        warp_free: fw,
    };
    let (pads, widest) = padding_bytes(padding, ebytes)?;
    let mut best = best_access(&side, &span, elem_bits, widest, store, target, cgas_differ)?;
    best.padding = pads;
    let conflicts = conflicts(&best, ebytes, 1usize << f.lane.len(), !store, target);
    let n = best.reg_offsets.len() as u32;
    let bytes = (1u32 << span.offset_bits) * ebytes;
    let cost = Cost {
        shared_bytes: layout_plan::pad_address(bytes - ebytes, &pads) + ebytes,
        stores: if store { n } else { 0 },
        loads: if store { 0 } else { n },
        vector: best.vec,
        write_conflicts: if store { conflicts } else { 0 },
        read_conflicts: if store { 0 } else { conflicts },
        ..Cost::of(Strategy::SharedMemory)
    };
    Ok((best, cost))
}

/// A shared layout as the planner's span, checked one-to-one over offsets and CTAs, and whether
/// the distributed side spreads the tensor over CTAs differently (`Some((offsets per CTA,
/// elements per CTA))`).
fn shared_span(f: &FlatLayout, smem: &LinearLayout) -> Result<(Smem, Option<(u64, u64)>)> {
    let offsets = super::bits::flat_in_dim(smem, "offset", f.dim_shifts());
    let blocks = super::bits::flat_in_dim(smem, "block", f.dim_shifts());
    // Over several CTAs: each CTA reaches its own shared memory only (zero block bases of the
    // shared layout: every CTA keeps a copy).
    let nonzero = |v: &[u64]| v.iter().filter(|&&b| b != 0).count();
    let (nb, nf) = (nonzero(&blocks), nonzero(&f.block));
    if (nb > 0 || nf > 0) && blocks.len() != f.block.len() {
        bail!(
            "the shared layout spans {} CTAs and the distributed one {}; give both the same CGA layout",
            1u32 << blocks.len(),
            1u32 << f.block.len()
        );
    }
    let total = f.total_bits as usize;
    let span = Smem::new(&offsets, 0, &blocks);
    if offsets.len() + nb != total || span.span.rank() != total {
        bail!("the shared layout is not a one-to-one map of offsets (and CTAs) to the tensor's elements (padded or broadcast); it cannot be stored to or loaded from by convert!");
    }
    let differ = (nf != nb).then(|| (1u64 << span.offset_bits, 1u64 << (total - nf)));
    Ok((span, differ))
}

/// The plain vector accesses, or a matrix instruction the target has where it takes fewer.
fn best_access(
    side: &Side,
    span: &Smem,
    elem_bits: u32,
    widest: u32,
    store: bool,
    target: &Target,
    cgas_differ: Option<(u64, u64)>,
) -> Result<SmemAccess> {
    let plain = side_access(side, AccessKind::Plain, store, span, elem_bits, widest);
    if let (true, false, Some((per_cta, held))) = (store, plain.remote, cgas_differ) {
        bail!(
            "each CTA's shared memory must hold {} elements of this shared layout, but each CTA holds {} in the distributed layout (their CGA layouts differ): store from a layout with the shared layout's CGA layout",
            per_cta,
            held
        );
    }
    if plain.remote {
        bail!(
            "the distributed layout holds elements in other CTAs than the shared layout keeps them (their CGA layouts differ): a {} reaches only each CTA's own shared memory; convert to a layout with the shared layout's CGA layout first",
            if store { "store" } else { "load" }
        );
    }
    let mut best = plain;
    // A matrix row is 16 bytes: a padded layout must keep rows whole and aligned.
    for trans in [false, true].into_iter().filter(|_| widest >= 16) {
        let Some(m) = matrix_access(side, span, trans, elem_bits / 8, store) else {
            continue;
        };
        let count = match m.instr {
            Instr::Matrix { count, .. } => count,
            _ => 0,
        };
        if target.matrix.has(store, count, trans) && m.reg_offsets.len() < best.reg_offsets.len() {
            best = m;
        }
    }
    // AMD's transposed read, for loads, as Triton takes it wherever it fits.
    if !store {
        if let Some(t) = trans_read_access(side, span, elem_bits / 8, widest, target) {
            if t.reg_offsets.len() < best.reg_offsets.len() {
                best = t;
            }
        }
    }
    Ok(best)
}
