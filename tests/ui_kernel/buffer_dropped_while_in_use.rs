// A buffer cannot be freed while a tensor map describes it or a queued launch uses it: both
// borrow it (the launch until it is waited for or dropped).
use layout_launch::{DeviceTensorMap, Gpu, LaunchError, Module};
use linear_layouts::{kernel, Global, GlobalMut, Swizzle, Thread};

#[kernel(block = 128, extent(x = n, y = n))]
fn scale(t: &impl Thread, x: Global<f32>, y: GlobalMut<f32>, n: u32) {
    let _ = (t, x, y, n);
}

#[allow(dead_code)]
fn map_outlives_its_buffer(gpu: &Gpu) -> Result<(), LaunchError> {
    let buf = gpu.upload(&[0f32; 64 * 64])?;
    let map = DeviceTensorMap::new(gpu, &buf, [64, 64], [64, 32], Swizzle::B128)?;
    drop(buf);
    let _still_used = &map;
    Ok(())
}

#[allow(dead_code)]
fn launch_outlives_its_buffer(gpu: &Gpu, m: &Module) -> Result<(), LaunchError> {
    let x = gpu.upload(&[1f32; 1024])?;
    let mut y = gpu.upload(&[0f32; 1024])?;
    let launch = m.launch(&SCALE, [8, 1, 1], (&x, &mut y, 1024u32))?;
    drop(x);
    launch.wait()
}

fn main() {}
