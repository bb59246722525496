//! `convert!` whose sides are a type alias and generic parameters compiles (and, being a pass
//! test, makes trybuild build every UI test, so that errors found while compiling for concrete
//! layouts are reported as `cargo build` reports them).

use linear_layouts::sim::{launch, Launch};
use linear_layouts::{convert, layout, Layout, Thread};

mod tiles {
    use linear_layouts::layout;
    layout! {
        pub Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]) for [64, 64];
    }
}

layout! {
    pub Cols = blocked(sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]) for [64, 64];
}

type R = tiles::Rows;

fn regroup<A: Layout, B: Layout, const N: usize, const M: usize>(t: &impl Thread, v: &[f32; N]) -> [f32; M] {
    convert!(A => B, f32).run(t, v)
}

fn main() {
    let cvt = convert!(R => Cols, f32);
    launch(Launch::new(1, 128, cvt.shared_bytes()), |t| {
        let v = [0f32; 32];
        let w: [f32; 32] = cvt.run(t, &v);
        let x: [f32; 32] = regroup::<Cols, R, 32, 32>(t, &w);
        assert_eq!(x, v);
    })
    .unwrap();
}
