//! What a `#[kernel]` body checks before it runs anywhere but the GPU (on the simulator): that
//! the launch is one the GPU launcher would make from the kernel's spec (its declared block and
//! shared memory; its grid and buffers against `extent(..)`, as `KernelSpec::check_args`), and
//! that each view or partition the caller made is the one the GPU entry makes from its buffer
//! and the extent. A simulator test then runs what the GPU runs, or fails saying why not.

use crate::kernel::{Arg, KernelSpec};
use crate::made::Made;
use crate::Thread;

/// The argument the launcher's check sees for a buffer parameter: its elements (a buffer of
/// unknown length as large as any, so nothing is checked against it).
pub fn buffer_arg<V: Made>(v: &V) -> Arg {
    Arg::Buffer {
        len: v.elements().unwrap_or(u64::MAX),
    }
}

/// Panics, saying what differs, unless `t`'s launch is one the GPU launcher makes from `spec`
/// with arguments `args`: the declared block, at least the declared shared memory, the warps
/// and clusters the kernel is written for, and a grid and buffers that pass `spec.check_args`.
pub fn check_launch<T: Thread, P>(t: &T, spec: &KernelSpec<P>, args: &[Arg]) {
    let (block, name) = (spec.block(), spec.name());
    let of = Upper(name);
    if block != [0; 3] && t.block_dim() != block {
        panic!(
            "`{name}` declares a block of {block:?} threads (`#[kernel(block = ..)]`), but this launch's block is {:?}: launch it with the spec's block, as the GPU launcher does (`Launch::of(&{of}, grid)` on the simulator)",
            t.block_dim()
        );
    }
    if let Some(l) = t.launch_shape() {
        let (shared, warp) = (spec.shared_bytes(), spec.warp_size());
        let c = spec.cluster();
        let cluster = c[0] * c[1] * c[2];
        if l.shared_bytes < shared {
            panic!(
                "`{name}` declares {shared} bytes of shared memory (`#[kernel(shared = ..)]`), but this launch has {}: launch it with the spec's, as the GPU launcher does (`Launch::of(&{of}, grid)` on the simulator)",
                l.shared_bytes
            );
        }
        if warp != 0 && l.warp_size != warp {
            panic!(
                "`{name}`'s layouts are written for warps of {warp} lanes, but this launch's warps have {}: launch it with the spec's (`Launch::of(&{of}, grid)` on the simulator)",
                l.warp_size
            );
        }
        if l.cluster_ctas != cluster.max(1) {
            panic!(
                "`{name}` declares clusters of {cluster} CTAs (`#[kernel(cluster = ..)]`), but this launch's have {}: launch it with the spec's (`Launch::of(&{of}, grid)` on the simulator)",
                l.cluster_ctas
            );
        }
    }
    if let Err(e) = spec.check_args(args, t.grid_dim()) {
        panic!("{e} (the simulator checks a launch as the GPU launcher does)");
    }
}

/// A kernel's name as its spec's (`#[kernel]` names the spec after the function, in capitals).
struct Upper<'a>(&'a str);

impl core::fmt::Display for Upper<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.0
            .chars()
            .try_for_each(|c| core::fmt::Write::write_char(f, c.to_ascii_uppercase()))
    }
}

/// Panics, saying what differs, unless `v` is what the GPU entry makes of its buffer: the
/// `sizes` that `extent({param} = {extent})` gives for this launch's arguments, whole. `what`
/// says what the sizes are (`the shape`, `a count of tiles`, ...).
pub fn check_made<V: Made>(v: &V, sizes: V::Sizes, [kernel, param, what, extent]: [&str; 4]) {
    if v.sizes() != sizes {
        panic!(
            "`{kernel}`'s `{param}` was made with {what} {:?}, but its `extent({param} = {extent})` gives {sizes:?} for this launch's arguments: the GPU's entry makes `{param}` of the extent from its buffer, so the simulator's must be the same (correct the view the test makes, the arguments, or the extent)",
            v.sizes()
        );
    }
    if !v.whole() {
        panic!(
            "`{kernel}`'s `{param}` is a part of its tensor (narrowed or transposed): the GPU's entry hands the body the whole tensor of `extent({param} = {extent})`, {what} {sizes:?}, so pass the simulator's whole"
        );
    }
}
