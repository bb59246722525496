//! `#[kernel]`'s view and partition parameters (`View`, `ViewMut`, `Tiles`, `TilesMut`): the
//! buffer the launcher passes for each (the entry's and the spec's parameter type), and the
//! statement by which both entry points (nvptx in `kernel`, SPIR-V in `kernel_spirv`) make the
//! view of it, of the shape `extent(..)` gives, which the launcher checks against the buffer.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::Expr;

use crate::kernel_args::Args;

/// A `View`/`ViewMut` parameter: the launcher passes its buffer (`buffer`, the entry's and the
/// spec's type) and the entry makes the view (`make`) of the shape its `extent(..)` gives, over
/// the integer parameters, which the launcher checks against the buffer.
pub(crate) struct ViewParam {
    pub(crate) name: syn::Ident,
    pub(crate) buffer: syn::Type,
    pub(crate) make: TokenStream,
    /// The shape's dims, as written.
    pub(crate) dims: Vec<Expr>,
    /// A partitioned tensor's tile layout (then no `dims`).
    pub(crate) tiles: Option<syn::Type>,
}

/// The last path segment of a parameter type (`View`, `Global`, `u32`), with its generics.
pub(crate) fn last_segment(t: &syn::Type) -> Option<&syn::PathSegment> {
    match t {
        syn::Type::Path(p) => p.path.segments.last(),
        _ => None,
    }
}

/// A segment's first type argument (a tensor's element type).
pub(crate) fn element_type(seg: &syn::PathSegment) -> Option<&syn::Type> {
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    }
}

