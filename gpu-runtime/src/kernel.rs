//! What a host needs to launch a kernel, written by `#[kernel]` next to it: the entry point's
//! name, its parameter types (so a launcher checks the arguments' types at compile time) and
//! the launch shape the kernel was written for (block, dynamic shared memory, cluster), taken
//! from the kernel crate's consts so that host and kernel cannot disagree.

use core::marker::PhantomData;

/// A kernel's launch description. `P` is the tuple of its parameter types (`Global<'static,
/// f32>`, `u32`, ...).
pub struct KernelSpec<P> {
    /// The PTX entry point's name (the function's name: entries are not mangled).
    pub name: &'static str,
    /// Threads per block, x first (`[0, 0, 0]` when the attribute left it to the launch).
    pub block: [u32; 3],
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: u32,
    /// CTAs per cluster, x first (`[1, 1, 1]`: no clusters).
    pub cluster: [u32; 3],
    /// Lanes per warp (subgroup size) the kernel's layouts were written for: a launcher refuses
    /// a device whose warps differ.
    pub warp_size: u32,
    params: PhantomData<fn(P)>,
}

impl<P> KernelSpec<P> {
    /// A description (what `#[kernel]` writes).
    pub const fn new(
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
