use linear_layouts::{layout, Global, Thread, Tile, F16};

layout! {
    pub Coalesced = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [128, 128];
}

// A helper nothing calls: the count is still checked, by `cargo check` too.
#[allow(dead_code)]
fn load_half(t: &impl Thread, x: &Global<F16>) -> Tile<Coalesced, F16, 8> {
    Tile::<Coalesced, F16, 8>::load(t, x, [0, 0], [128, 1])
}

fn main() {}
