//! The launcher on a machine without a GPU says so (an error, not a panic); with one, it runs a
//! `#[kernel]` and checks the result.

use layout_launch::{Gpu, LaunchError};
use linear_layouts::{kernel, Global, GlobalMut, Thread};

/// `y = 2 x`, one element per thread.
#[kernel(block = 128)]
pub fn twice(t: &impl Thread, x: Global<f32>, y: GlobalMut<f32>, n: u32) {
    let i = t.index_1d();
    if i < n {
        y.store1(i as usize, 2.0 * x.load1(i as usize));
    }
}

#[test]
fn without_a_driver_the_launcher_says_why() {
    match Gpu::new() {
        Err(LaunchError::NoDevice(m)) => assert!(m.contains("CUDA"), "{}", m),
        Err(e) => panic!("expected NoDevice, got {}", e),
        Ok(gpu) => {
            // A GPU is here: the module must be missing, not the device.
            let err = gpu
                .load_ptx("/nonexistent.ptx")
                .err()
                .expect("no such file");
            assert!(matches!(err, LaunchError::Module(_)), "{}", err);
        }
    }
}

#[test]
fn the_spec_carries_the_kernels_launch_shape() {
    assert_eq!(TWICE.name, "twice");
    assert_eq!(
        (TWICE.block, TWICE.shared_bytes, TWICE.cluster),
        ([128, 1, 1], 0, [1, 1, 1])
    );
}

#[test]
fn on_the_simulator_the_same_kernel_runs() {
    use linear_layouts::sim::{launch, HostMemory, Launch};
    let x = HostMemory::new((0..300).map(|i| (i as f32).to_bits() as u64));
    let y = HostMemory::new((0..300).map(|_| 0));
    let l = Launch::new(3, TWICE.threads(), TWICE.shared_bytes);
    launch(l, |t| twice(t, x.global(), y.global_mut(), 300)).expect("simulator");
    for i in 0..300 {
        assert_eq!(f32::from_bits(y.get(i) as u32), 2.0 * i as f32);
    }
}
