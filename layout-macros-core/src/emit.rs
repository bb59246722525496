//! From a solved layout to Rust: a zero-sized type with const basis tables, `const`
//! `#[inline(always)]` index math as straight-line shift/mask/or (layout-core's apply plan, i.e.
//! Triton's `matrixVectorProd`), the `Layout` trait impl, and a host-side `linear_layout()`.

use layout_core::codegen::ApplyPlan;
use layout_core::parse::Attr;
use layout_core::spec::Solved;
use layout_core::{Bases, LinearLayout};
extern crate proc_macro;

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use crate::input::Item;
use crate::paths::Krate;

/// One item, solved.
pub struct SolvedItem {
    pub solved: Solved,
    /// The spec as TTGIR text (parents by alias name).
    pub source: String,
    /// Its value tree, for later items that name it as a parent (none for `Swizzle`).
    pub attr: Option<Attr>,
    /// The element type, when the shape came from a tensor type.
    pub element: Option<String>,
}

fn u32_lit(v: u32) -> Literal {
    Literal::u32_suffixed(v)
}

/// One out-dim's expression: the plan's terms over the named inputs, `|` where bits are disjoint.
pub(crate) fn plan_exprs(plan: &ApplyPlan, inputs: &[TokenStream]) -> Vec<TokenStream> {
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
pub(crate) fn contiguity(l: &LinearLayout) -> Vec<u32> {
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

/// The layout's bases for in-dims `in_dims` (an absent one has none), in that order.
fn bases_of(l: &LinearLayout, in_dims: &[&str]) -> Bases {
    in_dims
        .iter()
        .map(|d| (d.to_string(), l.in_dim_bases(d).unwrap_or(&[]).to_vec()))
        .collect()
}

/// Bases as a self-contained `#ttg.linear` / `#ttg.shared_linear` attribute (what `LINEAR_TTGIR`
/// holds, and how `convert!`'s messages show a layout).
pub fn linear_ttgir(bases: &Bases, shared: bool) -> String {
    let body: Vec<String> = bases
        .iter()
        .map(|(d, bs)| {
            let bs: Vec<String> = bs
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

/// Bases as tokens, `{ register = [[0, 1], ...], lane = [...], ... }`: how a layout's callback
/// macro hands the solved layout to `convert!` as data.
fn bases_tokens(bases: &Bases) -> TokenStream {
    let dims = bases.iter().map(|(d, bs)| {
        let d = format_ident!("{}", d);
        let bs = bs.iter().map(|b| {
            let xs = b.iter().map(|&x| Literal::i32_unsuffixed(x));
            quote!([#(#xs),*])
        });
        quote!(#d = [#(#bs),*])
    });
    quote!({ #(#dims),* })
}

/// The in-dims a layout of this kind has, in order.
fn in_dims_of(shared: bool) -> &'static [&'static str] {
    if shared {
        &["offset", "block"]
    } else {
        &["register", "lane", "warp", "block"]
    }
}

/// What a layout's callback macro hands to `convert!`: its bases, shape, kind, a padded
/// layout's `(interval, pad)` pairs and its name: `{ offset = [...], block = [] } [64, 64]
/// shared [[512, 8]] Name`.
pub fn side_tokens(s: &SolvedItem, name: &syn::Ident) -> TokenStream {
    let shared = s.solved.encoding.is_shared();
    let ll = &s.solved.layout;
    let bases = bases_tokens(&bases_of(ll, in_dims_of(shared)));
    let shape = ll
        .out_dims()
        .iter()
        .map(|(_, s)| Literal::u32_unsuffixed(*s as u32));
    let kind = if shared {
        quote!(shared)
    } else {
        quote!(distributed)
    };
    let padding = s.solved.encoding.padding();
    let pads = padding.iter().map(|&(i, p)| quote!([#i, #p]));
    let padded = (!padding.is_empty()).then(|| quote!([#(#pads),*]));
    quote!(#bases [#(#shape),*] #kind #padded #name)
}

/// `name = slice(dim = dim, parent = parent)` broadcasts to its parent (`np` registers per
/// thread; `n` its own): each parent register takes the slice register its reduction plan
/// groups it into (a const, evaluated only where a broadcast is written). With `along`, it is
/// also the parent's slice along `dim`, what `x.sum::<dim>(t)` reduces into.
/// `name` is an operand layout of `parent`'s tensor-core product (`dot_op(.., parent = P)`,
/// declared in one block): the accumulator `dot` infers from its first operand.
pub fn dot_operand_impl(k: &Krate, name: &Ident, parent: &Ident) -> TokenStream {
    let rt = k.rt();
    quote! {
        impl #rt::mma::DotOperand for #name {
            type Acc = #parent;
        }
    }
}

pub fn broadcast_impl(
    k: &Krate,
    name: &Ident,
    parent: &Ident,
    (dim, np, n): (usize, usize, usize),
    along: bool,
) -> TokenStream {
    let rt = k.rt();
    let (dim, np, n) = (
        Literal::usize_unsuffixed(dim),
        Literal::usize_unsuffixed(np),
        Literal::usize_unsuffixed(n),
    );
    let along = along.then(|| {
        quote! {
            impl #rt::slices::SliceAlong<#dim> for #parent {
                type Slice = #name;
            }
        }
    });
    quote! {
        impl #rt::slices::BroadcastTo<#parent> for #name {
            #[inline(always)]
            fn source(r: usize) -> usize {
                #rt::reduce::Slice::<#parent, #name, #dim, #np, #n>::PLAN.group(r as u32) as usize
            }
        }
        impl #rt::slices::SliceOf for #name {
            type Parent = #parent;
        }
        #along
    }
}

/// `item`'s types and impls; `slice_of`: the parent and dim of a slice declared beside its
/// parent, which `Layout::SLICE_OF` and `parent_coord` state.
pub fn emit(
    k: &Krate,
    item: &Item,
    s: &SolvedItem,
    slice_of: Option<(&Ident, usize)>,
) -> TokenStream {
    let (rt, private) = (k.rt(), k.private());
    let shared = s.solved.encoding.is_shared();
    let ll = &s.solved.layout;
    let rank = ll.num_out_dims();
    let in_dims = in_dims_of(shared);
    let name = &item.name;
    let vis = &item.vis;
    let attrs = &item.attrs;
    let shape: Vec<u32> = ll.out_dims().iter().map(|(_, s)| *s as u32).collect();
    let shape_lits: Vec<Literal> = shape.iter().map(|&x| u32_lit(x)).collect();

    let (consts, in_dim_descs) = in_dim_tables(k, ll, in_dims, name);
    let apply = apply_fn(ll, in_dims);
    let locate = locate_fn(k, item, ll, in_dims, shared);

    let contig = contiguity(ll);
    let contig_max = contig.iter().copied().max().unwrap_or(1);
    let contig_lits: Vec<Literal> = contig.iter().map(|&x| u32_lit(x)).collect();
    let elems = if shared {
        0
    } else {
        ll.in_dim_size("register") as u32
    };
    let kind = if shared {
        quote!(#rt::LayoutKind::Shared)
    } else {
        quote!(#rt::LayoutKind::Distributed)
    };
    // The register count as a type-level fact: `Tile<L, E, N>` with another `N` is a type
    // error, which `cargo check` reports.
    let registers = (!shared).then(|| {
        let n = proc_macro2::Literal::usize_unsuffixed(elems as usize);
        quote! {
            impl #rt::layout::Registers<#n> for #name {}
            // Parameter names no layout takes (a layout may be called `E` or `B`).
            impl #rt::slices::Distributed for #name {
                type Tile<__E: #rt::element::Element> = #rt::tile::Tile<#name, __E, #n>;
                #[inline(always)]
                fn build<__E: #rt::element::Element, __B: #rt::slices::Build<Self, __E>>(
                    b: __B,
                ) -> #rt::tile::Tile<#name, __E, #n> {
                    b.build::<#n>()
                }
            }
        }
    });
    let source = &s.source;
    let bases = bases_of(ll, in_dims);
    let linear = linear_ttgir(&bases, shared);
    let element = s.element.clone().unwrap_or_default();
    let summary = doc_summary(s, &shape, in_dims);
    let ws = u32_lit(s.solved.warp_size.unwrap_or(0));
    let padding = s.solved.encoding.padding();
    let callback = callback_macro(item, side_tokens(s, name));
    let pads = padding.iter().map(|&(i, p)| quote!((#i, #p)));
    let padding_const = quote!(&[#(#pads),*]);
    let idx = 0..in_dims.len();
    let slice = slice_of.map(|(parent, dim)| {
        let dim = Literal::usize_unsuffixed(dim);
        quote! {
            const SLICE_OF: ::core::option::Option<(#rt::layout::Tables, usize)> =
                ::core::option::Option::Some((<#parent as #rt::Layout>::TABLES, #dim));
            #[inline(always)]
            fn parent_coord(index: [u32; 4]) -> u32 {
                <#parent as #rt::Layout>::coord(index, #dim)
            }
        }
    });
    let threads = if shared {
        0
    } else {
        (ll.in_dim_size("lane") * ll.in_dim_size("warp")) as u32
    };
    quote! {
        #callback
        #(#attrs)*
        #[doc = #summary]
        #[derive(Clone, Copy, Default)]
        #vis struct #name;

        #[allow(dead_code, missing_docs)]
        impl #name {
            pub const SOURCE: &'static str = #source;
            pub const LINEAR_TTGIR: &'static str = #linear;
            pub const ELEMENT: &'static str = #element;
            pub const RANK: usize = #rank;
            pub const SHAPE: [u32; #rank] = [#(#shape_lits),*];
            pub const WARP_SIZE: u32 = #ws;
            /// Threads the layout spreads over per CTA (lanes x warps; 0 for shared layouts):
            /// the block size of a kernel whose CTA holds one tile.
            pub const THREADS: u32 = #threads;
            pub const ELEMENTS_PER_THREAD: u32 = #elems;
            pub const CONTIG_PER_THREAD: [u32; #rank] = [#(#contig_lits),*];
            pub const CONTIGUITY_PER_THREAD: u32 = #contig_max;
            /// `(interval, pad)` in elements of a padded shared layout; empty otherwise.
            pub const PADDING: &'static [(u32, u32)] = #padding_const;
            #consts
            #apply
            #locate
            #private::if_host! {
                /// The layout as a `LinearLayout` (host only), built from the const tables.
                pub fn linear_layout() -> #private::LinearLayout {
                    #private::linear_layout::<Self>()
                }
            }
        }

        // SAFETY: the tables of a layout `layout!` solved (its every coordinate inside its shape).
        #[allow(unsafe_code)]
        unsafe impl #rt::Layout for #name {
            const NAME: &'static str = ::core::stringify!(#name);
            const SOURCE: &'static str = #source;
            const KIND: #rt::LayoutKind = #kind;
            const RANK: usize = #rank;
            const SHAPE: &'static [u32] = &[#(#shape_lits),*];
            const IN_DIMS: &'static [#rt::InDim] = &[#(#in_dim_descs),*];
            const ELEMENTS_PER_THREAD: u32 = #elems;
            const CONTIGUITY_PER_THREAD: u32 = #contig_max;
            const LINEAR_TTGIR: &'static str = #linear;
            const PADDING: &'static [(u32, u32)] = #padding_const;
            #[inline(always)]
            fn coord(index: [u32; 4], dim: usize) -> u32 {
                let c = Self::apply(#(index[#idx]),*);
                if dim < #rank { c[dim] } else { 0 }
            }
            #slice
        }

        #registers
        impl #rt::layout::Declared for #name {}
    }
}

/// The type's doc: what it is, its API, and the layout as Triton prints it.
fn doc_summary(s: &SolvedItem, shape: &[u32], in_dims: &[&str]) -> String {
    let ll = &s.solved.layout;
    let element = match &s.element {
        Some(e) if !e.is_empty() => format!(" of {}", e),
        _ => String::new(),
    };
    format!(
        "Layout `{}` for a tensor of shape {:?}{}, solved at compile time by `layout!`.{}\n\n\
         `apply({})` gives an element's coordinates; {} consts \
         `RANK`, `SHAPE`, `<IN-DIM>S`, `<IN-DIM>_BASES`, `FREE_<IN-DIM>_MASK`, \
         `ELEMENTS_PER_THREAD`, `CONTIGUITY_PER_THREAD` (see `linear_layouts::layout!`).\n\n```text\n{}\n```",
        s.source,
        shape,
        element,
        copies_note(ll),
        in_dims.join(", "),
        if ll.is_surjective() {
            "`locate(coords)` where it lives;"
        } else {
            "no `locate` (some coordinates hold no element);"
        },
        ll
    )
}

/// For a layout that holds elements more than once (bases that repeat others: a tile larger
/// than its tensor), a sentence saying how often and along which hardware bits; empty
/// otherwise. Triton accepts such layouts, and so does `layout!`: this is where it says so.
fn copies_note(ll: &LinearLayout) -> String {
    let free: Vec<String> = ll
        .free_variable_masks()
        .iter()
        .filter(|(_, m)| *m != 0)
        .map(|(d, m)| {
            let n = m.count_ones();
            format!("{} {} bit{}", n, d, if n == 1 { "" } else { "s" })
        })
        .collect();
    if free.is_empty() {
        return String::new();
    }
    let bits: u32 = ll
        .free_variable_masks()
        .iter()
        .map(|(_, m)| m.count_ones())
        .sum();
    format!(
        "\n\nHolds each element {} times ({} repeat others): the layout is larger than the \
         tensor. Stores write each element once, and reductions skip the copies.",
        1u64 << bits,
        free.join(", ")
    )
}

/// Per in-dim: the consts `<DIM>S`, `<DIM>_BASES`, `FREE_<DIM>_MASK`, and the trait's `InDim`
/// description.
fn in_dim_tables(
    k: &Krate,
    ll: &LinearLayout,
    in_dims: &[&str],
    name: &Ident,
) -> (TokenStream, Vec<TokenStream>) {
    let rt = k.rt();
    let rank = ll.num_out_dims();
    let free = ll.free_variable_masks();
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
        let n = bases.len();
        let fm = free
            .iter()
            .find(|(n, _)| n == d)
            .map_or(0u32, |(_, m)| *m as u32);
        let fm_lit = u32_lit(fm);
        let size_lit = u32_lit(size);
        consts.extend(quote! {
                        pub const #size_ident: u32 = #size_lit;
                        pub const #bases_ident: &'static [[u32; #rank]; #n] = &[#(#rows),*];
                        pub const #free_ident: u32 = #fm_lit;
        });
        in_dim_descs.push(quote! {
            #rt::InDim { name: #d, size: #size_lit, bases: #name::#bases_ident.as_flattened(), free_mask: #fm_lit }
        });
    }

    (consts, in_dim_descs)
}

/// `apply(register, lane, warp, block)` (or `apply(offset, block)`): in-dims -> coordinates as
/// straight-line shift/mask code.
fn apply_fn(ll: &LinearLayout, in_dims: &[&str]) -> TokenStream {
    let rank = ll.num_out_dims();
    let vars: Vec<Ident> = in_dims.iter().map(|d| format_ident!("{}", d)).collect();
    let plan_inputs: Vec<TokenStream> = ll
        .in_dim_names()
        .map(|n| {
            let v = format_ident!("{}", n);
            quote!(#v)
        })
        .collect();
    let exprs = plan_exprs(&ll.apply_plan(), &plan_inputs);
    quote! {
        #[inline(always)]
        #[allow(unused_variables, unused_parens, clippy::identity_op, clippy::precedence)]
        pub const fn apply(#(#vars: u32),*) -> [u32; #rank] {
            [#(#exprs),*]
        }
    }
}

/// `locate(coords)`: coordinates -> in-dims through the pseudo-inverse, for layouts that hold
/// every coordinate.
fn locate_fn(
    k: &Krate,
    item: &Item,
    ll: &LinearLayout,
    in_dims: &[&str],
    shared: bool,
) -> TokenStream {
    let (rt, rank) = (k.rt(), ll.num_out_dims());
    if ll.is_surjective() {
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
                let ty = if shared {
                    quote!(#rt::SharedIndex)
                } else {
                    quote!(#rt::HwIndex)
                };
                quote! {
                    #[inline(always)]
                    #[allow(unused_parens, clippy::identity_op, clippy::precedence)]
                    pub const fn locate(coords: [u32; #rank]) -> #ty {
                        #ty { #(#fields),* }
                    }
                }
            }
            // A surjective layout always has a pseudo-inverse, within the solver's limits.
            Err(e) if e.kind() == layout_core::ErrorKind::Limit => syn::Error::new(
                item.name.span(),
                format!(
                    "layout! cannot build `locate` for `{}`: {}; a tile this large does not fit a CTA's registers or shared memory: split it into tiles",
                    item.name, e.message()
                ),
            )
            .to_compile_error(),
            // Anything else is a bug, said at the item rather than leaving `locate` out.
            Err(e) => syn::Error::new(
                item.name.span(),
                format!(
                    "internal error in layout!: no pseudo-inverse for `locate`: {}",
                    e
                ),
            )
            .to_compile_error(),
        }
    } else {
        // Some coordinates hold no element: there is no `locate` (the type's docs say so).
        TokenStream::new()
    }
}

/// A `macro_rules!` named like the layout (the type and the macro live in different namespaces)
/// that hands the solved layout to `convert!`: `convert!(A => B, f32)` expands to
/// `A! { @convert_src (B) ([$crate] ...) }`, which expands to `B! { @convert_dst (A's layout)
/// ([$crate] ...) }`, which calls the solver with both layouts. Proc macros cannot see each
/// other's input; this chain is how `convert!` learns what `layout!` solved. The facade's path
/// travels in the arguments, so the macro itself names no crate.
fn callback_macro(item: &Item, me: TokenStream) -> TokenStream {
    let name = &item.name;
    let vis = &item.vis;
    let mac = format_ident!("__linear_layouts_{}_{:016x}", name, item_hash(item));
    // Only a `pub` layout's macro must be reachable from other crates, which takes
    // `#[macro_export]` (at the crate root); the others stay in their module, re-exported with
    // the item's own visibility.
    let export = match vis {
        syn::Visibility::Public(_) => quote!(#[macro_export]),
        _ => quote!(),
    };
    quote! {
        #[doc(hidden)]
        #export
        macro_rules! #mac {
            (@convert_src ($($dst:tt)*) ([$($k:tt)*] $($args:tt)*)) => {
                $($dst)* ! { @convert_dst (#me) ([$($k)*] $($args)*) }
            };
            (@convert_dst ($($src:tt)*) ([$($k:tt)*] $($args:tt)*)) => {
                $($k)*::__private::convert_solve! { [$($k)*] ($($src)*) (#me) ($($args)*) }
            };
            (@convert_src_to ($($dst:tt)*) ([$($k:tt)*] $($args:tt)*)) => {
                $($k)*::__private::convert_solve! { [$($k)*] (#me) ($($dst)*) ($($args)*) }
            };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        #vis use #mac as #name;
    }
}

/// A hash of the whole item as written (attributes, visibility, name, layout and shape) and of
/// where it stands in the crate's source: the callback's name is the same on every build,
/// differs between layouts of one name, and also between identical `pub` items in two modules
/// (both `#[macro_export]`ed at the crate root). The place is the name's file, line and column
/// as the compiler reports them (not its hygiene context, which depends on expansion order);
/// outside a compiler run (tests of the expansion) there is none.
fn item_hash(item: &Item) -> u64 {
    let mut text = String::new();
    if proc_macro::is_available() {
        let s = item.name.span().unwrap();
        text.push_str(&format!("{}:{}:{}", s.file(), s.line(), s.column()));
    }
    for a in &item.attrs {
        text.push_str(&quote!(#a).to_string());
    }
    let (vis, name, spec) = (&item.vis, &item.name, &item.spec);
    text.push_str(&quote!(#vis #name = #spec).to_string());
    text.push_str(&match &item.shape {
        crate::input::Shape::Tensor(t) => t.to_string(),
        crate::input::Shape::Dims(d, _) => {
            format!("{:?}", d.iter().map(|x| x.0).collect::<Vec<_>>())
        }
        crate::input::Shape::Missing(_) => String::new(),
    });
    // FNV-1a: stable across builds and platforms (std's hasher is randomly seeded).
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::copies_note;
    use layout_core::parse::{parse_encoding, Aliases};

    fn layout(attr: &str, shape: &[i64]) -> layout_core::LinearLayout {
        let e = parse_encoding(attr, &Aliases::default()).expect("parses");
        e.to_linear_layout(shape).expect("a layout")
    }

    #[test]
    fn a_tile_larger_than_its_tensor_says_how_often_it_holds_each_element() {
        // 4 warps stacked over a tensor of one row: both warp bits repeat the first warp's.
        let ll = layout(
            "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>",
            &[1, 512],
        );
        let note = copies_note(&ll);
        assert!(
            note.contains("Holds each element 4 times (2 warp bits repeat others)"),
            "{note}"
        );
        // Lanes over a row of 16 where 32 lanes fit: one lane bit repeats, as do the warps.
        let ll = layout(
            "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 2], order = [1, 0]}>",
            &[1, 16],
        );
        let note = copies_note(&ll);
        assert!(
            note.contains("Holds each element 4 times (1 lane bit, 1 warp bit repeat others)"),
            "{note}"
        );
    }

    #[test]
    fn a_layout_that_holds_each_element_once_says_nothing_more() {
        let ll = layout(
            "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>",
            &[4, 128],
        );
        assert_eq!(copies_note(&ll), "");
    }
}
