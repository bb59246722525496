//! The kernel on the CPU simulator: the same function the GPU runs, every element checked.

use linear_layouts::F16;
use linear_layouts::sim::{HostMemory, Launch, launch};
use my_kernels::{SILU, TRANSPOSE, silu, transpose};

#[test]
fn transpose_on_the_simulator() {
    let n = 128u32;
    let inp = HostMemory::new((0..n * n).map(|i| (i as f32).to_bits() as u64));
    let out = HostMemory::new((0..n * n).map(|_| u64::MAX));
    let l = Launch::dims(
        [n / 64, n / 64, 1],
        TRANSPOSE.block(),
        TRANSPOSE.shared_bytes(),
    );
    launch(l, |t| transpose(t, inp.blocks(n), out.blocks_mut(n), n)).expect("simulator");
    for i in 0..n as usize {
        for j in 0..n as usize {
            assert_eq!(out.get(j * n as usize + i), inp.get(i * n as usize + j));
        }
    }
}

#[test]
fn silu_on_the_simulator() {
    // 2,000 halves: the second tile's last 48 elements are past the tensor.
    let x: Vec<F16> = (0..2048)
        .map(|i| F16::from_f32(i as f32 / 128.0 - 8.0))
        .collect();
    let xm = HostMemory::new(x.iter().map(|h| h.0 as u64));
    let ym = HostMemory::new(x.iter().map(|_| u64::MAX));
    let l = Launch::dims([2, 1, 1], SILU.block(), SILU.shared_bytes());
    launch(l, |t| silu(t, xm.view([2000]), ym.chunks_mut([2000]), 2000)).expect("simulator");
    for (i, x) in x.iter().enumerate().take(2000) {
        let (x, y) = (x.to_f32() as f64, F16(ym.get(i) as u16).to_f32() as f64);
        // Half an f16 ulp of rounding, the fast instructions' error well inside it.
        assert!(
            (y - x / (1.0 + (-x).exp())).abs() <= 1e-3 * y.abs().max(1e-2),
            "silu({x}) = {y}"
        );
    }
    assert!(
        (2000..2048).all(|i| ym.get(i) == u64::MAX),
        "nothing stored past n"
    );
}
