//! The device side: a context and stream on one GPU, the PTX as a driver module, and one launch
//! path (`cuLaunchKernelEx`, with a cluster-dimension attribute for kernels that run in
//! clusters, and the opt-in for more than 48 KiB of dynamic shared memory).

use std::ffi::{c_void, CString};
use std::marker::PhantomData;
use std::path::Path;
use std::sync::Arc;

use cudarc::driver::sys::{
    self, CUevent_flags, CUfunction, CUfunction_attribute_enum, CUlaunchAttribute,
    CUlaunchAttributeID, CUlaunchAttributeValue, CUmodule,
};
use cudarc::driver::{result, CudaContext, CudaSlice, CudaStream, DeviceRepr, ValidAsZeroBits};
use gpu_runtime::kernel::KernelSpec;

use crate::args::Args;

/// Why a launch (or what leads to it) failed.
#[derive(Debug)]
pub enum LaunchError {
    /// No CUDA driver library, or no device: nothing can run here.
    NoDevice(String),
    /// The PTX could not be read or loaded.
    Module(String),
    /// The kernel is not in the module, or its launch shape is not valid.
    Kernel(String),
    /// A driver call failed.
    Driver(String),
}

impl std::fmt::Display for LaunchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LaunchError::NoDevice(m)
            | LaunchError::Module(m)
            | LaunchError::Kernel(m)
            | LaunchError::Driver(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for LaunchError {}

fn driver<E: std::fmt::Debug>(what: &str) -> impl FnOnce(E) -> LaunchError + '_ {
    move |e| LaunchError::Driver(format!("{}: {:?}", what, e))
}

/// Dynamic shared memory a kernel gets without opting in.
const DEFAULT_DYNAMIC_SMEM: u32 = 48 * 1024;

/// A CUDA context on one device and its default stream.
pub struct Gpu {
    stream: Arc<CudaStream>,
    ctx: Arc<CudaContext>,
}

impl Gpu {
    /// Device 0; an error (never a panic) without a driver or device.
    pub fn new() -> Result<Gpu, LaunchError> {
        Gpu::device(0)
    }

    /// Device `ordinal`.
    pub fn device(ordinal: usize) -> Result<Gpu, LaunchError> {
        // SAFETY: only tries to open the driver library; cudarc would panic without it.
        if !unsafe { sys::is_culib_present() } {
            return Err(LaunchError::NoDevice(
                "no CUDA driver (libcuda) on this machine: launch on a machine with an NVIDIA GPU and its driver (the simulator runs kernel bodies anywhere)".into(),
            ));
        }
        let ctx = CudaContext::new(ordinal)
            .map_err(|e| LaunchError::NoDevice(format!("no CUDA device {} ({:?})", ordinal, e)))?;
        Ok(Gpu {
            stream: ctx.default_stream(),
            ctx,
        })
    }

    /// The context (for cudarc calls this crate does not wrap).
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The device's multiprocessors: a persistent kernel's grid.
    pub fn multiprocessors(&self) -> Result<u32, LaunchError> {
        let a = sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT;
        let n = self
            .ctx
            .attribute(a)
            .map_err(driver("read the multiprocessor count"))?;
        Ok(n.max(1) as u32)
    }

    /// The stream every launch and copy of this `Gpu` goes to.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// A device buffer holding `host`.
    pub fn upload<E: DeviceRepr>(&self, host: &[E]) -> Result<CudaSlice<E>, LaunchError> {
        self.stream
            .memcpy_stod(host)
            .map_err(driver("copy to the device"))
    }

    /// A device buffer of `n` zeros.
    pub fn zeros<E: DeviceRepr + ValidAsZeroBits>(
        &self,
        n: usize,
    ) -> Result<CudaSlice<E>, LaunchError> {
        self.stream.alloc_zeros(n).map_err(driver("allocate"))
    }

    /// `buf` copied back (after the work queued before it).
    pub fn download<E: DeviceRepr>(&self, buf: &CudaSlice<E>) -> Result<Vec<E>, LaunchError> {
        self.stream
            .memcpy_dtov(buf)
            .map_err(driver("copy to the host"))
    }

    /// Milliseconds per call of `launch` (which queues work on this stream): 3 warm-ups, then
    /// the median of `reps` calls each timed by CUDA events around it (upper median).
    pub fn time_ms<E: std::fmt::Display>(
        &self,
        reps: usize,
        mut launch: impl FnMut() -> Result<(), E>,
    ) -> Result<f32, LaunchError> {
        let call = |l: &mut dyn FnMut() -> Result<(), E>| {
            l().map_err(|e| LaunchError::Kernel(e.to_string()))
        };
        for _ in 0..3 {
            call(&mut launch)?;
        }
        self.synchronize()?;
        let mut ts = Vec::with_capacity(reps);
        for _ in 0..reps.max(1) {
            let event = || {
                self.ctx
                    .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                    .map_err(driver("create an event"))
            };
            let (a, b) = (event()?, event()?);
            a.record(&self.stream).map_err(driver("record an event"))?;
            call(&mut launch)?;
            b.record(&self.stream).map_err(driver("record an event"))?;
            b.synchronize().map_err(driver("wait for an event"))?;
            ts.push(a.elapsed_ms(&b).map_err(driver("time events"))?);
        }
        ts.sort_by(|x, y| x.total_cmp(y));
        Ok(ts[ts.len() / 2])
    }

