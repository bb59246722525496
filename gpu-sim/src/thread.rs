//! [`SimThread`]: one simulated thread, the [`Thread`] implementation (shuffles, barriers,
//! shared accesses, `ldmatrix`/`stmatrix`, `mma`) and the warp's exchanges they go through.

use std::format;
use std::string::String;
use std::sync::atomic::Ordering;
use std::vec::Vec;

use gpu_runtime::thread::{matrix_slot, CopySource, Thread};

use crate::barrier::SimBarrier;
use crate::grid::unflatten;
use crate::issue::{Issue, IssueKind, Place};
use crate::profile::LaneAccess;
use crate::state::{Access, BarrierSite, Issued, PendingCopy, SimThread, SLOT_WORDS};

impl SimThread<'_> {
    /// What this thread has issued since the launch began.
    pub fn issued(&self) -> Issued {
        self.issued.get()
    }

    pub(crate) fn count(&self, f: impl FnOnce(&mut Issued)) {
        let mut i = self.issued.get();
        f(&mut i);
        self.issued.set(i);
    }

    pub(crate) fn tid(&self) -> u32 {
        self.warp * self.warp_size + self.lane
    }

    pub(crate) fn access(&self) -> Access {
        Access {
            tid: self.tid(),
            cta: self.rank,
            warp: self.warp,
            cluster_epoch: self.cluster_epoch.get(),
            block_epoch: self.block_epoch.get(),
            warp_epoch: self.warp_epoch.get(),
            store: self.issued.get().shared_stores,
            tma: None,
            clock: self.hopper.clock(),
            named: self.hopper.named(),
        }
    }

    /// Report an issue met by this thread.
    pub(crate) fn report(&self, kind: IssueKind, message: String) {
        let place = Some(Place {
            block: self.block,
            thread: self.tid(),
        });
        if let Ok(mut e) = self.cluster.issues.lock() {
            e.push(Issue {
                kind,
                place,
                message,
            });
        }
    }
}

/// The cluster barrier's id among [`SimThread::check_barrier_site`]'s (past the 16 of `bar.sync`).
const CLUSTER_BARRIER: u32 = 16;

