//! Global memory as kernel bodies see it, so that the same body runs on the GPU (raw pointers)
//! and on the simulator (host memory): 16-byte vector loads and stores of elements.

/// A 16-byte aligned value (what a 16-byte vector access reads or writes).
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub struct A16<T>(pub T);

/// Element-indexed global memory with 16-byte vector accesses (`N * size_of::<E>() == 16`, the
/// index a multiple of `N`).
pub trait Global<E: Copy> {
    /// `N` elements from `idx`.
    fn load16<const N: usize>(&self, idx: usize) -> [E; N];
    /// `N` elements to `idx`.
    fn store16<const N: usize>(&self, idx: usize, v: [E; N]);
    /// One element.
    fn load1(&self, idx: usize) -> E;
    /// One element.
    fn store1(&self, idx: usize, v: E);
}

/// Device memory through a raw pointer.
#[derive(Clone, Copy)]
pub struct Ptr<E>(pub *mut E);

impl<E: Copy> Global<E> for Ptr<E> {
    #[inline(always)]
    fn load16<const N: usize>(&self, idx: usize) -> [E; N] {
        // SAFETY: the kernel's contract: the buffer holds the index, 16-byte aligned.
        unsafe { (self.0.add(idx) as *const A16<[E; N]>).read().0 }
    }
    #[inline(always)]
    fn store16<const N: usize>(&self, idx: usize, v: [E; N]) {
        // SAFETY: as load16.
        unsafe { (self.0.add(idx) as *mut A16<[E; N]>).write(A16(v)) }
    }
    #[inline(always)]
    fn load1(&self, idx: usize) -> E {
        // SAFETY: as load16.
        unsafe { self.0.add(idx).read() }
    }
    #[inline(always)]
    fn store1(&self, idx: usize, v: E) {
        // SAFETY: as load16.
        unsafe { self.0.add(idx).write(v) }
    }
}
