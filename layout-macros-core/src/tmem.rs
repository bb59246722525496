//! `layout!`'s `tmem_reg(atom = "32x32b", warps = 4, blockM = .., blockN = .., colStride = ..)`:
//! the register layout a `tcgen05.ld`/`st` of that message shape gives over a tensor-memory
//! layout (Gluon's `get_tmem_reg_layout`), as a distributed layout. The keys other than `atom`
//! and `warps` are `#ttng.tensor_memory_encoding`'s; the element type comes from the tensor type.

use layout_core::encodings::{tmem_reg_layout, TmemAtom};
use layout_core::parse::{parse_encoding, Aliases};
use layout_core::spec::Solved;
use layout_core::Encoding;
use proc_macro2::{Delimiter, Span, TokenTree};

use crate::emit::SolvedItem;
use crate::input::Item;
use crate::render::{error_between, Rendered};

/// Whether the spec is the `tmem_reg(...)` form.
pub fn is_tmem_reg(trees: &[TokenTree]) -> bool {
    matches!((trees.first(), trees.get(1), trees.len()),
        (Some(TokenTree::Ident(i)), Some(TokenTree::Group(g)), 2) if i == "tmem_reg" && g.delimiter() == Delimiter::Parenthesis)
}

/// `atom = "32x32b"` / `atom = 32x32b` and `warps = 4` (or `num_warps`), and the other keys'
/// tokens, comma-separated.
fn split_args(g: &proc_macro2::Group) -> syn::Result<(String, Span, u32, Vec<Vec<TokenTree>>)> {
    let args = crate::render::top_level_args(g);
    let (mut atom, mut warps, mut rest) = (None, None, Vec::new());
    for a in args {
        let key = match a.first() {
            Some(TokenTree::Ident(i)) => i.to_string(),
            _ => String::new(),
        };
        let value = a
            .get(2)
            .map(|v| v.to_string().trim_matches('"').to_string());
        match (key.as_str(), value) {
            ("atom", Some(v)) => atom = Some((v, a[2].span())),
            ("warps" | "num_warps" | "numWarps", Some(v)) => {
                warps = Some(v.parse::<u32>().map_err(|_| {
                    syn::Error::new_spanned(&a[2], "warps is a number of warps, e.g. 4")
                })?)
            }
            _ => rest.push(a),
        }
    }
    let missing = |k: &str| {
        syn::Error::new(g.span_open(), format!("tmem_reg needs `{}`: tmem_reg(atom = \"32x32b\", warps = 4, blockM = 128, blockN = 64, colStride = 1)", k))
    };
    let (atom, at) = atom.ok_or_else(|| missing("atom"))?;
    Ok((atom, at, warps.ok_or_else(|| missing("warps"))?, rest))
}

/// Solve the form over `shape`, for elements of the tensor type's width.
pub fn solve_tmem_reg(
    item: &Item,
    trees: &[TokenTree],
    shape: &[i64],
    element: Option<String>,
    warp_size: Option<u32>,
) -> syn::Result<SolvedItem> {
    let Some(TokenTree::Group(g)) = trees.get(1) else {
        return Err(syn::Error::new_spanned(
            &item.spec,
            "expected tmem_reg(atom = \"32x32b\", warps = 4, blockM = .., blockN = .., colStride = ..)",
        ));
    };
    let (atom_name, atom_span, warps, rest) = split_args(g)?;
    let bits = element
        .as_deref()
        .and_then(layout_core::parse::element_bits)
        .ok_or_else(|| syn::Error::new_spanned(&item.spec, "tmem_reg needs the element type for its width: give the shape as `: tensor<128x64xf32>`"))?;
    let mut r = Rendered::default();
    r.push("#ttng.tensor_memory_encoding<", g.span_open());
    for (i, a) in rest.iter().enumerate() {
        if i > 0 {
            r.push(",", g.span_open());
        }
        r.push_tokens(a.iter().cloned().collect(), &mut |_, _, _| false);
    }
    r.push(">", g.span_close());
    let at_spec = |msg: String| syn::Error::new_spanned(&item.spec, msg);
    let enc = parse_encoding(&r.text, &Aliases::new()).map_err(|e| {
        match r.spans(e.span.offset, e.span.len) {
            Some((a, b)) => error_between(a, b, e.message.clone()),
            None => syn::Error::new(Span::call_site(), e.message.clone()),
        }
    })?;
    let tmem = enc
        .to_linear_layout(shape)
        .map_err(|e| at_spec(e.to_string()))?;
    // The message shape is what an error of these two is about.
    let at_atom = |e: layout_core::LayoutError| syn::Error::new(atom_span, e.to_string());
    let atom = TmemAtom::from_name(&atom_name).map_err(at_atom)?;
    let layout = tmem_reg_layout(&tmem, atom, warps, bits).map_err(at_atom)?;
    Ok(SolvedItem {
        solved: Solved {
            encoding: Encoding::Linear(layout.clone()),
            layout,
            warp_size,
        },
        source: format!("tmem_reg({}, {} warps) of {}", atom.name(), warps, r.text),
        attr: None,
        element,
    })
}
