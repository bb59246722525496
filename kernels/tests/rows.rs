//! The row kernels on the simulator against f64 references, in every width class and element
//! type: at the class's width, at a width just past the next narrower class, and at a width that
//! is not a multiple of the vector (masked tails), with a row count that leaves the last CTA
//! part empty.
//!
//! Tolerances, each the sum of what the kernel's arithmetic may lose:
//! - softmax: `ex2.approx` and `rcp.approx` are each within 2^-22 relative and the row sum's
//!   rounding adds at most n * 2^-24 relative (n <= 8,192: 2^-11 in the worst case, far less in
//!   practice since the terms are positive), so 2^-18 relative covers f32 with margin; a 16-bit
//!   output adds half an ulp of its rounding (1 ulp allowed) and the subnormal spacing (2^-24).
//! - layer norm: the f32 statistics are within 1e-5 relative; the output adds one ulp of its
//!   16-bit type (f16: 10 mantissa bits, bf16: 7) plus the statistics' error times `|w|`.

use kernels::rows::{self, layer_norm_rows, softmax_rows, LayerNormIo, RowClass, CLASSES};
use linear_layouts::math::Real;
use linear_layouts::runtime::cast::CastFrom;
use linear_layouts::sim::{launch, HostMemory, Launch};
use linear_layouts::{
    Bf16, BroadcastTo, ChunksMut, Element, Holds, Registers, SliceAlong, View, F16,
};

fn random(n: usize, seed: u64, scale: f64) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * scale
        })
        .collect()
}

fn memory<E: Element>(v: &[E]) -> HostMemory {
    HostMemory::new(v.iter().map(|e| e.to_bits()))
}

/// The widths a class is checked at: just past the narrower class, a tail of 5 elements, and
/// two multiples of every vector (for the `_aligned` kernels too), one leaving a tail of
/// whole vectors.
fn widths(c: &RowClass) -> [u32; 4] {
    [c.width / 2 + 1, c.width - 3, c.width - 8, c.width]
}

/// Mantissa bits of an element type (for its ulp).
fn mantissa<E: Element>(bf16: bool) -> i32 {
    match (E::BITS, bf16) {
        (32, _) => 23,
        (_, true) => 7,
        _ => 10,
    }
}

fn ulp(v: f64, bits: i32) -> f64 {
    2f64.powf(v.abs().max(1e-30).log2().floor() - bits as f64)
}

fn softmax_case<L, S, E, const N: usize, const A: bool>(
    c: &RowClass,
    n_rows: u32,
    n_cols: u32,
    bf16: bool,
) where
    L: Registers<N> + SliceAlong<1, Slice = S>,
    S: Holds<f32, 1> + BroadcastTo<L>,
    E: Element + Real + CastFrom<f32>,
{
    let x: Vec<E> = random((n_rows * n_cols) as usize, n_cols as u64, 8.0)
        .iter()
        .map(|&v| E::from_f32(v as f32))
        .collect();
    let (xm, ym) = (memory(&x), HostMemory::new(x.iter().map(|_| u64::MAX)));
    let grid = n_rows.div_ceil(c.rows_per_cta);
    launch(Launch::new(grid, c.threads, c.shared_bytes), |t| {
        softmax_rows::<L, S, E, _, N, 1, A>(
            t,
            &View::host(&xm, [n_rows, n_cols]),
            ChunksMut::host(&ym, [n_rows, n_cols]),
        )
    })
    .expect("no simulator issue");
    let m = mantissa::<E>(bf16);
    for i in 0..n_rows as usize {
        let row: Vec<f64> = (0..n_cols as usize)
            .map(|j| x[i * n_cols as usize + j].to_f32() as f64)
            .collect();
        let max = row.iter().fold(f64::MIN, |a, &v| a.max(v));
        let sum: f64 = row.iter().map(|&v| (v - max).exp()).sum();
        for (j, &v) in row.iter().enumerate() {
            let want = (v - max).exp() / sum;
            let got = E::from_bits(ym.get(i * n_cols as usize + j)).to_f32() as f64;
            let tol = want * 2f64.powi(-18)
                + if m < 23 {
                    ulp(want, m) + 2f64.powi(-24)
                } else {
                    1e-12
                };
            assert!(
                (got - want).abs() <= tol,
                "softmax {}-bit [{}, {}] of {}x{} (class {}): {} vs {}",
                E::BITS,
                i,
                j,
                n_rows,
                n_cols,
                c.width,
                got,
                want
            );
        }
    }
}

