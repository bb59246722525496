//! Every kernel in the PTX, described for the hosts that launch them (`gpu-bench`, and
//! `scripts/gpu_bench.py` through `gpu-bench --list`): the entry symbol, the launch shape (grid,
//! block, cluster), the dynamic shared memory, the element type, how a problem of `n x n`
//! elements maps onto buffers and the `u32` argument, and a CPU reference.
//!
//! Nothing here is written twice: block sizes and cluster sizes are the lanes, warps and CTAs of
//! the kernels' own layouts, tile sizes their shapes, shared memory the consts the kernels are
//! documented with (the plans' `cost.shared_bytes`). It lives with the hosts, not in the kernel
//! crate, so the PTX never depends on it. `runner/tests/sim.rs` runs every entry that has a
//! body on the simulator with exactly this launch shape and checks it against the reference.
//! The reference of `index_kernel` is the hand-written index maps (`*_hand`), not the `layout!`
//! functions the kernel runs, so a wrong layout shows.

use kernels::index_math::{
    acc_hand, accv3_hand, big_hand, col_hand, cute_hand, nvmma128_hand, nvmma64_hand, opa_hand,
    opb_hand, smem_hand, tile_hand,
};
use kernels::{cluster, conversions, index_math, transpose};
use linear_layouts::runtime::kernel::{Arg, ArgsCheck};
use linear_layouts::{KernelSpec, Layout};

/// Element type of a kernel's buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    /// 8-bit values (fp8 bit patterns).
    U8,
    /// 16-bit values (fp16 bit patterns).
    U16,
    /// `f32`.
    F32,
    /// 32-bit words.
    U32,
    /// 64-bit words.
    U64,
}

impl Elem {
    /// Bytes per element.
    pub const fn bytes(self) -> usize {
        match self {
            Elem::U8 => 1,
            Elem::U16 => 2,
            Elem::F32 | Elem::U32 => 4,
            Elem::U64 => 8,
        }
    }

    /// The Rust name of the type.
    pub const fn name(self) -> &'static str {
        match self {
            Elem::U8 => "u8",
            Elem::U16 => "u16",
            Elem::F32 => "f32",
            Elem::U32 => "u32",
            Elem::U64 => "u64",
        }
    }
}

/// How a kernel covers a problem of `n x n` elements: its grid, its buffers and its `u32`
/// argument. Kernels with an input take `(const T* in, T* out, u32 arg)`; the others `(T* out)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// An `n x n` row-major matrix, one `tile x tile` tile per CTA: grid `(n / tile, n / tile)`,
    /// argument `n`.
    MatrixTiles {
        /// Tile side.
        tile: u32,
    },
    /// `n * n` elements as consecutive tiles of `tile` elements, walked grid-stride by clusters:
    /// grid `tiles * cluster CTAs` (one tile per cluster), argument `tiles`.
    Tiles {
        /// Elements per tile.
        tile: u32,
    },
    /// `n * n` elements as 16-byte vectors, grid-stride over a fixed grid of `ctas` CTAs:
    /// argument the number of vectors.
    Vectors16 {
        /// CTAs in the grid.
        ctas: u32,
    },
    /// No input and no argument: each thread of `ctas` CTAs writes `per_thread` elements.
    PerThread {
        /// CTAs in the grid.
        ctas: u32,
        /// Elements each thread writes.
        per_thread: u32,
    },
}

/// What a kernel's output must be, computed on the CPU by [`Reference::expected`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reference {
    /// `out[j][i] = in[i][j]` over the whole `n x n` row-major matrix.
    Transpose,
    /// Each consecutive `side x side` row-major tile transposed in its place.
    TileTranspose {
        /// Tile side.
        side: u32,
    },
    /// `out = in`.
    Identity,
    /// `index_kernel`: thread `t` (global index; lane and warp from its index in the CTA)
    /// writes, for each of [`INDEX_BY_REGISTER`], the packed coordinates of register `t % 8`,
    /// then for each of [`INDEX_BY_OFFSET`] those of offset `t`.
    IndexMath,
}

