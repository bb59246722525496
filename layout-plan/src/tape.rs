//! A plan's operations as a tape: each operation one thread performs, `(kind, guard, fields)`,
//! recorded in fixed-size tables so that a `const` can hold it. The runtime replays a const tape
//! with every operand a constant (`gpu_runtime::replay`). Its methods are the machine operations
//! of [`crate::exec::Machine`] as `const fn`s, which [`crate::trace`]'s expansion of the
//! executor calls.

use crate::cost::Barrier;
use crate::linear::{terms_of, Map};

/// Operations a tape holds.
pub const TAPE_OPS: usize = 512;
/// Value slots a tape uses (slot 0 is the zero word).
pub const TAPE_SLOTS: usize = 1024;

/// Operation kinds.
pub mod kind {
    #![allow(missing_docs)]
    pub const MOV: u8 = 1;
    pub const COPY: u8 = 2;
    pub const PACK: u8 = 3;
    pub const SHIFT_DOWN: u8 = 4;
    pub const UNPACK: u8 = 5;
    pub const UNPACK_PAIR: u8 = 6;
    pub const LANE: u8 = 7;
    pub const WARP: u8 = 8;
    pub const RANK: u8 = 9;
    pub const BIT: u8 = 10;
    pub const XOR: u8 = 11;
    pub const SELECT: u8 = 13;
    pub const SHFL_XOR: u8 = 14;
    pub const SHFL_IDX: u8 = 15;
    pub const OWNER: u8 = 16;
    pub const PAD: u8 = 19;
    pub const ST: u8 = 20;
    pub const LD: u8 = 21;
    pub const STMATRIX: u8 = 22;
    pub const LDMATRIX: u8 = 23;
    pub const BARRIER: u8 = 24;
    pub const SCRATCH_WRITE_BEGIN: u8 = 25;
    pub const SCRATCH_READS_PENDING: u8 = 26;
    pub const TERM: u8 = 27;
}

/// One operation: its kind, its guard (the condition's slot + 1, or 0) and eight 16-bit fields.
pub type Op = (u8, u16, u128);

/// A recorded plan.
#[derive(Clone, Copy)]
pub struct Tape {
    bits: u32,
    next: u16,
    ops: [Op; TAPE_OPS],
    n_ops: usize,
    ids: [u16; 3],
    saved: [u16; 3],
    guard: u16,
    /// Operations of each kind recorded, past the table's end too (what the plan issues).
    counts: [u32; KINDS],
    /// A table ran out: the tape is incomplete.
    pub overflow: bool,
}

/// Kinds an operation may have (their numbers are below it).
const KINDS: usize = 32;

const fn pack8(fs: [u32; 8]) -> u128 {
    let mut w = 0u128;
    let mut i = 0;
    while i < 8 {
        w |= (fs[i] as u128 & 0xffff) << (16 * i);
        i += 1;
    }
    w
}

impl Tape {
    /// An empty tape for elements of `bits` bits.
    pub const fn new(bits: u32) -> Self {
        Tape {
            bits,
            next: 1,
            ops: [(0, 0, 0); TAPE_OPS],
            n_ops: 0,
            ids: [0; 3],
            saved: [0; 3],
            guard: 0,
            counts: [0; KINDS],
            overflow: false,
        }
    }

    /// Operations of `kind` the plan issues (counted past the table's end too).
    pub const fn count(&self, kind: u8) -> u32 {
        self.counts[kind as usize]
    }

    /// Shuffles the plan issues (`shfl.sync`, by XOR or by index).
    pub const fn shuffles(&self) -> u32 {
        self.count(kind::SHFL_XOR) + self.count(kind::SHFL_IDX)
    }

    /// Selects the plan issues, with the shifts that move an element to a word's bottom counted
    /// among them (one `shr` or `prmt` each, as a select is one `selp`): a cost's `selects`.
    pub const fn selects(&self) -> u32 {
        self.count(kind::SELECT) + self.count(kind::SHIFT_DOWN)
    }

