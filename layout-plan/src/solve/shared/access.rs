//! One side's accesses to the shared layout: the widest aligned vectors its registers allow, or
//! a matrix instruction where the layout fits one and it takes fewer instructions.

use super::matrix::matrix_access;
use super::smem::{access_groups, addr_table, addrs, Side, Smem};
use super::swizzle::AccessKind;
use super::Unfit;
use crate::fixed::{Fixed, FixedList};
use crate::flat::{Bases, Flat};
use crate::ir::{Instr, SmemAccess};
use crate::linear::xor_of;
use crate::{CTA_SHIFT, NO_PADDING, OFFSET_MASK};

/// The register bits that carry a side's vector: register bases at offsets 1, 2, 4, ... (up to
/// `max_bits` of them), as long as no lane, warp or block basis has bits below the vector
/// (alignment). Other registers may: their low bits only permute the vector's registers, which
/// [`vector_access`] resolves at compile time (a swizzle that XORs a row bit into the column
/// bit).
const fn vector_bits(f: &Flat, smem: &Smem, max_bits: usize, reg_free: u32) -> Bases {
    let mut vpos = Bases::EMPTY;
    while vpos.len() < max_bits {
        let want = 1u32 << vpos.len();
        let mut found = None;
        let mut i = 0;
        while i < f.reg.len() && found.is_none() {
            let b = f.reg.get(i);
            let (offset, round, cta) = smem.place(b);
            if offset == want
                && b != 0
                && (reg_free >> i) & 1 == 0
                // A vector never spans two rounds, nor two CTAs.
                && round == 0
                && cta == 0
            {
                found = Some(i);
            }
            i += 1;
        }
        match found {
            Some(i) => {
                vpos.push(i as u64);
            }
            None => break,
        }
    }
    loop {
        let low = (1u32 << vpos.len()) - 1;
        let aligned = low_clear(&f.lane, smem, low)
            && low_clear(&f.warp, smem, low)
            && low_clear(&f.block, smem, low);
        if aligned || vpos.is_empty() {
            return vpos;
        }
        vpos.pop();
    }
}

/// Whether every basis's offset has the bits of `low` clear.
const fn low_clear(bases: &Bases, smem: &Smem, low: u32) -> bool {
    let mut i = 0;
    while i < bases.len() {
        if smem.offset_of(bases.get(i)) & low != 0 {
            return false;
        }
        i += 1;
    }
    true
}

/// Plain vector accesses of the registers at `vpos` (register bit positions).
const fn vector_access(
    side: &Side,
    vpos: &Bases,
    smem: &Smem,
    ebytes: u32,
    store: bool,
) -> Result<SmemAccess<Fixed>, Unfit> {
    let f = side.flat;
    let mut vmask = 0usize;
    let mut i = 0;
    while i < vpos.len() {
        vmask |= 1 << vpos.get(i);
        i += 1;
    }
    let vec = 1u32 << vpos.len();
    let Some(groups) = access_groups(side, vmask, smem) else {
        return Err(Unfit::TooLarge);
    };
    // The address of each register basis: a register's is the XOR of its bits' (the shared
    // layout is linear and holds every element; offset and CTA are apart in an address).
    let (reg_addr, n) = addr_table(f.reg.as_slice(), smem, ebytes);
    let reg_addr = crate::slices::prefix(&reg_addr, n);
    let mut regs = FixedList::new(0);
    let mut reg_offsets = FixedList::new(0);
    let mut g = 0;
    while g < groups.len() {
        let x = groups.get(g) as usize;
        let addr = xor_of(reg_addr, x as u32);
        // The registers outside the vector may set offset bits inside it: the vector then
        // starts lower, its registers permuted by those bits.
        let shift = (addr / ebytes) & (vec - 1);
        reg_offsets.push(addr - shift * ebytes);
        let mut t = 0;
        while t < vec as usize {
            let mut r = x;
            let mut k = 0;
            while k < vpos.len() {
                if ((t ^ shift as usize) >> k) & 1 == 1 {
                    r |= 1 << vpos.get(k);
                }
                k += 1;
            }
            regs.push(r as u16);
            t += 1;
        }
        g += 1;
    }
    let mut block_bases = addrs(&f.block, smem, ebytes);
    let mut i = 0;
    while i < block_bases.len() {
        if (smem.own >> i) & 1 == 1 {
            block_bases.set(i, block_bases.get(i) ^ (1 << (CTA_SHIFT + i as u32)));
        }
        i += 1;
    }
    let mut a = SmemAccess {
        vec,
        regs,
        reg_offsets,
        lane_bases: addrs(&f.lane, smem, ebytes),
        warp_bases: addrs(&f.warp, smem, ebytes),
        block_bases,
        reg_skip: side.reg_free,
        lane_skip: if store { side.lane_free } else { 0 },
        warp_skip: if store { side.warp_free } else { 0 },
        remote: true,
        instr: Instr::Vector,
        padding: NO_PADDING,
    };
    localize(&mut a);
    Ok(a)
}

/// Whether every address of `xs` is in CTA 0's part.
const fn cta_zero(xs: &[u32]) -> bool {
    let mut i = 0;
    while i < xs.len() {
        if xs[i] >> CTA_SHIFT != 0 {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether every address of `a` is in the accessing CTA's own buffer (the CTA part of the address
/// is the CTA's rank): then the CTA bits are dropped and plain `ld/st.shared` do.
const fn localize(a: &mut SmemAccess<Fixed>) {
    let mut local = cta_zero(a.reg_offsets.as_slice())
        && cta_zero(a.lane_bases.as_slice())
        && cta_zero(a.warp_bases.as_slice());
    let mut i = 0;
    while i < a.block_bases.len() {
        if a.block_bases.get(i) >> CTA_SHIFT != 1 << i {
            local = false;
        }
        i += 1;
    }
    a.remote = !local;
    if local {
        let mut any = false;
        let mut i = 0;
        while i < a.block_bases.len() {
            let x = a.block_bases.get(i) & OFFSET_MASK;
            a.block_bases.set(i, x);
            any |= x != 0;
            i += 1;
        }
        if !any {
            a.block_bases.truncate(0);
        }
    }
}

/// A side's accesses: the matrix instruction of `kind` where it fits and takes no more
/// instructions, else the widest vectors of at most `widest` bytes.
pub const fn side_access(
    side: &Side,
    kind: AccessKind,
    store: bool,
    span: &Smem,
    elem_bits: u32,
    widest: u32,
) -> Result<SmemAccess<Fixed>, Unfit> {
    let ebytes = elem_bits / 8;
    let widest = if widest < 16 { widest } else { 16 };
    let per = widest * 8 / elem_bits;
    let max_vec = if per > 1 { per } else { 1 }.trailing_zeros() as usize;
    let vpos = vector_bits(side.flat, span, max_vec, side.reg_free);
    let plain = match vector_access(side, &vpos, span, ebytes, store) {
        Ok(a) => a,
        Err(e) => return Err(e),
    };
    let matrix = match kind {
        AccessKind::Plain => None,
        k => matrix_access(
            side,
            span,
            matches!(k, AccessKind::MatrixTrans),
            ebytes,
            store,
        ),
    };
    // A matrix access where it takes fewer instructions (an `.x1` or `.x2` may not).
    match matrix {
        Some(m) if m.reg_offsets.len() <= plain.reg_offsets.len() => Ok(m),
        _ => Ok(plain),
    }
}
