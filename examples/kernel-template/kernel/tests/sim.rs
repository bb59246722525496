//! The kernel on the CPU simulator: the same function the GPU runs, every element checked.

use linear_layouts::F16;
use linear_layouts::sim::{HostMemory, Launch, launch};
use my_kernels::{
    CROSS_ENTROPY, SILU, SOFTMAX, TRANSPOSE, cross_entropy, silu, softmax, transpose,
};

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

/// Pseudo-random values in [-4, 4).
fn random(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 8) as f32 / (1 << 24) as f32 * 8.0 - 4.0
        })
        .collect()
}

#[test]
fn softmax_on_the_simulator() {
    // 10 rows of 1,000: the last block's rows 10 and 11 and every row's last 24 columns are
    // past the tensor.
    let (rows, cols) = (10u32, 1000u32);
    let x = random((rows * cols) as usize, 7);
    let xm = HostMemory::new(x.iter().map(|v| v.to_bits() as u64));
    let ym = HostMemory::new((0..rows * cols + 8).map(|_| u64::MAX));
    let l = Launch::dims(
        [rows.div_ceil(4), 1, 1],
        SOFTMAX.block(),
        SOFTMAX.shared_bytes(),
    );
    launch(l, |t| {
        softmax(
            t,
            xm.view([rows, cols]),
            ym.chunks_mut([rows, cols]),
            rows,
            cols,
        )
    })
    .expect("simulator");
    for i in 0..rows as usize {
        let row = &x[i * cols as usize..][..cols as usize];
        let m = row.iter().fold(f64::MIN, |a, &v| a.max(v as f64));
        let sum: f64 = row.iter().map(|&v| (v as f64 - m).exp()).sum();
        for (j, &v) in row.iter().enumerate() {
            let want = (v as f64 - m).exp() / sum;
            let got = f32::from_bits(ym.get(i * cols as usize + j) as u32) as f64;
            assert!(
                (got - want).abs() <= 1e-5 * want + 1e-9,
                "({i}, {j}): {got} vs {want}"
            );
        }
    }
    assert!((rows * cols..rows * cols + 8).all(|i| ym.get(i as usize) == u64::MAX));
}

#[test]
fn cross_entropy_on_the_simulator() {
    // 10 rows of 1,000 classes; targets at both ends (0 and 999) and between.
    let (rows, cols) = (10u32, 1000u32);
    let x: Vec<F16> = random((rows * cols) as usize, 11)
        .iter()
        .map(|&v| F16::from_f32(v))
        .collect();
    let mut target: Vec<i32> = (0..rows as i32).map(|i| i * 271 % 1000).collect();
    (target[1], target[9]) = (999, 0);
    assert!(target.contains(&999) && target.contains(&0));
    let xm = HostMemory::new(x.iter().map(|h| h.0 as u64));
    let tm = HostMemory::new(target.iter().map(|&c| c as u32 as u64));
    let lm = HostMemory::new((0..rows + 2).map(|_| u64::MAX));
    let l = Launch::dims(
        [rows.div_ceil(4), 1, 1],
        CROSS_ENTROPY.block(),
        CROSS_ENTROPY.shared_bytes(),
    );
    launch(l, |t| {
        let (logits, targets) = (xm.view([rows, cols]), tm.view([rows]));
        cross_entropy(t, logits, targets, lm.chunks_mut([rows]), rows, cols)
    })
    .expect("simulator");
    for i in 0..rows as usize {
        let row: Vec<f64> = (0..cols as usize)
            .map(|j| x[i * cols as usize + j].to_f32() as f64)
            .collect();
        let m = row.iter().fold(f64::MIN, |a, &v| a.max(v));
        let lse = m + row.iter().map(|&v| (v - m).exp()).sum::<f64>().ln();
        let want = lse - row[target[i] as usize];
        let got = f32::from_bits(lm.get(i) as u32) as f64;
        // The fast exp and log (`ex2.approx`, `lg2.approx`) in f32 over 1,000 terms.
        assert!(
            (got - want).abs() <= 1e-4 * want.abs() + 1e-4,
            "row {i}: {got} vs {want}"
        );
    }
    assert!(
        (rows..rows + 2).all(|i| lm.get(i as usize) == u64::MAX),
        "nothing past the rows"
    );
}