/// One kernel of the PTX.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// The PTX entry symbol (`#[no_mangle]`).
    pub name: &'static str,
    /// What it does, as reports name it.
    pub label: &'static str,
    /// Element type of its buffers.
    pub elem: Elem,
    /// Grid, buffers and argument for a problem of `n x n` elements.
    pub work: Work,
    /// Threads per CTA.
    pub block: [u32; 3],
    /// CTAs per cluster (`[1, 1, 1]`: launched without clusters).
    pub cluster: [u32; 3],
    /// Dynamic shared memory per CTA, in bytes.
    pub shared_bytes: u32,
    /// Lanes per warp its layouts were written for (0: any, for kernels that use no lanes).
    pub warp_size: u32,
    /// Its expected output.
    pub reference: Reference,
    /// The kernel's launch check (its `#[kernel(extent(..))]`), which every launch passes.
    pub check: ArgsCheck,
}

impl Kernel {
    /// The kernel `#[kernel]` describes with `spec`: its entry, block, cluster and shared
    /// memory come from there (the kernel crate's consts), the rest from the table.
    const fn of<P>(
        spec: KernelSpec<P>,
        label: &'static str,
        elem: Elem,
        work: Work,
        reference: Reference,
    ) -> Kernel {
        Kernel {
            name: spec.name(),
            label,
            elem,
            work,
            block: spec.block(),
            cluster: spec.cluster(),
            shared_bytes: spec.shared_bytes(),
            warp_size: spec.warp_size(),
            reference,
            check: spec.args_check(),
        }
    }

    /// The kernel's launch check for `n x n` elements: its buffers (the input if it takes one,
    /// the output) and its argument, in parameter order, against its extents and grid.
    pub fn check_launch(&self, n: u32) -> Result<(), String> {
        let mut args = Vec::new();
        if self.input_elems(n) > 0 {
            args.push(Arg::Buffer {
                len: self.input_elems(n) as u64,
            });
        }
        args.push(Arg::Buffer {
            len: self.output_elems(n) as u64,
        });
        args.extend(self.arg(n).map(|a| Arg::Int(a as i128)));
        self.check
            .check_args(&args, self.grid(n))
            .map_err(|e| e.to_string())
    }
}

/// Side of a square 2-D layout.
const fn side<L: Layout>() -> u32 {
    assert!(L::RANK == 2 && L::SHAPE[0] == L::SHAPE[1]);
    L::SHAPE[0]
}

/// Elements of a 2-D layout's tensor.
const fn elems<L: Layout>() -> u32 {
    assert!(L::RANK == 2);
    L::SHAPE[0] * L::SHAPE[1]
}

/// The index maps `index_kernel` applies to register `t % 8`, in the order it writes them,
/// written by hand (the kernel runs the `layout!` ones).
pub const INDEX_BY_REGISTER: [extern "C" fn(u32, u32, u32) -> u64; 7] = [
    tile_hand, acc_hand, opa_hand, opb_hand, accv3_hand, col_hand, big_hand,
];

/// The shared-layout index maps `index_kernel` applies to offset `t`, after those above.
pub const INDEX_BY_OFFSET: [extern "C" fn(u32, u32, u32) -> u64; 4] =
    [smem_hand, nvmma128_hand, nvmma64_hand, cute_hand];

