//! Kernels written with linear-layouts. Built for `nvptx64-nvidia-cuda` by `cargo xtask ptx`
//! (nightly, `-Z build-std=core`); on the host the same code is plain Rust that tests call.
//!
//! * [`index_math`]: the index functions of eleven layouts, each next to a hand-written
//!   shift/and/or version of the same map; `cargo xtask ptx-check` compares their PTX.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, stdarch_nvptx))]

pub mod index_math;
