//! `spirv-build CRATE OUT.spv`: builds the kernel crate at CRATE with rust-gpu for Vulkan 1.2
//! and copies its one SPIR-V module to OUT.spv. The capabilities are what `gpu-runtime`'s SPIR-V
//! backend and the kernels use: subgroup shuffles and ids, 8-, 16- and 64-bit integers, and 8- and
//! 16-bit storage buffers. `cargo xtask spirv` runs it; the host checks at run time that the
//! device has them.

use std::process::ExitCode;

use spirv_builder::{Capability, ModuleResult, SpirvBuilder, SpirvMetadata};

/// rustc_codegen_spirv's pinned toolchain (as in rust-toolchain.toml), for the kernel crate.
const TOOLCHAIN: &str = "nightly-2026-08-15";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [krate, out] = args.as_slice() else {
        eprintln!("usage: spirv-build CRATE_DIR OUT.spv");
        return ExitCode::from(2);
    };
    match build(krate, out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("spirv-build: {}", e);
            ExitCode::FAILURE
        }
    }
}

fn build(krate: &str, out: &str) -> Result<(), String> {
    // The backend is built next to this binary (cargo's output directory).
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let dylib = exe.with_file_name("librustc_codegen_spirv.so");
    let caps = [
        Capability::GroupNonUniform,
        Capability::GroupNonUniformShuffle,
        Capability::Int8,
        Capability::Int16,
        Capability::Int64,
        Capability::StorageBuffer8BitAccess,
        Capability::StorageBuffer16BitAccess,
    ];
    let mut b = SpirvBuilder::new(krate, "spirv-unknown-vulkan1.2")
        .rustc_codegen_spirv_location(dylib)
        .spirv_metadata(SpirvMetadata::NameVariables)
        .extension("SPV_KHR_8bit_storage")
        .extension("SPV_KHR_16bit_storage");
    for c in caps {
        b = b.capability(c);
    }
    b.toolchain_overwrite = Some(TOOLCHAIN.to_string());
    let r = b.build().map_err(|e| format!("{} (rust-gpu's errors are above)", e))?;
    let ModuleResult::SingleModule(path) = r.module else {
        return Err("expected one module".to_string());
    };
    std::fs::copy(&path, out).map_err(|e| format!("copying {}: {}", path.display(), e))?;
    println!("{}", out);
    Ok(())
}