/// The kernel's view parameters, each with its shape from `extent(..)`.
pub(crate) fn views(
    krate: &TokenStream,
    a: &Args,
    params: &[(syn::Ident, syn::Type)],
) -> syn::Result<Vec<ViewParam>> {
    let rt = quote!(#krate::runtime);
    let mut out = Vec::new();
    for (name, ty) in params {
        let Some(seg) = last_segment(ty) else {
            continue;
        };
        let (write, tiles) = match seg.ident.to_string().as_str() {
            "View" => (false, None),
            "ViewMut" => (true, None),
            "Tiles" => (false, Some(false)),
            "TilesMut" => (true, Some(false)),
            "Tiled" => (false, Some(true)),
            "TiledMut" => (true, Some(true)),
            _ => continue,
        };
        let elem = element_type(seg).ok_or_else(|| {
            syn::Error::new_spanned(ty, "a view parameter names its element type and rank: `View<f32, 2>`, `Tiles<f32, MyLayout>`")
        })?;
        if let Some(counted) = tiles {
            out.push(tiles_param(&rt, a, (name, ty), elem, write, counted)?);
            continue;
        }
        let shape = a.extents.iter().find(|(n, _)| n == name).map(|(_, e)| e);
        let dims: Vec<Expr> = match shape {
            Some(Expr::Array(arr)) => arr.elems.iter().cloned().collect(),
            Some(other) => {
                return Err(syn::Error::new_spanned(
                    other,
                    format!("`{name}` is a view: its extent is its shape, one size per dim: `extent({name} = [n_rows, n_cols])`"),
                ))
            }
            None => {
                return Err(syn::Error::new_spanned(
                    name,
                    format!("the launcher sets a view's shape and checks it against the buffer: give it in the attribute, `#[kernel(extent({name} = [n_rows, n_cols]))]`, over the kernel's integer parameters"),
                ))
            }
        };
        let (buffer, view): (syn::Type, _) = match write {
            false => (
                syn::parse_quote!(#rt::Global<'static, #elem>),
                quote!(#rt::View),
            ),
            true => (
                syn::parse_quote!(#rt::GlobalMut<'static, #elem>),
                quote!(#rt::ViewMut),
            ),
        };
        let make = quote! {
            // SAFETY: the launcher checked the buffer against this shape (the spec's extents:
            // it holds the shape's elements, at most 2^32 of them).
            #[allow(unsafe_code, clippy::unnecessary_cast)]
            let #name = unsafe { #view::new_unchecked(#name, [#((#dims) as u32),*]) };
        };
        out.push(ViewParam {
            name: name.clone(),
            buffer,
            make,
            dims,
            tiles: None,
        });
    }
    Ok(out)
}

/// A `Tiles`/`TilesMut` parameter (the buffer cut into one tile of its layout per CTA, checked
/// by the launcher against the grid, so it takes no `extent`) or a `Tiled`/`TiledMut` one
/// (`counted`: as many tiles as its `extent` says, taken grid-stride).
fn tiles_param(
    rt: &TokenStream,
    a: &Args,
    (name, ty): (&syn::Ident, &syn::Type),
    elem: &syn::Type,
    write: bool,
    counted: bool,
) -> syn::Result<ViewParam> {
    let extent = a.extents.iter().find(|(n, _)| n == name);
    let count = match (counted, extent) {
        (false, None) => None,
        (false, Some((n, _))) => {
            return Err(syn::Error::new_spanned(
                n,
                format!("`{name}` is partitioned by the grid (one tile per CTA): the launcher checks it holds a tile for every CTA, so it takes no extent; remove `{name} = ..`"),
            ))
        }
        (true, Some((_, Expr::Array(arr)))) => {
            return Err(syn::Error::new_spanned(
                arr,
                format!("`{name}` is a number of tiles: its extent is how many (`extent({name} = tiles)`), not a shape"),
            ))
        }
        (true, Some((_, e))) => Some(e.clone()),
        (true, None) => {
            return Err(syn::Error::new_spanned(
                name,
                format!("the launcher checks a grid-stride partition's tiles against the buffer: say how many in the attribute, `#[kernel(extent({name} = tiles))]`"),
            ))
        }
    };
    let layout = last_segment(ty)
        .and_then(|s| match &s.arguments {
            syn::PathArguments::AngleBracketed(g) => g
                .args
                .iter()
                .filter_map(|g| match g {
                    syn::GenericArgument::Type(t) => Some(t.clone()),
                    _ => None,
                })
                .nth(1),
            _ => None,
        })
        .ok_or_else(|| syn::Error::new_spanned(ty, "a partitioned tensor names its element type and its tile's layout: `Tiles<f32, MyLayout>`"))?;
    let buffer: syn::Type = match write {
        false => syn::parse_quote!(#rt::Global<'static, #elem>),
        true => syn::parse_quote!(#rt::GlobalMut<'static, #elem>),
    };
    let make = match (&count, write) {
        (None, false) => quote!(#rt::Tiles::<_, #layout>::new_unchecked(#name)),
        (None, true) => quote!(#rt::TilesMut::<_, #layout>::new_unchecked(#name)),
        (Some(c), false) => quote!(#rt::Tiled::<_, #layout>::new_unchecked(#name, (#c) as u32)),
        (Some(c), true) => quote!(#rt::TiledMut::<_, #layout>::new_unchecked(#name, (#c) as u32)),
    };
    let make = quote! {
        // SAFETY: the launcher checked the grid is 1-D and the buffer holds the tiles of the
        // layout (one per CTA, or the count), and that a grid-stride loop cannot wrap.
        #[allow(unsafe_code, clippy::unnecessary_cast)]
        let #name = unsafe { #make };
    };
    Ok(ViewParam {
        name: name.clone(),
        buffer,
        make,
        dims: count.into_iter().collect(),
        tiles: Some(layout),
    })
}

/// The parameters the views' shapes name.
pub(crate) fn shape_params<'a>(
    views: &[ViewParam],
    params: &'a [(syn::Ident, syn::Type)],
) -> Vec<&'a syn::Ident> {
    fn idents(ts: TokenStream, out: &mut Vec<String>) {
        for t in ts {
            match t {
                proc_macro2::TokenTree::Ident(i) => out.push(i.to_string()),
                proc_macro2::TokenTree::Group(g) => idents(g.stream(), out),
                _ => {}
            }
        }
    }
    let mut named = Vec::new();
    for d in views.iter().flat_map(|v| v.dims.iter()) {
        idents(d.to_token_stream(), &mut named);
    }
    params
        .iter()
        .map(|(n, _)| n)
        .filter(|n| named.contains(&n.to_string()))
        .collect()
}
