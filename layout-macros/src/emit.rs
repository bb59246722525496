//! From a solved layout to Rust: a zero-sized type with const basis tables, `const`
//! `#[inline(always)]` index math as straight-line shift/mask/or (layout-core's apply plan, i.e.
//! Triton's `matrixVectorProd`), the `Layout` trait impl, and a host-side `linear_layout()`.

use layout_core::codegen::ApplyPlan;
use layout_core::LinearLayout;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use crate::expand::SolvedItem;
use crate::input::Item;

fn u32_lit(v: u32) -> Literal {
    Literal::u32_suffixed(v)
}

/// One out-dim's expression: the plan's terms over the named inputs, `|` where bits are disjoint.
fn plan_exprs(plan: &ApplyPlan, inputs: &[TokenStream]) -> Vec<TokenStream> {
    plan.terms
        .iter()
        .zip(&plan.disjoint)
        .map(|(terms, &disjoint)| {
            let parts: Vec<TokenStream> = terms
                .iter()
                .map(|t| {
                    let x = &inputs[t.in_dim];
                    let m = u32_lit(t.mask);
                    let masked = quote!((#x & #m));
                    match t.shift {
                        0 => masked,
                        s if s > 0 => {
                            let s = s as u32;
                            quote!((#masked << #s))
                        }
                        s => {
                            let s = (-s) as u32;
                            quote!((#masked >> #s))
                        }
                    }
                })
                .collect();
            match parts.split_first() {
                None => quote!(0u32),
                Some((first, rest)) if disjoint => quote!(#first #(| #rest)*),
                Some((first, rest)) => quote!(#first #(^ #rest)*),
            }
        })
        .collect()
}

/// Per out-dim, consecutive elements a thread holds in consecutive registers (offsets): Triton's
/// `getNumConsecutiveInOut` with that dim first.
fn contiguity(l: &LinearLayout) -> Vec<u32> {
    let names: Vec<String> = l.out_dim_names().map(String::from).collect();
    (0..names.len())
        .map(|d| {
            let mut order = vec![names[d].clone()];
            order.extend(names.iter().filter(|n| **n != names[d]).cloned());
            l.transpose_outs(&order)
                .map(|t| t.num_consecutive_in_out() as u32)
                .unwrap_or(1)
        })
        .collect()
}

/// The layout as a self-contained `#ttg.linear` / `#ttg.shared_linear` attribute.
fn linear_ttgir(l: &LinearLayout, in_dims: &[&str], shared: bool) -> String {
    let body: Vec<String> = in_dims
        .iter()
        .map(|d| {
            let bs: Vec<String> = l
                .in_dim_bases(d)
                .unwrap_or(&[])
                .iter()
                .map(|b| {
                    let xs: Vec<String> = b.iter().map(|x| x.to_string()).collect();
                    format!("[{}]", xs.join(", "))
                })
                .collect();
            format!("{} = [{}]", d, bs.join(", "))
        })
        .collect();
    if shared {
        format!(
            "#ttg.shared_linear<{{{}}}, alignment = 16>",
            body.join(", ")
        )
    } else {
        format!("#ttg.linear<{{{}}}>", body.join(", "))
    }
}

pub fn emit(item: &Item, s: &SolvedItem) -> TokenStream {
    let shared = s.solved.encoding.is_shared();
    let ll = &s.solved.layout;
    let rank = ll.num_out_dims();
    let in_dims: &[&str] = if shared {
        &["offset", "block"]
    } else {
        &["register", "lane", "warp", "block"]
    };
    let name = &item.name;
    let vis = &item.vis;
    let attrs = &item.attrs;
    let shape: Vec<u32> = ll.out_dims().iter().map(|(_, s)| *s as u32).collect();
    let shape_lits: Vec<Literal> = shape.iter().map(|&x| u32_lit(x)).collect();
    let free = ll.free_variable_masks();

    // Const tables and the trait's in-dim descriptions.
    let mut consts = TokenStream::new();
    let mut in_dim_descs = Vec::new();
    for d in in_dims {
        let bases: Vec<Vec<i32>> = ll.in_dim_bases(d).map(|b| b.to_vec()).unwrap_or_default();
        let size = 1u32 << bases.len();
        let upper = d.to_uppercase();
        let size_ident = format_ident!("{}S", upper);
        let bases_ident = format_ident!("{}_BASES", upper);
        let free_ident = format_ident!("FREE_{}_MASK", upper);
        let rows: Vec<TokenStream> = bases
            .iter()
            .map(|b| {
                let xs = b.iter().map(|&x| u32_lit(x as u32));
                quote!([#(#xs),*])
            })
            .collect();
        let flat: Vec<Literal> = bases
            .iter()
            .flat_map(|b| b.iter().map(|&x| u32_lit(x as u32)))
            .collect();
        let n = bases.len();
        let fm = free
            .iter()
            .find(|(n, _)| n == d)
            .map_or(0u32, |(_, m)| *m as u32);
        let fm_lit = u32_lit(fm);
        let size_lit = u32_lit(size);
        let doc_size = format!("Number of `{}` values.", d);
        let doc_bases = format!(
            "Basis of each `{}` bit: the coordinates it moves to, bit 0 first.",
            d
        );
        let doc_free = format!(
            "`{}` bits that do not change the element (broadcast copies).",
            d
        );
        consts.extend(quote! {
            #[doc = #doc_size]
            pub const #size_ident: u32 = #size_lit;
            #[doc = #doc_bases]
            pub const #bases_ident: [[u32; #rank]; #n] = [#(#rows),*];
            #[doc = #doc_free]
            pub const #free_ident: u32 = #fm_lit;
        });
        in_dim_descs.push(quote! {
            ::linear_layouts::InDim { name: #d, size: #size_lit, bases: &[#(#flat),*], free_mask: #fm_lit }
        });
    }

    // apply: in-dims -> coordinates.
    let vars: Vec<Ident> = in_dims.iter().map(|d| format_ident!("{}", d)).collect();
    let plan_inputs: Vec<TokenStream> = ll
        .in_dim_names()
        .map(|n| {
            let v = format_ident!("{}", n);
            quote!(#v)
        })
        .collect();
    let exprs = plan_exprs(&ll.apply_plan(), &plan_inputs);
    let apply_doc = if shared {
        "The coordinates of the element at `offset` in CTA `block`'s buffer."
    } else {
        "The coordinates of the element held in `register` by `lane` of `warp` in CTA `block`."
    };
    let apply = quote! {
        #[doc = #apply_doc]
        #[inline(always)]
        #[allow(unused_variables, unused_parens, clippy::identity_op, clippy::precedence)]
        pub const fn apply(#(#vars: u32),*) -> [u32; #rank] {
            [#(#exprs),*]
        }
    };

    // locate: coordinates -> in-dims, through the pseudo-inverse.
    let locate = if ll.is_surjective() {
        match ll.pseudoinvert() {
            Ok(inv) => {
                let coord_inputs: Vec<TokenStream> = inv
                    .in_dim_names()
                    .map(|n| {
                        let i = ll.out_dim_index(n).unwrap_or(0);
                        quote!(coords[#i])
                    })
                    .collect();
                let inv_exprs = plan_exprs(&inv.apply_plan(), &coord_inputs);
                let fields: Vec<TokenStream> = in_dims
                    .iter()
                    .map(|d| {
                        let f = format_ident!("{}", d);
                        match inv.out_dim_index(d) {
                            Some(i) => {
                                let e = &inv_exprs[i];
                                quote!(#f: #e)
                            }
                            None => quote!(#f: 0u32),
                        }
                    })
                    .collect();
                let (ty, doc) = if shared {
                    (
                        quote!(::linear_layouts::SharedIndex),
                        "Where the element at `coords` lives: its offset and CTA.",
                    )
                } else {
                    (
                        quote!(::linear_layouts::HwIndex),
                        if ll.is_injective() {
                            "Where the element at `coords` lives: its register, lane, warp and CTA."
                        } else {
                            "Where the element at `coords` lives: one of its copies (the one with every broadcast bit zero; Triton's pseudoinvert)."
                        },
                    )
                };
                quote! {
                    #[doc = #doc]
                    #[inline(always)]
                    #[allow(unused_parens, clippy::identity_op, clippy::precedence)]
                    pub const fn locate(coords: [u32; #rank]) -> #ty {
                        #ty { #(#fields),* }
                    }
                }
            }
            Err(_) => TokenStream::new(),
        }
    } else {
        TokenStream::new()
    };

    // Host-side value.
    let in_tables: Vec<TokenStream> = ll
        .bases()
        .iter()
        .map(|(n, bs)| {
            let rows = bs.iter().map(|b| quote!(&[#(#b),*]));
            quote!((#n, &[#(#rows),*]))
        })
        .collect();
    let out_tables: Vec<TokenStream> = ll
        .out_dims()
        .iter()
        .map(|(n, s)| quote!((#n, #s)))
        .collect();

    let contig = contiguity(ll);
    let contig_max = contig.iter().copied().max().unwrap_or(1);
    let contig_lits: Vec<Literal> = contig.iter().map(|&x| u32_lit(x)).collect();
    let elems = if shared {
        0
    } else {
        ll.in_dim_size("register") as u32
    };
    let kind = if shared {
        quote!(::linear_layouts::LayoutKind::Shared)
    } else {
        quote!(::linear_layouts::LayoutKind::Distributed)
    };
    let source = &s.source;
    let linear = linear_ttgir(ll, in_dims, shared);
    let element = s.element.clone().unwrap_or_default();
    let n_in = in_dims.len();
    let apply_args: Vec<TokenStream> = (0..n_in)
        .map(|i| quote!(if index.len() > #i { index[#i] } else { 0 }))
        .collect();
    let summary = format!(
        "Layout `{}` for a tensor of shape {:?}{}, solved at compile time by `layout!`.\n\n```text\n{}\n```",
        source,
        shape,
        if element.is_empty() { String::new() } else { format!(" of {}", element) },
        ll
    );
    let ws = u32_lit(s.solved.warp_size.unwrap_or(0));
    quote! {
        #(#attrs)*
        #[doc = #summary]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        #vis struct #name;

        #[allow(dead_code)]
        impl #name {
            /// The spec as written, as TTGIR text (parents by name).
            pub const SOURCE: &'static str = #source;
            /// The solved layout as a self-contained `#ttg.linear` (or `shared_linear`) attribute.
            pub const LINEAR_TTGIR: &'static str = #linear;
            /// The element type, when the shape was given as a tensor type.
            pub const ELEMENT: &'static str = #element;
            /// Tensor rank.
            pub const RANK: usize = #rank;
            /// Tensor shape, dim 0 first.
            pub const SHAPE: [u32; #rank] = [#(#shape_lits),*];
            /// Lanes per warp the layout was checked against (0 for shared layouts).
            pub const WARP_SIZE: u32 = #ws;
            /// Registers per thread (0 for shared layouts).
            pub const ELEMENTS_PER_THREAD: u32 = #elems;
            /// Per dim, consecutive elements in consecutive registers (or offsets).
            pub const CONTIG_PER_THREAD: [u32; #rank] = [#(#contig_lits),*];
            /// The widest vector a thread can load or store, in elements.
            pub const CONTIGUITY_PER_THREAD: u32 = #contig_max;
            #consts
            #apply
            #locate
            /// layout-core's value of this layout (host only); its `Display` is Triton's
            /// `LinearLayout::toString`.
            #[cfg(not(target_os = "cuda"))]
            pub fn linear_layout() -> ::linear_layouts::LinearLayout {
                ::linear_layouts::__private::layout_from_tables(&[#(#in_tables),*], &[#(#out_tables),*])
            }
        }

        impl ::linear_layouts::Layout for #name {
            const KIND: ::linear_layouts::LayoutKind = #kind;
            const RANK: usize = #rank;
            const SHAPE: &'static [u32] = &[#(#shape_lits),*];
            const IN_DIMS: &'static [::linear_layouts::InDim] = &[#(#in_dim_descs),*];
            const ELEMENTS_PER_THREAD: u32 = #elems;
            const CONTIGUITY_PER_THREAD: u32 = #contig_max;
            const LINEAR_TTGIR: &'static str = #linear;
            #[inline(always)]
            fn apply_index(index: &[u32], out: &mut [u32]) {
                let c = Self::apply(#(#apply_args),*);
                let mut i = 0;
                while i < #rank && i < out.len() {
                    out[i] = c[i];
                    i += 1;
                }
            }
        }
    }
}
