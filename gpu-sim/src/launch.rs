//! Starting a launch: its shape ([`Launch`]), the state its blocks and clusters share, each simulated
//! thread a coroutine of the launching OS thread, panics turned into issues (and kept off stderr), and the
//! issues collected into the launch's result.

use std::collections::HashMap;
use std::format;
use std::string::String;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;
use std::vec::Vec;

use crate::barrier::{Aborted, Progress, SimBarrier};
use crate::global::Current;
use crate::grid::{volume, Launch};
use crate::issue::{IssueKind, Issues, SimError};
use crate::profile::Profile;
use crate::state::{
    BlockHopper, BlockState, Byte, ClusterState, Issued, SimThread, ThreadFences, ThreadHopper,
    WarpState, SLOT_WORDS,
};

impl SimThread<'_> {
    /// Report a panic of this thread's kernel body and release the others from their barriers.
    /// The kernel body returned (or panicked): if the threads left all wait, none can end its
    /// wait.
    fn returned(&self) {
        if self.cluster.progress.exit() && !self.cluster.aborted.load(Ordering::SeqCst) {
            self.report(IssueKind::Deadlock, format!(
                "thread {} (block {}) returned while other threads of its cluster wait, and none is left to end their waits: every thread must reach each barrier it is counted in (return only after the last one), and each mbarrier phase needs all its arrivals",
                self.tid(), self.block
            ));
            self.cluster.aborted.store(true, Ordering::SeqCst);
        }
    }

    pub(crate) fn panicked(&self, payload: std::boxed::Box<dyn core::any::Any + Send>) {
        if payload.is::<Aborted>() {
            return;
        }
        if let Some(o) = payload.downcast_ref::<crate::host_memory::OutOfRange>() {
            self.report(
                IssueKind::OutOfBounds,
                format!(
                    "thread {} (block {}, warp {}, lane {}): global {} of element {} of {} of {} elements is out of bounds (check the origin, strides and bounds against the buffer)",
                    self.tid(), self.block, self.warp, self.lane, o.what, o.index, o.tensor, o.len
                ),
            );
            self.cluster.aborted.store(true, Ordering::SeqCst);
            return;
        }
        let msg = if let Some(s) = payload.downcast_ref::<&str>() {
            String::from(*s)
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.clone()
        } else {
            String::from("(a panic without a message)")
        };
        self.report(
            IssueKind::Panic,
            format!(
                "thread {} (block {}, warp {}, lane {}) panicked: {}",
                self.tid(),
                self.block,
                self.warp,
                self.lane,
                msg
            ),
        );
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
    quiet_panics();
    let mut errors = Issues::default();
    let mut profile = Profile::default();
    let launch_id = LAUNCHES.fetch_add(1, Ordering::Relaxed) + 1;
    for first in (0..l.blocks).step_by(l.cluster as usize) {
        let cluster = ClusterState::new(&l, profiled, launch_id);
        run_cluster(&l, first, &cluster, &kernel);
        let aborted = cluster.aborted.load(Ordering::SeqCst);
        if let Ok(e) = cluster.issues.into_inner() {
            errors.dropped += e.dropped;
            e.kept.into_iter().for_each(|i| errors.push(i));
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
        Err(SimError {
            issues: errors.kept,
            dropped: errors.dropped,
        })
    }
}

/// Launches so far in this process: each launch's number, for global memory's records.
static LAUNCHES: AtomicU64 = AtomicU64::new(0);

/// Refuse a launch whose blocks are not whole warps or whose grid is not whole clusters.
fn check_launch(l: &Launch) -> Result<(), SimError> {
    if l.warp_size == 0 || l.threads == 0 || !l.threads.is_multiple_of(l.warp_size) {
        return Err(SimError::one(
            IssueKind::Launch,
            format!(
                "threads per block ({}) must be a positive multiple of the warp size ({})",
                l.threads, l.warp_size
            ),
        ));
    }
    if volume(l.grid_dim) != l.blocks as u64 || volume(l.block_dim) != l.threads as u64 {
        return Err(SimError::one(
            IssueKind::Launch,
            format!(
            "grid {:?} x block {:?} is not {} blocks of {} threads: set both through Launch::dims",
            l.grid_dim, l.block_dim, l.blocks, l.threads
        ),
        ));
    }
    if l.cluster == 0
        || !l.blocks.is_multiple_of(l.cluster)
        || !l.grid_dim[0].is_multiple_of(l.cluster)
    {
        return Err(SimError::one(IssueKind::Launch, format!(
            "blocks ({}, {} along x) must be a multiple of the CTAs per cluster ({}): clusters group blocks along x",
            l.blocks, l.grid_dim[0], l.cluster
        )));
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
            hopper: BlockHopper::default(),
            proxy_fences: Mutex::new(HashMap::new()),
            barrier_sites: Mutex::new(HashMap::new()),
            shared: Mutex::new(std::vec![
                Byte {
                    value: 0,
                    write: None,
                    read: None,
                    copying: None,
                    mbarrier: false,
                    swizzle: None,
                    generic: false,
                };
                l.shared_bytes as usize
            ]),
        }
    }
}

