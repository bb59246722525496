//! [`Hopper`] on the simulator. An mbarrier counts arrivals and transaction bytes per phase; a
//! TMA load reads its box at issue and lands it, swizzled, when its phase completes; a wgmma
//! reads its operands through the descriptors as the hardware does ([`operand_address`]) and
//! multiplies in f32. What the hardware requires is checked and reported: mbarriers used
//! before their initialisation is visible or overwritten by data, a TMA destination off its
//! swizzle pattern's alignment, a phase completed by more bytes than announced, a read of TMA
//! data by a thread that did not wait for its phase, a wgmma descriptor whose swizzle is not
//! the one the bytes were written with, shared memory written while a wgmma still reads it, a
//! wgmma that the threads of one warpgroup do not issue alike, and accumulator registers changed
//! before the wait for the wgmmas that write them (a read cannot be seen: the simulator
//! multiplies at issue).
//!
//! Orders between threads: an mbarrier orders the copy engine's writes before its waiters (and,
//! through a CTA barrier after the wait, before every thread), and each arriving thread's
//! accesses before the threads that wait for the phase: every thread keeps a vector clock,
//! which an arrival releases into the mbarrier's phase and a completed wait acquires, as a
//! named barrier (`bar.sync id, n`) does among its participants. A wgmma's operand reads end
//! when its thread waits for its group; until then shared memory under them is not to be
//! written, and after it only by threads ordered after that wait (an mbarrier the reader
//! arrived on, or a barrier): a producer refilling a stage consumers read is checked.

use std::collections::HashMap;
use std::format;
use std::string::String;
use std::vec::Vec;

use gpu_runtime::hopper::{
    accumulator_coord, operand_address, Descriptor, Hopper, Swizzle, TensorMap, WgmmaOp,
};
use gpu_runtime::mma::{widen, MmaKind};
use gpu_runtime::{Element, Thread};

use crate::issue::IssueKind;
use crate::order::races;
use crate::state::{
    Access, BlockState, Byte, Knowledge, Landing, Mbarrier, Named, SimThread, WgmmaIssue, WgmmaRead,
};

/// The shared-window address of the buffer's byte 0 on the simulator: not a multiple of 1024,
/// so a kernel that assumes its buffer starts on a swizzle pattern is caught.
pub const SHARED_BASE: u32 = 0x410;

/// How long a wait for an mbarrier phase or a named barrier may take before the launch is
/// declared deadlocked. A fallback: a deadlock is known when the last running thread waits
/// (`barrier::Progress`), except where a thread spins on `mbarrier_try_wait` by hand.
const DEADLOCK: std::time::Duration = std::time::Duration::from_secs(60);
/// The same once the launch has reported an error.
const AFTER_ERROR: std::time::Duration = std::time::Duration::from_secs(1);

