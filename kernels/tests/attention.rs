//! The flash attention forwards (Ampere's and Hopper's, head dimensions 64 and 128) on the
//! simulator against softmax attention in f64, f16 and bf16, with and without the causal mask,
//! sequences a multiple of the
//! query block and not (the last block's rows and keys masked). Tolerance: 2 units in the last place of the format at 1.
//! P is rounded to the input format before `P · V` (as FlashAttention and Triton's tutorial
//! do), which moves each output by at most one unit times max |v| = 1; the output's own
//! rounding adds half a unit; exp2's approximation error (2^-22 relative) is far below both.

use kernels::attention::{
    attention_bf16, attention_d128_bf16, attention_d128_f16, attention_f16, attention_grid,
    ATTN_SMEM, ATTN_SMEM_128, ATTN_THREADS,
};
use kernels::attention_hopper::{
    attention_hopper_bf16, attention_hopper_d128_bf16, attention_hopper_d128_f16,
    attention_hopper_f16, attention_hopper_grid, HATTN_BOX_KV, HATTN_BOX_Q, HATTN_SMEM_128,
    HATTN_SMEM_64, HATTN_SWIZZLE, HATTN_THREADS,
};
use linear_layouts::runtime::mma::MmaInput;
use linear_layouts::sim::{launch, Fence, HostMemory, IssueKind, Launch, SimThread};
use linear_layouts::{Bf16, TensorMap, F16};

mod common;
use common::random;

/// `(t, q, k, v, o, seq, scale_log2, causal)`.
type Kernel = dyn Fn(&SimThread, [&HostMemory; 4], u32, f32, u32) + Sync;

/// Which kernel: its launch for `heads` and `seq`, and its head dimension.
#[derive(Clone, Copy)]
enum Arch {
    Ampere,
    Ampere128,
    Hopper,
    Hopper128,
}

impl Arch {
    fn launch(self, heads: u32, seq: u32) -> Launch {
        let hopper = |smem| {
            Launch::dims(
                attention_hopper_grid(heads, seq),
                [HATTN_THREADS, 1, 1],
                smem,
            )
        };
        let ampere = |smem| Launch::dims(attention_grid(heads, seq), [ATTN_THREADS, 1, 1], smem);
        match self {
            Arch::Ampere => ampere(ATTN_SMEM),
            Arch::Ampere128 => ampere(ATTN_SMEM_128),
            Arch::Hopper => hopper(HATTN_SMEM_64),
            Arch::Hopper128 => hopper(HATTN_SMEM_128),
        }
    }

    fn head_dim(self) -> usize {
        match self {
            Arch::Ampere | Arch::Hopper => 64,
            Arch::Ampere128 | Arch::Hopper128 => 128,
        }
    }
}

/// A Hopper kernel entry as [`check`] calls it: Q, K and V as tensor maps of `[heads · seq, D]`
/// (the simulator's copy engine reads them in host memory).
macro_rules! hopper_entry {
    ($f:path, $d:expr) => {
        |t: &SimThread, [q, k, v, o]: [&HostMemory; 4], seq, sc, causal| {
            let rows = (q.len() / $d) as u32;
            let map = |m, b| TensorMap::host(m, [rows, $d as u32], b, HATTN_SWIZZLE);
            let (qm, km, vm) = (
                map(q, HATTN_BOX_Q),
                map(k, HATTN_BOX_KV),
                map(v, HATTN_BOX_KV),
            );
            $f(
                t,
                qm,
                km,
                vm,
                o.batch_chunks_mut([seq, $d]),
                seq,
                sc,
                causal,
            )
        }
    };
}

/// A kernel entry as [`check`] calls it.
macro_rules! entry {
    ($f:path, $d:expr) => {
        |t: &SimThread, [q, k, v, o]: [&HostMemory; 4], seq, sc, causal| {
            let shape = [seq, $d];
            $f(
                t,
                q.batch(shape),
                k.batch(shape),
                v.batch(shape),
                o.batch_chunks_mut(shape),
                seq,
                sc,
                causal,
            )
        }
    };
}

