//! What a simulated launch reports: each problem an [`Issue`] of one [`IssueKind`], with the
//! thread and block that met it and a message saying what to change. Tests match kinds; the
//! messages are for people.

use std::string::String;
use std::vec::Vec;

/// The kinds of problem the simulator finds: each is a bug on the GPU (or a launch the GPU
/// refuses).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IssueKind {
    /// Two threads touch a shared byte, one of them writing, with nothing ordering them.
    Race,
    /// A shared byte read before anything wrote it.
    UninitialisedRead,
    /// A shared or global access outside its buffer, another CTA than the cluster has, or a wgmma
    /// descriptor reaching outside shared memory.
    OutOfBounds,
    /// An access not aligned to its size, or of a size the instruction does not move.
    Misaligned,
    /// A shared byte touched while an async copy (cp.async or TMA) into it is in flight.
    CopyInFlight,
    /// An mbarrier used wrongly: not initialised, overwritten by data, over-arrived, or
    /// completed by more bytes than announced.
    Mbarrier,
    /// A fence the hardware needs is missing: `fence.proxy.async` between generic-proxy
    /// stores and the async proxy reading or overwriting them, `fence.mbarrier_init` before
    /// an mbarrier is used by others, `wgmma.fence` before a wgmma.
    MissingFence,
    /// A wgmma misused: issued differently within its warpgroup, its operands overwritten
    /// while it reads them, a descriptor's swizzle not the bytes', a bad shape.
    Wgmma,
    /// A named barrier used with two thread counts or out of range.
    NamedBarrier,
    /// A CTA, named or cluster barrier (`bar.sync`, which is `barrier.sync.aligned`, and
    /// `barrier.cluster.*.aligned`) reached by the lanes of one warp at two places of the code
    /// in the same round: the hardware counts the warp at the first and lets the barrier
    /// complete before the others arrive.
    DivergentBarrier,
    /// A TMA box or destination the copy engine refuses.
    Tma,
    /// A wait that can never end.
    Deadlock,
    /// A kernel body panicked (a failing `assert!`).
    Panic,
    /// The launch itself is malformed (threads not whole warps, grid not whole clusters), or
    /// an instruction needs a warp size it does not have.
    Launch,
}

/// One problem of a launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    /// What went wrong.
    pub kind: IssueKind,
    /// The block and the thread (its index in the block) that met it; `None` for the launch.
    pub place: Option<Place>,
    /// What happened and what to change.
    pub message: String,
}

/// Where an [`Issue`] happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// The block (linear index in the grid).
    pub block: u32,
    /// The thread's index in its block.
    pub thread: u32,
}

/// What went wrong in a simulated launch: the first [`SimError::KEPT`] issues, and how many
/// more there were. Both `Display` and `Debug` (what `.expect` prints) write an issue repeated
/// word for word on many threads once.
#[derive(Clone, PartialEq, Eq)]
pub struct SimError {
    /// The issues kept, in the order they were found.
    pub issues: Vec<Issue>,
    /// Issues found beyond those kept.
    pub dropped: usize,
}

impl SimError {
    /// Issues kept per launch: one bug usually repeats on every thread.
    pub const KEPT: usize = 64;

    /// An error of one issue.
    pub fn one(kind: IssueKind, message: String) -> Self {
        SimError {
            issues: std::vec![Issue {
                kind,
                place: None,
                message,
            }],
            dropped: 0,
        }
    }

    /// Whether some issue is of kind `kind`.
    pub fn has(&self, kind: IssueKind) -> bool {
        self.issues.iter().any(|i| i.kind == kind)
    }

    /// The issues' messages.
    pub fn messages(&self) -> impl Iterator<Item = &str> {
        self.issues.iter().map(|i| i.message.as_str())
    }
}

/// What an issue says past the thread it names (`thread 3 (block 0, ...) what`), with its kind:
/// one bug repeats it, word for word, on every thread.
fn what(issue: &Issue) -> (IssueKind, &str) {
    let m = issue.message.as_str();
    let rest = m
        .strip_prefix("thread ")
        .and_then(|r| r.split_once(')'))
        .map_or(m, |(_, what)| what);
    (issue.kind, rest)
}