    /// The operations.
    pub const fn ops(&self) -> &[Op] {
        crate::slices::prefix(&self.ops, self.n_ops)
    }

    /// Value slots used.
    pub const fn slots(&self) -> usize {
        self.next as usize
    }

    /// Bits per element.
    pub const fn elem_bits(&self) -> u32 {
        self.bits
    }

    const fn slot(&mut self, n: u16) -> u16 {
        let h = self.next;
        if (h as usize) + n as usize > TAPE_SLOTS {
            self.overflow = true;
            return 0;
        }
        self.next += n;
        h
    }

    const fn op(&mut self, kind: u8, fs: [u32; 8]) {
        self.counts[kind as usize] += 1;
        if self.n_ops == TAPE_OPS {
            self.overflow = true;
            return;
        }
        self.ops[self.n_ops] = (kind, self.guard, pack8(fs));
        self.n_ops += 1;
    }

    const fn id(&mut self, which: usize) -> u16 {
        if self.ids[which] != 0 {
            return self.ids[which];
        }
        let h = self.slot(1);
        self.op(kind::LANE + which as u8, [h as u32, 0, 0, 0, 0, 0, 0, 0]);
        self.ids[which] = h;
        h
    }

    /// Destination register `dst` is source register `src`.
    pub const fn mov(&mut self, dst: u16, src: u16) {
        self.op(kind::MOV, [dst as u32, src as u32, 0, 0, 0, 0, 0, 0]);
    }
    /// Destination register `dst` is destination register `from`.
    pub const fn copy(&mut self, dst: u16, from: u16) {
        self.op(kind::COPY, [dst as u32, from as u32, 0, 0, 0, 0, 0, 0]);
    }
    /// A word of source registers `regs` (four at most), or half `part` of a 64-bit one.
    pub const fn pack(&mut self, regs: &[u16], part: u32) -> u16 {
        if regs.len() > 4 {
            panic!("layout_plan::tape: a word of more than 4 registers; please report the layouts named below");
        }
        let h = self.slot(1);
        let mut f = [h as u32, regs.len() as u32, part, 0, 0, 0, 0, 0];
        let mut k = 0;
        while k < regs.len() {
            f[3 + k] = regs[k] as u32;
            k += 1;
        }
        self.op(kind::PACK, f);
        h
    }
    /// `w` shifted so that its element `k` is element 0.
    pub const fn shift_down(&mut self, w: u16, k: u32) -> u16 {
        let h = self.slot(1);
        self.op(kind::SHIFT_DOWN, [h as u32, w as u32, k, 0, 0, 0, 0, 0]);
        h
    }
    /// Destination register `dst` is element `k` of `w`.
    pub const fn unpack(&mut self, dst: u16, w: u16, k: u32) {
        self.op(kind::UNPACK, [dst as u32, w as u32, k, 0, 0, 0, 0, 0]);
    }
    /// Destination register `dst` is the 64-bit element with halves `lo` and `hi`.
    pub const fn unpack_pair(&mut self, dst: u16, lo: u16, hi: u16) {
        self.op(
            kind::UNPACK_PAIR,
            [dst as u32, lo as u32, hi as u32, 0, 0, 0, 0, 0],
        );
    }
    /// This thread's lane, read once (again after a guarded block).
    pub const fn lane(&mut self) -> u16 {
        self.id(0)
    }
    /// This thread's warp, read once.
    pub const fn warp(&mut self) -> u16 {
        self.id(1)
    }
    /// This CTA's rank in its cluster, read once.
    pub const fn cta_rank(&mut self) -> u16 {
        self.id(2)
    }
    /// Whether bit `bit` of `x` is set.
    pub const fn bit(&mut self, x: u16, bit: u32) -> u16 {
        let h = self.slot(1);
        self.op(kind::BIT, [h as u32, x as u32, bit, 0, 0, 0, 0, 0]);
        h
    }
    /// `addr ^ off`: an access's address from its side's base.
    pub const fn offset(&mut self, addr: u16, off: u32) -> u16 {
        self.xor(addr, off)
    }
    /// `x ^ mask` (`x` itself for a zero mask).
    pub const fn xor(&mut self, x: u16, mask: u32) -> u16 {
        if mask == 0 {
            return x;
        }
        let h = self.slot(1);
        let (lo, hi) = (mask & 0xffff, mask >> 16);
        self.op(kind::XOR, [h as u32, x as u32, lo, hi, 0, 0, 0, 0]);
        h
    }
    /// The XOR of each map on its value: its terms in map order, joined by OR where no two
    /// bases set the same bit (as `convert!` writes a sum), one `TERM` operation per term (the
    /// first sets the slot; none: the slot is zero).
    pub const fn linear(&mut self, maps: &[(Map<'_>, u16)]) -> u16 {
        let (mut seen, mut overlap, mut d) = (0u32, false, 0);
        while d < maps.len() {
            let bases = maps[d].0.bases;
            let mut b = 0;
            while b < bases.len() {
                overlap |= seen & bases[b] != 0;
                seen |= bases[b];
                b += 1;
            }
            d += 1;
        }
        let h = self.slot(1);
        let dis = (!overlap as u32) << 1;
        let (mut first, mut d) = (1u32, 0);
        while d < maps.len() {
            let ts = terms_of(maps[d].0.bases);
            let ts = ts.as_slice();
            let mut k = 0;
            while k < ts.len() {
                let t = ts[k];
                let (m, x) = (t.mask, maps[d].1 as u32);
                let sh = t.shift as u8 as u32;
                self.op(
                    kind::TERM,
                    [h as u32, x, m & 0xffff, m >> 16, sh, first | dis, 0, 0],
                );
                first = 0;
                k += 1;
            }
            d += 1;
        }
        if first == 1 {
            self.op(kind::TERM, [h as u32, 0, 0, 0, 0, 1, 0, 0]);
        }
        h
    }
    /// `if c { a } else { b }`.
    pub const fn select(&mut self, c: u16, a: u16, b: u16) -> u16 {
        let h = self.slot(1);
        self.op(
            kind::SELECT,
            [h as u32, c as u32, a as u32, b as u32, 0, 0, 0, 0],
        );
        h
    }
    /// `w` of lane `lane ^ mask`.
    pub const fn shfl_xor(&mut self, w: u16, mask: u32) -> u16 {
        let h = self.slot(1);
        let (lo, hi) = (mask & 0xffff, mask >> 16);
        self.op(kind::SHFL_XOR, [h as u32, w as u32, lo, hi, 0, 0, 0, 0]);
        h
    }
    /// `w` of lane `src`.
    pub const fn shfl_idx(&mut self, w: u16, src: u16) -> u16 {
        let h = self.slot(1);
        self.op(
            kind::SHFL_IDX,
            [h as u32, w as u32, src as u32, 0, 0, 0, 0, 0],
        );
        h
    }
    /// Whether this thread stores (no copy bits set).
    pub const fn owner(&mut self, lane: u16, warp: u16, lane_skip: u32, warp_skip: u32) -> u16 {
        let h = self.slot(1);
        let (a, b, c, d) = (
            lane_skip & 0xffff,
            lane_skip >> 16,
            warp_skip & 0xffff,
            warp_skip >> 16,
        );
        self.op(
            kind::OWNER,
            [h as u32, lane as u32, warp as u32, a, b, c, d, 0],
        );
        h
    }
    /// Guard what follows by `c` until [`Tape::end_if`].
    pub const fn begin_if(&mut self, c: u16) {
        self.guard = c + 1;
        self.saved = self.ids;
    }
    /// Close [`Tape::begin_if`]: ids read inside are read again after.
    pub const fn end_if(&mut self) {
        self.guard = 0;
        self.ids = self.saved;
    }
    /// `addr` in a padded buffer.
    pub const fn pad(&mut self, addr: u16, padding: [(u8, u8); 4]) -> u16 {
        let h = self.slot(1);
        let mut f = [h as u32, addr as u32, 0, 0, 0, 0, 0, 0];
        let mut k = 0;
        while k < 4 {
            f[2 + k] = (padding[k].0 as u32) << 8 | padding[k].1 as u32;
            k += 1;
        }
        self.op(kind::PAD, f);
        h
    }
    /// Store `bytes` from `words` at `addr`.
    pub const fn st_shared(&mut self, remote: bool, addr: u16, bytes: u32, w: [u16; 4]) {
        let f = [
            remote as u32,
            addr as u32,
            bytes,
            w[0] as u32,
            w[1] as u32,
            w[2] as u32,
            w[3] as u32,
            0,
        ];
        self.op(kind::ST, f);
    }
    /// Load `bytes` from `addr` into four new slots.
    pub const fn ld_shared(&mut self, remote: bool, addr: u16, bytes: u32) -> [u16; 4] {
        let h = self.slot(4);
        self.op(
            kind::LD,
            [h as u32, remote as u32, addr as u32, bytes, 0, 0, 0, 0],
        );
        [h, h + 1, h + 2, h + 3]
    }
    /// `stmatrix` of `count` matrices.
    pub const fn stmatrix(&mut self, count: u8, addr: u16, trans: bool, w: [u16; 4]) {
        let f = [
            count as u32,
            addr as u32,
            trans as u32,
            w[0] as u32,
            w[1] as u32,
            w[2] as u32,
            w[3] as u32,
            0,
        ];
        self.op(kind::STMATRIX, f);
    }
    /// `ldmatrix` of `count` matrices into four new slots.
    pub const fn ldmatrix(&mut self, count: u8, addr: u16, trans: bool) -> [u16; 4] {
        let h = self.slot(4);
        self.op(
            kind::LDMATRIX,
            [
                h as u32,
                count as u32,
                addr as u32,
                trans as u32,
                0,
                0,
                0,
                0,
            ],
        );
        [h, h + 1, h + 2, h + 3]
    }
    /// Wait for the warp, the CTA or the cluster.
    pub const fn barrier(&mut self, b: Barrier) {
        let k = match b {
            Barrier::Warp => 0,
            Barrier::Block => 1,
            Barrier::Cluster => 2,
        };
        self.op(kind::BARRIER, [k, 0, 0, 0, 0, 0, 0, 0]);
    }
    /// Before a conversion's first store to the scratch.
    pub const fn scratch_write_begin(&mut self) {
        self.op(kind::SCRATCH_WRITE_BEGIN, [0; 8]);
    }
    /// After a conversion's loads from the scratch.
    pub const fn scratch_reads_pending(&mut self) {
        self.op(kind::SCRATCH_READS_PENDING, [0; 8]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tape_counts_what_a_cost_counts_past_its_table_too() {
        let mut t = Tape::new(16);
        let w = t.pack(&[0, 1], 0);
        let lane = t.lane();
        let c = t.bit(lane, 0);
        let s = t.select(c, w, w);
        // A shift that moves an element to the word's bottom costs what a select does.
        let d = t.shift_down(s, 1);
        let x = t.shfl_xor(d, 1);
        let _ = t.shfl_idx(x, lane);
        assert_eq!((t.shuffles(), t.selects()), (2, 2));
        while !t.overflow {
            t.select(c, w, w);
        }
        let recorded = t.ops().len();
        t.select(c, w, w);
        assert_eq!(t.ops().len(), recorded, "the table is full");
        // The 2 before the loop, one per select recorded after the first 7 operations, and the
        // 2 the full table refused.
        assert_eq!(recorded, TAPE_OPS);
        assert_eq!(
            t.selects() as usize,
            2 + (recorded - 7) + 2,
            "counted past the table"
        );
    }
}