fn check<E: MmaInput>(
    (name, arch): (&str, Arch),
    ulp: f64,
    kernel: &Kernel,
    heads: u32,
    seq: u32,
    causal: bool,
) {
    let d = arch.head_dim();
    let n = heads as usize * seq as usize * d;
    let input = |seed| -> Vec<u64> {
        random(n, seed)
            .into_iter()
            .map(|x| E::cast(x).to_bits())
            .collect()
    };
    let (q, k, v) = (input(1), input(2), input(3));
    let mem = |x: &[u64]| HostMemory::new(x.iter().copied());
    let (gq, gk, gv) = (mem(&q), mem(&k), mem(&v));
    let go = HostMemory::new((0..n).map(|_| 0xffff)); // poisoned (a NaN in both formats)
    let scale = 1.0 / (d as f64).sqrt();
    let scale_log2 = (std::f64::consts::LOG2_E * scale) as f32;
    launch(arch.launch(heads, seq), |t| {
        kernel(t, [&gq, &gk, &gv, &go], seq, scale_log2, causal as u32)
    })
    .expect("simulator");
    let val = |x: &[u64], i: usize| E::from_bits(x[i]).to_f32() as f64;
    let s = seq as usize;
    for h in 0..heads as usize {
        for i in 0..s {
            let row = (h * s + i) * d;
            let keys = if causal { i + 1 } else { s };
            let logits: Vec<f64> = (0..keys)
                .map(|j| {
                    let col = (h * s + j) * d;
                    (0..d)
                        .map(|c| val(&q, row + c) * val(&k, col + c))
                        .sum::<f64>()
                        * scale
                })
                .collect();
            let mx = logits.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let w: Vec<f64> = logits.iter().map(|x| (x - mx).exp()).collect();
            let sum: f64 = w.iter().sum();
            for c in 0..d {
                let want: f64 = (0..keys)
                    .map(|j| w[j] * val(&v, (h * s + j) * d + c))
                    .sum::<f64>()
                    / sum;
                let got = E::from_bits(go.get(row + c)).to_f32() as f64;
                assert!(
                    (got - want).abs() <= 2.0 * ulp,
                    "{} heads {} seq {} causal {}: O[{}][{}][{}] = {}, want {}",
                    name,
                    heads,
                    seq,
                    causal,
                    h,
                    i,
                    c,
                    got,
                    want
                );
            }
        }
    }
}

#[test]
fn attention_f16_on_the_simulator() {
    let f16 = entry!(attention_f16, 64);
    check::<F16>(("f16", Arch::Ampere), 1.0 / 1024.0, &f16, 2, 128, false);
    check::<F16>(("f16", Arch::Ampere), 1.0 / 1024.0, &f16, 1, 192, true);
    // Sequences that end inside a block: masked query rows and keys.
    check::<F16>(("f16", Arch::Ampere), 1.0 / 1024.0, &f16, 2, 100, false);
    check::<F16>(("f16", Arch::Ampere), 1.0 / 1024.0, &f16, 2, 77, true);
}

#[test]
fn attention_bf16_on_the_simulator() {
    let bf16 = entry!(attention_bf16, 64);
    check::<Bf16>(("bf16", Arch::Ampere), 1.0 / 128.0, &bf16, 1, 128, true);
    check::<Bf16>(("bf16", Arch::Ampere), 1.0 / 128.0, &bf16, 2, 64, false);
    check::<Bf16>(("bf16", Arch::Ampere), 1.0 / 128.0, &bf16, 1, 45, false);
}

#[test]
fn attention_head_dim_128_on_the_simulator() {
    let f16 = entry!(attention_d128_f16, 128);
    let bf16 = entry!(attention_d128_bf16, 128);
    let (a16, abf) = (
        ("d128 f16", Arch::Ampere128),
        ("d128 bf16", Arch::Ampere128),
    );
    check::<F16>(a16, 1.0 / 1024.0, &f16, 2, 128, false);
    check::<F16>(a16, 1.0 / 1024.0, &f16, 1, 77, true);
    check::<Bf16>(abf, 1.0 / 128.0, &bf16, 1, 100, true);
}

#[test]
fn attention_hopper_f16_on_the_simulator() {
    let f16 = hopper_entry!(attention_hopper_f16, 64);
    let hopper = ("hopper f16", Arch::Hopper);
    check::<F16>(hopper, 1.0 / 1024.0, &f16, 2, 128, false);
    check::<F16>(hopper, 1.0 / 1024.0, &f16, 1, 256, true);
    // Sequences that end inside a block: masked query rows and keys (zeros copied).
    check::<F16>(hopper, 1.0 / 1024.0, &f16, 1, 200, false);
    check::<F16>(hopper, 1.0 / 1024.0, &f16, 2, 77, true);
}

