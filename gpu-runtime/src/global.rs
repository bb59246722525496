//! Global memory as kernel bodies see it, so that the same body runs on the GPU ([`Ptr`], a raw
//! device pointer) and on the simulator (`sim::HostMemory`): element-indexed loads and stores,
//! one access per call, as wide as asked (16-byte vectors through [`A16`], which makes LLVM emit
//! `ld.global.v4` / `st.global.v4`).

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
    /// `N` elements from `idx` in one access of `N * size_of::<E>()` bytes (1, 2, 4 or 8; `idx`
    /// aligned to it).
    fn load_n<const N: usize>(&self, idx: usize) -> [E; N];
    /// `N` elements to `idx` in one access, as [`Global::load_n`].
    fn store_n<const N: usize>(&self, idx: usize, v: [E; N]);
    /// One element.
    fn load1(&self, idx: usize) -> E;
    /// One element.
    fn store1(&self, idx: usize, v: E);
}

/// Device memory through a raw pointer.
#[derive(Clone, Copy)]
pub struct Ptr<E>(*mut E);

#[allow(unsafe_code)]
impl<E> Ptr<E> {
    /// Global memory at `p`.
    ///
    /// # Safety
    /// Every index a kernel body accesses through it must be in the buffer at `p`, each access
    /// aligned to its width (16 bytes for [`Global::load16`]), and no other thread may write an
    /// element while it is read.
    #[inline(always)]
    pub unsafe fn new(p: *mut E) -> Self {
        Ptr(p)
    }
}

// The accesses are unsafe; `Ptr::new`'s contract makes them sound.
#[allow(unsafe_code)]
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
    fn load_n<const N: usize>(&self, idx: usize) -> [E; N] {
        let p = unsafe { self.0.add(idx) } as *const u8;
        // SAFETY: as load16; the access is as wide as the array, which `idx` is aligned to.
        unsafe {
            match N * core::mem::size_of::<E>() {
                2 => core::mem::transmute_copy(&(p as *const u16).read()),
                4 => core::mem::transmute_copy(&(p as *const u32).read()),
                8 => core::mem::transmute_copy(&(p as *const u64).read()),
                _ => (p as *const [E; N]).read(),
            }
        }
    }
    #[inline(always)]
    fn store_n<const N: usize>(&self, idx: usize, v: [E; N]) {
        let p = unsafe { self.0.add(idx) } as *mut u8;
        // SAFETY: as load_n.
        unsafe {
            match N * core::mem::size_of::<E>() {
                2 => (p as *mut u16).write(core::mem::transmute_copy(&v)),
                4 => (p as *mut u32).write(core::mem::transmute_copy(&v)),
                8 => (p as *mut u64).write(core::mem::transmute_copy(&v)),
                _ => (p as *mut [E; N]).write(v),
            }
        }
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
