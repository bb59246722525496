//! The row kernels on the simulator against f64 references, at widths from 1 to 1,024 (masked
//! tails included) and row counts that do not fill the last CTA. Tolerances: softmax within
//! 2^-20 relative + 1e-9 absolute of each probability (f32 `ex2.approx` and `rcp.approx` are
//! each within 2^-22 relative, the sum's rounding adds n * 2^-24 at most: well inside); layer
//! norm within one f16 ulp of the output plus the f32 statistics' error (tiny next to it).

use kernels::rows::{layer_norm_body, softmax_body, LayerNormIo, ROWS_PER_CTA};
use linear_layouts::sim::{launch, HostMemory, Launch};
use linear_layouts::F16;

fn random(n: usize, seed: u64, scale: f64) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * scale
        })
        .collect()
}

fn grid(n_rows: u32) -> u32 {
    n_rows.div_ceil(ROWS_PER_CTA)
}

#[test]
fn softmax_matches_f64_at_every_width() {
    for (n_rows, n_cols) in [(5, 1), (4, 37), (9, 100), (3, 1000), (8, 1024), (6, 513)] {
        let x: Vec<f32> = random((n_rows * n_cols) as usize, n_cols as u64, 8.0)
            .iter()
            .map(|&v| v as f32)
            .collect();
        let xm = HostMemory::new(x.iter().map(|v| v.to_bits() as u64));
        let ym = HostMemory::new(x.iter().map(|_| f32::NAN.to_bits() as u64));
        launch(Launch::new(grid(n_rows), 128, 0), |t| {
            softmax_body(t, &xm.global(), &ym.global_mut(), n_rows, n_cols)
        })
        .expect("no simulator issue");
        for i in 0..n_rows as usize {
            let row = &x[i * n_cols as usize..(i + 1) * n_cols as usize];
            let max = row.iter().fold(f64::MIN, |m, &v| m.max(v as f64));
            let sum: f64 = row.iter().map(|&v| (v as f64 - max).exp()).sum();
            for (j, &v) in row.iter().enumerate() {
                let want = (v as f64 - max).exp() / sum;
                let got = f32::from_bits(ym.get(i * n_cols as usize + j) as u32) as f64;
                assert!(
                    (got - want).abs() <= want * 2f64.powi(-20) + 1e-9,
                    "[{}, {}] of {}x{}: {} vs {}",
                    i,
                    j,
                    n_rows,
                    n_cols,
                    got,
                    want
                );
            }
        }
    }
}

#[test]
fn layer_norm_matches_f64_at_every_width() {
    for (n_rows, n_cols) in [(5, 1), (4, 37), (9, 100), (3, 1000), (8, 1024)] {
        let half = |v: &f64| F16::from_f32(*v as f32);
        let x: Vec<F16> = random((n_rows * n_cols) as usize, 7 + n_cols as u64, 4.0)
            .iter()
            .map(half)
            .collect();
        let w: Vec<F16> = random(n_cols as usize, 11, 2.0).iter().map(half).collect();
        let b: Vec<F16> = random(n_cols as usize, 13, 1.0).iter().map(half).collect();
        let mem = |v: &[F16]| HostMemory::new(v.iter().map(|h| h.0 as u64));
        let (xm, wm, bm) = (mem(&x), mem(&w), mem(&b));
        let ym = HostMemory::new(x.iter().map(|_| 0xffff));
        let (mm, rm) = (
            HostMemory::new((0..n_rows).map(|_| 0)),
            HostMemory::new((0..n_rows).map(|_| 0)),
        );
        launch(Launch::new(grid(n_rows), 128, 0), |t| {
            let (xg, wg, bg, yg, mg, rg) = (
                xm.global(),
                wm.global(),
                bm.global(),
                ym.global_mut(),
                mm.global_mut(),
                rm.global_mut(),
            );
            let io = LayerNormIo {
                x: &xg,
                w: &wg,
                b: &bg,
                y: &yg,
                mean: &mg,
                rstd: &rg,
            };
            layer_norm_body(t, &io, n_rows, n_cols, 1e-5)
        })
        .expect("no simulator issue");
        for i in 0..n_rows as usize {
            let row: Vec<f64> = (0..n_cols as usize)
                .map(|j| x[i * n_cols as usize + j].to_f32() as f64)
                .collect();
            let mean = row.iter().sum::<f64>() / n_cols as f64;
            let var = row.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n_cols as f64;
            let rstd = 1.0 / (var + 1e-5).sqrt();
            assert!(
                (f32::from_bits(mm.get(i) as u32) as f64 - mean).abs() <= 1e-5 * (1.0 + mean.abs())
            );
            assert!((f32::from_bits(rm.get(i) as u32) as f64 - rstd).abs() <= 1e-5 * rstd);
            for j in 0..n_cols as usize {
                let want = (row[j] - mean) * rstd * w[j].to_f32() as f64 + b[j].to_f32() as f64;
                let got = F16(ym.get(i * n_cols as usize + j) as u16).to_f32() as f64;
                let ulp = 2f64.powf(want.abs().max(6.1e-5).log2().floor() - 10.0);
                assert!(
                    (got - want).abs() <= ulp + 1e-4 * rstd,
                    "[{}, {}] of {}x{}: {} vs {}",
                    i,
                    j,
                    n_rows,
                    n_cols,
                    got,
                    want
                );
            }
        }
    }
}
