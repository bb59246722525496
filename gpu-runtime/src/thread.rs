//! The per-thread context generated code talks to: where the thread is, warp shuffles, barriers
//! and shared memory. Backends: [`crate::nvptx`] on the GPU, `linear_layouts::sim` (the `gpu-sim` crate) on the CPU.

/// What a simulated thread knows of its launch ([`Thread::launch_shape`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchShape {
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: u32,
    /// Lanes per warp.
    pub warp_size: u32,
    /// CTAs per cluster (1: no clusters).
    pub cluster_ctas: u32,
}

/// One GPU thread, as generated code sees it.
///
/// Shuffles move 32-bit words (wider values are split, narrower ones packed by the caller).
/// Shared memory is addressed in bytes; accesses of 1, 2, 4, 8 or 16 bytes must be aligned to
/// their size, as on the GPU.
///
/// A backend implements the core (ids, shuffles, warp and CTA barriers, shared memory) and only
/// the capabilities its hardware has: the others have default methods built on the core, correct
/// for a GPU without them (a cluster of one CTA; matrix loads and stores as shuffles of row
/// addresses and 2-byte accesses). The planner never uses an instruction its
/// [`Target`](layout_plan::Target) lacks, so those defaults only keep every plan runnable.
///
/// # Safety of the shared-memory methods
/// The methods that take a raw shared-memory byte offset ([`Thread::st_shared`],
/// [`Thread::ld_shared`], their `_cluster` forms, [`Thread::ldmatrix`], [`Thread::stmatrix`],
/// [`Thread::cp_async`]) are `unsafe`: the GPU checks neither the offset nor who else touches
/// those bytes. The caller promises that every byte accessed lies inside the kernel's dynamic
/// shared memory (the `shared` bytes of its `#[kernel]`; for a `_cluster` form, that of CTA
/// `cta` of this cluster), that the access is aligned to its size, and that no other thread
/// writes those bytes, or reads bytes this access writes, without a barrier ordering the two.
/// The simulator checks all three and reports any breach as an issue. Collective operations
/// (`convert!`, reductions, scans) keep the promise with the offsets of their plans.
///
/// # Safety
/// Implementing it is `unsafe`: safe code's memory safety on the GPU rests on what an
/// implementation says. [`Thread::SHARED_BYTES`], when `Some(n)`, is at most the dynamic shared
/// memory the launch gives the CTA (shared-memory handles and the scratch of collective
/// operations are checked against it); [`Thread::lane`] is below the warp size and [`Thread::warp`] below the warps of
/// the threads that run the same collective operations (their scratch offsets come from
/// them); [`Thread::sync_block`] orders those threads' shared accesses; [`Thread::block`],
/// [`Thread::block_idx`] and [`Thread::grid_dim`] are the launch's (partitioned outputs give
/// each CTA its own part by them, and the launcher checked the grid); [`Thread::BLOCK_THREADS`],
/// when `Some(n)`, is above every thread's [`Thread::thread_idx`]`()[0]` (a partitioned store
/// skips its test of the thread by it). The backends' threads
/// and `#[kernel]`'s keep it; a wrapper that forwards these to a thread it holds keeps that
/// thread's.
#[allow(unsafe_code)]
pub unsafe trait Thread {
    /// The dynamic shared memory of the kernel this thread runs, in bytes (the `shared = ..` of
    /// its `#[kernel]`), where it is known at compile time: the thread `#[kernel]` gives its
    /// body on the GPU and on the simulator. Conversions, reductions and scans assert that
    /// their scratch (from offset 0) fits in it when they are compiled, an error naming both
    /// sizes, and shared stores, loads and async copies that their layout does. A
    /// [`SharedWindow`] has its own. `None`: not known here (a thread made by hand); the
    /// simulator still checks every access against the launch's bytes.
    ///
    /// [`SharedWindow`]: crate::SharedWindow
    const SHARED_BYTES: Option<u32> = None;
    /// Whether this thread sees one role of a warp-specialised CTA (a
    /// [`Partition`](crate::Partition): its warps and barrier the role's, not the CTA's).
    /// Set-up that the whole CTA does together, such as
    /// [`MBarriers::init`](crate::MBarriers::init), refuses it at compile time.
    const PARTITION: bool = false;
    /// A bound on every thread's `thread_idx()[0]` (the block's threads along x, the
    /// `block = ..` of its `#[kernel]`), where known at compile time: the thread `#[kernel]`
    /// gives its body on the GPU, and wrappers that keep its indices. A partitioned store
    /// whose layout spreads over fewer threads than a block's stores from the first ones
    /// only, and tests the thread for it only where the block may be larger. `None`: not
    /// known (the simulator's threads, which run any block; a [`Partition`](crate::Partition),
    /// whose threads are a role's).
    const BLOCK_THREADS: Option<u32> = None;
    /// The launch's shape where the thread knows it at run time (the simulator's threads): a
    /// `#[kernel]` body run off the GPU checks it against what the kernel declares. `None` on
    /// the GPU, whose launcher gives every launch the spec's.
    fn launch_shape(&self) -> Option<LaunchShape> {
        None
    }
    /// Lane within the warp.
    fn lane(&self) -> u32;
    /// Warp within the CTA: the thread's linear index in its block (x fastest, as CUDA numbers
    /// the threads of a 2-D or 3-D block into warps) divided by the warp size.
    fn warp(&self) -> u32;
    /// The block's index in the grid along x (`%ctaid.x`): [`Thread::block_idx`]`()[0]`.
    fn block(&self) -> u32;
    /// The thread's index in its block, x first (`%tid.{x,y,z}`).
    fn thread_idx(&self) -> [u32; 3];
    /// The block's shape, x first (`%ntid.{x,y,z}`).
    fn block_dim(&self) -> [u32; 3];
    /// The block's index in the grid, x first (`%ctaid.{x,y,z}`).
    fn block_idx(&self) -> [u32; 3];
    /// The grid's shape in blocks, x first (`%nctaid.{x,y,z}`).
    fn grid_dim(&self) -> [u32; 3];
    /// `shfl.sync.idx`: the value `v` of lane `src_lane` (taken modulo the warp size).
    fn shfl_idx(&self, v: u32, src_lane: u32) -> u32;
    /// `shfl.sync.bfly`: the value `v` of lane `lane ^ mask`.
    fn shfl_xor(&self, v: u32, mask: u32) -> u32;
    /// `redux.sync` over the 32 lanes of a warp: `op` of every lane's `v`, which every lane
    /// receives (sm_80 and later; a warp of 32 lanes). Without the instruction: butterflies of
    /// [`Thread::shfl_xor`].
    #[inline(always)]
    fn redux(&self, op: crate::redux::Redux, v: u32) -> u32 {
        let mut acc = v;
        let mut mask = 1;
        while mask < 32 {
            acc = op.apply(acc, self.shfl_xor(acc, mask));
            mask <<= 1;
        }
        acc
    }
    /// `bar.warp.sync`: the warp's lanes meet.
    fn sync_warp(&self);
    /// `bar.sync 0`: the CTA's threads meet; shared memory written before is visible after.
    /// Implementations also clear [`Thread::scratch_reads`]: every load before it is done.
    fn sync_block(&self);
    /// Store the low `bytes` bytes of `words` (1, 2, 4, 8 or 16 bytes) at `byte_offset`.
    ///
    /// # Safety
    /// The shared-memory contract of [`Thread`]: in bounds, aligned, ordered.
    unsafe fn st_shared(&self, byte_offset: u32, bytes: u32, words: [u32; 4]);
    /// Load `bytes` bytes (1, 2, 4, 8 or 16) from `byte_offset`, zero-extended into words.
    ///
    /// # Safety
    /// The shared-memory contract of [`Thread`]: in bounds, aligned, ordered.
    unsafe fn ld_shared(&self, byte_offset: u32, bytes: u32) -> [u32; 4];
    /// Whether another thread may still be loading what a collective operation staged in the
    /// shared scratch (`convert!`'s shared stages, cross-warp reductions and scans, all from
    /// offset 0), as this thread has seen it: Triton's membar rule, kept per thread since every
    /// thread runs the same sequence of collective operations. A field of the thread, cleared by
    /// its [`Thread::sync_block`]; wrappers forward their inner thread's.
    fn scratch_reads(&self) -> bool;
    /// Sets [`Thread::scratch_reads`].
    fn set_scratch_reads(&self, pending: bool);

