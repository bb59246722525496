//! A CPU SIMT simulator: a grid of blocks, each of N threads running one kernel body on its own
//! OS thread; blocks may be grouped in clusters (Hopper's CTA clusters), whose CTAs run together
//! and reach each other's shared memory. Shuffles and barriers really synchronise, so a shuffle
//! reads the source lane's value at that instruction; shared memory records who wrote and read
//! each byte since the last barrier, so a missing barrier shows up as a reported race (or an
//! uninitialised read), never as a silently right answer. A thread that panics (a failing
//! `assert!` in a kernel body) is reported as an error naming it; the threads waiting for it at a
//! barrier are released, so a launch always returns. Besides CTA, cluster and warp barriers,
//! named barriers and mbarriers order threads (an arrival orders the arriving thread's accesses
//! before the threads that wait for the phase): `sim/hopper.rs`. A wait for an mbarrier phase
//! or a named barrier that cannot end is reported after 60 s, or after 1 s once the launch has
//! reported another error (the usual cause); at most 64 errors are kept.

extern crate std;

use std::format;
use std::string::String;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Condvar, Mutex};
use std::vec::Vec;

use crate::thread::Thread;

pub use crate::host_memory::HostMemory;

mod hopper;
use crate::profile::{LaneAccess, Profile};

/// The shape of a launch.
#[derive(Clone, Copy, Debug)]
pub struct Launch {
    /// Blocks in the grid.
    pub blocks: u32,
    /// Threads per block (a multiple of the warp size).
    pub threads: u32,
    /// Lanes per warp.
    pub warp_size: u32,
    /// Bytes of shared memory per block.
    pub shared_bytes: u32,
    /// CTAs per cluster (1: no clusters). `blocks` must be a multiple of it.
    pub cluster: u32,
    /// The grid's shape, x first: its product is `blocks` (`[blocks, 1, 1]` unless set).
    pub grid_dim: [u32; 3],
    /// The block's shape, x first: its product is `threads` (`[threads, 1, 1]` unless set).
    pub block_dim: [u32; 3],
}

impl Launch {
    /// `blocks` blocks of `threads` threads, 32-lane warps, `shared_bytes` of shared memory.
    pub fn new(blocks: u32, threads: u32, shared_bytes: u32) -> Self {
        Launch {
            blocks,
            threads,
            warp_size: 32,
            shared_bytes,
            cluster: 1,
            grid_dim: [blocks, 1, 1],
            block_dim: [threads, 1, 1],
        }
    }

    /// A 2-D or 3-D launch, as CUDA's `<<<grid, block, shared_bytes>>>`: threads are numbered x
    /// first and grouped into warps in that order, blocks likewise.
    pub fn dims(grid: [u32; 3], block: [u32; 3], shared_bytes: u32) -> Self {
        // A shape too large for u32 saturates here and is refused by `launch`.
        let count = |d: [u32; 3]| volume(d).min(u32::MAX as u64) as u32;
        Launch {
            grid_dim: grid,
            block_dim: block,
            ..Launch::new(count(grid), count(block), shared_bytes)
        }
    }

    /// The same launch with `ctas` CTAs per cluster.
    pub fn with_cluster(self, ctas: u32) -> Self {
        Launch {
            cluster: ctas,
            ..self
        }
    }
}

/// What went wrong in a simulated launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimError(pub Vec<String>);

impl core::fmt::Display for SimError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for (i, e) in self.0.iter().take(8).enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            f.write_str(e)?;
        }
        if self.0.len() > 8 {
            write!(f, "; and {} more", self.0.len() - 8)?;
        }
        Ok(())
    }
}

const MANY: u32 = u32::MAX - 1;

/// Words a lane can give its warp at once: an `mma.m16n8k16`'s operands (A's 4, B's 2).
const SLOT_WORDS: usize = 6;

