// Generic code over a layout and its slice: combining the slice with the parent (`x - m`) needs
// `S: BroadcastTo<L>`, and the error's note says so.
use linear_layouts::{Holds, SliceAlong, Thread, Tile};

fn centre<L, S, const N: usize, const M: usize>(t: &impl Thread, x: &Tile<L, f32, N>) -> Tile<L, f32, N>
where
    L: Holds<f32, N> + SliceAlong<1, Slice = S>,
    S: Holds<f32, M>,
{
    *x - x.max::<1>(t)
}

fn main() {}