    /// Before a collective operation stores to the scratch: a CTA barrier (this thread's
    /// [`Thread::sync_block`]) if an earlier operation's loads may still be pending, else
    /// nothing. So two conversions or reductions in a row need no barrier by hand, and the
    /// first of a kernel costs none.
    #[inline(always)]
    #[track_caller]
    fn scratch_write_begin(&self) {
        // The barrier clears the record (see `sync_block`).
        if self.scratch_reads() {
            self.sync_block();
        }
    }
    /// After a collective operation's loads from the scratch: the next store waits for them.
    /// Shared memory the kernel writes by other means over the scratch also needs a
    /// [`Thread::sync_block`] first.
    #[inline(always)]
    fn scratch_reads_pending(&self) {
        self.set_scratch_reads(true);
    }

    /// `x`, through an optimisation barrier: on the GPU the compiler cannot see that the result
    /// is `x`, so it computes what depends on the result from it again instead of reusing (and
    /// keeping in registers) what it computed from `x` before. [`Reread`](crate::Reread) passes
    /// the thread's ids through it. Elsewhere (the simulator, SPIR-V) it is `x`.
    #[inline(always)]
    fn opaque(&self, x: u32) -> u32 {
        x
    }

    /// The thread's index in the whole grid along x, `block_idx.x * block_dim.x + thread_idx.x`
    /// (Rust-CUDA's `index_1d`): the element a grid-stride loop starts at.
    #[inline(always)]
    fn index_1d(&self) -> u32 {
        self.block_idx()[0] * self.block_dim()[0] + self.thread_idx()[0]
    }
    /// Threads in the whole grid along x: a grid-stride loop's stride.
    #[inline(always)]
    fn grid_threads_1d(&self) -> u32 {
        self.grid_dim()[0] * self.block_dim()[0]
    }

