// A raw shared-memory offset is `unsafe`: nothing on the GPU checks it against the kernel's
// shared bytes or orders it with other threads.
use linear_layouts::Thread;

#[allow(dead_code)]
fn poke(t: &impl Thread) {
    t.st_shared(1 << 20, 4, [1, 0, 0, 0]);
}

fn main() {}