impl SimThread<'_> {
    /// Unwind if another thread failed, or (reporting `what`) if this wait began [`DEADLOCK`]
    /// ago.
    fn abort_if_stuck(&self, start: std::time::Instant, what: impl FnOnce() -> String) {
        use std::sync::atomic::Ordering::SeqCst;
        // Once something else went wrong, a stuck wait is its consequence: give up sooner.
        let failed = self.cluster.issues.lock().map_or(true, |e| !e.is_empty());
        let limit = if failed { AFTER_ERROR } else { DEADLOCK };
        if !self.cluster.aborted.load(SeqCst) && start.elapsed() > limit {
            self.fail(IssueKind::Deadlock, what());
            self.cluster.aborted.store(true, SeqCst);
        }
        if self.cluster.aborted.load(SeqCst) {
            std::panic::resume_unwind(std::boxed::Box::new(crate::barrier::Aborted));
        }
    }

    fn fail(&self, kind: IssueKind, what: String) {
        self.report(
            kind,
            format!("thread {} (block {}): {}", self.tid(), self.block, what),
        );
    }

    /// Whether this thread may write bytes `off..off + bytes` of `target` now: no wgmma reads
    /// them still, and every one that did ended before this write (its thread waited for it,
    /// then a barrier or an mbarrier ordered that wait before this thread). Else an error
    /// saying who reads them. The reads this write is ordered after are forgotten.
    pub(crate) fn wgmma_free(&self, target: &BlockState, off: u32, bytes: u32, what: &str) -> bool {
        let Ok(mut reads) = target.hopper.wgmma_reads.lock() else {
            return false;
        };
        let me = self.access();
        let hit = |r: &WgmmaRead| r.lo < off + bytes && off < r.hi;
        let conflict = reads.iter().find(|r| {
            hit(r)
                && r.retired
                    .is_none_or(|a| !core::ptr::eq(target, self.state) || self.unordered(a, me))
        });
        if let Some(r) = conflict {
            let (tid, ended) = (r.tid, r.retired.is_some());
            drop(reads);
            self.fail(IssueKind::Wgmma, if ended {
                format!("{} shared bytes {}..{} that a wgmma of thread {} read, with nothing ordering the end of that read (its wgmma_wait) before this write: arrive on an mbarrier this thread waits for, or synchronise", what, off, off + bytes, tid)
            } else {
                format!("{} shared bytes {}..{} that a wgmma of thread {} may still read: wait for its group (wgmma_wait) first", what, off, off + bytes, tid)
            });
            return false;
        }
        if !reads.iter().any(hit) {
            return true;
        }
        // What is left of each read outside the written bytes.
        let mut kept = Vec::with_capacity(reads.len());
        for r in reads.drain(..) {
            if !hit(&r) {
                kept.push(r);
                continue;
            }
            for (lo, hi) in [(r.lo, off), (off + bytes, r.hi)] {
                if lo < hi {
                    kept.push(WgmmaRead { lo, hi, ..r });
                }
            }
        }
        *reads = kept;
        true
    }

    /// The mbarrier at `bar`, locked, after checking its initialisation is visible to this
    /// thread, or (`copy_engine`) to the async proxy completing bytes on it for this thread.
    fn mbarrier<R>(
        &self,
        bar: u32,
        copy_engine: bool,
        f: impl FnOnce(&mut Mbarrier) -> R,
    ) -> Option<R> {
        let mut map = self.state.hopper.mbarriers.lock().ok()?;
        let Some(m) = map.get_mut(&bar) else {
            drop(map);
            self.fail(
                IssueKind::Mbarrier,
                format!(
                    "uses shared byte {} as an mbarrier, but no mbarrier was initialised there",
                    bar
                ),
            );
            return None;
        };
        if races(m.init, self.access()) {
            let by = m.init.tid;
            drop(map);
            self.fail(IssueKind::Race, format!(
                "uses the mbarrier at byte {} before thread {}'s initialisation is visible: fence_mbarrier_init and sync_block first",
                bar, by
            ));
            return None;
        }
        let own = m.init.tid == self.tid() && m.init.cta == self.rank;
        if (copy_engine || !own) && !self.after_fence(m.fenced) {
            let by = m.init.tid;
            drop(map);
            let user = if copy_engine {
                "its TMA load completes bytes on"
            } else {
                "uses"
            };
            self.fail(IssueKind::MissingFence, format!(
                "{} the mbarrier at byte {}, whose initialisation by thread {} was not fenced: call fence_mbarrier_init after mbarrier_init and before the barrier that publishes it",
                user, bar, by
            ));
            return None;
        }
        Some(f(m))
    }

    /// Complete `m`'s phase if every arrival and byte is in: land its TMA boxes, wake waiters.
    fn complete(&self, bar: u32, m: &mut Mbarrier) {
        if m.pending > 0 {
            return;
        }
        if m.tx < 0 {
            self.fail(IssueKind::Mbarrier, format!(
                "async copies completed {} bytes more than expect_tx announced on the mbarrier at byte {}",
                -m.tx, bar
            ));
            m.tx = 0;
        }
        if m.tx != 0 {
            return;
        }
        let phase = m.phase;
        if let Ok(mut mem) = self.state.shared.lock() {
            for l in m.landing.drain(..) {
                let w = Access {
                    tid: l.issuer,
                    tma: Some((bar, phase)),
                    ..self.access()
                };
                for (i, v) in l.bytes.iter().enumerate() {
                    let b = &mut mem[l.dst as usize + i];
                    *b = Byte {
                        value: *v,
                        write: Some(w),
                        copying: None,
                        swizzle: Some(l.swizzle),
                        generic: false,
                        ..*b
                    };
                }
            }
        }
        m.completed[(m.phase & 1) as usize] = core::mem::take(&mut m.released);
        m.phase += 1;
        m.pending = m.count;
        // The waiters this phase ends go on: counted running before anyone can block again.
        let before = m.waiters.len();
        let now = m.phase & 1;
        m.waiters.retain(|&(_, parity)| parity == now);
        self.cluster
            .progress
            .release((before - m.waiters.len()) as u32);
    }

    /// Start a TMA into `dst..dst + n`: checks as for any async copy, then marks it in flight.
    fn start_tma(&self, dst: u32, n: u32, swizzle: Swizzle) -> bool {
        let align = swizzle.alignment().max(128);
        if !(SHARED_BASE + dst).is_multiple_of(align) {
            self.fail(IssueKind::Misaligned, format!(
                "a TMA load into shared byte {} (address {:#x}) is not aligned to {} bytes, which its {:?} swizzle needs: align the tile from shared_base()",
                dst, SHARED_BASE + dst, align, swizzle
            ));
            return false;
        }
        let len = self.state.shared.lock().map(|s| s.len()).unwrap_or(0) as u64;
        if dst as u64 + n as u64 > len {
            self.fail(
                IssueKind::OutOfBounds,
                format!(
                    "a TMA load of {} bytes into shared byte {} is out of bounds ({} bytes)",
                    n, dst, len
                ),
            );
            return false;
        }
        if !self.wgmma_free(self.state, dst, n, "a TMA load writes") {
            return false;
        }
        let me = self.access();
        let Ok(mut mem) = self.state.shared.lock() else {
            return false;
        };
        for i in dst..dst + n {
            let b = &mem[i as usize];
            if let Some(p) = self.async_proxy_sees(b, i, "TMA load") {
                drop(mem);
                self.report(IssueKind::MissingFence, p);
                return false;
            }
            let busy = b.copying.is_some()
                || b.mbarrier
                || b.write.is_some_and(|w| self.unordered(w, me))
                || b.read.is_some_and(|r| self.unordered(r, me));
            if busy {
                drop(mem);
                self.fail(IssueKind::Race, format!(
                    "a TMA load into shared byte {} that holds an mbarrier, is being copied into, or was touched without a barrier (or a wait for its TMA's phase) between",
                    i
                ));
                return false;
            }
        }
        for i in dst..dst + n {
            mem[i as usize].copying = Some(me.tid);
        }
        true
    }

    /// Wait until the phase of parity `parity` of the mbarrier at `bar` may have completed: if
    /// it has not, register as its waiter and block until the thread completing it lets this
    /// one go (or the launch is aborted: a deadlock is reported by the thread whose wait left
    /// none running).
    fn block_on_phase(&self, bar: u32, parity: u32) {
        use std::sync::atomic::Ordering::SeqCst;
        let Ok(mut map) = self.state.hopper.mbarriers.lock() else {
            return;
        };
        let me = self.tid();
        match map.get_mut(&bar) {
            Some(m) if m.phase & 1 == parity => m.waiters.push((me, parity)),
            _ => return,
        }
        if self.cluster.progress.block() {
            self.deadlock(&format!(
                "for the phase of parity {} of the mbarrier at byte {}",
                parity, bar
            ));
        }
        let waiting = |map: &HashMap<u32, Mbarrier>| {
            map.get(&bar)
                .is_some_and(|m| m.waiters.iter().any(|w| w.0 == me))
        };
        drop(map);
        loop {
            if self.cluster.aborted.load(SeqCst) {
                std::panic::resume_unwind(std::boxed::Box::new(crate::barrier::Aborted));
            }
            crate::sched::pause();
            match self.state.hopper.mbarriers.lock() {
                Ok(map) if waiting(&map) => {}
                _ => return,
            }
        }
    }

    /// Whether `acc` holds what the wgmmas in flight that write it left there (else reported:
    /// the thread wrote accumulator registers before waiting for those wgmmas).
    fn accumulators_untouched(&self, acc: &[f32]) -> bool {
        let key = acc.as_ptr() as usize;
        let flights = self.hopper.acc_in_flight.borrow();
        let Some((_, group, wrote)) = flights
            .iter()
            .find(|f| f.0 == key && f.2.len() == acc.len())
        else {
            return true;
        };
        let same = wrote
            .iter()
            .zip(acc)
            .all(|(a, b)| a.to_bits() == b.to_bits());
        if !same {
            let group = *group;
            drop(flights);
            self.fail(IssueKind::Wgmma, format!(
                "changes accumulator registers that a wgmma of group {} still writes: wait for it (wgmma_wait) before touching them",
                group
            ));
        }
        same
    }

    /// `acc` is what the wgmma just issued will write, by the wait for its group.
    fn accumulators_in_flight(&self, acc: &[f32]) {
        let (key, group) = (acc.as_ptr() as usize, self.hopper.commits.get());
        let mut flights = self.hopper.acc_in_flight.borrow_mut();
        flights.retain(|f| f.0 != key);
        flights.push((key, group, acc.to_vec()));
    }

    /// Whether this thread's wgmma is the one its warpgroup's first thread to reach it issued
    /// (else an error naming both): a wgmma is one instruction of the warpgroup.
    fn same_as_warpgroup(&self, mine: WgmmaIssue) -> bool {
        let (group, seq) = (self.hopper.commits.get(), self.hopper.in_group.get());
        self.hopper.in_group.set(seq + 1);
        let Ok(mut issues) = self.state.hopper.wgmma_issues.lock() else {
            return false;
        };
        // Groups the warpgroup has long waited for are not issued again.
        let wg = self.warp / 4;
        issues.retain(|&(w, g, _), _| w != wg || g + 4 > group);
        let first = *issues.entry((wg, group, seq)).or_insert(mine);
        drop(issues);
        if (WgmmaIssue {
            tid: mine.tid,
            ..first
        }) == mine
        {
            return true;
        }
        self.fail(IssueKind::Wgmma, format!(
            "issues wgmma {} of group {} as m64n{}k16 with descriptors {:#x}, {:#x} (accumulate {}) where thread {} of its warpgroup issued m64n{}k16 with {:#x}, {:#x} (accumulate {}): a wgmma is one instruction of the warpgroup, so its operands must not depend on the warp or lane within it",
            seq, group, mine.n, mine.a, mine.b, mine.accumulate, first.tid, first.n, first.a, first.b, first.accumulate
        ));
        false
    }

    /// One operand element of a wgmma: read through descriptor `d`, checked as a load (and
    /// against the swizzle the copy engine wrote it with); `span` grows to cover it.
    #[allow(clippy::too_many_arguments)]
    fn operand(
        &self,
        mem: &mut [Byte],
        d: Descriptor,
        mn_major: bool,
        kind: MmaKind,
        mn: u32,
        k: u32,
        span: &mut (u32, u32),
        problem: &mut Option<(IssueKind, String)>,
    ) -> f32 {
        let addr = operand_address(d, mn_major, 2, mn, k);
        let Some(off) = addr
            .checked_sub(SHARED_BASE)
            .filter(|o| (*o as usize) + 2 <= mem.len())
        else {
            *problem = Some((IssueKind::OutOfBounds, format!("thread {} (block {}): a wgmma descriptor reads address {:#x}, outside the shared buffer", self.tid(), self.block, addr)));
            return 0.0;
        };
        *span = (span.0.min(off), span.1.max(off + 2));
        let me = self.access();
        let mut h = 0u16;
        for i in 0..2 {
            let b = &mut mem[(off + i) as usize];
            if b.swizzle.is_some_and(|s| s != d.swizzle) {
                *problem = Some((IssueKind::Wgmma, format!(
                    "thread {} (block {}): a wgmma descriptor with {:?} swizzle reads shared byte {}, which the copy engine wrote with {:?} swizzle",
                    self.tid(), self.block, d.swizzle, off + i, b.swizzle
                )));
            }
            if let Some(p) = self.async_proxy_sees(b, off + i, "wgmma") {
                *problem = Some((IssueKind::MissingFence, p));
            }
            let (v, p) = self.check_read(b, me, off + i, self.rank, "a wgmma of ");
            if p.is_some() {
                *problem = p;
            }
            h |= (v as u16) << (8 * i);
        }
        widen(kind, h)
    }
}

