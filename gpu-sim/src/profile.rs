//! What the simulator saw of shared memory, instruction by instruction: every lane's address of
//! every shared access, grouped into warp instructions (lanes of one warp at the same count of
//! shared stores or loads issued are one instruction: kernels are straight-line SIMT code), and
//! the wavefronts each takes as Nsight Compute counts them ([`layout_plan::banks`], the same
//! count the planner makes from a plan's tables, so the two can be checked against each other).

extern crate std;

use std::collections::BTreeMap;
use std::vec::Vec;

use layout_plan::banks::{count_phase, phase_of, phase_shape};
use layout_plan::Target;

/// One lane's part in one shared-memory instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneAccess {
    /// The issuing thread's block, warp and lane.
    pub block: u32,
    /// See `block`.
    pub warp: u32,
    /// See `block`.
    pub lane: u32,
    /// A store (else a load).
    pub store: bool,
    /// The thread's count of shared stores (or loads) issued, this one included.
    pub seq: u32,
    /// The CTA of the cluster whose shared memory it touches, and the byte address.
    pub cta: u32,
    /// See `cta`.
    pub addr: u32,
    /// Bytes the lane moves (16 for a matrix instruction's row).
    pub bytes: u32,
    /// An `ldmatrix`/`stmatrix` row address (else a vector access).
    pub matrix: bool,
}

/// One warp instruction's wavefronts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstrWavefronts {
    /// The warp: its block and index.
    pub block: u32,
    /// See `block`.
    pub warp: u32,
    /// A store (else a load), and its position among the thread's stores (or loads), from 1.
    pub store: bool,
    /// See `store`.
    pub seq: u32,
    /// Wavefronts per phase that has lanes in it.
    pub phases: Vec<u32>,
}

impl InstrWavefronts {
    /// Wavefronts of the instruction.
    pub fn wavefronts(&self) -> u32 {
        self.phases.iter().sum()
    }
    /// Wavefronts beyond one per phase: the bank conflicts.
    pub fn conflicts(&self) -> u32 {
        self.wavefronts() - self.phases.len() as u32
    }
}

/// Every shared access of a launch, lane by lane.
#[derive(Clone, Debug, Default)]
pub struct Profile {
    /// In no particular order.
    pub accesses: Vec<LaneAccess>,
}

impl Profile {
    /// Each warp instruction's wavefronts under `target`'s banks (warps of `lanes` lanes),
    /// ordered by block, warp, stores before loads, then issue order.
    pub fn instructions(&self, target: &Target, lanes: u32) -> Vec<InstrWavefronts> {
        let mut groups: BTreeMap<(u32, u32, bool, u32), Vec<LaneAccess>> = BTreeMap::new();
        for a in &self.accesses {
            groups
                .entry((a.block, a.warp, !a.store, a.seq))
                .or_default()
                .push(*a);
        }
        groups
            .into_iter()
            .map(|((block, warp, load, seq), lanes_of)| InstrWavefronts {
                block,
                warp,
                store: !load,
                seq,
                phases: phases(&lanes_of, target, lanes, load),
            })
            .collect()
    }
}

/// The wavefronts of each phase of one instruction that has lanes in it.
fn phases(acc: &[LaneAccess], t: &Target, lanes: u32, load: bool) -> Vec<u32> {
    let (bytes, per) = phase_shape(acc[0].matrix, acc[0].bytes, lanes, t);
    let mut by_phase: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for a in acc {
        let key = phase_of(a.lane, per, bytes, load, acc[0].matrix, t);
        let words = by_phase.entry(key).or_default();
        for k in 0..bytes.div_ceil(t.bank_bytes) {
            words.push(a.addr / t.bank_bytes + k);
        }
    }
    by_phase
        .into_values()
        .map(|w| count_phase(&w, t.banks).wavefronts)
        .collect()
}
