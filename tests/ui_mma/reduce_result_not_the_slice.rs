// The slice a reduction gives is a type: keeping it as another layout is a type error naming
// the slice.
use linear_layouts::sim::{launch, Launch};
use linear_layouts::{layout, Tile};

layout! {
    Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 32];
    RowSums = slice(dim = 1, parent = Rows) for [16];
    ColSums = slice(dim = 0, parent = Rows) for [32];
}

fn main() {
    launch(Launch::new(1, 128, 0), |t| {
        let x = Tile::<Rows, f32, _>::splat(1.0);
        let _: Tile<ColSums, f32, _> = x.sum::<1>(t);
    })
    .unwrap();
}
