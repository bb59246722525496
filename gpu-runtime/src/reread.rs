//! A thread whose lane and warp are read again where they are used ([`Reread`]):
//! rematerialisation by hand, for values computed from them that a kernel would otherwise hold
//! in registers through a long loop.

use crate::thread::Thread;

/// `t`, with its lane and warp passed through [`Thread::opaque`]: what a kernel computes from
/// them through a `Reread` (the addresses of a loop's `ldmatrix` loads, or of an epilogue's
/// stores) is computed there, not kept in registers from before, where the same values were
/// computed. Worth it where registers, not instructions, bound a kernel (launch bounds it must
/// fit): each use costs the arithmetic again. Everything else is `t`'s; on the simulator it is
/// `t`.
///
/// ```
/// use linear_layouts::sim::{launch, Launch};
/// use linear_layouts::{Reread, Thread};
///
/// launch(Launch::new(1, 64, 0), |t| {
///     let r = Reread::new(t);
///     assert_eq!((r.lane(), r.warp()), (t.lane(), t.warp()));
/// })
/// .unwrap();
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Reread<'a, T> {
    t: &'a T,
}

impl<'a, T: Thread> Reread<'a, T> {
    /// `t`, its ids re-read.
    #[inline(always)]
    pub fn new(t: &'a T) -> Self {
        Reread { t }
    }
}

// SAFETY: every promise of the trait is the wrapped thread's, forwarded unchanged (the ids
// through an optimisation barrier, the same values).
#[allow(unsafe_code)]
unsafe impl<T: Thread> Thread for Reread<'_, T> {
    crate::thread::forward_thread!(
        launch_shape,
        shared_bytes,
        partition,
        block_threads,
        opaque,
        scratch_reads,
        block,
        thread_idx,
        block_idx,
        cta_rank,
        block_dim,
        grid_dim,
        shfl_idx,
        shfl_xor,
        redux,
        sync_warp,
        sync_block,
        st_shared,
        ld_shared,
        sync_cluster,
        st_shared_cluster,
        ld_shared_cluster,
        ldmatrix,
        stmatrix,
        cp_async,
        cp_async_commit,
        cp_async_wait,
        mma_m16n8k16,
    );
    #[inline(always)]
    fn lane(&self) -> u32 {
        self.t.opaque(self.t.lane())
    }
    #[inline(always)]
    fn warp(&self) -> u32 {
        self.t.opaque(self.t.warp())
    }
}
