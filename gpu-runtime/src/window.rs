//! A thread that sees `BYTES` of shared memory from a byte offset on ([`SharedWindow`]): the
//! stages of a pipeline are copies of one shared layout at different bases, and every access a
//! conversion, a shared load or an async copy makes through the window lands in its stage. The
//! window is checked inside the kernel's shared memory when made, and is the kernel's shared
//! memory to what runs through it: each operation's bytes are checked against `BYTES`.

use crate::thread::{declares_at_least, inside_declared, CopySource, Thread};

/// `t`, with every shared-memory address offset by `base` bytes (a multiple of 16, so vector
/// and matrix accesses stay aligned), and `BYTES` of shared memory from there
/// ([`Thread::SHARED_BYTES`]). Everything else is `t`'s.
#[derive(Clone, Copy, Debug)]
pub struct SharedWindow<'a, T, const BYTES: u32> {
    t: &'a T,
    base: u32,
}

impl<'a, T: Thread, const BYTES: u32> SharedWindow<'a, T, BYTES> {
    /// `t`'s shared memory from byte `base` on, `BYTES` of it: a trap (a panic on the
    /// simulator) unless they lie inside the bytes the kernel declares and `base` is a
    /// multiple of 16. A window larger than the kernel's bytes is a compile error.
    #[inline(always)]
    pub fn new(t: &'a T, base: u32) -> Self {
        const {
            assert!(
                declares_at_least(T::SHARED_BYTES, BYTES),
                "SharedWindow: the window is larger than the kernel's shared memory"
            )
        };
        assert!(
            inside_declared::<T>(base, BYTES) && base.is_multiple_of(16),
            "SharedWindow: not inside the kernel's shared memory, or not on 16 bytes"
        );
        SharedWindow { t, base }
    }
}

// SAFETY: the wrapped thread's ids and barriers; its shared memory is the window's `BYTES`,
// checked inside the wrapped thread's when the window was made, and every access goes through
// `base`.
#[allow(unsafe_code)]
unsafe impl<T: Thread, const BYTES: u32> Thread for SharedWindow<'_, T, BYTES> {
    const SHARED_BYTES: Option<u32> = Some(BYTES);
    crate::thread::forward_thread!(
        launch_shape,
        partition,
        block_threads,
        opaque,
        scratch_reads,
        lane,
        warp,
        block,
        thread_idx,
        block_dim,
        block_idx,
        grid_dim,
        shfl_idx,
        shfl_xor,
        redux,
        sync_warp,
        sync_block,
        cta_rank,
        sync_cluster,
        cp_async_commit,
        cp_async_wait,
        mma_m16n8k16,
    );
    #[inline(always)]
    unsafe fn st_shared(&self, byte_offset: u32, bytes: u32, words: [u32; 4]) {
        // SAFETY: the caller's promise is for the bytes the window reaches, `base` on.
        unsafe { self.t.st_shared(self.base + byte_offset, bytes, words) }
    }
    #[inline(always)]
    unsafe fn ld_shared(&self, byte_offset: u32, bytes: u32) -> [u32; 4] {
        // SAFETY: the caller's promise is for the bytes the window reaches, `base` on.
        unsafe { self.t.ld_shared(self.base + byte_offset, bytes) }
    }
    #[inline(always)]
    unsafe fn st_shared_cluster(&self, cta: u32, byte_offset: u32, bytes: u32, words: [u32; 4]) {
        // SAFETY: the caller's promise is for the bytes the window reaches, `base` on.
        unsafe {
            self.t
                .st_shared_cluster(cta, self.base + byte_offset, bytes, words)
        }
    }
    #[inline(always)]
    unsafe fn ld_shared_cluster(&self, cta: u32, byte_offset: u32, bytes: u32) -> [u32; 4] {
        // SAFETY: the caller's promise is for the bytes the window reaches, `base` on.
        unsafe {
            self.t
                .ld_shared_cluster(cta, self.base + byte_offset, bytes)
        }
    }
    #[inline(always)]
    unsafe fn ldmatrix(&self, count: u32, row_addr: u32, trans: bool) -> [u32; 4] {
        // SAFETY: the caller's promise is for the bytes the window reaches, `base` on.
        unsafe { self.t.ldmatrix(count, self.base + row_addr, trans) }
    }
    #[inline(always)]
    unsafe fn stmatrix(&self, count: u32, row_addr: u32, trans: bool, words: [u32; 4]) {
        // SAFETY: the caller's promise is for the bytes the window reaches, `base` on.
        unsafe { self.t.stmatrix(count, self.base + row_addr, trans, words) }
    }
    #[inline(always)]
    unsafe fn cp_async(&self, byte_offset: u32, bytes: u32, src: CopySource) {
        // SAFETY: the caller's promise is for the bytes the window reaches, `base` on.
        unsafe { self.t.cp_async(self.base + byte_offset, bytes, src) }
    }
}
