// A launcher trusts a `KernelSpec` (the entry's parameters, block and shared memory), so only
// `#[kernel]` writes one; a hand-made spec is an `unsafe` promise.
use linear_layouts::runtime::kernel::KernelSpec;
use linear_layouts::GlobalMut;

const FAKE: KernelSpec<(GlobalMut<'static, f32>, u32)> =
    KernelSpec::new("softmax_f32_1024", [128, 1, 1], 0, [1, 1, 1], 32);

fn main() {
    let _ = FAKE;
}
