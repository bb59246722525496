//! Procedural macros of `linear-layouts`. Not meant to be used directly: depend on the
//! `linear-layouts` facade crate, which re-exports them.