    /// This CTA's rank in its cluster (`%cluster_ctarank`): the `block` index of Triton's
    /// multi-CTA layouts. Without clusters: 0.
    fn cta_rank(&self) -> u32 {
        0
    }
    /// `barrier.cluster.arrive` + `barrier.cluster.wait`: every thread of every CTA of the
    /// cluster meets; shared memory of any CTA written before is visible after, and no CTA runs
    /// ahead (or exits) while others still read its shared memory. Without clusters: the CTA's
    /// barrier.
    #[track_caller]
    fn sync_cluster(&self) {
        self.sync_block()
    }
    /// [`Thread::st_shared`] into the shared memory of CTA `cta` of the cluster (distributed
    /// shared memory: `mapa` + `st.shared::cluster`). Without clusters `cta` is this CTA (0).
    ///
    /// # Safety
    /// The shared-memory contract of [`Thread`]: in bounds, aligned, ordered.
    unsafe fn st_shared_cluster(&self, cta: u32, byte_offset: u32, bytes: u32, words: [u32; 4]) {
        let _ = cta;
        // SAFETY: the caller's promise, for this CTA's shared memory.
        unsafe { self.st_shared(byte_offset, bytes, words) }
    }
    /// [`Thread::ld_shared`] from the shared memory of CTA `cta` of the cluster (`mapa` +
    /// `ld.shared::cluster`). Without clusters `cta` is this CTA (0).
    ///
    /// # Safety
    /// The shared-memory contract of [`Thread`]: in bounds, aligned, ordered.
    unsafe fn ld_shared_cluster(&self, cta: u32, byte_offset: u32, bytes: u32) -> [u32; 4] {
        let _ = cta;
        // SAFETY: the caller's promise, for this CTA's shared memory.
        unsafe { self.ld_shared(byte_offset, bytes) }
    }
    /// `ldmatrix.sync.aligned.m8n8.x{count}[.trans].shared.b16` (32-lane warps; `count` 1, 2
    /// or 4): lane `8q + r` gives the address of row `r` of matrix `q < count` (8 halves, 16
    /// bytes; the other lanes' addresses are ignored); lane `L` gets in word `q` the halves at
    /// row `L / 4`, columns `2 (L % 4)` and `+1` (transposed: rows `2 (L % 4)` and `+1`, column
    /// `L / 4`). Words from `count` on are zero. The default: each half through a shuffle of its
    /// row's address.
    ///
    /// # Safety
    /// The shared-memory contract of [`Thread`]: in bounds, aligned, ordered.
    unsafe fn ldmatrix(&self, count: u32, row_addr: u32, trans: bool) -> [u32; 4] {
        // Index loops, not iterators: SPIR-V has no slices of arrays.
        let mut out = [0u32; 4];
        let mut q = 0;
        while q < count.min(4) {
            for h in 0..2 {
                let (src, off) = matrix_slot(self.lane(), q, h, trans);
                let addr = self.shfl_idx(row_addr, src);
                // SAFETY: the rows the caller promised, one half at a time.
                let half = unsafe { self.ld_shared(addr + off, 2) }[0];
                out[q as usize] |= (half & 0xffff) << (16 * h);
            }
            q += 1;
        }
        out
    }
    /// `stmatrix.sync.aligned.m8n8.x{count}[.trans].shared.b16`: the inverse of
    /// [`Thread::ldmatrix`] (words from `count` on are not stored). The default: each half
    /// through a shuffle of its row's address.
    ///
    /// # Safety
    /// The shared-memory contract of [`Thread`]: in bounds, aligned, ordered.
    unsafe fn stmatrix(&self, count: u32, row_addr: u32, trans: bool, words: [u32; 4]) {
        let mut q = 0;
        while q < count.min(4) {
            let w = words[q as usize];
            for h in 0..2 {
                let (dst, off) = matrix_slot(self.lane(), q, h, trans);
                let addr = self.shfl_idx(row_addr, dst);
                // SAFETY: the rows the caller promised, one half at a time.
                unsafe { self.st_shared(addr + off, 2, [(w >> (16 * h)) & 0xffff, 0, 0, 0]) };
            }
            q += 1;
        }
    }
    /// `cp.async.{ca,cg}.shared.global`: copy `bytes` (4, 8 or 16) from `src` (made by
    /// [`Global::copy_to_shared`](crate::Global::copy_to_shared)) to shared `byte_offset`
    /// (aligned to `bytes`) without passing through registers. The copy lands at some point
    /// before the [`Thread::cp_async_wait`] that waits for its group; reading those bytes
    /// earlier is an error (the simulator reports it). The default copies at once, which is a
    /// correct schedule for a GPU without async copies.
    ///
    /// # Safety
    /// The shared-memory contract of [`Thread`]: in bounds, aligned, ordered.
    unsafe fn cp_async(&self, byte_offset: u32, bytes: u32, src: CopySource) {
        // SAFETY: the caller's promise.
        unsafe { self.st_shared(byte_offset, bytes, src.read(bytes)) }
    }
    /// `cp.async.commit_group`: the async copies issued since the last commit form a group.
    fn cp_async_commit(&self) {}
    /// `cp.async.wait_group PENDING`: wait until at most `PENDING` of this thread's committed
    /// groups are still in flight (the newest ones). Other threads see the copies only after a
    /// barrier that follows.
    fn cp_async_wait<const PENDING: u32>(&self) {}

