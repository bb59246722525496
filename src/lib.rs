//! # linear-layouts
//!
//! Typed GF(2) tensor layouts for GPU kernels, bit-exact with Triton. This facade re-exports
//! [`layout_core`] (the algebra, every TritonGPU encoding, the TTGIR parser) and, as they land,
//! the `layout!` / `convert!` macros and the `gpu-runtime` traits.
pub use gpu_runtime;
pub use layout_core::*;
