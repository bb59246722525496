use linear_layouts::layout;

// Lane stride 3 and value stride 2 both reach index bit 1.
layout! {
    pub Tv = tv(((_2,_16),_2):((_3,_4),_2)) for [64, 2];
}

fn main() {}