#[test]
fn attention_hopper_bf16_on_the_simulator() {
    let bf16 = hopper_entry!(attention_hopper_bf16, 64);
    let hopper = ("hopper bf16", Arch::Hopper);
    check::<Bf16>(hopper, 1.0 / 128.0, &bf16, 1, 192, true);
    check::<Bf16>(hopper, 1.0 / 128.0, &bf16, 1, 45, false);
}

#[test]
fn attention_hopper_head_dim_128_on_the_simulator() {
    let f16 = hopper_entry!(attention_hopper_d128_f16, 128);
    let bf16 = hopper_entry!(attention_hopper_d128_bf16, 128);
    check::<F16>(
        ("hopper d128 f16", Arch::Hopper128),
        1.0 / 1024.0,
        &f16,
        1,
        200,
        true,
    );
    check::<Bf16>(
        ("hopper d128 bf16", Arch::Hopper128),
        1.0 / 128.0,
        &bf16,
        1,
        128,
        false,
    );
}

/// Each fence of the Hopper kernel, removed, is reported: `fence_mbarrier_init` after the
/// mbarriers' initialisation (the copy engine completes on them) and the `wgmma_fence` before
/// each product.
#[test]
fn attention_hopper_without_each_fence_is_reported() {
    let n = 128 * 64;
    let input = |seed| HostMemory::new(random(n, seed).into_iter().map(|x| F16::round(x).0 as u64));
    let (q, k, v) = (input(1), input(2), input(3));
    let o = HostMemory::new((0..n).map(|_| 0));
    for fence in [Fence::MbarrierInit, Fence::Wgmma] {
        let r = launch(Arch::Hopper.launch(1, 128).skipping(fence), |t| {
            let f = hopper_entry!(attention_hopper_f16, 64);
            f(t, [&q, &k, &v, &o], 128, 0.18, 1)
        });
        let e = r.expect_err("a missing fence must be reported");
        assert!(e.has(IssueKind::MissingFence), "{:?}: {}", fence, e);
    }
}

/// The launchers' grids pass the kernels' extents (a head per grid row, the query rows' CTAs
/// along x), and a grid short of the rows, with a head the buffers do not hold, or with a
/// third dim, is refused before a launch.
#[test]
fn attention_grids_pass_the_launch_checks() {
    use kernels::attention::{attention_grid, ATTENTION_D128_F16, ATTENTION_F16};
    use kernels::attention_hopper::{attention_hopper_grid, ATTENTION_HOPPER_F16};
    use linear_layouts::runtime::kernel::Arg;
    let (heads, seq) = (16u32, 1000u32);
    let buf = |d: u32| Arg::Buffer {
        len: (heads * seq * d) as u64,
    };
    let args = |d| {
        [
            buf(d),
            buf(d),
            buf(d),
            buf(d),
            Arg::Int(seq as i128),
            Arg::Other,
            Arg::Int(0),
        ]
    };
    let g = attention_grid(heads, seq);
    assert!(ATTENTION_F16.check_args(&args(64), g).is_ok());
    assert!(ATTENTION_D128_F16.check_args(&args(128), g).is_ok());
    // O's chunks must cover each head's rows, one grid row per head of the buffers, 2-D.
    for bad in [[g[0] - 1, g[1], 1], [g[0], g[1] + 1, 1], [g[0], g[1], 2]] {
        assert!(
            ATTENTION_F16.check_args(&args(64), bad).is_err(),
            "{:?}",
            bad
        );
    }
    let maps = [
        Arg::Other,
        Arg::Other,
        Arg::Other,
        buf(64),
        Arg::Int(seq as i128),
        Arg::Other,
        Arg::Int(0),
    ];
    let h = attention_hopper_grid(heads, seq);
    assert!(ATTENTION_HOPPER_F16.check_args(&maps, h).is_ok());
    // O's chunks must cover each head's rows, one grid row per head of the buffer, a 2-D grid.
    for g in [[h[0] - 1, h[1], 1], [h[0], h[1] + 1, 1], [h[0], h[1], 2]] {
        assert!(
            ATTENTION_HOPPER_F16.check_args(&maps, g).is_err(),
            "{:?}",
            g
        );
    }
}
