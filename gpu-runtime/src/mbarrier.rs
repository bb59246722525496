//! Typed handles on a kernel's mbarriers: [`MBarriers`] is a ring of them (a pipeline's stages,
//! Gluon's `allocate_mbarrier(batch = N)` and `.index(s)`), [`MBarrier`] one. A ring exists only
//! initialised: [`MBarriers::init`] (or [`MBarriers::init_pair`], two rings) is called by the
//! whole CTA, checks that the barriers lie
//! inside the bytes the kernel declares, on 8 bytes, with a count the hardware takes, has one
//! thread initialise them and publishes that to the copy engine and to every thread before any
//! returns. So safe code cannot aim an mbarrier operation past the kernel's shared memory nor
//! use a barrier before its initialisation; the raw offsets underneath are `unsafe`
//! ([`Hopper::mbarrier_init`] and the rest).
//!
//! Not checked yet, as for every handle on shared memory (the tiles, the scratch of collective
//! operations, a [`SharedWindow`](crate::SharedWindow)): that no other handle covers a
//! barrier's bytes, and that the same bytes are not initialised twice while in use. One
//! allocator for a kernel's shared memory would; until then a kernel keeps them apart, and the
//! simulator reports a barrier whose bytes are written or initialised again.

use crate::hopper::Hopper;
use crate::thread::{declares_at_least, inside_declared};

/// `N` initialised mbarriers, one after another from a byte offset of the kernel's shared
/// memory (from [`MBarriers::init`] or [`MBarriers::init_pair`]).
#[derive(Clone, Copy)]
pub struct MBarriers<const N: u32> {
    offset: u32,
}

/// One initialised mbarrier of the kernel's shared memory (from [`MBarriers::index`]).
#[derive(Clone, Copy)]
pub struct MBarrier {
    offset: u32,
}

/// The arrivals one phase of an mbarrier may expect (`mbarrier.init` takes 1 to 2^20 - 1), and
/// the most bytes of async copies it may expect.
pub const MAX_ARRIVALS: u32 = (1 << 20) - 1;

impl<const N: u32> MBarriers<N> {
    /// Bytes the `N` barriers span.
    pub const BYTES: u32 = {
        assert!(N > 0, "MBarriers: a ring of no barriers");
        8 * N
    };

    /// The `N` barriers from byte `offset` on, each expecting `count` arrivals per phase.
    /// Every thread of the CTA calls this, together, on the CTA's own thread (a
    /// [`Partition`](crate::Partition)'s is a compile error: its warps count from each role's
    /// first, its barrier is the role's): it ends in a CTA barrier ([`Thread::sync_block`](crate::Thread::sync_block)); thread 0 of warp 0
    /// initialises them, fences the initialisations for the copy engine
    /// ([`Hopper::fence_mbarrier_init`]), and the barrier publishes them. A trap (a panic on
    /// the simulator) unless they lie inside the bytes the kernel declares, `offset` is a
    /// multiple of 8 and `count` is 1 to [`MAX_ARRIVALS`]; more barriers than the kernel
    /// declares bytes for is a compile error.
    #[inline(always)]
    #[track_caller]
    pub fn init<T: Hopper>(t: &T, offset: u32, count: u32) -> Self {
        const { Self::fit::<T>(1) };
        Self::write(t, offset, [count; 1])
    }

    /// Two rings of `N` from byte `offset` on, the first's barriers expecting `counts[0]`
    /// arrivals per phase, the second's `counts[1]`: a pipeline's full and empty barriers
    /// (Gluon's two `allocate_mbarrier(batch = N)`), initialised as [`init`](Self::init)
    /// initialises one ring, behind one CTA barrier.
    #[inline(always)]
    #[track_caller]
    pub fn init_pair<T: Hopper>(t: &T, offset: u32, counts: [u32; 2]) -> (Self, Self) {
        const { Self::fit::<T>(2) };
        let first = Self::write(t, offset, counts);
        (
            first,
            MBarriers {
                offset: first.end(),
            },
        )
    }

    /// What the makers check at compile time: the kernel declares the bytes of `rings` rings,
    /// and the thread is the CTA's.
    const fn fit<T: Hopper>(rings: u32) {
        assert!(
            declares_at_least(T::SHARED_BYTES, rings * Self::BYTES),
            "MBarriers: the barriers need more shared memory than the kernel declares"
        );
        assert!(
            !T::PARTITION,
            "MBarriers: the whole CTA initialises its barriers, on the CTA's thread, \
             not a Partition's (each role has a warp 0, and its barrier is the role's)"
        );
    }

