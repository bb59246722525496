//! A layout's tables as plans read them: its kind, shape and in-dims with their basis tables.
//! `gpu-runtime`'s `Layout::TABLES` is a `layout!` type's, at compile time; the CLI makes them
//! from a layout it parsed; the reduction and scan plans take either.

/// Whether a layout distributes a tensor over threads or places it in shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LayoutKind {
    /// In-dims `register, lane, warp, block`.
    Distributed,
    /// In-dims `offset, block`.
    Shared,
}

/// One input dimension of a layout: its name, size and basis table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InDim {
    /// `register`, `lane`, `warp`, `block` or `offset`.
    pub name: &'static str,
    /// Number of values (a power of two).
    pub size: u32,
    /// The basis of each input bit, `RANK` coordinates per bit, bit 0 first.
    pub bases: &'static [u32],
    /// Input bits whose basis is zero or depends on earlier bases: values that differ only in
    /// these bits hold the same element (Triton's `getFreeVariableMasks`).
    pub free_mask: u32,
}

impl InDim {
    /// The basis of input bit `bit`: `RANK` coordinates.
    pub const fn basis(&self, bit: usize, rank: usize) -> &'static [u32] {
        self.bases.split_at(bit * rank).1.split_at(rank).0
    }
}

/// A layout's tables as plans read them: what `gpu-runtime`'s `Layout` says of a type, as a value (so that a
/// plan is one function for `layout!` types at compile time and for layouts parsed at run time,
/// as the CLI does).
#[derive(Clone, Copy, Debug)]
pub struct Tables {
    /// The layout's name, for messages.
    pub name: &'static str,
    /// Distributed or shared.
    pub kind: LayoutKind,
    /// Tensor rank.
    pub rank: usize,
    /// Tensor shape.
    pub shape: &'static [u32],
    /// In-dims in Triton's order.
    pub in_dims: &'static [InDim],
    /// A padded shared layout's `(interval, pad)` pairs in elements (`gpu_runtime::Layout::PADDING`).
    pub padding: &'static [(u32, u32)],
}
