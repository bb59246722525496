//! What Hopper's copy engine and tensor cores see of a shared layout: Triton's `nvmma_shared`
//! tiles are rows of one swizzle width (`W` bytes: 32, 64 or 128) along the contiguous dim,
//! swizzled in 16-byte chunks by the row index modulo 8, the contiguous dim split into boxes of
//! `W` bytes laid one after another. [`NvmmaTile::of`] recognises that form from a layout's
//! basis table (every offset bit's coordinates must be the model's), so a TMA box sequence
//! ([`crate::tma`]) and wgmma descriptors ([`crate::wgmma`]) follow from the layout type
//! alone; [`NvmmaTile::byte_of`] is the layout's inverse, in closed form.

use crate::hopper::Swizzle;
use crate::layout::InDim;

/// A rank-2 shared layout in the copy engine's box form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NvmmaTile {
    /// The contiguous dim (0 or 1); rows run along the other.
    pub contiguous: usize,
    /// The swizzle (row width `swizzle.bytes()`).
    pub swizzle: Swizzle,
    /// Element size in bytes.
    pub eb: u32,
    /// Elements of one row of a box (`W / eb`).
    pub per_row: u32,
    /// Rows (the extent of the other dim).
    pub rows: u32,
    /// Boxes along the contiguous dim.
    pub boxes: u32,
}

impl NvmmaTile {
    /// The box form of a shared layout with in-dims `dims` and shape `shape`, elements of `eb`
    /// bytes: the widest swizzle whose model reproduces every offset bit's basis, if any.
    pub const fn of(dims: &[InDim], shape: &[u32], eb: u32) -> Option<NvmmaTile> {
        if shape.len() != 2 || dims.is_empty() || !crate::mma::eq(dims[0].name, "offset") {
            return None;
        }
        if dims.len() > 1 && dims[1].size > 1 {
            return None;
        }
        let off = &dims[0];
        if off.size != shape[0] * shape[1] || off.size < 2 {
            return None;
        }
        let contiguous = if off.bases[0] == 0 { 1 } else { 0 };
        let mut w = 128;
        while w >= 32 {
            let tile = NvmmaTile {
                contiguous,
                swizzle: match Swizzle::of_bytes(w) {
                    Some(s) => s,
                    None => Swizzle::None,
                },
                eb,
                per_row: w / eb,
                rows: shape[1 - contiguous],
                boxes: shape[contiguous] / (w / eb),
            };
            if tile.fits(off, shape) {
                return Some(tile);
            }
            w /= 2;
        }
        None
    }

    /// Whether the model gives every offset bit the layout's basis.
    const fn fits(&self, off: &InDim, shape: &[u32]) -> bool {
        let w = self.swizzle.bytes();
        if self.boxes == 0 || self.per_row * self.boxes != shape[self.contiguous] {
            return false;
        }
        if !self.rows.is_multiple_of(8) || self.rows > 256 || !w.is_multiple_of(self.eb) {
            return false;
        }
        let mut bit = 0;
        while (1u32 << bit) < off.size {
            let c = self.coord_of((1u32 << bit) * self.eb);
            let b = off.basis(bit as usize, 2);
            if c[0] != b[0] || c[1] != b[1] {
                return false;
            }
            bit += 1;
        }
        true
    }

    /// Bytes of one box (`rows` rows of `W` bytes).
    pub const fn box_bytes(&self) -> u32 {
        self.rows * self.swizzle.bytes()
    }

    /// Bytes of the whole tile.
    pub const fn bytes(&self) -> u32 {
        self.box_bytes() * self.boxes
    }

    /// The element at byte `b` of the tile (the layout, from bytes).
    pub const fn coord_of(&self, b: u32) -> [u32; 2] {
        let w = self.swizzle.bytes();
        let (j, lin) = (
            b / self.box_bytes(),
            self.swizzle.apply(b % self.box_bytes()),
        );
        let (row, col) = (lin / w, j * self.per_row + (lin % w) / self.eb);
        if self.contiguous == 1 {
            [row, col]
        } else {
            [col, row]
        }
    }

    /// The byte where element `c` lives (the layout's inverse).
    pub const fn byte_of(&self, c: [u32; 2]) -> u32 {
        let (row, col) = (c[1 - self.contiguous], c[self.contiguous]);
        let w = self.swizzle.bytes();
        let (j, k) = (col / self.per_row, col % self.per_row);
        j * self.box_bytes() + self.swizzle.apply(row * w + k * self.eb)
    }
}
