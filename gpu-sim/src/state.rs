//! The simulator's state, as data: what each shared byte records, what a warp, a CTA and a
//! cluster share, each simulated thread ([`SimThread`]), and Hopper's units (mbarriers, named
//! barriers, wgmma reads in flight, the vector clocks threads order each other by). The modules
//! beside this one give it behaviour; this one imports none of them.

use core::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32};
use std::sync::Mutex;
use std::vec::Vec;

use gpu_runtime::hopper::Swizzle;

use crate::barrier::{Progress, SimBarrier};
use crate::grid::Launch;
use crate::issue::Issues;
use crate::profile::LaneAccess;

/// Words a lane can give its warp at once: an `mma.m16n8k16`'s operands (A's 4, B's 2).
pub(crate) const SLOT_WORDS: usize = 6;

/// A warp's exchange slots and barrier.
pub(crate) struct WarpState {
    /// [`SLOT_WORDS`] words per lane.
    pub(crate) slots: Vec<AtomicU32>,
    pub(crate) barrier: SimBarrier,
}

/// What a CTA's threads share.
pub(crate) struct BlockState {
    pub(crate) warps: Vec<WarpState>,
    pub(crate) barrier: SimBarrier,
    pub(crate) shared: Mutex<Vec<Byte>>,
    /// Each thread's `fence.proxy.async`s: the count of shared stores it had issued, and its
    /// stamp then (rare: a fence per pipeline stage or tile, not per store).
    pub(crate) proxy_fences: Mutex<HashMap<u32, Vec<(u32, Access)>>>,
    /// Hopper's asynchronous units: mbarriers and the wgmma reads in flight.
    pub(crate) hopper: BlockHopper,
    /// Where each warp reached each barrier (0: `sync_block`'s, 1-15 named, 16 the cluster's) in
    /// its latest round.
    pub(crate) barrier_sites: Mutex<HashMap<(u32, u32), BarrierSite>>,
}

/// The call a warp's first lane reached a barrier at, in round `round` of that barrier.
#[derive(Clone, Copy)]
pub(crate) struct BarrierSite {
    pub(crate) round: u32,
    pub(crate) site: &'static core::panic::Location<'static>,
    /// Whether another lane's other place was reported this round (once per warp and round).
    pub(crate) reported: bool,
}

/// What a cluster's threads share.
pub(crate) struct ClusterState {
    pub(crate) blocks: Vec<BlockState>,
    pub(crate) barrier: SimBarrier,
    pub(crate) issues: Mutex<Issues>,
    /// Set when a thread panicked: barriers release their waiters.
    pub(crate) aborted: AtomicBool,
    /// Threads running and waiting: a deadlock is known when it happens.
    pub(crate) progress: Progress,
    /// Every lane's shared access, kept only for [`launch_profiled`] (a plain launch does not
    /// pay a lock and a push per access).
    pub(crate) log: Option<Mutex<Vec<LaneAccess>>>,
    /// The launch this cluster is part of (numbered from 1 in each process): global memory's
    /// records of an earlier launch are stale.
    pub(crate) launch_id: u64,
}

/// The thread id standing for several readers.
pub(crate) const MANY: u32 = u32::MAX - 1;

/// Who touched a byte, and when (cluster-, block- and warp-barrier epochs of that thread).
#[derive(Clone, Copy)]
pub(crate) struct Access {
    pub(crate) tid: u32,
    pub(crate) cta: u32,
    pub(crate) warp: u32,
    pub(crate) cluster_epoch: u32,
    pub(crate) block_epoch: u32,
    pub(crate) warp_epoch: u32,
    /// How many shared stores the thread had issued before this access: lanes of one warp at the
    /// same count are in the same instruction (kernels are straight-line SIMT code).
    pub(crate) store: u32,
    /// A write by the copy engine: the mbarrier (byte offset) and the phase it completed with;
    /// it is ordered before the threads that waited for that phase, by no CTA barrier.
    pub(crate) tma: Option<(u32, u32)>,
    /// The thread's clock (its releases so far: mbarrier arrivals, named barriers): the access
    /// is ordered before a thread that acquired a later clock of this one.
    pub(crate) clock: u32,
    /// The named barrier the thread last took part in and that barrier's completions then
    /// (`(0, 0)`: none): two accesses of its participants at different counts are ordered.
    pub(crate) named: (u32, u32),
}

