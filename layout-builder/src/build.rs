//! [`PtxBuilder`]: one kernel crate to one PTX file.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{io, BuildError};
use crate::toolchain::{clean_env, ensure_toolchain, package};
use crate::{host_errors, link};

/// The nightly features a kernel crate needs, enabled on it by the builder.
const FEATURES: &str =
    "feature(abi_ptx,stdarch_nvptx,core_intrinsics,gpu_intrinsics,gpu_launch_sized_workgroup_mem)";

/// The environment variable naming the nvptx target directory of every builder not given one
/// (see [`PtxBuilder::target_dir`]).
pub const TARGET_DIR_VAR: &str = "LAYOUT_NVPTX_TARGET_DIR";

/// Builds a kernel crate for `nvptx64-nvidia-cuda` into one PTX file.
#[derive(Clone, Debug)]
pub struct PtxBuilder {
    path: PathBuf,
    arch: String,
    toolchain: String,
    target_dir: Option<PathBuf>,
    out_file: Option<PathBuf>,
    features: Vec<String>,
    default_features: bool,
}

impl PtxBuilder {
    /// The crate at `path` (its directory, holding `Cargo.toml`), for `sm_90` with `nightly`.
    pub fn new(path: impl AsRef<Path>) -> Self {
        PtxBuilder {
            path: path.as_ref().to_path_buf(),
            arch: "sm_90".into(),
            toolchain: "nightly".into(),
            target_dir: None,
            out_file: None,
            features: Vec::new(),
            default_features: true,
        }
    }
    /// The GPU architecture (`sm_80`, `sm_90`, ...).
    pub fn arch(mut self, arch: &str) -> Self {
        self.arch = arch.into();
        self
    }
    /// The nightly toolchain to build with (default `nightly`; pin a dated one for
    /// reproducible PTX).
    pub fn toolchain(mut self, toolchain: &str) -> Self {
        self.toolchain = toolchain.into();
        self
    }
    /// Where cargo builds (default: `$LAYOUT_NVPTX_TARGET_DIR` when set, else `$OUT_DIR/nvptx`
    /// in a build script, else the crate's `target/nvptx`). Never the outer build's own target
    /// directory, whose lock it holds. Kernel crates that build in one directory share one build
    /// of `core` and of their common dependencies for nvptx.
    pub fn target_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.target_dir = Some(dir.as_ref().to_path_buf());
        self
    }
    /// Where the PTX goes (default: `$OUT_DIR/<crate>.ptx` in a build script, else
    /// `<target dir>/ptx/<crate>.ptx`).
    pub fn out_file(mut self, file: impl AsRef<Path>) -> Self {
        self.out_file = Some(file.as_ref().to_path_buf());
        self
    }
    /// Cargo features of the kernel crate to enable.
    pub fn features(mut self, features: &[&str]) -> Self {
        self.features = features.iter().map(|s| s.to_string()).collect();
        self
    }
    /// Build without the kernel crate's default features.
    pub fn no_default_features(mut self) -> Self {
        self.default_features = false;
        self
    }

    /// Build, and return the PTX file's path. In a build script, also print
    /// `cargo:rustc-env=<CRATE>_PTX=<path>` and `cargo:rerun-if-changed` for the kernel crate.
    pub fn build(&self) -> Result<PathBuf, BuildError> {
        let manifest = self.path.join("Cargo.toml");
        let name = crate_name(&manifest)?;
        ensure_toolchain(&self.toolchain)?;
        let out_dir = std::env::var_os("OUT_DIR").map(PathBuf::from);
        let shared = std::env::var_os(TARGET_DIR_VAR).map(PathBuf::from);
        let target_dir = match (&self.target_dir, shared, &out_dir) {
            (Some(d), _, _) => d.clone(),
            (None, Some(d), _) => d,
            (None, None, Some(o)) => o.join("nvptx"),
            (None, None, None) => self.path.join("target/nvptx"),
        };
        let stem = name.replace('-', "_");
        let asm = target_dir.join("asm").join(format!("{}.s", stem));
        let fingerprints = target_dir.join("nvptx64-nvidia-cuda/release/.fingerprint");
        let out = match (&self.out_file, &out_dir) {
            (Some(f), _) => f.clone(),
            (None, Some(o)) => o.join(format!("{}.ptx", name)),
            (None, None) => target_dir.join("ptx").join(format!("{}.ptx", name)),
        };
        let progress = crate::progress::Progress::start(format!(
            "{} for nvptx64-nvidia-cuda ({})",
            name, self.arch
        ));
        let built = build_asm(
            || self.command(&manifest, &target_dir, &asm),
            &asm,
            &fingerprints,
            &stem,
        );
        let artifacts = match built {
            Err(BuildError::Compile(_))
                if out_dir.is_some()
                    && host_errors::host_reports(&manifest, &target_dir.join("host-check")) =>
            {
                // The host build shows these errors and fails: no PTX is needed.
                println!(
                    "cargo:warning={} does not compile; its errors are the host build's",
                    name
                );
                return self.announce(&stem, &out, &manifest, "").map(|_| out);
            }
            r => r?,
        };
        let ptx = self.link_dependencies(&manifest, &asm, &artifacts, &target_dir.join("link"))?;
        progress.finish();
        let ptx = crate::bounds::apply(&ptx)?;
        crate::convergence::check(&ptx).map_err(BuildError::Divergent)?;
        self.announce(&stem, &out, &manifest, &ptx)?;
        Ok(out)
    }

    /// Writes `ptx` to `out` and, in a build script, tells cargo where it is and when to
    /// build again.
    fn announce(
        &self,
        stem: &str,
        out: &Path,
        manifest: &Path,
        ptx: &str,
    ) -> Result<(), BuildError> {
        if let Some(dir) = out.parent() {
            std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        }
        std::fs::write(out, ptx).map_err(|e| io(out, e))?;
        if std::env::var_os("OUT_DIR").is_some() {
            println!(
                "cargo:rustc-env={}_PTX={}",
                stem.to_uppercase(),
                out.display()
            );
            println!("cargo:rerun-if-changed={}", self.path.join("src").display());
            println!("cargo:rerun-if-changed={}", manifest.display());
            println!("cargo:rerun-if-env-changed={}", TARGET_DIR_VAR);
        }
        Ok(())
    }

    /// Links into `asm` what it calls of the crates in cargo's `artifacts` messages, when it
    /// calls any, and returns the PTX; fails naming what no crate defines.
    fn link_dependencies(
        &self,
        manifest: &Path,
        asm: &Path,
        artifacts: &str,
        work: &Path,
    ) -> Result<String, BuildError> {
        let text = std::fs::read_to_string(asm).map_err(|e| io(asm, e))?;
        if link::unresolved(&text).is_empty() {
            return Ok(text);
        }
        let (own, deps) = rlibs(artifacts, manifest)?;
        link::link(&self.toolchain, &self.arch, &own, &deps, &text, asm, work)?;
        let text = std::fs::read_to_string(asm).map_err(|e| io(asm, e))?;
        let left = link::unresolved(&text);
        match left.is_empty() {
            true => Ok(text),
            false => Err(BuildError::Unresolved(
                left.iter().map(|n| link::describe(n)).collect(),
            )),
        }
    }

    /// `cargo +<nightly> rustc --lib` for nvptx with build-std, panics as traps and the kernel
    /// features, in an environment cleared of the outer cargo's variables.
    fn command(&self, manifest: &Path, target_dir: &Path, asm: &Path) -> Command {
        let mut c = Command::new("cargo");
        c.arg(format!("+{}", self.toolchain));
        clean_env(&mut c);
        c.env(
            "CARGO_ENCODED_RUSTFLAGS",
            ["-Zunstable-options", "-Cpanic=immediate-abort"].join("\x1f"),
        );
        // Diagnostics rendered on stderr as usual; the artifact messages (each crate's rlib, for
        // linking) on stdout.
        c.args([
            "rustc",
            "--lib",
            "--release",
            "--message-format=json-render-diagnostics",
            "--manifest-path",
        ])
        .arg(manifest)
        .args([
            "--target",
            "nvptx64-nvidia-cuda",
            "-Z",
            "build-std=core",
            "--target-dir",
        ])
        .arg(target_dir);
        if !self.default_features {
            c.arg("--no-default-features");
        }
        if !self.features.is_empty() {
            c.args(["--features", &self.features.join(",")]);
        }
        c.arg("--")
            .arg(format!("--emit=asm={},link", asm.display()))
            .arg("-C")
            .arg(format!("target-cpu={}", self.arch))
            .arg(format!("-Zcrate-attr={}", FEATURES))
            // A kernel crate need not use every feature the builder turns on for it.
            .arg("-Zcrate-attr=allow(internal_features, unused_features)");
        c
    }
}