/// Where a wgmma's A is: a descriptor of shared memory, or this lane's two rows of 16 (rows
/// `g` and `g + 8` of its warp's 16), gathered from the warp's registers.
enum OperandA {
    Shared(u64),
    Registers([[f32; 16]; 2]),
}

impl SimThread<'_> {
    /// A wgmma of either form: A's rows of this lane already gathered, or in shared memory.
    fn wgmma_from(&self, op: WgmmaOp, a: OperandA, b: u64, acc: &mut [f32], accumulate: bool) {
        let n = 2 * acc.len() as u32;
        if self.warp_size != 32 || n == 0 || !n.is_multiple_of(8) || n > 256 {
            return self.fail(
                IssueKind::Wgmma,
                format!(
                    "wgmma m64n{}k16 needs 32-lane warps and N a multiple of 8 up to 256",
                    n
                ),
            );
        }
        let a_bits = match a {
            OperandA::Shared(d) => d,
            OperandA::Registers(_) => u64::MAX,
        };
        if !self.same_as_warpgroup(WgmmaIssue {
            n,
            a: a_bits,
            b,
            accumulate,
            tid: self.tid(),
        }) || !self.wgmma_fenced()
        {
            return;
        }
        if !self.accumulators_untouched(acc) {
            return;
        }
        let db = Descriptor::decode(b);
        let (w, lane) = (self.warp % 4, self.lane);
        let Ok(mut mem) = self.state.shared.lock() else {
            return;
        };
        let (mut span_a, mut span_b, mut problem) = ((u32::MAX, 0), (u32::MAX, 0), None);
        let (mut rows, da) = match a {
            OperandA::Registers(rows) => (rows, None),
            OperandA::Shared(d) => ([[0f32; 16]; 2], Some(Descriptor::decode(d))),
        };
        for (h, row) in rows.iter_mut().enumerate().filter(|_| da.is_some()) {
            for (k, x) in row.iter_mut().enumerate() {
                let m = 16 * w + lane / 4 + 8 * h as u32;
                *x = self.operand(
                    &mut mem,
                    da.unwrap_or(db),
                    op.a_mn_major,
                    op.kind,
                    m,
                    k as u32,
                    &mut span_a,
                    &mut problem,
                );
            }
        }
        let mut cols = std::vec![[0f32; 16]; (n / 4) as usize];
        for (i, col) in cols.iter_mut().enumerate() {
            let c = 8 * (i as u32 / 2) + 2 * (lane % 4) + i as u32 % 2;
            for (k, x) in col.iter_mut().enumerate() {
                *x = self.operand(
                    &mut mem,
                    db,
                    op.b_mn_major,
                    op.kind,
                    c,
                    k as u32,
                    &mut span_b,
                    &mut problem,
                );
            }
        }
        drop(mem);
        for (r, x) in acc.iter_mut().enumerate() {
            let (row, col) = accumulator_coord(w, lane, r as u32);
            let (ra, cb) = (
                &rows[((row % 16) / 8) as usize],
                &cols[(2 * (col / 8) + col % 2) as usize],
            );
            let sum = (0..16).fold(0f32, |s, k| s + ra[k] * cb[k]);
            *x = sum + if accumulate { *x } else { 0.0 };
        }
        self.accumulators_in_flight(acc);
        if let Ok(mut reads) = self.state.hopper.wgmma_reads.lock() {
            let (tid, group) = (self.tid(), self.hopper.commits.get());
            for (lo, hi) in [span_a, span_b].into_iter().filter(|s| s.0 <= s.1) {
                // One entry per thread, group and range of bytes: a group's wgmmas read
                // overlapping spans.
                let same = |r: &&mut WgmmaRead| {
                    r.tid == tid
                        && r.group == group
                        && r.retired.is_none()
                        && r.lo <= hi
                        && lo <= r.hi
                };
                match reads.iter_mut().rev().find(same) {
                    Some(r) => (r.lo, r.hi) = (r.lo.min(lo), r.hi.max(hi)),
                    None => reads.push(WgmmaRead {
                        tid,
                        group,
                        lo,
                        hi,
                        retired: None,
                    }),
                }
            }
        }
        if let Some((kind, p)) = problem {
            self.report(kind, p);
        }
    }
}

