// A scan along a dim the layout lacks (Triton's `axis` past the rank) is a build error naming
// the layout, the dim and how many dims it has: here through the scratch a kernel declares for
// it, which the scan in the body checks the same way.
use linear_layouts::{layout, scan};

layout! {
    Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]) for [32, 16];
}

const SCRATCH: u32 = scan::shared_bytes::<Rows, 2, f32>();

fn main() {
    let _ = SCRATCH;
}
