//! cudarc's marker traits for [`F16`] and [`Bf16`], so a host uploads and downloads the
//! kernels' own 16-bit types (`gpu.upload(&[F16; N])`) without the `half` crate. On only with
//! the `cudarc` feature, which the launcher (`layout-launch`) turns on.
#![allow(unsafe_code)]

use crate::float16::{Bf16, F16};

// SAFETY: `#[repr(transparent)]` over `u16`: plain bits the device reads as they are, and all
// zeros is the value +0.0.
unsafe impl cudarc::driver::DeviceRepr for F16 {}
// SAFETY: as above.
unsafe impl cudarc::driver::ValidAsZeroBits for F16 {}
// SAFETY: as above.
unsafe impl cudarc::driver::DeviceRepr for Bf16 {}
// SAFETY: as above.
unsafe impl cudarc::driver::ValidAsZeroBits for Bf16 {}
