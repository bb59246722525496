//! Starting a launch: its shape ([`Launch`]), the state its blocks and clusters share, one OS
//! thread per simulated thread, panics turned into issues (and kept off stderr), and the
//! issues collected into the launch's result.

use std::format;
use std::string::String;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Mutex;
use std::vec::Vec;

use crate::barrier::{Aborted, SimBarrier};
use crate::fence::{Fence, ThreadFences};
use crate::hopper;
use crate::issue::{IssueKind, Issues, SimError};
use crate::memory::Byte;
use crate::profile::{LaneAccess, Profile};
use crate::thread::{Issued, SimThread};

/// Words a lane can give its warp at once: an `mma.m16n8k16`'s operands (A's 4, B's 2).
pub(crate) const SLOT_WORDS: usize = 6;

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
    /// Fences of this kind are ignored ([`Launch::skipping`]).
    pub skip: Option<Fence>,
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
            skip: None,
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

    /// The same launch ignoring every fence of kind `f`, as if the kernel lacked them: a
    /// mutation test, which passes when the launch reports the missing fence.
    pub fn skipping(self, f: Fence) -> Self {
        Launch {
            skip: Some(f),
            ..self
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
    /// Hopper's asynchronous units: mbarriers and the wgmma reads in flight.
    pub(crate) hopper: hopper::BlockHopper,
}

/// What a cluster's threads share.
pub(crate) struct ClusterState {
    pub(crate) blocks: Vec<BlockState>,
    pub(crate) barrier: SimBarrier,
    pub(crate) issues: Mutex<Issues>,
    /// Set when a thread panicked: barriers release their waiters.
    pub(crate) aborted: AtomicBool,
    /// Every lane's shared access, kept only for [`launch_profiled`] (a plain launch does not
    /// pay a lock and a push per access).
    pub(crate) log: Option<Mutex<Vec<LaneAccess>>>,
}

/// The number of points of a 3-D shape.
fn volume(d: [u32; 3]) -> u64 {
    d.iter().map(|&x| x as u64).product()
}

/// The coordinates of linear index `i` in a grid of shape `dim`, x fastest.
pub(crate) fn unflatten(i: u32, dim: [u32; 3]) -> [u32; 3] {
    let (x, y) = (dim[0].max(1), dim[1].max(1));
    [i % x, i / x % y, i / x / y]
}

impl SimThread<'_> {
    /// Report a panic of this thread's kernel body and release the others from their barriers.
    pub(crate) fn panicked(&self, payload: std::boxed::Box<dyn core::any::Any + Send>) {
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
    for first in (0..l.blocks).step_by(l.cluster as usize) {
        let cluster = ClusterState::new(&l, profiled);
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
            hopper: hopper::BlockHopper::default(),
            shared: Mutex::new(std::vec![
                Byte {
                    value: 0,
                    write: None,
                    read: None,
                    copying: None,
                    mbarrier: false,
                    swizzle: None,
                    generic: false,
                    fenced: None,
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
            issues: Mutex::new(Issues::default()),
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
                            fences: ThreadFences::default(),
                        };
                        IN_SIMULATION.with(|s| s.set(true));
                        // A panic becomes an error naming the thread, not a torn-down launch.
                        let run = std::panic::AssertUnwindSafe(|| kernel(&th));
                        if let Err(payload) = std::panic::catch_unwind(run) {
                            th.panicked(payload);
                        }
                    })
                    .map(|_| ())
                    .unwrap_or_else(|e| {
                        if let Ok(mut v) = cluster.issues.lock() {
                            v.push(crate::issue::Issue {
                                kind: IssueKind::Launch,
                                place: None,
                                message: format!("could not start a simulated thread: {}", e),
                            });
                        }
                    });
            }
        }
    });
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
