//! The kernel on the CPU simulator: the same function the GPU runs, every element checked.

use linear_layouts::sim::{HostMemory, Launch, launch};
use my_kernels::{TRANSPOSE, transpose};

#[test]
fn transpose_on_the_simulator() {
    let n = 128u32;
    let inp = HostMemory::new((0..n * n).map(|i| (i as f32).to_bits() as u64));
    let out = HostMemory::new((0..n * n).map(|_| u64::MAX));
    let l = Launch::dims([n / 64, n / 64, 1], TRANSPOSE.block, TRANSPOSE.shared_bytes);
    launch(l, |t| transpose(t, inp.global(), out.global_mut(), n)).expect("simulator");
    for i in 0..n as usize {
        for j in 0..n as usize {
            assert_eq!(out.get(j * n as usize + i), inp.get(i * n as usize + j));
        }
    }
}
