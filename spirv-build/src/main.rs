//! `spirv-build CRATE OUT.spv`: builds the kernel crate at CRATE with rust-gpu for Vulkan 1.2
//! and copies its one SPIR-V module to OUT.spv. The capabilities are what `gpu-runtime`'s SPIR-V
//! backend and the kernels use: subgroup shuffles and ids, 8-, 16- and 64-bit integers, and 8- and
//! 16-bit storage buffers. `cargo xtask spirv` runs it; the host checks at run time that the
//! device has them.
//!
//! A failed bounds check is unreachable code in the module, as an out-of-range access is in the
//! PTX build (raw pointers, no checks): the kernels' shared-memory offsets are solved at compile
//! time inside the declared size, and the host sizes every buffer for its grid. rust-gpu's
//! default, `SilentExit`, instead rewrites every check into an early return of the entry point;
//! Mesa 22.3's lavapipe runs such a module wrongly once a shared-memory conversion is followed by
//! a loop (the loop's global stores are lost and a 128-register result reads as zeros, with no
//! check failing: the same module built with checks as unreachable is correct element for
//! element). `--checked` builds with `SilentExit`, to look for a real out-of-range access on a
//! driver that runs it correctly.

use std::process::ExitCode;

use spirv_builder::{Capability, ModuleResult, ShaderPanicStrategy, SpirvBuilder, SpirvMetadata};

/// rustc_codegen_spirv's pinned toolchain (as in rust-toolchain.toml), for the kernel crate.
const TOOLCHAIN: &str = "nightly-2026-08-15";

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let checked = args.iter().any(|a| a == "--checked");
    args.retain(|a| a != "--checked");
    // `--features a,b`: the crate's features instead of its default ones.
    let features = match args.iter().position(|a| a == "--features") {
        Some(i) if i + 1 < args.len() => {
            let list = args.remove(i + 1);
            args.remove(i);
            Some(
                list.split(',')
                    .filter(|f| !f.is_empty())
                    .map(String::from)
                    .collect::<Vec<_>>(),
            )
        }
        _ => None,
    };
    let [krate, out] = args.as_slice() else {
        eprintln!("usage: spirv-build [--checked] [--features A,B] CRATE_DIR OUT.spv");
        return ExitCode::from(2);
    };
    match build(krate, out, checked, features) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("spirv-build: {}", e);
            ExitCode::FAILURE
        }
    }
}

fn build(
    krate: &str,
    out: &str,
    checked: bool,
    features: Option<Vec<String>>,
) -> Result<(), String> {
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
    if let Some(features) = features {
        b = b
            .shader_crate_default_features(false)
            .shader_crate_features(features);
    }
    b.toolchain_overwrite = Some(TOOLCHAIN.to_string());
    if !checked {
        b.shader_panic_strategy =
            ShaderPanicStrategy::UNSOUND_DO_NOT_USE_UndefinedBehaviorViaUnreachable;
    }
    let r = b
        .build()
        .map_err(|e| format!("{} (rust-gpu's errors are above)", e))?;
    let ModuleResult::SingleModule(path) = r.module else {
        return Err("expected one module".to_string());
    };
    std::fs::copy(&path, out).map_err(|e| format!("copying {}: {}", path.display(), e))?;
    println!("{}", out);
    Ok(())
}