/// Who touched a byte, and when (cluster-, block- and warp-barrier epochs of that thread).
#[derive(Clone, Copy)]
struct Access {
    tid: u32,
    cta: u32,
    warp: u32,
    cluster_epoch: u32,
    block_epoch: u32,
    warp_epoch: u32,
    /// How many shared stores the thread had issued before this access: lanes of one warp at the
    /// same count are in the same instruction (kernels are straight-line SIMT code).
    store: u32,
    /// A write by the copy engine: the mbarrier (byte offset) and the phase it completed with;
    /// it is ordered before the threads that waited for that phase, by no CTA barrier.
    tma: Option<(u32, u32)>,
    /// The thread's clock (its releases so far: mbarrier arrivals, named barriers): the access
    /// is ordered before a thread that acquired a later clock of this one.
    clock: u32,
    /// The named barrier the thread last took part in and that barrier's completions then
    /// (`(0, 0)`: none): two accesses of its participants at different counts are ordered.
    named: (u32, u32),
}

#[derive(Clone, Copy)]
struct Byte {
    value: u8,
    write: Option<Access>,
    read: Option<Access>,
    /// The thread whose async copy into this byte has not landed yet.
    copying: Option<u32>,
    /// The byte holds an mbarrier.
    mbarrier: bool,
    /// The swizzle the copy engine wrote it with (TMA writes only).
    swizzle: Option<crate::hopper::Swizzle>,
}

/// An async copy issued and not yet waited for: it lands when its group is waited for.
struct PendingCopy {
    /// Commits the thread had made when it issued the copy (its group, once committed).
    group: u32,
    byte_offset: u32,
    bytes: u32,
    words: [u32; 4],
}

/// A barrier of `n` threads that a panicking thread can break: once the cluster is aborted, every
/// waiter unwinds with [`Aborted`] instead of waiting forever for the thread that died.
struct SimBarrier {
    n: usize,
    /// Threads arrived in this generation, and the generation.
    state: Mutex<(usize, u64)>,
    cv: Condvar,
}

/// The unwind payload of threads released from a barrier by another thread's panic (not
/// reported: the panicking thread is).
struct Aborted;

impl SimBarrier {
    fn new(n: usize) -> Self {
        SimBarrier {
            n,
            state: Mutex::new((0, 0)),
            cv: Condvar::new(),
        }
    }

    fn wait(&self, aborted: &AtomicBool) {
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

struct WarpState {
    /// [`SLOT_WORDS`] words per lane.
    slots: Vec<AtomicU32>,
    barrier: SimBarrier,
}

struct BlockState {
    warps: Vec<WarpState>,
    barrier: SimBarrier,
    shared: Mutex<Vec<Byte>>,
    /// Hopper's asynchronous units: mbarriers and the wgmma reads in flight.
    hopper: hopper::BlockHopper,
}

struct ClusterState {
    blocks: Vec<BlockState>,
    barrier: SimBarrier,
    errors: Mutex<Vec<String>>,
    /// Set when a thread panicked: barriers release their waiters.
    aborted: AtomicBool,
    /// Every lane's shared access, kept only for [`launch_profiled`] (a plain launch does not
    /// pay a lock and a push per access).
    log: Option<Mutex<Vec<LaneAccess>>>,
}

/// One simulated thread.
pub struct SimThread<'a> {
    lane: u32,
    warp: u32,
    block: u32,
    rank: u32,
    warp_size: u32,
    launch: Launch,
    cluster: &'a ClusterState,
    state: &'a BlockState,
    cluster_epoch: core::cell::Cell<u32>,
    block_epoch: core::cell::Cell<u32>,
    warp_epoch: core::cell::Cell<u32>,
    issued: core::cell::Cell<Issued>,
    /// Async copies in flight, oldest first, and the groups committed so far.
    copies: core::cell::RefCell<Vec<PendingCopy>>,
    commits: core::cell::Cell<u32>,
    /// The thread's view of mbarriers and its wgmma groups.
    hopper: hopper::ThreadHopper,
}

/// What one simulated thread has issued so far: each `Thread` call counts once (an `ldmatrix`
/// is one shared load, a cluster barrier one barrier), so a plan's cost can be checked against
/// what its code really does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Issued {
    /// Shuffles (`shfl_idx`, `shfl_xor`).
    pub shuffles: u32,
    /// Shared-memory stores, local or distributed, vector or matrix, and async copies.
    pub shared_stores: u32,
    /// Shared-memory loads, local or distributed, vector or matrix.
    pub shared_loads: u32,
    /// Barriers of any kind.
    pub barriers: u32,
}