fn layer_norm_case<L, S, E, const N: usize, const A: bool>(
    c: &RowClass,
    n_rows: u32,
    n_cols: u32,
    bf16: bool,
) where
    L: Registers<N> + SliceAlong<1, Slice = S>,
    S: Holds<f32, 1> + BroadcastTo<L>,
    E: Element + Real + CastFrom<f32>,
{
    let to = |v: &f64| E::from_f32(*v as f32);
    let x: Vec<E> = random((n_rows * n_cols) as usize, 7 + n_cols as u64, 4.0)
        .iter()
        .map(|v| to(&(v + 0.5)))
        .collect();
    let w: Vec<E> = random(n_cols as usize, 11, 2.0).iter().map(to).collect();
    let b: Vec<E> = random(n_cols as usize, 13, 1.0).iter().map(to).collect();
    let (xm, wm, bm) = (memory(&x), memory(&w), memory(&b));
    let ym = HostMemory::new(x.iter().map(|_| u64::MAX));
    let stat = || HostMemory::new((0..n_rows).map(|_| f32::NAN.to_bits() as u64));
    let (mm, rm) = (stat(), stat());
    let grid = n_rows.div_ceil(c.rows_per_cta);
    launch(Launch::new(grid, c.threads, c.shared_bytes), |t| {
        let io = LayerNormIo {
            x: View::host(&xm, [n_rows, n_cols]),
            w: View::host(&wm, [n_cols]),
            b: View::host(&bm, [n_cols]),
            y: ChunksMut::host(&ym, [n_rows, n_cols]),
            mean: mm.chunks_mut([n_rows]),
            rstd: rm.chunks_mut([n_rows]),
        };
        layer_norm_rows::<L, S, E, _, N, 1, A>(t, io, rows::EPS)
    })
    .expect("no simulator issue");
    let f = |v: E| v.to_f32() as f64;
    let m = mantissa::<E>(bf16);
    for i in 0..n_rows as usize {
        let row: Vec<f64> = (0..n_cols as usize)
            .map(|j| f(x[i * n_cols as usize + j]))
            .collect();
        let mean = row.iter().sum::<f64>() / n_cols as f64;
        let var = row.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n_cols as f64;
        let rstd = 1.0 / (var + 1e-5).sqrt();
        let (gm, gr) = (
            f32::from_bits(mm.get(i) as u32) as f64,
            f32::from_bits(rm.get(i) as u32) as f64,
        );
        assert!(
            (gm - mean).abs() <= 1e-5 * (1.0 + mean.abs()),
            "mean of row {}: {} vs {}",
            i,
            gm,
            mean
        );
        assert!(
            (gr - rstd).abs() <= 1e-5 * rstd,
            "rstd of row {}: {} vs {}",
            i,
            gr,
            rstd
        );
        for j in 0..n_cols as usize {
            let want = (row[j] - mean) * rstd * f(w[j]) + f(b[j]);
            let got = f(E::from_bits(ym.get(i * n_cols as usize + j)));
            let tol = ulp(want, m) + 1e-4 * (1.0 + f(w[j]).abs() * rstd);
            assert!(
                (got - want).abs() <= tol,
                "layer norm {}-bit [{}, {}] of {}x{} (class {}): {} vs {}",
                E::BITS,
                i,
                j,
                n_rows,
                n_cols,
                c.width,
                got,
                want
            );
        }
    }
}

/// Every kernel of class `$i` (tiles `$rows`/`$half`/`$any`, statistics `$stat`/`$hstat`/
/// `$astat`).
macro_rules! check_class {
    ($i:expr, $rows:ident, $stat:ident, $half:ident, $hstat:ident, $any:ident, $astat:ident) => {{
        use kernels::rows::{$any, $astat, $half, $hstat, $rows, $stat};
        let c = &CLASSES[$i];
        assert_eq!(c.width, rows::WIDTHS[$i]);
        let n_rows = c.rows_per_cta + 1;
        const N: usize = <$rows as linear_layouts::Layout>::ELEMENTS_PER_THREAD as usize;
        for n_cols in widths(c) {
            assert_eq!(rows::class_for(n_cols), Some($i));
            softmax_case::<$any, $astat, f32, N, false>(c, n_rows, n_cols, false);
            softmax_case::<$any, $astat, F16, N, false>(c, n_rows, n_cols, false);
            layer_norm_case::<$any, $astat, F16, N, false>(c, n_rows, n_cols, false);
            layer_norm_case::<$any, $astat, Bf16, N, false>(c, n_rows, n_cols, true);
            if n_cols % rows::vector(2) == 0 {
                softmax_case::<$rows, $stat, f32, N, true>(c, n_rows, n_cols, false);
                softmax_case::<$half, $hstat, F16, N, true>(c, n_rows, n_cols, false);
                layer_norm_case::<$half, $hstat, F16, N, true>(c, n_rows, n_cols, false);
                layer_norm_case::<$half, $hstat, Bf16, N, true>(c, n_rows, n_cols, true);
            }
        }
    }};
}

