//! Hopper's asynchronous units as a thread sees them ([`Hopper`]): `mbarrier`s, the tensor
//! memory accelerator's 2-D tile loads (`cp.async.bulk.tensor`, through a [`TensorMap`]) and
//! warpgroup MMAs (`wgmma.mma_async`, operands in shared memory behind matrix descriptors). A
//! separate trait from [`Thread`]: a GPU without these units has no faithful emulation of
//! them, so a kernel that needs them says so in its bound (`t: &impl Hopper`) and only the
//! nvptx backend and the simulator implement it.
//!
//! Addresses are byte offsets into the kernel's shared buffer, as everywhere else; descriptors
//! and the copy engine take absolute shared-window addresses ([`Hopper::shared_base`] plus
//! the offset), whose bits the swizzle patterns are functions of. [`operand_address`] is the
//! hardware's reading of a descriptor, shared by the simulator (which multiplies what it
//! reads) and [`crate::wgmma`]'s compile-time check of the descriptors it derives from a
//! layout.

use core::marker::PhantomData;

#[cfg(not(target_arch = "nvptx64"))]
use crate::global::HostBuffer;
use crate::mma::MmaKind;
use crate::thread::Thread;

/// How the copy engine and the tensor cores swizzle shared memory: the 16-byte chunk index
/// within each `bytes()`-byte row XORed with the row index (modulo 8), rows being `bytes()`
/// apart; `None`: no swizzle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Swizzle {
    /// No swizzle (TMA's `CU_TENSOR_MAP_SWIZZLE_NONE`; wgmma's interleaved core matrices).
    None,
    /// 32-byte rows.
    B32,
    /// 64-byte rows.
    B64,
    /// 128-byte rows (Triton's `nvmma_shared` with `swizzlingByteWidth = 128`).
    B128,
}

impl Swizzle {
    /// Row width in bytes (0 for `None`).
    pub const fn bytes(self) -> u32 {
        match self {
            Swizzle::None => 0,
            Swizzle::B32 => 32,
            Swizzle::B64 => 64,
            Swizzle::B128 => 128,
        }
    }
    /// The mode of rows of `bytes` bytes, if there is one.
    pub const fn of_bytes(bytes: u32) -> Option<Swizzle> {
        match bytes {
            0 => Some(Swizzle::None),
            32 => Some(Swizzle::B32),
            64 => Some(Swizzle::B64),
            128 => Some(Swizzle::B128),
            _ => None,
        }
    }
    /// Address `a` swizzled: bits `4..` XORed with bits `7..` (as many as the mode has). An
    /// involution: it also unswizzles.
    pub const fn apply(self, a: u32) -> u32 {
        match self {
            Swizzle::None => a,
            _ => a ^ (((a >> 7) & (self.bytes() / 16 - 1)) << 4),
        }
    }
    /// The alignment the pattern repeats at: a swizzled tile must start on it.
    pub const fn alignment(self) -> u32 {
        match self {
            Swizzle::None => 16,
            _ => 8 * self.bytes(),
        }
    }
    /// `CUtensorMapSwizzle`'s value.
    pub const fn tensor_map_code(self) -> u32 {
        match self {
            Swizzle::None => 0,
            Swizzle::B32 => 1,
            Swizzle::B64 => 2,
            Swizzle::B128 => 3,
        }
    }
    /// The wgmma descriptor's layout-type field (bits 62..64).
    const fn descriptor_code(self) -> u64 {
        match self {
            Swizzle::None => 0,
            Swizzle::B128 => 1,
            Swizzle::B64 => 2,
            Swizzle::B32 => 3,
        }
    }
    const fn of_descriptor_code(c: u64) -> Swizzle {
        match c & 3 {
            1 => Swizzle::B128,
            2 => Swizzle::B64,
            3 => Swizzle::B32,
            _ => Swizzle::None,
        }
    }
}

