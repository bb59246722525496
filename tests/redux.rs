//! Reductions by named operators: `redux.sync` where the dim spans a whole warp and the operator
//! has one (integers of at most 32 bits: sum, min, max, and, or, xor; signed and unsigned), the
//! butterflies elsewhere. Every copy of every result against a CPU reference, and each thread's
//! `redux.sync`, shuffles, shared accesses and barriers as the plan's cost says.

use linear_layouts::reduce::Slice;
use linear_layouts::redux::{BitAnd, BitOr, BitXor, Max, Min, Op, Sum};
use linear_layouts::runtime::Element;
use linear_layouts::sim::{launch, Launch};
use linear_layouts::{layout, Bf16, Registers, Thread, Tile, F16};

layout! {
    // Dim 1 over the 32 lanes of each warp (and 2 registers): one redux.sync per row.
    Warp = blocked(sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]) for [4, 64];
    WarpSum = slice(dim = 1, parent = Warp) for [4];
    // Dim 1 over the lanes and 4 warps: redux.sync, then shared memory across the warps.
    Across = blocked(sizePerThread = [2, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]) for [4, 128];
    AcrossSum = slice(dim = 1, parent = Across) for [4];
    // Dim 1 over 8 lanes, 4 rows over the other lanes: butterflies (four groups of lanes
    // would take four redux.sync against three shuffles).
    Part = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 32];
    PartSum = slice(dim = 1, parent = Part) for [16];
    // Dim 1 over 16 lanes, 2 rows: two redux.sync per row, each lane of the other row adding
    // the identity (Triton 3.9's PTX for such layouts).
    Halves = blocked(sizePerThread = [1, 2], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [8, 32];
    HalvesSum = slice(dim = 1, parent = Halves) for [8];
    // Dim 1 over 8 lanes, the other lanes copies: one redux.sync, the copies adding the
    // identity.
    Copies = linear(register = [], lane = [[0, 1], [0, 2], [0, 4], [0, 0], [0, 0]], warp = [[1, 0], [2, 0]], block = []) for [4, 8];
    CopiesSum = slice(dim = 1, parent = Copies) for [4];
}

/// A value at `(i, j)` spread over the type's range (negative ones for signed types).
fn value<E: Element>(i: u32, j: u32) -> E {
    let h = (i.wrapping_mul(0x9E37_79B9) ^ j.wrapping_mul(0x85EB_CA6B)).rotate_left(13);
    E::from_bits(h.wrapping_mul(0xC2B2_AE35) as u64)
}

/// Small whole numbers as floats, so that sums are exact in any order.
fn whole<E: From<i8>>(i: u32, j: u32) -> E {
    E::from(((i * 7 + j * 13) % 23) as i8 - 11)
}

/// Reduces `L` along dim 1 into `S` by `op` (elements `value(i, j)`) and checks every copy
/// against the CPU fold of the row, and what each thread issued against the plan's cost.
fn check<L, S, E, O, const N: usize, const M: usize>(op: O, value: fn(u32, u32) -> E)
where
    L: Registers<N>,
    S: Registers<M>,
    E: Element + Send + Sync,
    O: Op<E> + Send + Sync,
{
    let threads = L::IN_DIMS[1].size * L::IN_DIMS[2].size;
    let plan = Slice::<L, S, 1, N, M>::PLAN;
    let cost = plan.cost_with(M as u32, E::BITS, O::REDUX.is_some());
    let shared = Slice::<L, S, 1, N, M>::shared_bytes(E::BITS / 8);
    let width = L::SHAPE[1];
    launch(Launch::new(1, threads, shared), |t| {
        let x = Tile::<L, E, N>::from_coords(t, |[i, j]| value(i, j));
        let before = t.issued();
        let s: Tile<S, E, M> = x.reduce_op_into::<1, S, M>(t, op);
        let after = t.issued();
        for (m, v) in s.values.iter().enumerate() {
            let i = S::coord([m as u32, t.lane(), t.warp(), 0], 0);
            let want = (1..width).fold(value(i, 0), |a, j| op.combine(a, value(i, j)));
            assert_eq!(v.to_bits(), want.to_bits(), "row {}", i);
        }
        assert_eq!(after.redux - before.redux, cost.redux, "redux.sync");
        assert_eq!(after.shuffles - before.shuffles, cost.shuffles, "shuffles");
        // Only one copy of each warp's partials stores it.
        assert!(
            after.shared_stores - before.shared_stores <= cost.stores,
            "stores"
        );
        assert!(
            after.shared_loads - before.shared_loads <= cost.loads,
            "loads"
        );
    })
    .expect("no simulator issue");
}

