//! The logic of `linear-layouts`' procedural macros as an ordinary library (the `layout-macros`
//! proc-macro crate is a shim over it, as sqlx-macros is over sqlx-macros-core), so that tests
//! and fuzzers call each expansion directly, token stream in, token stream out.
//!
//! * [`layout`]: `layout!`. `input` parses its grammar with syn, `render` turns the layout's
//!   tokens into TTGIR text, layout-core parses and solves it, `expand` and `emit` write the
//!   type, its const tables and index math with quote.
//! * [`convert`] and [`convert_solve`]: `convert!`, through the callback macros `layout!`
//!   emits (`convert_macro`), then the plan written as straight-line code (`convert_emit`).
//! * [`kernel`]: `#[kernel]` (`kernel`, `kernel_spirv`).
//!
//! Every input comes as the facade's front-ends hand it over, `[$crate]` first (`paths`); every
//! error is a `compile_error!` with the offending tokens' span, never a panic.
//!
//! ```
//! let out = layout_macros_core::layout(quote::quote!([::linear_layouts]
//!     pub Rows = blocked(sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]) for [32, 16];
//! ));
//! let out = out.to_string();
//! assert!(out.contains("pub struct Rows") && !out.contains("compile_error"));
//! let bad = layout_macros_core::layout(quote::quote!([::linear_layouts]
//!     pub Bad = blocked(sizePerThread = [3], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]) for [128];
//! ));
//! assert!(bad.to_string().contains("compile_error"));
//! ```

use proc_macro2::TokenStream;

mod convert_emit;
mod convert_macro;
mod cute;
mod emit;
mod expand;
mod input;
mod kernel;
mod kernel_args;
mod kernel_spirv;
mod kernel_views;
mod paths;
mod render;
mod tmem;

/// `layout!`: `[$crate] items` to the items' types, tables and callback macros.
pub fn layout(input: TokenStream) -> TokenStream {
    expand::layout(input)
}

/// `convert!`: `[$crate] A => B, T ...` to the chain of layout callbacks that ends in
/// [`convert_solve`].
pub fn convert(input: TokenStream) -> TokenStream {
    convert_macro::convert(input)
}

/// The last step of `convert!`: both solved layouts to the plan's code and its cost.
pub fn convert_solve(input: TokenStream) -> TokenStream {
    convert_macro::solve(input)
}

/// `#[kernel(attr)] item`: the entry point and its `KernelSpec`.
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    kernel::kernel(attr, item)
}