/// Two accesses race when different threads touch a byte with no barrier between them that both
/// took part in: a cluster barrier; for threads of one CTA, a block barrier or a named barrier;
/// for threads of one warp, a warp barrier. (Orders made by mbarriers are the threads' clocks:
/// [`SimThread::unordered`].)
fn races(a: Access, b: Access) -> bool {
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
fn merge_reads(prev: Option<Access>, me: Access) -> Access {
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

/// The number of points of a 3-D shape.
fn volume(d: [u32; 3]) -> u64 {
    d.iter().map(|&x| x as u64).product()
}

/// The coordinates of linear index `i` in a grid of shape `dim`, x fastest.
fn unflatten(i: u32, dim: [u32; 3]) -> [u32; 3] {
    let (x, y) = (dim[0].max(1), dim[1].max(1));
    [i % x, i / x % y, i / x / y]
}

impl SimThread<'_> {
    /// What this thread has issued since the launch began.
    pub fn issued(&self) -> Issued {
        self.issued.get()
    }

    fn count(&self, f: impl FnOnce(&mut Issued)) {
        let mut i = self.issued.get();
        f(&mut i);
        self.issued.set(i);
    }

    fn tid(&self) -> u32 {
        self.warp * self.warp_size + self.lane
    }

    fn access(&self) -> Access {
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

    fn error(&self, msg: String) {
        if let Ok(mut e) = self.cluster.errors.lock() {
            if e.len() < 64 {
                e.push(msg);
            }
        }
    }

    /// The shared memory of CTA `cta` of this cluster, if there is one.
    fn target(&self, cta: u32, what: &str) -> Option<&BlockState> {
        let t = self.cluster.blocks.get(cta as usize);
        if t.is_none() {
            self.error(format!(
                "thread {} (block {}): shared {} in CTA {} of a cluster of {}",
                self.tid(),
                self.block,
                what,
                cta,
                self.cluster.blocks.len()
            ));
        }
        t
    }

    fn check_range(&self, mem: &BlockState, byte_offset: u32, bytes: u32, what: &str) -> bool {
        let len = mem.shared.lock().map(|s| s.len()).unwrap_or(0) as u64;
        if !matches!(bytes, 1 | 2 | 4 | 8 | 16) || !byte_offset.is_multiple_of(bytes) {
            self.error(format!(
                "thread {} (block {}): misaligned {}-byte shared {} at byte {}",
                self.tid(),
                self.block,
                bytes,
                what,
                byte_offset
            ));
            return false;
        }
        if byte_offset as u64 + bytes as u64 > len {
            self.error(format!(
                "thread {} (block {}): shared {} of {} bytes at byte {} is out of bounds ({} bytes)",
                self.tid(),
                self.block,
                what,
                bytes,
                byte_offset,
                len
            ));
            return false;
        }
        true
    }
}

impl Thread for SimThread<'_> {
    const MATRIX: bool = true;
    const CLUSTER_MEMORY: bool = true;

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
    fn cta_rank(&self) -> u32 {
        self.rank
    }

    fn shfl_idx(&self, v: u32, src_lane: u32) -> u32 {
        self.count(|i| i.shuffles += 1);
        self.exchange(v, src_lane)
    }

    fn shfl_xor(&self, v: u32, mask: u32) -> u32 {
        self.shfl_idx(v, self.lane ^ mask)
    }

    fn sync_warp(&self) {
        self.count(|i| i.barriers += 1);
        self.state.warps[self.warp as usize]
            .barrier
            .wait(&self.cluster.aborted);
        self.warp_epoch.set(self.warp_epoch.get() + 1);
    }

    fn sync_block(&self) {
        self.count(|i| i.barriers += 1);
        self.publish_phases();
        self.state.barrier.wait(&self.cluster.aborted);
        self.block_epoch.set(self.block_epoch.get() + 1);
        self.adopt_phases();
    }

    fn sync_cluster(&self) {
        self.count(|i| i.barriers += 1);
        self.cluster.barrier.wait(&self.cluster.aborted);
        self.cluster_epoch.set(self.cluster_epoch.get() + 1);
    }

    fn st_shared(&self, byte_offset: u32, bytes: u32, words: [u32; 4]) {
        self.st_shared_cluster(self.rank, byte_offset, bytes, words)
    }

    fn ld_shared(&self, byte_offset: u32, bytes: u32) -> [u32; 4] {
        self.ld_shared_cluster(self.rank, byte_offset, bytes)
    }

    fn st_shared_cluster(&self, cta: u32, byte_offset: u32, bytes: u32, words: [u32; 4]) {
        self.count(|i| i.shared_stores += 1);
        self.log(true, cta, byte_offset, bytes, false);
        self.store_bytes(cta, byte_offset, bytes, words)
    }

    fn ld_shared_cluster(&self, cta: u32, byte_offset: u32, bytes: u32) -> [u32; 4] {
        self.count(|i| i.shared_loads += 1);
        self.log(false, cta, byte_offset, bytes, false);
        self.load_bytes(cta, byte_offset, bytes)
    }

    // The default's semantics, with the operands exchanged once rather than shuffled word by
    // word: the same sums in the same order, 32 times fewer warp rendezvous.
    fn mma_m16n8k16(
        &self,
        kind: crate::mma::MmaKind,
        a: [u32; 4],
        b: [u32; 2],
        c: [f32; 4],
    ) -> [f32; 4] {
        if self.warp_size != 32 {
            self.error(format!(
                "thread {} (block {}): mma.m16n8k16 needs 32-lane warps, not {}",
                self.tid(),
                self.block,
                self.warp_size
            ));
            return c;
        }
        let w = self.all_lanes_words([a[0], a[1], a[2], a[3], b[0], b[1]]);
        let (a_of, b_of) = (
            |i: usize, l: u32| w[l as usize][i],
            |i: usize, l: u32| w[l as usize][4 + i],
        );
        crate::mma::m16n8k16_lane(kind, self.lane, a_of, b_of, c)
    }

    fn cp_async(&self, byte_offset: u32, bytes: u32, src: crate::thread::CopySource) {
        self.count(|i| i.shared_stores += 1);
        if !matches!(bytes, 4 | 8 | 16) {
            return self.error(format!(
                "thread {} (block {}): an async copy moves 4, 8 or 16 bytes, not {}",
                self.tid(),
                self.block,
                bytes
            ));
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

    fn ldmatrix(&self, count: u32, row_addr: u32, trans: bool) -> [u32; 4] {
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
                let (src, off) = crate::thread::matrix_slot(self.lane, q as u32, h, trans);
                let half = self.load_bytes(self.rank, addrs[src as usize] + off, 2)[0];
                *o |= half << (16 * h);
            }
        }
        out
    }

    fn stmatrix(&self, count: u32, row_addr: u32, trans: bool, words: [u32; 4]) {
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
                let (dst, off) = crate::thread::matrix_slot(self.lane, q as u32, h, trans);
                let half = [(w >> (16 * h)) & 0xffff, 0, 0, 0];
                self.store_bytes(self.rank, addrs[dst as usize] + off, 2, half);
            }
        }
    }
}

