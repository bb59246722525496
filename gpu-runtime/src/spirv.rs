//! The Vulkan / SPIR-V backend (rust-gpu): subgroup shuffles (`OpGroupNonUniformShuffle`,
//! `OpGroupNonUniformShuffleXor`), workgroup shared memory, `OpControlBarrier` with workgroup
//! memory semantics, and the invocation and subgroup ids. The type is documented on every target;
//! it is a [`Thread`](crate::Thread) only when building for `target_arch = "spirv"`. Kernels
//! rarely name it: `#[kernel]` makes it from the entry point's built-ins and hands the body a
//! `&impl Thread`.
//!
//! A warp is a subgroup: the lane is `SubgroupLocalInvocationId`, the warp `SubgroupId`, so a
//! kernel is correct whatever order the driver groups invocations in, provided its subgroups are
//! full and as wide as the layouts' warps (the host asks for that size and refuses other
//! devices). Vulkan has neither `ldmatrix`/`stmatrix` nor clusters: plans for a `spirv_N`
//! target never use them, and the trait's defaults would run them as shuffles if asked.
//!
//! Shared memory is one workgroup array of `WORDS` 32-bit words. Word, 8- and 16-byte accesses
//! are plain loads and stores; a 1- or 2-byte store is an atomic AND then OR on its word, since two
//! invocations may write the two halves of one word at once (SPIR-V has no byte-granular store
//! to a word array).

#[cfg(target_arch = "spirv")]
use spirv_std::arch;
#[cfg(target_arch = "spirv")]
use spirv_std::memory::{Scope, Semantics};

#[cfg(target_arch = "spirv")]
use crate::thread::Thread;

/// Where an invocation is: the compute built-ins `#[kernel]` reads, x first.
#[derive(Clone, Copy, Debug)]
pub struct Ids {
    /// `LocalInvocationId`.
    pub thread: [u32; 3],
    /// `WorkgroupId`.
    pub block: [u32; 3],
    /// `NumWorkgroups`.
    pub grid: [u32; 3],
    /// The workgroup's size (the entry point's `LocalSize`).
    pub block_dim: [u32; 3],
    /// `SubgroupLocalInvocationId`.
    pub lane: u32,
    /// `SubgroupId`.
    pub warp: u32,
    /// `SubgroupSize`.
    pub lanes: u32,
}

/// The calling invocation and its workgroup's shared array of `WORDS` words.
pub struct SpirvThread<const WORDS: usize> {
    #[cfg_attr(not(target_arch = "spirv"), allow(dead_code))]
    smem: *mut [u32; WORDS],
    #[cfg_attr(not(target_arch = "spirv"), allow(dead_code))]
    ids: Ids,
    /// [`Thread::scratch_reads`], as a word: rust-gpu cannot address a `bool` in memory.
    #[cfg_attr(not(target_arch = "spirv"), allow(dead_code))]
    scratch: core::cell::Cell<u32>,
}

impl<const WORDS: usize> SpirvThread<WORDS> {
    /// The invocation at `ids`, with `smem` (the entry point's `#[spirv(workgroup)]` array) as
    /// its shared memory.
    #[inline(always)]
    pub fn new(smem: &mut [u32; WORDS], ids: Ids) -> Self {
        SpirvThread {
            smem: smem as *mut [u32; WORDS],
            ids,
            scratch: core::cell::Cell::new(0),
        }
    }
}

#[cfg(target_arch = "spirv")]
const WORKGROUP: u32 = Scope::Workgroup as u32;
#[cfg(target_arch = "spirv")]
const SUBGROUP: u32 = Scope::Subgroup as u32;
#[cfg(target_arch = "spirv")]
const SHARED_ACQ_REL: u32 = Semantics::WORKGROUP_MEMORY.bits() | Semantics::ACQUIRE_RELEASE.bits();
#[cfg(target_arch = "spirv")]
const RELAXED: u32 = Semantics::NONE.bits();

#[cfg(target_arch = "spirv")]
#[allow(unsafe_code)]
impl<const WORDS: usize> SpirvThread<WORDS> {
    /// Shared word `i`.
    #[inline(always)]
    fn word(&self, i: u32) -> &mut u32 {
        // SAFETY: the workgroup array outlives the kernel; a plan's accesses stay inside the
        // `shared_bytes` the kernel declared (an index past it is a bounds check, not UB).
        unsafe { &mut (*self.smem)[i as usize] }
    }
}

