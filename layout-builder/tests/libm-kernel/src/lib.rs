#![no_std]

/// `y[0] = exp(x[0])` with `libm`.
///
/// # Safety
/// `x` and `y` point to an `f32` each, `y` writable.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn exp_libm(x: *const f32, y: *mut f32) {
    unsafe { y.write(libm::expf(x.read())) };
}
