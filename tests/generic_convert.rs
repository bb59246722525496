//! Conversions in generic code: `Tile::convert` plans from the layouts' const tables (layout
//! types as generic parameters, aliases), runs on the simulator to the destination layout's
//! values, and plans what layout-core's planner plans for the pair (the same tables, the same cost),
//! through shuffles, gathers, shared memory, `ldmatrix`/`stmatrix` and across a cluster.

use linear_layouts::convert::{plan_conversion_for, Force};
use linear_layouts::planned::Planned;
use linear_layouts::runtime::convert::Plan;
use linear_layouts::runtime::Element;
use linear_layouts::sim::{launch, Launch};
use linear_layouts::{
    convert, layout, Bf16, Layout, Registers, Strategy, Target, Thread, Tile, F16,
};

mod support;

layout! {
    // The attention pattern: P leaves the accumulator as operand A (no data moves).
    Acc = nvidia_mma(versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]) for [64, 64];
    OpA16 = dot_op(opIdx = 0, parent = Acc, kWidth = 2) for [64, 64];
    OpA8 = dot_op(opIdx = 0, parent = Acc, kWidth = 4) for [64, 64];
    AccPerm = linear(register = [[0, 1], [0, 8], [0, 16], [0, 32], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]], block = []) for [64, 64];
    Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 32];
    // Rows with one register bit exchanged with a lane bit, and two lanes bits swapped.
    Swapped = linear(register = [[0, 1], [1, 0], [16, 0], [32, 0]], lane = [[0, 8], [0, 4], [0, 16], [0, 2], [2, 0]], warp = [[4, 0], [8, 0]], block = []) for [64, 32];
    // Lanes permuted only.
    LanesT = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [0, 1]) for [64, 32];
    // One transposition, no lane permutation: the "ship" form.
    Pairs = linear(register = [[0, 1], [1, 0], [16, 0], [32, 0]], lane = [[0, 4], [0, 8], [0, 16], [0, 2], [2, 0]], warp = [[4, 0], [8, 0]], block = []) for [64, 32];
    // Between warps: shared memory.
    Cols = blocked(sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 32];
    // The accumulator to rows (stmatrix for 16-bit elements).
    AccRows = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    // Replicated over warps on one side: copies skip their stores.
    Bcast = blocked(sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]) for [8, 16];
    BcastT = blocked(sizePerThread = [4, 1], threadsPerWarp = [2, 16], warpsPerCTA = [2, 2], order = [0, 1]) for [8, 16];
    // Two CTAs that split the tensor differently: distributed shared memory.
    SplitRows = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]) for [64, 64];
    SplitCols = blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1], CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [0, 1]) for [64, 64];
    // Slices of a 64x64 tile and a 1-D layout: lanes of a warp read the same elements (gathers).
    Tile64 = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    Row = slice(dim = 0, parent = Tile64) for [64];
    Col = slice(dim = 1, parent = Tile64) for [64];
    Vec1d = blocked(sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]) for [64];
}

type R = Rows;

/// Generic over both layouts and the element: nothing names a layout.
fn regroup<A: Registers<N>, B: Registers<M>, E: Element, const N: usize, const M: usize>(
    t: &impl Thread,
    x: Tile<A, E, N>,
) -> Tile<B, E, M> {
    x.convert_into::<B, M>(t)
}

/// What layout-core plans for the pair (the planner of the proc macro's inline sides and of the
/// CLI), to compare the const planner's plan with.
macro_rules! runtime_plan {
    ($a:ty, $b:ty, $e:ty) => {
        plan_conversion_for(
            &Target::SM_90,
            &<$a>::linear_layout(),
            &<$b>::linear_layout(),
            <$e as Element>::BITS,
            Force::Auto,
        )
        .unwrap_or_else(|e| panic!("{}", e))
    };
}

/// A distinct value per element (its row-major index, hashed into `E`'s bits).
fn value<E: Element>([i, j]: [u32; 2]) -> E {
    support::value((i as u64) << 16 | j as u64)
}

/// Convert a tile of `A` to `B` generically and check every register against `B`'s element.
fn check<A: Registers<N>, B: Registers<M>, E: Element, const N: usize, const M: usize>() {
    check_on::<A, B, E, N, M>(Launch::new(1, 128, 64 * 1024));
}