/// A wgmma matrix descriptor (PTX's "matrix descriptor"): start address, leading and stride
/// byte offsets (16-byte units), swizzle mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Descriptor {
    /// Shared-window address of the operand's first element (unswizzled), 16-byte aligned.
    pub start: u32,
    /// Leading byte offset: K-major without swizzle, between the two 16-byte halves of K;
    /// M/N-major with swizzle, between blocks of a swizzle row's elements along M/N.
    pub lbo: u32,
    /// Stride byte offset: between groups of 8 rows (K-major: of M/N; M/N-major: of K).
    pub sbo: u32,
    /// The swizzle mode the operand was written with.
    pub swizzle: Swizzle,
}

impl Descriptor {
    /// The 64-bit encoding (matrix base offset 0: swizzled tiles start on their pattern).
    pub const fn encode(self) -> u64 {
        ((self.start as u64 & 0x3ffff) >> 4)
            | (((self.lbo as u64 & 0x3ffff) >> 4) << 16)
            | (((self.sbo as u64 & 0x3ffff) >> 4) << 32)
            | (self.swizzle.descriptor_code() << 62)
    }
    /// The fields of an encoding.
    pub const fn decode(d: u64) -> Descriptor {
        Descriptor {
            start: ((d & 0x3fff) << 4) as u32,
            lbo: (((d >> 16) & 0x3fff) << 4) as u32,
            sbo: (((d >> 32) & 0x3fff) << 4) as u32,
            swizzle: Swizzle::of_descriptor_code(d >> 62),
        }
    }
}

/// The shared-window address the tensor cores read for element `(mn, k)` of an operand behind
/// descriptor `d` (elements of `eb` bytes; `mn_major`: the operand's M or N dimension is
/// contiguous, PTX's transposed form), per PTX's canonical layouts (CuTe's `make_gmma_desc`):
///
/// * K-major: rows of M/N `W` bytes apart (16 without swizzle), 8-row groups `sbo` apart, K
///   contiguous (without swizzle its 16-byte halves `lbo` apart);
/// * M/N-major: M/N contiguous in runs of `W` bytes, runs `lbo` apart (without swizzle: runs
///   of 16 bytes, `sbo` apart), rows of K `W` (16) bytes apart, 8-row groups `sbo` (`lbo`).
///
/// then swizzled on the absolute address.
pub const fn operand_address(d: Descriptor, mn_major: bool, eb: u32, mn: u32, k: u32) -> u32 {
    let w = d.swizzle.bytes();
    let lin = if !mn_major {
        let kb = k * eb;
        if w == 0 {
            d.start + (mn % 8) * 16 + (mn / 8) * d.sbo + (kb / 16) * d.lbo + kb % 16
        } else {
            d.start + (mn % 8) * w + (mn / 8) * d.sbo + kb
        }
    } else if w == 0 {
        let run = 16 / eb;
        d.start + (mn % run) * eb + (mn / run) * d.sbo + (k % 8) * 16 + (k / 8) * d.lbo
    } else {
        let run = w / eb;
        d.start + (mn % run) * eb + (mn / run) * d.lbo + (k % 8) * w + (k / 8) * d.sbo
    };
    d.swizzle.apply(lin)
}

/// The element format and operand orders of a `wgmma.mma_async` (f32 accumulate).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WgmmaOp {
    /// A's and B's format.
    pub kind: MmaKind,
    /// A is M-major in shared memory (PTX's `imm-trans-a = 1`).
    pub a_mn_major: bool,
    /// B is N-major (`imm-trans-b = 1`).
    pub b_mn_major: bool,
}

/// Thread `lane` of warp `warp % 4` of a warpgroup holds accumulator register `r` of a
/// `wgmma.m64nNk16` at `(row, col)`: rows `16 (warp % 4) + lane / 4` (+8), column pairs `2 (lane
/// % 4)` of every 8 columns, as `mma.m16n8` fragments side by side.
pub const fn accumulator_coord(warp: u32, lane: u32, r: u32) -> (u32, u32) {
    let (g, t) = (lane / 4, lane % 4);
    (
        16 * (warp % 4) + g + 8 * ((r / 2) % 2),
        8 * (r / 4) + 2 * t + r % 2,
    )
}

