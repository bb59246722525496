use linear_layouts::layout;
use linear_layouts::reduce::Slice;

layout! {
    Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]) for [16, 32];
    // The slice along dim 0, named for a reduction along dim 1.
    Columns = slice(dim = 0, parent = Rows) for [32];
}

// What `Tile::<Rows, f32, 4>::reduce_into::<1, Columns, 4>` evaluates when it is instantiated.
const _: () = assert!(Slice::<Rows, Columns, 1, 4, 4>::SHARED_BYTES == 0);

fn main() {}
