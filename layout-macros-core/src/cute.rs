//! `layout!`'s CuTe forms: `(shape):(stride)` and `Sw<B, M, S> o ... o (shape):(stride)` as
//! shared-memory layouts, `tv((thread, value):(...))` as a distributed one, read by layout-core's
//! CuTe reader from the tokens as written, its errors pointing back at them.

use layout_core::cute::parse_cute;
use layout_core::spec::Solved;
use proc_macro2::{Delimiter, Span, TokenTree};

use crate::emit::SolvedItem;
use crate::input::Item;
use crate::render::{error_between, Rendered};

/// Whether the spec is written in CuTe's notation.
pub fn is_cute(trees: &[TokenTree]) -> bool {
    let paren = |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis);
    let composed = trees
        .iter()
        .any(|t| matches!(t, TokenTree::Ident(i) if i == "o"));
    match trees.first() {
        Some(TokenTree::Group(_)) => paren(trees.first()),
        Some(TokenTree::Ident(i)) if i == "tv" => paren(trees.get(1)),
        Some(TokenTree::Ident(i)) => {
            let s = i.to_string();
            composed && (s == "Sw" || s == "Swizzle" || s.starts_with("SW_"))
        }
        Some(TokenTree::Literal(_)) => {
            matches!(trees.get(1), Some(TokenTree::Punct(p)) if p.as_char() == ':')
        }
        _ => false,
    }
}

/// Solve a CuTe spec over `shape` (a shared layout's shape must be its own).
pub fn solve_cute(
    item: &Item,
    trees: &[TokenTree],
    shape: &[i64],
    element: Option<String>,
    warp_size: Option<u32>,
) -> syn::Result<SolvedItem> {
    let mut r = Rendered::default();
    r.push_tokens(trees.iter().cloned().collect(), &mut |_, _, _| false);
    let at = |e: layout_core::LayoutError| {
        let span = e.span();
        let msg = e.to_string();
        match span.and_then(|s| r.spans(s.offset, s.len)) {
            Some((a, b)) => error_between(a, b, msg),
            None => syn::Error::new(Span::call_site(), msg),
        }
    };
    let cute = parse_cute(&r.text).map_err(at)?;
    let bits = element
        .as_deref()
        .and_then(layout_core::parse::element_bits);
    cute.check_element(bits).map_err(at)?;
    let encoding = cute.encoding(shape, warp_size.unwrap_or(32)).map_err(at)?;
    let layout = encoding
        .to_linear_layout(shape)
        .map_err(|e| syn::Error::new_spanned(&item.spec, e.to_string()))?;
    Ok(SolvedItem {
        solved: Solved {
            encoding,
            layout,
            warp_size,
        },
        source: cute.to_string(),
        attr: None,
        element,
    })
}