/// Every kernel in `target/ptx/kernels.ptx`.
pub const KERNELS: &[Kernel] = &[
    Kernel::of(
        transpose::TRANSPOSE_F32,
        "transpose f32 (64x64, 4 warps)",
        Elem::F32,
        Work::MatrixTiles {
            tile: side::<transpose::TileIn>(),
        },
        Reference::Transpose,
    ),
    Kernel::of(
        transpose::TRANSPOSE_U16,
        "transpose 16-bit (64x64, 4 warps)",
        Elem::U16,
        Work::MatrixTiles {
            tile: side::<transpose::TileIn16>(),
        },
        Reference::Transpose,
    ),
    Kernel::of(
        transpose::TRANSPOSE_F32_GENERIC,
        "transpose f32 (64x64, 4 warps), generic tile function",
        Elem::F32,
        Work::MatrixTiles {
            tile: side::<transpose::TileIn>(),
        },
        Reference::Transpose,
    ),
    Kernel::of(
        transpose::TRANSPOSE_U16_GENERIC,
        "transpose 16-bit (64x64, 4 warps), generic tile function",
        Elem::U16,
        Work::MatrixTiles {
            tile: side::<transpose::TileIn16>(),
        },
        Reference::Transpose,
    ),
    Kernel::of(
        transpose::TRANSPOSE_U16_128,
        "transpose 16-bit (128x128, 8 warps)",
        Elem::U16,
        Work::MatrixTiles {
            tile: side::<transpose::BigIn16>(),
        },
        Reference::Transpose,
    ),
    Kernel::of(
        conversions::NVMMA_ROUNDTRIP,
        "round trip through nvmma_shared 128B, 16-bit",
        Elem::U16,
        Work::Tiles {
            tile: elems::<conversions::Rows16>(),
        },
        Reference::Identity,
    ),
    Kernel::of(
        conversions::MMA_ACC_TO_OPERAND,
        "mma accumulator -> dot operand A, 16-bit",
        Elem::U16,
        Work::Tiles {
            tile: elems::<conversions::Acc>(),
        },
        Reference::Identity,
    ),
    Kernel::of(
        conversions::MMA_ACC_REGPERM,
        "mma accumulator register permutation, f32",
        Elem::F32,
        Work::Tiles {
            tile: elems::<conversions::Acc>(),
        },
        Reference::Identity,
    ),
    Kernel::of(
        conversions::MMA_ACC_TO_ROWS,
        "mma accumulator (2x2 warps) -> rows through stmatrix, f32",
        Elem::F32,
        Work::Tiles {
            tile: elems::<kernels::gemm::GemmAcc>(),
        },
        Reference::Identity,
    ),
    Kernel::of(
        conversions::MMA_ACC_TO_ROWS_GENERIC,
        "mma accumulator -> rows, f32, generic tile function",
        Elem::F32,
        Work::Tiles {
            tile: elems::<kernels::gemm::GemmAcc>(),
        },
        Reference::Identity,
    ),
    Kernel::of(
        conversions::FP16_TO_FP8_OPERAND,
        "fp16 -> fp8 operand conversion, 8-bit",
        Elem::U8,
        Work::Tiles {
            tile: elems::<conversions::OpA16>(),
        },
        Reference::Identity,
    ),
    Kernel::of(
        cluster::CLUSTER_TRANSPOSE,
        "transpose f32 tiles across a 2-CTA cluster",
        Elem::F32,
        Work::Tiles {
            tile: elems::<cluster::ClusterRows>(),
        },
        Reference::TileTranspose {
            side: side::<cluster::ClusterRows>(),
        },
    ),
    // 8 CTAs per SM of a 132-SM H100: the grid the copy was tuned with.
    Kernel::of(
        transpose::COPY_V4,
        "copy_v4 (grid-stride, 16-byte vectors)",
        Elem::U32,
        Work::Vectors16 { ctas: 132 * 8 },
        Reference::Identity,
    ),
    // The eleven layouts are for 4 warps.
    Kernel::of(
        index_math::INDEX_KERNEL,
        "index math of eleven layouts (index_kernel)",
        Elem::U64,
        Work::PerThread {
            ctas: 4,
            per_thread: (INDEX_BY_REGISTER.len() + INDEX_BY_OFFSET.len()) as u32,
        },
        Reference::IndexMath,
    ),
];

/// The SPIR-V kernels (`kernels-spirv`, built by `cargo xtask spirv`): the subgroup kernels for
/// each warp size and the copy they are measured against. Their entry points in the module are
/// named by path (`w8::transpose_f32_w8`); `name` is the last part.
pub const SPIRV_KERNELS: [Kernel; 13] = {
    use kernels::subgroup::{w16, w32, w64, w8};
    macro_rules! warp {
        ($m:ident, $tf:ident, $th:ident, $sh:ident) => {
            [
                Kernel::of(
                    $m::$tf,
                    "transpose f32, 64x64 tiles",
                    Elem::F32,
                    Work::MatrixTiles { tile: 64 },
                    Reference::Transpose,
                ),
                Kernel::of(
                    $m::$th,
                    "transpose 16-bit, 64x64 tiles",
                    Elem::U16,
                    Work::MatrixTiles { tile: 64 },
                    Reference::Transpose,
                ),
                Kernel::of(
                    $m::$sh,
                    "warp-shuffle conversion, f32",
                    Elem::F32,
                    Work::Tiles {
                        tile: elems::<$m::ShuffleIn>(),
                    },
                    Reference::Identity,
                ),
            ]
        };
    }
    let w = [
        warp!(w8, TRANSPOSE_F32_W8, TRANSPOSE_U16_W8, SHUFFLE_F32_W8),
        warp!(w16, TRANSPOSE_F32_W16, TRANSPOSE_U16_W16, SHUFFLE_F32_W16),
        warp!(w32, TRANSPOSE_F32_W32, TRANSPOSE_U16_W32, SHUFFLE_F32_W32),
        warp!(w64, TRANSPOSE_F32_W64, TRANSPOSE_U16_W64, SHUFFLE_F32_W64),
    ];
    // The copy has the same body as `copy_v4` in 64-thread workgroups (`kernels-spirv`).
    let copy = Kernel {
        block: [64, 1, 1],
        warp_size: 0,
        ..Kernel::of(
            transpose::COPY_V4,
            "copy (grid-stride, 16-byte vectors)",
            Elem::U32,
            Work::Vectors16 { ctas: 1024 },
            Reference::Identity,
        )
    };
    [
        copy, w[0][0], w[0][1], w[0][2], w[1][0], w[1][1], w[1][2], w[2][0], w[2][1], w[2][2],
        w[3][0], w[3][1], w[3][2],
    ]
};

