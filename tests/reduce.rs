//! Reductions, broadcasts and scans of tiles on the simulator: every copy of every reduced element
//! against a CPU reference, for blocked layouts with the dim in registers, lanes and warps, an
//! MMA accumulator, 16-bit floats and an argmax over (value, index) pairs; back to back with
//! conversions without a barrier written by the user; in generic code.

use linear_layouts::reduce::Slice;
use linear_layouts::sim::{launch, Launch};
use linear_layouts::{convert, layout, Layout, Registers, Thread, Tile, F16};

layout! {
    // Rows spread over registers and 8 lanes; 4 warps down the rows.
    Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 32];
    RowsSum = slice(dim = 1, parent = Rows) for [16];
    RowsCol = slice(dim = 0, parent = Rows) for [32];
    // The reduced dim across all 4 warps: shared memory.
    Wide = blocked(sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [1, 0]) for [16, 64];
    WideSum = slice(dim = 1, parent = Wide) for [16];
    WideCol = slice(dim = 0, parent = Wide) for [64];
    // 2 x 2 warps, 8 warps' worth of broadcast lanes along rows.
    Mixed = blocked(sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [2, 2], order = [0, 1]) for [8, 64];
    MixedSum = slice(dim = 1, parent = Mixed) for [8];
    MixedCol = slice(dim = 0, parent = Mixed) for [64];
    Acc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]) for [64, 32];
    AccRow = slice(dim = 1, parent = Acc) for [64];
    AccCol = slice(dim = 0, parent = Acc) for [32];
    Cols = blocked(sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]) for [16, 32];
    // Wide's shape with its dim 1 within warps: a conversion to Wide goes through shared memory.
    WideRows = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 64];
    // No lane along dim 1, 4 warps: each lane reads all four warps' partials.
    Tall = blocked(sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [1, 0]) for [32, 16];
    TallSum = slice(dim = 1, parent = Tall) for [32];
    // 8 lanes and 2 warps along dim 1: lanes read duplicates, one butterfly combines the warps.
    Split = blocked(sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]) for [8, 16];
    SplitSum = slice(dim = 1, parent = Split) for [8];
    // 32 lanes down 8 rows (lane bits 3 and 4 hold copies), 4 warps along dim 1: the copies read
    // the warps' partials, a butterfly over them each, as Triton does.
    Bcast = blocked(sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [1, 0]) for [8, 16];
    BcastSum = slice(dim = 1, parent = Bcast) for [8];
    // 4 rows over 8 lanes (lane bit 2 a copy) and 2 warps (warp bit 0 a copy), 4 lanes and
    // 4 warps along dim 1: only the originals store, each row of partials once.
    Copies = blocked(sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [2, 4], order = [1, 0]) for [4, 16];
    CopiesSum = slice(dim = 1, parent = Copies) for [4];
}

