//! `#[kernel]`'s arguments (`block`, `shared`, `cluster`, `block_dims`, `grid_dims`, `warp_size`,
//! `min_blocks`, `extent`, `crate`),
//! parsed once for both entry points (nvptx in `kernel`, SPIR-V in `kernel_spirv`).

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, Meta, MetaNameValue, Token};

/// The attribute's arguments.
pub(crate) struct Args {
    pub(crate) krate: Option<syn::Path>,
    pub(crate) block_dims: u32,
    /// The grid's dimensions the kernel is launched with (3: any); fewer are read as 0 on the
    /// device, and the launcher refuses a grid with more.
    pub(crate) grid_dims: u32,
    pub(crate) block: Option<Expr>,
    pub(crate) shared: Option<Expr>,
    pub(crate) cluster: Option<Expr>,
    pub(crate) warp_size: u32,
    /// CUDA's `__launch_bounds__` second argument: CTAs of `block` threads ptxas must fit on a
    /// multiprocessor (it caps the registers per thread to fit them).
    pub(crate) min_blocks: Option<Expr>,
    /// `extent(x = n_rows * n_cols, ..)`: the elements each buffer parameter must hold, over
    /// the integer parameters and `grid`.
    pub(crate) extents: Vec<(syn::Ident, Expr)>,
}

pub(crate) fn parse_args(attr: TokenStream) -> syn::Result<Args> {
    let mut a = Args {
        krate: None,
        block_dims: 1,
        grid_dims: 3,
        block: None,
        shared: None,
        cluster: None,
        warp_size: 32,
        min_blocks: None,
        extents: Vec::new(),
    };
    let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(attr)?;
    let mut errors: Option<syn::Error> = None;
    for m in metas {
        if let Err(e) = parse_arg(&mut a, m) {
            match errors.as_mut() {
                Some(all) => all.combine(e),
                None => errors = Some(e),
            }
        }
    }
    if let (Some(m), None) = (&a.min_blocks, &a.block) {
        let e = syn::Error::new_spanned(
            m,
            "min_blocks needs `block = <threads>` too: launch bounds are CTAs of a known size per multiprocessor (CUDA's `__launch_bounds__(threads, min_blocks)`)",
        );
        match errors.as_mut() {
            Some(all) => all.combine(e),
            None => errors = Some(e),
        }
    }
    // A cluster spans the grid's dims: one past `grid_dims` could never launch.
    if let Some(Expr::Array(c)) = &a.cluster {
        let past = c
            .elems
            .iter()
            .enumerate()
            .find(|(d, e)| *d as u32 >= a.grid_dims && int_lit(e).is_some_and(|n| n > 1));
        if let Some((d, e)) = past {
            let e = syn::Error::new_spanned(
                e,
                format!("a cluster of more than one CTA along dim {d}, past the grid's `grid_dims = {}`: a grid whose dim {d} is 1 holds no such cluster; drop `grid_dims` or cluster along x", a.grid_dims),
            );
            match errors.as_mut() {
                Some(all) => all.combine(e),
                None => errors = Some(e),
            }
        }
    }
    errors.map_or(Ok(a), Err)
}

fn parse_arg(a: &mut Args, m: Meta) -> syn::Result<()> {
    let nv = match m {
        Meta::NameValue(nv) => nv,
        Meta::List(l) if l.path.is_ident("extent") => {
            let items =
                l.parse_args_with(Punctuated::<MetaNameValue, Token![,]>::parse_terminated)?;
            for nv in items {
                let name = nv.path.get_ident().cloned().ok_or_else(|| {
                    syn::Error::new_spanned(
                        &nv.path,
                        "extent(..) names a buffer parameter: `extent(x = n_rows * n_cols)`",
                    )
                })?;
                a.extents.push((name, nv.value));
            }
            return Ok(());
        }
        other => return Err(syn::Error::new_spanned(other, USAGE)),
    };
    let key = nv
        .path
        .get_ident()
        .map(|i| i.to_string())
        .unwrap_or_default();
    let value = nv.value;
    match key.as_str() {
        "crate" => a.krate = Some(syn::parse2(value.to_token_stream())?),
        "block_dims" => {
            a.block_dims = match int_lit(&value) {
                Some(n @ 1..=3) => n,
                _ => {
                    return Err(syn::Error::new_spanned(
                        value,
                        "block_dims is 1, 2 or 3: the number of dimensions of the blocks this kernel is launched with (the warp index depends on it)",
                    ))
                }
            };
        }
        "grid_dims" => {
            a.grid_dims = match int_lit(&value) {
                Some(n @ 1..=3) => n,
                _ => {
                    return Err(syn::Error::new_spanned(
                        value,
                        "grid_dims is 1, 2 or 3: the number of dimensions of the grids this kernel is launched with (the CTA indices past them are 0, and the launcher refuses a grid with more)",
                    ))
                }
            };
        }
        "warp_size" => {
            a.warp_size = match int_lit(&value) {
                Some(n @ (1 | 2 | 4 | 8 | 16 | 32 | 64)) => n,
                _ => {
                    return Err(syn::Error::new_spanned(
                        value,
                        "warp_size is the lanes per warp (subgroup size) the kernel's layouts were written for: 1, 2, 4, 8, 16, 32 or 64",
                    ))
                }
            };
        }
        "min_blocks" => {
            if matches!(int_lit(&value), Some(0) | Some(33..)) {
                return Err(syn::Error::new_spanned(
                    value,
                    "min_blocks is the CTAs per multiprocessor the registers must allow: 1 to 32",
                ));
            }
            a.min_blocks = Some(value);
        }
        "block" => a.block = Some(value),
        "shared" => a.shared = Some(value),
        "cluster" => a.cluster = Some(value),
        _ => return Err(syn::Error::new_spanned(nv.path, USAGE)),
    }
    Ok(())
}

const USAGE: &str = "#[kernel] takes `block = <threads or [x, y, z]>`, `shared = <bytes>`, `cluster = <CTAs or [x, y, z]>`, `block_dims = 1|2|3`, `grid_dims = 1|2|3`, `warp_size = <lanes>`, `min_blocks = <CTAs per multiprocessor>`, `extent(<buffer parameter> = <elements it must hold>, ..)` and `crate = path::to::linear_layouts`, each optional";

/// An integer literal's value.
pub(crate) fn int_lit(e: &Expr) -> Option<u32> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<u32>().ok(),
        _ => None,
    }
}

/// A `block` or `cluster` value as `[x, y, z]`: an array as written, else `[n, 1, 1]`.
pub(crate) fn dim3(e: &Option<Expr>, default: TokenStream) -> TokenStream {
    match e {
        Some(Expr::Array(arr)) => quote!(#arr),
        Some(e) => quote!([(#e) as u32, 1, 1]),
        None => default,
    }
}
