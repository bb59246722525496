//! Shared-memory banks as Nsight Compute counts them, written once for the planner (which
//! derives each lane's address from a plan's tables) and the simulator (which records the
//! addresses the code really issued): a warp's access is served in phases (32 lanes of 4-byte
//! words, 16 lanes of 8 bytes, 8 lanes of 16 bytes; an `ldmatrix`/`stmatrix` phase is one 8x8
//! matrix, 8 rows of 16 bytes); a phase takes as many wavefronts as the most distinct bank-wide
//! words any one bank holds.

use crate::fixed::Fixed;
use crate::ir::{pad_address, Instr, Padding, SmemAccess};
use crate::linear::xor_of;
use crate::{Target, OFFSET_MASK};

/// Bytes per lane and lanes per phase of an access: a matrix instruction (one 16-byte row per
/// address lane, 8 per phase), or a vector access of `bytes` per lane in a warp of `lanes`.
pub const fn phase_shape(matrix: bool, bytes: u32, lanes: u32, t: &Target) -> (u32, u32) {
    if matrix {
        return (16, 8);
    }
    let wide = if bytes > t.bank_bytes {
        bytes
    } else {
        t.bank_bytes
    };
    let per = t.banks * t.bank_bytes / wide;
    let per = if per < lanes { per } else { lanes };
    (bytes, if per == 0 { 1 } else { per })
}

/// Whether an access's phases are consecutive groups of lanes ([`phase_of`]'s first case):
/// all but a 16-byte vector load on a target that names its own phase lanes.
pub const fn in_groups(bytes: u32, load: bool, matrix: bool, t: &Target) -> bool {
    !(load && !matrix && bytes == 16 && t.load128_phase[0] != 0)
}

/// The phase of an instruction that `lane` is served in: consecutive groups of `per` lanes
/// (from [`phase_shape`]), or for a 16-byte vector load on a target that names its own phase
/// lanes, the lanes whose XOR with `lane` is in their span (phases are then labelled by a
/// representative lane, not numbered). The masks come in order of their highest bit.
pub const fn phase_of(
    lane: u32,
    per: u32,
    bytes: u32,
    load: bool,
    matrix: bool,
    t: &Target,
) -> u32 {
    if in_groups(bytes, load, matrix, t) {
        return lane / per;
    }
    // The masks have distinct leading bits: clear each from the lane, highest first.
    let mut x = lane;
    let mut i = t.load128_phase.len();
    while i > 0 {
        i -= 1;
        let m = t.load128_phase[i];
        if m != 0 && x & (1 << (31 - m.leading_zeros())) != 0 {
            x ^= m;
        }
    }
    x
}

/// What one phase takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhaseCount {
    /// Wavefronts (at least one).
    pub wavefronts: u32,
    /// The bank holding the most distinct words.
    pub worst_bank: u32,
    /// The banks touched, one bit each.
    pub banks: u64,
}

/// Count one phase from the bank-wide word indices (byte address / bank width) its lanes touch,
/// repeats allowed (lanes reading one word share it). At most 64 banks.
pub const fn count_phase(words: &[u32], banks: u32) -> PhaseCount {
    let mut per_bank = [0u32; 64];
    let mut mask = 0u64;
    // The bank holding the most distinct words, the lowest of those tied, kept as words come.
    let mut worst = 0;
    let n = words.len();
    let mut i = 0;
    while i < n {
        let w = words[i];
        let b = (w % banks) as usize;
        // A word is new unless an earlier lane touched it, which only a bank already in use
        // can hold (so a phase without conflicts compares nothing).
        let mut j = 0;
        if per_bank[b] > 0 {
            while j < i && words[j] != w {
                j += 1;
            }
        } else {
            j = i;
        }
        if j == i {
            per_bank[b] += 1;
            mask |= 1 << b;
            if per_bank[b] > per_bank[worst] || (per_bank[b] == per_bank[worst] && b < worst) {
                worst = b;
            }
        }
        i += 1;
    }
    PhaseCount {
        wavefronts: if per_bank[worst] > 1 {
            per_bank[worst]
        } else {
            1
        },
        worst_bank: worst as u32,
        banks: mask,
    }
}