/// The value at `(i, j)`: hashed integers in [-512, 512), so f32 sums are exact in any order
/// and a row's maximum is rarely in every warp's part of it (a missing cross-warp stage fails).
fn value(i: u32, j: u32) -> f32 {
    let h = ((i as u64) << 32 | j as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (h >> 54) as f32 - 512.0
}

/// Reduces `L` along `D` into `S` with `combine` on the simulator and checks every copy of
/// every element of the result against `reference(fixed coordinate)`.
fn check<L, S, const D: usize, const N: usize, const M: usize>(
    combine: fn(f32, f32) -> f32,
    reference: impl Fn(u32) -> f32 + Sync,
) where
    L: Registers<N>,
    S: Registers<M>,
{
    let threads = L::IN_DIMS[1].size * L::IN_DIMS[2].size;
    let shared = Slice::<L, S, D, N, M>::SHARED_BYTES;
    launch(Launch::new(1, threads, shared), |t| {
        let x = Tile::<L, f32, N>::from_coords(t, |[i, j]| value(i, j));
        let s: Tile<S, f32, M> = x.reduce_into::<D, S, M>(t, combine);
        for (m, v) in s.values.iter().enumerate() {
            let k = S::coord([m as u32, t.lane(), t.warp(), 0], 0);
            assert_eq!(*v, reference(k), "{} register {} (k = {})", S::NAME, m, k);
        }
        // Back to the parent: each element its row's (or column's) value.
        let b: Tile<L, f32, N> = s.broadcast_into::<D, L, N>();
        for (r, v) in b.values.iter().enumerate() {
            let at = [r as u32, t.lane(), t.warp(), 0];
            let k = L::coord(at, 1 - D);
            assert_eq!(*v, reference(k));
        }
    })
    .expect("no simulator issue");
}

fn sum_along<const D: usize>(shape: [u32; 2]) -> impl Fn(u32) -> f32 + Sync {
    move |k| {
        (0..shape[D])
            .map(|x| if D == 1 { value(k, x) } else { value(x, k) })
            .sum()
    }
}

fn max_along<const D: usize>(shape: [u32; 2]) -> impl Fn(u32) -> f32 + Sync {
    move |k| {
        (0..shape[D])
            .map(|x| if D == 1 { value(k, x) } else { value(x, k) })
            .fold(f32::MIN, f32::max)
    }
}

#[test]
fn sums_and_maxima_along_registers_lanes_and_warps() {
    let add = |a: f32, b: f32| a + b;
    check::<Rows, RowsSum, 1, 4, 1>(add, sum_along::<1>([16, 32]));
    check::<Rows, RowsCol, 0, 4, 4>(add, sum_along::<0>([16, 32]));
    check::<Wide, WideSum, 1, 8, 2>(add, sum_along::<1>([16, 64]));
    check::<Wide, WideCol, 0, 8, 4>(f32::max, max_along::<0>([16, 64]));
    check::<Mixed, MixedSum, 1, 4, 2>(f32::max, max_along::<1>([8, 64]));
    check::<Mixed, MixedCol, 0, 4, 2>(add, sum_along::<0>([8, 64]));
    check::<Acc, AccRow, 1, 16, 4>(add, sum_along::<1>([64, 32]));
    check::<Acc, AccCol, 0, 16, 4>(f32::max, max_along::<0>([64, 32]));
    check::<Tall, TallSum, 1, 4, 1>(add, sum_along::<1>([32, 16]));
    check::<Split, SplitSum, 1, 1, 1>(f32::max, max_along::<1>([8, 16]));
    check::<Bcast, BcastSum, 1, 4, 1>(add, sum_along::<1>([8, 16]));
    check::<Bcast, BcastSum, 1, 4, 1>(f32::max, max_along::<1>([8, 16]));
    check::<Copies, CopiesSum, 1, 1, 1>(add, sum_along::<1>([4, 16]));
    check::<Copies, CopiesSum, 1, 1, 1>(f32::max, max_along::<1>([4, 16]));
}

#[test]
fn cross_warp_reductions_use_the_shared_memory_they_declare() {
    assert_eq!(Slice::<Rows, RowsSum, 1, 4, 1>::SHARED_BYTES, 0);
    // 4 warps x 8 rows (lanes off the dim) x 2 partials x 4 bytes, as Triton stages it.
    assert_eq!(Slice::<Wide, WideSum, 1, 8, 2>::SHARED_BYTES, 256);
    assert_eq!(Slice::<Wide, WideSum, 1, 8, 2>::shared_bytes(2), 128);
    // The copies (lane bits 3 and 4) read the 4 warps' partials: one load each, 2 butterflies.
    let c = Slice::<Bcast, BcastSum, 1, 4, 1>::PLAN.cost(1, 32);
    assert_eq!((c.shuffles, c.stores, c.loads, c.barriers), (2, 1, 1, 1));
    // 4 warps along the dim x 4 rows x 4 bytes: the copies (a lane bit, a warp bit) take no
    // rows, as Triton's scratch holds only distinct data.
    assert_eq!(Slice::<Copies, CopiesSum, 1, 1, 1>::SHARED_BYTES, 64);
}

#[test]
fn half_precision_sums_and_an_argmax_of_pairs() {
    launch(
        Launch::new(1, 128, Slice::<Wide, WideSum, 1, 8, 2>::shared_bytes(8)),
        |t| {
            // f16 sums of small integers are exact.
            let h = Tile::<Wide, F16, 8>::from_coords(t, |[i, j]| F16::from_f32(value(i, j)));
            let s = h.reduce::<1>(t, |a, b| F16::round(a.widen() + b.widen()));
            for (m, v) in s.values.iter().enumerate() {
                let k = WideSum::coord([m as u32, t.lane(), t.warp(), 0], 0);
                assert_eq!(v.to_f32(), sum_along::<1>([16, 64])(k));
            }
            // argmax along rows: the largest value, the smallest column among ties.
            let pairs = Tile::<Wide, (f32, u32), 8>::from_coords(t, |[i, j]| (value(i, j), j));
            let best = pairs.reduce::<1>(t, |a, b| match a.0.partial_cmp(&b.0) {
                Some(core::cmp::Ordering::Greater) => a,
                Some(core::cmp::Ordering::Less) => b,
                _ => {
                    if a.1 <= b.1 {
                        a
                    } else {
                        b
                    }
                }
            });
            for (m, (v, j)) in best.values.iter().enumerate() {
                let i = WideSum::coord([m as u32, t.lane(), t.warp(), 0], 0);
                let want = (0..64)
                    .map(|j| (value(i, j), j))
                    .fold((f32::MIN, 0), |a, b| if b.0 > a.0 { b } else { a });
                assert_eq!((*v, *j), want, "row {}", i);
            }
        },
    )
    .expect("no simulator issue");
}

/// A row sum of any layout: the slice and the counts are generic parameters.
fn row_sums<L, S, T, const N: usize, const M: usize>(t: &T, x: &Tile<L, f32, N>) -> Tile<S, f32, M>
where
    L: Registers<N>,
    S: Registers<M>,
    T: Thread,
{
    x.reduce_into::<1, S, M>(t, |a, b| a + b)
}

#[test]
fn reductions_work_in_generic_code_and_between_conversions() {
    let shared = convert!(Rows => Cols, f32)
        .cost
        .shared_bytes
        .max(Slice::<Wide, WideSum, 1, 8, 2>::SHARED_BYTES);
    launch(Launch::new(1, 128, shared), |t| {
        let x = Tile::<Rows, f32, 4>::from_coords(t, |[i, j]| value(i, j));
        // A conversion, a cross-warp reduction and a conversion again, sharing one scratch
        // buffer, with no barrier written here.
        let c = Tile::<Cols, f32, 4>::new(convert!(Rows => Cols, f32).run(t, &x.values));
        let w = Tile::<Wide, f32, 8>::from_coords(t, |[i, j]| value(i, j));
        let ws: Tile<WideSum, f32, 2> = row_sums(t, &w);
        let back = convert!(Cols => Rows, f32).run(t, &c.values);
        assert_eq!(back, x.values);
        let rs: Tile<RowsSum, f32, 1> = row_sums(t, &x);
        let k = RowsSum::coord([0, t.lane(), t.warp(), 0], 0);
        assert_eq!(rs.values[0], sum_along::<1>([16, 32])(k));
        for (m, v) in ws.values.iter().enumerate() {
            let k = WideSum::coord([m as u32, t.lane(), t.warp(), 0], 0);
            assert_eq!(*v, sum_along::<1>([16, 64])(k));
        }
    })
    .expect("race-free: the reduction's barriers bracket its scratch");
}

layout! {
    // Along dim 1: the warps are the low position bits, the registers the high ones.
    WarpsFirst = blocked(sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]) for [32, 16];
    // Along dim 1: 2 registers, 32 lanes, then 8 warps (one cross-warp phase whose positions'
    // totals are read in vectors), each row's registers apart.
    Line8 = blocked(sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [1, 8], order = [1, 0]) for [2, 1024];
}

