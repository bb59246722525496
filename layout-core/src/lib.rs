//! # layout-core
//!
//! GF(2) *linear layouts* with Triton's semantics, bit for bit.
//!
//! A [`LinearLayout`] maps named input dimensions (hardware locations: `register`, `lane`, `warp`,
//! `block`, or a shared-memory `offset`) to named output dimensions (tensor coordinates `dim0`,
//! `dim1`, ...). Every index is a bit vector; the map XORs one basis vector per set input bit.
//! This crate owns:
//!
//! * the algebra ([`LinearLayout`] and its vocabulary, named after Triton's `LinearLayout.h`);
//! * every TritonGPU encoding as a linear layout ([`encodings`]);
//! * a parser for Triton's attribute text as TTGIR prints it ([`parse`]);
//! * the conversion planner ([`convert`]).
//!
//! Its views (Triton's text, CuTe-style pictures, SVG, HTML, whole-dump explanations) are the
//! `layout-view` crate's: the proc macros build this crate and not those.
//!
//! `no_std`: the crate needs `alloc` (layouts are built from vectors), nothing else. Code that the
//! macros generate from a layout needs neither: it is const tables and straight-line bit math.
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

extern crate alloc;
#[cfg(test)]
extern crate std;

pub mod codegen;
mod column_action;
pub mod convert;
pub mod cute;
pub mod encodings;
mod error;
mod f2;
mod layout;
pub mod parse;
mod product;
mod reshape;
mod solve;
pub mod spec;
pub mod utils;

pub use column_action::ColumnAction;
pub use encodings::Encoding;
pub use error::{ErrorKind, LayoutError};
pub use layout::{Bases, LinearLayout};
pub use solve::{divide_left, divide_right};

/// Results of this crate.
pub type Result<T> = core::result::Result<T, LayoutError>;
