//! The launcher's argument checks, which need no GPU: a kernel states what each buffer
//! parameter must hold (`#[kernel(extent(..))]`), and a launch whose buffers are smaller is
//! refused, naming the parameter, both sizes and the sizes it was computed from. `Module::launch`
//! runs `KernelSpec::check_args` on its arguments before anything reaches the driver.

use linear_layouts::runtime::kernel::{Arg, ExtentError};
use linear_layouts::{kernel, Global, GlobalMut, Thread};

/// Copies `n_rows` rows of `n_cols` and sums each row into `sums`.
#[kernel(block = 128, extent(x = n_rows * n_cols, y = n_rows * n_cols, sums = n_rows))]
fn rows(
    t: &impl Thread,
    x: Global<f32>,
    y: GlobalMut<f32>,
    sums: GlobalMut<f32>,
    n_rows: u32,
    n_cols: u32,
) {
    let i = t.index_1d();
    if i < n_rows {
        let mut s = 0.0;
        for j in 0..n_cols {
            let v = x.load1((i * n_cols + j) as usize);
            y.store1((i * n_cols + j) as usize, v);
            s += v;
        }
        sums.store1(i as usize, s);
    }
}

/// An extent over the grid: one element per thread of the whole launch.
#[kernel(block = 128, extent(out = grid[0] * 128))]
fn per_thread(t: &impl Thread, out: GlobalMut<u32>) {
    out.store1(t.index_1d() as usize, 1);
}

fn buffer(len: u64) -> Arg {
    Arg::Buffer { len }
}

#[test]
fn buffers_smaller_than_the_extents_are_refused() {
    // Rows of 1,024 over buffers of 1,024 elements: 4,000 rows reach 4,096,000 of them.
    let args = [
        buffer(1024),
        buffer(1024),
        buffer(4000),
        Arg::Int(4000),
        Arg::Int(1024),
    ];
    let e = ROWS.check_args(&args, [32, 1, 1]).unwrap_err();
    assert_eq!(
        e.error,
        ExtentError {
            index: 0,
            param: "x",
            expr: "n_rows * n_cols",
            need: 4_096_000,
            len: 1024
        }
    );
    assert_eq!(
        e.to_string(),
        "rows: parameter `x` is a buffer of 1024 elements, but the kernel reaches 4096000 of them \
         (its extent `n_rows * n_cols` with n_rows = 4000, n_cols = 1024): pass a buffer of at \
         least 4096000 elements, or smaller sizes"
    );
    // The output checked too, and the row sums against the rows.
    let args = [
        buffer(4_096_000),
        buffer(4_095_999),
        buffer(4000),
        Arg::Int(4000),
        Arg::Int(1024),
    ];
    assert_eq!(
        ROWS.check_args(&args, [32, 1, 1]).unwrap_err().error.param,
        "y"
    );
    let args = [
        buffer(4_096_000),
        buffer(4_096_000),
        buffer(3999),
        Arg::Int(4000),
        Arg::Int(1024),
    ];
    let e = ROWS.check_args(&args, [32, 1, 1]).unwrap_err().error;
    assert_eq!((e.param, e.need, e.len), ("sums", 4000, 3999));
}

#[test]
fn buffers_that_hold_the_extents_pass() {
    let args = [
        buffer(4_096_000),
        buffer(4_096_000),
        buffer(4000),
        Arg::Int(4000),
        Arg::Int(1024),
    ];
    assert!(ROWS.check_args(&args, [32, 1, 1]).is_ok());
    // Larger buffers are fine; a product past u32 is computed without wrapping.
    let args = [
        buffer(1 << 40),
        buffer(1 << 40),
        buffer(1 << 20),
        Arg::Int(1 << 20),
        Arg::Int(1 << 20),
    ];
    assert!(ROWS.check_args(&args, [1, 1, 1]).is_ok());
    let args = [
        buffer(1 << 40),
        buffer(1 << 40),
        buffer(1 << 20),
        Arg::Int(1 << 20),
        Arg::Int(1 << 21),
    ];
    assert_eq!(
        ROWS.check_args(&args, [1, 1, 1]).unwrap_err().error.need,
        1 << 41
    );
    assert_eq!(ROWS.param_names(), ["x", "y", "sums", "n_rows", "n_cols"]);
}

#[test]
fn extents_over_the_grid() {
    let args = [buffer(128 * 40)];
    assert!(PER_THREAD.check_args(&args, [40, 1, 1]).is_ok());
    let e = PER_THREAD.check_args(&args, [41, 1, 1]).unwrap_err();
    assert_eq!((e.error.need, e.error.len), (128 * 41, 128 * 40));
    assert!(
        e.to_string().contains("its extent `grid [0] * 128`"),
        "{}",
        e
    );
}