/// Scans `L` along `D` four ways on the simulator and checks each element against the prefix
/// computed on the CPU (wrapping `u32` sums of hashed values: a missing or doubled element
/// shows).
fn check_scans<L: Registers<N>, const D: usize, const N: usize>() {
    use linear_layouts::scan::Scan;
    let threads = L::IN_DIMS[1].size * L::IN_DIMS[2].size;
    let v = |i: u32, j: u32| (i * 131 + j * 7 + 1).wrapping_mul(2654435761);
    launch(
        Launch::new(1, threads, Scan::<L, D, N>::shared_bytes(4)),
        |t| {
            let x = Tile::<L, u32, N>::from_coords(t, |[i, j]| v(i, j));
            let inc = x.scan::<D>(t, u32::wrapping_add);
            let exc = x.scan_exclusive::<D>(t, 0, u32::wrapping_add);
            let rinc = x.scan_reverse::<D>(t, u32::wrapping_add);
            let rexc = x.scan_exclusive_reverse::<D>(t, 0, u32::wrapping_add);
            for r in 0..N {
                let at = [r as u32, t.lane(), t.warp(), 0];
                let (i, j) = (L::coord(at, 0), L::coord(at, 1));
                let pos = if D == 1 { j } else { i };
                let len = L::SHAPE[D];
                let at_pos = |p: u32| if D == 1 { v(i, p) } else { v(p, j) };
                let sum = |ps: core::ops::Range<u32>| ps.map(at_pos).fold(0u32, u32::wrapping_add);
                assert_eq!(inc.values[r], sum(0..pos + 1), "inclusive at {:?}", (i, j));
                assert_eq!(exc.values[r], sum(0..pos), "exclusive at {:?}", (i, j));
                assert_eq!(rinc.values[r], sum(pos..len), "reverse at {:?}", (i, j));
                assert_eq!(
                    rexc.values[r],
                    sum(pos + 1..len),
                    "reverse exclusive at {:?}",
                    (i, j)
                );
            }
        },
    )
    .expect("no simulator issue");
}

