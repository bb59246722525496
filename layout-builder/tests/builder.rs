//! The builder on a kernel crate with a run-time index (needs rustup; installs the nightly).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The fixture crates build one at a time into one target directory, the workspace's nvptx one
/// (`cargo xtask ptx` and the template test build there too), so that `core` for nvptx
/// (`-Z build-std`, the bulk of each build) is built once for all of them.
static TARGET: Mutex<()> = Mutex::new(());

/// The shared target directory, held for one build.
fn target() -> (MutexGuard<'static, ()>, PathBuf) {
    let guard = TARGET.lock().unwrap_or_else(PoisonError::into_inner);
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    (guard, tmp.parent().unwrap_or(tmp).join("nvptx"))
}

#[test]
fn a_runtime_index_becomes_a_trap_not_an_unresolved_symbol() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bounds");
    let (_one_at_a_time, target) = target();
    let ptx = layout_builder::PtxBuilder::new(&here)
        .target_dir(&target)
        .out_file(target.join("bounds.ptx"))
        .build()
        .expect("the kernel crate builds");
    let text = std::fs::read_to_string(ptx).unwrap();
    assert!(text.contains(".entry pick"), "{}", text);
    assert!(
        text.contains("trap;"),
        "the failed bounds check traps:\n{}",
        text
    );
    assert!(
        !text.lines().any(|l| l.contains(".extern .func")),
        "no unresolved functions:\n{}",
        text
    );
}

#[test]
fn a_directory_without_a_crate_is_an_error_that_says_so() {
    let e = layout_builder::PtxBuilder::new("/nonexistent/kernel")
        .build()
        .unwrap_err();
    assert!(e.to_string().contains("no kernel crate at"), "{}", e);
}

#[test]
fn a_dependencys_functions_are_linked_into_the_ptx() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/libm-kernel");
    let (_one_at_a_time, target) = target();
    let ptx = layout_builder::PtxBuilder::new(&here)
        .target_dir(&target)
        .out_file(target.join("libm.ptx"))
        .build()
        .expect("the kernel crate builds and links");
    let text = std::fs::read_to_string(&ptx).unwrap();
    assert!(text.contains(".visible .entry exp_libm("), "{}", text);
    assert!(
        !text.contains(".extern"),
        "libm's expf is linked in:\n{}",
        text
    );
    let assembled = layout_builder::assemble(&ptx, "sm_90").unwrap_or_else(|e| panic!("{}", e));
    assert!(
        assembled || std::env::var("LAYOUT_PTXAS").map_or(true, |v| v != "require"),
        "LAYOUT_PTXAS=require and no ptxas found"
    );
}

#[test]
fn a_function_no_crate_defines_fails_the_build_by_name() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/unresolved");
    let (_one_at_a_time, target) = target();
    let e = layout_builder::PtxBuilder::new(&here)
        .target_dir(&target)
        .out_file(target.join("unresolved.ptx"))
        .build()
        .expect_err("nothing defines nowhere_defined");
    let m = e.to_string();
    assert!(
        m.contains("`nowhere_defined`") && m.contains("no crate defines"),
        "{}",
        m
    );
}