    /// `mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32` (32-lane warps):
    /// `D = A · B + C` for the warp's 16x16 `A`, 16x8 `B` and 16x8 `C`. Lane `4g + t` holds in
    /// `a` the halves at rows `g`, `g + 8` and columns `2t`, `2t + 1`, `2t + 8`, `2t + 9`
    /// (words: row g cols 2t.., row g+8, row g cols +8, row g+8 cols +8; low half first), in `b`
    /// rows `2t`, `2t + 1` (word 0) and `+8` (word 1) of column `g`, in `c` and the result rows
    /// `g`, `g + 8` of columns `2t`, `2t + 1`. The default: the operands gathered by shuffles and
    /// multiplied in f32, K in order, then `C` added (the hardware's order of summation is
    /// unspecified; results agree to f32 rounding).
    fn mma_m16n8k16(
        &self,
        kind: crate::tensor_core::MmaKind,
        a: [u32; 4],
        b: [u32; 2],
        c: [f32; 4],
    ) -> [f32; 4] {
        let (a_of, b_of) = (
            |w: usize, l: u32| self.shfl_idx(a[w], l),
            |w: usize, l: u32| self.shfl_idx(b[w], l),
        );
        crate::tensor_core::m16n8k16_lane(kind, self.lane(), a_of, b_of, c)
    }
}

