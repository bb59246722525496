//! The GPU side: the PTX module, one launch path for every kernel of the table (the driver's
//! `cuLaunchKernelEx`, with a cluster-dimension attribute for kernels that run in clusters),
//! the check against the CPU reference and the timing with CUDA events.

use std::ffi::{c_void, CString};
use std::sync::Arc;

use cudarc::driver::sys::{
    self, CUevent_flags, CUfunction, CUfunction_attribute_enum, CUlaunchAttribute,
    CUlaunchAttributeID, CUlaunchAttributeValue, CUmodule,
};
use cudarc::driver::{result, CudaContext, CudaSlice, CudaStream, DevicePtr, DevicePtrMut};
use kernels::table::Kernel;

use crate::host::{self, Row};

type R<T> = Result<T, String>;

fn e<E: std::fmt::Debug>(what: &str) -> impl FnOnce(E) -> String + '_ {
    move |err| format!("{}: {:?}", what, err)
}

/// Dynamic shared memory a kernel gets without opting in.
const DEFAULT_DYNAMIC_SMEM: u32 = 48 * 1024;

/// The PTX loaded as a driver module (cudarc's `CudaModule` does not hand out the function
/// handles `cuLaunchKernelEx` needs).
struct Module(CUmodule);

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: loaded by `Gpu::new` and unloaded once, before the context goes.
        let _ = unsafe { result::module::unload(self.0) };
    }
}

/// A CUDA context on device 0, its default stream and the kernels' module.
pub struct Gpu {
    // Fields drop in order: the module before the context.
    module: Module,
    stream: Arc<CudaStream>,
    ctx: Arc<CudaContext>,
}

/// One kernel launch, ready to be issued again and again.
struct Launch {
    f: CUfunction,
    grid: [u32; 3],
    block: [u32; 3],
    cluster: [u32; 3],
    shared_bytes: u32,
    input: Option<sys::CUdeviceptr>,
    output: sys::CUdeviceptr,
    arg: Option<u32>,
}

impl Launch {
    /// Issues the launch on `stream`: `(input, output, arg)` as the kernel takes them, and the
    /// cluster dimension as a launch attribute where the kernel runs in clusters.
    fn issue(&self, stream: &CudaStream) -> R<()> {
        let (mut input, mut output, mut arg) = (self.input, self.output, self.arg);
        let mut params: Vec<*mut c_void> = Vec::with_capacity(3);
        if let Some(p) = input.as_mut() {
            params.push(p as *mut sys::CUdeviceptr as *mut c_void);
        }
        params.push(&mut output as *mut sys::CUdeviceptr as *mut c_void);
        if let Some(a) = arg.as_mut() {
            params.push(a as *mut u32 as *mut c_void);
        }
        let mut value = CUlaunchAttributeValue { pad: [0; 64] };
        value.clusterDim.x = self.cluster[0];
        value.clusterDim.y = self.cluster[1];
        value.clusterDim.z = self.cluster[2];
        let mut attrs = [CUlaunchAttribute {
            id: CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
            pad: [0; 4],
            value,
        }];
        let clustered = self.cluster != [1, 1, 1];
        let config = sys::CUlaunchConfig {
            gridDimX: self.grid[0],
            gridDimY: self.grid[1],
            gridDimZ: self.grid[2],
            blockDimX: self.block[0],
            blockDimY: self.block[1],
            blockDimZ: self.block[2],
            sharedMemBytes: self.shared_bytes,
            hStream: stream.cu_stream(),
            attrs: if clustered {
                attrs.as_mut_ptr()
            } else {
                std::ptr::null_mut()
            },
            numAttrs: clustered as u32,
        };
        // SAFETY: `f` is a live function of the module; `params` points at one value per
        // kernel parameter, of the parameter's type (the table's `Work` says which), and the
        // buffers hold what the table says the kernel reads and writes for this launch.
        unsafe { sys::cuLaunchKernelEx(&config, self.f, params.as_mut_ptr(), std::ptr::null_mut()) }
            .result()
            .map_err(e("cuLaunchKernelEx"))
    }
}

impl Gpu {
    /// Device 0 with the PTX at `ptx` loaded; an error (never a panic) without a driver or
    /// device.
    pub fn new(ptx: &str) -> R<Gpu> {
        // SAFETY: only tries to open the driver library; cudarc would panic without it.
        if !unsafe { sys::is_culib_present() } {
            return Err("no CUDA driver (libcuda) on this machine: run gpu-bench on a machine with an NVIDIA GPU and driver".into());
        }
        let ctx = CudaContext::new(0).map_err(|err| {
            format!(
                "no CUDA device or driver ({:?}): run gpu-bench on a machine with an NVIDIA GPU",
                err
            )
        })?;
        let src = std::fs::read_to_string(ptx).map_err(|err| format!("{}: {}", ptx, err))?;
        let src = CString::new(src).map_err(|err| format!("{}: {}", ptx, err))?;
        ctx.bind_to_thread().map_err(e("bind context"))?;
        // SAFETY: a NUL-terminated PTX text, with the context current.
        let module = unsafe { result::module::load_data(src.as_ptr() as *const c_void) }
            .map_err(e("load PTX"))?;
        Ok(Gpu {
            module: Module(module),
            stream: ctx.default_stream(),
            ctx,
        })
    }