/// How an access is served: whether it is a matrix instruction, how many lanes take part, bytes
/// per lane and lanes per phase (an `ldmatrix`/`stmatrix` phase is one matrix of 8 row
/// addresses; a transposed LDS read's lanes each read their row like a vector load).
pub const fn access_shape(
    instr: &Instr,
    vec_bytes: u32,
    lanes: u32,
    t: &Target,
) -> (bool, u32, u32, u32) {
    let (matrix, active) = match instr {
        Instr::Matrix { count, .. } => (true, 8 * *count as u32),
        Instr::Vector | Instr::TransRead { .. } => (false, lanes),
    };
    let (bytes, per) = phase_shape(matrix, vec_bytes, lanes, t);
    (
        matrix,
        if active < lanes { active } else { lanes },
        bytes,
        per,
    )
}

/// The most extra wavefronts any instruction of `a` takes (elements of `ebytes`, `lanes` lanes
/// per warp; a `load` or a store) under `target`'s banks, over every warp (with padding a warp's
/// addresses are not warp 0's moved by a constant) or warp 0 alone (without).
pub const fn worst_conflicts(
    a: &SmemAccess<Fixed>,
    ebytes: u32,
    lanes: u32,
    load: bool,
    target: &Target,
) -> u32 {
    let (matrix, active, bytes, per) = access_shape(&a.instr, a.vec * ebytes, lanes, target);
    // Each lane's phase as the first lane served in it (in groups, its group's first; else from
    // each lane's key, the first lane of that key) and its address bits (warp 0, before the
    // instruction's offset). Each once: a const evaluation pays for every call and every step.
    let n = if active < 64 { active } else { 64 } as usize;
    let consecutive = in_groups(bytes, load, matrix, target);
    let lb = a.lane_bases.as_slice();
    let (mut phase, mut lane) = ([0u32; 64], [0u32; 64]);
    // The first lane of each key (keys are below 64: a lane's phase number or a lane).
    let mut first = [u32::MAX; 64];
    let mut l = 0;
    while l < n {
        phase[l] = if consecutive {
            (l as u32 / per) * per
        } else {
            let k = phase_of(l as u32, per, bytes, load, matrix, target) as usize % 64;
            if first[k] == u32::MAX {
                first[k] = l as u32;
            }
            first[k]
        };
        if l > 0 {
            let b = l.trailing_zeros() as usize;
            lane[l] = lane[l & (l - 1)] ^ if b < lb.len() { lb[b] } else { 0 };
        }
        l += 1;
    }
    let padded = pads(&a.padding);
    let shape = Shape {
        phase,
        lane,
        padded,
        consecutive,
        per,
        active,
        bytes,
    };
    let warps = if padded {
        1u32 << a.warp_bases.len()
    } else {
        1
    };
    // Without padding, an instruction's addresses are the first's XOR one offset: a bijection
    // of the bank-wide words that moves every bank alike (XOR commutes with the shift to words
    // and the mask to banks, and offsets are aligned to the access), so every instruction takes
    // the first's wavefronts.
    let instrs = if padded || a.reg_offsets.len() < 2 {
        a.reg_offsets.len()
    } else {
        1
    };
    let mut worst = 0;
    let mut w = 0;
    while w < warps {
        let mut i = 0;
        while i < instrs {
            let c = instr_conflicts(a, a.reg_offsets.get(i), &shape, target, w);
            if c > worst {
                worst = c;
            }
            i += 1;
        }
        w += 1;
    }
    worst
}

/// How an instruction's lanes are served: each lane's phase (its first lane) and address bits,
/// the lanes taking part, bytes per lane.
struct Shape {
    phase: [u32; 64],
    lane: [u32; 64],
    padded: bool,
    /// Whether phases are consecutive groups of `per` lanes.
    consecutive: bool,
    per: u32,
    active: u32,
    bytes: u32,
}

