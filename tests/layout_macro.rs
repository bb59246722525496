//! `layout!` end to end: the example, both syntaxes, and the generated tables and index
//! math against layout-core's solution.

use linear_layouts::{layout, HwIndex, Layout};

layout! {
    /// Coalesced tile of 64x16 halves.
    pub Tile = #ttg.blocked<{sizePerThread = [4, 2], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}> : tensor<64x16xf16>;
    pub Acc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]) for [32, 32];
    pub OpA = dot_op(opIdx = 0, parent = Acc, kWidth = 2) for [32, 16];
    pub Row = slice(dim = 0, parent = Tile) for [16];
    pub SnakeTile = blocked(size_per_thread = [4, 2], threads_per_warp = [8, 4], warps_per_cta = [2, 2], order = [1, 0]) for [64, 16];
    pub Smem = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]) for [64, 64];
    pub Nvmma = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}> : tensor<64x64xf16>;
    pub Cute = Swizzle<3, 3, 3> for [64, 64];
    /// CuTe's SW128 atom for halves, as CuTe prints it.
    pub CuteSw128 = Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_64):(_64,_1) : tensor<64x64xf16>;
    /// CuTe's SM80_16x8_Row: mma.sync's accumulator, (thread, value) -> m + 16 n.
    pub CuteMmaC = tv(((_4,_8),(_2,_2)):((_32,_1),(_16,_8))) for [16, 8];
    pub MmaC = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]) for [16, 8];
    /// What tcgen05.ld 32x32b gives 4 warps of a 128x64 f32 accumulator in tensor memory.
    pub TmemAcc = tmem_reg(atom = "32x32b", warps = 4, blockM = 128, blockN = 64, colStride = 1) : tensor<128x64xf32>;
    pub TmemHalf = tmem_reg(atom = "16x256b", warps = 4, blockM = 128, blockN = 64, colStride = 2) : tensor<128x64xf16>;
    pub Lin = linear(register = [[0, 1], [0, 2]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [], block = []) for [32, 4];
    /// A slice of a parent of this block takes the parent's shape without its dim.
    pub TileRows = slice(dim = 1, parent = Tile);
}

fn check<L: Layout>(ll: &linear_layouts::LinearLayout, apply: impl Fn(&[u32]) -> Vec<u32>) {
    let dims: Vec<_> = L::IN_DIMS.iter().map(|d| d.size).collect();
    let total: u32 = dims.iter().product();
    for flat in 0..total {
        let mut rest = flat;
        let idx: Vec<u32> = dims
            .iter()
            .map(|&s| {
                let v = rest % s;
                rest /= s;
                v
            })
            .collect();
        let want = ll.apply_flat(&idx);
        assert_eq!(apply(&idx), want, "{:?}", idx);
        let mut out = vec![0; L::RANK];
        L::apply_index(&idx, &mut out);
        assert_eq!(out, want);
    }
}

#[test]
fn generated_index_math_matches_layout_core() {
    check::<Tile>(&Tile::linear_layout(), |i| {
        Tile::apply(i[0], i[1], i[2], i[3]).to_vec()
    });
    check::<Acc>(&Acc::linear_layout(), |i| {
        Acc::apply(i[0], i[1], i[2], i[3]).to_vec()
    });
    check::<OpA>(&OpA::linear_layout(), |i| {
        OpA::apply(i[0], i[1], i[2], i[3]).to_vec()
    });
    check::<Row>(&Row::linear_layout(), |i| {
        Row::apply(i[0], i[1], i[2], i[3]).to_vec()
    });
    check::<Smem>(&Smem::linear_layout(), |i| Smem::apply(i[0], i[1]).to_vec());
    check::<Nvmma>(&Nvmma::linear_layout(), |i| {
        Nvmma::apply(i[0], i[1]).to_vec()
    });
    check::<Cute>(&Cute::linear_layout(), |i| Cute::apply(i[0], i[1]).to_vec());
    check::<Lin>(&Lin::linear_layout(), |i| {
        Lin::apply(i[0], i[1], i[2], i[3]).to_vec()
    });
}

