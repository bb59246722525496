//! A CPU SIMT simulator of NVIDIA GPUs, for kernel bodies written against `gpu-runtime`'s
//! [`Thread`](gpu_runtime::Thread) and [`Hopper`](gpu_runtime::Hopper) traits: a grid of
//! blocks, each of N threads running one kernel body as a coroutine of the launching OS thread; blocks may be
//! grouped in clusters (Hopper's CTA clusters), whose CTAs run together and reach each other's
//! shared memory. Shuffles and barriers really synchronise, so a shuffle reads the source
//! lane's value at that instruction; shared memory records who wrote and read each byte, so a
//! missing barrier shows up as a reported race (or an uninitialised read), never as a silently
//! right answer. What the hardware requires beyond ordering is checked too: the async proxy's
//! fences, mbarrier initialisation, wgmma's rules, each CTA, named or cluster barrier reached
//! by a warp as one (they are aligned: lanes of a warp at two calls of one are reported).
//! Each problem is an [`Issue`] of an [`IssueKind`]; a thread that panics (a failing `assert!`)
//! is one, and the threads waiting for it at a barrier are released, so a launch always returns
//! (its panic message is not printed: it is in the returned error).
//!
//! ```
//! use gpu_runtime::Thread;
//! use gpu_sim::{launch, HostMemory, IssueKind, Launch};
//!
//! // Every thread writes its shared word, then reads its neighbour's: without the barrier
//! // the simulator reports a race. (Raw shared offsets are `unsafe` on a GPU, which checks
//! // nothing; the simulator checks every access.)
//! let out = HostMemory::new((0..64).map(|_| 0));
//! let body = |t: &gpu_sim::SimThread, sync: bool| {
//!     let me = t.warp() * 32 + t.lane();
//!     unsafe { t.st_shared(4 * me, 4, [me, 0, 0, 0]) };
//!     if sync {
//!         t.sync_block();
//!     }
//!     let next = unsafe { t.ld_shared(4 * ((me + 1) % 64), 4) }[0];
//!     unsafe { out.view_mut::<u32, 1>([64]).store_one([me], next) };
//! };
//! launch(Launch::new(1, 64, 256), |t| body(t, true)).unwrap();
//! assert_eq!(out.get(63), 0);
//! let e = launch(Launch::new(1, 64, 256), |t| body(t, false)).unwrap_err();
//! assert!(e.has(IssueKind::Race) || e.has(IssueKind::UninitialisedRead));
//! ```
//!
//! The modules: `state` is the simulator's data (shared bytes, warps, CTAs, clusters, each
//! [`SimThread`], Hopper's units), imported by the others, which give it behaviour:
//! `order` is the one happens-before relation (releases and acquires of every barrier, phase
//! and completion; when two accesses race); [`launch`](crate::launch()) starts threads (the
//! shape is `grid`: [`Launch`], [`Fence`]); `thread` is the [`Thread`](gpu_runtime::Thread)
//! implementation and its warp exchanges; `memory` is shared-memory accesses checked against
//! each byte's record; `global` is global-memory accesses checked against each element's
//! record (bounds, races between threads and CTAs); `copy` is `cp.async`; `fence` is the async proxy's fences; `hopper` is
//! [`Hopper`](gpu_runtime::Hopper) (mbarriers, TMA, wgmma, named barriers); `barrier` is the
//! breakable barrier threads meet at; `sched` is where threads run (coroutines resumed in turn
//! at each wait); [`profile`] is every lane's shared access, for bank
//! conflicts; [`HostMemory`] is global memory. None imports another but `state`, `order` and
//! leaf modules.

mod barrier;
mod copy;
mod fence;
mod global;
mod grid;
mod hopper;
mod host_memory;
mod issue;
mod launch;
mod memory;
mod order;
pub mod profile;
mod sched;
mod state;
mod thread;

pub use grid::{Fence, Launch};
pub use hopper::SHARED_BASE;
pub use host_memory::HostMemory;
pub use issue::{Issue, IssueKind, Place, SimError};
pub use launch::{launch, launch_profiled};
pub use state::{Issued, SimThread};
