//! `ldmatrix` / `stmatrix` accesses: whether a side's layout fits the instruction under the
//! shared layout, and its tables when it does.
//!
//! For the plain form, a register at element offset 1 and lanes 0-1 at 2 and 4 (each lane's two
//! halves of four 16-byte rows), lanes 2-4 giving row addresses; for `.trans`, lanes 2-4 at
//! offsets 1, 2, 4 and a register and lanes 0-1 giving rows. Two more registers pick the four
//! matrices (`.x4`); with one register left, two (`.x2`, lanes 16-31 give no address), with
//! none, one (`.x1`, only lanes 0-7 do). `lane_bases` is then the address function of the lane
//! that supplies a row address (`8 q + row`; zero for the lane bits no matrix uses).

use super::smem::{access_groups, addrs, Groups, Side, Smem};
use crate::fixed::{Fixed, FixedBases, FixedList};
use crate::flat::{combine, Bases, Flat};
use crate::ir::{Instr, SmemAccess};
use crate::NO_PADDING;

/// An `.x4` access, or `.x2` / `.x1` where too few registers are left to pick four matrices (32
/// lanes; 16-bit elements for `.trans`), if the side's layout fits it.
pub const fn matrix_access(
    side: &Side,
    smem: &Smem,
    trans: bool,
    ebytes: u32,
    store: bool,
) -> Option<SmemAccess<Fixed>> {
    let f = side.flat;
    if !matches!(ebytes, 1 | 2 | 4) || (trans && ebytes != 2) || f.lane.len() != 5 {
        return None;
    }
    if !own_cta(f, smem) {
        return None;
    }
    let g = Geometry { side, smem, ebytes };
    let rows = if trans {
        g.trans_rows()
    } else {
        g.plain_rows()
    };
    let Some((inner, rows)) = rows else {
        return None;
    };
    let mut qs = Bases::EMPTY;
    let mut i = 0;
    while i < f.reg.len() && qs.len() < 2 {
        if !has(&inner, i) && g.usable(i) && g.aligned(f.reg.get(i)) {
            qs.push(i as u64);
        }
        i += 1;
    }
    let mut i = 0;
    while i < f.warp.len() {
        if !g.aligned(f.warp.get(i)) {
            return None;
        }
        i += 1;
    }
    let count = 1usize << qs.len();
    let used = mask(&inner) | mask(&qs);
    // Every other register must keep rows aligned.
    let row = 16 / ebytes;
    let mut i = 0;
    while i < f.reg.len() {
        if (used >> i) & 1 == 0 && f.reg.get(i) != 0 && !g.off(f.reg.get(i)).is_multiple_of(row) {
            return None;
        }
        i += 1;
    }
    // Elements per access: 4 words of `4 / ebytes` (for .trans, 2 halves per word).
    let per_word = if trans { 2 } else { (4 / ebytes) as usize };
    let Some(groups) = access_groups(side, used, smem) else {
        return None;
    };
    let mut reg_offsets = FixedList::new(0);
    let mut k = 0;
    while k < groups.len() {
        let x = groups.get(k) as u64;
        reg_offsets.push(g.off(combine(f.reg.as_slice(), x)) * ebytes);
        k += 1;
    }
    let mut lane_bases = FixedBases::new();
    let mut k = 0;
    while k < 3 {
        lane_bases.push(rows[k] * ebytes);
        k += 1;
    }
    let mut k = 0;
    while k < qs.len() {
        lane_bases.push(g.off(f.reg.get(qs.get(k) as usize)) * ebytes);
        k += 1;
    }
    while lane_bases.len() < 5 {
        lane_bases.push(0);
    }
    let Some(regs) = registers(&groups, &qs, &inner, per_word) else {
        return None;
    };
    Some(SmemAccess {
        vec: (count * per_word) as u32,
        regs,
        reg_offsets,
        lane_bases,
        warp_bases: addrs(&f.warp, smem, ebytes),
        block_bases: FixedBases::new(),
        reg_skip: side.reg_free,
        lane_skip: 0,
        warp_skip: if store { side.warp_free } else { 0 },
        remote: false,
        instr: Instr::Matrix {
            count: count as u8,
            trans,
        },
        padding: NO_PADDING,
    })
}

/// Whether register position `i` is in `v`.
const fn has(v: &Bases, i: usize) -> bool {
    super::gf2::contains(v.as_slice(), i as u64)
}

/// The register bits at the positions in `v`.
const fn mask(v: &Bases) -> usize {
    let mut m = 0;
    let mut i = 0;
    while i < v.len() {
        m |= 1 << v.get(i);
        i += 1;
    }
    m
}

