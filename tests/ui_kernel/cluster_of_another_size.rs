// A partition over a layout of a cluster's CTAs stores each CTA's part at its `cta_rank`: a
// kernel launched without that cluster would store the same part from two CTAs.
use linear_layouts::{kernel, layout, Thread, TiledMut, Tile};

layout! {
    Pair = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]) for [64, 64];
}

#[kernel(block = 128, extent(y = n))]
pub fn no_cluster(t: &impl Thread, y: TiledMut<f32, Pair>, n: u32) {
    for k in y.each(t) {
        y.store(t, k, &Tile::<Pair, f32, 16>::splat(1.0));
    }
}

fn main() {}