// SAFETY: the simulator's own ids and barriers; it knows no shared bytes at compile time and
// checks every access against the launch's.
unsafe impl Thread for SimThread<'_> {
    fn lane(&self) -> u32 {
        self.lane
    }
    fn warp(&self) -> u32 {
        self.warp
    }
    fn block(&self) -> u32 {
        self.block_idx()[0]
    }
    fn thread_idx(&self) -> [u32; 3] {
        unflatten(self.tid(), self.launch.block_dim)
    }
    fn block_dim(&self) -> [u32; 3] {
        self.launch.block_dim
    }
    fn block_idx(&self) -> [u32; 3] {
        unflatten(self.block, self.launch.grid_dim)
    }
    fn grid_dim(&self) -> [u32; 3] {
        self.launch.grid_dim
    }
    fn launch_shape(&self) -> Option<gpu_runtime::thread::LaunchShape> {
        Some(gpu_runtime::thread::LaunchShape {
            shared_bytes: self.launch.shared_bytes,
            warp_size: self.launch.warp_size,
            cluster_ctas: self.launch.cluster,
        })
    }
    fn cta_rank(&self) -> u32 {
        self.rank
    }
    fn scratch_reads(&self) -> bool {
        self.scratch_reads.get()
    }
    fn set_scratch_reads(&self, pending: bool) {
        self.scratch_reads.set(pending)
    }

    fn shfl_idx(&self, v: u32, src_lane: u32) -> u32 {
        self.count(|i| i.shuffles += 1);
        self.exchange(v, src_lane)
    }

    fn shfl_xor(&self, v: u32, mask: u32) -> u32 {
        self.shfl_idx(v, self.lane ^ mask)
    }

    fn redux(&self, op: gpu_runtime::redux::Redux, v: u32) -> u32 {
        self.count(|i| i.redux += 1);
        if self.warp_size != 32 {
            self.report(
                IssueKind::Launch,
                format!(
                    "thread {} (block {}): redux.sync needs 32-lane warps, not {}",
                    self.tid(),
                    self.block,
                    self.warp_size
                ),
            );
        }
        let w = &self.state.warps[self.warp as usize];
        w.slots[self.lane as usize * SLOT_WORDS].store(v, Ordering::SeqCst);
        self.wait_at(&w.barrier, "for its warp at a redux.sync");
        let words: Vec<u32> = (0..self.warp_size as usize)
            .map(|l| w.slots[l * SLOT_WORDS].load(Ordering::SeqCst))
            .collect();
        self.wait_at(&w.barrier, "for its warp at a redux.sync");
        gpu_runtime::redux::fold(op, &words)
    }

    fn sync_warp(&self) {
        self.count(|i| i.barriers += 1);
        self.wait_at(
            &self.state.warps[self.warp as usize].barrier,
            "at a warp barrier",
        );
        self.warp_epoch.set(self.warp_epoch.get() + 1);
    }

    #[track_caller]
    fn sync_block(&self) {
        self.count(|i| i.barriers += 1);
        self.check_barrier_site(0, self.block_epoch.get(), core::panic::Location::caller());
        self.publish_phases();
        self.wait_at(&self.state.barrier, "at a CTA barrier (sync_block)");
        self.block_epoch.set(self.block_epoch.get() + 1);
        self.adopt_phases();
        self.scratch_reads.set(false);
    }

    #[track_caller]
    fn sync_cluster(&self) {
        self.count(|i| i.barriers += 1);
        let (round, site) = (self.cluster_epoch.get(), core::panic::Location::caller());
        self.check_barrier_site(CLUSTER_BARRIER, round, site);
        self.wait_at(&self.cluster.barrier, "at a cluster barrier (sync_cluster)");
        self.cluster_epoch.set(self.cluster_epoch.get() + 1);
    }

    // The simulator checks the contract of these `unsafe` methods itself: an access out of
    // bounds, misaligned or racing is reported as an issue, never undefined behaviour.
    unsafe fn st_shared(&self, byte_offset: u32, bytes: u32, words: [u32; 4]) {
        // SAFETY: checked (above).
        unsafe { self.st_shared_cluster(self.rank, byte_offset, bytes, words) }
    }

    unsafe fn ld_shared(&self, byte_offset: u32, bytes: u32) -> [u32; 4] {
        // SAFETY: checked (above).
        unsafe { self.ld_shared_cluster(self.rank, byte_offset, bytes) }
    }

    unsafe fn st_shared_cluster(&self, cta: u32, byte_offset: u32, bytes: u32, words: [u32; 4]) {
        self.count(|i| i.shared_stores += 1);
        self.log(true, cta, byte_offset, bytes, false);
        self.store_bytes(cta, byte_offset, bytes, words)
    }

    unsafe fn ld_shared_cluster(&self, cta: u32, byte_offset: u32, bytes: u32) -> [u32; 4] {
        self.count(|i| i.shared_loads += 1);
        self.log(false, cta, byte_offset, bytes, false);
        self.load_bytes(cta, byte_offset, bytes)
    }

    // The default's semantics, with the operands exchanged once rather than shuffled word by
    // word: the same sums in the same order, 32 times fewer warp rendezvous.
    fn mma_m16n8k16(
        &self,
        kind: gpu_runtime::mma::MmaKind,
        a: [u32; 4],
        b: [u32; 2],
        c: [f32; 4],
    ) -> [f32; 4] {
        if self.warp_size != 32 {
            self.report(
                IssueKind::Launch,
                format!(
                    "thread {} (block {}): mma.m16n8k16 needs 32-lane warps, not {}",
                    self.tid(),
                    self.block,
                    self.warp_size
                ),
            );
            return c;
        }
        let w = self.all_lanes_words([a[0], a[1], a[2], a[3], b[0], b[1]]);
        let (a_of, b_of) = (
            |i: usize, l: u32| w[l as usize][i],
            |i: usize, l: u32| w[l as usize][4 + i],
        );
        gpu_runtime::mma::m16n8k16_lane(kind, self.lane, a_of, b_of, c)
    }

    unsafe fn cp_async(&self, byte_offset: u32, bytes: u32, src: CopySource) {
        self.count(|i| i.shared_stores += 1);
        if !matches!(bytes, 4 | 8 | 16) {
            return self.report(
                IssueKind::Misaligned,
                format!(
                    "thread {} (block {}): an async copy moves 4, 8 or 16 bytes, not {}",
                    self.tid(),
                    self.block,
                    bytes
                ),
            );
        }
        self.log(true, self.rank, byte_offset, bytes, false);
        if self.start_copy(byte_offset, bytes) {
            self.copies.borrow_mut().push(PendingCopy {
                group: self.commits.get(),
                byte_offset,
                bytes,
                words: src.read(bytes),
            });
        }
    }

    fn cp_async_commit(&self) {
        self.commits.set(self.commits.get() + 1);
    }

    fn cp_async_wait<const PENDING: u32>(&self) {
        let done = self.commits.get().saturating_sub(PENDING);
        let landed: Vec<PendingCopy> = {
            let mut copies = self.copies.borrow_mut();
            let keep = copies.iter().position(|c| c.group >= done);
            let keep = keep.unwrap_or(copies.len());
            copies.drain(..keep).collect()
        };
        for c in landed {
            self.land_copy(c);
        }
    }

    unsafe fn ldmatrix(&self, count: u32, row_addr: u32, trans: bool) -> [u32; 4] {
        self.count(|i| i.shared_loads += 1);
        if self.lane < 8 * count {
            self.log(false, self.rank, row_addr, 16, true);
        }
        let addrs = self.all_lanes(row_addr);
        let mut out = [0u32; 4];
        if !self.matrix_check(count, &addrs) {
            return out;
        }
        for (q, o) in out.iter_mut().enumerate().take(count as usize) {
            for h in 0..2 {
                let (src, off) = matrix_slot(self.lane, q as u32, h, trans);
                let half = self.load_bytes(self.rank, addrs[src as usize] + off, 2)[0];
                *o |= half << (16 * h);
            }
        }
        out
    }

    unsafe fn stmatrix(&self, count: u32, row_addr: u32, trans: bool, words: [u32; 4]) {
        self.count(|i| i.shared_stores += 1);
        if self.lane < 8 * count {
            self.log(true, self.rank, row_addr, 16, true);
        }
        let addrs = self.all_lanes(row_addr);
        if !self.matrix_check(count, &addrs) {
            return;
        }
        for (q, &w) in words.iter().enumerate().take(count as usize) {
            for h in 0..2 {
                let (dst, off) = matrix_slot(self.lane, q as u32, h, trans);
                let half = [(w >> (16 * h)) & 0xffff, 0, 0, 0];
                self.store_bytes(self.rank, addrs[dst as usize] + off, 2, half);
            }
        }
    }
}

