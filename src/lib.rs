//! # linear-layouts
//!
//! Typed GF(2) tensor layouts for GPU kernels, bit-exact with Triton.
//!
//! * [`layout!`] defines layout types solved at compile time: const basis tables and inline
//!   index math, usable from `no_std` kernels.
//! * [`Layout`], [`HwIndex`], [`SharedIndex`]: the runtime side ([`gpu_runtime`]).
//! * On the host, everything of [`layout_core`] (the algebra, every TritonGPU encoding, the TTGIR
//!   parser) is re-exported at the root.
//!
//! The crate is `no_std`; on `nvptx64-nvidia-cuda` (`target_os = "cuda"`) only the macros and
//! the runtime are present, so kernels depend on it like any other crate.
#![no_std]

#[doc(inline)]
pub use gpu_runtime::{HwIndex, InDim, Layout, LayoutKind, SharedIndex};

pub use gpu_runtime;

#[cfg(not(target_os = "cuda"))]
pub use layout_core::*;

#[doc = include_str!("layout_macro.md")]
pub use layout_macros::layout;

/// Support for generated code. Not public API.
#[doc(hidden)]
pub mod __private {
    /// Build a layout from const tables that the macro already validated.
    #[cfg(not(target_os = "cuda"))]
    pub fn layout_from_tables(
        ins: &[(&str, &[&[i32]])],
        outs: &[(&str, i32)],
    ) -> layout_core::LinearLayout {
        extern crate alloc;
        use alloc::string::String;
        let bases = ins
            .iter()
            .map(|(n, bs)| (String::from(*n), bs.iter().map(|b| b.to_vec()).collect()))
            .collect();
        let outs = outs.iter().map(|(n, s)| (String::from(*n), *s)).collect();
        match layout_core::LinearLayout::from_parts(bases, outs, false) {
            Ok(l) => l,
            // The macro built these tables from a valid layout.
            Err(e) => unreachable!("layout tables from layout! are valid: {}", e),
        }
    }
}
