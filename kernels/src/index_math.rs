//! Zero cost, checked in PTX: for each layout, `<name>_macro` calls the `apply` that `layout!`
//! generated and `<name>_hand` is the same map written by hand as shifts, masks, ors and xors.
//! Both pack the coordinates the same way (dim 0 in the high half), so their PTX differs only in
//! the index math; `cargo xtask ptx-check` counts the instructions of each pair and fails if a
//! macro version is longer. The tests below check that each pair computes the same map.

use linear_layouts::layout;

layout! {
    /// Coalesced 64x16 tile.
    pub Tile = #ttg.blocked<{sizePerThread = [4, 2], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}> : tensor<64x16xf16>;
    /// Ampere MMA accumulator.
    pub Acc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]) for [32, 32];
    /// Operand A of Acc.
    pub OpA = dot_op(opIdx = 0, parent = Acc, kWidth = 2) for [32, 16];
    /// Operand B of Acc.
    pub OpB = dot_op(opIdx = 1, parent = Acc, kWidth = 2) for [16, 32];
    /// Hopper wgmma accumulator.
    pub AccV3 = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}> : tensor<64x64xf32>;
    /// A row of Tile.
    pub Col = slice(dim = 1, parent = Tile) for [64];
    /// A 128x128 f32 tile, four registers per row chunk, wrapping.
    pub Big = blocked(size_per_thread = [1, 4], threads_per_warp = [4, 8], warps_per_cta = [4, 1], order = [1, 0]) for [128, 128];
    /// Swizzled shared memory, 8-element vectors, 8 phases.
    pub Smem = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]) for [64, 64];
    /// The TMA / wgmma 128-byte swizzle of halves.
    pub Nvmma128 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}> : tensor<64x64xf16>;
    /// The 64-byte swizzle of f32.
    pub Nvmma64 = nvmma_shared(swizzling_byte_width = 64, transposed = false, element_bit_width = 32) for [32, 32];
    /// CuTe's Swizzle<3, 3, 3> over 64x64.
    pub Cute = Swizzle<3, 3, 3> for [64, 64];
}

#[inline(always)]
fn pack(c: [u32; 2]) -> u64 {
    ((c[0] as u64) << 32) | c[1] as u64
}

/// Declares `<name>_macro` and `<name>_hand`, both `#[no_mangle] extern "C"` so each gets its own
/// PTX function (`no_mangle` is an `unsafe_code` attribute: two such symbols of one name would
/// clash; these names are the PTX check's own).
macro_rules! pair {
    ($mac:ident, $hand:ident, |$r:ident, $l:ident, $w:ident| $call:expr, $hexpr:expr) => {
        #[allow(unsafe_code)]
        #[no_mangle]
        pub extern "C" fn $mac($r: u32, $l: u32, $w: u32) -> u64 {
            let _ = ($l, $w);
            $call
        }
        #[allow(unsafe_code)]
        #[no_mangle]
        pub extern "C" fn $hand($r: u32, $l: u32, $w: u32) -> u64 {
            $hexpr
        }
    };
}

