// An mbarrier operation on a raw offset touches whatever shared bytes it names: the raw forms are
// `unsafe`, and safe code uses an `MBarrier`, checked inside the kernel's shared memory when made.
use linear_layouts::Hopper;

#[allow(dead_code)]
fn wait(t: &impl Hopper) {
    t.mbarrier_wait(1 << 20, 0);
}

fn main() {}
