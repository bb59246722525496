//! The fences Hopper needs between proxies, modelled. Shared memory written through the
//! generic proxy (`st.shared`, `stmatrix`, a landed `cp.async`) is not visible to the async
//! proxy (TMA, wgmma) until the writing thread runs `fence.proxy.async` after its stores and
//! before the barrier that orders them before the async operation; an mbarrier's
//! initialisation is not visible to other threads or to the copy engine until its thread runs
//! `fence.mbarrier_init` before the barrier that publishes it; a wgmma needs `wgmma.fence`
//! since its thread last had its registers (the launch's start or a `wgmma_wait`).
//!
//! A fence is stamped with its thread's place in the order (its barrier epochs and clock, as
//! any access is stamped) and, for `fence.proxy.async`, the count of shared stores the thread
//! had issued, so the first fence after a write is found from the write's own record. The async operation, or another thread's use of the mbarrier, must
//! be ordered after that stamp by the same rules as any two accesses: a fence after the
//! barrier that published the writes comes too late, whatever the timing of the threads.

use std::format;
use std::string::String;
use std::vec::Vec;

use crate::grid::Fence;
use crate::issue::IssueKind;
use crate::state::{Access, Byte, SimThread};

impl SimThread<'_> {
    /// Whether the launch ignores fences of kind `f`.
    fn skips(&self, f: Fence) -> bool {
        self.launch.skip == Some(f)
    }

    /// This thread initialised the mbarrier at `bar`.
    pub(crate) fn mbarrier_initialised(&self, bar: u32) {
        self.fences.inits.borrow_mut().push(bar);
    }

    /// `fence.proxy.async`: this thread's generic writes so far are visible to the async proxy
    /// ordered after this point: recorded with the thread's store count and stamp.
    pub(crate) fn proxy_fence(&self) {
        if self.skips(Fence::ProxyAsync) {
            return;
        }
        let now = self.access();
        if let Ok(mut f) = self.state.proxy_fences.lock() {
            f.entry(now.tid).or_default().push((now.store, now));
        }
    }

    /// The stamp of the first `fence.proxy.async` its writer issued after write `w`, if any.
    fn fence_after(&self, w: &Access) -> Option<Access> {
        let block = self.cluster.blocks.get(w.cta as usize)?;
        let fences = block.proxy_fences.lock().ok()?;
        let mine = fences.get(&w.tid)?;
        mine.iter()
            .find(|(store, _)| *store >= w.store)
            .map(|f| f.1)
    }

    /// `fence.mbarrier_init`: this thread's initialisations so far are visible to whoever is
    /// ordered after this point. The mbarriers, and the stamp.
    pub(crate) fn mbarrier_init_fence(&self) -> (Vec<u32>, Access) {
        if self.skips(Fence::MbarrierInit) {
            return (Vec::new(), self.access());
        }
        let bars = core::mem::take(&mut *self.fences.inits.borrow_mut());
        (bars, self.access())
    }

    /// Whether a fence stamped `fence` is ordered before this thread now (a missing one is
    /// not).
    pub(crate) fn after_fence(&self, fence: Option<Access>) -> bool {
        fence.is_some_and(|f| !self.unordered(f, self.access()))
    }

    /// `wgmma.fence`.
    pub(crate) fn wgmma_fence_now(&self) {
        if !self.skips(Fence::Wgmma) {
            self.fences.wgmma_ready.set(true);
        }
    }

    /// After a `wgmma_wait` the thread has its accumulator registers again.
    pub(crate) fn wgmma_registers_returned(&self) {
        self.fences.wgmma_ready.set(false);
    }

    /// Whether a wgmma may be issued now (else reported).
    pub(crate) fn wgmma_fenced(&self) -> bool {
        if self.fences.wgmma_ready.get() {
            return true;
        }
        self.report(IssueKind::MissingFence, format!(
            "thread {} (block {}) issues a wgmma without wgmma_fence since its registers were last its own (the launch's start or a wgmma_wait): call wgmma_fence before a warpgroup's wgmmas",
            self.tid(), self.block
        ));
        false
    }

    /// The async proxy's `op` (`"TMA load"`, `"wgmma"`) reads or overwrites byte `at`: its
    /// generic write must be fenced. The problem, if not.
    pub(crate) fn async_proxy_sees(&self, b: &Byte, at: u32, op: &str) -> Option<String> {
        let w = b
            .write
            .filter(|w| b.generic && !self.after_fence(self.fence_after(w)))?;
        Some(format!(
            "thread {} (block {}): a {} touches shared byte {}, which thread {} wrote with an ordinary store not fenced for the async proxy: that thread must call fence_proxy_async after its stores and before the barrier that orders them before the {}",
            self.tid(), self.block, op, at, w.tid, op
        ))
    }
}
