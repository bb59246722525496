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
