// A scan along a dim the layout lacks (Triton's `axis` past the rank) is a build error naming
// the layout, the dim and how many dims it has.
use linear_layouts::sim::{launch, HostMemory, Launch};
use linear_layouts::{kernel, layout, Thread, Tile, TilesMut};

layout! {
    Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]) for [32, 16];
}

#[kernel(block = 128)]
fn prefix_sums(t: &impl Thread, out: TilesMut<f32, Rows>) {
    let x = Tile::<Rows, f32, _>::splat(1.0);
    out.store(t, &x.scan::<2>(t, |a, b| a + b));
}

fn main() {
    let out = HostMemory::new((0..512).map(|_| 0));
    launch(Launch::new(1, 128, 0), |t| prefix_sums(t, out.tiles_mut())).unwrap();
}