/// Hopper's asynchronous units (sm_90; wgmma needs sm_90a). Every method's shared addresses
/// are byte offsets into the kernel's shared buffer; an mbarrier is 8 bytes, 8-aligned.
///
/// # Safety
/// Implementing it: as [`Thread`]'s; [`Hopper::shared_base`] is the shared-window address of
/// byte 0 of the kernel's dynamic shared memory (tiles are checked aligned by it); and
/// [`Hopper::wgmma_commit`], [`Hopper::wgmma_wait`] and [`Hopper::wgmma_fence_operand`] do what
/// their docs say (safe code reads an accumulator once `wgmma_wait` returns:
/// [`Pending`](crate::Pending)).
#[allow(unsafe_code)]
pub unsafe trait Hopper: Thread {
    /// The shared-window address of byte offset 0 of the kernel's shared buffer: swizzled
    /// tiles must start where `shared_base() + offset` is a multiple of the pattern's
    /// [`Swizzle::alignment`].
    fn shared_base(&self) -> u32;

    /// `mbarrier.init`: the barrier at `bar` expects `count` arrivals per phase (one thread
    /// initialises it; [`Hopper::fence_mbarrier_init`] and a CTA barrier publish it). Safe
    /// code uses an [`MBarrier`](crate::MBarrier), checked where it is made.
    ///
    /// # Safety
    /// `bar` is a multiple of 8 and its 8 bytes lie inside the kernel's dynamic shared memory
    /// (this and every `bar` below); nothing but mbarrier operations touches them.
    unsafe fn mbarrier_init(&self, bar: u32, count: u32);
    /// `fence.mbarrier_init.release.cluster`: this thread's initialisations become visible to
    /// the copy engine and (after a barrier) to other threads.
    fn fence_mbarrier_init(&self);
    /// `mbarrier.arrive`: one of the phase's arrivals; it releases this thread's earlier
    /// memory accesses to whoever waits for the phase.
    ///
    /// # Safety
    /// As [`Hopper::mbarrier_init`]'s, and the barrier's initialisation is visible to this
    /// thread (this and the waits below).
    unsafe fn mbarrier_arrive(&self, bar: u32);
    /// `mbarrier.arrive.expect_tx`: the phase also waits for `bytes` more bytes of async
    /// copies to land, then this thread arrives.
    ///
    /// # Safety
    /// As [`Hopper::mbarrier_arrive`]'s.
    unsafe fn mbarrier_arrive_expect_tx(&self, bar: u32, bytes: u32);
    /// `mbarrier.try_wait.parity`: whether the phase of parity `parity` (the barrier's phases
    /// alternate 0, 1, 0, ...) has completed; when it has, what its arrivals and copies wrote
    /// is visible to this thread. On a fresh barrier (phase 0 under way) parity 1 counts as
    /// completed: a producer waiting for "empty" stages passes its first round at once.
    ///
    /// # Safety
    /// As [`Hopper::mbarrier_arrive`]'s.
    unsafe fn mbarrier_try_wait(&self, bar: u32, parity: u32) -> bool;
    /// Wait until [`Hopper::mbarrier_try_wait`] says the phase has completed.
    ///
    /// # Safety
    /// As [`Hopper::mbarrier_arrive`]'s.
    #[inline(always)]
    unsafe fn mbarrier_wait(&self, bar: u32, parity: u32) {
        // SAFETY: the caller's contract.
        while !unsafe { self.mbarrier_try_wait(bar, parity) } {}
    }

