//! What a conversion costs: the strategy, instruction counts per thread, shared memory per CTA,
//! barriers. `convert!` makes a plan's cost a const, so kernels can size shared memory with it.

/// How a conversion moves data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Source and destination are the same layout: no code.
    Nothing,
    /// Each thread already holds what it needs: a compile-time register permutation.
    Registers,
    /// Within a warp: selects and shuffles (Triton PR 7558's decomposition).
    Shuffles,
    /// Through shared memory: vectorised stores, a barrier, vectorised loads.
    SharedMemory,
}

/// Which threads a shared-memory plan's barriers join.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Barrier {
    /// Data stays within each warp: `bar.warp.sync`.
    Warp,
    /// Data crosses warps of one CTA: `bar.sync`.
    Block,
    /// Data crosses the CTAs of a cluster: `barrier.cluster`, and one more at the end so that no
    /// CTA moves on (or exits) while others still read its shared memory.
    Cluster,
}

/// What a plan costs, per thread (selects and shuffles) and per CTA (shared memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cost {
    /// The strategy.
    pub strategy: Strategy,
    /// Shuffle instructions per thread.
    pub shuffles: u32,
    /// Selects (or byte permutes) per thread.
    pub selects: u32,
    /// Scratch shared memory per CTA, in bytes.
    pub shared_bytes: u32,
    /// Shared stores per thread.
    pub stores: u32,
    /// Shared loads per thread.
    pub loads: u32,
    /// Elements per shared-memory vector access.
    pub vector: u32,
    /// Extra shared-memory wavefronts per store instruction (bank conflicts), worst case.
    pub write_conflicts: u32,
    /// Extra wavefronts per load instruction, worst case.
    pub read_conflicts: u32,
    /// Barriers per conversion.
    pub barriers: u32,
}

impl Cost {
    /// The planner's single figure for choosing between strategies, in quarters of a
    /// conflict-free shared access: a shuffle costs about what such an access does (one pass of
    /// the warp through the same crossbar), each extra wavefront of a conflicted access as much
    /// again, a select a quarter, and a barrier, which waits for the slowest warp, four.
    pub const fn weight(&self) -> u32 {
        let accesses =
            self.stores * (1 + self.write_conflicts) + self.loads * (1 + self.read_conflicts);
        4 * (self.shuffles + accesses + 4 * self.barriers) + self.selects
    }

    /// A plan of `strategy` that costs nothing yet.
    pub const fn of(strategy: Strategy) -> Self {
        Cost {
            strategy,
            shuffles: 0,
            selects: 0,
            shared_bytes: 0,
            stores: 0,
            loads: 0,
            vector: 0,
            write_conflicts: 0,
            read_conflicts: 0,
            barriers: 0,
        }
    }
}
