//! `trans`, `reshape`, `join` and `split` on the simulator: every register keeps its value and
//! the new layout places it where the old one did (transposed, flattened, or with the new minor
//! dim), with no shared memory or shuffle.

use linear_layouts::sim::{launch, Launch};
use linear_layouts::{layout, Layout, Thread, Tile};

layout! {
    Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 32];
    // Rows transposed: the same threads and registers, dims swapped.
    RowsT = blocked(sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]) for [32, 16];
    // Rows flattened row-major: 4 consecutive elements per thread, lanes, then warps.
    Flat = blocked(sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]) for [512];
    // Rows with a new minor dim of 2 in a new lowest register bit (tt.join).
    // Rows summed over dim 0, then that dim back as size 1 (tt.expand_dims).
    ColSums = slice(dim = 0, parent = Rows) for [32];
    Row = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [1, 32];
    Pairs = linear(register = [[0, 0, 1], [0, 1, 0], [0, 2, 0]], lane = [[0, 4, 0], [0, 8, 0], [0, 16, 0], [1, 0, 0], [2, 0, 0]], warp = [[4, 0, 0], [8, 0, 0]], block = []) for [16, 32, 2];
}

#[test]
fn relayouts_keep_every_element_where_it_was() {
    launch(Launch::new(1, 128, 0), |t| {
        let at = |r: usize| [r as u32, t.lane(), t.warp(), 0];
        let x = Tile::<Rows, u32, 4>::from_coords(t, |[i, j]| 32 * i + j);
        let xt = x.trans::<RowsT>();
        for r in 0..4 {
            assert_eq!(
                xt.values[r],
                32 * RowsT::coord(at(r), 1) + RowsT::coord(at(r), 0)
            );
        }
        let f = x.reshape::<Flat>();
        for r in 0..4 {
            assert_eq!(f.values[r], Flat::coord(at(r), 0));
        }
        let y = x.map(|v| v + 1000);
        let p = x.join::<Pairs>(&y);
        for r in 0..8 {
            let (i, j, k) = (
                Pairs::coord(at(r), 0),
                Pairs::coord(at(r), 1),
                Pairs::coord(at(r), 2),
            );
            assert_eq!(p.values[r], 32 * i + j + 1000 * k);
        }
        let (a, b) = p.split::<Rows>();
        assert_eq!((a.values, b.values), (x.values, y.values));
        // The form with the count named splits the same.
        assert_eq!(p.split_into::<Rows, 4>(), (a, b));
        assert_eq!(x.join_into::<Pairs, 8>(&y), p);
    })
    .expect("no simulator issue");
}

#[test]
fn expand_dims_puts_a_size_one_dim_back() {
    // The sum over dim 0 crosses warps: it stages through shared memory.
    let smem = linear_layouts::reduce::Slice::<Rows, ColSums, 0, 4, 4>::SHARED_BYTES;
    launch(Launch::new(1, 128, smem), |t| {
        let x = Tile::<Rows, u32, 4>::from_coords(t, |[i, j]| 32 * i + j);
        let sums: Tile<ColSums, u32, 4> = x.reduce::<0>(t, |a, b| a + b);
        let row = sums.expand_dims::<0, Row>();
        // Column j sums 32 i + j over i < 16.
        let want = Tile::<Row, u32, 4>::from_coords(t, |[_, j]| 32 * 120 + 16 * j);
        assert_eq!(row.values, want.values);
    })
    .expect("no simulator issue");
}