impl SimThread<'_> {
    /// Record this lane's part in the shared access it is issuing (after counting it).
    fn log(&self, store: bool, cta: u32, addr: u32, bytes: u32, matrix: bool) {
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
    fn exchange(&self, v: u32, src_lane: u32) -> u32 {
        let w = &self.state.warps[self.warp as usize];
        w.slots[self.lane as usize * SLOT_WORDS].store(v, Ordering::SeqCst);
        w.barrier.wait(&self.cluster.aborted);
        let src = (src_lane % self.warp_size) as usize * SLOT_WORDS;
        let r = w.slots[src].load(Ordering::SeqCst);
        w.barrier.wait(&self.cluster.aborted);
        r
    }

    /// Mark the bytes an async copy will write, refusing bytes another copy is writing or
    /// that other threads touched since the last barrier. Whether the copy may go ahead.
    fn start_copy(&self, byte_offset: u32, bytes: u32) -> bool {
        if !self.check_range(self.state, byte_offset, bytes, "async copy") {
            return false;
        }
        let me = self.access();
        let Ok(mut mem) = self.state.shared.lock() else {
            return false;
        };
        for i in byte_offset..byte_offset + bytes {
            let b = &mut mem[i as usize];
            let other = b
                .copying
                .or(b.write.filter(|w| self.unordered(*w, me)).map(|w| w.tid));
            let other = other.or(b.read.filter(|r| self.unordered(*r, me)).map(|r| r.tid));
            if let Some(o) = other {
                drop(mem);
                self.error(format!(
                    "race: thread {} (block {}) starts an async copy into shared byte {} that thread {} is copying into or touched without a barrier between",
                    me.tid, self.block, i, if o == MANY { String::from("(several)") } else { format!("{}", o) }
                ));
                return false;
            }
            b.copying = Some(me.tid);
        }
        true
    }

    /// An async copy lands: its bytes are written as by this thread now.
    fn land_copy(&self, c: PendingCopy) {
        if let Ok(mut mem) = self.state.shared.lock() {
            for i in c.byte_offset..c.byte_offset + c.bytes {
                mem[i as usize].copying = None;
            }
        }
        self.store_bytes(self.rank, c.byte_offset, c.bytes, c.words);
    }

    fn store_bytes(&self, cta: u32, byte_offset: u32, bytes: u32, words: [u32; 4]) {
        let Some(target) = self.target(cta, "store") else {
            return;
        };
        if !self.wgmma_free(target, byte_offset, bytes, "writes") {
            return;
        }
        if !self.check_range(target, byte_offset, bytes, "store") {
            return;
        }
        let me = self.access();
        let Ok(mut mem) = target.shared.lock() else {
            return;
        };
        for i in 0..bytes {
            let b = &mut mem[(byte_offset + i) as usize];
            let value = (words[(i / 4) as usize] >> (8 * (i % 4))) as u8;
            // Lanes of one instruction writing the same value to a byte (an `stmatrix` whose
            // address rows hold copies) leave one value, as the hardware does.
            let same_instr = |w: &Access| {
                w.cta == me.cta && w.warp == me.warp && w.store == me.store && b.value == value
            };
            if let Some(o) = b.copying {
                drop(mem);
                return self.error(format!(
                    "thread {} (block {}) writes shared byte {} of CTA {} while an async copy of thread {} into it is in flight: wait for it (cp_async_wait, or the mbarrier phase its TMA completes) and synchronise first",
                    me.tid, self.block, byte_offset + i, cta, o
                ));
            }
            if b.mbarrier {
                drop(mem);
                return self.error(format!(
                    "thread {} (block {}) writes shared byte {} of CTA {}, which holds an mbarrier: keep barriers out of data tiles",
                    me.tid, self.block, byte_offset + i, cta
                ));
            }
            let conflict = b
                .write
                .filter(|w| self.unordered(*w, me) && !same_instr(w))
                .map(|w| ("write", w.tid))
                .or(b
                    .read
                    .filter(|r| self.unordered(*r, me))
                    .map(|r| ("read", r.tid)));
            if let Some((kind, other)) = conflict {
                drop(mem);
                self.error(format!(
                    "race: thread {} (block {}) writes shared byte {} of CTA {} that thread {} {} without a barrier between",
                    me.tid,
                    self.block,
                    byte_offset + i,
                    cta,
                    if other == MANY { String::from("several threads") } else { format!("{}", other) },
                    if kind == "write" { "wrote" } else { "read" }
                ));
                return;
            }
            b.value = value;
            b.write = Some(me);
            b.swizzle = None;
        }
    }

    fn load_bytes(&self, cta: u32, byte_offset: u32, bytes: u32) -> [u32; 4] {
        let mut out = [0u32; 4];
        let Some(target) = self.target(cta, "load") else {
            return out;
        };
        if !self.check_range(target, byte_offset, bytes, "load") {
            return out;
        }
        let me = self.access();
        let Ok(mut mem) = target.shared.lock() else {
            return out;
        };
        let mut problem = None;
        for i in 0..bytes {
            let at = byte_offset + i;
            let (v, p) = self.read_byte(&mut mem[at as usize], me, at, cta);
            out[(i / 4) as usize] |= (v as u32) << (8 * (i % 4));
            problem = problem.or(p);
        }
        drop(mem);
        if let Some(p) = problem {
            self.error(p);
        }
        out
    }

    /// Read byte `at` of CTA `cta` as access `me`: its value, and what is wrong with reading
    /// it now, if anything. The read is recorded for later writers' race checks.
    fn read_byte(&self, b: &mut Byte, me: Access, at: u32, cta: u32) -> (u8, Option<String>) {
        let r = self.check_read(b, me, at, cta);
        b.read = Some(merge_reads(b.read, me));
        r
    }

    /// [`SimThread::read_byte`] without recording the read (a wgmma's reads are recorded by
    /// operation: [`hopper`]).
    fn check_read(&self, b: &Byte, me: Access, at: u32, cta: u32) -> (u8, Option<String>) {
        let who = |w: Access| match w.tma {
            Some((bar, phase)) => format!(
                "a TMA load completing phase {} of the mbarrier at byte {}",
                phase, bar
            ),
            None => format!("thread {}", w.tid),
        };
        let mut problem = match b.write {
            None => Some(format!("thread {} (block {}) reads shared byte {} of CTA {} that nobody wrote", me.tid, self.block, at, cta)),
            Some(w) if self.unordered(w, me) => Some(format!(
                "race: thread {} (block {}) reads shared byte {} of CTA {} that {} wrote without a barrier between (a CTA or named barrier, an mbarrier the writer arrived on and the reader waited for, or for a TMA a wait for its phase)",
                me.tid, self.block, at, cta, who(w)
            )),
            _ => None,
        };
        if let Some(o) = b.copying {
            problem = Some(format!("thread {} (block {}) reads shared byte {} of CTA {} while an async copy of thread {} into it is in flight: wait for it (cp_async_wait, or the mbarrier phase its TMA completes) and synchronise first", me.tid, self.block, at, cta, o));
        }
        if b.mbarrier {
            problem = Some(format!("thread {} (block {}) reads shared byte {} of CTA {}, which holds an mbarrier: keep barriers out of data tiles", me.tid, self.block, at, cta));
        }
        (b.value, problem)
    }

    /// Whether access `a` may be unordered with this thread's access `me`: a thread's accesses
    /// are ordered by CTA (cluster, warp, named) barriers and by the mbarriers it arrived on
    /// before another waited, a TMA's writes by a wait for their phase.
    fn unordered(&self, a: Access, me: Access) -> bool {
        match a.tma {
            Some(phase) => !self.hopper.observed(phase),
            None => races(a, me) && !(a.cta == me.cta && self.hopper.acquired(a)),
        }
    }
}

