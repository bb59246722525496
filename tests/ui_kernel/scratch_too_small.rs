// A kernel declares its shared memory once; every conversion, reduction and scan in its body
// checks its scratch against it when the body is compiled (for the GPU and for the simulator
// alike), and the error names the bytes needed.
use linear_layouts::sim::{launch, HostMemory, Launch};
use linear_layouts::{kernel, layout, Thread, Tile, TilesMut};

layout! {
    // Rows across 4 warps: the row sums meet in shared memory.
    Wide = blocked(sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [1, 0]) for [8, 64];
    WideSums = slice(dim = 1, parent = Wide) for [8];
}

#[kernel(block = 128, shared = 16)]
fn row_sums(t: &impl Thread, out: TilesMut<f32, WideSums>) {
    let x = Tile::<Wide, f32, _>::splat(1.0);
    out.store(t, &x.sum::<1>(t));
}

fn main() {
    let out = HostMemory::new((0..8).map(|_| 0));
    launch(Launch::new(1, 128, 1024), |t| row_sums(t, out.tiles_mut())).unwrap();
}
