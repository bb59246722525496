//! The tools a build needs: a nightly toolchain and its components, installed with `rustup`
//! when missing, and `ptxas` to check a PTX file with, found where it is.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::BuildError;

/// Make sure `toolchain` (e.g. `nightly`, `nightly-2026-05-19`) and its `rust-src` are installed,
/// installing them with `rustup` if not.
pub fn ensure_toolchain(toolchain: &str) -> Result<(), BuildError> {
    ensure_components(toolchain, &["rust-src"])
}

/// Make sure `toolchain` and each of `components` (`rust-src`, `rustc-dev`, `llvm-tools`) are
/// installed, installing what is missing with `rustup`.
pub fn ensure_components(toolchain: &str, components: &[&str]) -> Result<(), BuildError> {
    let has = Command::new("rustup")
        .args(["run", toolchain, "rustc", "--version"])
        .output()
        .map_err(|e| BuildError::Tool(format!("rustup is needed to build PTX ({})", e)))?
        .status
        .success();
    if !has {
        run(
            Command::new("rustup").args([
                "toolchain",
                "install",
                toolchain,
                "--profile",
                "minimal",
            ]),
            "rustup toolchain install",
        )?;
    }
    let installed = installed_components(toolchain)?;
    for c in components.iter().filter(|c| !has_component(&installed, c)) {
        let added = run(
            Command::new("rustup").args(["component", "add", c, "--toolchain", toolchain]),
            &format!("rustup component add {}", c),
        );
        if let Err(e) = added {
            // rustup takes no lock: another build beside this one (cargo's parallel tests, two
            // build scripts) may be installing the same component, and the loser of that race
            // fails on the winner's files. Installed by either is installed.
            if !wait_for_component(toolchain, c) {
                return Err(e);
            }
        }
    }
    Ok(())
}

/// `rustup component list --installed` of `toolchain`.
fn installed_components(toolchain: &str) -> Result<String, BuildError> {
    let out = Command::new("rustup")
        .args(["component", "list", "--toolchain", toolchain, "--installed"])
        .output()
        .map_err(|e| BuildError::Tool(e.to_string()))?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Whether `installed` lists component `c`: as `rust-src`, or with the host triple
/// (`rustc-dev-x86_64-unknown-linux-gnu`).
fn has_component(installed: &str, c: &str) -> bool {
    installed
        .lines()
        .any(|l| l == c || l.strip_prefix(c).is_some_and(|r| r.starts_with('-')))
}

/// Whether component `c` shows up as installed within a minute (another process finishing its
/// installation).
fn wait_for_component(toolchain: &str, c: &str) -> bool {
    (0..30).any(|_| {
        let done = installed_components(toolchain).is_ok_and(|i| has_component(&i, c));
        if !done {
            std::thread::sleep(std::time::Duration::from_secs(2));
        }
        done
    })
}

/// Run a command to completion, its failure an error naming it and carrying what it printed
/// (a build script's stderr is shown only in part, or not at all, by some cargo settings: the
/// error itself says why).
pub(crate) fn run(c: &mut Command, what: &str) -> Result<(), BuildError> {
    let out = c
        .output()
        .map_err(|e| BuildError::Tool(format!("could not run {}: {}", what, e)))?;
    if out.status.success() {
        return Ok(());
    }
    let said = [&out.stderr, &out.stdout]
        .map(|b| String::from_utf8_lossy(b).trim().to_string())
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    Err(BuildError::Failed(match said.is_empty() {
        true => format!("{} failed ({}) and printed nothing", what, out.status),
        false => format!("{} failed ({}):\n{}", what, out.status, said),
    }))
}

/// A `ptxas` to assemble PTX with: `$PTXAS`, else `ptxas` on the `PATH`, else the one in the
/// pip package of the CUDA compiler (`nvidia-cuda-nvcc-cu12`) or of Triton.
pub fn find_ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PTXAS") {
        return Some(p.into());
    }
    let on_path = Command::new("ptxas")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if on_path {
        return Some("ptxas".into());
    }
    [
        ("nvidia.cuda_nvcc", "bin/ptxas"),
        ("triton", "backends/nvidia/bin/ptxas"),
    ]
    .into_iter()
    .find_map(|(module, rel)| {
        // A package's directory, namespace packages (nvidia.*) included.
        let script = format!("import {m}; print(next(iter({m}.__path__)))", m = module);
        let py = Command::new("python3")
            .args(["-c", &script])
            .output()
            .ok()?;
        let p = PathBuf::from(String::from_utf8_lossy(&py.stdout).trim()).join(rel);
        (py.status.success() && p.exists()).then_some(p)
    })
}

/// Remove from `c`'s environment what an outer cargo (a build script's, an xtask's) set that
/// would change a nested cargo build: its toolchain, flags, target and profile.
pub fn clean_env(c: &mut Command) {
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy();
        let outer = (k.starts_with("CARGO_") && k != "CARGO_HOME")
            || k.starts_with("RUSTC")
            || k.starts_with("RUSTDOC")
            || matches!(
                &*k,
                "CARGO"
                    | "RUSTFLAGS"
                    | "RUSTUP_TOOLCHAIN"
                    | "TARGET"
                    | "HOST"
                    | "OUT_DIR"
                    | "OPT_LEVEL"
                    | "PROFILE"
                    | "DEBUG"
                    | "NUM_JOBS"
            );
        if outer {
            c.env_remove(&*k);
        }
    }
}

/// Assembles `ptx` for `arch` (`sm_90`, ...) with [`find_ptxas`]: `Ok(true)` when ptxas accepts
/// it, `Ok(false)` when no ptxas is installed, an error carrying ptxas's messages when it refuses.
pub fn assemble(ptx: &Path, arch: &str) -> Result<bool, BuildError> {
    let Some(ptxas) = find_ptxas() else {
        return Ok(false);
    };
    let out = Command::new(&ptxas)
        .arg(format!("-arch={}", arch))
        .args(["-o", "/dev/null"])
        .arg(ptx)
        .output()
        .map_err(|e| BuildError::Tool(format!("could not run {}: {}", ptxas.display(), e)))?;
    match out.status.success() {
        true => Ok(true),
        false => Err(BuildError::Failed(format!(
            "ptxas refused {}: {}",
            ptx.display(),
            String::from_utf8_lossy(&out.stderr)
        ))),
    }
}

/// The `[package]` at `manifest`, as `cargo metadata --no-deps` describes it.
pub(crate) fn package(manifest: &Path) -> Result<serde_json::Value, BuildError> {
    let mut c = Command::new("cargo");
    clean_env(&mut c);
    let out = c
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--manifest-path",
        ])
        .arg(manifest)
        .output()
        .map_err(|e| BuildError::Tool(format!("could not run cargo metadata: {}", e)))?;
    if !out.status.success() {
        return Err(BuildError::Crate(
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ));
    }
    let mut meta: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| BuildError::Crate(format!("cargo metadata: {}", e)))?;
    let want = std::fs::canonicalize(manifest).map_err(|e| crate::error::io(manifest, e))?;
    let packages = meta["packages"]
        .as_array_mut()
        .map(std::mem::take)
        .unwrap_or_default();
    packages
        .into_iter()
        .find(|p| {
            p["manifest_path"]
                .as_str()
                .and_then(|m| std::fs::canonicalize(m).ok())
                == Some(want.clone())
        })
        .ok_or_else(|| BuildError::Crate(format!("{} has no [package]", manifest.display())))
}
