use linear_layouts::{kernel, GlobalMut};

#[kernel]
pub fn k(out: GlobalMut<u32>, n: u32) {
    let _ = (out, n);
}

fn main() {}
