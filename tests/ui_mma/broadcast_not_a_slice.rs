// A tile combines with tiles of its own layout, of a slice of it, or with scalars: a row
// statistic of another layout is an error that says which layouts broadcast.
use linear_layouts::{layout, Tile};

layout! {
    Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 32];
    Cols = blocked(sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]) for [16, 32];
    ColStats = slice(dim = 0, parent = Cols) for [32];
}

fn main() {
    let x = Tile::<Rows, f32, 4>::splat(1.0);
    let m = Tile::<ColStats, f32, 2>::splat(1.0);
    let _ = x - m;
}