impl SimError {
    /// The distinct issues in the order found, each with how many other threads had it.
    fn distinct(&self) -> Vec<(&Issue, usize)> {
        let mut distinct: Vec<(&Issue, usize)> = Vec::new();
        for e in &self.issues {
            match distinct.iter_mut().find(|(d, _)| what(d) == what(e)) {
                Some((_, repeats)) => *repeats += 1,
                None => distinct.push((e, 0)),
            }
        }
        distinct
    }
}

/// ` (the same on N more threads)` where an issue repeats.
fn repeats(f: &mut core::fmt::Formatter<'_>, n: usize) -> core::fmt::Result {
    match n {
        0 => Ok(()),
        n => write!(f, " (the same on {} more threads)", n),
    }
}

impl core::fmt::Display for SimError {
    /// The first 8 distinct issues, each once with how many other threads had it, then how
    /// many more there were.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let distinct = self.distinct();
        for (i, (e, n)) in distinct.iter().take(8).enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            f.write_str(&e.message)?;
            repeats(f, *n)?;
        }
        let more: usize = distinct.iter().skip(8).map(|(_, r)| r + 1).sum::<usize>() + self.dropped;
        if more > 0 {
            write!(f, "; and {} more", more)?;
        }
        Ok(())
    }
}

impl core::fmt::Debug for SimError {
    /// Every distinct issue kept, one a line with its kind, then how many were not kept.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("SimError:")?;
        for (e, n) in self.distinct() {
            write!(f, "\n  {:?}: {}", e.kind, e.message)?;
            repeats(f, n)?;
        }
        if self.dropped > 0 {
            write!(f, "\n  and {} more, not kept", self.dropped)?;
        }
        Ok(())
    }
}

impl std::error::Error for SimError {}

/// Issues as they are reported during a launch: the first [`SimError::KEPT`], and a count of
/// the rest.
#[derive(Default)]
pub(crate) struct Issues {
    pub(crate) kept: Vec<Issue>,
    pub(crate) dropped: usize,
}

impl Issues {
    pub(crate) fn push(&mut self, i: Issue) {
        if self.kept.len() < SimError::KEPT {
            self.kept.push(i);
        } else {
            self.dropped += 1;
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn issue(message: &str) -> Issue {
        Issue {
            kind: IssueKind::Panic,
            place: None,
            message: message.into(),
        }
    }

    #[test]
    fn one_bug_on_many_threads_is_written_once() {
        let e = SimError {
            issues: std::vec![
                issue("thread 0 (block 0, warp 0, lane 0) panicked: x is short"),
                issue("thread 1 (block 0, warp 0, lane 1) panicked: x is short"),
                issue("thread 1 (block 0): a race on byte 4"),
                issue("thread 2 (block 0, warp 0, lane 2) panicked: x is short"),
                issue("thread 3 (block 0) reads byte 8 before any write: the same advice"),
                issue("thread 4 (block 0) reads byte 12 before any write: the same advice"),
            ],
            dropped: 3,
        };
        // Word for word past the thread: the reads of other bytes are other issues.
        assert_eq!(
            e.to_string(),
            "thread 0 (block 0, warp 0, lane 0) panicked: x is short (the same on 2 more threads); thread 1 (block 0): a race on byte 4; thread 3 (block 0) reads byte 8 before any write: the same advice; thread 4 (block 0) reads byte 12 before any write: the same advice; and 3 more"
        );
        // What `.expect` prints: every distinct issue with its kind, each once.
        assert_eq!(
            format!("{:?}", e),
            "SimError:\n  Panic: thread 0 (block 0, warp 0, lane 0) panicked: x is short (the same on 2 more threads)\n  Panic: thread 1 (block 0): a race on byte 4\n  Panic: thread 3 (block 0) reads byte 8 before any write: the same advice\n  Panic: thread 4 (block 0) reads byte 12 before any write: the same advice\n  and 3 more, not kept"
        );
    }
}
