//! Where generated code finds the facade. The facade's `layout!` and `convert!` are
//! `macro_rules!` front-ends that hand their `$crate` to these proc macros as a leading
//! `[$crate]`; every path the expansion writes starts there and goes through the facade's hidden
//! `__private` module, so it resolves however the user's crate reaches the facade (renamed,
//! re-exported by another crate, or by path).

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use quote::quote;

/// The facade's path, as the front-end handed it.
#[derive(Clone)]
pub struct Krate(TokenStream);

impl Krate {
    /// Split `[$crate] rest` into the path and the rest.
    pub fn split(input: TokenStream) -> syn::Result<(Krate, TokenStream)> {
        let mut it = input.into_iter();
        match it.next() {
            Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket => {
                Ok((Krate(g.stream()), it.collect()))
            }
            _ => Err(syn::Error::new(
                Span::call_site(),
                "use this macro through the `linear-layouts` crate (`linear_layouts::layout!` / `convert!`), not from layout-macros directly",
            )),
        }
    }

    /// The path as written by the front-end, for forwarding as `[$crate]`.
    pub fn tokens(&self) -> &TokenStream {
        &self.0
    }

    /// `$crate::__private`.
    pub fn private(&self) -> TokenStream {
        let k = &self.0;
        quote!(#k::__private)
    }

    /// The runtime crate: `$crate::__private::rt`.
    pub fn rt(&self) -> TokenStream {
        let k = &self.0;
        quote!(#k::__private::rt)
    }
}
