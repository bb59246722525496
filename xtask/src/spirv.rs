//! Building the SPIR-V kernels with rust-gpu: its pinned nightly (from
//! `spirv-build/rust-toolchain.toml`, installed with rustup when missing), the `spirv-build`
//! tool built with that nightly into a cache outside the clone (the codegen backend takes minutes
//! the first time, seconds after), the `kernels-spirv` module, and `spirv-val` over it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where `target/spirv/kernels.spv` is written, relative to the workspace root.
pub const MODULE: &str = "target/spirv/kernels.spv";

/// Build `kernels-spirv` into [`MODULE`] with the kernels for subgroups of `lanes` (8 always),
/// and validate it. `checked` keeps rust-gpu's `SilentExit` panic strategy (see `spirv-build`).
pub fn build(checked: bool, lanes: &[u32]) -> Result<PathBuf, String> {
    let features = lane_features(lanes)?;
    let root = crate::root();
    let tool_dir = root.join("spirv-build");
    let toolchain = pinned_toolchain(&tool_dir.join("rust-toolchain.toml"))?;
    layout_builder::ensure_components(&toolchain, &["rust-src", "rustc-dev", "llvm-tools"])
        .map_err(|e| e.to_string())?;
    let cache = cache_dir();
    let mut c = Command::new("cargo");
    layout_builder::clean_env(&mut c);
    c.current_dir(&tool_dir)
        .arg(format!("+{}", toolchain))
        .args(["build", "--release"])
        .env("CARGO_TARGET_DIR", &cache);
    run(&mut c, "building spirv-build (rust-gpu's backend)")?;

    let out = root.join(MODULE);
    std::fs::create_dir_all(out.parent().unwrap_or(&root))
        .map_err(|e| format!("creating {}: {}", out.display(), e))?;
    let mut c = Command::new(cache.join("release/spirv-build"));
    layout_builder::clean_env(&mut c);
    c.current_dir(&root);
    if checked {
        c.arg("--checked");
    }
    c.args(["--features", &features.join(",")]);
    c.arg(root.join("kernels-spirv")).arg(&out);
    run(&mut c, "spirv-build kernels-spirv")?;
    validate(&out)?;
    Ok(out)
}

/// `kernels-spirv`'s features for subgroups of `lanes`: `lanes-N` for each N but 8, whose
/// kernels are always built.
fn lane_features(lanes: &[u32]) -> Result<Vec<String>, String> {
    lanes
        .iter()
        .filter(|&&l| l != 8)
        .map(|&l| match l {
            16 | 32 | 64 => Ok(format!("lanes-{}", l)),
            _ => Err(format!(
                "--lanes {}: the SPIR-V kernels are written for subgroups of 8, 16, 32 or 64 lanes",
                l
            )),
        })
        .collect()
}

/// `spirv-val` for Vulkan 1.2 (the target rust-gpu builds for).
fn validate(spv: &Path) -> Result<(), String> {
    let mut c = Command::new("spirv-val");
    c.args(["--target-env", "vulkan1.2"]).arg(spv);
    match c.status() {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(format!("spirv-val rejected {} ({})", spv.display(), s)),
        Err(e) => Err(format!(
            "cannot run spirv-val ({}): install SPIRV-Tools (Debian: apt-get install spirv-tools)",
            e
        )),
    }
}

/// The `channel` of a rust-toolchain.toml.
fn pinned_toolchain(file: &Path) -> Result<String, String> {
    let text =
        std::fs::read_to_string(file).map_err(|e| format!("reading {}: {}", file.display(), e))?;
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("channel"))
        .filter_map(|r| r.trim_start().strip_prefix('='))
        .map(|v| v.trim().trim_matches('"').to_string())
        .next()
        .ok_or_else(|| format!("{} names no channel", file.display()))
}

/// `$XDG_CACHE_HOME/linear-layouts/spirv-build`, else `~/.cache/...`: shared by every clone,
/// since the backend it holds takes minutes to build and depends only on `spirv-build`'s lockfile.
fn cache_dir() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| crate::root().join("target"));
    base.join("linear-layouts/spirv-build")
}

fn run(c: &mut Command, what: &str) -> Result<(), String> {
    match c.status() {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(format!("{} failed ({})", what, s)),
        Err(e) => Err(format!("could not run {}: {}", what, e)),
    }
}
