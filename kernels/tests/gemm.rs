//! The tensor-core GEMM bodies on the simulator (its `mma.sync` is the operands gathered by
//! shuffles and multiplied in f32): several shapes, f16 and bf16, B row- and column-major, random
//! inputs in [-1, 1), against a CPU reference accumulating the same values in f64. Tolerance:
//! one unit in the last place of the output format (the kernel and the reference round the f32
//! sum once each; their sums differ only by f32 rounding).

use kernels::gemm::{gemm_bf16, gemm_f16, gemm_grid, GEMM_SMEM, GEMM_THREADS};
use kernels::gemm_hopper::{
    gemm_hopper_bf16, gemm_hopper_f16, hopper_grid, HOP_BOX_A, HOP_BOX_B, HOP_BOX_BT, HOP_SMEM,
    HOP_SWIZZLE, HOP_THREADS,
};
use kernels::gemm_hopper_ws::{
    gemm_hopper_ws_bf16, gemm_hopper_ws_f16, HOP_WS_SMEM, HOP_WS_THREADS,
};
use kernels::gemm_pipelined::{
    gemm_pipelined_bf16, gemm_pipelined_f16, pipelined_grid, PIPE_SMEM, PIPE_THREADS,
};
use linear_layouts::runtime::mma::MmaInput;
use linear_layouts::sim::{
    launch, launch_profiled, Fence, HostMemory, IssueKind, Launch, SimThread,
};
use linear_layouts::Target;
use linear_layouts::{Bf16, TensorMap, F16};

mod common;
use common::random;

/// A value of format `E` as `f32`, from its bits.
fn value<E: MmaInput>(b: u64) -> f32 {
    E::from_bits(b).to_f32()
}

/// A GEMM kernel on simulator memory: `(t, a, b, c, [m, n, k], b_col_major)`.
type Kernel = dyn Fn(&SimThread, &HostMemory, &HostMemory, &HostMemory, [u32; 3], u32) + Sync;

/// `ulp`: the unit in the last place of `E` at 1.
fn check<E: MmaInput>(
    name: &str,
    ulp: f32,
    kernel: &Kernel,
    launch_of: fn([u32; 3]) -> Launch,
    [m, n, k]: [u32; 3],
    b_col_major: bool,
) {
    let (mu, nu, ku) = (m as usize, n as usize, k as usize);
    let a: Vec<u64> = random(mu * ku, 1)
        .into_iter()
        .map(|x| E::cast(x).to_bits())
        .collect();
    let b: Vec<u64> = random(ku * nu, 2)
        .into_iter()
        .map(|x| E::cast(x).to_bits())
        .collect();
    let b_at = |kk: usize, j: usize| {
        b[if b_col_major {
            j * ku + kk
        } else {
            kk * nu + j
        }]
    };
    let (ga, gb) = (
        HostMemory::new(a.iter().copied()),
        HostMemory::new(b.iter().copied()),
    );
    let c = HostMemory::new((0..mu * nu).map(|_| 0xffff)); // poisoned (a NaN in both formats)
    let shape = launch_of([m, n, k]);
    launch(shape, |t| {
        kernel(t, &ga, &gb, &c, [m, n, k], b_col_major as u32)
    })
    .expect("simulator");
    for i in 0..mu {
        for j in 0..nu {
            let want: f64 = (0..ku)
                .map(|kk| value::<E>(a[i * ku + kk]) as f64 * value::<E>(b_at(kk, j)) as f64)
                .sum();
            let got = value::<E>(c.get(i * nu + j));
            let tol = ulp * (want.abs() as f32).max(1.0);
            assert!(
                (got - want as f32).abs() <= tol,
                "{} {}x{}x{} (B {}): C[{}][{}] = {}, want {}",
                name,
                m,
                n,
                k,
                if b_col_major {
                    "column-major"
                } else {
                    "row-major"
                },
                i,
                j,
                got,
                want
            );
        }
    }
}

/// The first kernel's grid: one CTA per 64x64 tile.
fn simple([m, n, _]: [u32; 3]) -> Launch {
    Launch::dims(gemm_grid(m, n), [GEMM_THREADS, 1, 1], GEMM_SMEM)
}

/// The pipelined kernel's grid: one CTA per 128x128 tile, 1-D.
fn pipelined([m, n, _]: [u32; 3]) -> Launch {
    Launch::dims(pipelined_grid(m, n), [PIPE_THREADS, 1, 1], PIPE_SMEM)
}