#[test]
fn rows_within_one_warp() {
    check_class!(
        0,
        Rows64,
        Stat64,
        HalfRows64,
        HalfStat64,
        Ragged64,
        RaggedStat64
    );
    check_class!(
        1,
        Rows128,
        Stat128,
        HalfRows128,
        HalfStat128,
        Ragged128,
        RaggedStat128
    );
    check_class!(
        2,
        Rows256,
        Stat256,
        HalfRows256,
        HalfStat256,
        Ragged256,
        RaggedStat256
    );
}

#[test]
fn rows_across_warps() {
    check_class!(
        3,
        Rows512,
        Stat512,
        HalfRows512,
        HalfStat512,
        Ragged512,
        RaggedStat512
    );
    check_class!(
        4,
        Rows1024,
        Stat1024,
        HalfRows1024,
        HalfStat1024,
        Ragged1024,
        RaggedStat1024
    );
    check_class!(
        5,
        Rows2048,
        Stat2048,
        HalfRows2048,
        HalfStat2048,
        Ragged2048,
        RaggedStat2048
    );
    check_class!(
        6,
        Rows4096,
        Stat4096,
        HalfRows4096,
        HalfStat4096,
        Ragged4096,
        RaggedStat4096
    );
    check_class!(
        7,
        Rows8192,
        Stat8192,
        HalfRows8192,
        HalfStat8192,
        Ragged8192,
        RaggedStat8192
    );
}

/// Narrow rows and no rows: a single column, and a row count of 0 (no CTA) or 1.
#[test]
fn one_column_and_one_row() {
    use kernels::rows::{Ragged64, RaggedStat64};
    let c = &CLASSES[0];
    softmax_case::<Ragged64, RaggedStat64, f32, 8, false>(c, 1, 1, false);
    layer_norm_case::<Ragged64, RaggedStat64, F16, 8, false>(c, 3, 1, false);
    assert_eq!(rows::class_for(0), Some(0));
    assert_eq!(rows::class_for(8193), None);
}

/// Every class's launch is what its layout says: its elements per thread (8, and 16 at 8,192),
/// scratch only where the row spans warps.
#[test]
fn classes_follow_their_layouts() {
    for c in &CLASSES {
        assert_eq!(c.rows_per_cta * c.width, c.threads * c.per_thread);
        assert_eq!(c.per_thread, if c.width == 8192 { 16 } else { 8 });
        let spans_warps = c.width > 32 * c.per_thread;
        assert_eq!(c.shared_bytes > 0, spans_warps, "class {}", c.width);
    }
}

/// One CTA of the `_aligned` f32 softmax on tile `L` over rows `0..n_rows*n_cols`, with
/// `shared` bytes of scratch: the simulator's verdict.
fn aligned_softmax<L, S, const N: usize>(
    threads: u32,
    shared: u32,
    n_rows: u32,
    n_cols: u32,
) -> Result<(), linear_layouts::sim::SimError>
where
    L: Registers<N> + SliceAlong<1, Slice = S>,
    S: Holds<f32, 1> + BroadcastTo<L>,
{
    let x = HostMemory::new((0..n_rows * n_cols).map(|i| (i as f32).to_bits() as u64));
    let y = HostMemory::new((0..n_rows * n_cols).map(|_| 0));
    launch(Launch::new(1, threads, shared), |t| {
        softmax_rows::<L, S, f32, _, N, 1, true>(
            t,
            &View::host(&x, [n_rows, n_cols]),
            ChunksMut::host(&y, [n_rows, n_cols]),
        )
    })
}

/// A cross-warp class launched without its scratch: the simulator reports the reduction's
/// shared accesses as out of bounds instead of returning rows.
#[test]
fn a_cross_warp_class_without_its_scratch_is_reported() {
    use kernels::rows::{Rows1024, Stat1024};
    use linear_layouts::sim::IssueKind;
    let e = aligned_softmax::<Rows1024, Stat1024, 8>(CLASSES[4].threads, 0, 1, 1024)
        .expect_err("a launch without scratch must be reported");
    assert!(e.has(IssueKind::OutOfBounds), "{}", e);
}

