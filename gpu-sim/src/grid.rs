//! The shape of a launch ([`Launch`]: grid, block, warp size, shared memory, clusters) and
//! the fences a mutation test may drop ([`Fence`]), and how linear indices map onto it.

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

    /// The launch `spec`'s kernel is written for (its block, shared memory, cluster and warp
    /// size, what a GPU launch through the spec takes) on `grid`: a simulator test that runs
    /// the kernel in its own shape. The simulator's clusters are runs of CTAs along x, so a
    /// cluster of `[x, y, z]` CTAs is simulated as `x * y * z` consecutive ones; the grid runs
    /// as given (a `#[kernel]` body checks it against the spec's `check_args` before it runs,
    /// as the launcher does: a `grid_dims` kernel's device reads 0 past its dims).
    pub fn of<P>(spec: &gpu_runtime::kernel::KernelSpec<P>, grid: [u32; 3]) -> Self {
        let mut l = Launch::dims(grid, spec.block(), spec.shared_bytes());
        l.cluster = volume(spec.cluster()).clamp(1, u32::MAX as u64) as u32;
        if spec.warp_size() != 0 {
            l.warp_size = spec.warp_size();
        }
        l
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

/// A fence a kernel issues, for [`Launch::skipping`](crate::Launch::skipping): the launch
/// ignores every one of that kind, as if the kernel's code lacked them (a mutation test of the
/// kernel's fences).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fence {
    /// `fence.proxy.async` (`Hopper::fence_proxy_async`).
    ProxyAsync,
    /// `fence.mbarrier_init` (`Hopper::fence_mbarrier_init`).
    MbarrierInit,
    /// `wgmma.fence` (`Hopper::wgmma_fence`).
    Wgmma,
}

/// The number of points of a 3-D shape.
pub(crate) fn volume(d: [u32; 3]) -> u64 {
    d.iter().map(|&x| x as u64).product()
}

/// The coordinates of linear index `i` in a grid of shape `dim`, x fastest.
pub(crate) fn unflatten(i: u32, dim: [u32; 3]) -> [u32; 3] {
    let (x, y) = (dim[0].max(1), dim[1].max(1));
    [i % x, i / x % y, i / x / y]
}
