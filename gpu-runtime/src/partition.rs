//! A warp-specialised partition's view of a thread ([`Partition`]): a kernel that splits its
//! CTA into roles (a producer warpgroup issuing copies, consumer warpgroups computing) runs
//! each role's code on a thread that sees only its partition, as Triton's warp-specialised
//! partitions and CUTLASS's warpgroup roles do: warps numbered from the partition's first,
//! and a CTA barrier that is the partition's named barrier, so that `convert!`, tiles and
//! stores written for a whole CTA work unchanged inside one role while the others run on.

use crate::hopper::Hopper;
use crate::thread::Thread;

/// Lanes per warp on the GPUs partitions exist for.
const LANES: u32 = 32;

/// `t`, as a thread of warps `first..first + warps` of its CTA: [`Thread::warp`] counts from
/// `first`, [`Thread::thread_idx`] and [`Thread::block_dim`] are the partition's (1-D), and
/// [`Thread::sync_block`] is named barrier `barrier` of the partition's threads. Everything
/// else, shared memory included, is `t`'s. A cluster barrier stays the whole cluster's.
#[derive(Clone, Copy, Debug)]
pub struct Partition<'a, T> {
    t: &'a T,
    first: u32,
    warps: u32,
    barrier: u32,
}

impl<'a, T: Hopper> Partition<'a, T> {
    /// `t` as a thread of the partition of warps `first..first + warps` with named barrier
    /// `barrier` (1 to 15, one per partition), or `None` if `t` is not in it.
    #[inline(always)]
    pub fn of(t: &'a T, first: u32, warps: u32, barrier: u32) -> Option<Self> {
        (t.warp() >= first && t.warp() < first + warps).then_some(Partition {
            t,
            first,
            warps,
            barrier,
        })
    }

    /// The thread as its whole CTA sees it.
    #[inline(always)]
    pub fn thread(&self) -> &'a T {
        self.t
    }
}

// SAFETY: the wrapped thread's promises; the ids are the partition's own (its warps from 0),
// which its collective operations (and its named barrier) run over.
#[allow(unsafe_code)]
unsafe impl<T: Hopper> Thread for Partition<'_, T> {
    const PARTITION: bool = true;
    // `BLOCK_THREADS` stays `None`: a role's threads are fewer than the CTA's, so the CTA's
    // bound would never spare a store its test.
    crate::thread::forward_thread!(
        launch_shape,
        shared_bytes,
        opaque,
        scratch_reads,
        lane,
        block,
        block_idx,
        grid_dim,
        shfl_idx,
        shfl_xor,
        redux,
        sync_warp,
        st_shared,
        ld_shared,
        cta_rank,
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
    fn warp(&self) -> u32 {
        self.t.warp() - self.first
    }
    #[inline(always)]
    fn thread_idx(&self) -> [u32; 3] {
        [self.warp() * LANES + self.lane(), 0, 0]
    }
    #[inline(always)]
    fn block_dim(&self) -> [u32; 3] {
        [self.warps * LANES, 1, 1]
    }
    #[inline(always)]
    #[track_caller]
    fn sync_block(&self) {
        self.t.bar_sync(self.barrier, self.warps * LANES);
        // The partition's own scratch is free: only its threads use it.
        self.set_scratch_reads(false);
    }
}

// SAFETY: every promise of the trait is the wrapped thread's, forwarded unchanged.
#[allow(unsafe_code)]
unsafe impl<T: Hopper> Hopper for Partition<'_, T> {
    crate::hopper::forward_hopper!();
}
