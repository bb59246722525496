//! The template kernel crate (`examples/kernel-template`), tried exactly as a user would: copied
//! to a directory outside this workspace (its path dependencies on this repository made
//! absolute, nothing else changed), built with the documented command (`cargo build`, stable; its build.rs builds the
//! PTX with the nightly the builder installs), the PTX assembled by `ptxas` for sm_90 when one is
//! available (`$PTXAS`, `PATH`, or the Triton wheel's), and its kernel run on the simulator
//! (`cargo test`). Takes a few minutes from cold (a fresh target directory under `target/`).

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Copies `src` to `dst`, making every `path = "..."` that leaves the template absolute.
fn copy_template(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        let (from, to) = (e.path(), dst.join(e.file_name()));
        if e.file_type().unwrap().is_dir() {
            if e.file_name() != "target" {
                copy_template(&from, &to);
            }
        } else if e.file_name() == "Cargo.toml" {
            let text = std::fs::read_to_string(&from).unwrap();
            std::fs::write(&to, absolute_paths(&text, src)).unwrap();
        } else if e.file_name() != "Cargo.lock" {
            std::fs::copy(&from, &to).unwrap();
        }
    }
}

fn absolute_paths(toml: &str, dir: &Path) -> String {
    let mut out = String::new();
    let mut rest = toml;
    while let Some(i) = rest.find("path = \"") {
        let (head, tail) = rest.split_at(i + "path = \"".len());
        let end = tail.find('"').unwrap();
        let path = &tail[..end];
        out.push_str(head);
        // Paths inside the template move with it; the others point back into this repository.
        match path.starts_with("..") {
            true => out.push_str(&dir.join(path).canonicalize().unwrap().display().to_string()),
            false => out.push_str(path),
        }
        rest = &tail[end..];
    }
    out + rest
}

