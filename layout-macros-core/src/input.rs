//! The grammar of `layout! { ... }`: optional `#![warp_size = N]`, then items
//! `#[attrs] vis Name = SPEC (: tensor<...> | for [d0, d1, ...]) ;`.
//! SPEC stays as tokens here; [`crate::expand`] renders and solves it.

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Attribute, Ident, Token, Visibility};

/// The whole invocation.
pub struct Block {
    /// `#![warp_size = N]`, if given.
    pub warp_size: Option<(u32, Span)>,
    pub items: Vec<Item>,
}

/// One `Name = SPEC shape;`.
#[derive(Clone)]
pub struct Item {
    /// Attributes to copy onto the type (docs, `#[allow]`...).
    pub attrs: Vec<Attribute>,
    /// `#[warp_size = N]` on this item.
    pub warp_size: Option<(u32, Span)>,
    pub vis: Visibility,
    pub name: Ident,
    /// Everything between `=` and the shape.
    pub spec: TokenStream,
    /// Span of `=` (for errors about an empty spec).
    pub eq_span: Span,
    pub shape: Shape,
}

/// The tensor shape a layout is solved for.
#[derive(Clone)]
pub enum Shape {
    /// `: tensor<64x16xf16>` or `: !ttg.memdesc<...>`: the tokens after `:`.
    Tensor(TokenStream),
    /// `for [64, 16]`.
    Dims(Vec<(i64, Span)>, Span),
    /// Missing; the span is where it was expected.
    Missing(Span),
}

fn warp_size_attr(a: &Attribute) -> syn::Result<Option<(u32, Span)>> {
    if !a.path().is_ident("warp_size") {
        return Ok(None);
    }
    let nv = a.meta.require_name_value()?;
    let n: u32 = match &nv.value {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse()?,
        other => {
            return Err(syn::Error::new(
                other.span(),
                "warp_size must be an integer: #[warp_size = 32] or #[warp_size = 64]",
            ))
        }
    };
    if n == 0 || !n.is_power_of_two() || n > 1024 {
        return Err(syn::Error::new(
            nv.value.span(),
            format!("warp size {} is not a power of two; use 32 or 64", n),
        ));
    }
    Ok(Some((n, nv.value.span())))
}

/// `:` that is not half of `::`.
fn at_colon(input: ParseStream) -> bool {
    input.peek(Token![:]) && !input.peek(Token![::])
}

/// The `:` before a tensor type, not the one inside CuTe's `(shape):(stride)` (followed by a
/// tuple, an integer or a static `_8`).
fn at_shape_colon(input: ParseStream) -> bool {
    if !at_colon(input) {
        return false;
    }
    let f = input.fork();
    let _ = f.parse::<Token![:]>();
    match f.parse::<TokenTree>() {
        Ok(TokenTree::Group(g)) => g.delimiter() != proc_macro2::Delimiter::Parenthesis,
        Ok(TokenTree::Literal(_)) => false,
        Ok(TokenTree::Ident(i)) => !i.to_string().starts_with('_'),
        _ => true,
    }
}

fn at_for(input: ParseStream) -> bool {
    input.peek(Token![for])
}

impl Parse for Block {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut warp_size = None;
        for a in Attribute::parse_inner(input)? {
            match warp_size_attr(&a)? {
                Some(w) => warp_size = Some(w),
                None => {
                    return Err(syn::Error::new_spanned(
                        &a,
                        "the only inner attribute of layout! is #![warp_size = N]",
                    ))
                }
            }
        }
        let mut items = Vec::new();
        while !input.is_empty() {
            items.push(input.parse()?);
        }
        Ok(Block { warp_size, items })
    }
}

impl Parse for Item {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut attrs = Vec::new();
        let mut warp_size = None;
        for a in Attribute::parse_outer(input)? {
            match warp_size_attr(&a)? {
                Some(w) => warp_size = Some(w),
                None => attrs.push(a),
            }
        }
        let vis: Visibility = input.parse()?;
        let name: Ident = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected a layout definition: `pub Name = #ttg.blocked<{...}> : tensor<64x16xf16>;`",
            )
        })?;
        let eq: Token![=] = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                format!("expected `=` after the layout name `{}`", name),
            )
        })?;
        let mut spec = TokenStream::new();
        while !input.is_empty()
            && !input.peek(Token![;])
            && !at_shape_colon(input)
            && !at_for(input)
        {
            let tt: TokenTree = input.parse()?;
            spec.extend([tt]);
        }
        let shape = if at_shape_colon(input) {
            input.parse::<Token![:]>()?;
            let mut ts = TokenStream::new();
            while !input.is_empty() && !input.peek(Token![;]) {
                let tt: TokenTree = input.parse()?;
                ts.extend([tt]);
            }
            Shape::Tensor(ts)
        } else if at_for(input) {
            input.parse::<Token![for]>()?;
            let content;
            let bracket = syn::bracketed!(content in input);
            let dims = content.parse_terminated(syn::LitInt::parse, Token![,])?;
            let mut v = Vec::new();
            for d in dims {
                let x: i64 = d.base10_parse()?;
                if x <= 0 {
                    return Err(syn::Error::new(d.span(), "tensor dims must be positive"));
                }
                v.push((x, d.span()));
            }
            Shape::Dims(v, bracket.span.join())
        } else {
            Shape::Missing(input.span())
        };
        if !input.is_empty() {
            input
                .parse::<Token![;]>()
                .map_err(|e| syn::Error::new(e.span(), "expected `;` after the layout's shape"))?;
        }
        Ok(Item {
            attrs,
            warp_size,
            vis,
            name,
            spec,
            eq_span: eq.span,
            shape,
        })
    }
}