    /// `cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes`: the copy
    /// engine loads the box of `map` at `coords` (`[row, col]`, col contiguous) to shared `dst`
    /// (aligned to the map's swizzle pattern), swizzled as the map says, and completes that
    /// many bytes of the current phase's transaction count of `bar`. One thread issues it.
    /// Safe code loads a [`SharedTile`](crate::SharedTile) ([`TmaTile::load`](crate::TmaTile::load)).
    ///
    /// # Safety
    /// The box's bytes from `dst` lie inside the kernel's dynamic shared memory, and
    /// `shared_base() + dst` is a multiple of 128 and of the map's swizzle pattern; `bar` is an
    /// initialised mbarrier's offset inside it; the map was encoded with the box and swizzle
    /// the destination is laid out for (`TmaTile::BOX`, `TmaTile::SWIZZLE`).
    unsafe fn tma_load_2d<E: crate::Element>(
        &self,
        dst: u32,
        map: &TensorMap<'_, E>,
        coords: [u32; 2],
        bar: u32,
    );
    /// `fence.proxy.async.shared::cta`: this thread's ordinary shared stores become visible to
    /// the copy engine and the tensor cores (after a barrier, for other threads' issues).
    fn fence_proxy_async(&self);
    /// `bar.sync id, threads`: a named barrier, [`Thread::sync_block`] for the `threads`
    /// threads (a multiple of the warp size) that use id `id` (1 to 15; each set of threads
    /// its own id): what they wrote before is visible to them after. A warp-specialised
    /// partition's barrier ([`Partition`](crate::Partition)). Any NVIDIA GPU has them; they
    /// are here because only nvptx and the simulator implement this trait.
    fn bar_sync(&self, id: u32, threads: u32);

    /// `wgmma.fence.sync.aligned`: accumulator registers written since are ready for the next
    /// wgmma (before a warpgroup's first wgmma and after touching its accumulators).
    fn wgmma_fence(&self);
    /// `wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}`: the warpgroup (4 consecutive
    /// warps from a multiple of 4, all issuing together) computes `acc = A · B (+ acc if
    /// accumulate)` for A 64x16 and B 16xN from shared memory behind descriptors `a` and `b`;
    /// `acc` is this thread's `N / 2` accumulators ([`accumulator_coord`]), N 64, 128 or 256.
    /// It runs asynchronously: the operands' shared memory must not change, and `acc` must not
    /// be read, until [`Hopper::wgmma_wait`] says its group is complete. Safe code multiplies
    /// [`SharedTile`](crate::SharedTile)s.
    ///
    /// # Safety
    /// The descriptors' tiles lie inside the kernel's dynamic shared memory, aligned to their
    /// swizzle pattern; until [`Hopper::wgmma_wait`] says the group completed, nothing but
    /// further wgmmas touches `acc` and nothing writes the tiles.
    unsafe fn wgmma(&self, op: WgmmaOp, a: u64, b: u64, acc: &mut [f32], accumulate: bool);
    /// [`Hopper::wgmma`] with A from registers: each warp `w % 4` of the warpgroup gives rows
    /// `16 (w % 4)..+16` of A's 64x16 in `a`, as `mma.m16n8k16`'s A fragment (lane `4g + t`:
    /// rows `g`, `g + 8`, columns `2t`, `2t + 1`, `+8`; see [`Thread::mma_m16n8k16`]);
    /// `op.a_mn_major` is false. The registers of `a` must not change until the group completes.
    ///
    /// [`Thread::mma_m16n8k16`]: crate::Thread::mma_m16n8k16
    ///
    /// # Safety
    /// As [`Hopper::wgmma`]'s, and the registers of `a` stay as they are until the group
    /// completes.
    unsafe fn wgmma_rs(&self, op: WgmmaOp, a: [u32; 4], b: u64, acc: &mut [f32], accumulate: bool);
    /// Keep the compiler's accesses to accumulators `acc` on their side of this point: after a
    /// [`Hopper::wgmma_wait`], so that no read of `acc` moves before the wait (the registers
    /// are the compiler's to schedule; only the wait says when the tensor cores wrote them).
    fn wgmma_fence_operand(&self, acc: &mut [f32]) {
        let _ = acc;
    }
    /// `wgmma.commit_group.sync.aligned`: the wgmmas issued since the last commit form a group.
    fn wgmma_commit(&self);
    /// `wgmma.wait_group.sync.aligned PENDING`: wait until at most `PENDING` of this
    /// warpgroup's groups are in flight.
    fn wgmma_wait<const PENDING: u32>(&self);
}

