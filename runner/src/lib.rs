//! The hosts' side of the project's kernels: [`table`], every kernel of the PTX with its launch
//! shape and CPU reference, shared by `gpu-bench` (CUDA), `vk-bench` (Vulkan) and the
//! simulator tests (`tests/sim.rs`).

pub mod table;