/// An `_aligned` kernel given a width that is not a multiple of its vector: the simulator
/// reports the broken promise instead of reading past the row.
#[test]
fn an_aligned_kernel_given_a_ragged_width_is_reported() {
    use kernels::rows::{Rows64, Stat64};
    let e = aligned_softmax::<Rows64, Stat64, 8>(CLASSES[0].threads, 0, 16, 61)
        .expect_err("a ragged width must be reported");
    assert!(e.to_string().contains("multiples of the vector"), "{}", e);
}

/// The launcher refuses the row kernels' buffers when they hold fewer elements than the rows
/// reach (`Module::launch` checks this before the driver sees the launch): 4,000 rows of 1,024
/// over buffers of 1,024 would read and write 4 million elements past them.
#[test]
fn launches_check_the_buffers_against_the_rows() {
    use linear_layouts::runtime::kernel::{Arg, Refused};
    let buf = |len| Arg::Buffer { len };
    let small = [buf(1024), buf(1024), Arg::Int(4000), Arg::Int(1024)];
    let e = rows::SOFTMAX_F32_1024
        .check_args(&small, [1000, 1, 1])
        .unwrap_err();
    assert_eq!(
        (e.error.param, e.error.len, e.error.need),
        ("x", 1024, 4_096_000)
    );
    let text = e.to_string();
    assert!(
        text.starts_with("softmax_f32_1024: parameter `x` is a buffer of 1024 elements"),
        "{}",
        text
    );
    let fits = [
        buf(4_096_000),
        buf(4_096_000),
        Arg::Int(4000),
        Arg::Int(1024),
    ];
    // A row of 1,024 per CTA: 4,000 CTAs; fewer would leave rows unwritten, and are refused.
    assert!(rows::SOFTMAX_F32_1024
        .check_args(&fits, [4000, 1, 1])
        .is_ok());
    let e = rows::SOFTMAX_F32_1024
        .check_args(&fits, [3999, 1, 1])
        .unwrap_err();
    assert_eq!(
        Refused::of(e.error.need),
        Some(Refused::TooFewCtas),
        "{}",
        e
    );
    assert!(
        e.to_string().contains("with grid = [3999, 1, 1], n_rows = 4000, n_cols = 1024 refuses this launch: the grid's CTAs cover fewer rows than the tensor has") && e.to_string().ends_with("rounded up: 4000 CTAs along x"),
        "{}",
        e
    );
    // The `_aligned` kernels promise rows of whole 16-byte vectors: the launcher holds them to
    // it (rows of 1,001 f32 are refused, of 1,000 taken), and to a 1-D grid.
    let odd = [
        buf(4_096_000),
        buf(4_096_000),
        Arg::Int(4000),
        Arg::Int(1001),
    ];
    let e = rows::SOFTMAX_F32_1024_ALIGNED
        .check_args(&odd, [4000, 1, 1])
        .unwrap_err();
    assert_eq!(
        Refused::of(e.error.need),
        Some(Refused::NotAligned),
        "{}",
        e
    );
    let even = [
        buf(4_096_000),
        buf(4_096_000),
        Arg::Int(4000),
        Arg::Int(1000),
    ];
    assert!(rows::SOFTMAX_F32_1024_ALIGNED
        .check_args(&even, [4000, 1, 1])
        .is_ok());
    let e = rows::SOFTMAX_F32_1024
        .check_args(&fits, [4000, 2, 1])
        .unwrap_err();
    assert_eq!(Refused::of(e.error.need), Some(Refused::GridNot1D), "{}", e);
    // Layer norm: the weights hold a row, the statistics a value per row.
    let n = 1000 * 512;
    let short_w = [
        buf(n),
        buf(511),
        buf(512),
        buf(n),
        buf(1000),
        buf(1000),
        Arg::Int(1000),
        Arg::Int(512),
    ];
    // A row of up to 1,024 per CTA: 1,000 CTAs.
    let e = rows::LAYER_NORM_F16_1024
        .check_args(&short_w, [1000, 1, 1])
        .unwrap_err();
    assert_eq!((e.error.param, e.error.need), ("w", 512));
    let short_rstd = [
        buf(n),
        buf(512),
        buf(512),
        buf(n),
        buf(1000),
        buf(999),
        Arg::Int(1000),
        Arg::Int(512),
    ];
    let e = rows::LAYER_NORM_F16_1024
        .check_args(&short_rstd, [1000, 1, 1])
        .unwrap_err();
    assert_eq!((e.error.param, e.error.need), ("rstd", 1000));
}
