//! The scan kernels on the simulator against prefix sums in f64: small integers, so every f32
//! sum is exact and any wrong order, missing step or wrong partner shows.

use kernels::scans::{
    compaction_offsets_rows, cumsum_line_f32, cumsum_rows_f32, suffix_sums_exclusive_line_f32,
    suffix_sums_rows_f32, COMPACTION_OFFSETS_ROWS, CUMSUM_LINE_F32, CUMSUM_ROWS_F32, SCAN_LINE,
    SCAN_ROW, SCAN_ROWS, SUFFIX_SUMS_EXCLUSIVE_LINE_F32, SUFFIX_SUMS_ROWS_F32,
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
        |t, x, y| cumsum_rows_f32(t, x.tiles(), y.tiles_mut()),
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
        |t, x, y| cumsum_line_f32(t, x.tiles(), y.tiles_mut()),
    );
    assert_eq!(y, prefix_sums(&x, SCAN_LINE as usize));
}

/// Suffix sums of each `seg` consecutive elements: inclusive, or leaving each element out.
fn suffix_sums(x: &[f32], seg: usize, exclusive: bool) -> Vec<f32> {
    x.chunks(seg)
        .flat_map(|c| {
            let mut out = vec![0f32; c.len()];
            let mut acc = 0f64;
            for j in (0..c.len()).rev() {
                if !exclusive {
                    acc += c[j] as f64;
                }
                out[j] = acc as f32;
                if exclusive {
                    acc += c[j] as f64;
                }
            }
            out
        })
        .collect()
}

#[test]
fn row_suffix_sums_are_exact() {
    let x = inputs((3 * SCAN_ROWS * SCAN_ROW) as usize);
    let y = run(
        &x,
        3,
        (
            SUFFIX_SUMS_ROWS_F32.block()[0],
            SUFFIX_SUMS_ROWS_F32.shared_bytes(),
        ),
        |t, x, y| suffix_sums_rows_f32(t, x.tiles(), y.tiles_mut()),
    );
    assert_eq!(y, suffix_sums(&x, SCAN_ROW as usize, false));
}

#[test]
fn exclusive_suffix_sums_across_warps_are_exact() {
    let x = inputs((3 * SCAN_LINE) as usize);
    let y = run(
        &x,
        3,
        (
            SUFFIX_SUMS_EXCLUSIVE_LINE_F32.block()[0],
            SUFFIX_SUMS_EXCLUSIVE_LINE_F32.shared_bytes(),
        ),
        |t, x, y| suffix_sums_exclusive_line_f32(t, x.tiles(), y.tiles_mut()),
    );
    assert_eq!(y, suffix_sums(&x, SCAN_LINE as usize, true));
    // The last element of a segment has nothing after it.
    assert_eq!(y[SCAN_LINE as usize - 1], 0.0);
}

#[test]
fn compaction_offsets_count_the_kept_elements_before_each() {
    let x = inputs((2 * SCAN_ROWS * SCAN_ROW) as usize);
    let xm = HostMemory::new(x.iter().map(|v| v.to_bits() as u64));
    let ym = HostMemory::new(x.iter().map(|_| u32::MAX as u64));
    let spec = COMPACTION_OFFSETS_ROWS;
    let l = Launch::new(2, spec.block()[0], spec.shared_bytes());
    launch(l, |t| {
        compaction_offsets_rows(t, xm.tiles(), ym.tiles_mut())
    })
    .expect("no simulator issue");
    let want: Vec<u32> = x
        .chunks(SCAN_ROW as usize)
        .flat_map(|row| {
            row.iter().scan(0u32, |kept, v| {
                let before = *kept;
                *kept += (*v > 0.0) as u32;
                Some(before)
            })
        })
        .collect();
    let got: Vec<u32> = (0..x.len()).map(|i| ym.get(i) as u32).collect();
    assert_eq!(got, want);
    // Rows differ: the offsets are not one row's pattern repeated.
    assert_ne!(
        &got[..SCAN_ROW as usize],
        &got[SCAN_ROW as usize..2 * SCAN_ROW as usize]
    );
}
