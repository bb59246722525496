//! How a tile scans along a dim, as Triton lowers `tt.scan`: the position bits along the dim
//! in order ([`ScanStep`]: a register, lane or warp bit each), where the cross-warp phase starts,
//! and what it costs. `gpu-runtime`'s `Tile::scan` runs it (a const of the layout's tables); the
//! CLI prints it for parsed layouts.

use crate::reduce::ReduceCost;
use crate::tables::{InDim, Tables};

/// Where one position bit along the dim lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanStep {
    /// Register bit `n`.
    Register(u32),
    /// Lane bit `n`.
    Lane(u32),
    /// Warp bit `n`.
    Warp(u32),
}

/// The bits a scan along a dim walks, lowest power of two first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanPlan {
    /// The steps; `len` of them are used.
    pub steps: [ScanStep; 32],
    /// How many.
    pub len: usize,
    /// Where the steps from here on (two or more warp bits, and register bits, no lane bit) are
    /// one cross-warp phase, as Triton stages them: every block total stored, one barrier, each
    /// thread reading the totals that precede its own; `len` when none.
    pub phase: usize,
    /// Lanes per warp, warps per CTA.
    pub lanes_per_warp: u32,
    /// Warps per CTA.
    pub warps_per_cta: u32,
}

impl ScanPlan {
    /// The register bits walked before step `i`.
    pub const fn done_before(&self, i: usize) -> u32 {
        self.walked_before(i, false)
    }

    /// The lane bits walked before step `i`: lanes that differ only in them hold equal block
    /// totals, so one of them stores the totals for all (at the slot of the others' bits).
    pub const fn lanes_before(&self, i: usize) -> u32 {
        self.walked_before(i, true)
    }

    /// The register bits (or, with `lanes`, the lane bits) of the steps before step `i`.
    pub const fn walked_before(&self, i: usize, lanes: bool) -> u32 {
        let (mut bits, mut j) = (0, 0);
        while j < i && j < self.len {
            match self.steps[j] {
                ScanStep::Register(b) if !lanes => bits |= 1 << b,
                ScanStep::Lane(b) if lanes => bits |= 1 << b,
                _ => {}
            }
            j += 1;
        }
        bits
    }

    /// Lanes per warp whose totals differ before step `i` (the slots a warp's totals take).
    const fn distinct_lanes(&self, i: usize) -> u32 {
        self.lanes_per_warp >> self.lanes_before(i).count_ones()
    }

    /// The cross-warp phase's loads of one group's totals, for `elem_bits`-bit elements: the
    /// bytes of each vector and how many (its positions' totals are adjacent, each group's row
    /// aligned to its size, so read in vectors of up to 16 bytes).
    pub const fn phase_vectors(&self, elem_bits: u32) -> (u32, u32) {
        let row = (1u32 << (self.len - self.phase)) * elem_bits.div_ceil(8);
        let vector = if row < 16 { row } else { 16 };
        (vector, row / vector)
    }

    /// The register and warp bits the cross-warp phase walks.
    pub const fn phase_bits(&self) -> (u32, u32) {
        let (mut regs, mut warps, mut i) = (0, 0, self.phase);
        while i < self.len {
            match self.steps[i] {
                ScanStep::Register(b) => regs |= 1 << b,
                ScanStep::Warp(b) => warps |= 1 << b,
                ScanStep::Lane(_) => {}
            }
            i += 1;
        }
        (regs, warps)
    }

    /// The cost for `n` registers of `elem_bits`-bit elements: each lane step a shuffle per
    /// group of registers with equal totals (two for 64 bits), each warp step a store and a
    /// load per group, a barrier between them and (after the first) one before; the cross-warp
    /// phase a store per group and, per group of registers it leaves apart, the positions'
    /// totals in vectors of up to 16 bytes, one barrier (and one before, after another warp
    /// step). The
    /// scratch holds a total per group of registers and of lanes with equal totals, per warp.
    pub const fn cost(&self, n: u32, elem_bits: u32) -> ReduceCost {
        let words = elem_bits.div_ceil(32);
        let mut c = ReduceCost {
            shuffles: 0,
            stores: 0,
            loads: 0,
            barriers: 0,
            shared_bytes: 0,
            redux: 0,
        };
        let mut i = 0;
        while i < self.phase {
            let groups = n >> self.done_before(i).count_ones();
            match self.steps[i] {
                ScanStep::Lane(_) => c.shuffles += groups * words,
                ScanStep::Warp(_) => {
                    c.stores += groups;
                    c.loads += groups;
                    c.barriers += if c.barriers == 0 { 1 } else { 2 };
                    let bytes = self.warps_per_cta
                        * self.distinct_lanes(i)
                        * groups
                        * elem_bits.div_ceil(8);
                    if bytes > c.shared_bytes {
                        c.shared_bytes = bytes;
                    }
                }
                ScanStep::Register(_) => {}
            }
            i += 1;
        }
        if self.phase < self.len {
            let groups = n >> self.done_before(self.phase).count_ones();
            let (regs, warps) = self.phase_bits();
            let apart = groups >> regs.count_ones();
            let positions = 1u32 << (self.len - self.phase);
            c.stores += groups;
            c.loads += apart * self.phase_vectors(elem_bits).1;
            c.barriers += if c.barriers == 0 { 1 } else { 2 };
            let bytes = (self.warps_per_cta >> warps.count_ones())
                * self.distinct_lanes(self.phase)
                * apart
                * positions
                * elem_bits.div_ceil(8);
            if bytes > c.shared_bytes {
                c.shared_bytes = bytes;
            }
        }
        c
    }
}

