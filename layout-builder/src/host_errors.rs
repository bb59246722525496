//! Showing a kernel crate's compile errors once. A host crate that builds its kernel crate to
//! PTX in `build.rs` usually depends on it too (to test it on the simulator, to name its
//! `KernelSpec`s), so cargo compiles it for the host as well: an error in the kernel's code
//! would show twice, once from each build. When the host build will report it (the kernel
//! crate is a dependency of the package whose build script runs, and it fails `cargo check` on
//! the host too), the build script leaves the report to the host build.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::toolchain::{clean_env, package};

/// Whether the host build of the package whose build script runs reports the errors of the
/// kernel crate at `manifest`: it depends on the crate, and `cargo check` finds errors in it.
pub fn host_reports(manifest: &Path, scratch: &Path) -> bool {
    let Some(host) = std::env::var_os("CARGO_MANIFEST_DIR") else {
        return false;
    };
    depends_on(&Path::new(&host).join("Cargo.toml"), manifest) && fails_check(manifest, scratch)
}

/// Whether the package at `host` has the package at `kernel` as a path dependency.
fn depends_on(host: &Path, kernel: &Path) -> bool {
    let Some(kernel_dir) = kernel.parent().and_then(|d| std::fs::canonicalize(d).ok()) else {
        return false;
    };
    let Ok(pkg) = package(host) else {
        return false;
    };
    pkg["dependencies"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["path"].as_str())
        .any(|d| std::fs::canonicalize(d).ok().as_deref() == Some(kernel_dir.as_path()))
}

/// Whether `cargo check` of the crate at `manifest` on the host (quietly, in `scratch`) reports
/// an error in that crate's own code: not merely fails (an unreachable registry fails too).
fn fails_check(manifest: &Path, scratch: &Path) -> bool {
    let Ok(want) = std::fs::canonicalize(manifest) else {
        return false;
    };
    let mut c = Command::new("cargo");
    clean_env(&mut c);
    let Ok(out) = c
        .args(["check", "--lib", "--message-format=json", "--manifest-path"])
        .arg(manifest)
        .arg("--target-dir")
        .arg(scratch)
        .stderr(Stdio::null())
        .output()
    else {
        return false;
    };
    String::from_utf8_lossy(&out.stdout).lines().any(|l| {
        let Ok(m) = serde_json::from_str::<serde_json::Value>(l) else {
            return false;
        };
        m["reason"] == "compiler-message"
            && m["message"]["level"] == "error"
            && m["manifest_path"]
                .as_str()
                .and_then(|p| std::fs::canonicalize(p).ok())
                == Some(want.clone())
    })
}