impl ClusterState {
    /// A fresh cluster of `l.cluster` CTAs of launch `launch_id`, no errors yet; it logs shared
    /// accesses if `profiled`.
    fn new(l: &Launch, profiled: bool, launch_id: u64) -> Self {
        ClusterState {
            blocks: (0..l.cluster).map(|_| BlockState::new(l)).collect(),
            barrier: SimBarrier::new((l.threads * l.cluster) as usize),
            issues: Mutex::new(Issues::default()),
            aborted: AtomicBool::new(false),
            progress: Progress::new(l.threads * l.cluster),
            log: profiled.then(|| Mutex::new(Vec::new())),
            launch_id,
        }
    }
}

/// Run every thread of the cluster whose first block is `first`, each a coroutine of this OS
/// thread ([`crate::sched`]), until all have returned. A thread that cannot be started is
/// recorded as an error of the cluster.
fn run_cluster<F>(l: &Launch, first: u32, cluster: &ClusterState, kernel: &F)
where
    F: Fn(&SimThread) + Sync,
{
    let l = *l;
    let body = move |rank: u32, t: u32| {
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
            hopper: ThreadHopper::default(),
            fences: ThreadFences::default(),
            scratch_reads: core::cell::Cell::new(false),
        };
        // Global memory finds the thread accessing it here (`global`).
        let current = Current::enter(&th);
        // A panic becomes an error naming the thread, not a torn-down launch.
        let run = std::panic::AssertUnwindSafe(|| kernel(&th));
        if let Err(payload) = std::panic::catch_unwind(run) {
            th.panicked(payload);
        }
        drop(current);
        th.returned();
    };
    let threads = (0..l.cluster).flat_map(|rank| (0..l.threads).map(move |t| (rank, t)));
    let was = IN_SIMULATION.with(|s| s.replace(true));
    crate::sched::run_all(
        threads.map(|(rank, t)| std::boxed::Box::new(move || body(rank, t)) as _),
        |e| {
            cluster.progress.exit();
            if let Ok(mut v) = cluster.issues.lock() {
                v.push(crate::issue::Issue {
                    kind: IssueKind::Launch,
                    place: None,
                    message: format!("could not start a simulated thread: {}", e),
                });
            }
        },
    );
    IN_SIMULATION.with(|s| s.set(was));
}

std::thread_local! {
    /// Set on simulated threads: their panics are reported in the launch's result, not printed.
    static IN_SIMULATION: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

/// Install (once) a panic hook that keeps simulated threads' panics off stderr and leaves every
/// other thread's to the hook that was there.
fn quiet_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(std::boxed::Box::new(move |info| {
            if !IN_SIMULATION.with(|s| s.get()) {
                previous(info)
            }
        }));
    });
}
