//! CTA and cluster barriers as LLVM's NVVM intrinsics rather than inline asm. LLVM does not
//! treat inline asm as convergent: it may copy an asm barrier into each arm of a branch that splits a warp
//! (thread 0 initialising mbarriers while the rest wait), and `bar.sync` is
//! `barrier.sync.aligned`, which a warp must reach at one instruction: reached at two, the
//! hardware counts the warp at the first and lets the CTA through early. The intrinsics are
//! convergent, so LLVM keeps one barrier where the source has one, and ptxas still sees the
//! aligned form it schedules best. They order memory as the asm did: declared with no memory
//! attribute (LLVM's `IntrinsicsNVVM.td` gives them only `IntrConvergent` and
//! `IntrNoCallback`), they may read and write any memory, so no load or store moves across
//! them.

unsafe extern "C" {
    #[link_name = "llvm.nvvm.barrier.cta.sync.aligned.all"]
    fn barrier_all(id: u32);
    #[link_name = "llvm.nvvm.barrier.cta.sync.aligned.count"]
    fn barrier_count(id: u32, threads: u32);
    #[link_name = "llvm.nvvm.barrier.cluster.arrive.aligned"]
    fn cluster_arrive();
    #[link_name = "llvm.nvvm.barrier.cluster.wait.aligned"]
    fn cluster_wait();
}

/// `bar.sync id`: every thread of the CTA meets at barrier `id`.
///
/// # Safety
/// Every thread of the CTA reaches this call, each warp converged, and `id` is below 16.
#[inline(always)]
pub(super) unsafe fn cta_sync(id: u32) {
    // SAFETY: the caller's contract.
    unsafe { barrier_all(id) }
}

/// `bar.sync id, threads`: `threads` threads (a multiple of the warp size) meet at barrier
/// `id`.
///
/// # Safety
/// `id` is below 16, `threads` a multiple of 32 no larger than the CTA; exactly `threads`
/// threads reach barrier `id` in each phase, whole warps, each converged.
#[inline(always)]
pub(super) unsafe fn cta_sync_count(id: u32, threads: u32) {
    // SAFETY: the caller's contract.
    unsafe { barrier_count(id, threads) }
}

/// `barrier.cluster.arrive` then `barrier.cluster.wait`, release then acquire: every thread of
/// every CTA of the cluster meets.
///
/// # Safety
/// Every thread of every CTA of the cluster reaches this call, each warp converged.
#[inline(always)]
pub(super) unsafe fn cluster_sync() {
    // SAFETY: the caller's contract.
    unsafe {
        cluster_arrive();
        cluster_wait();
    }
}
