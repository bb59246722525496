//! What a host needs to launch a kernel, written by `#[kernel]` next to it: the entry point's
//! name, its parameter types (so a launcher checks the arguments' types at compile time) and
//! the launch shape the kernel was written for (block, dynamic shared memory, cluster), taken
//! from the kernel crate's consts so that host and kernel cannot disagree.

use core::marker::PhantomData;

use crate::thread::Thread;

/// A kernel's launch description, written by `#[kernel]`. `P` is the tuple of its parameter
/// types (`Global<'static, f32>`, `u32`, ...). A launcher trusts it (the entry's parameters,
/// the block and shared memory the body was written for), so it is read-only and made only by
/// `#[kernel]` or through the `unsafe` [`KernelSpec::new`]:
///
/// ```compile_fail,E0133
/// use linear_layouts::KernelSpec;
/// // A spec for an entry that may not have these parameters: only `unsafe` can promise it.
/// const FAKE: KernelSpec<(u32,)> = KernelSpec::new("softmax_f32_1024", [128, 1, 1], 0, [1, 1, 1], 32);
/// ```
///
/// ```compile_fail,E0616
/// # use linear_layouts::{kernel, GlobalMut, Thread};
/// #[kernel(block = 128)]
/// fn fill(t: &impl Thread, y: GlobalMut<u32>) {
///     y.store1(t.thread_idx()[0] as usize, 1);
/// }
/// let mut spec = FILL;
/// spec.shared_bytes = 0; // read-only: `spec.shared_bytes()`
/// ```
pub struct KernelSpec<P> {
    name: &'static str,
    block: [u32; 3],
    shared_bytes: u32,
    cluster: [u32; 3],
    warp_size: u32,
    params: PhantomData<fn(P)>,
}

impl<P> KernelSpec<P> {
    /// A description (what `#[kernel]` writes).
    ///
    /// # Safety
    ///
    /// `name` is a kernel entry whose parameters are `P`, in order, with their meaning (a
    /// `Global` is read, a `GlobalMut` written, within what the launch's arguments hold); the
    /// entry is correct for blocks of `block` threads in clusters of `cluster` CTAs on warps of
    /// `warp_size` lanes (0: any), and uses at most `shared_bytes` of dynamic shared memory. A
    /// launch through this description runs the entry on that promise.
    // The crate denies unsafe code off the GPU: this is a contract, not an unsafe operation.
    #[allow(unsafe_code)]
    pub const unsafe fn new(
        name: &'static str,
        block: [u32; 3],
        shared_bytes: u32,
        cluster: [u32; 3],
        warp_size: u32,
    ) -> Self {
        KernelSpec {
            name,
            block,
            shared_bytes,
            cluster,
            warp_size,
            params: PhantomData,
        }
    }

    /// The PTX entry point's name (the function's name: entries are not mangled).
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// Threads per block, x first (`[0, 0, 0]` when the attribute left it to the launch).
    pub const fn block(&self) -> [u32; 3] {
        self.block
    }

    /// Dynamic shared memory per block, in bytes.
    pub const fn shared_bytes(&self) -> u32 {
        self.shared_bytes
    }

    /// CTAs per cluster, x first (`[1, 1, 1]`: no clusters).
    pub const fn cluster(&self) -> [u32; 3] {
        self.cluster
    }

    /// Lanes per warp (subgroup size) the kernel's layouts were written for (0: any): a
    /// launcher refuses a device whose warps differ.
    pub const fn warp_size(&self) -> u32 {
        self.warp_size
    }

    /// Threads per block (the product of `block`).
    pub const fn threads(&self) -> u32 {
        self.block[0] * self.block[1] * self.block[2]
    }
}

impl<P> Clone for KernelSpec<P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P> Copy for KernelSpec<P> {}

impl<P> core::fmt::Debug for KernelSpec<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("KernelSpec")
            .field("name", &self.name)
            .field("block", &self.block)
            .field("shared_bytes", &self.shared_bytes)
            .field("cluster", &self.cluster)
            .field("warp_size", &self.warp_size)
            .finish()
    }
}

/// The thread a `#[kernel]` body runs on the simulator (and wherever else it is not the GPU's
/// own [`GpuThread`](crate::nvptx::GpuThread)): `t`, knowing the kernel's declared shared memory
/// `SHARED` as [`Thread::SHARED_BYTES`], so the body's conversions, reductions and scans check
/// their scratch against it when the body is compiled for the simulator, as they do for the
/// GPU. Everything else is `t`'s.
#[derive(Clone, Copy, Debug)]
pub struct KernelThread<'a, T, const SHARED: u32> {
    t: &'a T,
}

impl<'a, T: Thread, const SHARED: u32> KernelThread<'a, T, SHARED> {
    /// `t` as the thread of a kernel that declares `SHARED` bytes of shared memory.
    #[inline(always)]
    pub fn new(t: &'a T) -> Self {
        KernelThread { t }
    }
}

#[allow(unsafe_code)]
impl<T: Thread, const SHARED: u32> Thread for KernelThread<'_, T, SHARED> {
    const SHARED_BYTES: Option<u32> = Some(SHARED);
    crate::thread::forward_thread!(
        opaque,
        scratch_reads,
        lane,
        warp,
        block,
        thread_idx,
        block_dim,
        block_idx,
        grid_dim,
        shfl_idx,
        shfl_xor,
        redux,
        sync_warp,
        sync_block,
        st_shared,
        ld_shared,
        cta_rank,
        sync_cluster,
        st_shared_cluster,
        ld_shared_cluster,
        ldmatrix,
        stmatrix,
        cp_async,
        cp_async_commit,
        cp_async_wait,
        mma_m16n8k16,
    );
}

#[cfg(not(target_arch = "spirv"))]
impl<T: crate::hopper::Hopper, const SHARED: u32> crate::hopper::Hopper
    for KernelThread<'_, T, SHARED>
{
    crate::hopper::forward_hopper!();
}
