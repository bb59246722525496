// A conversion between distributed layouts is not a store: `shared_store` names the method that
// fits, and a wrong register count names the layout's.
use linear_layouts::layout;
use linear_layouts::planned::Planned;
use linear_layouts::SharedStore;

layout! {
    pub Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]) for [4, 32];
    pub Pairs = blocked(sizePerThread = [2, 2], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]) for [4, 32];
    pub Swz = swizzled_shared(vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]) for [4, 32];
}

const NOT_A_STORE: SharedStore<u32, 4> = Planned::<Rows, Pairs, u32>::NEW.shared_store();
const WRONG_LENGTH: SharedStore<u32, 8> = Planned::<Rows, Swz, u32>::NEW.shared_store();

fn main() {
    let _ = (NOT_A_STORE, WRONG_LENGTH);
}
