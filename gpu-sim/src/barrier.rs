//! The barrier simulated threads meet at (warp, CTA and cluster barriers, and the warp's
//! exchanges): one that a panicking thread can break, so that no launch waits forever for a
//! thread that died; and [`Progress`], which knows at once when no thread of a cluster can go
//! on (a deadlock), so that a launch never waits forever for threads that wait for each other.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Mutex;

/// A barrier of `n` threads that a panicking thread can break: once the cluster is aborted, every
/// waiter unwinds with [`Aborted`] instead of waiting forever for the thread that died.
pub(crate) struct SimBarrier {
    n: usize,
    /// Threads arrived in this generation, and the generation.
    state: Mutex<(usize, u64)>,
}

/// The unwind payload of threads released from a barrier by another thread's panic (not
/// reported: the panicking thread is).
pub(crate) struct Aborted;

impl SimBarrier {
    pub(crate) fn new(n: usize) -> Self {
        SimBarrier {
            n,
            state: Mutex::new((0, 0)),
        }
    }

    /// Wait for the other `n - 1` threads. If this wait leaves no thread of the cluster
    /// running, `deadlock` reports it and the launch is aborted.
    pub(crate) fn wait(&self, aborted: &AtomicBool, progress: &Progress, deadlock: impl FnOnce()) {
        let abort = || std::panic::resume_unwind(std::boxed::Box::new(Aborted));
        let generation = {
            let Ok(mut g) = self.state.lock() else {
                return abort();
            };
            g.0 += 1;
            if g.0 == self.n {
                *g = (0, g.1 + 1);
                // The waiters are running again from now: counted here, before anyone else
                // blocks.
                progress.release(self.n as u32 - 1);
                return;
            }
            g.1
        };
        if progress.block() {
            deadlock();
        }
        loop {
            if aborted.load(Ordering::SeqCst) {
                return abort();
            }
            crate::sched::pause();
            match self.state.lock() {
                Ok(g) if g.1 != generation => return,
                Ok(_) => {}
                Err(_) => return abort(),
            }
        }
    }
}

/// How many threads of a cluster are running and how many wait. Nothing but threads moves a
/// simulated cluster on (a TMA box lands in the thread that completes its phase, a `cp.async`
/// copy at its thread's wait), so when every thread waits or has returned while some wait, no
/// wait can end: that is a deadlock, known at the moment it happens rather than after a
/// timeout. A thread that blocks counts itself out; the thread that ends a wait (the last
/// arrival at a barrier, the arrival or copy completing an mbarrier phase) counts its waiters
/// back in before anyone can block again.
pub(crate) struct Progress {
    running: AtomicU32,
    waiting: AtomicU32,
}

// Atomics, not a lock: every barrier wait of every thread goes through here. Only the last
// running thread can bring `running` to 0 (a thread that ends others' waits is running, and
// counts them back in before it can block), so the counts need no common lock.
impl Progress {
    /// `threads` running threads.
    pub(crate) fn new(threads: u32) -> Self {
        Progress {
            running: AtomicU32::new(threads),
            waiting: AtomicU32::new(0),
        }
    }

    /// This thread is about to wait: whether it was the last one running (a deadlock).
    pub(crate) fn block(&self) -> bool {
        self.waiting.fetch_add(1, Ordering::SeqCst);
        self.running.fetch_sub(1, Ordering::SeqCst) == 1
    }

    /// `n` waiting threads go on.
    pub(crate) fn release(&self, n: u32) {
        self.running.fetch_add(n, Ordering::SeqCst);
        self.waiting.fetch_sub(n, Ordering::SeqCst);
    }

    /// This thread returned (or never started): whether that leaves threads waiting and none
    /// running.
    pub(crate) fn exit(&self) -> bool {
        let last = self.running.fetch_sub(1, Ordering::SeqCst) == 1;
        last && self.waiting.load(Ordering::SeqCst) > 0
    }
}
