//! The scan kernels on the simulator against prefix sums in f64: small integers, so every f32
//! sum is exact and any wrong order, missing step or wrong partner shows.

use kernels::scans::{
    cumsum_line_f32, cumsum_rows_f32, CUMSUM_LINE_F32, CUMSUM_ROWS_F32, SCAN_LINE, SCAN_ROW,
    SCAN_ROWS,
};
use linear_layouts::sim::{launch, HostMemory, Launch};

/// Hashed integers in [-64, 64).
fn inputs(n: usize) -> Vec<f32> {
    (0..n as u64)
        .map(|i| ((i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 57) as f32) - 64.0)
        .collect()
}

/// Runs `kernel` over `x` on `grid` CTAs and returns `y`.
fn run(
    x: &[f32],
    grid: u32,
    (block, shared): (u32, u32),
    kernel: fn(&linear_layouts::sim::SimThread, &HostMemory, &HostMemory),
) -> Vec<f32> {
    let xm = HostMemory::new(x.iter().map(|v| v.to_bits() as u64));
    let ym = HostMemory::new(x.iter().map(|_| f32::NAN.to_bits() as u64));
    let l = Launch::new(grid, block, shared);
    launch(l, |t| kernel(t, &xm, &ym)).expect("no simulator issue");
    (0..x.len())
        .map(|i| f32::from_bits(ym.get(i) as u32))
        .collect()
}

/// Inclusive prefix sums of each `seg` consecutive elements.
fn prefix_sums(x: &[f32], seg: usize) -> Vec<f32> {
    x.chunks(seg)
        .flat_map(|c| {
            c.iter().scan(0f64, |acc, v| {
                *acc += *v as f64;
                Some(*acc as f32)
            })
        })
        .collect()
}

#[test]
fn row_cumsums_are_exact() {
    let x = inputs((4 * SCAN_ROWS * SCAN_ROW) as usize);
    let y = run(
        &x,
        4,
        (CUMSUM_ROWS_F32.block()[0], CUMSUM_ROWS_F32.shared_bytes()),
        |t, x, y| cumsum_rows_f32(t, x.global(), y.global_mut()),
    );
    assert_eq!(y, prefix_sums(&x, SCAN_ROW as usize));
}

#[test]
fn cumsums_across_warps_are_exact() {
    let x = inputs((3 * SCAN_LINE) as usize);
    let y = run(
        &x,
        3,
        (CUMSUM_LINE_F32.block()[0], CUMSUM_LINE_F32.shared_bytes()),
        |t, x, y| cumsum_line_f32(t, x.global(), y.global_mut()),
    );
    assert_eq!(y, prefix_sums(&x, SCAN_LINE as usize));
}
