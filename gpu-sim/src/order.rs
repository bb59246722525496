//! When two accesses are ordered: the simulator's one happens-before relation, built from
//! releases and acquires. Every synchronisation is a release by each thread that takes part
//! and an acquire by each thread that it lets through: a CTA, cluster or warp barrier releases
//! into all its threads at once, a named barrier (`bar.sync id, n`) among its participants, an
//! mbarrier arrival into the threads that wait for that phase, a TMA or `cp.async`'s completion
//! (its phase, its group) into the threads that wait for it, and a `fence.proxy.async` or
//! `fence.mbarrier_init` is stamped like an access and must itself be ordered before the async
//! operation that depends on it.
//!
//! The relation is a vector clock, stored compressed where a synchronisation is total: an
//! access carries its thread's cluster, CTA and warp barrier counts (every thread of the CTA
//! advances its component of the clock together at a CTA barrier, so one counter stands for
//! all of them), the count of the named barrier it last passed, and its thread's own clock;
//! each thread keeps, per other thread, the latest clock it acquired from it ([`Knowledge`]),
//! and the mbarrier phases it saw complete. Two accesses race when neither is ordered before
//! the other ([`races`], [`SimThread::unordered`]).

use crate::state::{Access, Knowledge, SimThread, ThreadHopper, MANY};

/// Two accesses race when different threads touch a byte with no barrier between them that both
/// took part in: a cluster barrier; for threads of one CTA, a block barrier or a named barrier;
/// for threads of one warp, a warp barrier. (Orders made by mbarriers are the threads' clocks:
/// [`SimThread::unordered`].)
pub(crate) fn races(a: Access, b: Access) -> bool {
    let named = a.named.0 != 0 && a.named.0 == b.named.0 && a.named.1 != b.named.1;
    (a.tid != b.tid || a.cta != b.cta)
        && a.cluster_epoch == b.cluster_epoch
        && (a.cta != b.cta
            || (a.block_epoch == b.block_epoch
                && !named
                && (a.warp != b.warp || a.warp_epoch == b.warp_epoch)))
}

/// The read record of a byte read by `me` after `prev`. Several readers since the last barrier
/// they all passed become "many" (of several CTAs: "many CTAs"), so that a later write races
/// with any of them; their named-barrier count is kept only when they all share it.
pub(crate) fn merge_reads(prev: Option<Access>, me: Access) -> Access {
    match prev {
        Some(r) if r.cluster_epoch == me.cluster_epoch && r.cta != me.cta => Access {
            tid: MANY,
            cta: MANY,
            ..me
        },
        Some(r)
            if r.cluster_epoch == me.cluster_epoch
                && r.tid != me.tid
                && r.block_epoch == me.block_epoch =>
        {
            Access {
                tid: MANY,
                named: if r.named == me.named {
                    me.named
                } else {
                    (0, 0)
                },
                ..me
            }
        }
        _ => me,
    }
}

impl Knowledge {
    pub(crate) fn join(&mut self, o: &Knowledge) {
        if self.clocks.len() < o.clocks.len() {
            self.clocks.resize(o.clocks.len(), 0);
        }
        for (a, b) in self.clocks.iter_mut().zip(&o.clocks) {
            *a = (*a).max(*b);
        }
        for (&bar, &n) in &o.phases {
            let e = self.phases.entry(bar).or_insert(0);
            *e = (*e).max(n);
        }
    }
}

impl ThreadHopper {
    /// Whether this thread waited for phase `phase` of the mbarrier at byte `bar`.
    pub(crate) fn observed(&self, (bar, phase): (u32, u32)) -> bool {
        self.knows
            .borrow()
            .phases
            .get(&bar)
            .is_some_and(|&n| n > phase)
    }

    pub(crate) fn clock(&self) -> u32 {
        self.clock.get()
    }

    pub(crate) fn named(&self) -> (u32, u32) {
        self.named.get()
    }

    /// Whether this thread acquired a release of `a`'s thread made after `a` (same CTA).
    pub(crate) fn acquired(&self, a: Access) -> bool {
        a.tid != MANY
            && self
                .knows
                .borrow()
                .clocks
                .get(a.tid as usize)
                .is_some_and(|&c| c > a.clock)
    }

    /// Release into `into`: what this thread knows, its own clock advanced past its accesses
    /// so far.
    pub(crate) fn release(&self, tid: u32, into: &mut Knowledge) {
        self.clock.set(self.clock.get() + 1);
        let mut k = self.knows.borrow_mut();
        if k.clocks.len() <= tid as usize {
            k.clocks.resize(tid as usize + 1, 0);
        }
        k.clocks[tid as usize] = self.clock.get();
        into.join(&k);
    }

    pub(crate) fn acquire(&self, k: &Knowledge) {
        self.knows.borrow_mut().join(k);
    }
}

impl SimThread<'_> {
    /// Whether access `a` may be unordered with this thread's access `me`: a thread's accesses
    /// are ordered by CTA (cluster, warp, named) barriers and by the mbarriers it arrived on
    /// before another waited, a TMA's writes by a wait for their phase.
    pub(crate) fn unordered(&self, a: Access, me: Access) -> bool {
        match a.tma {
            Some(phase) => !self.hopper.observed(phase),
            None => races(a, me) && !(a.cta == me.cta && self.hopper.acquired(a)),
        }
    }

    /// Before a CTA barrier: the phases this thread waited for, for every thread after it.
    pub(crate) fn publish_phases(&self) {
        if let Ok(mut j) = self.state.hopper.joined.lock() {
            for (&bar, &n) in self.hopper.knows.borrow().phases.iter() {
                let e = j.entry(bar).or_insert(0);
                *e = (*e).max(n);
            }
        }
    }

    /// After a CTA barrier: what the threads published before it. The wgmma reads that ended
    /// before it are ordered before every later access: forget them.
    pub(crate) fn adopt_phases(&self) {
        if let Ok(j) = self.state.hopper.joined.lock() {
            let mut mine = self.hopper.knows.borrow_mut();
            for (&bar, &n) in j.iter() {
                let e = mine.phases.entry(bar).or_insert(0);
                *e = (*e).max(n);
            }
        }
        let epoch = self.block_epoch.get();
        if let Ok(mut reads) = self.state.hopper.wgmma_reads.lock() {
            reads.retain(|r| r.retired.is_none_or(|a| a.block_epoch >= epoch));
        }
    }
}
