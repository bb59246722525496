//! Bank conflicts of one side's shared-memory accesses, instruction by instruction, as Nsight
//! Compute counts them: a warp's access is served in phases (32 lanes of 4-byte words, 16 lanes
//! of 8 bytes, 8 lanes of 16 bytes; an `ldmatrix`/`stmatrix` phase is one 8x8 matrix, 8 rows of
//! 16 bytes); a phase takes as many wavefronts as the most distinct bank-wide words any bank
//! holds; the conflicts are the wavefronts beyond one per phase
//! (`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}`). Lanes reading the same word
//! share it; lanes that hold copies and skip a store take no part. Computed for warp 0, whose
//! addresses every warp repeats at its own base (for a padded layout, per warp).

use alloc::vec::Vec;

use super::Target;
use alloc::collections::BTreeMap;

use layout_plan::banks::{access_shape, count_phase, phase_of};
use layout_plan::linear::xor_of;
use layout_plan::{pad_address, OFFSET_MASK};
use layout_plan::{SmemAccess, Storage};

/// One phase of an instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Phase {
    /// The first lane of the phase and how many lanes it serves (consecutive ones, but for
    /// targets whose wide loads serve other lane groups).
    pub lanes: (u32, u32),
    /// Wavefronts it takes (at least one).
    pub wavefronts: u32,
    /// The bank holding the most distinct words, and the byte addresses of those words.
    pub worst_bank: u32,
    /// See `worst_bank`.
    pub worst_words: Vec<u32>,
    /// The banks the phase touches, one bit each.
    pub banks: u64,
}

/// One instruction of the access (per thread; every thread of the warp issues it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstrConflicts {
    /// Its address contributed by the registers (the access table's `reg_offsets` entry).
    pub reg_offset: u32,
    /// Bytes each lane moves.
    pub bytes: u32,
    /// Its phases, in lane order.
    pub phases: Vec<Phase>,
}

impl InstrConflicts {
    /// Wavefronts the instruction takes.
    pub fn wavefronts(&self) -> u32 {
        self.phases.iter().map(|p| p.wavefronts).sum()
    }
    /// Wavefronts without conflicts: one per phase.
    pub fn ideal(&self) -> u32 {
        self.phases.len() as u32
    }
    /// Wavefronts beyond the ideal.
    pub fn conflicts(&self) -> u32 {
        self.wavefronts() - self.ideal()
    }
}

/// Every instruction of `a` (elements of `ebytes`, `lanes` lanes per warp; a `load` or a store)
/// under `target`'s banks, for warp 0 (every warp's, but for a padded layout: see
/// [`bank_conflicts_of_warp`]).
pub fn bank_conflicts<S: Storage>(
    a: &SmemAccess<S>,
    ebytes: u32,
    lanes: usize,
    load: bool,
    target: &Target,
) -> Vec<InstrConflicts> {
    bank_conflicts_of_warp(a, ebytes, lanes, load, target, 0)
}

/// [`bank_conflicts`] for warp `warp`: with padding, a warp's addresses are not warp 0's moved
/// by a constant, and neither are its conflicts.
pub fn bank_conflicts_of_warp<S: Storage>(
    a: &SmemAccess<S>,
    ebytes: u32,
    lanes: usize,
    load: bool,
    target: &Target,
    warp: u32,
) -> Vec<InstrConflicts> {
    let bank_bytes = target.bank_bytes;
    let (matrix, active, bytes, per_phase) =
        access_shape(&a.instr, a.vec * ebytes, lanes as u32, target);
    let warp_base = xor_of(&a.warp_bases, warp);
    let base = |lane: usize| warp_base ^ xor_of(&a.lane_bases, lane as u32);
    // Each phase's lanes, in the order of their first lane.
    let mut groups: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for lane in 0..active as usize {
        let key = phase_of(lane as u32, per_phase, bytes, load, matrix, target);
        groups.entry(key).or_default().push(lane);
    }
    let mut groups: Vec<Vec<usize>> = groups.into_values().collect();
    groups.sort_by_key(|g| g[0]);
    a.reg_offsets
        .iter()
        .map(|&ro| InstrConflicts {
            reg_offset: ro,
            bytes,
            phases: groups
                .iter()
                .map(|g| {
                    let words: Vec<u32> = g
                        .iter()
                        .filter(|&&lane| (lane as u32) & a.lane_skip == 0)
                        .flat_map(|&lane| {
                            let addr = pad_address((base(lane) ^ ro) & OFFSET_MASK, &a.padding);
                            (0..bytes.div_ceil(bank_bytes)).map(move |k| addr / bank_bytes + k)
                        })
                        .collect();
                    phase(g[0], g.len(), words, bank_bytes, target.banks)
                })
                // Lanes that skip the access (copies) take no part: a phase without any takes
                // no wavefront.
                .filter(|p| !p.worst_words.is_empty())
                .collect(),
        })
        .collect()
}

/// A phase from the bank-wide words its lanes touch (repeats allowed).
fn phase(first: usize, n: usize, mut words: Vec<u32>, bank_bytes: u32, banks: u32) -> Phase {
    let c = count_phase(&words, banks);
    words.sort_unstable();
    words.dedup();
    Phase {
        lanes: (first as u32, n as u32),
        wavefronts: c.wavefronts,
        worst_bank: c.worst_bank,
        worst_words: words
            .iter()
            .filter(|&&w| w % banks == c.worst_bank)
            .map(|&w| w * bank_bytes)
            .collect(),
        banks: c.banks,
    }
}
