use linear_layouts::{convert, layout};

mod tiles {
    use linear_layouts::layout;
    layout! {
        pub Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    }
}

layout! {
    pub Cols = blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 64];
}

// A `type` alias names the type only; `use tiles::Rows as R;` would bring the layout's macro too.
type R = tiles::Rows;

fn main() {
    let _ = convert!(R => Cols, f32);
}
