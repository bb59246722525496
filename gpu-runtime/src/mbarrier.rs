//! Typed handles on a kernel's mbarriers: [`MBarrier`] is one (8 bytes of shared memory),
//! [`MBarriers`] a ring of them (a pipeline's stages, Gluon's
//! `allocate_mbarrier(batch = N)` and `.index(s)`). Either is made only where it lies inside
//! the bytes the kernel declares and on 8 bytes, so safe code cannot aim an mbarrier operation
//! past the kernel's shared memory; the raw byte offsets they replace are `unsafe`
//! ([`Hopper::mbarrier_init`] and the rest). Still the caller's, as Gluon leaves them: that one
//! thread initialises a barrier and the others see it ([`Hopper::fence_mbarrier_init`], a CTA
//! barrier) before they use it, and that nothing but mbarrier operations touches its bytes
//! (a barrier inside a tile the copy engine fills is undefined on the GPU); the simulator
//! reports both.

use crate::hopper::Hopper;
use crate::thread::Thread;

/// `N` mbarriers, one after another from a byte offset of the kernel's shared memory.
#[derive(Clone, Copy)]
pub struct MBarriers<const N: u32> {
    offset: u32,
}

/// One mbarrier of the kernel's shared memory (from [`MBarrier::new`] or
/// [`MBarriers::index`]).
#[derive(Clone, Copy)]
pub struct MBarrier {
    offset: u32,
}

/// Whether bytes `offset..offset + bytes` lie inside the shared memory `T`'s kernel declares.
/// A thread that does not know them is on the simulator (which checks every access itself): a
/// GPU thread must know them, a compile error naming `what`'s kind of handle otherwise.
#[inline(always)]
pub(crate) fn inside_declared<T: Thread>(offset: u32, bytes: u32) -> bool {
    const {
        #[cfg(target_arch = "nvptx64")]
        assert!(
            T::SHARED_BYTES.is_some(),
            "a shared-memory handle (SharedTiles, MBarriers) needs a thread that knows its \
             kernel's shared bytes (a GpuThread with SHARED = u32::MAX does not): make it with \
             the kernel's bytes, as #[kernel] does"
        );
    };
    match T::SHARED_BYTES {
        Some(have) => bytes <= have && offset <= have - bytes,
        None => true,
    }
}

impl<const N: u32> MBarriers<N> {
    /// Bytes the `N` barriers span.
    pub const BYTES: u32 = {
        assert!(N > 0, "MBarriers: a ring of no barriers");
        8 * N
    };

    /// The `N` barriers from byte `offset` on, checked once for all of them: a trap (a panic
    /// on the simulator) unless they lie inside the bytes the kernel declares and `offset` is
    /// a multiple of 8. More barriers than the kernel declares bytes for is a compile error.
    #[inline(always)]
    pub fn new<T: Thread>(t: &T, offset: u32) -> Self {
        let _ = t;
        const {
            if let Some(have) = T::SHARED_BYTES {
                assert!(
                    Self::BYTES <= have,
                    "MBarriers: the barriers need more shared memory than the kernel declares"
                );
            }
        };
        assert!(
            inside_declared::<T>(offset, Self::BYTES) && offset.is_multiple_of(8),
            "MBarriers: not inside the kernel's shared memory, or not on 8 bytes"
        );
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

    /// Initialise each barrier to expect `count` arrivals per phase ([`MBarrier::init`]).
    #[inline(always)]
    pub fn init<T: Hopper>(&self, t: &T, count: u32) {
        let mut i = 0;
        while i < N {
            self.index(i).init(t, count);
            i += 1;
        }
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

#[allow(unsafe_code)]
impl MBarrier {
    /// The barrier at byte `offset`, checked as [`MBarriers::new`] checks.
    #[inline(always)]
    pub fn new<T: Thread>(t: &T, offset: u32) -> Self {
        MBarriers::<1>::new(t, offset).index(0)
    }

    /// Its byte offset in the kernel's shared memory.
    #[inline(always)]
    pub const fn offset(self) -> u32 {
        self.offset
    }

    /// `mbarrier.init`: expect `count` arrivals per phase. One thread initialises a barrier;
    /// [`Hopper::fence_mbarrier_init`] and a CTA barrier publish it to the others.
    #[inline(always)]
    pub fn init<T: Hopper>(self, t: &T, count: u32) {
        // SAFETY: checked inside the kernel's shared memory and on 8 bytes when made.
        unsafe { t.mbarrier_init(self.offset, count) }
    }

    /// `mbarrier.arrive`: [`Hopper::mbarrier_arrive`].
    #[inline(always)]
    pub fn arrive<T: Hopper>(self, t: &T) {
        // SAFETY: as in `init`.
        unsafe { t.mbarrier_arrive(self.offset) }
    }

    /// `mbarrier.arrive.expect_tx`: the phase also waits for `bytes` more bytes of async
    /// copies ([`Hopper::mbarrier_arrive_expect_tx`]).
    #[inline(always)]
    pub fn arrive_expect_tx<T: Hopper>(self, t: &T, bytes: u32) {
        // SAFETY: as in `init`.
        unsafe { t.mbarrier_arrive_expect_tx(self.offset, bytes) }
    }

    /// Whether the phase of parity `parity` has completed ([`Hopper::mbarrier_try_wait`]).
    #[inline(always)]
    pub fn try_wait<T: Hopper>(self, t: &T, parity: u32) -> bool {
        // SAFETY: as in `init`.
        unsafe { t.mbarrier_try_wait(self.offset, parity) }
    }

    /// Wait until the phase of parity `parity` has completed: what its arrivals and copies
    /// wrote is visible to this thread after.
    #[inline(always)]
    pub fn wait<T: Hopper>(self, t: &T, parity: u32) {
        // SAFETY: as in `init`.
        unsafe { t.mbarrier_wait(self.offset, parity) }
    }
}