/// The low bits of a word a 1- or 2-byte access covers.
#[cfg(target_arch = "spirv")]
#[inline(always)]
fn sub_word_mask(bytes: u32) -> u32 {
    if bytes == 1 {
        0xff
    } else {
        0xffff
    }
}

// SAFETY: the ids are the subgroup's built-ins; the shared memory is the `WORDS` words this
// thread holds, which SHARED_BYTES does not exceed.
#[cfg(target_arch = "spirv")]
#[allow(unsafe_code)]
unsafe impl<const WORDS: usize> Thread for SpirvThread<WORDS> {
    #[inline(always)]
    fn lane(&self) -> u32 {
        self.ids.lane
    }
    #[inline(always)]
    fn warp(&self) -> u32 {
        self.ids.warp
    }
    #[inline(always)]
    fn block(&self) -> u32 {
        self.ids.block[0]
    }
    #[inline(always)]
    fn thread_idx(&self) -> [u32; 3] {
        self.ids.thread
    }
    #[inline(always)]
    fn block_dim(&self) -> [u32; 3] {
        self.ids.block_dim
    }
    #[inline(always)]
    fn block_idx(&self) -> [u32; 3] {
        self.ids.block
    }
    #[inline(always)]
    fn grid_dim(&self) -> [u32; 3] {
        self.ids.grid
    }
    #[inline(always)]
    fn shfl_idx(&self, v: u32, src_lane: u32) -> u32 {
        arch::subgroup_shuffle(v, src_lane & (self.ids.lanes - 1))
    }
    #[inline(always)]
    fn shfl_xor(&self, v: u32, mask: u32) -> u32 {
        arch::subgroup_shuffle_xor(v, mask)
    }
    #[inline(always)]
    fn sync_warp(&self) {
        // The subgroup meets; its shared-memory writes become visible to the workgroup.
        arch::control_barrier::<SUBGROUP, WORKGROUP, SHARED_ACQ_REL>()
    }
    #[inline(always)]
    fn sync_block(&self) {
        arch::control_barrier::<WORKGROUP, WORKGROUP, SHARED_ACQ_REL>();
        self.scratch.set(0);
    }
    #[inline(always)]
    unsafe fn st_shared(&self, byte_offset: u32, bytes: u32, words: [u32; 4]) {
        let i = byte_offset / 4;
        match bytes {
            1 | 2 => {
                let (shift, mask) = (8 * (byte_offset % 4), sub_word_mask(bytes));
                // SAFETY: atomics on a word of this workgroup's array.
                unsafe {
                    arch::atomic_and::<u32, WORKGROUP, RELAXED>(self.word(i), !(mask << shift));
                    arch::atomic_or::<u32, WORKGROUP, RELAXED>(
                        self.word(i),
                        (words[0] & mask) << shift,
                    );
                }
            }
            4 => *self.word(i) = words[0],
            8 => {
                *self.word(i) = words[0];
                *self.word(i + 1) = words[1];
            }
            _ => {
                *self.word(i) = words[0];
                *self.word(i + 1) = words[1];
                *self.word(i + 2) = words[2];
                *self.word(i + 3) = words[3];
            }
        }
    }
    #[inline(always)]
    fn scratch_reads(&self) -> bool {
        self.scratch.get() != 0
    }
    #[inline(always)]
    fn set_scratch_reads(&self, pending: bool) {
        self.scratch.set(pending as u32)
    }
    #[inline(always)]
    unsafe fn ld_shared(&self, byte_offset: u32, bytes: u32) -> [u32; 4] {
        let i = byte_offset / 4;
        match bytes {
            1 | 2 => [
                (*self.word(i) >> (8 * (byte_offset % 4))) & sub_word_mask(bytes),
                0,
                0,
                0,
            ],
            4 => [*self.word(i), 0, 0, 0],
            8 => [*self.word(i), *self.word(i + 1), 0, 0],
            _ => [
                *self.word(i),
                *self.word(i + 1),
                *self.word(i + 2),
                *self.word(i + 3),
            ],
        }
    }
}

/// The vector type of the compute built-ins (`LocalInvocationId`, ...), as rust-gpu requires.
#[cfg(target_arch = "spirv")]
pub use spirv_std::glam::UVec3;
/// spirv-std's entry-point attribute, which `#[kernel]` puts on the SPIR-V entry (it writes the
/// `rust_gpu` attribute of the codegen backend's version).
#[cfg(target_arch = "spirv")]
pub use spirv_std::spirv;
