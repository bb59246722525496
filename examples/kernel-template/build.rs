//! Builds the kernel crate to PTX (nightly and rust-src are installed if missing) and tells the
//! host where it is: `env!("MY_KERNELS_PTX")`.

fn main() {
    if let Err(e) = layout_builder::PtxBuilder::new("kernel")
        .arch("sm_90")
        .build()
    {
        // Failing the build script makes cargo show its whole stderr: the nightly compiler's
        // errors for the GPU build, then this line.
        eprintln!("error: {}", e);
        std::process::exit(1);
    }
}
