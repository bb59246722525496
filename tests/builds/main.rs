//! The tests that build crates as a user would, each running cargo itself for minutes: the
//! template copied outside the workspace (`template`) and the compile-error suite (`ui`,
//! trybuild). One test binary, so that the harness runs them side by side (each in its own
//! target directory): while one waits on a single crate's compile or link, the other uses the
//! second core. Both are `#[ignore]`d, so `cargo test --workspace` stays a few minutes: `cargo
//! test --test builds -- --ignored` runs them (CI does, beside the other tests), `cargo test
//! --test builds ui:: -- --ignored` the trybuild suite alone.

mod template;
mod ui;