#[test]
fn gemm_f16_on_the_simulator() {
    for (shape, bcm) in [
        ([64, 64, 32], false),
        ([128, 64, 96], true),
        ([64, 128, 64], false),
    ] {
        let f16 = |t: &SimThread,
                   a: &HostMemory,
                   b: &HostMemory,
                   c: &HostMemory,
                   [_, n, k]: [u32; 3],
                   bcm| {
            gemm_f16(
                t,
                a.block_rows(k),
                b.block_cols([k, n]),
                c.blocks_mut(n),
                n,
                k,
                bcm,
            )
        };
        check::<F16>("f16", 1.0 / 1024.0, &f16, simple, shape, bcm);
    }
}

#[test]
fn gemm_bf16_on_the_simulator() {
    for (shape, bcm) in [([64, 64, 64], true), ([128, 128, 32], false)] {
        let bf16 = |t: &SimThread,
                    a: &HostMemory,
                    b: &HostMemory,
                    c: &HostMemory,
                    [_, n, k]: [u32; 3],
                    bcm| {
            gemm_bf16(
                t,
                a.block_rows(k),
                b.block_cols([k, n]),
                c.blocks_mut(n),
                n,
                k,
                bcm,
            )
        };
        check::<Bf16>("bf16", 1.0 / 128.0, &bf16, simple, shape, bcm);
    }
}

/// Fewer K steps than stages, and more (the ring wraps around), both B orders; two tile rows
/// and two tile columns so the grouped ordering is exercised.
#[test]
fn gemm_pipelined_on_the_simulator() {
    let f16 = |t: &SimThread,
               a: &HostMemory,
               b: &HostMemory,
               c: &HostMemory,
               [m, n, k]: [u32; 3],
               bcm| {
        gemm_pipelined_f16(
            t,
            a.blocked([m, k]),
            b.blocked([k, n]),
            c.grouped_mut([m, n]),
            m,
            n,
            k,
            bcm,
        )
    };
    let bf16 = |t: &SimThread,
                a: &HostMemory,
                b: &HostMemory,
                c: &HostMemory,
                [m, n, k]: [u32; 3],
                bcm| {
        gemm_pipelined_bf16(
            t,
            a.blocked([m, k]),
            b.blocked([k, n]),
            c.grouped_mut([m, n]),
            m,
            n,
            k,
            bcm,
        )
    };
    check::<F16>(
        "pipelined f16",
        1.0 / 1024.0,
        &f16,
        pipelined,
        [128, 128, 64],
        false,
    );
    check::<F16>(
        "pipelined f16",
        1.0 / 1024.0,
        &f16,
        pipelined,
        [256, 128, 192],
        true,
    );
    check::<Bf16>(
        "pipelined bf16",
        1.0 / 128.0,
        &bf16,
        pipelined,
        [128, 256, 160],
        false,
    );
}

/// The main loop's shared accesses (async copies into the swizzled stages, `ldmatrix` out of
/// them) are free of bank conflicts; the epilogue's conversion is reported. One CTA, 4 K steps,
/// both B orders.
#[test]
fn the_pipelined_main_loop_has_no_bank_conflicts() {
    for bcm in [0, 1] {
        let (a, b, c) = (
            HostMemory::new((0..128 * 128).map(|_| 0)),
            HostMemory::new((0..128 * 128).map(|_| 0)),
            HostMemory::new((0..128 * 128).map(|_| 0)),
        );
        let profile = launch_profiled(Launch::new(1, PIPE_THREADS, PIPE_SMEM), |t| {
            gemm_pipelined_f16(
                t,
                a.blocked([128, 128]),
                b.blocked([128, 128]),
                c.grouped_mut([128, 128]),
                128,
                128,
                128,
                bcm,
            )
        })
        .expect("simulator");
        let instrs = profile.instructions(&Target::SM_90, 32);
        // Per warp: 4 steps of 8 async copies and 16 ldmatrix, then the epilogue.
        let per_warp = instrs.iter().filter(|i| i.warp == 0).count();
        let main: Vec<_> = instrs
            .iter()
            .filter(|i| (i.store && i.seq <= 32) || (!i.store && i.seq <= 64))
            .collect();
        let conflicts: u32 = main.iter().map(|i| i.conflicts()).sum();
        let epilogue: u32 = instrs.iter().map(|i| i.conflicts()).sum::<u32>() - conflicts;
        println!("B column-major {}: {} shared instructions per warp; main loop conflicts {}, epilogue {}", bcm, per_warp, conflicts, epilogue);
        assert_eq!(main.len(), 4 * (32 + 64));
        assert_eq!(conflicts, 0);
    }
}