/// Whether any interval of `p` pads.
const fn pads(p: &Padding) -> bool {
    let mut i = 0;
    while i < p.len() {
        if p[i].0 != 0 || p[i].1 != 0 {
            return true;
        }
        i += 1;
    }
    false
}

/// Extra wavefronts of the instruction at register offset `ro`, for warp `warp`.
const fn instr_conflicts(
    a: &SmemAccess<Fixed>,
    ro: u32,
    shape: &Shape,
    target: &Target,
    warp: u32,
) -> u32 {
    let warp_base = xor_of(a.warp_bases.as_slice(), warp);
    let per_lane = shape.bytes.div_ceil(target.bank_bytes);
    let mut extra = 0;
    // Consecutive phases of an unpadded access are the first's XOR one lane offset (as an
    // instruction is the first's XOR its register offset, see `worst_conflicts`): each takes
    // the first's wavefronts, unless all its lanes skip the access (its lane bits above the
    // phase are copies').
    let alike = shape.consecutive && !shape.padded;
    let mut first_extra = 0;
    let mut first = 0;
    while first < shape.active {
        if alike && first > 0 {
            if first & a.lane_skip == 0 {
                extra += first_extra;
            }
            first += shape.per;
            continue;
        }
        // A phase is counted at its first lane.
        if shape.phase[first as usize] == first {
            let mut words = [0u32; 256];
            let mut n = 0;
            // In groups, a phase's lanes are the `per` from its first.
            let end = if shape.consecutive && first + shape.per < shape.active {
                first + shape.per
            } else {
                shape.active
            };
            let mut l = first;
            while l < end {
                if shape.phase[l as usize] == first && l & a.lane_skip == 0 {
                    let base = warp_base ^ shape.lane[l as usize];
                    let addr = (base ^ ro) & OFFSET_MASK;
                    let addr = if shape.padded {
                        pad_address(addr, &a.padding)
                    } else {
                        addr
                    };
                    let mut k = 0;
                    while k < per_lane && n < words.len() {
                        words[n] = addr / target.bank_bytes + k;
                        n += 1;
                        k += 1;
                    }
                }
                l += 1;
            }
            // Lanes that skip the access (copies) take no part: such a phase takes no wavefront.
            if n > 0 {
                first_extra = count_phase(words.split_at(n).0, target.banks).wavefronts - 1;
                extra += first_extra;
            }
        }
        first += if alike { shape.per } else { 1 };
    }
    extra
}

#[cfg(test)]
mod tests {
    use super::*;

    /// AMD's `ds_read_b128` phases as Triton 3.9 models them: lanes 0-3 and 20-23 on gfx942;
    /// 0-3, 12-15, 20-23 and 24-27 on gfx950; stores and narrower loads take consecutive lanes.
    #[test]
    fn wide_load_phases_follow_the_targets_lane_groups() {
        let phase0 = |t: &Target, bytes: u32, load: bool| {
            let (_, per) = phase_shape(false, bytes, t.lanes, t);
            let p0 = phase_of(0, per, bytes, load, false, t);
            let mut v = [0u32; 64];
            let mut n = 0;
            for lane in 0..t.lanes {
                if phase_of(lane, per, bytes, load, false, t) == p0 {
                    v[n] = lane;
                    n += 1;
                }
            }
            (v, n)
        };
        let (v, n) = phase0(&Target::GFX942, 16, true);
        assert_eq!(&v[..n], &[0, 1, 2, 3, 20, 21, 22, 23]);
        let (v, n) = phase0(&Target::GFX950, 16, true);
        assert_eq!(
            &v[..n],
            &[0, 1, 2, 3, 12, 13, 14, 15, 20, 21, 22, 23, 24, 25, 26, 27]
        );
        let (v, n) = phase0(&Target::GFX942, 16, false);
        assert_eq!(&v[..n], &[0, 1, 2, 3, 4, 5, 6, 7]);
        let (_, n) = phase0(&Target::GFX950, 4, true);
        assert_eq!(n, 64);
        let (v, n) = phase0(&Target::SM_90, 16, true);
        assert_eq!(&v[..n], &[0, 1, 2, 3, 4, 5, 6, 7]);
    }
}
