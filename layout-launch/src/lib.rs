//! layout-launch: start a `#[kernel]` of your kernel crate from the host.
//!
//! ```no_run
//! # use linear_layouts::{kernel, Global, GlobalMut, Thread};
//! # #[kernel(block = 128)]
//! # fn scale(t: &impl Thread, x: Global<f32>, y: GlobalMut<f32>, n: u32) {}
//! use layout_launch::Gpu;
//!
//! # fn main() -> Result<(), layout_launch::LaunchError> {
//! let gpu = Gpu::new()?; // an error, not a panic, without a driver or device
//! let module = gpu.load_ptx("target/kernels.ptx")?; // e.g. env!("MY_KERNELS_PTX")
//! let x = gpu.upload(&[1.0f32; 1024])?;
//! let mut y = gpu.zeros::<f32>(1024)?;
//! // Block and shared memory come from `SCALE`, the kernel's `#[kernel(...)]`; the arguments'
//! // types are checked against its parameters at compile time.
//! module.launch(&SCALE, [8, 1, 1], (&x, &mut y, 1024u32))?;
//! let y = gpu.download(&y)?;
//! # Ok(()) }
//! ```
//!
//! Arguments are checked against the kernel's parameters when the host compiles: a
//! `&CudaSlice<E>` for `Global<E>`, a `&mut CudaSlice<E>` for `GlobalMut<E>`, the scalar itself
//! for a scalar. This does not compile:
//!
//! ```compile_fail
//! # use linear_layouts::{kernel, Global, GlobalMut, Thread};
//! # #[kernel(block = 128)]
//! # fn scale(t: &impl Thread, x: Global<f32>, y: GlobalMut<f32>, n: u32) {}
//! fn f(m: &layout_launch::Module, x: &layout_launch::cudarc::driver::CudaSlice<f32>) {
//!     // `y` must be a `&mut CudaSlice<f32>`, and `n` a u32.
//!     m.launch(&SCALE, [1, 1, 1], (x, x, 1.0f32)).unwrap();
//! }
//! ```
//!
//! * [`Gpu`]: a context on one device, its stream, buffers in and out.
//! * [`Module`]: the PTX loaded; [`Module::launch`] with a [`KernelSpec`] and typed arguments
//!   ([`Args`]); [`Module::launch_raw`] for launchers that build their own parameter lists.
//! * The driver library is opened at run time (`cudarc`'s dynamic loading): a host binary
//!   builds and starts on any machine, and says why it cannot launch where there is no GPU.

mod args;
mod gpu;
mod tensor_map;

pub use args::{Args, Param};
pub use cudarc;
pub use gpu::{check_warp_size, Gpu, InFlight, LaunchConfig, LaunchError, Module};
pub use gpu_runtime::kernel::KernelSpec;
pub use tensor_map::{DeviceTensorMap, TmaElement};