/// A 2-D global tensor as the copy engine reads it (a `CUtensorMap`): the tensor's shape
/// `[rows, cols]` (cols contiguous), the box one copy moves and its swizzle. A kernel parameter:
/// on the GPU the device address of the map (`layout-launch` encodes it with
/// `cuTensorMapEncodeTiled` and uploads it), on the host either that or the tensor itself in
/// host memory ([`TensorMap::host`], what the simulator's copy engine reads).
#[repr(transparent)]
pub struct TensorMap<'a, E> {
    #[cfg(target_arch = "nvptx64")]
    map: *const u8,
    #[cfg(not(target_arch = "nvptx64"))]
    map: MapBacking<'a>,
    elem: PhantomData<&'a [E]>,
}

impl<E> Clone for TensorMap<'_, E> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<E> Copy for TensorMap<'_, E> {}

/// On the host: a device map's address, or a tensor in host memory.
#[cfg(not(target_arch = "nvptx64"))]
#[derive(Clone, Copy)]
enum MapBacking<'a> {
    Device(*const u8),
    Host(HostTensorMap<'a>),
}

/// What a copy engine on the host reads: the tensor in host memory, row-major `shape`, copied
/// in boxes of `box_shape` swizzled by `swizzle`.
#[cfg(not(target_arch = "nvptx64"))]
#[derive(Clone, Copy)]
pub struct HostTensorMap<'a> {
    /// The tensor's elements.
    pub mem: &'a dyn HostBuffer,
    /// `[rows, cols]`, cols contiguous.
    pub shape: [u32; 2],
    /// The box one copy moves, `[rows, cols]`.
    pub box_shape: [u32; 2],
    /// How the box lands in shared memory.
    pub swizzle: Swizzle,
}

#[cfg(not(target_arch = "nvptx64"))]
impl<'a, E> TensorMap<'a, E> {
    /// The row-major `shape` tensor in `mem`, copied in boxes of `box_shape` swizzled by
    /// `swizzle`: what the host's `cuTensorMapEncodeTiled` describes on the GPU.
    pub fn host(
        mem: &'a dyn HostBuffer,
        shape: [u32; 2],
        box_shape: [u32; 2],
        swizzle: Swizzle,
    ) -> Self {
        TensorMap {
            map: MapBacking::Host(HostTensorMap {
                mem,
                shape,
                box_shape,
                swizzle,
            }),
            elem: PhantomData,
        }
    }
    /// The tensor in host memory, if this map was made by [`TensorMap::host`].
    pub fn host_map(&self) -> Option<&HostTensorMap<'a>> {
        match &self.map {
            MapBacking::Host(m) => Some(m),
            MapBacking::Device(_) => None,
        }
    }
}

#[allow(unsafe_code)]
impl<E> TensorMap<'_, E> {
    /// The map at device address `p` (a 64-byte aligned `CUtensorMap` in global memory).
    ///
    /// # Safety
    /// `p` must hold a map encoded for a tensor of `E` that outlives the kernel.
    #[inline(always)]
    pub unsafe fn from_ptr(p: *const u8) -> Self {
        TensorMap {
            #[cfg(target_arch = "nvptx64")]
            map: p,
            #[cfg(not(target_arch = "nvptx64"))]
            map: MapBacking::Device(p),
            elem: PhantomData,
        }
    }
    /// The map's generic address (what `cp.async.bulk.tensor` takes; 0 for a map in host
    /// memory, which has none).
    #[inline(always)]
    pub fn address(&self) -> u64 {
        #[cfg(target_arch = "nvptx64")]
        return self.map as u64;
        #[cfg(not(target_arch = "nvptx64"))]
        match self.map {
            MapBacking::Device(p) => p as u64,
            MapBacking::Host(_) => 0,
        }
    }
}

