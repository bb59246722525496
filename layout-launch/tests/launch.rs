//! The launcher on a machine without a GPU says so (an error, not a panic); with one, it runs a
//! `#[kernel]` and checks the result.

use layout_launch::{Gpu, LaunchError};
use linear_layouts::{kernel, layout, ChunksMut, Thread, View, F16};

/// `y = 2 x`, one element per thread.
#[kernel(block = 128, extent(x = [n], y = [n]))]
pub fn twice(t: &impl Thread, x: View<f32, 1>, y: ChunksMut<f32, Flat, 1>, n: u32) {
    let v = x.load::<Flat>(t, [128 * t.block_idx()[0]], 0.0);
    y.store(t, &(v * 2.0));
}

layout! {
    /// One element per thread of 4 warps.
    pub Flat = blocked(sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]) for [128];
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
    assert_eq!(TWICE.name(), "twice");
    assert_eq!(
        (TWICE.block(), TWICE.shared_bytes(), TWICE.cluster()),
        ([128, 1, 1], 0, [1, 1, 1])
    );
}

#[test]
fn on_the_simulator_the_same_kernel_runs() {
    use linear_layouts::sim::{launch, HostMemory, Launch};
    let x = HostMemory::new((0..300).map(|i| (i as f32).to_bits() as u64));
    let y = HostMemory::new((0..300).map(|_| 0));
    let l = Launch::new(3, TWICE.threads(), TWICE.shared_bytes());
    launch(l, |t| twice(t, x.view([300]), y.chunks_mut([300]), 300)).expect("simulator");
    for i in 0..300 {
        assert_eq!(f32::from_bits(y.get(i) as u32), 2.0 * i as f32);
    }
}

/// `y = x + 1` on halves, one element per thread.
#[kernel(block = 128, extent(x = [n], y = [n]))]
pub fn add_one_f16(t: &impl Thread, x: View<F16, 1>, y: ChunksMut<F16, Flat, 1>, n: u32) {
    let v = x.load::<Flat>(t, [128 * t.block_idx()[0]], F16::ZERO);
    y.store(t, &v.map(|h| F16::round(h.to_f32() + 1.0)));
}

/// The kernels' own `F16` uploads, passes for `Global<F16>` and downloads, without `half`
/// (type-checked here; `f16_buffers_round_trip` runs the transfers where a GPU is at hand).
pub fn add_one_on(
    gpu: &Gpu,
    module: &layout_launch::Module,
    x: &[F16],
) -> Result<Vec<F16>, LaunchError> {
    let dx = gpu.upload(x)?;
    let mut dy = gpu.zeros::<F16>(x.len())?;
    let n = x.len() as u32;
    module.launch(&ADD_ONE_F16, [n.div_ceil(128), 1, 1], (&dx, &mut dy, n))?;
    gpu.download(&dy)
}

#[test]
fn f16_buffers_round_trip() {
    let Ok(gpu) = Gpu::new() else { return };
    let x: Vec<F16> = (0..300).map(|i| F16::from_f32(i as f32)).collect();
    let d = gpu.upload(&x).expect("upload");
    assert_eq!(gpu.download(&d).expect("download"), x);
}

#[test]
fn f16_kernel_on_the_simulator() {
    use linear_layouts::sim::{launch, HostMemory, Launch};
    let x = HostMemory::new((0..300).map(|i| F16::from_f32(i as f32).0 as u64));
    let y = HostMemory::new((0..300).map(|_| 0));
    launch(Launch::new(3, 128, 0), |t| {
        add_one_f16(t, x.view([300]), y.chunks_mut([300]), 300)
    })
    .expect("simulator");
    assert!((0..300).all(|i| F16(y.get(i) as u16).to_f32() == i as f32 + 1.0));
}

#[test]
fn a_kernel_for_another_warp_size_is_refused() {
    use layout_launch::check_warp_size;
    assert!(check_warp_size("twice", 32, 32).is_ok());
    assert!(check_warp_size("any", 0, 32).is_ok());
    let e = check_warp_size("subgroups", 16, 32)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("subgroups: its layouts were written for warps of 16 lanes, and this device's warps have 32"),
        "{}",
        e
    );
    assert_eq!(
        TWICE.warp_size(),
        32,
        "a #[kernel] of warp-32 layouts says so"
    );
}