impl SimThread<'_> {
    /// Record this lane's part in the shared access it is issuing (after counting it).
    pub(crate) fn log(&self, store: bool, cta: u32, addr: u32, bytes: u32, matrix: bool) {
        let issued = self.issued.get();
        let a = LaneAccess {
            block: self.block,
            warp: self.warp,
            lane: self.lane,
            store,
            seq: if store {
                issued.shared_stores
            } else {
                issued.shared_loads
            },
            cta,
            addr,
            bytes,
            matrix,
        };
        if let Some(Ok(mut log)) = self.cluster.log.as_ref().map(|l| l.lock()) {
            log.push(a);
        }
    }

    /// `v` of lane `src_lane`, through the warp's slots (all lanes must call).
    pub(crate) fn exchange(&self, v: u32, src_lane: u32) -> u32 {
        let w = &self.state.warps[self.warp as usize];
        w.slots[self.lane as usize * SLOT_WORDS].store(v, Ordering::SeqCst);
        self.wait_at(&w.barrier, "for its warp at a shuffle");
        let src = (src_lane % self.warp_size) as usize * SLOT_WORDS;
        let r = w.slots[src].load(Ordering::SeqCst);
        self.wait_at(&w.barrier, "for its warp at a shuffle");
        r
    }
}

impl SimThread<'_> {
    /// Wait at `b` (`what` says which, for a deadlock's report).
    fn wait_at(&self, b: &SimBarrier, what: &str) {
        b.wait(&self.cluster.aborted, &self.cluster.progress, || {
            self.deadlock(what)
        })
    }

    /// `bar.sync` is `barrier.sync.aligned`: each warp reaches barrier `id` (0 the CTA's, 1-15
    /// named, [`CLUSTER_BARRIER`] the cluster's `barrier.cluster.*.aligned`) at one
    /// instruction. Lanes of a warp that reach it in the same `round` from two calls (the arms
    /// of a branch that splits the warp) are reported once per warp and round; the barrier
    /// still counts every thread, as the non-aligned form would.
    pub(crate) fn check_barrier_site(
        &self,
        id: u32,
        round: u32,
        site: &'static core::panic::Location<'static>,
    ) {
        let Ok(mut sites) = self.state.barrier_sites.lock() else {
            return;
        };
        let fresh = BarrierSite {
            round,
            site,
            reported: false,
        };
        let s = sites.entry((id, self.warp)).or_insert(fresh);
        if s.round != round {
            *s = fresh;
        }
        if s.site == site || s.reported {
            return;
        }
        s.reported = true;
        let first = s.site;
        drop(sites);
        let which = match id {
            0 => "the CTA barrier (sync_block)".to_string(),
            CLUSTER_BARRIER => "the cluster barrier (sync_cluster)".to_string(),
            _ => format!("named barrier {}", id),
        };
        self.report(IssueKind::DivergentBarrier, format!(
            "warp {} reaches {} at {} in some lanes and at {} in others: bar.sync must be reached by a whole warp at one call (the hardware counts the warp at the first and lets the barrier complete early); call it once, after the branch that splits the warp",
            self.warp, which, first, site
        ));
    }

    /// This thread's wait (`what`) left no thread of the cluster running: report the deadlock
    /// and abort the launch (after an abort, a panic's, threads stop waiting anyway: nothing
    /// more to report).
    pub(crate) fn deadlock(&self, what: &str) {
        if self.cluster.aborted.swap(true, Ordering::SeqCst) {
            return;
        }
        self.report(IssueKind::Deadlock, format!(
            "thread {} (block {}) waits {}, and every other thread of its cluster waits too or has returned: no wait can end (a barrier some threads never reach, too few arrivals or bytes for an mbarrier phase, or phases that ran past a wait)",
            self.tid(), self.block, what
        ));
    }

    /// Every lane's `v`, exchanged through the warp (all lanes must call).
    pub(crate) fn all_lanes(&self, v: u32) -> [u32; 64] {
        let mut out = [0u32; 64];
        for (o, w) in out.iter_mut().zip(self.all_lanes_words([v])) {
            *o = w[0];
        }
        out
    }

    /// Every lane's `K` words (at most [`SLOT_WORDS`]), exchanged through the warp at once (all
    /// lanes must call).
    pub(crate) fn all_lanes_words<const K: usize>(&self, v: [u32; K]) -> Vec<[u32; K]> {
        let w = &self.state.warps[self.warp as usize];
        let me = self.lane as usize * SLOT_WORDS;
        for (i, x) in v.iter().enumerate() {
            w.slots[me + i].store(*x, Ordering::SeqCst);
        }
        self.wait_at(&w.barrier, "for its warp at a warp-wide instruction");
        let out = (0..self.warp_size as usize)
            .map(|l| std::array::from_fn(|i| w.slots[l * SLOT_WORDS + i].load(Ordering::SeqCst)))
            .collect();
        self.wait_at(&w.barrier, "for its warp at a warp-wide instruction");
        out
    }

    /// The rows an `.x{count}` access reads (lanes `0 .. 8 count` give them) must be 16-byte
    /// aligned, on 32-lane warps.
    pub(crate) fn matrix_check(&self, count: u32, addrs: &[u32; 64]) -> bool {
        let bad = addrs[..(8 * count as usize).min(64)]
            .iter()
            .find(|a| !a.is_multiple_of(16));
        if self.warp_size != 32 || !matches!(count, 1 | 2 | 4) || bad.is_some() {
            self.report(IssueKind::Misaligned, format!(
                "thread {} (block {}): ldmatrix/stmatrix .x{} needs 32-lane warps and 16-byte aligned rows, got address {:?}",
                self.tid(),
                self.block,
                count,
                bad
            ));
            return false;
        }
        true
    }
}