#[derive(Clone, Copy)]
pub(crate) struct Byte {
    pub(crate) value: u8,
    pub(crate) write: Option<Access>,
    pub(crate) read: Option<Access>,
    /// The thread whose async copy into this byte has not landed yet.
    pub(crate) copying: Option<u32>,
    /// The byte holds an mbarrier.
    pub(crate) mbarrier: bool,
    /// Its last write was through the generic proxy (the writer's fences after it decide
    /// whether the async proxy may see it: `BlockState::proxy_fences`).
    pub(crate) generic: bool,
    /// The swizzle the copy engine wrote it with (TMA writes only).
    pub(crate) swizzle: Option<Swizzle>,
}

/// An async copy issued and not yet waited for: it lands when its group is waited for.
pub(crate) struct PendingCopy {
    /// Commits the thread had made when it issued the copy (its group, once committed).
    pub(crate) group: u32,
    pub(crate) byte_offset: u32,
    pub(crate) bytes: u32,
    pub(crate) words: [u32; 4],
}

/// One simulated thread.
pub struct SimThread<'a> {
    pub(crate) lane: u32,
    pub(crate) warp: u32,
    pub(crate) block: u32,
    pub(crate) rank: u32,
    pub(crate) warp_size: u32,
    pub(crate) launch: Launch,
    pub(crate) cluster: &'a ClusterState,
    pub(crate) state: &'a BlockState,
    pub(crate) cluster_epoch: core::cell::Cell<u32>,
    pub(crate) block_epoch: core::cell::Cell<u32>,
    pub(crate) warp_epoch: core::cell::Cell<u32>,
    pub(crate) issued: core::cell::Cell<Issued>,
    /// Async copies in flight, oldest first, and the groups committed so far.
    pub(crate) copies: core::cell::RefCell<Vec<PendingCopy>>,
    pub(crate) commits: core::cell::Cell<u32>,
    /// The thread's view of mbarriers and its wgmma groups.
    pub(crate) hopper: ThreadHopper,
    /// Its writes and mbarrier initialisations not yet fenced.
    pub(crate) fences: ThreadFences,
    /// `Thread::scratch_reads`.
    pub(crate) scratch_reads: core::cell::Cell<bool>,
}

/// What one simulated thread has issued so far: each `Thread` call counts once (an `ldmatrix`
/// is one shared load, a cluster barrier one barrier), so a plan's cost can be checked against
/// what its code really does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Issued {
    /// Shuffles (`shfl_idx`, `shfl_xor`).
    pub shuffles: u32,
    /// Warp reductions (`redux.sync`).
    pub redux: u32,
    /// Shared-memory stores, local or distributed, vector or matrix, and async copies.
    pub shared_stores: u32,
    /// Shared-memory loads, local or distributed, vector or matrix.
    pub shared_loads: u32,
    /// Barriers of any kind.
    pub barriers: u32,
}

/// A thread's mbarrier initialisations not yet fenced, and whether its registers are fenced
/// for the next wgmma.
#[derive(Default)]
pub(crate) struct ThreadFences {
    /// Byte offsets of mbarriers initialised.
    pub(crate) inits: RefCell<Vec<u32>>,
    pub(crate) wgmma_ready: Cell<bool>,
}

