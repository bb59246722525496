// The copy engine writes rows of one swizzle width swizzled by the row modulo 8; a padded or
// differently swizzled shared layout is not what a TMA box lands as.
use linear_layouts::{layout, TmaTile};

layout! {
    S = swizzled_shared(vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]) for [64, 64];
}

const LOAD: TmaTile<S, u16> = TmaTile::new();

fn main() {
    let _ = LOAD;
}
