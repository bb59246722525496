//! How a tile reduces along a dim, as Triton lowers `tt.reduce`: the plan ([`ReducePlan`]: the
//! register bits kept, the lane bits combined by butterflies or `redux.sync`, the warp bits
//! combined through shared memory), how the cross-warp stage lays the partials out
//! ([`Staging`]), and what it costs ([`ReduceCost`]). `gpu-runtime`'s `Tile::reduce` runs it
//! (the plan a const of the layouts' tables); the CLI prints it for parsed layouts.

use crate::msg::Msg;
use crate::tables::{InDim, Tables};

/// How a tile of `L` reduces along a dim into one of `S`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReducePlan {
    /// The register bits of `L` that `S` keeps: register `r` of `L` is combined into register
    /// `pext(r, kept)` of `S`.
    pub kept: u32,
    /// Lane bits along the dim: a butterfly step each.
    pub lanes: u32,
    /// Warp bits along the dim: combined through shared memory.
    pub warps: u32,
    /// Lane bits whose threads hold copies (zero bases): the cross-warp stage reads other
    /// warps' partials with them too, as Triton does, when the lanes along the dim are fewer
    /// than the warps.
    pub spare: u32,
    /// Warp bits whose warps hold copies (zero bases): their partials are another warp's, so
    /// the cross-warp stage neither stores nor keeps a row for them.
    pub spare_warps: u32,
    /// Warps per CTA and lanes per warp of `L`.
    pub warps_per_cta: u32,
    /// Lanes per warp.
    pub lanes_per_warp: u32,
}

/// What a reduction costs each thread, counted as Triton's are compared: a vector access is one
/// store or load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReduceCost {
    /// `shfl.sync` instructions (two per element of 64 bits).
    pub shuffles: u32,
    /// Shared-memory stores.
    pub stores: u32,
    /// Shared-memory loads.
    pub loads: u32,
    /// CTA barriers, as the kernel's first use of the scratch (an operation after another one
    /// that staged through shared memory adds one before its stores).
    pub barriers: u32,
    /// Scratch per CTA, in bytes.
    pub shared_bytes: u32,
    /// `redux.sync` instructions (one per output register, in place of the lane butterflies).
    pub redux: u32,
}

impl ReducePlan {
    /// The cost for `m` output registers of `elem_bits`-bit elements, combined by a closure.
    pub const fn cost(&self, m: u32, elem_bits: u32) -> ReduceCost {
        self.cost_with(m, elem_bits, false)
    }

    /// Lane bits off the dim whose lanes hold other elements (not copies): each value of them
    /// is a group of lanes that reduces apart.
    pub const fn distinct_lanes(&self) -> u32 {
        (self.lanes_per_warp - 1) & !self.lanes & !self.spare
    }

    /// How many `redux.sync` per output register reduce the lanes along the dim, for an
    /// operator that has one: a whole-warp instruction per group of lanes (each lane of
    /// another group, or holding a copy, contributes the operator's identity), where that
    /// takes fewer instructions than the butterflies, as Triton 3.9 chooses (its PTX: one per
    /// register with every lane bit along the dim or holding copies, two with four lane bits
    /// along it); 0 where the butterflies are used.
    pub const fn redux_groups(&self) -> u32 {
        let k = self.lanes.count_ones();
        let groups = 1 << self.distinct_lanes().count_ones();
        if self.lanes_per_warp == 32 && k > 0 && groups < k {
            groups
        } else {
            0
        }
    }

    /// [`ReducePlan::cost`] for an operator that has a `redux.sync` form (`redux`) or not.
    pub const fn cost_with(&self, m: u32, elem_bits: u32, redux: bool) -> ReduceCost {
        let words = elem_bits.div_ceil(32);
        let groups = if redux && elem_bits <= 32 {
            self.redux_groups()
        } else {
            0
        };
        let lanes = match groups {
            0 => self.lanes.count_ones() * m * words,
            _ => 0,
        };
        let redux = groups * m;
        if self.warps == 0 {
            return ReduceCost {
                shuffles: lanes,
                stores: 0,
                loads: 0,
                barriers: 0,
                shared_bytes: 0,
                redux,
            };
        }
        let s = Staging::of(self, m, elem_bits);
        ReduceCost {
            shuffles: lanes + s.butterflies * m * words,
            stores: s.chunks,
            loads: s.loads,
            barriers: 1,
            shared_bytes: (self.warps_per_cta >> self.spare_warps.count_ones())
                * s.slots_per_warp
                * s.row_bytes,
            redux,
        }
    }

