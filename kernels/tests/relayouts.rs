//! The relayout kernels on the simulator: every element where Triton's `tt.join`, `tt.split`,
//! `tt.reshape` and `tt.expand_dims` put it, on distinct values (each element's own index), so
//! any swapped pair, row or register shows.

use kernels::relayouts::{
    deinterleave_f32, interleave_f32, row_sums_column_f32, trans_f32, DEINTERLEAVE_F32,
    INTERLEAVE_F32, PAIR_ROW, PAIR_ROWS, ROW_SUMS_COLUMN_F32, TRANS_F32,
};
use linear_layouts::sim::{launch, HostMemory, Launch};

const CTAS: u32 = 3;

fn memory(v: &[f32]) -> HostMemory {
    HostMemory::new(v.iter().map(|x| x.to_bits() as u64))
}

fn read(m: &HostMemory, n: usize) -> Vec<f32> {
    (0..n).map(|i| f32::from_bits(m.get(i) as u32)).collect()
}

#[test]
fn interleave_then_deinterleave() {
    let n = (CTAS * PAIR_ROWS * PAIR_ROW) as usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| -(i as f32) - 1.0).collect();
    let (am, bm) = (memory(&a), memory(&b));
    let out = memory(&vec![f32::NAN; 2 * n]);
    let l = Launch::new(
        CTAS,
        INTERLEAVE_F32.block()[0],
        INTERLEAVE_F32.shared_bytes(),
    );
    launch(l, |t| {
        interleave_f32(t, am.tiles(), bm.tiles(), out.tiles_mut())
    })
    .unwrap();
    let pairs = read(&out, 2 * n);
    let want: Vec<f32> = a.iter().zip(&b).flat_map(|(x, y)| [*x, *y]).collect();
    assert_eq!(pairs, want);

    let (even, odd) = (memory(&vec![f32::NAN; n]), memory(&vec![f32::NAN; n]));
    let l = Launch::new(
        CTAS,
        DEINTERLEAVE_F32.block()[0],
        DEINTERLEAVE_F32.shared_bytes(),
    );
    launch(l, |t| {
        deinterleave_f32(t, out.tiles(), even.tiles_mut(), odd.tiles_mut())
    })
    .unwrap();
    assert_eq!(read(&even, n), a);
    assert_eq!(read(&odd, n), b);
}

#[test]
fn row_sums_as_a_column() {
    let rows = (CTAS * PAIR_ROWS) as usize;
    let x: Vec<f32> = (0..rows * PAIR_ROW as usize)
        .map(|i| ((i * 37) % 101) as f32)
        .collect();
    let (xm, sums) = (memory(&x), memory(&vec![f32::NAN; rows]));
    let l = Launch::new(
        CTAS,
        ROW_SUMS_COLUMN_F32.block()[0],
        ROW_SUMS_COLUMN_F32.shared_bytes(),
    );
    launch(l, |t| row_sums_column_f32(t, xm.tiles(), sums.tiles_mut())).unwrap();
    let want: Vec<f32> = x
        .chunks(PAIR_ROW as usize)
        .map(|r| r.iter().sum())
        .collect();
    assert_eq!(read(&sums, rows), want);
}

#[test]
fn transposed_through_trans() {
    let n = CTAS * PAIR_ROWS;
    let x: Vec<f32> = (0..n * PAIR_ROW).map(|i| i as f32).collect();
    let (xm, y) = (memory(&x), memory(&vec![f32::NAN; x.len()]));
    let l = Launch::new(CTAS, TRANS_F32.block()[0], TRANS_F32.shared_bytes());
    launch(l, |t| trans_f32(t, xm.tiles(), y.blocks_mut(n), n)).unwrap();
    let want: Vec<f32> = (0..PAIR_ROW)
        .flat_map(|j| (0..n).map(move |i| (i * PAIR_ROW + j) as f32))
        .collect();
    assert_eq!(read(&y, x.len()), want);
}
