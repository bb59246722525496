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
pub use gpu_runtime::{
    Converter, Element, HwIndex, InDim, Layout, LayoutKind, SharedIndex, Thread,
};

pub use gpu_runtime;

#[cfg(not(target_os = "cuda"))]
pub use layout_core::*;

/// Conversion plans on the host: layout-core's plans as gpu-runtime tables.
#[cfg(not(target_os = "cuda"))]
#[path = "convert.rs"]
pub mod runtime_convert;

#[doc = include_str!("layout_macro.md")]
pub use layout_macros::layout;

#[doc = include_str!("convert_macro.md")]
pub use layout_macros::convert;

#[doc(hidden)]
pub use layout_macros::__convert_solve;

/// Support for generated code. Not public API.
#[doc(hidden)]
pub mod __private {
    /// The layout of a `#ttg.linear` / `#ttg.shared_linear` text that the macro wrote from a
    /// layout it solved (so parsing it cannot fail), for a tensor of `shape`.
    #[cfg(not(target_os = "cuda"))]
    pub fn layout_from_ttgir(text: &str, shape: &[u32]) -> layout_core::LinearLayout {
        extern crate alloc;
        let shape: alloc::vec::Vec<i64> = shape.iter().map(|&s| s as i64).collect();
        let solved = layout_core::parse::parse_encoding(text, &layout_core::parse::Aliases::new())
            .map_err(layout_core::LayoutError::from)
            .and_then(|e| e.to_linear_layout(&shape));
        match solved {
            Ok(l) => l,
            Err(e) => unreachable!("layout! wrote an invalid layout {}: {}", text, e),
        }
    }
}
