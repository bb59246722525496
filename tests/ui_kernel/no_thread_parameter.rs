use linear_layouts::{kernel, GlobalMut};

#[kernel]
pub fn k(out: GlobalMut<u32>, n: u32) {
    out.store1(0, n);
}

fn main() {}
