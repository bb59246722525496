//! Kernel arguments checked against the kernel's parameter types: a host value may stand for a
//! parameter only through a [`Param`] impl (a device buffer of `E` for `Global<E>`, a mutable
//! one for `GlobalMut<E>`, a scalar for itself). `F16`/`Bf16` buffers upload as they are; buffers
//! of the `half` crate's `f16`/`bf16` stand for `F16`/`Bf16` tensors too.

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, SyncOnDrop};
use gpu_runtime::kernel::Arg;
use gpu_runtime::{Bf16, Global, GlobalMut, F16};

/// A host value that can be passed for a kernel parameter of type `P`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for a kernel parameter of type `{P}`",
    label = "this argument stands for a `{P}` parameter",
    note = "pass a `&CudaSlice<E>` for `Global<E>`, a `&mut CudaSlice<E>` for `GlobalMut<E>`, and a scalar for a scalar parameter of the same type"
)]
pub trait Param<P> {
    /// The parameter's bits (little-endian, the kernel reads as many bytes as `P` has) and, for
    /// device buffers, the guard that orders the launch after the buffer's earlier work.
    fn param<'a>(&'a mut self, stream: &'a CudaStream) -> (u64, Option<SyncOnDrop<'a>>);
    /// What the launcher checks the kernel's extents against: a buffer's length, an integer.
    fn arg(&self) -> Arg;
}

impl<E: DeviceRepr> Param<Global<'static, E>> for &CudaSlice<E> {
    fn param<'a>(&'a mut self, stream: &'a CudaStream) -> (u64, Option<SyncOnDrop<'a>>) {
        let (p, guard) = self.device_ptr(stream);
        (p, Some(guard))
    }
    fn arg(&self) -> Arg {
        Arg::Buffer {
            len: self.len() as u64,
        }
    }
}

impl<E: DeviceRepr> Param<GlobalMut<'static, E>> for &mut CudaSlice<E> {
    fn param<'a>(&'a mut self, stream: &'a CudaStream) -> (u64, Option<SyncOnDrop<'a>>) {
        let (p, guard) = self.device_ptr_mut(stream);
        (p, Some(guard))
    }
    fn arg(&self) -> Arg {
        Arg::Buffer {
            len: self.len() as u64,
        }
    }
}

/// Buffers of the `half` crate's `f16` and `bf16` (the host's 16-bit floats, which cudarc
/// uploads) stand for tensors of the kernels' [`F16`] and [`Bf16`]: the same bits.
macro_rules! half_buffers {
    ($($host:ty => $kernel:ty),*) => {$(
        impl Param<Global<'static, $kernel>> for &CudaSlice<$host> {
            fn param<'a>(&'a mut self, stream: &'a CudaStream) -> (u64, Option<SyncOnDrop<'a>>) {
                let (p, guard) = self.device_ptr(stream);
                (p, Some(guard))
            }
            fn arg(&self) -> Arg {
                Arg::Buffer { len: self.len() as u64 }
            }
        }
        impl Param<GlobalMut<'static, $kernel>> for &mut CudaSlice<$host> {
            fn param<'a>(&'a mut self, stream: &'a CudaStream) -> (u64, Option<SyncOnDrop<'a>>) {
                let (p, guard) = self.device_ptr_mut(stream);
                (p, Some(guard))
            }
            fn arg(&self) -> Arg {
                Arg::Buffer { len: self.len() as u64 }
            }
        }
    )*};
}
half_buffers!(half::f16 => F16, half::bf16 => Bf16);

macro_rules! scalar {
    ($($t:ty => $bits:expr, $arg:expr);*) => {$(
        impl Param<$t> for $t {
            fn param<'a>(&'a mut self, _: &'a CudaStream) -> (u64, Option<SyncOnDrop<'a>>) {
                #[allow(clippy::redundant_closure_call)]
                ($bits)(*self)
            }
            fn arg(&self) -> Arg {
                #[allow(clippy::redundant_closure_call)]
                ($arg)(*self)
            }
        }
    )*};
}
scalar!(
    u32 => |x: u32| (x as u64, None), |x| Arg::Int(x as i128);
    i32 => |x: i32| (x as u32 as u64, None), |x| Arg::Int(x as i128);
    u64 => |x: u64| (x, None), |x| Arg::Int(x as i128);
    i64 => |x: i64| (x as u64, None), |x| Arg::Int(x as i128);
    f32 => |x: f32| (x.to_bits() as u64, None), |_| Arg::Other;
    f64 => |x: f64| (x.to_bits(), None), |_| Arg::Other
);

/// A tuple of host values for a kernel whose parameters are the tuple `P`.
#[diagnostic::on_unimplemented(
    message = "the arguments `{Self}` do not match the kernel's parameters `{P}`",
    label = "one host value per kernel parameter, in order",
    note = "the kernel's parameters are `{P}` (after the thread): pass a tuple with one value for each, in the same order; a missing or extra argument, or one of another type, is this error"
)]
pub trait Args<P> {
    /// Each parameter's bits and buffer guards, in order.
    fn params<'a>(&'a mut self, stream: &'a CudaStream) -> (Vec<u64>, Vec<SyncOnDrop<'a>>);
    /// Each argument as the kernel's extents check sees it, in order.
    fn args(&self) -> Vec<Arg>;
}

macro_rules! args {
    ($($a:ident $p:ident $i:tt),*) => {
        impl<$($a: Param<$p>, $p),*> Args<($($p,)*)> for ($($a,)*) {
            #[allow(unused_variables, unused_mut)]
            fn params<'a>(&'a mut self, stream: &'a CudaStream) -> (Vec<u64>, Vec<SyncOnDrop<'a>>) {
                let (mut bits, mut guards) = (Vec::new(), Vec::new());
                $(
                    let (b, g) = self.$i.param(stream);
                    bits.push(b);
                    guards.extend(g);
                )*
                (bits, guards)
            }
            fn args(&self) -> Vec<Arg> {
                vec![$(self.$i.arg()),*]
            }
        }
    };
}
args!();
args!(A0 P0 0);
args!(A0 P0 0, A1 P1 1);
args!(A0 P0 0, A1 P1 1, A2 P2 2);
args!(A0 P0 0, A1 P1 1, A2 P2 2, A3 P3 3);
args!(A0 P0 0, A1 P1 1, A2 P2 2, A3 P3 3, A4 P4 4);
args!(A0 P0 0, A1 P1 1, A2 P2 2, A3 P3 3, A4 P4 4, A5 P5 5);
args!(A0 P0 0, A1 P1 1, A2 P2 2, A3 P3 3, A4 P4 4, A5 P5 5, A6 P6 6);
args!(A0 P0 0, A1 P1 1, A2 P2 2, A3 P3 3, A4 P4 4, A5 P5 5, A6 P6 6, A7 P7 7);
