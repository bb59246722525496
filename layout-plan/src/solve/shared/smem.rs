//! The shared layout as the planner sees it: which offset, round and CTA a tensor element goes
//! to, and the sides that store and load through it.

use crate::fixed::{FixedBases, FixedList, MAX_BASES};
use crate::flat::Bases;
use crate::flat::{Flat, Span};
use crate::CTA_SHIFT;

/// The shared layout: offset bits, then rep (round) bits, then one bit per source block bit
/// (the CTA whose buffer holds an element; zero block bases are never used).
#[derive(Clone, Copy, Debug)]
pub struct Smem {
    /// The offset, rep and block bases.
    pub span: Span,
    /// Offset bits (log2 elements per buffer).
    pub offset_bits: u32,
    rep_bits: u32,
    /// Source block bits that are zero (CTAs holding copies): each CTA uses its own buffer there.
    pub own: u32,
}

impl Smem {
    /// The shared layout of `bases` (offset bases, then `rep_bits` rep bases) and `block` (the
    /// block bases, one per CTA rank bit, zero ones included: their CTAs keep their own copy).
    pub const fn new(bases: &[u64], rep_bits: usize, block: &[u64]) -> Self {
        let all = super::gf2::concat(bases, block);
        let mut own = 0u32;
        let mut i = 0;
        while i < block.len() {
            if block[i] == 0 {
                own |= 1 << i;
            }
            i += 1;
        }
        Smem {
            span: Span::new(all.as_slice()),
            offset_bits: (bases.len() - rep_bits) as u32,
            rep_bits: rep_bits as u32,
            own,
        }
    }

    /// The offset, round and CTA of a flat tensor vector, from one reduction: what
    /// [`Smem::offset_of`], [`Smem::round_of`] and [`Smem::cta_of`] each give.
    pub const fn place(&self, v: u64) -> (u32, u32, u32) {
        let m = self.mask(v);
        (
            (m & ((1u64 << self.offset_bits) - 1)) as u32,
            ((m >> self.offset_bits) & ((1u64 << self.rep_bits) - 1)) as u32,
            (m >> (self.offset_bits + self.rep_bits)) as u32,
        )
    }

    const fn mask(&self, v: u64) -> u64 {
        match self.span.express(v) {
            Some(m) => m,
            None => 0,
        }
    }

    /// Offset (in elements) of a flat tensor vector.
    pub const fn offset_of(&self, v: u64) -> u32 {
        self.place(v).0
    }

    /// The round a flat tensor vector is moved in.
    pub const fn round_of(&self, v: u64) -> u32 {
        self.place(v).1
    }

    /// The CTA (rank bits) whose buffer holds a flat tensor vector.
    pub const fn cta_of(&self, v: u64) -> u32 {
        self.place(v).2
    }

    /// The address of a flat tensor vector: byte offset, and its CTA at `CTA_SHIFT`.
    pub const fn addr_of(&self, v: u64, ebytes: u32) -> u32 {
        let (offset, _, cta) = self.place(v);
        (offset * ebytes) | (cta << CTA_SHIFT)
    }

    /// Rounds.
    pub const fn rounds(&self) -> u32 {
        1 << self.rep_bits
    }
}

/// One side of the conversion and the bits of its threads and registers that hold copies.
#[derive(Clone, Copy)]
pub struct Side<'a> {
    /// The side's layout.
    pub flat: &'a Flat,
    /// Register bits whose registers hold copies.
    pub reg_free: u32,
    /// Lane bits whose lanes hold copies.
    pub lane_free: u32,
    /// Warp bits whose warps hold copies.
    pub warp_free: u32,
}

impl<'a> Side<'a> {
    /// A side of `flat` whose copies are its dependent bases (Triton's free variables: a basis
    /// in the span of those before it, registers first, then lanes, warps, CTAs).
    pub const fn of(flat: &'a Flat) -> Side<'a> {
        let mut span = Span::new(&[]);
        let mut n = 0;
        let mut masks = [0u32; 4];
        let dims = [&flat.reg, &flat.lane, &flat.warp, &flat.block];
        let mut d = 0;
        while d < dims.len() {
            let mut i = 0;
            while i < dims[d].len() {
                let b = dims[d].get(i);
                if span.contains(b) {
                    masks[d] |= 1 << i;
                } else {
                    span.add(b, n);
                    n += 1;
                }
                i += 1;
            }
            d += 1;
        }
        Side {
            flat,
            reg_free: masks[0],
            lane_free: masks[1],
            warp_free: masks[2],
        }
    }

    /// This side as a load's: every thread loads (a load fills copies from what it loaded).
    pub const fn loading(self) -> Side<'a> {
        Side {
            lane_free: 0,
            warp_free: 0,
            ..self
        }
    }
}

/// Access bases: the first register of each access, in round order.
pub type Groups = FixedList<u16>;

/// The first register of each access (the registers `used` leaves at zero, copies left out), in
/// round order: round `r` moves the registers whose rep bits are `r`. `None` past the plan's
/// tables.
pub const fn access_groups(side: &Side, used: usize, smem: &Smem) -> Option<Groups> {
    let f = side.flat;
    let n = 1usize << f.reg.len();
    if n > crate::fixed::FIXED_CAP {
        return None;
    }
    // The round of each register basis: a register's round is the XOR of its bits' (the
    // shared layout is linear, and holds every element).
    let regs = f.reg.as_slice();
    let mut reg_round = [0u32; 32];
    let mut i = 0;
    while i < regs.len() && i < 32 {
        reg_round[i] = smem.round_of(regs[i]);
        i += 1;
    }
    // Every register's round, one XOR each from a register with one bit fewer (a call per
    // register and round would be most of a large layout's planning).
    let mut round_of = [0u32; crate::fixed::FIXED_CAP];
    let mut x = 1;
    while x < n {
        round_of[x] = round_of[x & (x - 1)] ^ reg_round[x.trailing_zeros() as usize];
        x += 1;
    }
    let mut out = FixedList::new(0);
    let rounds = smem.rounds();
    let mut round = 0;
    while round < rounds {
        let mut x = 0;
        while x < n {
            if x & used == 0 && (x as u32) & side.reg_free == 0 && round_of[x] == round {
                out.push(x as u16);
            }
            x += 1;
        }
        round += 1;
    }
    Some(out)
}

/// The address of each of `bases` (at most [`MAX_BASES`]: more is a planner bug, a panic, which
/// in a const is a compile error), in a plain array, and how many.
pub(super) const fn addr_table(
    bases: &[u64],
    smem: &Smem,
    ebytes: u32,
) -> ([u32; MAX_BASES], usize) {
    if bases.len() > MAX_BASES {
        panic!("layout_plan::solve::shared: more address bases than a map holds; please report the layouts named below");
    }
    let mut out = [0u32; MAX_BASES];
    let mut i = 0;
    while i < bases.len() {
        out[i] = smem.addr_of(bases[i], ebytes);
        i += 1;
    }
    (out, i)
}

/// The addresses of `bases`.
pub(super) const fn addrs(bases: &Bases, smem: &Smem, ebytes: u32) -> FixedBases {
    // From a plain array, so that the map's terms are made once (a push remakes them).
    let (out, n) = addr_table(bases.as_slice(), smem, ebytes);
    match FixedBases::from_slice(crate::slices::prefix(&out, n)) {
        Some(f) => f,
        // `addr_table` holds at most MAX_BASES.
        None => panic!("layout_plan::solve::shared: more address bases than a map holds"),
    }
}