/// Every operator on `E` over the three layouts.
fn all_ops<E>()
where
    E: Element + Send + Sync,
    Sum: Op<E>,
    Max: Op<E>,
    Min: Op<E>,
    BitAnd: Op<E>,
    BitOr: Op<E>,
    BitXor: Op<E>,
{
    check::<Warp, WarpSum, E, _, 2, 1>(Sum, value::<E>);
    check::<Warp, WarpSum, E, _, 2, 1>(Max, value::<E>);
    check::<Warp, WarpSum, E, _, 2, 1>(Min, value::<E>);
    check::<Warp, WarpSum, E, _, 2, 1>(BitAnd, value::<E>);
    check::<Warp, WarpSum, E, _, 2, 1>(BitOr, value::<E>);
    check::<Warp, WarpSum, E, _, 2, 1>(BitXor, value::<E>);
    check::<Across, AcrossSum, E, _, 4, 4>(Sum, value::<E>);
    check::<Across, AcrossSum, E, _, 4, 4>(Min, value::<E>);
    check::<Part, PartSum, E, _, 4, 1>(Max, value::<E>);
    check::<Part, PartSum, E, _, 4, 1>(BitXor, value::<E>);
    check::<Halves, HalvesSum, E, _, 2, 1>(Sum, value::<E>);
    check::<Halves, HalvesSum, E, _, 2, 1>(Min, value::<E>);
    check::<Halves, HalvesSum, E, _, 2, 1>(BitAnd, value::<E>);
    check::<Copies, CopiesSum, E, _, 1, 1>(Sum, value::<E>);
    check::<Copies, CopiesSum, E, _, 1, 1>(BitXor, value::<E>);
    check::<Copies, CopiesSum, E, _, 1, 1>(Max, value::<E>);
}

#[test]
fn integer_reductions_over_a_whole_warp_take_one_redux_sync() {
    all_ops::<i32>();
    all_ops::<u32>();
    all_ops::<i16>();
    all_ops::<u16>();
    all_ops::<i8>();
    all_ops::<u8>();
    // 64-bit integers have no redux.sync: butterflies, two shuffles per element per step.
    all_ops::<u64>();
    all_ops::<i64>();
}

#[test]
fn float_reductions_keep_the_butterflies() {
    check::<Warp, WarpSum, f32, _, 2, 1>(Sum, whole::<f32>);
    check::<Warp, WarpSum, f32, _, 2, 1>(Max, whole::<f32>);
    check::<Across, AcrossSum, f64, _, 4, 4>(Sum, whole::<f64>);
    check::<Across, AcrossSum, f64, _, 4, 4>(Min, whole::<f64>);
    let plan = Slice::<Warp, WarpSum, 1, 2, 1>::PLAN;
    assert_eq!(plan.redux_groups(), 1);
    assert_eq!(Slice::<Halves, HalvesSum, 1, 2, 1>::PLAN.redux_groups(), 2);
    assert_eq!(Slice::<Copies, CopiesSum, 1, 1, 1>::PLAN.redux_groups(), 1);
    assert_eq!(Slice::<Part, PartSum, 1, 4, 1>::PLAN.redux_groups(), 0);
    assert_eq!(plan.cost_with(1, 32, true).redux, 1);
    assert_eq!(plan.cost_with(1, 32, true).shuffles, 0);
    assert_eq!(plan.cost(1, 32).shuffles, 5);
}

#[test]
fn sum_max_and_min_are_one_call_each() {
    launch(Launch::new(1, 128, 0), |t| {
        let x = Tile::<Warp, i32, 2>::from_coords(t, |[i, j]| j as i32 - i as i32);
        let s: Tile<WarpSum, i32, 1> = x.sum::<1>(t);
        let hi: Tile<WarpSum, i32, 1> = x.max::<1>(t);
        let lo: Tile<WarpSum, i32, 1> = x.min::<1>(t);
        let i = t.warp() as i32;
        assert_eq!(s.values, [2016 - 64 * i]);
        assert_eq!((hi.values, lo.values), ([63 - i], [-i]));
        let f = Tile::<Warp, f32, 2>::from_coords(t, |[_, j]| j as f32);
        let fs: Tile<WarpSum, f32, 1> = f.sum::<1>(t);
        assert_eq!(fs.values, [2016.0]);
        // 16-bit floats combine in f32, rounded back each time (exact for these integers).
        let h = Tile::<Warp, F16, 2>::from_coords(t, |[_, j]| F16::round(j as f32));
        let hs: Tile<WarpSum, F16, 1> = h.sum::<1>(t);
        let hm: Tile<WarpSum, F16, 1> = h.max::<1>(t);
        assert_eq!((hs.values[0].widen(), hm.values[0].widen()), (2016.0, 63.0));
        let b = Tile::<Warp, Bf16, 2>::from_coords(t, |[_, j]| Bf16::round(j as f32 - 32.0));
        let bm: Tile<WarpSum, Bf16, 1> = b.min::<1>(t);
        assert_eq!(bm.values[0].widen(), -32.0);
    })
    .expect("no simulator issue");
}