    /// `R` rings of `N` from byte `offset` on, ring `r`'s barriers expecting `counts[r]`
    /// arrivals; the first ring. Its caller has asserted `fit::<T>(R)` at compile time (each
    /// maker asserts it itself, so that an error names its caller's line): `T` is the CTA's
    /// thread, whose `sync_block` is the CTA barrier that publishes the initialisations.
    #[inline(always)]
    #[track_caller]
    #[allow(unsafe_code)]
    fn write<T: Hopper, const R: usize>(t: &T, offset: u32, counts: [u32; R]) -> Self {
        const { assert!(R > 0, "MBarriers: no ring to initialise") };
        assert!(
            inside_declared::<T>(offset, R as u32 * Self::BYTES) && offset.is_multiple_of(8),
            "MBarriers: not inside the kernel's shared memory, or not on 8 bytes"
        );
        assert!(
            counts.iter().all(|c| (1..=MAX_ARRIVALS).contains(c)),
            "MBarriers: a phase expects 1 to 2^20 - 1 arrivals"
        );
        if t.warp() == 0 && t.lane() == 0 {
            let mut i = 0;
            while i < R as u32 * N {
                // SAFETY: inside the kernel's shared memory and on 8 bytes (checked above); one
                // thread initialises each barrier once, before any use (the CTA barrier below,
                // the CTA's: the caller's `fit` refused a `Partition`).
                unsafe { t.mbarrier_init(offset + 8 * i, counts[(i / N) as usize]) };
                i += 1;
            }
            t.fence_mbarrier_init();
        }
        t.sync_block();
        MBarriers { offset }
    }

    /// Barrier `i`: a trap (a panic on the simulator) unless `i < N`.
    #[inline(always)]
    pub fn index(&self, i: u32) -> MBarrier {
        assert!(i < N, "MBarriers::index: past the ring");
        MBarrier {
            offset: self.offset + 8 * i,
        }
    }

    /// The first `A` barriers and the `B` after them, as two rings (`A + B = N`, a compile
    /// error otherwise): one initialisation for barriers of two roles.
    #[inline(always)]
    pub fn split<const A: u32, const B: u32>(self) -> (MBarriers<A>, MBarriers<B>) {
        const { assert!(A + B == N, "MBarriers::split: the parts are not the ring") };
        (
            MBarriers {
                offset: self.offset,
            },
            MBarriers {
                offset: self.offset + MBarriers::<A>::BYTES,
            },
        )
    }

    /// The byte offset of the first barrier.
    #[inline(always)]
    pub const fn offset(&self) -> u32 {
        self.offset
    }

    /// The byte offset just past the last barrier: where the next buffer may start.
    #[inline(always)]
    pub const fn end(&self) -> u32 {
        self.offset + Self::BYTES
    }
}

// SAFETY (each method): the barrier lies inside the kernel's shared memory on 8 bytes and was
// initialised and published before its handle existed (`MBarriers::init`, `init_pair`); that nothing else
// covers its bytes is what the module doc says is not checked yet.
#[allow(unsafe_code)]
impl MBarrier {
    /// Its byte offset in the kernel's shared memory.
    #[inline(always)]
    pub const fn offset(self) -> u32 {
        self.offset
    }

    /// `mbarrier.arrive`: [`Hopper::mbarrier_arrive`].
    #[inline(always)]
    pub fn arrive<T: Hopper>(self, t: &T) {
        unsafe { t.mbarrier_arrive(self.offset) }
    }

    /// `mbarrier.arrive.expect_tx`: the phase also waits for `bytes` more bytes of async
    /// copies ([`Hopper::mbarrier_arrive_expect_tx`]): a trap (a panic on the simulator) past
    /// the hardware's count, [`MAX_ARRIVALS`] as for arrivals.
    #[inline(always)]
    pub fn arrive_expect_tx<T: Hopper>(self, t: &T, bytes: u32) {
        assert!(
            bytes <= MAX_ARRIVALS,
            "MBarrier::arrive_expect_tx: a phase expects at most 2^20 - 1 bytes"
        );
        unsafe { t.mbarrier_arrive_expect_tx(self.offset, bytes) }
    }

    /// Whether the phase of parity `parity` has completed ([`Hopper::mbarrier_try_wait`]).
    #[inline(always)]
    pub fn try_wait<T: Hopper>(self, t: &T, parity: u32) -> bool {
        unsafe { t.mbarrier_try_wait(self.offset, parity) }
    }

    /// Wait until the phase of parity `parity` has completed: what its arrivals and copies
    /// wrote is visible to this thread after.
    #[inline(always)]
    pub fn wait<T: Hopper>(self, t: &T, parity: u32) {
        unsafe { t.mbarrier_wait(self.offset, parity) }
    }
}