/// The bit of `dim` whose basis is exactly `value` along `d` and zero elsewhere, if any; an
/// error if a basis moves along `d` and off it at once.
const fn find(dim: &InDim, rank: usize, d: usize, value: u32) -> Result<Option<u32>, &'static str> {
    let mut bit = 0;
    while bit < dim.size.trailing_zeros() as usize {
        let b = dim.basis(bit, rank);
        let mut off = false;
        let mut k = 0;
        while k < rank {
            if k != d && b[k] != 0 {
                off = true;
            }
            k += 1;
        }
        if b[d] != 0 && off {
            return Err("scan: a basis of the layout moves along the dim and off it at once; convert to a blocked layout first");
        }
        if b[d] == value && !off {
            return Ok(Some(bit as u32));
        }
        bit += 1;
    }
    Ok(None)
}

/// [`find`] in in-dim `i` of `dims`.
const fn find_in(
    dims: &[InDim],
    i: usize,
    rank: usize,
    d: usize,
    value: u32,
) -> Result<Option<u32>, &'static str> {
    find(&dims[i], rank, d, value)
}

/// The steps of a scan of `l` along `d`, or why the layout cannot be scanned along it.
pub const fn scan_plan(l: Tables, d: usize) -> Result<ScanPlan, &'static str> {
    if d >= l.rank || l.in_dims.len() != 4 {
        return Err("scan: the dim is not one of the layout's, or the layout is not distributed");
    }
    let (rank, dims) = (l.rank, l.in_dims);
    let mut steps = [ScanStep::Register(0); 32];
    let (mut len, mut power) = (0, 1);
    while power < l.shape[d] {
        let mut found = None;
        let mut i = 0;
        while i < 3 && found.is_none() {
            found = match find_in(dims, i, rank, d, power) {
                Ok(Some(b)) => Some(match i {
                    0 => ScanStep::Register(b),
                    1 => ScanStep::Lane(b),
                    _ => ScanStep::Warp(b),
                }),
                Ok(None) => None,
                Err(why) => return Err(why),
            };
            i += 1;
        }
        steps[len] = match found {
            Some(s) => s,
            None => return Err("scan: a position bit along the dim is not one register, lane or warp bit (CTAs of a cluster, or a basis shared with another dim); convert to a blocked layout first"),
        };
        len += 1;
        power <<= 1;
    }
    Ok(ScanPlan {
        steps,
        len,
        phase: phase_start(&steps, len),
        lanes_per_warp: dims[1].size,
        warps_per_cta: dims[2].size,
    })
}

/// Positions a cross-warp phase handles at most (its totals are read into registers).
pub const MAX_PHASE_POSITIONS: usize = 64;

/// Where the cross-warp phase starts: the first warp step, if from there on every step is a
/// warp or register step, two or more of them warp steps, over at most
/// [`MAX_PHASE_POSITIONS`] positions; else `len` (each warp step its own exchange).
const fn phase_start(steps: &[ScanStep; 32], len: usize) -> usize {
    let mut first = len;
    let (mut warps, mut i) = (0, 0);
    while i < len {
        match steps[i] {
            ScanStep::Warp(_) => {
                if first == len {
                    first = i;
                }
                warps += 1;
            }
            ScanStep::Lane(_) if first < len => return len,
            _ => {}
        }
        i += 1;
    }
    if warps >= 2 && (1usize << (len - first)) <= MAX_PHASE_POSITIONS {
        first
    } else {
        len
    }
}
