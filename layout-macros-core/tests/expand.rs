//! `layout!`'s expansion as the proc macro produces it, called directly.

use quote::quote;

fn expand(item: proc_macro2::TokenStream) -> String {
    layout_macros_core::layout(quote!([::linear_layouts] #item)).to_string()
}

#[test]
fn only_pub_layouts_export_their_macro() {
    let spec = quote!(blocked(sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]) for [128];);
    for (vis, exported) in [
        (quote!(pub), true),
        (quote!(pub(crate)), false),
        (quote!(pub(super)), false),
        (quote!(), false),
    ] {
        let out = expand(quote!(#vis A = #spec));
        assert_eq!(out.contains("macro_export"), exported, "{}", vis);
        assert!(!out.contains("compile_error"), "{}", out);
    }
}

#[test]
fn callback_names_depend_on_the_item_not_on_expansion_order() {
    let a = quote!(pub A = blocked(sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]) for [128];);
    let b = quote!(pub A = blocked(sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]) for [128];);
    let (first, _, again) = (expand(a.clone()), expand(b.clone()), expand(a));
    assert_eq!(first, again);
    assert_ne!(first, expand(b));
}

/// A layout past the solver's limits is refused naming the limit, not as an internal error.
#[test]
fn a_layout_too_large_to_invert_names_the_limit() {
    let out = expand(
        quote!(pub Big = blocked(sizePerThread = [65536, 16384], threadsPerWarp = [32, 1], warpsPerCTA = [2, 1], order = [1, 0]) for [4194304, 16384];),
    );
    assert!(out.contains("compile_error"), "{}", out);
    assert!(out.contains("2^30") && out.contains("2^36"), "{}", out);
    assert!(!out.contains("internal error"), "{}", out);
}
