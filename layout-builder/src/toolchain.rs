//! The nightly toolchain and its `rust-src`, installed with `rustup` when missing.

use std::process::Command;

use crate::BuildError;

/// Make sure `toolchain` (e.g. `nightly`, `nightly-2026-05-19`) and its `rust-src` are installed,
/// installing them with `rustup` if not.
pub fn ensure_toolchain(toolchain: &str) -> Result<(), BuildError> {
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
    let out = Command::new("rustup")
        .args(["component", "list", "--toolchain", toolchain, "--installed"])
        .output()
        .map_err(|e| BuildError::Tool(e.to_string()))?;
    if !String::from_utf8_lossy(&out.stdout).contains("rust-src") {
        run(
            Command::new("rustup").args(["component", "add", "rust-src", "--toolchain", toolchain]),
            "rustup component add rust-src",
        )?;
    }
    Ok(())
}

/// Run a command to completion, its failure an error naming it.
pub(crate) fn run(c: &mut Command, what: &str) -> Result<(), BuildError> {
    let st = c
        .status()
        .map_err(|e| BuildError::Tool(format!("could not run {}: {}", what, e)))?;
    if st.success() {
        Ok(())
    } else {
        Err(BuildError::Failed(format!("{} failed ({})", what, st)))
    }
}
