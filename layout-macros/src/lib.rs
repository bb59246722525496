//! Procedural macros of `linear-layouts`. Not meant to be used directly: depend on the
//! `linear-layouts` facade crate, which re-exports them and documents them with examples.
//!
//! The crate is thin on purpose: [`input`] parses the macro's grammar with syn, [`render`] turns
//! the layout's tokens back into TTGIR text, layout-core parses and solves it, and [`emit`]
//! writes the result with quote. Solving and validation live in layout-core, where plain unit
//! tests reach them.

mod convert;
mod emit;
mod expand;
mod input;
mod render;

#[cfg(test)]
mod fuzz;

/// Define typed layouts solved at compile time. See `linear_layouts::layout!` for the syntax and
/// examples.
#[proc_macro]
pub fn layout(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    expand::layout(input.into()).into()
}

/// Convert values between two layouts defined with `layout!`. See `linear_layouts::convert!`.
#[proc_macro]
pub fn convert(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    convert::convert(input.into()).into()
}

/// The last step of `convert!`, called by the layouts' macros with both layouts. Not public API.
#[doc(hidden)]
#[proc_macro]
pub fn __convert_solve(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    convert::solve(input.into()).into()
}
