// A reduction names only its dim; the result is the slice along it that the layout's block
// declares. A dim with no slice declared is an error at the call that names the slice to declare.
use linear_layouts::sim::{launch, Launch};
use linear_layouts::{layout, Tile};

layout! {
    Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 32];
    RowSums = slice(dim = 1, parent = Rows) for [16];
}

fn main() {
    launch(Launch::new(1, 128, 0), |t| {
        let x = Tile::<Rows, f32, _>::splat(1.0);
        let _ = x.sum::<0>(t);
    })
    .unwrap();
}