impl SimThread<'_> {
    /// Every lane's `v`, exchanged through the warp (all lanes must call).
    fn all_lanes(&self, v: u32) -> [u32; 64] {
        let mut out = [0u32; 64];
        for (o, w) in out.iter_mut().zip(self.all_lanes_words([v])) {
            *o = w[0];
        }
        out
    }

    /// Every lane's `K` words (at most [`SLOT_WORDS`]), exchanged through the warp at once (all
    /// lanes must call).
    fn all_lanes_words<const K: usize>(&self, v: [u32; K]) -> Vec<[u32; K]> {
        let w = &self.state.warps[self.warp as usize];
        let me = self.lane as usize * SLOT_WORDS;
        for (i, x) in v.iter().enumerate() {
            w.slots[me + i].store(*x, Ordering::SeqCst);
        }
        w.barrier.wait(&self.cluster.aborted);
        let out = (0..self.warp_size as usize)
            .map(|l| std::array::from_fn(|i| w.slots[l * SLOT_WORDS + i].load(Ordering::SeqCst)))
            .collect();
        w.barrier.wait(&self.cluster.aborted);
        out
    }

    /// The rows an `.x{count}` access reads (lanes `0 .. 8 count` give them) must be 16-byte
    /// aligned, on 32-lane warps.
    fn matrix_check(&self, count: u32, addrs: &[u32; 64]) -> bool {
        let bad = addrs[..(8 * count as usize).min(64)]
            .iter()
            .find(|a| !a.is_multiple_of(16));
        if self.warp_size != 32 || !matches!(count, 1 | 2 | 4) || bad.is_some() {
            self.error(format!(
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

impl SimThread<'_> {
    /// Report a panic of this thread's kernel body and release the others from their barriers.
    fn panicked(&self, payload: std::boxed::Box<dyn core::any::Any + Send>) {
        if payload.is::<Aborted>() {
            return;
        }
        let msg = if let Some(s) = payload.downcast_ref::<&str>() {
            String::from(*s)
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.clone()
        } else {
            String::from("(a panic without a message)")
        };
        self.error(format!(
            "thread {} (block {}, warp {}, lane {}) panicked: {}",
            self.tid(),
            self.block,
            self.warp,
            self.lane,
            msg
        ));
        self.cluster.aborted.store(true, Ordering::SeqCst);
    }
}

/// Run `kernel` on every thread of the launch. Clusters run one after another; the threads of a
/// cluster (all its CTAs) run concurrently. Returns the races, misaligned or out-of-bounds
/// accesses and uninitialised reads that the launch made, if any, and the threads that panicked
/// (with their message); a panic ends the launch after that cluster.
pub fn launch<F>(l: Launch, kernel: F) -> Result<(), SimError>
where
    F: Fn(&SimThread) + Sync,
{
    run(l, kernel, false).map(|_| ())
}

/// [`launch`], and every lane's shared-memory access: [`Profile::instructions`] counts each
/// warp instruction's wavefronts (bank conflicts) from the addresses the code really issued.
pub fn launch_profiled<F>(l: Launch, kernel: F) -> Result<Profile, SimError>
where
    F: Fn(&SimThread) + Sync,
{
    run(l, kernel, true)
}

/// [`launch`], keeping every lane's shared access if `profiled`.
fn run<F>(l: Launch, kernel: F, profiled: bool) -> Result<Profile, SimError>
where
    F: Fn(&SimThread) + Sync,
{
    check_launch(&l)?;
    let mut errors = Vec::new();
    let mut profile = Profile::default();
    for first in (0..l.blocks).step_by(l.cluster as usize) {
        let cluster = ClusterState::new(&l, profiled);
        run_cluster(&l, first, &cluster, &kernel);
        let aborted = cluster.aborted.load(Ordering::SeqCst);
        if let Ok(e) = cluster.errors.into_inner() {
            errors.extend(e);
        }
        if let Some(Ok(log)) = cluster.log.map(Mutex::into_inner) {
            profile.accesses.extend(log);
        }
        if aborted {
            break;
        }
    }
    if errors.is_empty() {
        Ok(profile)
    } else {
        Err(SimError(errors))
    }
}

/// Refuse a launch whose blocks are not whole warps or whose grid is not whole clusters.
fn check_launch(l: &Launch) -> Result<(), SimError> {
    if l.warp_size == 0 || l.threads == 0 || !l.threads.is_multiple_of(l.warp_size) {
        return Err(SimError(std::vec![format!(
            "threads per block ({}) must be a positive multiple of the warp size ({})",
            l.threads, l.warp_size
        )]));
    }
    if volume(l.grid_dim) != l.blocks as u64 || volume(l.block_dim) != l.threads as u64 {
        return Err(SimError(std::vec![format!(
            "grid {:?} x block {:?} is not {} blocks of {} threads: set both through Launch::dims",
            l.grid_dim, l.block_dim, l.blocks, l.threads
        )]));
    }
    if l.cluster == 0
        || !l.blocks.is_multiple_of(l.cluster)
        || !l.grid_dim[0].is_multiple_of(l.cluster)
    {
        return Err(SimError(std::vec![format!(
            "blocks ({}, {} along x) must be a multiple of the CTAs per cluster ({}): clusters group blocks along x",
            l.blocks, l.grid_dim[0], l.cluster
        )]));
    }
    Ok(())
}

impl BlockState {
    /// A fresh CTA: its warps' shuffle slots and barriers, its barrier, zeroed shared memory.
    fn new(l: &Launch) -> Self {
        let nwarps = l.threads / l.warp_size;
        BlockState {
            warps: (0..nwarps)
                .map(|_| WarpState {
                    slots: (0..l.warp_size as usize * SLOT_WORDS)
                        .map(|_| AtomicU32::new(0))
                        .collect(),
                    barrier: SimBarrier::new(l.warp_size as usize),
                })
                .collect(),
            barrier: SimBarrier::new(l.threads as usize),
            hopper: hopper::BlockHopper::default(),
            shared: Mutex::new(std::vec![
                Byte {
                    value: 0,
                    write: None,
                    read: None,
                    copying: None,
                    mbarrier: false,
                    swizzle: None,
                };
                l.shared_bytes as usize
            ]),
        }
    }
}

impl ClusterState {
    /// A fresh cluster of `l.cluster` CTAs, no errors yet; it logs shared accesses if `profiled`.
    fn new(l: &Launch, profiled: bool) -> Self {
        ClusterState {
            blocks: (0..l.cluster).map(|_| BlockState::new(l)).collect(),
            barrier: SimBarrier::new((l.threads * l.cluster) as usize),
            errors: Mutex::new(Vec::new()),
            aborted: AtomicBool::new(false),
            log: profiled.then(|| Mutex::new(Vec::new())),
        }
    }
}

/// Run every thread of the cluster whose first block is `first`, each on its own OS thread, and
/// wait for them all. A thread that cannot be started is recorded as an error of the cluster.
fn run_cluster<F>(l: &Launch, first: u32, cluster: &ClusterState, kernel: &F)
where
    F: Fn(&SimThread) + Sync,
{
    let l = *l;
    std::thread::scope(|s| {
        for rank in 0..l.cluster {
            for t in 0..l.threads {
                std::thread::Builder::new()
                    .stack_size(256 * 1024)
                    .spawn_scoped(s, move || {
                        let th = SimThread {
                            lane: t % l.warp_size,
                            warp: t / l.warp_size,
                            block: first + rank,
                            rank,
                            warp_size: l.warp_size,
                            launch: l,
                            cluster,
                            state: &cluster.blocks[rank as usize],
                            cluster_epoch: core::cell::Cell::new(0),
                            block_epoch: core::cell::Cell::new(0),
                            warp_epoch: core::cell::Cell::new(0),
                            issued: core::cell::Cell::new(Issued::default()),
                            copies: core::cell::RefCell::new(Vec::new()),
                            commits: core::cell::Cell::new(0),
                            hopper: hopper::ThreadHopper::default(),
                        };
                        // A panic becomes an error naming the thread, not a torn-down launch.
                        let run = std::panic::AssertUnwindSafe(|| kernel(&th));
                        if let Err(payload) = std::panic::catch_unwind(run) {
                            th.panicked(payload);
                        }
                    })
                    .map(|_| ())
                    .unwrap_or_else(|e| {
                        if let Ok(mut v) = cluster.errors.lock() {
                            v.push(format!("could not start a simulated thread: {}", e));
                        }
                    });
            }
        }
    });
}
