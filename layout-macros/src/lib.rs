//! Procedural macros of `linear-layouts`. Not meant to be used directly: depend on the
//! `linear-layouts` facade crate, whose `layout!` and `convert!` are `macro_rules!` front-ends
//! that call these with the facade's `$crate` (module `paths`), and which documents them.
//! `#[kernel]` (module `kernel`) is an attribute, which has no `$crate`: it finds the facade in
//! the calling crate's Cargo.toml.
//!
//! The crate is thin on purpose: `input` parses the macro's grammar with syn, `render` turns
//! the layout's tokens back into TTGIR text, layout-core parses and solves it, and `emit`
//! writes the result with quote. Solving and validation live in layout-core, where plain unit
//! tests reach them.

mod convert;
mod convert_emit;
mod emit;
mod expand;
mod input;
mod kernel;
mod kernel_spirv;
mod paths;
mod render;

#[cfg(test)]
mod fuzz;

/// `layout!`, behind the facade's front-end (input: `[$crate] ...`). See
/// `linear_layouts::layout!` for the syntax and examples.
#[doc(hidden)]
#[proc_macro]
pub fn __layout(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    expand::layout(input.into()).into()
}

/// `convert!`, behind the facade's front-end (input: `[$crate] ...`). See
/// `linear_layouts::convert!`.
#[doc(hidden)]
#[proc_macro]
pub fn __convert(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    convert::convert(input.into()).into()
}

/// The last step of `convert!`, called by the layouts' macros with both layouts. Not public API.
#[doc(hidden)]
#[proc_macro]
pub fn __convert_solve(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    convert::solve(input.into()).into()
}

/// `#[kernel]`: a GPU entry point from a kernel body. See `linear_layouts::kernel`.
#[proc_macro_attribute]
pub fn kernel(
    attr: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    kernel::kernel(attr.into(), item.into()).into()
}
