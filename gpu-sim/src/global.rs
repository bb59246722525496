//! Global-memory accesses on the simulator, checked as strictly as shared ones: each element of
//! a [`HostMemory`](crate::HostMemory) keeps a record of the launch's last write to it and its
//! reads, and an access by a simulated thread checks itself against that record, then records
//! itself. Threads of one cluster are ordered as for shared memory (barriers, mbarriers:
//! [`SimThread::unordered`]); threads of different clusters are never ordered within a launch
//! (a grid has no barrier), so two CTAs of different clusters touching one element, one of them
//! writing, race. A later launch starts every record afresh (a launch boundary orders all).
//!
//! The running thread is found through [`Current`]: `HostMemory` is reached from kernel code
//! that does not pass the thread along (`Global::load1`), so the launch makes each simulated
//! thread current while its body runs.

use core::ptr;
use std::format;
use std::string::String;

use crate::issue::IssueKind;
use crate::order::merge_reads;
use crate::sched;
use crate::state::{Access, SimThread, MANY};

/// Who touched an element: the thread's cluster (its first block) and block, and its access
/// (thread, CTA rank, epochs and clock, as for shared memory).
#[derive(Clone, Copy)]
pub(crate) struct Who {
    cluster: u32,
    block: u32,
    access: Access,
}

/// An element's accesses in launch `launch`: the last write, and the reads (merged as shared
/// memory's are; of several clusters: "many").
#[derive(Clone, Copy, Default)]
pub(crate) struct Record {
    launch: u64,
    write: Option<Who>,
    read: Option<Who>,
}

/// Makes a simulated thread current while it lives (for its body's run); the scheduler keeps
/// it current across the thread's waits ([`crate::sched::pause`] saves and restores it).
pub(crate) struct Current;

impl Current {
    /// `t` is current until the returned guard is dropped, which must be before `t` is.
    pub(crate) fn enter(t: &SimThread<'_>) -> Current {
        sched::set_context(t as *const SimThread<'_> as *const ());
        Current
    }
}

impl Drop for Current {
    fn drop(&mut self) {
        sched::set_context(ptr::null());
    }
}

/// Run `f` on the current simulated thread, if an access comes from one (host code reading a
/// `HostMemory` between launches does not).
pub(crate) fn with_current(f: impl FnOnce(&SimThread<'_>)) {
    let p = sched::context();
    if !p.is_null() {
        // SAFETY: `p` was set by `Current::enter` from a thread that outlives the guard, and is
        // cleared when the guard drops; the scheduler restores it only into the coroutine that
        // saved it, whose body (and so its thread) is still running.
        #[allow(unsafe_code)]
        f(unsafe { &*(p as *const SimThread<'_>) })
    }
}

impl SimThread<'_> {
    fn who(&self) -> Who {
        Who {
            cluster: self.block - self.rank,
            block: self.block,
            access: self.access(),
        }
    }

    /// Whether `w`'s access may be unordered with this thread's `me`.
    fn global_unordered(&self, w: Who, me: Who) -> bool {
        if w.cluster != me.cluster {
            return true;
        }
        self.unordered(w.access, me.access)
    }

    /// Check this thread's access to element `idx` of tensor `tensor` against its record `r`
    /// and record it: a race is reported as this thread's issue.
    pub(crate) fn global_access(&self, r: &mut Record, tensor: &str, idx: usize, write: bool) {
        let launch = self.cluster.launch_id;
        if r.launch != launch {
            *r = Record {
                launch,
                write: None,
                read: None,
            };
        }
        let me = self.who();
        let wrote = r.write.filter(|w| self.global_unordered(*w, me));
        let read = r.read.filter(|w| write && self.global_unordered(*w, me));
        if let Some((other, did)) = wrote.map(|w| (w, "wrote")).or(read.map(|w| (w, "read"))) {
            self.report(IssueKind::Race, format!(
                "race: thread {} (block {}) {} element {} of {} that {} {} in the same launch with no order between them: {}",
                me.access.tid,
                self.block,
                if write { "writes" } else { "reads" },
                idx,
                tensor,
                by(other),
                did,
                if other.cluster != me.cluster {
                    "CTAs of different clusters are never ordered; give each CTA its own elements (or use an atomic)"
                } else {
                    "put a barrier between the two accesses, or give each thread its own elements"
                }
            ));
        }
        if write {
            r.write = Some(me);
        } else {
            r.read = Some(merged(r.read, me));
        }
    }
}

/// Who an earlier access was, in words.
fn by(w: Who) -> String {
    if w.cluster == MANY {
        String::from("threads of several clusters")
    } else if w.block == MANY || w.access.tid == MANY {
        format!("several threads of the cluster of block {}", w.cluster)
    } else {
        format!("thread {} (block {})", w.access.tid, w.block)
    }
}

/// The read record after `me` reads what `prev` read.
fn merged(prev: Option<Who>, me: Who) -> Who {
    match prev {
        Some(p) if p.cluster != me.cluster => Who {
            cluster: MANY,
            block: MANY,
            access: Access {
                tid: MANY,
                ..me.access
            },
        },
        Some(p) => Who {
            block: if p.block == me.block { me.block } else { MANY },
            access: merge_reads(Some(p.access), me.access),
            ..me
        },
        None => me,
    }
}