    /// The lane bits whose lanes read other warps' partials: those along the dim, then spare
    /// ones (lanes holding copies), lowest first, until they are as many as the warp bits.
    pub const fn readers(&self) -> u32 {
        let kw = self.warps.count_ones();
        let (mut readers, mut spare) = (self.lanes, self.spare);
        while readers.count_ones() < kw && spare != 0 {
            readers |= spare & spare.wrapping_neg();
            spare &= spare - 1;
        }
        readers
    }

    /// The register of `S` that register `r` of `L` is combined into.
    #[inline(always)]
    pub const fn group(&self, r: u32) -> u32 {
        pext(r, self.kept)
    }
}

/// Coordinate `k` of basis `bit` of `dim`, or 0.
const fn coord(dim: &InDim, rank: usize, bit: usize, k: usize) -> u32 {
    dim.basis(bit, rank)[k]
}

/// Whether `dim`'s basis `bit` is zero off dim `d`.
const fn along_only(dim: &InDim, rank: usize, bit: usize, d: usize) -> bool {
    let mut k = 0;
    while k < rank {
        if k != d && coord(dim, rank, bit, k) != 0 {
            return false;
        }
        k += 1;
    }
    true
}

/// The bits of a power-of-two size.
pub const fn bits(size: u32) -> usize {
    size.trailing_zeros() as usize
}

/// `return Err(..)`: `s` is not the slice of `l` along `d`, for the reason given.
macro_rules! not_the_slice {
    ($l:expr, $s:expr, $d:expr, $why:expr) => {
        return Err(slice_error($l, $s, $d, $why))
    };
}

/// The plan of reducing `l` along `d` into `s`, or why not (naming both and writing out the
/// slice).
// The message is built in place: a const fn of a crate without `alloc` cannot box it.
#[allow(clippy::result_large_err)]
pub const fn reduce_plan(l: Tables, s: Tables, d: usize) -> Result<ReducePlan, Msg> {
    let (rank, ls, ss) = (l.rank, l.in_dims, s.in_dims);
    if d >= rank || s.rank + 1 != rank || ls.len() != 4 || ss.len() != 4 {
        not_the_slice!(
            l,
            s,
            d,
            "the dim is not one of L's, or S's rank is not one less"
        );
    }
    let mut k = 0;
    while k < rank {
        if k != d && l.shape[k] != s.shape[k - (k > d) as usize] {
            not_the_slice!(l, s, d, "S's shape is not L's without the dim");
        }
        k += 1;
    }
    // Registers: S's are L's whose basis has a component off the dim, in order.
    let (reg, sreg) = (&ls[0], &ss[0]);
    let mut kept = 0u32;
    let (mut bit, mut next) = (0, 0);
    while bit < bits(reg.size) {
        if !along_only(reg, rank, bit, d) {
            if next >= bits(sreg.size) || !same_projection(reg, bit, sreg, next, rank, d) {
                not_the_slice!(l, s, d, "S's registers are not L's off the dim");
            }
            kept |= 1 << bit;
            next += 1;
        }
        bit += 1;
    }
    if next != bits(sreg.size) {
        not_the_slice!(l, s, d, "S has more registers than L off the dim");
    }
    let mut masks = [0u32; 4];
    let mut i = 1;
    while i < 4 {
        masks[i] = match thread_bits(l, s, i, d) {
            Ok(m) => m,
            Err(why) => not_the_slice!(l, s, d, why),
        };
        i += 1;
    }
    if masks[3] != 0 {
        not_the_slice!(l, s, d, "CTAs of a cluster hold parts of the dim");
    }
    Ok(ReducePlan {
        kept,
        lanes: masks[1],
        warps: masks[2],
        spare: zero_bits(&ls[1], rank),
        spare_warps: zero_bits(&ls[2], rank),
        warps_per_cta: ls[2].size,
        lanes_per_warp: ls[1].size,
    })
}

