// The same kernel with the shared memory its reduction needs builds and runs.
use linear_layouts::sim::{launch, HostMemory, Launch};
use linear_layouts::{kernel, layout, reduce, Thread, Tile, TilesMut};

layout! {
    Wide = blocked(sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [1, 0]) for [8, 64];
    WideSums = slice(dim = 1, parent = Wide) for [8];
}

#[kernel(block = 128, shared = reduce::shared_bytes::<Wide, 1, f32>())]
fn row_sums(t: &impl Thread, out: TilesMut<f32, WideSums>) {
    let x = Tile::<Wide, f32, _>::splat(1.0);
    out.store(t, &x.sum::<1>(t));
}

fn main() {
    let out = HostMemory::new((0..8).map(|_| 0));
    let shared = ROW_SUMS.shared_bytes();
    assert!(shared > 16);
    launch(Launch::new(1, 128, shared), |t| row_sums(t, out.tiles_mut())).unwrap();
    assert_eq!(f32::from_bits(out.get(7) as u32), 64.0);
}