/// The order of the combine's arguments: the earlier element first. `max` by the first
/// component with ties to the later index would show a swapped order.
fn check_scan_order<L: Registers<N>, const N: usize>() {
    use linear_layouts::scan::Scan;
    let threads = L::IN_DIMS[1].size * L::IN_DIMS[2].size;
    launch(
        Launch::new(1, threads, Scan::<L, 1, N>::shared_bytes(8)),
        |t| {
            // (constant value, column): "keep the later on ties" must give each element itself.
            let x = Tile::<L, (u32, u32), N>::from_coords(t, |[_, j]| (5, j));
            let last = x.scan::<1>(t, |a, b| if b.0 >= a.0 { b } else { a });
            assert_eq!(last.values, x.values);
            let first = x.scan::<1>(t, |a, b| if a.0 >= b.0 { a } else { b });
            assert!(first.values.iter().all(|p| p.1 == 0));
        },
    )
    .expect("no simulator issue");
}

#[test]
fn scans_along_registers_lanes_and_warps_in_every_direction() {
    check_scans::<Rows, 1, 4>();
    check_scans::<Rows, 0, 4>();
    check_scans::<Wide, 1, 8>();
    check_scans::<Wide, 0, 8>();
    check_scans::<Acc, 0, 16>();
    check_scans::<Acc, 1, 16>();
    check_scans::<WarpsFirst, 1, 4>();
    // One warp bit along the dim after lane bits: an exchange that one lane per group stores.
    check_scans::<Split, 0, 1>();
    check_scans::<Split, 1, 1>();
    check_scans::<Mixed, 0, 4>();
    check_scans::<Mixed, 1, 4>();
    check_scans::<Line8, 1, 8>();
    check_scan_order::<Wide, 8>();
    check_scan_order::<WarpsFirst, 4>();
    check_scan_order::<Line8, 8>();
}

/// Two tiles converted through shared memory back to back (a kernel converting its Q and then
/// its K tile): the second conversion's stores wait at a barrier for the first one's loads, so
/// the simulator finds no race; the first operation of the kernel waits at none, and the count
/// is Triton's (one barrier between each stage's stores and loads, one between the stages).
#[test]
fn two_conversions_in_a_row_need_no_barrier_by_hand() {
    let cvt = convert!(Rows => Cols, f32);
    assert!(matches!(
        cvt.cost.strategy,
        linear_layouts::Strategy::SharedMemory
    ));
    launch(Launch::new(1, 128, cvt.shared_bytes()), |t| {
        let q = Tile::<Rows, f32, 4>::from_coords(t, |[i, j]| value(i, j));
        let k = Tile::<Rows, f32, 4>::from_coords(t, |[i, j]| value(j, i));
        let before = t.issued().barriers;
        let qc = cvt.run(t, &q.values);
        assert_eq!(
            t.issued().barriers - before,
            1,
            "the kernel's first conversion"
        );
        let kc = cvt.run(t, &k.values);
        assert_eq!(
            t.issued().barriers - before,
            3,
            "one more before the second's stores"
        );
        let want =
            |f: fn(u32, u32) -> f32| Tile::<Cols, f32, 4>::from_coords(t, move |[i, j]| f(i, j));
        assert_eq!(qc, want(value).values);
        assert_eq!(kc, want(|i, j| value(j, i)).values);
    })
    .expect("no race between the two conversions");
}