/// The bits of `dim` whose basis is zero.
const fn zero_bits(dim: &InDim, rank: usize) -> u32 {
    let (mut mask, mut bit) = (0, 0);
    while bit < bits(dim.size) {
        let mut k = 0;
        while k < rank && coord(dim, rank, bit, k) == 0 {
            k += 1;
        }
        if k == rank {
            mask |= 1 << bit;
        }
        bit += 1;
    }
    mask
}

/// `x`'s bits at `mask`'s ones, packed low.
#[inline(always)]
pub const fn pext(x: u32, mask: u32) -> u32 {
    let (mut out, mut k, mut bit) = (0, 0, 0);
    while bit < 32 {
        if mask >> bit & 1 == 1 {
            out |= (x >> bit & 1) << k;
            k += 1;
        }
        bit += 1;
    }
    out
}

/// Whether `a`'s basis `i` without dim `d` is `b`'s basis `j`.
const fn same_projection(a: &InDim, i: usize, b: &InDim, j: usize, rank: usize, d: usize) -> bool {
    let mut k = 0;
    while k < rank {
        if k != d && coord(a, rank, i, k) != coord(b, rank - 1, j, k - (k > d) as usize) {
            return false;
        }
        k += 1;
    }
    true
}

/// The bits of in-dim `i` (lane, warp, block) whose basis lies along the dim: those the
/// reduction combines. Every basis must equal S's without the dim, and lie along the dim only
/// or not at all.
const fn thread_bits(lt: Tables, st: Tables, i: usize, d: usize) -> Result<u32, &'static str> {
    let (l, s, rank) = (&lt.in_dims[i], &st.in_dims[i], lt.rank);
    if l.size != s.size {
        return Err("S has other lanes, warps or CTAs than L");
    }
    let (mut mask, mut bit) = (0, 0);
    while bit < bits(l.size) {
        if !same_projection(l, bit, s, bit, rank, d) {
            return Err("S's lanes, warps or CTAs are not L's without the dim");
        }
        let on_dim = coord(l, rank, bit, d) != 0;
        if on_dim && !along_only(l, rank, bit, d) {
            return Err("a lane, warp or CTA basis of L moves along the dim and off it at once (not reducible by butterflies)");
        }
        if on_dim {
            mask |= 1 << bit;
        }
        bit += 1;
    }
    Ok(mask)
}

/// Why `s` is not `slice(d, l)`, with the slice written out.
const fn slice_error(l: Tables, s: Tables, d: usize, why: &str) -> Msg {
    let mut m = Msg::new();
    m.push("`")
        .push(s.name)
        .push("` is not the slice of `")
        .push(l.name);
    m.push("` along dim ")
        .num(d as u32)
        .push(": ")
        .push(why)
        .push(". The slice is ");
    write_slice(l, &mut m, d);
    m.push(" (layout!'s form), or `slice(dim = ")
        .num(d as u32)
        .push(", parent = ");
    m.push(l.name).push(")`");
    m
}

/// `linear(register = [...], lane = [...], warp = [...], block = []) for [shape]`: L without dim `d`,
/// its registers along `d` dropped.
const fn write_slice(l: Tables, m: &mut Msg, d: usize) {
    let rank = l.rank;
    m.push("linear(");
    let mut i = 0;
    while i < 4 {
        let dim = &l.in_dims[i];
        m.push(dim.name).push(" = [");
        let (mut bit, mut first) = (0, true);
        while bit < bits(dim.size) {
            if i != 0 || !along_only(dim, rank, bit, d) {
                if !first {
                    m.push(", ");
                }
                first = false;
                m.push("[");
                let mut k = 0;
                let mut sep = false;
                while k < rank {
                    if k != d {
                        if sep {
                            m.push(", ");
                        }
                        sep = true;
                        m.num(if i == 0 || !along_only(dim, rank, bit, d) {
                            coord(dim, rank, bit, k)
                        } else {
                            0
                        });
                    }
                    k += 1;
                }
                m.push("]");
            }
            bit += 1;
        }
        m.push(if i < 3 { "], " } else { "])" });
        i += 1;
    }
    m.push(" for [");
    let mut k = 0;
    let mut sep = false;
    while k < rank {
        if k != d {
            if sep {
                m.push(", ");
            }
            sep = true;
            m.num(l.shape[k]);
        }
        k += 1;
    }
    m.push("]");
}

