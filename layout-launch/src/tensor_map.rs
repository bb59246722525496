//! Tensor maps for the copy engine (TMA), made on the host: [`DeviceTensorMap`] encodes a 2-D
//! row-major device buffer with `cuTensorMapEncodeTiled` and uploads the 128-byte map, which a
//! kernel's [`TensorMap`] parameter points at.

use std::marker::PhantomData;

use cudarc::driver::sys::{
    self, CUtensorMap, CUtensorMapDataType, CUtensorMapFloatOOBfill, CUtensorMapInterleave,
    CUtensorMapL2promotion, CUtensorMapSwizzle,
};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, SyncOnDrop};
use gpu_runtime::{Swizzle, TensorMap};

use crate::args::Param;
use crate::gpu::{Gpu, LaunchError};

/// A host element type the copy engine moves, with the map's data type for it.
pub trait TmaElement {
    /// `CUtensorMapDataType`.
    const DATA_TYPE: CUtensorMapDataType;
}

impl TmaElement for half::f16 {
    const DATA_TYPE: CUtensorMapDataType = CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
}
impl TmaElement for half::bf16 {
    const DATA_TYPE: CUtensorMapDataType = CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
}
impl TmaElement for u16 {
    const DATA_TYPE: CUtensorMapDataType = CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT16;
}
impl TmaElement for f32 {
    const DATA_TYPE: CUtensorMapDataType = CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

/// A tensor map in device memory, describing a row-major `[rows, cols]` buffer of `H` copied in
/// boxes of `[box_rows, box_cols]` with a swizzle: pass `&map` for a kernel's
/// `TensorMap<E>` parameter (`E` the kernel's type of the same bits). The map borrows the
/// buffer, so the buffer cannot be dropped (freed) or written by the host while a launch may
/// still read it through the map:
///
/// ```compile_fail,E0505
/// # use layout_launch::{DeviceTensorMap, Gpu, LaunchError};
/// # use gpu_runtime::Swizzle;
/// # fn f() -> Result<(), LaunchError> {
/// let gpu = Gpu::new()?;
/// let buf = gpu.upload(&[0f32; 64 * 64])?;
/// let map = DeviceTensorMap::new(&gpu, &buf, [64, 64], [64, 32], Swizzle::B128)?;
/// drop(buf); // error: `buf` is borrowed by `map`
/// let _still_used = &map;
/// # Ok(())
/// # }
/// ```
pub struct DeviceTensorMap<'buf, H> {
    map: CudaSlice<u8>,
    buf: PhantomData<&'buf CudaSlice<H>>,
}

impl<'buf, H: TmaElement> DeviceTensorMap<'buf, H> {
    /// Encode and upload the map of `buf` (`shape = [rows, cols]`, cols contiguous); `box_shape`
    /// and `swizzle` are the kernel's (e.g. a `TmaTile`'s `BOX` and `SWIZZLE`).
    pub fn new(
        gpu: &Gpu,
        buf: &'buf CudaSlice<H>,
        shape: [u32; 2],
        box_shape: [u32; 2],
        swizzle: Swizzle,
    ) -> Result<Self, LaunchError> {
        let eb = std::mem::size_of::<H>() as u64;
        if buf.len() < shape[0] as usize * shape[1] as usize {
            return Err(LaunchError::Kernel(format!(
                "a tensor map of {}x{} over a buffer of {} elements",
                shape[0],
                shape[1],
                buf.len()
            )));
        }
        let swizzle = match swizzle {
            Swizzle::None => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
            Swizzle::B32 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
            Swizzle::B64 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
            Swizzle::B128 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
        };
        let stream = gpu.stream();
        let (ptr, _guard) = buf.device_ptr(stream);
        // Dims and box innermost first; strides of the dims past the first, in bytes.
        let dims = [shape[1] as u64, shape[0] as u64];
        let strides = [shape[1] as u64 * eb];
        let boxes = [box_shape[1], box_shape[0]];
        let unit = [1u32, 1];
        let mut map = CUtensorMap { opaque: [0; 16] };
        // SAFETY: every pointer is to a live local array of the rank's length; the driver only
        // writes `map`.
        let r = unsafe {
            sys::cuTensorMapEncodeTiled(
                &mut map,
                H::DATA_TYPE,
                2,
                ptr as *mut std::ffi::c_void,
                dims.as_ptr(),
                strides.as_ptr(),
                boxes.as_ptr(),
                unit.as_ptr(),
                CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                swizzle,
                CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            )
        };
        if r != sys::CUresult::CUDA_SUCCESS {
            return Err(LaunchError::Driver(format!(
                "cuTensorMapEncodeTiled ({}x{} tensor, box {:?}, {:?}): {:?}; the box's rows must be at most the swizzle's width and 16-byte multiples, the buffer 16-byte aligned",
                shape[0], shape[1], box_shape, swizzle, r
            )));
        }
        let bytes: Vec<u8> = map.opaque.iter().flat_map(|w| w.to_le_bytes()).collect();
        Ok(DeviceTensorMap {
            map: gpu.upload(&bytes)?,
            buf: PhantomData,
        })
    }
}

impl<H, E: gpu_runtime::Element> Param<TensorMap<'static, E>> for &DeviceTensorMap<'_, H> {
    fn param<'a>(&'a mut self, stream: &'a CudaStream) -> (u64, Option<SyncOnDrop<'a>>) {
        const {
            assert!(
                std::mem::size_of::<H>() * 8 == E::BITS as usize,
                "a tensor map of host elements whose size is not the kernel's element's"
            )
        };
        let (p, guard) = self.map.device_ptr(stream);
        (p, Some(guard))
    }
    fn arg(&self) -> gpu_runtime::kernel::Arg {
        gpu_runtime::kernel::Arg::Other
    }
}
