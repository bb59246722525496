// A slice of a parent of the same block has the parent's shape without its dim: another shape
// is an error at the shape, naming the right one (which may also be left out).
use linear_layouts::layout;

layout! {
    Cols = blocked(sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 128];
    ColSums = slice(dim = 0, parent = Cols) for [64];
}

fn main() {}
