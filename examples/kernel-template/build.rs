//! Builds the kernel crate to PTX (nightly and rust-src are installed if missing) and tells the
//! host where it is: `env!("MY_KERNELS_PTX")`.

fn main() {
    if let Err(e) = layout_builder::PtxBuilder::new("kernel")
        .arch("sm_90")
        .build()
    {
        // The message says what is missing and how to get it.
        println!("cargo::error={}", e);
    }
}
