use linear_layouts::layout;

// CuTe adds 1 * c0 + 2 * c1 with carries: not a linear layout.
layout! {
    pub Sm = (_4,_2):(_1,_2) for [4, 2];
}

fn main() {}
