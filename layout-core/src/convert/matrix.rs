//! `ldmatrix` / `stmatrix` accesses: whether a side's layout fits the instruction under the
//! shared layout, and its tables when it does.
//!
//! For the plain form, a register at element offset 1 and lanes 0-1 at 2 and 4 (each lane's two
//! halves of four 16-byte rows), lanes 2-4 giving row addresses; for `.trans`, lanes 2-4 at
//! offsets 1, 2, 4 and a register and lanes 0-1 giving rows. Two more registers pick the four
//! matrices (`.x4`); with one register left, two (`.x2`, lanes 16-31 give no address), with
//! none, one (`.x1`, only lanes 0-7 do). `lane_bases` is then the address function of the lane
//! that supplies a row address (`8 q + row`; zero for the lane bits no matrix uses).

use alloc::vec;
use alloc::vec::Vec;

use super::bits::{combine, FlatLayout};
use super::smem::{access_groups, cta_of, offset_of, round_of, Side, Smem};
use super::{Instr, SmemAccess};

/// An `.x4` access, or `.x2` / `.x1` where too few registers are left to pick four matrices (32
/// lanes; 16-bit elements for `.trans`), if the side's layout fits it.
pub(super) fn matrix_access(
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
    if !own_cta(f, smem) {
        return None;
    }
    let g = Geometry { side, smem, ebytes };
    let (inner, rows) = if trans {
        g.trans_rows()?
    } else {
        g.plain_rows()?
    };
    let qs: Vec<usize> = (0..f.reg.len())
        .filter(|&i| !inner.contains(&i) && g.usable(i) && g.aligned(f.reg[i]))
        .take(2)
        .collect();
    if !f.warp.iter().all(|&w| g.aligned(w)) {
        return None;
    }
    let count = 1usize << qs.len();
    let used = inner.iter().chain(&qs).fold(0usize, |a, &i| a | (1 << i));
    // Every other register must keep rows aligned.
    let row = 16 / ebytes;
    if (0..f.reg.len())
        .any(|i| (used >> i) & 1 == 0 && f.reg[i] != 0 && !g.off(f.reg[i]).is_multiple_of(row))
    {
        return None;
    }
    // Elements per access: 4 words of `4 / ebytes` (for .trans, 2 halves per word).
    let per_word = if trans { 2 } else { (4 / ebytes) as usize };
    let groups = access_groups(side, used, smem);
    let reg_offsets = groups
        .iter()
        .map(|&x| g.off(combine(&f.reg, x as u64)) * ebytes)
        .collect();
    let mut lane_bases: Vec<u32> = rows.iter().map(|&o| o * ebytes).collect();
    lane_bases.extend(qs.iter().map(|&q| g.off(f.reg[q]) * ebytes));
    lane_bases.resize(5, 0);
    Some(SmemAccess {
        vec: (count * per_word) as u32,
        regs: registers(&groups, &qs, &inner, per_word),
        reg_offsets,
        lane_bases,
        warp_bases: f.warp.iter().map(|&b| g.off(b) * ebytes).collect(),
        block_bases: Vec::new(),
        reg_skip: side.reg_free,
        lane_skip: 0,
        warp_skip: if store { side.warp_free } else { 0 },
        remote: false,
        instr: Instr::Matrix {
            count: count as u8,
            trans,
        },
        padding: layout_plan::NO_PADDING,
    })
}

/// Matrix instructions reach only the CTA's own buffer, at offsets the block bits leave alone.
fn own_cta(f: &FlatLayout, smem: &Smem) -> bool {
    f.reg
        .iter()
        .chain(&f.lane)
        .chain(&f.warp)
        .all(|&b| cta_of(b, smem) == 0)
        && f.block.iter().enumerate().all(|(i, &b)| {
            (cta_of(b, smem) | (smem.own & (1 << i))) == 1 << i
                && offset_of(b, smem) == 0
                && round_of(b, smem) == 0
        })
}

/// A side under the shared layout, as the matrix instruction sees it.
struct Geometry<'a> {
    side: &'a Side<'a>,
    smem: &'a Smem,
    ebytes: u32,
}

impl Geometry<'_> {
    fn off(&self, v: u64) -> u32 {
        offset_of(v, self.smem)
    }
    fn r0(&self, v: u64) -> bool {
        round_of(v, self.smem) == 0
    }
    /// Rows are 16 bytes: a row start is aligned to a row (and in round 0).
    fn aligned(&self, v: u64) -> bool {
        self.off(v).is_multiple_of(16 / self.ebytes) && self.r0(v)
    }
    fn lane(&self, i: usize) -> u64 {
        self.side.flat.lane[i]
    }
    fn usable(&self, i: usize) -> bool {
        self.side.flat.reg[i] != 0 && (self.side.reg_free >> i) & 1 == 0
    }

    /// `.trans`: lanes 2-4 at element offsets 1, 2, 4; a register and lanes 0-1 give the rows.
    fn trans_rows(&self) -> Option<(Vec<usize>, [u32; 3])> {
        let (l0, l1) = (self.lane(0), self.lane(1));
        let inner = [self.lane(2), self.lane(3), self.lane(4)];
        if inner.iter().map(|&b| self.off(b)).ne([1, 2, 4])
            || !inner.iter().all(|&b| self.r0(b))
            || !self.aligned(l0)
            || !self.aligned(l1)
        {
            return None;
        }
        let reg = &self.side.flat.reg;
        let h = (0..reg.len()).find(|&i| self.usable(i) && self.aligned(reg[i]))?;
        Some((vec![h], [self.off(reg[h]), self.off(l0), self.off(l1)]))
    }

    /// The plain form: registers fill a 32-bit word, lanes 0-1 the rest of a row's 16 bytes,
    /// lanes 2-4 give the rows.
    fn plain_rows(&self) -> Option<(Vec<usize>, [u32; 3])> {
        let reg = &self.side.flat.reg;
        let epw = 4 / self.ebytes;
        let mut inner = Vec::new();
        for k in 0..epw.trailing_zeros() {
            let fits = |i: usize| self.usable(i) && self.off(reg[i]) == 1 << k && self.r0(reg[i]);
            inner.push((0..reg.len()).find(|&i| fits(i))?);
        }
        let (l0, l1) = (self.lane(0), self.lane(1));
        if !(self.off(l0) == epw && self.off(l1) == 2 * epw && self.r0(l0) && self.r0(l1)) {
            return None;
        }
        let rows = [self.lane(2), self.lane(3), self.lane(4)];
        if !rows.iter().all(|&b| self.aligned(b)) {
            return None;
        }
        Some((inner, rows.map(|b| self.off(b))))
    }
}

/// The registers of each access: for access base `x`, matrix `q` (register bits `qs`), element
/// `k` of its word (register bits `inner`).
fn registers(groups: &[usize], qs: &[usize], inner: &[usize], per_word: usize) -> Vec<u16> {
    let mut regs = Vec::new();
    for &x in groups {
        for q in 0..1usize << qs.len() {
            for k in 0..per_word {
                let r = qs
                    .iter()
                    .chain(inner)
                    .enumerate()
                    .filter(|&(b, _)| {
                        if b < qs.len() {
                            (q >> b) & 1 == 1
                        } else {
                            (k >> (b - qs.len())) & 1 == 1
                        }
                    })
                    .fold(x, |a, (_, &i)| a | (1 << i));
                regs.push(r as u16);
            }
        }
    }
    regs
}