/// How a cross-warp reduction lays its partials out in shared memory: a row of `M` elements
/// per warp and group of lanes that reduce apart (copies, lanes or warps with zero bases, share
/// their original's row and do not store), moved in vectors of up to 16 bytes.
#[derive(Clone, Copy, Debug)]
pub struct Staging {
    /// The lanes that read partials: the lane bits along the dim, then spare ones.
    pub readers: u32,
    /// Reader lanes (2^a).
    pub lanes: u32,
    /// Warps along the dim (2^k).
    pub warps: u32,
    /// Lane bits off the dim that are neither readers nor copies.
    pub other_lanes: u32,
    /// Lane bits of copies that do not read: lanes with any of them set store nothing.
    pub copies: u32,
    /// Rows per warp (one per value of the `other_lanes` bits).
    pub slots_per_warp: u32,
    /// Bytes per row.
    pub row_bytes: u32,
    /// Bytes per stored vector.
    pub chunk: u32,
    /// Elements per stored vector.
    pub per: usize,
    /// Stored vectors per row.
    pub chunks: u32,
    /// Rows each lane reads (adjacent).
    pub reads: u32,
    /// Butterflies over the readers after the loads.
    pub butterflies: u32,
    /// Bytes per load of a lane's rows.
    pub load: u32,
    /// Elements per load.
    pub per_load: usize,
    /// Loads per lane.
    pub loads: u32,
}

impl Staging {
    /// The staging of `plan`'s cross-warp stage for `m` output registers of `elem_bits` bits.
    pub const fn of(plan: &ReducePlan, m: u32, elem_bits: u32) -> Staging {
        let bytes = elem_bits.div_ceil(8);
        let kw = plan.warps.count_ones();
        let readers = plan.readers();
        let ka = readers.count_ones();
        let row_bytes = m * bytes;
        let chunk = if row_bytes < 16 { row_bytes } else { 16 };
        let reads = if kw > ka { 1 << (kw - ka) } else { 1 };
        let load = if reads * row_bytes < 16 {
            reads * row_bytes
        } else {
            16
        };
        Staging {
            readers,
            lanes: 1 << ka,
            warps: 1 << kw,
            other_lanes: (plan.lanes_per_warp - 1) & !readers & !plan.spare,
            copies: plan.spare & !readers,
            slots_per_warp: plan.lanes_per_warp >> (ka + (plan.spare & !readers).count_ones()),
            row_bytes,
            chunk,
            per: (chunk / bytes) as usize,
            chunks: row_bytes / chunk,
            reads,
            butterflies: if kw < ka { kw } else { ka },
            load,
            per_load: (load / bytes) as usize,
            loads: reads * row_bytes / load,
        }
    }

    /// The byte offset of the row of warp `w` and lane group `slot` (a warp holding copies has
    /// its original's). Where each lane reads one row: by warp, then group. Where it reads
    /// several: by group, then the warp bits off the dim, then the warps along it, placed so
    /// that the rows each reader lane combines are adjacent (reader `q` reads warps `q, q +
    /// lanes, ...` along the dim) and read together.
    #[inline(always)]
    pub const fn row(&self, plan: &ReducePlan, slot: u32, w: u32) -> u32 {
        if self.reads == 1 {
            // Without copies the warp is its own index (no bit extraction for LLVM to fold).
            let w = match plan.spare_warps {
                0 => w,
                spare => pext(w, (plan.warps_per_cta - 1) & !spare),
            };
            return (w * self.slots_per_warp + slot) * self.row_bytes;
        }
        let others = (plan.warps_per_cta - 1) & !plan.warps & !plan.spare_warps;
        let v = pext(w, plan.warps);
        let pos = (v % self.lanes) * self.reads + v / self.lanes;
        ((slot * (1 << others.count_ones()) + pext(w, others)) * self.warps + pos) * self.row_bytes
    }
}

/// `x`'s low bits spread to `mask`'s ones.
#[inline(always)]
pub const fn pdep(x: u32, mask: u32) -> u32 {
    let (mut out, mut k, mut bit) = (0, 0, 0);
    while bit < 32 {
        if mask >> bit & 1 == 1 {
            out |= (x >> k & 1) << bit;
            k += 1;
        }
        bit += 1;
    }
    out
}
