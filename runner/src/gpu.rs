//! The GPU side: the PTX module and one launch path for every kernel of the table, both
//! `layout-launch`'s (what any kernel crate's host uses),
//! the check against the CPU reference and the timing with CUDA events.

use std::ffi::c_void;

use cudarc::driver::sys::{self, CUfunction};
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};
use layout_launch::{LaunchConfig, Module};
use runner::table::Kernel;

use crate::host::{self, Row};

type R<T> = Result<T, String>;

fn e<E: std::fmt::Debug>(what: &str) -> impl FnOnce(E) -> String + '_ {
    move |err| format!("{}: {:?}", what, err)
}

/// A GPU (through the launcher every kernel crate uses) and the kernels' module.
pub struct Gpu {
    // Fields drop in order: the module before the context.
    module: Module,
    gpu: layout_launch::Gpu,
}

/// One kernel launch, ready to be issued again and again.
struct Launch {
    f: CUfunction,
    config: LaunchConfig,
    input: Option<sys::CUdeviceptr>,
    output: sys::CUdeviceptr,
    arg: Option<u32>,
}

impl Launch {
    /// Issues the launch: `(input, output, arg)` as the kernel takes them (the table's `Work`
    /// says which it has, so the parameter list is built here rather than typed).
    fn issue(&self, module: &Module) -> R<()> {
        let (mut input, mut output, mut arg) = (self.input, self.output, self.arg);
        let mut params: Vec<*mut c_void> = Vec::with_capacity(3);
        if let Some(p) = input.as_mut() {
            params.push(p as *mut sys::CUdeviceptr as *mut c_void);
        }
        params.push(&mut output as *mut sys::CUdeviceptr as *mut c_void);
        if let Some(a) = arg.as_mut() {
            params.push(a as *mut u32 as *mut c_void);
        }
        // SAFETY: `f` is a live function of the module; `params` points at one value per
        // kernel parameter, of the parameter's type (the table's `Work` says which), the
        // buffers hold what the table says the kernel reads and writes for this launch, and
        // the table's blocks are at most the kernels' declared ones along x.
        unsafe { module.launch_raw(self.f, &self.config, &mut params) }.map_err(|e| e.to_string())
    }
}

impl Gpu {
    /// Device 0 with the PTX at `ptx` loaded; an error (never a panic) without a driver or
    /// device.
    pub fn new(ptx: &str) -> R<Gpu> {
        let gpu = layout_launch::Gpu::new()
            .map_err(|e| format!("{}: run gpu-bench on a machine with an NVIDIA GPU", e))?;
        let module = gpu.load_ptx(ptx).map_err(|e| e.to_string())?;
        Ok(Gpu { module, gpu })
    }

    /// Milliseconds per call of `launch`: 3 warm-ups, then the median of 30 event-timed calls.
    fn time(&self, launch: impl FnMut() -> R<()>) -> R<f32> {
        self.gpu.time_ms(30, launch).map_err(|e| e.to_string())
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
        let ms = self.time(|| self.gpu.stream().memcpy_dtod(src, dst).map_err(e("copy")))?;
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
        let s = self.gpu.stream();
        let din = match input.is_empty() {
            true => None,
            false => Some(s.memcpy_stod(&input).map_err(e("copy in"))?),
        };
        drop(input);
        let poison = vec![host::POISON; expected.len()];
        let mut dout = s.memcpy_stod(&poison).map_err(e("alloc"))?;
        drop(poison);
        // The launch passes the kernel's own extents check before the driver sees it.
        k.check_launch(n)?;
        let launch = Launch {
            f: self
                .module
                .function(k.name, k.shared_bytes)
                .map_err(|e| e.to_string())?,
            config: LaunchConfig {
                grid: k.grid(n),
                block: k.block,
                cluster: k.cluster,
                shared_bytes: k.shared_bytes,
            },
            input: din.as_ref().map(|d| d.device_ptr(s).0),
            output: dout.device_ptr_mut(s).0,
            arg: k.arg(n),
        };
        launch
            .issue(&self.module)
            .map_err(|m| format!("{}: {}", k.name, m))?;
        let out = s.memcpy_dtov(&dout).map_err(e("copy out"))?;
        host::check(k, n, &out, &expected)?;
        drop((out, expected));
        let ms = self.time(|| launch.issue(&self.module))?;
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