/// The kernel whose entry symbol is `name`.
pub fn kernel(name: &str) -> Option<&'static Kernel> {
    KERNELS.iter().find(|k| k.name == name)
}

/// The largest `n`: the kernels index the `n * n` elements with `u32`.
pub const MAX_N: u32 = 1 << 16;

/// `n * n`, without overflow.
const fn sq(n: u32) -> u64 {
    n as u64 * n as u64
}

/// Greatest common divisor.
const fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The smallest `m > 0` with `m * m * scale` a multiple of `unit`.
const fn smallest_side(unit: u32, scale: u32) -> u32 {
    let mut m = 1u64;
    while !(m * m * scale as u64).is_multiple_of(unit as u64) {
        m += 1;
    }
    m as u32
}

/// `n` must be a multiple of this for every kernel of the table to cover `n x n` elements.
pub const fn n_multiple() -> u32 {
    let mut m = 1;
    let mut i = 0;
    while i < KERNELS.len() {
        let k = KERNELS[i].n_multiple();
        m = m / gcd(m, k) * k;
        i += 1;
    }
    m
}

impl Kernel {
    /// Threads per CTA.
    pub const fn threads(&self) -> u32 {
        self.block[0] * self.block[1] * self.block[2]
    }

    /// CTAs per cluster.
    pub const fn cluster_ctas(&self) -> u32 {
        self.cluster[0] * self.cluster[1] * self.cluster[2]
    }

    /// `n` must be a multiple of this.
    pub const fn n_multiple(&self) -> u32 {
        match self.work {
            Work::MatrixTiles { tile } => tile,
            Work::Tiles { tile } => smallest_side(tile, 1),
            Work::Vectors16 { .. } => smallest_side(16, self.elem.bytes() as u32),
            Work::PerThread { .. } => 1,
        }
    }

    /// The grid for `n x n` elements.
    pub const fn grid(&self, n: u32) -> [u32; 3] {
        match self.work {
            Work::MatrixTiles { tile } => [n / tile, n / tile, 1],
            Work::Tiles { tile } => [(sq(n) / tile as u64) as u32 * self.cluster_ctas(), 1, 1],
            Work::Vectors16 { ctas } | Work::PerThread { ctas, .. } => [ctas, 1, 1],
        }
    }

    /// The kernel's `u32` argument for `n x n` elements, if it takes one.
    pub const fn arg(&self, n: u32) -> Option<u32> {
        match self.work {
            Work::MatrixTiles { .. } => Some(n),
            Work::Tiles { tile } => Some((sq(n) / tile as u64) as u32),
            Work::Vectors16 { .. } => Some((sq(n) * self.elem.bytes() as u64 / 16) as u32),
            Work::PerThread { .. } => None,
        }
    }

    /// Elements of the input buffer (0: the kernel takes none).
    pub const fn input_elems(&self, n: u32) -> usize {
        match self.work {
            Work::PerThread { .. } => 0,
            _ => sq(n) as usize,
        }
    }

    /// Elements of the output buffer.
    pub const fn output_elems(&self, n: u32) -> usize {
        match self.work {
            Work::PerThread { ctas, per_thread } => {
                ctas as usize * self.threads() as usize * per_thread as usize
            }
            _ => sq(n) as usize,
        }
    }