/// A CTA's mbarriers (by byte offset) and the operand ranges of wgmmas in flight.
#[derive(Default)]
pub(crate) struct BlockHopper {
    /// The mbarrier phases any thread had waited for when it reached a CTA barrier: after the
    /// barrier every thread has seen them (a barrier orders what its threads acquired).
    pub(crate) joined: Mutex<HashMap<u32, u32>>,
    pub(crate) mbarriers: Mutex<HashMap<u32, Mbarrier>>,
    pub(crate) wgmma_reads: Mutex<Vec<WgmmaRead>>,
    /// Each warpgroup's wgmmas by (warpgroup, group, place in the group): the first thread's
    /// issue, which the warpgroup's other threads must repeat.
    pub(crate) wgmma_issues: Mutex<HashMap<(u32, u32, u32), WgmmaIssue>>,
    /// Named barriers by id.
    pub(crate) named: Mutex<HashMap<u32, Named>>,
}

/// A named barrier: `threads` participants, `arrived` of them so far, `completions` so far,
/// what the arrivals of this round released and what the last completed round did.
#[derive(Default)]
pub(crate) struct Named {
    pub(crate) threads: u32,
    pub(crate) arrived: u32,
    pub(crate) completions: u32,
    pub(crate) pending: Knowledge,
    pub(crate) done: Knowledge,
}

/// What a thread knows of others: a vector clock and the mbarrier phases seen complete.
#[derive(Clone, Default)]
pub(crate) struct Knowledge {
    pub(crate) clocks: Vec<u32>,
    pub(crate) phases: HashMap<u32, u32>,
}

/// One thread's view: what it knows of the others and of mbarrier phases, its releases, the
/// named barrier it last passed, its wgmma groups.
#[derive(Default)]
pub(crate) struct ThreadHopper {
    /// Other threads' clocks acquired, and per mbarrier how many of its phases this thread
    /// knows completed.
    pub(crate) knows: core::cell::RefCell<Knowledge>,
    /// Releases so far (this thread's own clock).
    pub(crate) clock: core::cell::Cell<u32>,
    /// `(id, completions)` of the named barrier last passed.
    pub(crate) named: core::cell::Cell<(u32, u32)>,
    /// wgmma groups committed, and wgmmas issued since the last commit.
    pub(crate) commits: core::cell::Cell<u32>,
    pub(crate) in_group: core::cell::Cell<u32>,
    /// Accumulators that wgmmas not yet waited for write: `(address, group, what the last one
    /// wrote)` (the simulator multiplies at issue, so a change before the wait is the thread's).
    pub(crate) acc_in_flight: core::cell::RefCell<Vec<(usize, u32, Vec<f32>)>>,
}

pub(crate) struct Mbarrier {
    pub(crate) count: u32,
    pub(crate) pending: u32,
    pub(crate) tx: i64,
    /// Phases completed.
    pub(crate) phase: u32,
    pub(crate) init: Access,
    /// Its initialising thread's `fence.mbarrier_init` after it, if any (that thread's stamp).
    pub(crate) fenced: Option<Access>,
    pub(crate) landing: Vec<Landing>,
    /// What this phase's arrivals released, and what the last two completed phases did (by
    /// parity: a waiter names a phase by its parity).
    pub(crate) released: Knowledge,
    pub(crate) completed: [Knowledge; 2],
    /// Threads blocked in `mbarrier_wait` and the parity each waits for: the thread completing
    /// a phase lets those it ends go on.
    pub(crate) waiters: Vec<(u32, u32)>,
}

/// A TMA box read at issue, landing when its phase completes.
pub(crate) struct Landing {
    pub(crate) dst: u32,
    pub(crate) bytes: Vec<u8>,
    pub(crate) swizzle: Swizzle,
    pub(crate) issuer: u32,
}

/// A wgmma as one thread issued it: shape, descriptors, whether it accumulates.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct WgmmaIssue {
    pub(crate) n: u32,
    pub(crate) a: u64,
    pub(crate) b: u64,
    pub(crate) accumulate: bool,
    pub(crate) tid: u32,
}

/// Shared bytes `lo..hi` a wgmma of thread `tid`, in its group `group`, reads: until the
/// thread waits for the group (`retired`: that wait), and then for writers not ordered after it.
pub(crate) struct WgmmaRead {
    pub(crate) tid: u32,
    pub(crate) group: u32,
    pub(crate) lo: u32,
    pub(crate) hi: u32,
    pub(crate) retired: Option<Access>,
}
