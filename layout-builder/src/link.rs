//! Linking the kernel crate's dependencies into its PTX. rustc writes PTX for one crate: a call
//! into another crate's non-generic, non-inline function (`libm::expf`) stays a `.extern .func`
//! that ptxas refuses. On nvptx every crate's objects are LLVM bitcode, so the builder does what
//! a linker would: links the kernel crate's bitcode with what it needs of its dependencies'
//! (`llvm-link --only-needed`), keeps only the kernel crate's visible symbols public
//! (`internalize`), optimises the whole (`opt -O3`, which inlines across crates) and writes the
//! PTX (`llc`), with the tools of the rustup component `llvm-tools` matching the nightly's LLVM.
//! rustup's `llvm-bitcode-linker` does the same for `cdylib`s; a library build keeps the kernel
//! crate's own PTX unchanged when nothing is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{io, BuildError};
use crate::toolchain::{ensure_components, run};

/// Functions the CUDA driver provides to every module (its "system calls").
const DRIVER_FUNCTIONS: &[&str] = &["vprintf", "malloc", "free", "__assertfail"];

/// The functions `ptx` declares `.extern` and the driver does not provide.
pub fn unresolved(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|l| l.trim().strip_prefix(".extern .func"))
        .filter_map(|rest| {
            // `.extern .func  (.param .b32 func_retval0) name(` or `.extern .func name(`
            let rest = rest.trim_start();
            let rest = match rest.strip_prefix('(') {
                Some(r) => r.split_once(')').map_or("", |x| x.1),
                None => rest,
            };
            let name = rest.trim().split(['(', ';', ' ']).next()?.trim();
            (!name.is_empty() && !DRIVER_FUNCTIONS.contains(&name)).then(|| name.to_string())
        })
        .collect()
}

/// The `.visible` functions and entries of `ptx`: what the linked module keeps public.
fn visible(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix(".visible ")?;
            let rest = rest
                .strip_prefix(".entry ")
                .or_else(|| rest.strip_prefix(".func "))?;
            let rest = rest.trim_start();
            let rest = match rest.strip_prefix('(') {
                Some(r) => r.split_once(')').map_or("", |x| x.1),
                None => rest,
            };
            Some(rest.trim().split('(').next()?.trim().to_string())
        })
        .filter(|n| !n.is_empty())
        .collect()
}

/// `name` demangled, and the crate it belongs to (the path's first segment), for an error.
pub fn describe(name: &str) -> String {
    let d = rustc_demangle::try_demangle(name);
    match d {
        Ok(d) => {
            let path = format!("{:#}", d);
            let krate = path.split("::").next().unwrap_or("").to_string();
            format!("`{}` (crate `{}`)", path, krate)
        }
        Err(_) => format!(
            "`{}` (not a Rust symbol: a function an `extern` block declares and no crate defines)",
            name
        ),
    }
}

/// The LLVM tools of `toolchain` (installing its `llvm-tools` component when missing).
fn tools(toolchain: &str) -> Result<PathBuf, BuildError> {
    ensure_components(toolchain, &["llvm-tools"])?;
    let out = |args: &[&str]| -> Result<String, BuildError> {
        let o = Command::new("rustup")
            .args(["run", toolchain, "rustc"])
            .args(args)
            .output()
            .map_err(|e| BuildError::Tool(format!("could not run rustc: {}", e)))?;
        Ok(String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let sysroot = out(&["--print", "sysroot"])?;
    let host = out(&["-vV"])?
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .unwrap_or_default();
    Ok(Path::new(&sysroot)
        .join("lib/rustlib")
        .join(host)
        .join("bin"))
}

/// The bitcode objects of `rlib`, extracted into `dir`.
fn objects(ar: &Path, rlib: &Path, dir: &Path) -> Result<Vec<PathBuf>, BuildError> {
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    run(
        Command::new(ar).arg("x").arg(rlib).current_dir(dir),
        "llvm-ar x",
    )?;
    let mut objs: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| io(dir, e))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "o"))
        .collect();
    objs.sort();
    Ok(objs)
}

/// Links the kernel crate's `own` rlib with what it needs of `deps` into `ptx` (replacing the
/// crate's own PTX, `own_ptx`, whose visible symbols it keeps), for `arch`, in scratch
/// directory `work`.
pub fn link(
    toolchain: &str,
    arch: &str,
    own: &Path,
    deps: &[PathBuf],
    own_ptx: &str,
    ptx: &Path,
    work: &Path,
) -> Result<(), BuildError> {
    let bin = tools(toolchain)?;
    let _ = std::fs::remove_dir_all(work);
    let own_objs = objects(&bin.join("llvm-ar"), own, &work.join("own"))?;
    let mut dep_objs = Vec::new();
    for (i, d) in deps.iter().enumerate() {
        dep_objs.extend(objects(
            &bin.join("llvm-ar"),
            d,
            &work.join(format!("dep{}", i)),
        )?);
    }
    let public = visible(own_ptx);
    let (kernel, linked, inner, opt) = (
        work.join("kernel.bc"),
        work.join("linked.bc"),
        work.join("internal.bc"),
        work.join("opt.bc"),
    );
    // The crate's own objects in whole, then only what they need of the dependencies'.
    run(
        Command::new(bin.join("llvm-link"))
            .args(&own_objs)
            .arg("-o")
            .arg(&kernel),
        "llvm-link",
    )?;
    run(
        Command::new(bin.join("llvm-link"))
            .arg(&kernel)
            .arg("--only-needed")
            .args(&dep_objs)
            .arg("-o")
            .arg(&linked),
        "llvm-link --only-needed",
    )?;
    run(
        Command::new(bin.join("opt"))
            .arg("-passes=internalize,globaldce")
            .arg(format!("-internalize-public-api-list={}", public.join(",")))
            .arg(&linked)
            .arg("-o")
            .arg(&inner),
        "opt internalize",
    )?;
    run(
        Command::new(bin.join("opt"))
            .arg("-O3")
            .arg(&inner)
            .arg("-o")
            .arg(&opt),
        "opt -O3",
    )?;
    run(
        Command::new(bin.join("llc"))
            .arg(format!("-mcpu={}", arch))
            .arg(&opt)
            .arg("-o")
            .arg(ptx),
        "llc",
    )
}