    /// Waits for the work queued so far.
    pub fn synchronize(&self) -> Result<(), LaunchError> {
        self.stream.synchronize().map_err(driver("synchronize"))
    }

    /// The PTX at `path` (what `layout-builder` wrote) as a module of this context.
    pub fn load_ptx(&self, path: impl AsRef<Path>) -> Result<Module, LaunchError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| LaunchError::Module(format!("{}: {}", path.display(), e)))?;
        self.load_ptx_text(&text)
            .map_err(|e| LaunchError::Module(format!("{}: {}", path.display(), e)))
    }

    /// PTX text as a module of this context.
    pub fn load_ptx_text(&self, ptx: &str) -> Result<Module, LaunchError> {
        let src = CString::new(ptx).map_err(|e| LaunchError::Module(e.to_string()))?;
        self.ctx.bind_to_thread().map_err(driver("bind context"))?;
        // SAFETY: a NUL-terminated PTX text, with the context current.
        let raw = unsafe { result::module::load_data(src.as_ptr() as *const c_void) }
            .map_err(|e| LaunchError::Module(format!("the driver refused the PTX: {:?}", e)))?;
        Ok(Module {
            raw,
            stream: self.stream.clone(),
            ctx: self.ctx.clone(),
        })
    }
}

/// A kernel whose layouts were written for warps of `written` lanes (0: any) runs on a device
/// whose warps have `device` lanes only if they agree: its shuffles, reductions and conversions
/// were planned for that many lanes.
pub fn check_warp_size(kernel: &str, written: u32, device: u32) -> Result<(), LaunchError> {
    if written != 0 && written != device {
        return Err(LaunchError::Kernel(format!(
            "{}: its layouts were written for warps of {} lanes, and this device's warps have {}: give its layouts {} lanes per warp (`#[warp_size = {}]` in `layout!`)",
            kernel, written, device, device, device
        )));
    }
    Ok(())
}

/// A launch's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks, x first.
    pub grid: [u32; 3],
    /// Threads per block, x first.
    pub block: [u32; 3],
    /// CTAs per cluster, x first (`[1, 1, 1]`: no clusters).
    pub cluster: [u32; 3],
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: u32,
}

impl LaunchConfig {
    /// `grid` blocks of the kernel's block, shared memory and cluster.
    pub fn of<P>(spec: &KernelSpec<P>, grid: [u32; 3]) -> LaunchConfig {
        LaunchConfig {
            grid,
            block: spec.block(),
            cluster: spec.cluster(),
            shared_bytes: spec.shared_bytes(),
        }
    }
}

/// Loaded PTX.
pub struct Module {
    raw: CUmodule,
    stream: Arc<CudaStream>,
    // Keeps the context alive until the module is unloaded; asked for the device's warp size.
    ctx: Arc<CudaContext>,
}

/// A launch queued on a [`Module`]'s stream, borrowing its arguments while it lives (see
/// [`Module::launch`]).
pub struct InFlight<'a> {
    stream: &'a CudaStream,
    args: PhantomData<&'a ()>,
}

impl InFlight<'_> {
    /// Waits until the kernel (and everything queued before it on the stream) completes.
    pub fn wait(self) -> Result<(), LaunchError> {
        self.stream.synchronize().map_err(driver("synchronize"))
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: loaded by `Gpu::load_ptx_text` and unloaded once, before the context goes.
        let _ = unsafe { result::module::unload(self.raw) };
    }
}