// SAFETY: as its `Thread` impl; `SHARED_BASE` is where the simulator's shared window starts.
unsafe impl Hopper for SimThread<'_> {
    fn shared_base(&self) -> u32 {
        SHARED_BASE
    }

    unsafe fn mbarrier_init(&self, bar: u32, count: u32) {
        if count == 0 || !bar.is_multiple_of(8) {
            return self.fail(IssueKind::Mbarrier, format!("mbarrier_init at byte {} with count {}: an mbarrier is 8-aligned and expects at least one arrival", bar, count));
        }
        if !self.check_range(self.state, bar, 8, "mbarrier") {
            return;
        }
        if let Ok(mut mem) = self.state.shared.lock() {
            for b in &mut mem[bar as usize..bar as usize + 8] {
                b.mbarrier = true;
            }
        }
        self.mbarrier_initialised(bar);
        if let Ok(mut map) = self.state.hopper.mbarriers.lock() {
            map.insert(
                bar,
                Mbarrier {
                    count,
                    pending: count,
                    tx: 0,
                    phase: 0,
                    init: self.access(),
                    fenced: None,
                    waiters: Vec::new(),
                    landing: Vec::new(),
                    released: Knowledge::default(),
                    completed: Default::default(),
                },
            );
        }
    }

    fn fence_mbarrier_init(&self) {
        let (inits, now) = self.mbarrier_init_fence();
        if let Ok(mut map) = self.state.hopper.mbarriers.lock() {
            for bar in inits {
                if let Some(m) = map.get_mut(&bar) {
                    m.fenced = Some(now);
                }
            }
        }
    }

    unsafe fn mbarrier_arrive(&self, bar: u32) {
        // SAFETY: the simulator checks every mbarrier use itself.
        unsafe { self.mbarrier_arrive_expect_tx(bar, 0) }
    }

    unsafe fn mbarrier_arrive_expect_tx(&self, bar: u32, bytes: u32) {
        let over = self.mbarrier(bar, false, |m| {
            if m.pending == 0 {
                return true;
            }
            self.hopper.release(self.tid(), &mut m.released);
            m.tx += bytes as i64;
            m.pending -= 1;
            self.complete(bar, m);
            false
        });
        if over == Some(true) {
            self.fail(IssueKind::Mbarrier, format!("arrives on the mbarrier at byte {} more often than its count in one phase (whose bytes have not all landed)", bar));
        }
    }

    unsafe fn mbarrier_try_wait(&self, bar: u32, parity: u32) -> bool {
        // The phase waited for is the last completed one: its arrivals' releases are acquired.
        let done = self.mbarrier(bar, false, |m| {
            let done = m.phase & 1 != parity & 1;
            if done {
                self.hopper
                    .acquire(&m.completed[((m.phase + 1) & 1) as usize]);
            }
            done.then_some(m.phase)
        });
        match done.flatten() {
            Some(n) => {
                let mut k = self.hopper.knows.borrow_mut();
                let e = k.phases.entry(bar).or_insert(0);
                *e = (*e).max(n);
                true
            }
            None => {
                crate::sched::pause();
                false
            }
        }
    }

    unsafe fn mbarrier_wait(&self, bar: u32, parity: u32) {
        let start = std::time::Instant::now();
        // SAFETY: the simulator checks every mbarrier use itself.
        while !unsafe { self.mbarrier_try_wait(bar, parity) } {
            self.abort_if_stuck(start, || format!("waits forever for the phase of parity {} of the mbarrier at byte {}: too few arrivals or bytes, or its phases ran past this wait (arrivals not ordered after the previous phase's waiters)", parity, bar));
            self.block_on_phase(bar, parity & 1);
        }
    }

    unsafe fn tma_load_2d<E: Element>(
        &self,
        dst: u32,
        map: &TensorMap<'_, E>,
        coords: [u32; 2],
        bar: u32,
    ) {
        let Some(m) = map.host_map() else {
            return self.fail(IssueKind::Tma, String::from("a TMA load through a device tensor map: on the simulator make the map with TensorMap::host"));
        };
        let eb = E::BITS / 8;
        let row_bytes = m.box_shape[1] * eb;
        let w = m.swizzle.bytes();
        if !row_bytes.is_multiple_of(16) || (w > 0 && row_bytes > w) {
            return self.fail(IssueKind::Tma, format!("a TMA box of rows of {} bytes: rows are a multiple of 16 bytes and at most the {:?} swizzle's width", row_bytes, m.swizzle));
        }
        let n = m.box_shape[0] * row_bytes;
        if !self.start_tma(dst, n, m.swizzle) {
            // Reported; its bytes still count, so that waiters are not also stuck.
            self.mbarrier(bar, false, |mb| {
                mb.tx -= n as i64;
                self.complete(bar, mb);
            });
            return;
        }
        let mut bytes = std::vec![0u8; n as usize];
        for r in 0..m.box_shape[0] {
            for c in 0..m.box_shape[1] {
                let (gr, gc) = (coords[0] + r, coords[1] + c);
                // Outside the tensor the copy engine fills zeros.
                let v = if gr < m.shape[0] && gc < m.shape[1] {
                    m.mem.load_bits((gr * m.shape[1] + gc) as usize)
                } else {
                    0
                };
                let at = m.swizzle.apply(r * row_bytes + c * eb) as usize;
                for i in 0..eb as usize {
                    bytes[at + i] = (v >> (8 * i)) as u8;
                }
            }
        }
        let landing = Landing {
            dst,
            bytes,
            swizzle: m.swizzle,
            issuer: self.tid(),
        };
        self.mbarrier(bar, true, |mb| {
            mb.landing.push(landing);
            mb.tx -= n as i64;
            self.complete(bar, mb);
        });
    }

    fn fence_proxy_async(&self) {
        self.proxy_fence()
    }

    #[track_caller]
    fn bar_sync(&self, id: u32, threads: u32) {
        self.count(|i| i.barriers += 1);
        let site = core::panic::Location::caller();
        if id == 0 || id > 15 || threads == 0 || !threads.is_multiple_of(self.warp_size) {
            return self.fail(IssueKind::NamedBarrier, format!("bar_sync({}, {}): a named barrier has an id from 1 to 15 (0 is sync_block's) and a multiple of the warp size in threads", id, threads));
        }
        let Ok(mut map) = self.state.hopper.named.lock() else {
            return;
        };
        let b = map.entry(id).or_insert_with(|| Named {
            threads,
            ..Named::default()
        });
        if b.threads != threads {
            let was = b.threads;
            drop(map);
            return self.fail(IssueKind::NamedBarrier, format!("bar_sync({}, {}): named barrier {} was used with {} threads; give each set of threads its own id", id, threads, id, was));
        }
        self.hopper.release(self.tid(), &mut b.pending);
        b.arrived += 1;
        let round = b.completions;
        // Under the named barriers' lock (the sites' lock is only ever taken inside it or
        // alone), so that no other arrival completes the round meanwhile.
        self.check_barrier_site(id, round, site);
        if b.arrived == threads {
            b.done = core::mem::take(&mut b.pending);
            (b.arrived, b.completions) = (0, round + 1);
            self.cluster.progress.release(threads - 1);
        } else if self.cluster.progress.block() {
            self.deadlock(&format!("at named barrier {} of {} threads", id, threads));
        }
        let start = std::time::Instant::now();
        while map.get(&id).is_some_and(|b| b.completions == round) {
            drop(map);
            self.abort_if_stuck(start, || {
                format!(
                    "waits forever at named barrier {} of {} threads: fewer threads reach it",
                    id, threads
                )
            });
            crate::sched::pause();
            map = match self.state.hopper.named.lock() {
                Ok(m) => m,
                Err(_) => return,
            };
        }
        if let Some(b) = map.get(&id) {
            self.hopper.acquire(&b.done);
        }
        self.hopper.named.set((id, round + 1));
    }

    fn wgmma_fence(&self) {
        self.wgmma_fence_now()
    }

    unsafe fn wgmma(&self, op: WgmmaOp, a: u64, b: u64, acc: &mut [f32], accumulate: bool) {
        self.wgmma_from(op, OperandA::Shared(a), b, acc, accumulate)
    }

    unsafe fn wgmma_rs(&self, op: WgmmaOp, a: [u32; 4], b: u64, acc: &mut [f32], accumulate: bool) {
        if op.a_mn_major {
            return self.fail(
                IssueKind::Wgmma,
                "a wgmma with A from registers has no transposed A".into(),
            );
        }
        // This lane's rows of A from its warp's fragments (word 2 (k / 8) + h holds row
        // g + 8 h at lane 4 g + (k % 8) / 2), gathered first: every lane shuffles alike.
        let g = self.lane / 4;
        let mut rows = [[0f32; 16]; 2];
        for (w, &word) in a.iter().enumerate() {
            for src in 0..4 {
                let v = self.shfl_idx(word, 4 * g + src);
                for half in 0..2 {
                    let k = 8 * (w / 2) + 2 * src as usize + half;
                    rows[w % 2][k] = widen(op.kind, (v >> (16 * half)) as u16);
                }
            }
        }
        self.wgmma_from(op, OperandA::Registers(rows), b, acc, accumulate)
    }

    fn wgmma_commit(&self) {
        self.hopper.commits.set(self.hopper.commits.get() + 1);
        self.hopper.in_group.set(0);
    }

    fn wgmma_wait<const PENDING: u32>(&self) {
        self.wgmma_registers_returned();
        let done = self.hopper.commits.get().saturating_sub(PENDING);
        self.hopper
            .acc_in_flight
            .borrow_mut()
            .retain(|&(_, group, _)| group >= done);
        let (tid, me) = (self.tid(), self.access());
        if let Ok(mut reads) = self.state.hopper.wgmma_reads.lock() {
            for r in reads.iter_mut() {
                if r.tid == tid && r.group < done && r.retired.is_none() {
                    r.retired = Some(me);
                }
            }
        }
    }
}
