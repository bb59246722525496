// A safe kernel writes only its CTA's part of an output: partitions (`TilesMut`, `ChunksMut`,
// ...) store only the CTA's own tile, and cannot be made over a buffer without `unsafe` (their
// contracts are what the launcher checks); a view stores anywhere inside its shape, so its
// stores are `unsafe` (who else writes there is the caller's promise).
use linear_layouts::{layout, GlobalMut, Thread, Tile, TilesMut, ViewMut};

layout! {
    Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
}

#[allow(dead_code)]
fn anywhere<'a>(y: GlobalMut<'a, f32>) -> TilesMut<'a, f32, Rows> {
    TilesMut::new_unchecked(y)
}

#[allow(dead_code)]
fn another_ctas_rows(t: &impl Thread, y: &ViewMut<f32, 2>) {
    y.store(t, [64 * (t.block_idx()[0] + 1), 0], &Tile::<Rows, f32, 32>::splat(0.0));
}

fn main() {}
