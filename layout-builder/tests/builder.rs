//! The builder on a kernel crate with a run-time index (needs rustup; installs the nightly).

use std::path::Path;

#[test]
fn a_runtime_index_becomes_a_trap_not_an_unresolved_symbol() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bounds");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bounds");
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