/// Inside `impl Hopper for Wrapper`: every method, calling the same method of the wrapped
/// thread `self.t`.
macro_rules! forward_hopper {
    () => {
        #[inline(always)]
        fn shared_base(&self) -> u32 {
            self.t.shared_base()
        }
        #[inline(always)]
        #[allow(unsafe_code)]
        unsafe fn mbarrier_init(&self, bar: u32, count: u32) {
            // SAFETY: the caller's contract, for the same shared memory.
            unsafe { self.t.mbarrier_init(bar, count) }
        }
        #[inline(always)]
        fn fence_mbarrier_init(&self) {
            self.t.fence_mbarrier_init()
        }
        #[inline(always)]
        #[allow(unsafe_code)]
        unsafe fn mbarrier_arrive(&self, bar: u32) {
            // SAFETY: the caller's contract, for the same shared memory.
            unsafe { self.t.mbarrier_arrive(bar) }
        }
        #[inline(always)]
        #[allow(unsafe_code)]
        unsafe fn mbarrier_arrive_expect_tx(&self, bar: u32, bytes: u32) {
            // SAFETY: the caller's contract, for the same shared memory.
            unsafe { self.t.mbarrier_arrive_expect_tx(bar, bytes) }
        }
        #[inline(always)]
        #[allow(unsafe_code)]
        unsafe fn mbarrier_try_wait(&self, bar: u32, parity: u32) -> bool {
            // SAFETY: the caller's contract, for the same shared memory.
            unsafe { self.t.mbarrier_try_wait(bar, parity) }
        }
        #[inline(always)]
        #[allow(unsafe_code)]
        unsafe fn mbarrier_wait(&self, bar: u32, parity: u32) {
            // SAFETY: the caller's contract, for the same shared memory.
            unsafe { self.t.mbarrier_wait(bar, parity) }
        }
        #[inline(always)]
        #[allow(unsafe_code)]
        unsafe fn tma_load_2d<E: crate::Element>(
            &self,
            dst: u32,
            map: &crate::hopper::TensorMap<'_, E>,
            coords: [u32; 2],
            bar: u32,
        ) {
            // SAFETY: the caller's contract, for the same shared memory.
            unsafe { self.t.tma_load_2d(dst, map, coords, bar) }
        }
        #[inline(always)]
        fn fence_proxy_async(&self) {
            self.t.fence_proxy_async()
        }
        #[inline(always)]
        #[track_caller]
        fn bar_sync(&self, id: u32, threads: u32) {
            self.t.bar_sync(id, threads)
        }
        #[inline(always)]
        fn wgmma_fence(&self) {
            self.t.wgmma_fence()
        }
        #[inline(always)]
        #[allow(unsafe_code)]
        unsafe fn wgmma(
            &self,
            op: crate::hopper::WgmmaOp,
            a: u64,
            b: u64,
            acc: &mut [f32],
            accumulate: bool,
        ) {
            // SAFETY: the caller's contract, for the same shared memory.
            unsafe { self.t.wgmma(op, a, b, acc, accumulate) }
        }
        #[inline(always)]
        #[allow(unsafe_code)]
        unsafe fn wgmma_rs(
            &self,
            op: crate::hopper::WgmmaOp,
            a: [u32; 4],
            b: u64,
            acc: &mut [f32],
            accumulate: bool,
        ) {
            // SAFETY: the caller's contract, for the same shared memory.
            unsafe { self.t.wgmma_rs(op, a, b, acc, accumulate) }
        }
        #[inline(always)]
        fn wgmma_fence_operand(&self, acc: &mut [f32]) {
            self.t.wgmma_fence_operand(acc)
        }
        #[inline(always)]
        fn wgmma_commit(&self) {
            self.t.wgmma_commit()
        }
        #[inline(always)]
        fn wgmma_wait<const PENDING: u32>(&self) {
            self.t.wgmma_wait::<PENDING>()
        }
    };
}
pub(crate) use forward_hopper;