/// The Hopper kernel's launch: a persistent grid of at most `SMS` CTAs of two warpgroups.
fn hopper([m, n, _]: [u32; 3]) -> Launch {
    Launch::dims(hopper_grid(m, n, SMS), [HOP_THREADS, 1, 1], HOP_SMEM)
}
/// Multiprocessors of the simulated persistent grid: fewer than the tiles of the larger shapes,
/// so CTAs walk several tiles and the mbarrier phases run on across them.
const SMS: u32 = 2;

/// A TMA map of an `E` tensor in simulator memory with the kernel's box for it.
fn map<E>(mem: &HostMemory, shape: [u32; 2], box_shape: [u32; 2]) -> TensorMap<'_, E> {
    TensorMap::host(mem, shape, box_shape, HOP_SWIZZLE)
}

/// A Hopper GEMM entry: `(t, a, b, c, m, n, k, b_col_major)`.
type HopperKernel<E> = fn(&SimThread, TensorMap<E>, TensorMap<E>, &HostMemory, u32, u32, u32, u32);

/// The warp-specialised kernel's launch: as [`hopper`], with the producer warpgroup.
fn hopper_ws([m, n, _]: [u32; 3]) -> Launch {
    Launch::dims(hopper_grid(m, n, SMS), [HOP_WS_THREADS, 1, 1], HOP_WS_SMEM)
}

/// A Hopper GEMM (`f16` and `bf16` entries, `launch_of` its launch) on the shapes of
/// [`gemm_hopper_on_the_simulator`].
fn check_hopper(
    name: &str,
    f16: HopperKernel<F16>,
    bf16: HopperKernel<Bf16>,
    launch_of: fn([u32; 3]) -> Launch,
) {
    fn run<E: MmaInput + 'static>(
        t: &SimThread,
        [a, b, c]: [&HostMemory; 3],
        [m, n, k]: [u32; 3],
        bcm: u32,
        f: HopperKernel<E>,
    ) {
        let mb = if bcm != 0 {
            map(b, [n, k], HOP_BOX_BT)
        } else {
            map(b, [k, n], HOP_BOX_B)
        };
        f(t, map(a, [m, k], HOP_BOX_A), mb, c, m, n, k, bcm)
    }
    let h = move |t: &SimThread, a: &HostMemory, b: &HostMemory, c: &HostMemory, s, bcm| {
        run::<F16>(t, [a, b, c], s, bcm, f16)
    };
    let bh = move |t: &SimThread, a: &HostMemory, b: &HostMemory, c: &HostMemory, s, bcm| {
        run::<Bf16>(t, [a, b, c], s, bcm, bf16)
    };
    let (n16, nbf) = (format!("{} f16", name), format!("{} bf16", name));
    check::<F16>(&n16, 1.0 / 1024.0, &h, launch_of, [128, 256, 64], false);
    check::<F16>(&n16, 1.0 / 1024.0, &h, launch_of, [128, 256, 256], true);
    check::<Bf16>(&nbf, 1.0 / 128.0, &bh, launch_of, [256, 512, 128], false);
}

/// TMA into `nvmma_shared` stages, wgmma from them: K shorter than the ring, the ring wrapping,
/// persistent CTAs over 4 tiles, both B orders (a column-major B's map is of Bᵀ), f16 and bf16.
#[test]
fn gemm_hopper_on_the_simulator() {
    check_hopper(
        "hopper",
        |t, a, b, c, m, n, k, bcm| gemm_hopper_f16(t, a, b, c.grouped_mut([m, n]), m, n, k, bcm),
        |t, a, b, c, m, n, k, bcm| gemm_hopper_bf16(t, a, b, c.grouped_mut([m, n]), m, n, k, bcm),
        hopper,
    );
}

/// The warp-specialised kernel on the same shapes: its producer runs ahead across tiles, so
/// the simulator checks each refill against the consumers' wgmma reads through the empty
/// barriers alone.
#[test]
fn gemm_hopper_ws_on_the_simulator() {
    check_hopper(
        "hopper ws",
        |t, a, b, c, m, n, k, bcm| gemm_hopper_ws_f16(t, a, b, c.grouped_mut([m, n]), m, n, k, bcm),
        |t, a, b, c, m, n, k, bcm| {
            gemm_hopper_ws_bf16(t, a, b, c.grouped_mut([m, n]), m, n, k, bcm)
        },
        hopper_ws,
    );
}

