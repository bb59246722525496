//! A thread that sees shared memory from a byte offset on ([`SharedWindow`]): the stages of a
//! pipeline are copies of one shared layout at different bases, and every access a conversion,
//! a shared load or an async copy makes through the window lands in its stage.

use crate::mma::MmaKind;
use crate::thread::{CopySource, Thread};

/// `t`, with every shared-memory address offset by `base` bytes (a multiple of 16, so vector
/// and matrix accesses stay aligned). Everything else is `t`'s.
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

impl<T: Thread> Thread for SharedWindow<'_, T> {
    const MATRIX: bool = T::MATRIX;
    const CLUSTER_MEMORY: bool = T::CLUSTER_MEMORY;

    #[inline(always)]
    fn lane(&self) -> u32 {
        self.t.lane()
    }
    #[inline(always)]
    fn warp(&self) -> u32 {
        self.t.warp()
    }
    #[inline(always)]
    fn block(&self) -> u32 {
        self.t.block()
    }
    #[inline(always)]
    fn thread_idx(&self) -> [u32; 3] {
        self.t.thread_idx()
    }
    #[inline(always)]
    fn block_dim(&self) -> [u32; 3] {
        self.t.block_dim()
    }
    #[inline(always)]
    fn block_idx(&self) -> [u32; 3] {
        self.t.block_idx()
    }
    #[inline(always)]
    fn grid_dim(&self) -> [u32; 3] {
        self.t.grid_dim()
    }
    #[inline(always)]
    fn shfl_idx(&self, v: u32, src_lane: u32) -> u32 {
        self.t.shfl_idx(v, src_lane)
    }
    #[inline(always)]
    fn shfl_xor(&self, v: u32, mask: u32) -> u32 {
        self.t.shfl_xor(v, mask)
    }
    #[inline(always)]
    fn sync_warp(&self) {
        self.t.sync_warp()
    }
    #[inline(always)]
    fn sync_block(&self) {
        self.t.sync_block()
    }
    #[inline(always)]
    fn st_shared(&self, byte_offset: u32, bytes: u32, words: [u32; 4]) {
        self.t.st_shared(self.base + byte_offset, bytes, words)
    }
    #[inline(always)]
    fn ld_shared(&self, byte_offset: u32, bytes: u32) -> [u32; 4] {
        self.t.ld_shared(self.base + byte_offset, bytes)
    }
    #[inline(always)]
    fn cta_rank(&self) -> u32 {
        self.t.cta_rank()
    }
    #[inline(always)]
    fn sync_cluster(&self) {
        self.t.sync_cluster()
    }
    #[inline(always)]
    fn st_shared_cluster(&self, cta: u32, byte_offset: u32, bytes: u32, words: [u32; 4]) {
        self.t
            .st_shared_cluster(cta, self.base + byte_offset, bytes, words)
    }
    #[inline(always)]
    fn ld_shared_cluster(&self, cta: u32, byte_offset: u32, bytes: u32) -> [u32; 4] {
        self.t
            .ld_shared_cluster(cta, self.base + byte_offset, bytes)
    }
    #[inline(always)]
    fn ldmatrix(&self, count: u32, row_addr: u32, trans: bool) -> [u32; 4] {
        self.t.ldmatrix(count, self.base + row_addr, trans)
    }
    #[inline(always)]
    fn stmatrix(&self, count: u32, row_addr: u32, trans: bool, words: [u32; 4]) {
        self.t.stmatrix(count, self.base + row_addr, trans, words)
    }
    #[inline(always)]
    fn cp_async(&self, byte_offset: u32, bytes: u32, src: CopySource) {
        self.t.cp_async(self.base + byte_offset, bytes, src)
    }
    #[inline(always)]
    fn cp_async_commit(&self) {
        self.t.cp_async_commit()
    }
    #[inline(always)]
    fn cp_async_wait<const PENDING: u32>(&self) {
        self.t.cp_async_wait::<PENDING>()
    }
    #[inline(always)]
    fn mma_m16n8k16(&self, kind: MmaKind, a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
        self.t.mma_m16n8k16(kind, a, b, c)
    }
}
