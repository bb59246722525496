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

use alloc::vec::Vec;

use super::bits::{combine, FlatLayout, Span};
use super::{Barrier, Cost, Instr, SharedPlan, SmemAccess, Strategy, Target};
use crate::error::bail;
use crate::{LinearLayout, Result};
use layout_plan::{CTA_SHIFT, OFFSET_MASK};

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

/// The shared layout: offset bits, then rep (round) bits, then one bit per source block bit
/// (the CTA whose buffer holds an element; zero block bases are never used).
struct Smem {
    span: Span,
    offset_bits: u32,
    rep_bits: u32,
    /// Source block bits that are zero (CTAs holding copies): each CTA uses its own buffer there.
    own: u32,
}

impl Smem {
    /// The shared layout of `bases` (offset bases, then `rep_bits` rep bases) and `block` (the
    /// block bases, one per CTA rank bit, zero ones included: their CTAs keep their own copy).
    fn new(bases: &[u64], rep_bits: usize, block: &[u64]) -> Self {
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
fn offset_of(v: u64, smem: &Smem) -> u32 {
    (smem.mask(v) & ((1u64 << smem.offset_bits) - 1)) as u32
}

/// The round a flat tensor vector is moved in.
fn round_of(v: u64, smem: &Smem) -> u32 {
    ((smem.mask(v) >> smem.offset_bits) & ((1u64 << smem.rep_bits) - 1)) as u32
}

/// The CTA (rank bits) whose buffer holds a flat tensor vector.
fn cta_of(v: u64, smem: &Smem) -> u32 {
    (smem.mask(v) >> (smem.offset_bits + smem.rep_bits)) as u32
}

/// The address of a flat tensor vector: byte offset, and its CTA at `CTA_SHIFT`.
fn addr_of(v: u64, smem: &Smem, ebytes: u32) -> u32 {
    (offset_of(v, smem) * ebytes) | (cta_of(v, smem) << CTA_SHIFT)
}

/// The register bits that carry a side's vector: register bases at offsets 1, 2, 4, ... (up to
/// `max_bits` of them), as long as no other basis has bits below the vector (alignment).
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
        let others = offs
            .iter()
            .enumerate()
            .filter(|(i, _)| !vpos.contains(i))
            .map(|(_, &o)| o)
            .chain(
                f.lane
                    .iter()
                    .chain(&f.warp)
                    .chain(&f.block)
                    .map(|&b| offset_of(b, smem)),
            );
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
        reg_offsets.push(addr_of(combine(&f.reg, x as u64), smem, ebytes));
        for t in 0..vec as usize {
            let r = vpos
                .iter()
                .enumerate()
                .filter(|(i, _)| (t >> i) & 1 == 1)
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
        lane_skip: if store { side.lane_free } else { 0 },
        warp_skip: if store { side.warp_free } else { 0 },
        remote: true,
        instr: Instr::Vector,
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

/// An `ldmatrix`/`stmatrix` `.x4` access (16-bit elements, 32 lanes), if the side's layout fits
/// the instruction under the shared layout: for the plain form, a register at element offset 1
/// and lanes 0-1 at 2 and 4 (each lane's two halves of four 16-byte rows), lanes 2-4 giving row
/// addresses; for `.trans`, lanes 2-4 at offsets 1, 2, 4 and a register and lanes 0-1 giving
/// rows. Two more registers pick the four matrices. `lane_bases` is then the address function of
/// the lane that supplies a row address (`8 q + row`).
fn matrix_access(
    side: &Side,
    smem: &Smem,
    trans: bool,
    ebytes: u32,
    store: bool,
) -> Option<SmemAccess> {
    let f = side.flat;
    if !matches!(ebytes, 1 | 2 | 4) || (trans && ebytes != 2) || f.lane.len() != 5 {
        return None;
    }
    if store && side.lane_free != 0 {
        return None;
    }
    // Matrix instructions reach only the CTA's own buffer, at offsets the block bits leave alone.
    let own_cta = f
        .reg
        .iter()
        .chain(&f.lane)
        .chain(&f.warp)
        .all(|&b| cta_of(b, smem) == 0)
        && f.block.iter().enumerate().all(|(i, &b)| {
            (cta_of(b, smem) | (smem.own & (1 << i))) == 1 << i
                && offset_of(b, smem) == 0
                && round_of(b, smem) == 0
        });
    if !own_cta {
        return None;
    }
    let off = |v: u64| offset_of(v, smem);
    let r0 = |v: u64| round_of(v, smem) == 0;
    // Rows are 16 bytes: row starts must be aligned to a row.
    let row = 16 / ebytes;
    let aligned = |v: u64| off(v) % row == 0 && r0(v);
    let lane = |i: usize| f.lane[i];
    let usable = |i: usize| f.reg[i] != 0 && (side.reg_free >> i) & 1 == 0;
    // Registers packed in one 32-bit word (elements per word: 4 / ebytes).
    let epw = (4 / ebytes) as usize;
    let (inner, rows): (Vec<usize>, [u32; 3]) = if trans {
        if !(off(lane(2)) == 1 && off(lane(3)) == 2 && off(lane(4)) == 4) {
            return None;
        }
        if ![lane(2), lane(3), lane(4)].iter().all(|&b| r0(b))
            || !aligned(lane(0))
            || !aligned(lane(1))
        {
            return None;
        }
        let h = (0..f.reg.len()).find(|&i| usable(i) && aligned(f.reg[i]))?;
        (alloc::vec![h], [off(f.reg[h]), off(lane(0)), off(lane(1))])
    } else {
        let mut inner = Vec::new();
        for k in 0..epw.trailing_zeros() {
            let i =
                (0..f.reg.len()).find(|&i| usable(i) && off(f.reg[i]) == 1 << k && r0(f.reg[i]))?;
            inner.push(i);
        }
        let e = epw as u32;
        if !(off(lane(0)) == e && off(lane(1)) == 2 * e && r0(lane(0)) && r0(lane(1))) {
            return None;
        }
        if ![lane(2), lane(3), lane(4)].iter().all(|&b| aligned(b)) {
            return None;
        }
        (inner, [off(lane(2)), off(lane(3)), off(lane(4))])
    };
    let qs: Vec<usize> = (0..f.reg.len())
        .filter(|&i| !inner.contains(&i) && usable(i) && aligned(f.reg[i]))
        .take(2)
        .collect();
    if qs.len() < 2 || !f.warp.iter().all(|&w| aligned(w)) {
        return None;
    }
    let used = inner.iter().chain(&qs).fold(0usize, |a, &i| a | (1 << i));
    // Every other register must keep rows aligned.
    for i in 0..f.reg.len() {
        if (used >> i) & 1 == 0 && f.reg[i] != 0 && off(f.reg[i]) % row != 0 {
            return None;
        }
    }
    let mut groups: Vec<usize> = (0..1usize << f.reg.len())
        .filter(|&x| x & used == 0 && !(store && (x as u32) & side.reg_free != 0))
        .collect();
    groups.sort_by_key(|&x| round_of(combine(&f.reg, x as u64), smem));
    // Elements per access: 4 words of `epw` (for .trans, 2 halves per word).
    let per_word = if trans { 2 } else { epw };
    let mut regs = Vec::new();
    let mut reg_offsets = Vec::new();
    for x in groups {
        reg_offsets.push(off(combine(&f.reg, x as u64)) * ebytes);
        for q in 0..4usize {
            for k in 0..per_word {
                let mut r = x;
                if q & 1 == 1 {
                    r |= 1 << qs[0];
                }
                if q & 2 == 2 {
                    r |= 1 << qs[1];
                }
                for (b, &i) in inner.iter().enumerate() {
                    if (k >> b) & 1 == 1 {
                        r |= 1 << i;
                    }
                }
                regs.push(r as u16);
            }
        }
    }
    let mut lane_bases: Vec<u32> = rows.iter().map(|&o| o * ebytes).collect();
    lane_bases.push(off(f.reg[qs[0]]) * ebytes);
    lane_bases.push(off(f.reg[qs[1]]) * ebytes);
    Some(SmemAccess {
        vec: 4 * per_word as u32,
        regs,
        reg_offsets,
        lane_bases,
        warp_bases: f.warp.iter().map(|&b| off(b) * ebytes).collect(),
        block_bases: Vec::new(),
        lane_skip: 0,
        warp_skip: if store { side.warp_free } else { 0 },
        remote: false,
        instr: Instr::Matrix { count: 4, trans },
    })
}

/// Extra wavefronts of the worst instruction of `a`, for warp 0.
fn conflicts(a: &SmemAccess, ebytes: u32, lanes: usize, target: &Target) -> u32 {
    let (bank_bytes, banks) = (target.bank_bytes, target.banks);
    let bytes = a.vec * ebytes;
    let row = banks * bank_bytes;
    let lanes_per_phase = (row / bytes.max(bank_bytes)).min(lanes as u32).max(1) as usize;
    let base = |lane: usize| {
        (0..a.lane_bases.len())
            .filter(|&b| (lane >> b) & 1 == 1)
            .fold(0u32, |acc, b| acc ^ a.lane_bases[b])
    };
    let mut worst = 0;
    for &ro in &a.reg_offsets {
        let mut extra = 0;
        for phase in (0..lanes).step_by(lanes_per_phase) {
            // Distinct bank-wide words per bank in this phase.
            let mut words: Vec<(u32, u32)> = Vec::new();
            for lane in phase..(phase + lanes_per_phase).min(lanes) {
                if (lane as u32) & a.lane_skip != 0 {
                    continue;
                }
                let addr = (base(lane) ^ ro) & OFFSET_MASK;
                for k in 0..bytes.div_ceil(bank_bytes) {
                    let w = addr / bank_bytes + k;
                    if !words.contains(&(w % banks, w)) {
                        words.push((w % banks, w));
                    }
                }
            }
            let per_bank = (0..banks)
                .map(|bank| words.iter().filter(|(b, _)| *b == bank).count() as u32)
                .max()
                .unwrap_or(0);
            extra += per_bank.saturating_sub(1);
        }
        worst = worst.max(extra);
    }
    worst
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
    use super::swizzle::AccessKind;
    let (mut sb, mut ks, mut kd) =
        super::swizzle::optimal_swizzling(&strip(s), &strip(t), elem_bits, true, target);
    // CTA bits follow the offset and rep bits: one per source block bit, zero ones included
    // (never used by the span), so that bit `i` of an address's CTA is bit `i` of a rank.
    let make = |sb: &super::swizzle::SmemBases| Smem::new(&sb.bases, sb.reps, &s.block);
    let mut span = make(&sb);
    let in_round_0 = |f: &FlatLayout, m: &Smem| {
        f.lane
            .iter()
            .chain(&f.warp)
            .chain(&f.block)
            .all(|&b| round_of(b, m) == 0)
    };
    if sb.reps > 0 && !(in_round_0(s, &span) && in_round_0(t, &span)) {
        (sb, ks, kd) =
            super::swizzle::optimal_swizzling(&strip(s), &strip(t), elem_bits, false, target);
        span = make(&sb);
    }
    let offset_bases = sb.bases.clone();
    if offset_bases.len() + sb.block.len() != total as usize {
        bail!(
            "internal: the shared layout has {} offset and {} block bits for a tensor of {}",
            offset_bases.len(),
            sb.block.len(),
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
    let side_access = |side: &Side, kind: AccessKind, free: u32, store: bool| {
        let matrix = match kind {
            AccessKind::Plain => None,
            k => matrix_access(side, &span, k == AccessKind::MatrixTrans, ebytes, store),
        };
        matrix.unwrap_or_else(|| {
            access(
                side,
                &vector_bits(side.flat, &span, max_vec, free),
                &span,
                ebytes,
                store,
            )
        })
    };
    let mut store = side_access(&s_side, ks, sr, true);
    let mut load = side_access(&t_side, kd, tr, false);
    if store.remote || load.remote {
        // Across CTAs: plain accesses on both sides (no ldmatrix into another CTA's buffer).
        store = side_access(&s_side, AccessKind::Plain, sr, true);
        load = side_access(&t_side, AccessKind::Plain, tr, false);
    }
    let lanes = 1usize << s.lane.len();
    let barrier = if store.remote || load.remote {
        Barrier::Cluster
    } else if (crosses_warps && !same_warps(s, t)) || sw != 0 || tw != 0 {
        Barrier::Block
    } else {
        Barrier::Warp
    };
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
        alloc::vec![
            (
                alloc::string::String::from("offset"),
                offset_bases.iter().map(|&b| unflat_v(b)).collect()
            ),
            (
                alloc::string::String::from("block"),
                s.block.iter().map(|&b| unflat_v(b)).collect()
            ),
        ],
        dims.clone(),
        true,
    )?;
    let cluster = u32::from(barrier == Barrier::Cluster);
    let cost = Cost {
        shared_bytes: (1u32 << span.offset_bits) * ebytes,
        stores: store.reg_offsets.len() as u32,
        loads: load.reg_offsets.len() as u32,
        vector: store.vec.min(load.vec),
        write_conflicts: conflicts(&store, ebytes, lanes, target),
        read_conflicts: conflicts(&load, ebytes, lanes, target),
        barriers: 2 * rounds - 1 + cluster,
        ..Cost::of(Strategy::SharedMemory)
    };
    Ok((
        SharedPlan {
            store,
            load,
            barrier,
            rounds,
        },
        cost,
        smem,
    ))
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
    super::check_element(elem_bits)?;
    if dist.out_dims() != smem.out_dims() {
        bail!(
            "the layouts cover different tensors: {:?} and {:?}",
            dist.out_dims(),
            smem.out_dims()
        );
    }
    let f = FlatLayout::new(dist)?;
    let offsets = super::bits::flat_in_dim(smem, "offset", &f.dim_shift);
    let blocks = super::bits::flat_in_dim(smem, "block", &f.dim_shift);
    // Over several CTAs: each CTA reaches its own shared memory only (zero block bases of the
    // shared layout: every CTA keeps a copy).
    let (nb, nf) = (
        blocks.iter().filter(|&&b| b != 0).count(),
        f.block.iter().filter(|&&b| b != 0).count(),
    );
    if (nb > 0 || nf > 0) && blocks.len() != f.block.len() {
        bail!(
            "the shared layout spans {} CTAs and the distributed one {}; give both the same CGA layout",
            1u32 << blocks.len(),
            1u32 << f.block.len()
        );
    }
    let total = f.total_bits;
    let span = Smem::new(&offsets, 0, &blocks);
    if offsets.len() + nb != total as usize || span.span.rank() != total as usize {
        bail!("the shared layout is not a one-to-one map of offsets (and CTAs) to the tensor's elements (padded or broadcast); it cannot be stored to or loaded from by convert!");
    }
    let ebytes = elem_bits / 8;
    let (fr, fl, fw) = free_masks(dist);
    let side = if store {
        Side {
            flat: &f,
            reg_free: fr,
            lane_free: fl,
            warp_free: fw,
        }
    } else {
        Side {
            flat: &f,
            reg_free: 0,
            lane_free: 0,
            warp_free: 0,
        }
    };
    let max_vec = (128 / elem_bits).trailing_zeros() as usize;
    let plain = access(
        &side,
        &vector_bits(&f, &span, max_vec, side.reg_free),
        &span,
        ebytes,
        store,
    );
    if store && !plain.remote && nf != nb {
        bail!(
            "each CTA's shared memory must hold {} elements of this shared layout, but each CTA holds {} in the distributed layout (their CGA layouts differ): store from a layout with the shared layout's CGA layout",
            1u64 << span.offset_bits,
            1u64 << (total as usize - nf)
        );
    }
    if plain.remote {
        bail!(
            "the distributed layout holds elements in other CTAs than the shared layout keeps them (their CGA layouts differ): a {} reaches only each CTA's own shared memory; convert to a layout with the shared layout's CGA layout first",
            if store { "store" } else { "load" }
        );
    }
    let mut best = plain;
    for trans in [false, true] {
        if !target.matrix.has(store, 4, trans) {
            continue;
        }
        if let Some(m) = matrix_access(&side, &span, trans, ebytes, store) {
            if m.reg_offsets.len() < best.reg_offsets.len() {
                best = m;
            }
        }
    }
    let lanes = 1usize << f.lane.len();
    let conflicts = conflicts(&best, ebytes, lanes, target);
    let n = best.reg_offsets.len() as u32;
    let cost = Cost {
        shared_bytes: (1u32 << span.offset_bits) * ebytes,
        stores: if store { n } else { 0 },
        loads: if store { 0 } else { n },
        vector: best.vec,
        write_conflicts: if store { conflicts } else { 0 },
        read_conflicts: if store { 0 } else { conflicts },
        ..Cost::of(Strategy::SharedMemory)
    };
    Ok((best, cost))
}