#[test]
fn tables_and_consts() {
    assert_eq!(Tile::SHAPE, [64, 16]);
    assert_eq!(Tile::RANK, 2);
    assert_eq!(
        (Tile::REGISTERS, Tile::LANES, Tile::WARPS, Tile::BLOCKS),
        (8, 32, 4, 1)
    );
    assert_eq!(*Tile::REGISTER_BASES, [[0, 1], [1, 0], [2, 0]]);
    assert_eq!(Tile::ELEMENTS_PER_THREAD, 8);
    assert_eq!(Tile::CONTIGUITY_PER_THREAD, 2);
    assert_eq!(Tile::ELEMENT, "f16");
    assert_eq!(Tile::linear_layout(), SnakeTile::linear_layout());
    assert_eq!(
        Tile::linear_layout().to_string(),
        SnakeTile::linear_layout().to_string()
    );
    assert!(Tile::linear_layout()
        .to_string()
        .contains(" - register=1 -> (0, 1)"));
    assert_eq!(Acc::ELEMENTS_PER_THREAD, 8);
    assert_eq!((TileRows::SHAPE, Row::SHAPE), ([64], [16]));
    assert_eq!(TileRows::ELEMENTS_PER_THREAD, 4);
    assert_eq!(Smem::OFFSETS, 4096);
    assert_eq!(Nvmma::CONTIGUITY_PER_THREAD, 8);
}

#[test]
fn locate_inverts_apply() {
    for reg in 0..Tile::REGISTERS {
        for lane in 0..32 {
            for warp in 0..4 {
                let c = Tile::apply(reg, lane, warp, 0);
                assert_eq!(
                    Tile::locate(c),
                    HwIndex {
                        register: reg,
                        lane,
                        warp,
                        block: 0
                    }
                );
            }
        }
    }
    for off in 0..4096 {
        let c = Cute::apply(off, 0);
        assert_eq!(Cute::locate(c).offset, off);
    }
}

#[test]
fn const_evaluable() {
    const C: [u32; 2] = Tile::apply(3, 5, 1, 0);
    assert_eq!(C.to_vec(), Tile::linear_layout().apply_flat(&[3, 5, 1, 0]));
}

// Identical `pub` layouts of one name in two modules: their `convert!` callbacks are exported at
// the crate root, and must not collide.
mod twin_a {
    linear_layouts::layout! {
        pub Twin = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [32, 32];
    }
}
mod twin_b {
    linear_layouts::layout! {
        pub Twin = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [32, 32];
    }
}

#[test]
fn identical_layouts_in_two_modules_both_convert() {
    let c = linear_layouts::convert!(twin_a::Twin => twin_b::Twin, f32);
    assert_eq!(c.cost.strategy, linear_layouts::Strategy::Nothing);
}

#[test]
fn cute_layouts_are_the_triton_layouts_they_name() {
    // CuTe's 128-byte swizzle atom is Triton's nvmma_shared 128B; its mma.sync accumulator is
    // Triton's nvidia_mma v2.
    assert_eq!(CuteSw128::linear_layout(), Nvmma::linear_layout());
    assert_eq!(CuteMmaC::linear_layout(), MmaC::linear_layout());
    // SOURCE is CuTe's own spelling, not the tokens' spacing.
    assert_eq!(
        CuteSw128::SOURCE,
        "Sw<3,4,3> o smem_ptr[16b](unset) o (64,64):(64,1)"
    );
    assert_eq!(CuteMmaC::SOURCE, "tv(((4,8),(2,2)):((32,1),(16,8)))");
    check::<CuteMmaC>(&CuteMmaC::linear_layout(), |i| {
        CuteMmaC::apply(i[0], i[1], i[2], i[3]).to_vec()
    });
}

#[test]
fn tcgen05_register_layouts_as_gluon_gives_them() {
    // Gluon's get_tmem_reg_layout for the same descriptors (Triton 3.9).
    assert_eq!(
        TmemAcc::REGISTER_BASES,
        &[[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]]
    );
    assert_eq!(
        TmemAcc::LANE_BASES,
        &[[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]
    );
    assert_eq!(TmemAcc::WARP_BASES, &[[32, 0], [64, 0]]);
    assert_eq!(
        TmemHalf::REGISTER_BASES,
        &[[0, 1], [0, 2], [8, 0], [0, 16], [0, 32], [16, 0]]
    );
    assert_eq!(
        TmemHalf::LANE_BASES,
        &[[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]]
    );
    check::<TmemHalf>(&TmemHalf::linear_layout(), |i| {
        TmemHalf::apply(i[0], i[1], i[2], i[3]).to_vec()
    });
}