/// `cargo <args>` in `dir` as a user's shell would run it: none of this test's cargo variables.
/// Whether it succeeded, its stdout and its stderr.
fn cargo_run(dir: &Path, target: &Path, args: &[&str]) -> (bool, String, String) {
    let mut c = Command::new("cargo");
    c.args(args).current_dir(dir);
    // What the outer cargo set (its toolchain, flags, wrappers such as CI's clippy pass), as the
    // builder clears it for its own nested build.
    layout_builder::clean_env(&mut c);
    c.env("CARGO_TARGET_DIR", target);
    // CI's shell settings (no incremental state, no debug info) are a user's too.
    for k in ["CARGO_INCREMENTAL", "CARGO_PROFILE_DEV_DEBUG"] {
        if let Some(v) = std::env::var_os(k) {
            c.env(k, v);
        }
    }
    // The GPU build shares the workspace's nvptx build of `core` and the runtime (`cargo xtask
    // ptx` builds it), as kernel crates of one user may.
    c.env(layout_builder::TARGET_DIR_VAR, root().join("target/nvptx"));
    let out = c.output().expect("cargo");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `cargo <args>` as [`cargo_run`], which must succeed: its stdout.
fn cargo(dir: &Path, target: &Path, args: &[&str]) -> String {
    let (ok, stdout, stderr) = cargo_run(dir, target, args);
    assert!(ok, "cargo {:?} failed:\n{}\n{}", args, stdout, stderr);
    stdout
}

/// `cargo <args>` as [`cargo_run`], which must fail: its stderr.
fn cargo_fails(dir: &Path, target: &Path, args: &[&str]) -> String {
    let (ok, stdout, stderr) = cargo_run(dir, target, args);
    assert!(!ok, "cargo {:?} succeeded:\n{}\n{}", args, stdout, stderr);
    stderr
}

#[test]
#[ignore = "runs cargo for minutes: cargo test --test builds -- --ignored"]
fn the_template_builds_outside_the_workspace_and_runs_on_the_simulator() {
    let tmp = std::env::temp_dir().join(format!("ll-template-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    copy_template(&root().join("examples/kernel-template"), &tmp);
    // The workspace's lock file: the same versions, and no registry needed.
    std::fs::copy(root().join("Cargo.lock"), tmp.join("Cargo.lock")).unwrap();
    let target = root().join("target/template");
    // The simulator's loop first: it never builds the PTX (earlier runs' copies, at other
    // paths, left build directories of their own: those go first).
    for e in std::fs::read_dir(target.join("debug/build"))
        .into_iter()
        .flatten()
        .flatten()
    {
        if e.file_name()
            .to_string_lossy()
            .starts_with("kernel-template-")
        {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
    let tests = cargo(&tmp, &target, &["test", "-q"]);
    assert!(tests.contains("4 passed"), "{}", tests);
    assert!(
        !ptx_built(&target),
        "`cargo test` built the PTX (a kernel-template build script ran)"
    );

    cargo(&tmp, &target, &["build"]);
    assert!(ptx_built(&target), "`cargo build` built no PTX");
    let (ptx, text) = built_ptx(&tmp, &target, "transpose");
    // 16-byte vectors: the transpose's 8 each way, SiLU's 1, the softmax's 8 (the
    // cross-entropy's f16 rows move 8 bytes at a time).
    assert_eq!(
        text.matches("ld.global.v4").count(),
        17,
        "16-byte loads in {}",
        ptx.display()
    );
    assert_eq!(
        text.matches("st.global.v4").count(),
        17,
        "16-byte stores in {}",
        ptx.display()
    );
    assert!(
        text.contains("ex2.approx.ftz.f32") && text.contains("rcp.approx.ftz.f32"),
        "the f16 kernel's fast math in {}",
        ptx.display()
    );
    mistakes_are_reported_once_and_early(&tmp, &target);
    dependencies_are_linked_into_the_ptx(&tmp, &target);
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Whether the host crate's build script (the PTX build) has run in `target`.
fn ptx_built(target: &Path) -> bool {
    std::fs::read_dir(target.join("debug/build"))
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("kernel-template-")
        })
}

/// A user's mistakes in the copied template: a wrong register count fails the simulator's host
/// build (`cargo test`, a type error: `cargo check` reports it alike, but would build every
/// dependency's metadata a second time), naming both counts; a type error in the kernel crate is printed once, not by
/// both the host build and the build script's GPU build; a barrier a warp reaches at two
/// calls fails the GPU build; a second binary leaves
/// `cargo run -- --ptx-path` working.
fn mistakes_are_reported_once_and_early(tmp: &Path, target: &Path) {
    let lib = tmp.join("kernel/src/lib.rs");
    let good = std::fs::read_to_string(&lib).unwrap();
    let helper = "\n#[allow(dead_code)]\nfn wrong_count() -> f32 {\n    linear_layouts::Tile::<Rows, f32, 8>::splat(1.0).values[0]\n}\n";
    std::fs::write(&lib, format!("{}{}", good, helper)).unwrap();
    let err = cargo_fails(tmp, target, &["test", "--no-run"]);
    assert!(
        err.contains("`Rows` does not hold 8 registers per thread")
            && err.contains("Registers<32>"),
        "{}",
        err
    );
    let typo = "\npub fn typo() -> u32 {\n    \"not a number\"\n}\n";
    std::fs::write(&lib, format!("{}{}", good, typo)).unwrap();
    let err = cargo_fails(tmp, target, &["build"]);
    assert_eq!(err.matches("mismatched types").count(), 1, "{}", err);
    // A barrier in both arms of a branch on the lane: the simulator would report it where a
    // test runs it; the GPU build refuses it, naming the entry.
    let split = "\n#[kernel(block = Halves::THREADS, extent(out = [n]))]\npub fn flag(t: &impl Thread, out: ChunksMut<f32, Halves, 1>, n: u32) {\n    if t.lane() == 0 {\n        core::hint::black_box(n);\n        t.sync_block();\n    } else {\n        t.sync_block();\n    }\n    let _ = out;\n}\n";
    std::fs::write(&lib, format!("{}{}", good, split)).unwrap();
    let err = cargo_fails(tmp, target, &["build"]);
    assert!(
        err.contains("aligned instructions reached by part of a warp")
            && err.contains("flag: `bar.sync"),
        "{}",
        err
    );
    std::fs::write(&lib, good).unwrap();
    std::fs::create_dir_all(tmp.join("src/bin")).unwrap();
    std::fs::write(tmp.join("src/bin/other.rs"), "fn main() {}\n").unwrap();
    let ptx = cargo(tmp, target, &["run", "-q", "--", "--ptx-path"]);
    assert!(ptx.trim().ends_with(".ptx"), "{}", ptx);
}

/// A kernel that calls a dependency's function (`libm::expf`, neither generic nor inline): the
/// builder links the dependency's nvptx bitcode (never a host crate's object, such as the
/// proc macros' dependencies) into self-contained PTX that ptxas accepts.
fn dependencies_are_linked_into_the_ptx(tmp: &Path, target: &Path) {
    let manifest = tmp.join("kernel/Cargo.toml");
    let toml = std::fs::read_to_string(&manifest).unwrap();
    let toml = toml.replacen("[dependencies]\n", "[dependencies]\nlibm = \"0.2\"\n", 1);
    std::fs::write(&manifest, toml).unwrap();
    let lib = tmp.join("kernel/src/lib.rs");
    let kernel = "\n#[kernel(block = Halves::THREADS, extent(x = [n], y = [n]))]\npub fn expf(t: &impl Thread, x: View<f32, 1>, y: ChunksMut<f32, Halves, 1>, n: u32) {\n    let v = x.load::<Halves>(t, [1024 * t.block_idx()[0]], 0.0);\n    y.store(t, &v.map(libm::expf));\n}\n";
    let good = std::fs::read_to_string(&lib).unwrap();
    std::fs::write(&lib, format!("{}{}", good, kernel)).unwrap();
    cargo(tmp, target, &["build"]);
    built_ptx(tmp, target, "expf");
}

/// The PTX `cargo run -- --ptx-path` names, and its text: it holds the entry `entry`, calls no
/// function it does not define, and ptxas assembles it for sm_90 where one is found (CI installs
/// one, nvidia-cuda-nvcc-cu12, and sets LAYOUT_PTXAS=require).
fn built_ptx(tmp: &Path, target: &Path, entry: &str) -> (PathBuf, String) {
    let ptx = PathBuf::from(cargo(tmp, target, &["run", "-q", "--", "--ptx-path"]).trim());
    let text = std::fs::read_to_string(&ptx).unwrap();
    assert!(
        text.contains(&format!(".visible .entry {}(", entry)),
        "no {} entry in {}",
        entry,
        ptx.display()
    );
    assert!(
        !text.contains(".extern .func"),
        "unresolved functions in {}",
        ptx.display()
    );
    let assembled = layout_builder::assemble(&ptx, "sm_90").unwrap_or_else(|e| panic!("{}", e));
    if !assembled {
        let required = std::env::var("LAYOUT_PTXAS").is_ok_and(|v| v == "require");
        assert!(!required, "LAYOUT_PTXAS=require and no ptxas found: set PTXAS, or pip install nvidia-cuda-nvcc-cu12");
        eprintln!(
            "no ptxas here (set PTXAS, or pip install nvidia-cuda-nvcc-cu12): PTX not assembled"
        )
    }
    (ptx, text)
}
