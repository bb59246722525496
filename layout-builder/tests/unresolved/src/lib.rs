#![no_std]

unsafe extern "C" {
    /// Defined nowhere.
    fn nowhere_defined(x: f32) -> f32;
}

/// `y[0] = nowhere_defined(x[0])`.
///
/// # Safety
/// `x` and `y` point to an `f32` each, `y` writable.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn calls_nowhere(x: *const f32, y: *mut f32) {
    unsafe { y.write(nowhere_defined(x.read())) };
}