/// A conversion, then a scan across warps, then a conversion back: three shared-memory stages on
/// one scratch in a row, no barrier written by hand, race-free and right.
#[test]
fn a_conversion_then_a_scan_then_a_conversion() {
    let to = convert!(WideRows => Wide, f32);
    let back = convert!(Wide => WideRows, f32);
    let scratch = to
        .shared_bytes()
        .max(back.shared_bytes())
        .max(linear_layouts::scan::Scan::<Wide, 1, 8>::shared_bytes(4));
    assert!(to.shared_bytes() > 0);
    launch(Launch::new(1, 128, scratch), |t| {
        let x = Tile::<WideRows, f32, 8>::from_coords(t, |[i, j]| value(i, j));
        let w = Tile::<Wide, f32, 8>::new(to.run(t, &x.values));
        let s = w.scan::<1>(t, |a, b| a + b);
        let r = back.run(t, &s.values);
        let want =
            Tile::<WideRows, f32, 8>::from_coords(t, |[i, j]| (0..=j).map(|k| value(i, k)).sum());
        assert_eq!(r, want.values);
    })
    .expect("no race between the stages");
}

/// The forms that name only the dim or the target (`sum::<D>`, `max::<D>`, `reduce::<D>`,
/// `convert::<B>`, `broadcast()`, `TileOf`) give the slices `layout!` declared, the same values
/// as the forms with the types written out, along either dim (dim 1 across warps).
#[test]
fn inferred_slices_and_targets() {
    use linear_layouts::redux::{Max, Sum};
    use linear_layouts::TileOf;
    fn rows_of(t: &impl Thread) -> TileOf<Wide, f32> {
        Tile::from_coords(t, |[i, j]| value(i, j))
    }
    // Dim 1 spans Wide's warps (dim 0 does not: no shared memory). The needs without counts
    // are the same numbers.
    use linear_layouts::{max_shared, reduce, scan};
    assert_eq!(
        reduce::shared_bytes::<Wide, 1, f32>(),
        Slice::<Wide, WideSum, 1, 8, 2>::SHARED_BYTES
    );
    assert!(reduce::shared_bytes::<Wide, 1, f32>() > 0);
    assert_eq!(reduce::shared_bytes::<Wide, 0, f32>(), 0);
    assert_eq!(
        reduce::shared_bytes::<Wide, 1, F16>(),
        Slice::<Wide, WideSum, 1, 8, 2>::shared_bytes(2)
    );
    assert_eq!(
        scan::shared_bytes::<Wide, 1, f32>(),
        scan::Scan::<Wide, 1, 8>::shared_bytes(4)
    );
    assert!(scan::shared_bytes::<Wide, 1, f32>() > 0);
    assert_eq!(max_shared(&[3, 9, 4]), 9);
    let scratch = Slice::<Wide, WideSum, 1, 8, 2>::SHARED_BYTES
        .max(convert!(Wide => WideRows, f32).shared_bytes());
    launch(Launch::new(1, 128, scratch), |t| {
        let x = rows_of(t);
        let s: Tile<WideSum, f32, 2> = x.sum::<1>(t);
        assert_eq!(s, x.reduce_op_into::<1, WideSum, 2>(t, Sum));
        let c: Tile<WideCol, f32, 4> = x.max::<0>(t);
        assert_eq!(c, x.reduce_op_into::<0, WideCol, _>(t, Max));
        let add = |a: f32, b: f32| a + b;
        assert_eq!(
            x.reduce::<0>(t, add),
            x.reduce_into::<0, WideCol, _>(t, add)
        );
        let row = |i: u32| (0..64).map(|j| value(i, j)).sum::<f32>();
        let want = Tile::<WideSum, f32, 2>::from_coords(t, |[i]| row(i));
        assert_eq!(s, want);
        // Back to the parent: each element holds its row's sum.
        let b: Tile<Wide, f32, 8> = s.broadcast();
        assert_eq!(b, Tile::from_coords(t, |[i, _]| row(i)));
        assert_eq!(b, s.broadcast_into::<1, Wide, 8>());
        let r: Tile<WideRows, f32, 8> = x.convert::<WideRows>(t);
        assert_eq!(r, Tile::from_coords(t, |[i, j]| value(i, j)));
    })
    .expect("simulator");
}