pair!(
    tile_macro,
    tile_hand,
    |r, l, w| pack(Tile::apply(r, l, w, 0)),
    {
        let d0 = ((r >> 1) & 3) | (l & 0x1c) | ((w & 2) << 4);
        let d1 = (r & 1) | ((l & 3) << 1) | ((w & 1) << 3);
        pack([d0, d1])
    }
);
pair!(
    acc_macro,
    acc_hand,
    |r, l, w| pack(Acc::apply(r, l, w, 0)),
    {
        let d0 = ((r & 2) << 2) | ((l >> 2) & 7) | ((w & 2) << 3);
        let d1 = (r & 1) | ((r & 4) << 2) | ((l & 3) << 1) | ((w & 1) << 3);
        pack([d0, d1])
    }
);
pair!(
    opa_macro,
    opa_hand,
    |r, l, w| pack(OpA::apply(r, l, w, 0)),
    {
        let d0 = ((r & 2) << 2) | ((l >> 2) & 7) | ((w & 2) << 3);
        let d1 = (r & 1) | ((r & 4) << 1) | ((l & 3) << 1);
        pack([d0, d1])
    }
);
pair!(
    opb_macro,
    opb_hand,
    |r, l, w| pack(OpB::apply(r, l, w, 0)),
    {
        let d0 = (r & 1) | ((r & 2) << 2) | ((l & 3) << 1);
        let d1 = ((r & 4) << 2) | ((l >> 2) & 7) | ((w & 1) << 3);
        pack([d0, d1])
    }
);
pair!(
    accv3_macro,
    accv3_hand,
    |r, l, w| pack(AccV3::apply(r, l, w, 0)),
    {
        let d0 = ((r & 2) << 2) | ((l >> 2) & 7) | ((w & 3) << 4);
        let d1 = (r & 1) | ((r & 0x1c) << 1) | ((l & 3) << 1);
        pack([d0, d1])
    }
);
pair!(
    col_macro,
    col_hand,
    |r, l, w| Col::apply(r, l, w, 0)[0] as u64,
    ((r & 3) | (l & 0x1c) | ((w & 2) << 4)) as u64
);
pair!(
    big_macro,
    big_hand,
    |r, l, w| pack(Big::apply(r, l, w, 0)),
    {
        let d0 = (r & 0x70) | ((l >> 3) & 3) | ((w & 3) << 2);
        let d1 = (r & 3) | ((r & 0xc) << 3) | ((l & 7) << 2);
        pack([d0, d1])
    }
);
// Shared layouts: `r` is the offset; `l` and `w` are unused.
pair!(smem_macro, smem_hand, |r, l, w| pack(Smem::apply(r, 0)), {
    let _ = (l, w);
    pack([(r >> 6) & 63, (r & 63) ^ ((r >> 3) & 0x38)])
});
pair!(
    nvmma128_macro,
    nvmma128_hand,
    |r, l, w| pack(Nvmma128::apply(r, 0)),
    {
        let _ = (l, w);
        pack([(r >> 6) & 63, (r & 63) ^ ((r >> 3) & 0x38)])
    }
);
pair!(
    nvmma64_macro,
    nvmma64_hand,
    |r, l, w| pack(Nvmma64::apply(r, 0)),
    {
        let _ = (l, w);
        pack([
            (r >> 4) & 31,
            ((r & 15) ^ ((r >> 3) & 0xc)) | ((r >> 5) & 16),
        ])
    }
);
pair!(cute_macro, cute_hand, |r, l, w| pack(Cute::apply(r, 0)), {
    let _ = (l, w);
    pack([(r >> 6) & 63, (r ^ ((r >> 3) & 0x38)) & 63])
});

/// One kernel that uses all eleven layouts: thread `i` of the grid writes its vector of `out`,
/// the coordinates of its register `i % 8` under each (lane and warp its own). It shows the
/// generated functions compose into a real kernel.
#[linear_layouts::kernel(block = 128)]
pub fn index_kernel(t: &impl linear_layouts::Thread, out: linear_layouts::PerThreadMut<u64, 11>) {
    let (lane, warp) = (t.lane(), t.warp());
    let i = t.index_1d();
    let r = i & 7;
    out.store(
        t,
        [
            tile_macro(r, lane, warp),
            acc_macro(r, lane, warp),
            opa_macro(r, lane, warp),
            opb_macro(r, lane, warp),
            accv3_macro(r, lane, warp),
            col_macro(r, lane, warp),
            big_macro(r, lane, warp),
            smem_macro(i, 0, 0),
            nvmma128_macro(i, 0, 0),
            nvmma64_macro(i, 0, 0),
            cute_macro(i, 0, 0),
        ],
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    type F = extern "C" fn(u32, u32, u32) -> u64;
    const PAIRS: &[(&str, F, F, u32)] = &[
        ("tile", tile_macro, tile_hand, 8),
        ("acc", acc_macro, acc_hand, 8),
        ("opa", opa_macro, opa_hand, 8),
        ("opb", opb_macro, opb_hand, 8),
        ("accv3", accv3_macro, accv3_hand, 32),
        ("col", col_macro, col_hand, 4),
        ("big", big_macro, big_hand, 128),
        ("smem", smem_macro, smem_hand, 4096),
        ("nvmma128", nvmma128_macro, nvmma128_hand, 4096),
        ("nvmma64", nvmma64_macro, nvmma64_hand, 1024),
        ("cute", cute_macro, cute_hand, 4096),
    ];

    #[test]
    fn hand_written_versions_are_the_same_maps() {
        for (name, m, h, regs) in PAIRS {
            for r in 0..*regs {
                for l in 0..32 {
                    for w in 0..4 {
                        assert_eq!(m(r, l, w), h(r, l, w), "{} at ({}, {}, {})", name, r, l, w);
                    }
                }
            }
        }
    }
}