/// [`check`] on a launch of `shape`.
fn check_on<A: Registers<N>, B: Registers<M>, E: Element, const N: usize, const M: usize>(
    shape: Launch,
) {
    launch(shape, |t| {
        let x = Tile::<A, E, N>::from_coords(t, value::<E>);
        let y: Tile<B, E, M> = regroup(t, x);
        let want = Tile::<B, E, M>::from_coords(t, value::<E>);
        let same = y.values.iter().zip(&want.values);
        assert!(same.clone().all(|(a, b)| a.to_bits() == b.to_bits()));
        // `convert!` of the generic sides and element, back to `A`.
        let back: [E; N] = regroup_values::<B, A, E, M, N>(t, &y.values);
        assert!(back
            .iter()
            .zip(&x.values)
            .all(|(a, b)| a.to_bits() == b.to_bits()));
    })
    .expect("no simulator issue");
}

/// `convert!` with generic sides and element: the acceptance's `regroup`, over any element.
fn regroup_values<A: Layout, B: Layout, E: Element, const N: usize, const M: usize>(
    t: &impl Thread,
    v: &[E; N],
) -> [E; M] {
    convert!(A => B, E).run(t, v)
}

#[test]
fn generic_conversions_match_the_destination_layout() {
    check::<Acc, OpA16, F16, 32, 32>();
    check::<Acc, AccPerm, f32, 32, 32>();
    check::<OpA16, OpA8, u8, 32, 32>();
    check::<R, Swapped, u32, 16, 16>();
    check::<R, Swapped, u64, 16, 16>();
    check::<R, LanesT, Bf16, 16, 16>();
    check::<R, Pairs, u16, 16, 16>();
    check::<Pairs, R, i8, 16, 16>();
}

#[test]
fn generic_conversions_through_shared_memory() {
    check::<R, Cols, f32, 16, 16>();
    check::<Cols, R, u8, 16, 16>();
    check::<Acc, AccRows, F16, 32, 32>();
    check::<AccRows, Acc, Bf16, 32, 32>();
    check::<Acc, AccRows, u64, 32, 32>();
    check::<Bcast, BcastT, f32, 4, 4>();
    check::<BcastT, Bcast, u16, 4, 4>();
    check_on::<SplitRows, SplitCols, f32, 16, 16>(Launch::new(2, 128, 64 * 1024).with_cluster(2));
    // Back to back, with no barrier written: the second conversion's stores wait for the
    // first's loads (the simulator reports any race).
    launch(Launch::new(1, 128, 64 * 1024), |t| {
        let x = Tile::<R, u32, 16>::from_coords(t, value::<u32>);
        let y: Tile<Cols, u32, 16> = regroup(t, x);
        let z: Tile<R, u32, 16> = regroup(t, y);
        assert_eq!(z.values, x.values);
    })
    .expect("no simulator issue");
}

#[test]
fn generic_shared_plans_are_convert_macros_plans() {
    macro_rules! same {
        ($a:ty => $b:ty, $e:ty) => {{
            let theirs = runtime_plan!($a, $b, $e);
            assert_eq!(Planned::<$a, $b, $e>::COST, theirs.cost, "{}", stringify!($a => $b, $e));
            assert!(
                support::same_tables(Planned::<$a, $b, $e>::PLAN, &theirs.body),
                "{}: {:?}",
                stringify!($a => $b, $e),
                Planned::<$a, $b, $e>::PLAN
            );
        }};
    }
    same!(Rows => Cols, f32);
    same!(Cols => Rows, u8);
    same!(Acc => AccRows, u16);
    same!(AccRows => Acc, u16);
    same!(Acc => AccRows, u64);
    same!(Bcast => BcastT, f32);
    same!(BcastT => Bcast, u16);
    same!(SplitRows => SplitCols, f32);
    assert_eq!(
        Planned::<Rows, Cols, f32>::COST.strategy,
        Strategy::SharedMemory
    );
}