/// The package name in a manifest, read with `cargo metadata`.
fn crate_name(manifest: &Path) -> Result<String, BuildError> {
    if !manifest.is_file() {
        return Err(BuildError::Crate(format!(
            "no kernel crate at {}: give PtxBuilder::new the directory that holds its Cargo.toml",
            manifest.display()
        )));
    }
    let pkg = package(manifest)?;
    let has_lib = pkg["targets"].as_array().into_iter().flatten().any(|t| {
        t["kind"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|k| k == "lib" || k == "rlib")
    });
    if !has_lib {
        return Err(BuildError::Crate(format!(
            "{} has no library target: a kernel crate is a `no_std` library (src/lib.rs)",
            manifest.display()
        )));
    }
    Ok(pkg["name"].as_str().unwrap_or_default().to_string())
}

/// Runs the build, which writes the crate's assembly at `asm`, and returns cargo's JSON
/// messages. A build cargo finds up to date keeps the file of its last run; if that file is
/// gone, the crate's fingerprints are dropped and it builds once more.
fn build_asm(
    c: impl Fn() -> Command,
    asm: &Path,
    fingerprints: &Path,
    stem: &str,
) -> Result<String, BuildError> {
    let what = "cargo +nightly rustc for nvptx64-nvidia-cuda";
    if let Some(dir) = asm.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    }
    let messages = run_json(&mut c(), what)?;
    if asm.exists() {
        return Ok(messages);
    }
    if let Ok(rd) = std::fs::read_dir(fingerprints) {
        for e in rd.flatten() {
            if e.file_name()
                .to_string_lossy()
                .starts_with(&format!("{}-", stem))
            {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    let messages = run_json(&mut c(), what)?;
    match asm.exists() {
        true => Ok(messages),
        false => Err(BuildError::Failed(format!(
            "the nvptx build wrote no {}",
            asm.display()
        ))),
    }
}

/// Runs cargo with JSON messages: its stdout, the messages, returned, its stderr passed on; a
/// failure's stderr (rustc's errors) is the error, for the caller to show or not.
fn run_json(c: &mut Command, what: &str) -> Result<String, BuildError> {
    let out = c
        .output()
        .map_err(|e| BuildError::Tool(format!("could not run {}: {}", what, e)))?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    match out.status.success() {
        true => {
            eprint!("{}", stderr);
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        }
        false => Err(BuildError::Compile(stderr)),
    }
}

/// Whether `file` was built for the nvptx target: cargo puts a target's artifacts under a
/// directory named after it, and host artifacts (`--target` given) under `release/`.
fn is_nvptx_artifact(file: &Path) -> bool {
    file.components()
        .any(|c| c.as_os_str() == "nvptx64-nvidia-cuda")
}

/// The nvptx rlibs in cargo's artifact `messages`: the kernel crate's (at `manifest`) and the
/// others.
fn rlibs(messages: &str, manifest: &Path) -> Result<(PathBuf, Vec<PathBuf>), BuildError> {
    let want = std::fs::canonicalize(manifest).map_err(|e| io(manifest, e))?;
    let (mut own, mut deps) = (None, Vec::new());
    for line in messages.lines() {
        let Ok(m) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if m["reason"] != "compiler-artifact" {
            continue;
        }
        let is_own = m["manifest_path"]
            .as_str()
            .and_then(|p| std::fs::canonicalize(p).ok())
            == Some(want.clone());
        let files = m["filenames"].as_array().into_iter().flatten();
        // Host artifacts (proc macros and what they use, build scripts' dependencies) are
        // native objects, not nvptx bitcode: only the target's rlibs can be linked.
        for f in files
            .filter_map(|f| f.as_str())
            .filter(|f| f.ends_with(".rlib") && is_nvptx_artifact(Path::new(f)))
        {
            match is_own {
                true => own = Some(PathBuf::from(f)),
                false => deps.push(PathBuf::from(f)),
            }
        }
    }
    let own = own.ok_or_else(|| {
        BuildError::Failed(format!("cargo reported no rlib of {}", manifest.display()))
    })?;
    Ok((own, deps))
}