/// Where an async copy reads: on the GPU a global address, elsewhere the bytes themselves
/// (read when the copy is issued: global memory a kernel reads does not change under it).
/// Only [`Global::copy_to_shared`](crate::Global::copy_to_shared) makes one, so a copy's
/// source is always inside a kernel's tensor.
#[derive(Clone, Copy, Debug)]
pub struct CopySource(
    #[cfg(target_arch = "nvptx64")] u64,
    #[cfg(not(target_arch = "nvptx64"))] [u32; 4],
);

impl CopySource {
    /// The bytes, in little-endian words.
    #[cfg(not(target_arch = "nvptx64"))]
    #[inline(always)]
    pub(crate) fn from_words(w: [u32; 4]) -> Self {
        CopySource(w)
    }
    /// The global (generic) address of the bytes.
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    pub(crate) fn from_global(addr: u64) -> Self {
        CopySource(addr)
    }
    /// The global address, on the GPU.
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    pub(crate) fn global(self) -> u64 {
        self.0
    }
    /// The `bytes` (4, 8 or 16) bytes, in little-endian words (the rest zero).
    #[inline(always)]
    pub fn read(self, bytes: u32) -> [u32; 4] {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            // Read at issue, `bytes` of them.
            let _ = bytes;
            self.0
        }
        #[cfg(target_arch = "nvptx64")]
        {
            let mut w = [0u32; 4];
            let mut i = 0;
            while i < (bytes / 4).min(4) as usize {
                // SAFETY: `Global::copy_to_shared` made the address inside its tensor, `bytes`
                // long and aligned (`Global::from_ptr`'s contract).
                #[allow(unsafe_code)]
                {
                    w[i] = unsafe { (self.0 as *const u32).add(i).read() };
                }
                i += 1;
            }
            w
        }
    }
}

/// Where half `h` of word `q` of lane `lane` lives in an `ldmatrix`/`stmatrix`: the lane whose
/// address holds its row, and the byte offset from that address.
#[inline(always)]
pub fn matrix_slot(lane: u32, q: u32, h: u32, trans: bool) -> (u32, u32) {
    if trans {
        (8 * q + 2 * (lane % 4) + h, 2 * (lane / 4))
    } else {
        (8 * q + lane / 4, 4 * (lane % 4) + 2 * h)
    }
}

/// `cond ? a : b` without a branch (what generated code calls a select).
#[inline(always)]
pub fn select(cond: bool, a: u32, b: u32) -> u32 {
    if cond {
        a
    } else {
        b
    }
}

/// Whether bytes `offset..offset + bytes` lie inside the dynamic shared memory `T`'s kernel
/// declares: the one bounds rule of the shared-memory handles ([`SharedTiles`],
/// [`MBarriers`]), whose constructors also assert [`declares_at_least`] at compile time. A
/// thread that does not know its bytes is on the simulator, which checks every access itself
/// (a GPU thread must know them: a compile error otherwise).
///
/// [`SharedTiles`]: crate::SharedTiles
/// [`MBarriers`]: crate::MBarriers
#[inline(always)]
#[cfg_attr(target_arch = "spirv", allow(dead_code))]
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
        None => offset.checked_add(bytes).is_some(),
    }
}

