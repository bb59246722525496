// The whole CTA initialises its mbarriers together, on the CTA's own thread: a warp-specialised
// role's thread (a `Partition`) has its own warp 0 and its own barrier, so two roles would
// initialise the same barriers and neither would wait for the other's.
use linear_layouts::sim::{launch, Launch};
use linear_layouts::{Hopper, MBarriers, Partition};

fn setup<T: Hopper>(t: &T) {
    if let Some(p) = Partition::of(t, 0, 4, 1) {
        let _ = MBarriers::<2>::init(&p, 0, 1);
    }
}

fn main() {
    launch(Launch::new(1, 256, 64), |t| setup(t)).unwrap();
}
