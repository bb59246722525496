//! Compile errors of `layout!`, `convert!`, `#[kernel]`, `Tile`, `Mma`, `AsyncCopy` and the launcher's borrows: every invalid layout is an error at the offending tokens that says
//! what is wrong and how to fix it. `TRYBUILD=overwrite cargo test --test builds ui:: -- --ignored` refreshes the
//! `.stderr` files after a deliberate change in wording; review the diff.

#[test]
#[ignore = "runs cargo for minutes: cargo test --test builds -- --ignored"]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.compile_fail("tests/ui_convert/*.rs");
    t.compile_fail("tests/ui_kernel/*.rs");
    t.compile_fail("tests/ui_mma/*.rs");
    t.pass("tests/ui_pass/*.rs");
}
