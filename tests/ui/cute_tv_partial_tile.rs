use linear_layouts::layout;

// mma.sync's 16x8 accumulator does not cover a 16x16 tile.
layout! {
    pub Tv = tv(((_4,_8),(_2,_2)):((_32,_1),(_16,_8))) for [16, 16];
}

fn main() {}