    /// The entry `k.name`, allowed `k.shared_bytes` of dynamic shared memory.
    fn function(&self, k: &Kernel) -> R<CUfunction> {
        let name = CString::new(k.name).map_err(e("kernel name"))?;
        // SAFETY: the module is loaded.
        let f = unsafe { result::module::get_function(self.module.0, name) }
            .map_err(|err| format!("{}: not in the PTX ({:?})", k.name, err))?;
        if k.shared_bytes > DEFAULT_DYNAMIC_SMEM {
            let attr = CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
            // SAFETY: `f` is a function of the loaded module.
            unsafe { result::function::set_function_attribute(f, attr, k.shared_bytes as i32) }
                .map_err(e("set max dynamic shared memory"))?;
        }
        Ok(f)
    }

    /// Milliseconds per call of `launch`: 3 warm-ups, then the median of 30 event-timed calls.
    fn time(&self, mut launch: impl FnMut() -> R<()>) -> R<f32> {
        for _ in 0..3 {
            launch()?;
        }
        self.stream.synchronize().map_err(e("synchronize"))?;
        let mut ts = Vec::new();
        for _ in 0..30 {
            let event = || {
                self.ctx
                    .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                    .map_err(e("event"))
            };
            let (a, b) = (event()?, event()?);
            a.record(&self.stream).map_err(e("record"))?;
            launch()?;
            b.record(&self.stream).map_err(e("record"))?;
            b.synchronize().map_err(e("event sync"))?;
            ts.push(a.elapsed_ms(&b).map_err(e("elapsed"))?);
        }
        Ok(host::median(ts))
    }

    /// Milliseconds of a device-to-device copy of `src` into `dst`, measured once per size and
    /// kept in `copies` (bytes, ms).
    fn copy_ms(
        &self,
        src: &CudaSlice<u8>,
        dst: &mut CudaSlice<u8>,
        copies: &mut Vec<(usize, f32)>,
    ) -> R<f32> {
        if let Some(&(_, ms)) = copies.iter().find(|(b, _)| *b == src.len()) {
            return Ok(ms);
        }
        let ms = self.time(|| self.stream.memcpy_dtod(src, dst).map_err(e("copy")))?;
        copies.push((src.len(), ms));
        Ok(ms)
    }

    /// Kernel `k` over `n x n` elements: random input (from `seed`), output poisoned, launched
    /// once and checked element by element against the CPU reference, then timed, next to a
    /// device-to-device copy of the same bytes.
    pub fn bench(&self, k: &Kernel, n: u32, seed: u64, copies: &mut Vec<(usize, f32)>) -> R<Row> {
        let bytes = k.elem.bytes();
        let input = host::random_input(k.input_elems(n), bytes, seed);
        let mut expected = vec![0u8; k.output_elems(n) * bytes];
        k.reference.expected(k, n, &input, &mut expected);
        let s = &self.stream;
        let din = match input.is_empty() {
            true => None,
            false => Some(s.memcpy_stod(&input).map_err(e("copy in"))?),
        };
        drop(input);
        let poison = vec![host::POISON; expected.len()];
        let mut dout = s.memcpy_stod(&poison).map_err(e("alloc"))?;
        drop(poison);
        let launch = Launch {
            f: self.function(k)?,
            grid: k.grid(n),
            block: k.block,
            cluster: k.cluster,
            shared_bytes: k.shared_bytes,
            input: din.as_ref().map(|d| d.device_ptr(s).0),
            output: dout.device_ptr_mut(s).0,
            arg: k.arg(n),
        };
        launch.issue(s).map_err(|m| format!("{}: {}", k.name, m))?;
        let out = s.memcpy_dtov(&dout).map_err(e("copy out"))?;
        host::check(k, n, &out, &expected)?;
        drop((out, expected));
        let ms = self.time(|| launch.issue(s))?;
        let copy_ms = match &din {
            Some(d) if d.len() == dout.len() => Some(self.copy_ms(d, &mut dout, copies)?),
            _ => None,
        };
        Ok(Row {
            label: k.label,
            ms,
            bytes: k.bytes_moved(n),
            copy_ms,
        })
    }
}
