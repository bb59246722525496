//! Procedural macros of `linear-layouts`. Not meant to be used directly: depend on the
//! `linear-layouts` facade crate, whose `layout!` and `convert!` are `macro_rules!` front-ends
//! that call these with the facade's `$crate` (module `paths`), and which documents them.
//! `#[kernel]` (module `kernel`) is an attribute, which has no `$crate`: it finds the facade in
//! the calling crate's Cargo.toml.
//!
//! The crate is a shim, as sqlx-macros is over sqlx-macros-core: each macro hands its tokens to
//! `layout-macros-core`, an ordinary library whose parsing, solving and emission tests and
//! fuzzers call directly (a proc-macro crate can export nothing but macros).

/// `layout!`, behind the facade's front-end (input: `[$crate] ...`). See
/// `linear_layouts::layout!` for the syntax and examples.
#[doc(hidden)]
#[proc_macro]
pub fn __layout(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    layout_macros_core::layout(input.into()).into()
}

/// `convert!`, behind the facade's front-end (input: `[$crate] ...`). See
/// `linear_layouts::convert!`.
#[doc(hidden)]
#[proc_macro]
pub fn __convert(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    layout_macros_core::convert(input.into()).into()
}

/// The last step of `convert!`, called by the layouts' macros with both layouts. Not public API.
#[doc(hidden)]
#[proc_macro]
pub fn __convert_solve(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    layout_macros_core::convert_solve(input.into()).into()
}

/// `#[kernel]`: a GPU entry point from a kernel body. See `linear_layouts::kernel`.
#[proc_macro_attribute]
pub fn kernel(
    attr: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    layout_macros_core::kernel(attr.into(), item.into()).into()
}
