//! The tests that build crates as a user would, each running cargo itself for minutes: the
//! template copied outside the workspace (`template`) and the compile-error suite (`ui`,
//! trybuild). One test binary, so that the harness runs them side by side (each in its own
//! target directory): while one waits on a single crate's compile or link, the other uses the
//! second core. `cargo test --test builds ui::` runs the trybuild suite alone.

mod template;
mod ui;