/// Whether a kernel declaring `have` shared bytes (`None`: not known here) has room for
/// `bytes`: a handle's compile-time check, before [`inside_declared`] places it.
#[cfg_attr(target_arch = "spirv", allow(dead_code))]
pub(crate) const fn declares_at_least(have: Option<u32>, bytes: u32) -> bool {
    match have {
        Some(have) => bytes <= have,
        None => true,
    }
}

/// What a collective operation on the scratch is, for [`scratch_fits`]'s message: `op` of
/// `layout`, along `dim` or to `to` (empty: none).
pub(crate) struct ScratchUse<'a> {
    pub(crate) op: &'a str,
    pub(crate) layout: &'a str,
    pub(crate) dim: Option<u32>,
    pub(crate) to: &'a str,
}

/// Panics (at compile time, in a const) if `need` bytes of scratch for `what` do not fit in
/// `have`, a kernel's declared shared memory ([`Thread::SHARED_BYTES`]).
pub(crate) const fn scratch_fits(have: Option<u32>, need: u32, what: ScratchUse) {
    let Some(have) = have else { return };
    if need <= have {
        return;
    }
    let mut m = layout_plan::msg::Msg::new();
    m.push(what.op).push(" of `").push(what.layout).push("`");
    if let Some(d) = what.dim {
        m.push(" along dim ").num(d);
    }
    if !what.to.is_empty() {
        m.push(" to `").push(what.to).push("`");
    }
    m.push(" needs ")
        .num(need)
        .push(" bytes of shared memory (its scratch, from offset 0), but the kernel declares ")
        .num(have)
        .push(": write `#[kernel(shared = ..)]` with at least ")
        .num(need)
        .push(" (the largest need of its conversions, reductions and scans)");
    panic!("{}", m.as_str());
}