impl Module {
    /// Launches `spec`'s kernel on `grid` blocks with `args`, on the `Gpu`'s stream (it returns
    /// once queued). The block, shared memory and cluster are the kernel's own. The launch in
    /// flight ([`InFlight`]) borrows the arguments while the handle lives, so that the host
    /// cannot free or write a buffer it uses before [`InFlight::wait`]:
    ///
    /// ```compile_fail,E0505
    /// # use linear_layouts::{kernel, Global, GlobalMut, Thread};
    /// # #[kernel(block = 128, extent(x = n, y = n))]
    /// # fn scale(t: &impl Thread, x: Global<f32>, y: GlobalMut<f32>, n: u32) {}
    /// # fn f(gpu: &layout_launch::Gpu, m: &layout_launch::Module) -> Result<(), layout_launch::LaunchError> {
    /// let x = gpu.upload(&[1f32; 1024])?;
    /// let mut y = gpu.upload(&[0f32; 1024])?;
    /// let launch = m.launch(&SCALE, [8, 1, 1], (&x, &mut y, 1024u32))?;
    /// drop(x); // error: `x` is borrowed by the launch in flight
    /// launch.wait()
    /// # }
    /// ```
    ///
    /// Dropping the handle (`m.launch(..)?;`) ends the borrow at once; that is still safe,
    /// because each buffer's stream ordering keeps a later free or host write after the
    /// kernel. The borrow is for code that holds the launch, to wait on it.
    pub fn launch<'a, P, A: Args<P> + 'a>(
        &'a self,
        spec: &KernelSpec<P>,
        grid: [u32; 3],
        mut args: A,
    ) -> Result<InFlight<'a>, LaunchError> {
        if spec.threads() == 0 {
            return Err(LaunchError::Kernel(format!(
                "{}: #[kernel] gave no block size: add `block = ...` to its attribute, or use launch_raw",
                spec.name()
            )));
        }
        let warp = self
            .ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_WARP_SIZE)
            .map_err(driver("the device's warp size"))?;
        check_warp_size(spec.name(), spec.warp_size(), warp as u32)?;
        spec.check_args(&args.args(), grid)
            .map_err(|m| LaunchError::Kernel(m.to_string()))?;
        let f = self.function(spec.name(), spec.shared_bytes())?;
        let (mut bits, _guards) = args.params(&self.stream);
        let mut params: Vec<*mut c_void> = bits
            .iter_mut()
            .map(|b| b as *mut u64 as *mut c_void)
            .collect();
        // SAFETY: `Args<P>` gave one value per parameter of the kernel's type, each in a u64
        // slot the kernel reads its own size of; the guards keep the buffers alive and ordered.
        unsafe { self.launch_raw(f, &LaunchConfig::of(spec, grid), &mut params) }?;
        Ok(InFlight {
            stream: &self.stream,
            args: PhantomData,
        })
    }

    /// The entry `name`, allowed `shared_bytes` of dynamic shared memory.
    pub fn function(&self, name: &str, shared_bytes: u32) -> Result<CUfunction, LaunchError> {
        let cname = CString::new(name).map_err(|e| LaunchError::Kernel(e.to_string()))?;
        // SAFETY: the module is loaded.
        let f = unsafe { result::module::get_function(self.raw, cname) }.map_err(|e| {
            LaunchError::Kernel(format!("{}: not an entry of the PTX ({:?})", name, e))
        })?;
        if shared_bytes > DEFAULT_DYNAMIC_SMEM {
            let attr = CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
            // SAFETY: `f` is a function of the loaded module.
            unsafe { result::function::set_function_attribute(f, attr, shared_bytes as i32) }
                .map_err(driver("set max dynamic shared memory"))?;
        }
        Ok(f)
    }

    /// Launches `f` with `config` and the parameter pointers `params` on the stream.
    ///
    /// # Safety
    /// `f` is a function of this module and `params` holds one pointer per kernel parameter,
    /// to a value of the parameter's type, valid until the launch is queued; every buffer the
    /// kernel touches is large enough; and for a `#[kernel]` entry, the launch (its grid and
    /// arguments) passes its spec's `check_args`, which its views and partitions rely on for
    /// more than sizes (the grid's dims and CTAs, so that no two CTAs write one element), and
    /// where the spec declares a block, the launch's block along x is at most the declared one
    /// (the entry's partitioned stores take every `%tid.x` to be below it).
    pub unsafe fn launch_raw(
        &self,
        f: CUfunction,
        config: &LaunchConfig,
        params: &mut [*mut c_void],
    ) -> Result<(), LaunchError> {
        let mut value = CUlaunchAttributeValue { pad: [0; 64] };
        value.clusterDim.x = config.cluster[0];
        value.clusterDim.y = config.cluster[1];
        value.clusterDim.z = config.cluster[2];
        let mut attrs = [CUlaunchAttribute {
            id: CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
            pad: [0; 4],
            value,
        }];
        let clustered = config.cluster != [1, 1, 1];
        let c = sys::CUlaunchConfig {
            gridDimX: config.grid[0],
            gridDimY: config.grid[1],
            gridDimZ: config.grid[2],
            blockDimX: config.block[0],
            blockDimY: config.block[1],
            blockDimZ: config.block[2],
            sharedMemBytes: config.shared_bytes,
            hStream: self.stream.cu_stream(),
            attrs: if clustered {
                attrs.as_mut_ptr()
            } else {
                std::ptr::null_mut()
            },
            numAttrs: clustered as u32,
        };
        // SAFETY: the caller's contract.
        unsafe { sys::cuLaunchKernelEx(&c, f, params.as_mut_ptr(), std::ptr::null_mut()) }
            .result()
            .map_err(driver("cuLaunchKernelEx"))
    }
}
