// An async copy moves 4, 8 or 16 bytes: a layout with one u16 per thread along the row cannot
// be copied by `cp.async` into this shared layout.
use linear_layouts::{convert, layout, AsyncCopy};

layout! {
    Rows = blocked(sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 1], order = [1, 0]) for [16, 64];
    Swz = swizzled_shared(vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]) for [16, 64];
}

const COPY: AsyncCopy<Rows, u16> = AsyncCopy::new(convert!(Rows => Swz, u16));

fn main() {
    let _ = COPY;
}