/// Inside `impl Thread for Wrapper`: the listed methods, each calling the same method of the
/// wrapped thread `self.t` (a wrapper overrides the rest, e.g. [`SharedWindow`]'s addresses or
/// [`Partition`]'s warps and barrier).
///
/// [`SharedWindow`]: crate::SharedWindow
/// [`Partition`]: crate::Partition
macro_rules! forward_thread {
    ($($name:ident),* $(,)?) => { $(crate::thread::forward_thread!(@ $name);)* };
    (@ shared_bytes) => { const SHARED_BYTES: Option<u32> = T::SHARED_BYTES; };
    (@ partition) => { const PARTITION: bool = T::PARTITION; };
    (@ block_threads) => { const BLOCK_THREADS: Option<u32> = T::BLOCK_THREADS; };
    (@ lane) => { #[inline(always)] fn lane(&self) -> u32 { self.t.lane() } };
    (@ opaque) => { #[inline(always)] fn opaque(&self, x: u32) -> u32 { self.t.opaque(x) } };
    (@ warp) => { #[inline(always)] fn warp(&self) -> u32 { self.t.warp() } };
    (@ block) => { #[inline(always)] fn block(&self) -> u32 { self.t.block() } };
    (@ thread_idx) => { #[inline(always)] fn thread_idx(&self) -> [u32; 3] { self.t.thread_idx() } };
    (@ block_dim) => { #[inline(always)] fn block_dim(&self) -> [u32; 3] { self.t.block_dim() } };
    (@ launch_shape) => { fn launch_shape(&self) -> Option<$crate::thread::LaunchShape> { self.t.launch_shape() } };
    (@ block_idx) => { #[inline(always)] fn block_idx(&self) -> [u32; 3] { self.t.block_idx() } };
    (@ grid_dim) => { #[inline(always)] fn grid_dim(&self) -> [u32; 3] { self.t.grid_dim() } };
    (@ shfl_idx) => {
        #[inline(always)]
        fn shfl_idx(&self, v: u32, src_lane: u32) -> u32 { self.t.shfl_idx(v, src_lane) }
    };
    (@ shfl_xor) => {
        #[inline(always)]
        fn shfl_xor(&self, v: u32, mask: u32) -> u32 { self.t.shfl_xor(v, mask) }
    };
    (@ sync_warp) => { #[inline(always)] fn sync_warp(&self) { self.t.sync_warp() } };
    (@ redux) => {
        #[inline(always)]
        fn redux(&self, op: crate::redux::Redux, v: u32) -> u32 { self.t.redux(op, v) }
    };
    (@ sync_block) => { #[inline(always)] #[track_caller] fn sync_block(&self) { self.t.sync_block() } };
    (@ scratch_reads) => {
        #[inline(always)]
        fn scratch_reads(&self) -> bool { self.t.scratch_reads() }
        #[inline(always)]
        fn set_scratch_reads(&self, pending: bool) { self.t.set_scratch_reads(pending) }
    };
    (@ st_shared) => {
        #[inline(always)]
        #[allow(unsafe_code)]
        unsafe fn st_shared(&self, byte_offset: u32, bytes: u32, words: [u32; 4]) {
            // SAFETY: the caller's promise, passed on.
            unsafe { self.t.st_shared(byte_offset, bytes, words) }
        }
    };
    (@ ld_shared) => {
        #[inline(always)]
        #[allow(unsafe_code)]
        unsafe fn ld_shared(&self, byte_offset: u32, bytes: u32) -> [u32; 4] {
            // SAFETY: the caller's promise, passed on.
            unsafe { self.t.ld_shared(byte_offset, bytes) }
        }
    };
    (@ cta_rank) => { #[inline(always)] fn cta_rank(&self) -> u32 { self.t.cta_rank() } };
    (@ sync_cluster) => { #[inline(always)] #[track_caller] fn sync_cluster(&self) { self.t.sync_cluster() } };
    (@ st_shared_cluster) => {
        #[inline(always)]
        #[allow(unsafe_code)]
        unsafe fn st_shared_cluster(
            &self,
            cta: u32,
            byte_offset: u32,
            bytes: u32,
            words: [u32; 4],
        ) {
            // SAFETY: the caller's promise, passed on.
            unsafe { self.t.st_shared_cluster(cta, byte_offset, bytes, words) }
        }
    };
    (@ ld_shared_cluster) => {
        #[inline(always)]
        #[allow(unsafe_code)]
        unsafe fn ld_shared_cluster(&self, cta: u32, byte_offset: u32, bytes: u32) -> [u32; 4] {
            // SAFETY: the caller's promise, passed on.
            unsafe { self.t.ld_shared_cluster(cta, byte_offset, bytes) }
        }
    };
    (@ ldmatrix) => {
        #[inline(always)]
        #[allow(unsafe_code)]
        unsafe fn ldmatrix(&self, count: u32, row_addr: u32, trans: bool) -> [u32; 4] {
            // SAFETY: the caller's promise, passed on.
            unsafe { self.t.ldmatrix(count, row_addr, trans) }
        }
    };
    (@ stmatrix) => {
        #[inline(always)]
        #[allow(unsafe_code)]
        unsafe fn stmatrix(&self, count: u32, row_addr: u32, trans: bool, words: [u32; 4]) {
            // SAFETY: the caller's promise, passed on.
            unsafe { self.t.stmatrix(count, row_addr, trans, words) }
        }
    };
    (@ cp_async) => {
        #[inline(always)]
        #[allow(unsafe_code)]
        unsafe fn cp_async(&self, byte_offset: u32, bytes: u32, src: crate::thread::CopySource) {
            // SAFETY: the caller's promise, passed on.
            unsafe { self.t.cp_async(byte_offset, bytes, src) }
        }
    };
    (@ cp_async_commit) => {
        #[inline(always)]
        fn cp_async_commit(&self) { self.t.cp_async_commit() }
    };
    (@ cp_async_wait) => {
        #[inline(always)]
        fn cp_async_wait<const PENDING: u32>(&self) { self.t.cp_async_wait::<PENDING>() }
    };
    (@ mma_m16n8k16) => {
        #[inline(always)]
        fn mma_m16n8k16(
            &self,
            kind: crate::tensor_core::MmaKind,
            a: [u32; 4],
            b: [u32; 2],
            c: [f32; 4],
        ) -> [f32; 4] {
            self.t.mma_m16n8k16(kind, a, b, c)
        }
    };
}
pub(crate) use forward_thread;