/// Matrix instructions reach only the CTA's own buffer, at offsets the block bits leave alone.
const fn own_cta(f: &Flat, smem: &Smem) -> bool {
    let dims = [&f.reg, &f.lane, &f.warp];
    let mut d = 0;
    while d < dims.len() {
        let mut i = 0;
        while i < dims[d].len() {
            if smem.cta_of(dims[d].get(i)) != 0 {
                return false;
            }
            i += 1;
        }
        d += 1;
    }
    let mut i = 0;
    while i < f.block.len() {
        let b = f.block.get(i);
        if (smem.cta_of(b) | (smem.own & (1 << i))) != 1 << i
            || smem.offset_of(b) != 0
            || smem.round_of(b) != 0
        {
            return false;
        }
        i += 1;
    }
    true
}

/// A side under the shared layout, as the matrix instruction sees it.
struct Geometry<'a> {
    side: &'a Side<'a>,
    smem: &'a Smem,
    ebytes: u32,
}

impl Geometry<'_> {
    const fn off(&self, v: u64) -> u32 {
        self.smem.offset_of(v)
    }
    const fn r0(&self, v: u64) -> bool {
        self.smem.round_of(v) == 0
    }
    /// Rows are 16 bytes: a row start is aligned to a row (and in round 0).
    const fn aligned(&self, v: u64) -> bool {
        self.off(v).is_multiple_of(16 / self.ebytes) && self.r0(v)
    }
    const fn lane(&self, i: usize) -> u64 {
        self.side.flat.lane.get(i)
    }
    const fn usable(&self, i: usize) -> bool {
        self.side.flat.reg.get(i) != 0 && (self.side.reg_free >> i) & 1 == 0
    }

    /// `.trans`: lanes 2-4 at element offsets 1, 2, 4; a register and lanes 0-1 give the rows.
    const fn trans_rows(&self) -> Option<(Bases, [u32; 3])> {
        let (l0, l1) = (self.lane(0), self.lane(1));
        let mut k = 0;
        while k < 3 {
            let b = self.lane(2 + k);
            if self.off(b) != 1 << k || !self.r0(b) {
                return None;
            }
            k += 1;
        }
        if !self.aligned(l0) || !self.aligned(l1) {
            return None;
        }
        let reg = &self.side.flat.reg;
        let mut h = 0;
        while h < reg.len() && !(self.usable(h) && self.aligned(reg.get(h))) {
            h += 1;
        }
        if h == reg.len() {
            return None;
        }
        let mut inner = Bases::EMPTY;
        inner.push(h as u64);
        Some((inner, [self.off(reg.get(h)), self.off(l0), self.off(l1)]))
    }

    /// The plain form: registers fill a 32-bit word, lanes 0-1 the rest of a row's 16 bytes,
    /// lanes 2-4 give the rows.
    const fn plain_rows(&self) -> Option<(Bases, [u32; 3])> {
        let reg = &self.side.flat.reg;
        let epw = 4 / self.ebytes;
        let mut inner = Bases::EMPTY;
        let mut k = 0;
        while k < epw.trailing_zeros() {
            let mut i = 0;
            while i < reg.len()
                && !(self.usable(i) && self.off(reg.get(i)) == 1 << k && self.r0(reg.get(i)))
            {
                i += 1;
            }
            if i == reg.len() {
                return None;
            }
            inner.push(i as u64);
            k += 1;
        }
        let (l0, l1) = (self.lane(0), self.lane(1));
        if !(self.off(l0) == epw && self.off(l1) == 2 * epw && self.r0(l0) && self.r0(l1)) {
            return None;
        }
        let rows = [self.lane(2), self.lane(3), self.lane(4)];
        let mut k = 0;
        while k < 3 {
            if !self.aligned(rows[k]) {
                return None;
            }
            k += 1;
        }
        Some((
            inner,
            [self.off(rows[0]), self.off(rows[1]), self.off(rows[2])],
        ))
    }
}

/// The registers of each access: for access base `x`, matrix `q` (register bits `qs`), element
/// `k` of its word (register bits `inner`).
const fn registers(
    groups: &Groups,
    qs: &Bases,
    inner: &Bases,
    per_word: usize,
) -> Option<FixedList<u16>> {
    let mut regs = FixedList::new(0);
    let mut g = 0;
    while g < groups.len() {
        let x = groups.get(g) as usize;
        let mut q = 0;
        while q < 1usize << qs.len() {
            let mut k = 0;
            while k < per_word {
                let mut r = x;
                let mut b = 0;
                while b < qs.len() {
                    if (q >> b) & 1 == 1 {
                        r |= 1 << qs.get(b);
                    }
                    b += 1;
                }
                let mut b = 0;
                while b < inner.len() {
                    if (k >> b) & 1 == 1 {
                        r |= 1 << inner.get(b);
                    }
                    b += 1;
                }
                if !regs.try_push(r as u16) {
                    return None;
                }
                k += 1;
            }
            q += 1;
        }
        g += 1;
    }
    Some(regs)
}
