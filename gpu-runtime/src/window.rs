//! A thread that sees shared memory from a byte offset on ([`SharedWindow`]): the stages of a
//! pipeline are copies of one shared layout at different bases, and every access a conversion,
//! a shared load or an async copy makes through the window lands in its stage.

use crate::thread::{CopySource, Thread};

/// `t`, with every shared-memory address offset by `base` bytes (a multiple of 16, so vector
/// and matrix accesses stay aligned). Everything else is `t`'s. The shared-memory contract of
/// [`Thread`] holds for the bytes the window reaches: `base + byte_offset` on.
#[derive(Clone, Copy, Debug)]
pub struct SharedWindow<'a, T> {
    t: &'a T,
    base: u32,
}

impl<'a, T: Thread> SharedWindow<'a, T> {
    /// `t`'s shared memory from byte `base` on.
    #[inline(always)]
    pub fn new(t: &'a T, base: u32) -> Self {
        debug_assert!(
            base.is_multiple_of(16),
            "a shared window starts on 16 bytes"
        );
        SharedWindow { t, base }
    }
}

// SAFETY: the wrapped thread's ids and barriers; it knows no shared bytes of its own.
#[allow(unsafe_code)]
unsafe impl<T: Thread> Thread for SharedWindow<'_, T> {
    crate::thread::forward_thread!(
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
