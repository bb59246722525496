//! Shared-memory banks as Nsight Compute counts them, written once for the planner (which
//! derives each lane's address from a plan's tables) and the simulator (which records the
//! addresses the code really issued): a warp's access is served in phases (32 lanes of 4-byte
//! words, 16 lanes of 8 bytes, 8 lanes of 16 bytes; an `ldmatrix`/`stmatrix` phase is one 8x8
//! matrix, 8 rows of 16 bytes); a phase takes as many wavefronts as the most distinct bank-wide
//! words any one bank holds.

use crate::Target;

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
    if !(load && !matrix && bytes == 16 && t.load128_phase[0] != 0) {
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
/// repeats allowed (lanes reading one word share it); `words` is sorted in place. At most 64
/// banks.
pub fn count_phase(words: &mut [u32], banks: u32) -> PhaseCount {
    words.sort_unstable();
    let mut per_bank = [0u32; 64];
    let mut mask = 0u64;
    for (i, &w) in words.iter().enumerate() {
        if i > 0 && words[i - 1] == w {
            continue;
        }
        let b = (w % banks) as usize;
        per_bank[b] += 1;
        mask |= 1 << b;
    }
    let mut worst = 0;
    for b in 0..banks as usize {
        if per_bank[b] > per_bank[worst] {
            worst = b;
        }
    }
    PhaseCount {
        wavefronts: per_bank[worst].max(1),
        worst_bank: worst as u32,
        banks: mask,
    }
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
