//! Tensor views on the simulator: a tile loads and stores by its origin alone, masked against the
//! view's shape (tails read as `other`, nothing written outside), each element stored once, with
//! row-major, strided and aligned views; the same values as the masked loads with the triplets.

use linear_layouts::sim::{launch, HostMemory, Launch};
use linear_layouts::{layout, Thread, Tile};

layout! {
    Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 32];
    RowSums = slice(dim = 1, parent = Rows) for [16];
    // Dim 0 contiguous: a column-major tensor's tile.
    Cols = blocked(sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]) for [32, 16];
}

fn memory(n: usize, f: impl Fn(usize) -> f32) -> HostMemory {
    HostMemory::new((0..n).map(|i| f(i).to_bits() as u64))
}

fn value(m: &HostMemory, i: usize) -> f32 {
    f32::from_bits(m.get(i) as u32)
}

/// A 21 x 37 tensor in tiles of 16 x 32: every tile but the first has a masked tail.
#[test]
fn loads_and_stores_mask_against_the_shape() {
    let (rows, cols) = (21u32, 37u32);
    let x = memory((rows * cols) as usize, |i| i as f32);
    let y = memory((rows * cols) as usize, |_| -1.0);
    let sums = memory(rows as usize, |_| -1.0);
    launch(Launch::new(4, 128, 0), |t| {
        let b = t.block_idx()[0];
        let origin = [16 * (b / 2), 32 * (b % 2)];
        let (xv, yv) = (x.global().view([rows, cols]), y.global_mut());
        let v = xv.load::<Rows>(t, origin, 0.5);
        let same =
            Tile::<Rows, f32, 4>::load_masked(t, &x.global(), origin, [cols, 1], [rows, cols], 0.5);
        assert_eq!(v, same);
        yv.view([rows, cols]).store(t, origin, &(v * 2.0));
        if b % 2 == 0 {
            // Row sums of the first 32 columns, stored once per row however many threads hold it.
            let s = v.sum::<1>(t);
            sums.global_mut().view([rows]).store(t, [origin[0]], &s);
        }
    })
    .expect("simulator");
    for i in 0..(rows * cols) as usize {
        assert_eq!(value(&y, i), 2.0 * i as f32, "element {}", i);
        assert_eq!(y.stores(i), 1, "element {}", i);
    }
    for r in 0..rows as usize {
        let want: f32 = (0..32).map(|c| (r * cols as usize + c) as f32).sum();
        assert_eq!(value(&sums, r), want, "row {}", r);
        assert_eq!(sums.stores(r), 1, "row {}", r);
    }
}

/// A column-major view (`with_strides`) reads the transpose; an aligned view (widths multiples of
/// the vector) gives the same values.
#[test]
fn strided_and_aligned_views() {
    let x = memory(64 * 64, |i| i as f32);
    launch(Launch::new(1, 128, 0), |t| {
        let rows = x.global().view([64, 64]);
        let cols = rows.with_strides([1, 64]);
        assert_eq!(
            (rows.shape(), rows.strides(), cols.strides()),
            ([64, 64], [64, 1], [1, 64])
        );
        let a = rows.load::<Rows>(t, [16, 32], 0.0);
        let b = rows.aligned().load::<Rows>(t, [16, 32], 0.0);
        assert_eq!(a, b);
        assert_eq!(
            a,
            Tile::from_coords(t, |[i, j]| ((16 + i) * 64 + 32 + j) as f32)
        );
        // Element (i, j) of the column-major view is memory 64 j + i: Cols' fast dim is 0,
        // contiguous there, so it loads in vectors down the columns.
        let c = cols.load::<Cols>(t, [32, 16], 0.0);
        assert_eq!(
            c,
            Tile::from_coords(t, |[i, j]| ((16 + j) * 64 + 32 + i) as f32)
        );
    })
    .expect("simulator");
}
