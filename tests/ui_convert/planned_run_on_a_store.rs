// `run` between a distributed and a shared layout: the shared side holds no registers, which
// `cargo check` reports for declared layouts (the note says to store or load instead).
use linear_layouts::planned::Planned;
use linear_layouts::sim::{launch, Launch};
use linear_layouts::layout;

layout! {
    Rows = blocked(sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    Swz = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]) for [64, 64];
}

fn main() {
    let _ = launch(Launch::new(1, 128, 8192), |t| {
        let _: [u16; 32] = Planned::<Rows, Swz, u16>::NEW.run(t, &[0u16; 32]);
    });
}