    /// Bytes read and written by one launch.
    pub const fn bytes_moved(&self, n: u32) -> usize {
        (self.input_elems(n) + self.output_elems(n)) * self.elem.bytes()
    }
}

impl Reference {
    /// The name `gpu-bench --list` gives it.
    pub const fn name(self) -> &'static str {
        match self {
            Reference::Transpose => "transpose",
            Reference::TileTranspose { .. } => "tile_transpose",
            Reference::Identity => "identity",
            Reference::IndexMath => "index_math",
        }
    }

    /// Writes to `out` what kernel `k` must write for `n x n` elements given `input`; both are
    /// the buffers' bytes (little-endian elements of `k.elem`), `k.input_elems(n)` and
    /// `k.output_elems(n)` of them.
    pub fn expected(self, k: &Kernel, n: u32, input: &[u8], out: &mut [u8]) {
        let e = k.elem.bytes();
        assert_eq!(input.len(), k.input_elems(n) * e, "{}: input size", k.name);
        assert_eq!(out.len(), k.output_elems(n) * e, "{}: output size", k.name);
        match self {
            Reference::Transpose => transpose_tiles(n as usize, e, input, out),
            Reference::TileTranspose { side } => transpose_tiles(side as usize, e, input, out),
            Reference::Identity => out.copy_from_slice(input),
            Reference::IndexMath => index_math_expected(k, out),
        }
    }
}

/// Each consecutive `side x side` tile of `e`-byte elements transposed.
fn transpose_tiles(side: usize, e: usize, input: &[u8], out: &mut [u8]) {
    let tile = side * side * e;
    for (i, o) in input.chunks(tile).zip(out.chunks_mut(tile)) {
        match e {
            1 => transpose_square::<1>(side, i, o),
            2 => transpose_square::<2>(side, i, o),
            4 => transpose_square::<4>(side, i, o),
            8 => transpose_square::<8>(side, i, o),
            _ => unreachable!("no {}-byte elements", e),
        }
    }
}

/// `out[j][i] = input[i][j]`, `side x side` elements of `E` bytes, in 32x32 blocks.
fn transpose_square<const E: usize>(side: usize, input: &[u8], out: &mut [u8]) {
    const B: usize = 32;
    for i0 in (0..side).step_by(B) {
        for j0 in (0..side).step_by(B) {
            for i in i0..(i0 + B).min(side) {
                for j in j0..(j0 + B).min(side) {
                    let (s, d) = ((i * side + j) * E, (j * side + i) * E);
                    out[d..d + E].copy_from_slice(&input[s..s + E]);
                }
            }
        }
    }
}

