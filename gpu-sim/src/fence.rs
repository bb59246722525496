//! The fences Hopper needs between proxies, modelled. Shared memory written through the
//! generic proxy (`st.shared`, `stmatrix`, a landed `cp.async`) is not visible to the async
//! proxy (TMA, wgmma) until the writing thread runs `fence.proxy.async` after its stores and
//! before the barrier that orders them before the async operation; an mbarrier's
//! initialisation is not visible to other threads or to the copy engine until its thread runs
//! `fence.mbarrier_init` before the barrier that publishes it; a wgmma needs `wgmma.fence`
//! since its thread last had its registers (the launch's start or a `wgmma_wait`).
//!
//! Each thread keeps what it wrote and initialised since its last fence; its fence stamps
//! those with the thread's place in the order at the fence (its barrier epochs and clock, as
//! any access is stamped). The async operation, or another thread's use of the mbarrier, must
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

    /// Bytes `lo..lo + bytes` of CTA `cta` were just written through the generic proxy.
    pub(crate) fn generic_write(&self, cta: u32, lo: u32, bytes: u32) {
        let store = self.access().store;
        self.fences
            .writes
            .borrow_mut()
            .insert((cta, lo), (bytes, store));
    }

    /// This thread initialised the mbarrier at `bar`.
    pub(crate) fn mbarrier_initialised(&self, bar: u32) {
        self.fences.inits.borrow_mut().push(bar);
    }

    /// `fence.proxy.async`: this thread's generic writes so far are visible to the async proxy
    /// ordered after this point.
    pub(crate) fn proxy_fence(&self) {
        if self.skips(Fence::ProxyAsync) {
            return;
        }
        let writes = core::mem::take(&mut *self.fences.writes.borrow_mut());
        let (tid, now) = (self.tid(), self.access());
        for ((cta, lo), (bytes, store)) in writes {
            let Some(block) = self.cluster.blocks.get(cta as usize) else {
                continue;
            };
            let Ok(mut mem) = block.shared.lock() else {
                return;
            };
            for b in &mut mem[lo as usize..(lo + bytes) as usize] {
                // Only where this write is still the byte's last one.
                if b.write
                    .is_some_and(|w| w.tid == tid && w.cta == self.rank && w.store == store)
                {
                    b.fenced = Some(now);
                }
            }
        }
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
            .filter(|_| b.generic && !self.after_fence(b.fenced))?;
        Some(format!(
            "thread {} (block {}): a {} touches shared byte {}, which thread {} wrote with an ordinary store not fenced for the async proxy: that thread must call fence_proxy_async after its stores and before the barrier that orders them before the {}",
            self.tid(), self.block, op, at, w.tid, op
        ))
    }
}