#[test]
fn generic_plans_cost_what_convert_costs() {
    assert_eq!(
        Planned::<Acc, OpA16, u16>::COST,
        runtime_plan!(Acc, OpA16, u16).cost
    );
    assert_eq!(Planned::<Acc, OpA16, u16>::COST.strategy, Strategy::Nothing);
    assert_eq!(
        Planned::<Acc, AccPerm, f32>::COST,
        runtime_plan!(Acc, AccPerm, f32).cost
    );
    assert_eq!(
        Planned::<OpA16, OpA8, u8>::COST,
        runtime_plan!(OpA16, OpA8, u8).cost
    );
    assert_eq!(
        Planned::<R, Swapped, u32>::COST,
        runtime_plan!(Rows, Swapped, u32).cost
    );
    assert_eq!(
        Planned::<R, Swapped, u64>::COST,
        runtime_plan!(Rows, Swapped, u64).cost
    );
    assert_eq!(
        Planned::<R, LanesT, u16>::COST,
        runtime_plan!(Rows, LanesT, u16).cost
    );
    assert_eq!(
        Planned::<R, Pairs, u8>::COST,
        runtime_plan!(Rows, Pairs, u8).cost
    );
    assert_eq!(Planned::<R, R, f32>::COST.strategy, Strategy::Nothing);
    // The same tables as convert!'s, so the interpreter runs the same steps.
    let ours = Planned::<R, Swapped, u32>::PLAN;
    let theirs = runtime_plan!(Rows, Swapped, u32).body;
    match (ours, &theirs) {
        (Plan::Shuffles(a), Plan::Shuffles(b)) => {
            assert_eq!(*a.gather, *b.gather);
            assert_eq!(*a.scatter, *b.scatter);
            assert_eq!(*a.swaps, *b.swaps);
            assert_eq!(*a.lane_map, *b.lane_map);
            assert_eq!((a.pack, a.ship), (b.pack, b.ship));
        }
        other => panic!("expected two shuffle plans, got {:?}", other),
    }
}

/// [`check`] for 1-D layouts.
fn check_1d<A: Registers<N>, B: Registers<M>, E: Element, const N: usize, const M: usize>() {
    launch(Launch::new(1, 128, 64 * 1024), |t| {
        let x = Tile::<A, E, N>::from_coords(t, |[i]| value::<E>([i, 0]));
        let y: Tile<B, E, M> = regroup(t, x);
        let want = Tile::<B, E, M>::from_coords(t, |[i]| value::<E>([i, 0]));
        let same = y.values.iter().zip(&want.values);
        assert!(same.clone().all(|(a, b)| a.to_bits() == b.to_bits()));
    })
    .expect("no simulator issue");
}

#[test]
fn generic_gathers_are_convert_macros_gathers() {
    macro_rules! same {
        ($a:ident => $b:ident, $e:ty) => {{
            let theirs = runtime_plan!($a, $b, $e);
            let what = stringify!($a => $b, $e);
            assert_eq!(Planned::<$a, $b, $e>::COST, theirs.cost, "{}", what);
            assert!(support::same_tables(Planned::<$a, $b, $e>::PLAN, &theirs.body), "{}", what);
            const N: usize = $a::ELEMENTS_PER_THREAD as usize;
            const M: usize = $b::ELEMENTS_PER_THREAD as usize;
            check_1d::<$a, $b, $e, N, M>();
            matches!(Planned::<$a, $b, $e>::PLAN, Plan::Gather(_))
        }};
    }
    let gathers = [
        same!(Row => Vec1d, f32),
        same!(Col => Vec1d, f32),
        same!(Vec1d => Row, u16),
        same!(Row => Vec1d, u8),
        same!(Col => Vec1d, u64),
    ];
    assert!(gathers.iter().filter(|&&g| g).count() >= 2, "{:?}", gathers);
}

/// Generic over the layouts with no register-count bounds (only `Layout`): the arrays' lengths
/// come from the function's own parameters.
fn regroup_arrays<A: Layout, B: Layout, const N: usize, const M: usize>(
    t: &impl Thread,
    v: &[u32; N],
) -> [u32; M] {
    Planned::<A, B, u32>::NEW.run(t, v)
}

#[test]
fn declared_layouts_give_the_arrays_lengths() {
    launch(Launch::new(1, 128, 8192), |t| {
        let x = Tile::<Rows, u32, 16>::from_coords(t, value::<u32>);
        let want = Tile::<Cols, u32, 16>::from_coords(t, value::<u32>).values;
        // No annotation: the lengths are `Rows`'s and `Cols`'s register counts (an alias too).
        let y = Planned::<Rows, Cols, u32>::NEW.run(t, &x.values);
        let z = Planned::<R, Cols, u32>::NEW.run(t, &x.values);
        // Slices, so that nothing here tells the compiler the arrays' lengths.
        assert_eq!((&y[..], &z[..]), (&want[..], &want[..]));
        // Bound-free generic code reaches the same conversion through `Generic`.
        let g: [u32; 16] = regroup_arrays::<Rows, Cols, 16, 16>(t, &x.values);
        assert_eq!(g, want);
        // Declared layouts with the lengths given by hand: `generic()`.
        let h: [u32; 16] = Planned::<Rows, Cols, u32>::NEW.generic().run(t, &x.values);
        assert_eq!(h, want);
    })
    .unwrap();
}