/// What `index_kernel` writes: `per_thread` little-endian `u64` per thread.
fn index_math_expected(k: &Kernel, out: &mut [u8]) {
    let threads = k.threads();
    let per_thread = INDEX_BY_REGISTER.len() + INDEX_BY_OFFSET.len();
    for (t, o) in out.chunks_mut(per_thread * 8).enumerate() {
        let t = t as u32;
        let (tid, r) = (t % threads, t & 7);
        let (lane, warp) = (tid & 31, tid >> 5);
        let by_reg = INDEX_BY_REGISTER.iter().map(|f| f(r, lane, warp));
        let by_offset = INDEX_BY_OFFSET.iter().map(|f| f(t, 0, 0));
        for (v, o) in by_reg.chain(by_offset).zip(o.chunks_mut(8)) {
            o.copy_from_slice(&v.to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table's launches pass the kernels' own checks at the sizes the runners use, so a GPU
    /// run is not refused; a smaller output is refused, naming the parameter.
    #[test]
    fn the_tables_launches_pass_the_kernels_checks() {
        for k in KERNELS.iter().chain(SPIRV_KERNELS.iter()) {
            for n in [256, 1024, 16384] {
                if n % k.n_multiple() == 0 {
                    assert_eq!(k.check_launch(n), Ok(()), "{} at {}", k.name, n);
                }
            }
        }
        let t = &KERNELS[0];
        let mut args = vec![Arg::Buffer { len: 1 << 20 }, Arg::Buffer { len: 1 << 19 }];
        args.push(Arg::Int(1024));
        let e = t.check.check_args(&args, t.grid(1024)).unwrap_err();
        assert_eq!(e.error.param, "out", "{}", e);
    }

    #[test]
    fn names_are_distinct() {
        for (i, a) in KERNELS.iter().enumerate() {
            for b in &KERNELS[i + 1..] {
                assert_ne!(a.name, b.name);
            }
        }
    }

    #[test]
    fn shared_bytes_are_the_kernels_consts() {
        let smem = |name| kernel(name).unwrap().shared_bytes;
        assert_eq!(smem("transpose_f32"), transpose::TRANSPOSE_SMEM);
        assert_eq!(smem("transpose_u16"), transpose::TRANSPOSE16_SMEM);
        assert_eq!(smem("transpose_u16_128"), transpose::TRANSPOSE16_BIG_SMEM);
        // The generic twins plan the same conversions from the types.
        assert_eq!(smem("transpose_f32_generic"), transpose::TRANSPOSE_SMEM);
        assert_eq!(smem("transpose_u16_generic"), transpose::TRANSPOSE16_SMEM);
        assert_eq!(smem("nvmma_roundtrip"), conversions::NVMMA_SMEM);
        assert_eq!(smem("mma_acc_to_rows"), conversions::ACC_TO_ROWS_SMEM);
        assert_eq!(
            smem("mma_acc_to_rows_generic"),
            conversions::ACC_TO_ROWS_SMEM
        );
        assert_eq!(smem("cluster_transpose"), cluster::CLUSTER_SMEM);
        // These kernels give their conversion no shared memory (a null pointer): the plans
        // must not need any.
        for name in [
            "mma_acc_to_operand",
            "mma_acc_regperm",
            "fp16_to_fp8_operand",
            "copy_v4",
            "index_kernel",
        ] {
            assert_eq!(smem(name), 0, "{}", name);
        }
        for k in KERNELS {
            assert!(
                k.shared_bytes <= 227 * 1024,
                "{}: over sm_90's shared memory",
                k.name
            );
        }
    }

    #[test]
    fn launch_shapes_follow_the_layouts() {
        let k = kernel("transpose_u16_128").unwrap();
        assert_eq!(
            (k.block, k.grid(256), k.arg(256)),
            ([256, 1, 1], [2, 2, 1], Some(256))
        );
        let k = kernel("cluster_transpose").unwrap();
        assert_eq!((k.block, k.cluster), ([128, 1, 1], [2, 1, 1]));
        // One tile of 4096 elements per cluster of 2 CTAs.
        assert_eq!((k.grid(128), k.arg(128)), ([8, 1, 1], Some(4)));
        let k = kernel("copy_v4").unwrap();
        assert_eq!(k.arg(128), Some(128 * 128 * 4 / 16));
        let k = kernel("index_kernel").unwrap();
        assert_eq!((k.input_elems(128), k.output_elems(128)), (0, 4 * 128 * 11));
        assert_eq!(n_multiple(), 128);
        for k in KERNELS {
            let n = n_multiple();
            let g = k.grid(n);
            assert!(g.iter().all(|&d| d > 0), "{}", k.name);
            assert_eq!(g[0] % k.cluster[0], 0, "{}: grid of whole clusters", k.name);
            assert_eq!(k.threads() % 32, 0, "{}: whole warps", k.name);
        }
    }

    #[test]
    fn references() {
        let k = kernel("transpose_u16").unwrap();
        let n = 64u32;
        let input: [u8; 64 * 64 * 2] = core::array::from_fn(|b| (b * 7 + b / 128) as u8);
        let mut out = [0u8; 64 * 64 * 2];
        k.reference.expected(k, n, &input, &mut out);
        for i in 0..64 {
            for j in 0..64 {
                let (s, d) = ((i * 64 + j) * 2, (j * 64 + i) * 2);
                assert_eq!(out[d..d + 2], input[s..s + 2], "({}, {})", i, j);
            }
        }
        let k = kernel("index_kernel").unwrap();
        let mut out = [0u8; 4 * 128 * 11 * 8];
        k.reference.expected(k, 128, &[], &mut out);
        // Thread 133 (CTA 1, lane 5, warp 0), register 133 % 8 = 5 of the blocked tile.
        let at = |t: usize, i: usize| {
            u64::from_le_bytes(out[(t * 11 + i) * 8..][..8].try_into().unwrap())
        };
        assert_eq!(at(133, 0), kernels::index_math::tile_macro(5, 5, 0));
        assert_eq!(at(133, 7), kernels::index_math::smem_macro(133, 0, 0));
    }
}