/// `f` on `[m, n, k]` (f16, B row-major) with every fence of kind `fence` ignored: the
/// simulator must report the missing fence.
fn mutant(f: HopperKernel<F16>, launch_of: fn([u32; 3]) -> Launch, mnk: [u32; 3], fence: Fence) {
    let [m, n, k] = mnk;
    let (mu, nu, ku) = (m as usize, n as usize, k as usize);
    let a = HostMemory::new((0..mu * ku).map(|i| (i % 7) as u64));
    let b = HostMemory::new((0..ku * nu).map(|i| (i % 5) as u64));
    let c = HostMemory::new((0..mu * nu).map(|_| 0));
    let r = launch(launch_of(mnk).skipping(fence), |t| {
        f(
            t,
            map(&a, [m, k], HOP_BOX_A),
            map(&b, [k, n], HOP_BOX_B),
            &c,
            m,
            n,
            k,
            0,
        )
    });
    let e = r.expect_err("a missing fence must be reported");
    assert!(e.has(IssueKind::MissingFence), "{:?}: {}", fence, e);
}

/// Each fence of the single-role Hopper GEMM, removed, is reported: `fence_proxy_async` after
/// the epilogue (whose ordinary stores the next tile's TMA overwrites: two tiles per CTA),
/// `fence_mbarrier_init`, and the `wgmma_fence` of `Wgmma::run`.
#[test]
fn gemm_hopper_without_each_fence_is_reported() {
    let f: HopperKernel<F16> =
        |t, a, b, c, m, n, k, bcm| gemm_hopper_f16(t, a, b, c.grouped_mut([m, n]), m, n, k, bcm);
    mutant(f, hopper, [256, 512, 128], Fence::ProxyAsync);
    mutant(f, hopper, [128, 256, 64], Fence::MbarrierInit);
    mutant(f, hopper, [128, 256, 64], Fence::Wgmma);
}

/// The warp-specialised kernel's fences, removed, are reported. (It has no `fence_proxy_async`:
/// its epilogue has a buffer of its own that the async proxy never touches.)
#[test]
fn gemm_hopper_ws_without_each_fence_is_reported() {
    let f: HopperKernel<F16> =
        |t, a, b, c, m, n, k, bcm| gemm_hopper_ws_f16(t, a, b, c.grouped_mut([m, n]), m, n, k, bcm);
    mutant(f, hopper_ws, [128, 256, 64], Fence::MbarrierInit);
    mutant(f, hopper_ws, [128, 256, 64], Fence::Wgmma);
}

/// The descriptors `Wgmma` derives from the layouts are the ones Triton 3.9 computes for the
/// same `nvmma_shared` tiles (its PTX for the tutorial matmul at 128x256x64, 8 warps, sm_90a:
/// `scripts/gemm_sass.py`): B row-major N-major with a leading byte offset of 8192 (the next 64
/// columns) and a stride of 1024 (8 rows of K), 2048 bytes further per K step of 16; A K-major,
/// stride 1024, 32 bytes per K step, the second warpgroup 8192 bytes on; 128-byte swizzle.
/// (Triton leaves A's leading offset 0, we 16 bytes as CuTe does: a K-major swizzled operand
/// does not read it.)
#[test]
fn wgmma_descriptors_are_tritons() {
    use kernels::gemm_hopper::{HopAcc, HopSharedA, HopSharedB};
    use linear_layouts::Wgmma;
    let p = Wgmma::<HopSharedA, HopSharedB, HopAcc, F16>::PLAN;
    assert_eq!((p.len, p.regs, p.mn_major), (4, 128, [false, true]));
    for (i, s) in p.steps[..p.len].iter().enumerate() {
        let i = i as u64;
        assert_eq!(s.b, 0x4000_0040_0200_0000 + 128 * i, "B, step {}", i);
        assert_eq!(
            s.a & !(0x3fff << 16),
            0x4000_0040_0000_0000 + 2 * i,
            "A, step {}",
            i
        );
        assert_eq!(s.acc, 0);
    }
    assert_eq!(p.group_offsets[1], [8192, 0]);
}
