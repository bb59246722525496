//! The barrier simulated threads meet at (warp, CTA and cluster barriers, and the warp's
//! exchanges): one that a panicking thread can break, so that no launch waits forever for a
//! thread that died.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};

/// A barrier of `n` threads that a panicking thread can break: once the cluster is aborted, every
/// waiter unwinds with [`Aborted`] instead of waiting forever for the thread that died.
pub(crate) struct SimBarrier {
    n: usize,
    /// Threads arrived in this generation, and the generation.
    state: Mutex<(usize, u64)>,
    cv: Condvar,
}

/// The unwind payload of threads released from a barrier by another thread's panic (not
/// reported: the panicking thread is).
pub(crate) struct Aborted;

impl SimBarrier {
    pub(crate) fn new(n: usize) -> Self {
        SimBarrier {
            n,
            state: Mutex::new((0, 0)),
            cv: Condvar::new(),
        }
    }

    pub(crate) fn wait(&self, aborted: &AtomicBool) {
        let abort = || std::panic::resume_unwind(std::boxed::Box::new(Aborted));
        let Ok(mut g) = self.state.lock() else {
            return abort();
        };
        g.0 += 1;
        if g.0 == self.n {
            *g = (0, g.1 + 1);
            self.cv.notify_all();
            return;
        }
        let generation = g.1;
        while g.1 == generation {
            if aborted.load(Ordering::SeqCst) {
                drop(g);
                return abort();
            }
            // A timeout, not only a notification: the panicking thread does not know which
            // barriers others wait at.
            g = match self.cv.wait_timeout(g, std::time::Duration::from_millis(5)) {
                Ok((g, _)) => g,
                Err(_) => return abort(),
            };
        }
    }
}
