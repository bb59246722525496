//! `convert!(A => B, f32)`: start the callback chain through the layouts' macros, then solve
//! the conversion in layout-core and write the plan as a const `Converter`.

use layout_core::convert::{
    plan_conversion, Barrier, ConversionPlan, Force, PlanBody, SmemAccess, Strategy,
};
use layout_core::parse::{parse_encoding, Aliases};
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitInt, LitStr, Path, Token};

/// One side of `convert!`: the name of a `layout!` type, or a layout written inline with its
/// shape, exactly as a `layout!` item would write it (`#ttg.blocked<{...}> : tensor<64x16xf16>`,
/// `blocked(...) for [64, 16]`, optionally after `#[warp_size = 64]`).
enum SideInput {
    Named(Path),
    Inline(TokenStream),
}

impl SideInput {
    /// Split off one side: the tokens up to `stop` (`=>` or a `,`) outside angle brackets.
    fn parse_until(input: ParseStream, stop_at_comma: bool) -> syn::Result<Self> {
        let mut toks: Vec<TokenTree> = Vec::new();
        let mut depth = 0i32;
        while !input.is_empty() {
            if depth == 0 && !stop_at_comma && input.peek(Token![=>]) {
                break;
            }
            if depth == 0 && stop_at_comma && input.peek(Token![,]) {
                break;
            }
            let tt: TokenTree = input.parse()?;
            if let TokenTree::Punct(p) = &tt {
                // `<`/`>` of `tensor<...>` and `!ttg.memdesc<...>`, not of `->` or `=>`.
                let after_joint = matches!(toks.last(), Some(TokenTree::Punct(q))
                    if q.spacing() == proc_macro2::Spacing::Joint && matches!(q.as_char(), '-' | '='));
                match p.as_char() {
                    '<' => depth += 1,
                    '>' if !after_joint => depth -= 1,
                    _ => {}
                }
            }
            toks.push(tt);
        }
        let inline = toks.iter().enumerate().any(|(i, t)| match t {
            TokenTree::Punct(p) if p.as_char() == '#' => i == 0,
            TokenTree::Punct(p) if p.as_char() == ':' => {
                // A lone `:` (not half of `::`) introduces the tensor type.
                p.spacing() == proc_macro2::Spacing::Alone
                    && !matches!(toks.get(i.wrapping_sub(1)), Some(TokenTree::Punct(q)) if q.as_char() == ':')
            }
            TokenTree::Ident(id) => id == "for",
            _ => false,
        });
        let ts: TokenStream = toks.into_iter().collect();
        if inline {
            Ok(SideInput::Inline(ts))
        } else {
            syn::parse2(ts.clone()).map(SideInput::Named).map_err(|_| {
                syn::Error::new_spanned(
                    &ts,
                    "expected the name of a layout! type, or a layout with its shape: `#ttg.blocked<{...}> : tensor<64x16xf16>` or `blocked(...) for [64, 16]`",
                )
            })
        }
    }

    fn tokens(&self) -> TokenStream {
        match self {
            SideInput::Named(p) => quote!(#p),
            SideInput::Inline(t) => t.clone(),
        }
    }
}

/// `A => B, Elem [, shared | shuffles]`.
struct ConvertInput {
    src: SideInput,
    dst: SideInput,
    elem: Ident,
    force: Option<Ident>,
}

impl Parse for ConvertInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let src = SideInput::parse_until(input, false)?;
        input.parse::<Token![=>]>().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected `=>`: convert!(Source => Destination, f32)",
            )
        })?;
        let dst = SideInput::parse_until(input, true)?;
        input.parse::<Token![,]>().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected `,` and the element type: convert!(Source => Destination, f32)",
            )
        })?;
        let elem: Ident = input.parse()?;
        let mut force = None;
        if input.parse::<Option<Token![,]>>()?.is_some() && !input.is_empty() {
            force = Some(input.parse()?);
        }
        input.parse::<Option<Token![,]>>()?;
        if !input.is_empty() {
            return Err(input.error(
                "unexpected tokens after convert!(Source => Destination, f32[, shared | shuffles])",
            ));
        }
        Ok(ConvertInput {
            src,
            dst,
            elem,
            force,
        })
    }
}

/// Solve an inline side as `layout!` would solve an item named `name`, and write it in the form
/// the layouts' macros pass: `("#ttg.linear<...>" [64, 16] distributed Name)`.
fn inline_side(tokens: &TokenStream, name: &str) -> syn::Result<TokenStream> {
    let mut toks: Vec<TokenTree> = tokens.clone().into_iter().collect();
    // Leading `#[warp_size = N]` attributes go before the item's name.
    let mut attrs = TokenStream::new();
    while let (Some(TokenTree::Punct(p)), Some(TokenTree::Group(g))) = (toks.first(), toks.get(1)) {
        if p.as_char() != '#' || g.delimiter() != proc_macro2::Delimiter::Bracket {
            break;
        }
        attrs.extend(toks.drain(..2));
    }
    let span = toks.first().map_or(Span::call_site(), |t| t.span());
    let ident = Ident::new(name, span);
    let body: TokenStream = toks.into_iter().collect();
    let item: crate::input::Item = syn::parse2(quote!(#attrs #ident = #body))?;
    if let crate::input::Shape::Missing(_) = item.shape {
        return Err(syn::Error::new_spanned(
            &body,
            format!(
                "the {} layout needs its tensor shape here: `#ttg.blocked<{{...}}> : tensor<64x16xf32>` or `blocked(...) for [64, 16]`",
                name.to_lowercase()
            ),
        ));
    }
    let ws = item.warp_size.map(|w| w.0);
    let solved = crate::expand::solve_item(&item, &Aliases::new(), &[name.to_string()], ws)?;
    let (text, shape, shared) = crate::emit::callback_parts(&solved);
    let shape = shape
        .iter()
        .map(|&x| proc_macro2::Literal::u32_unsuffixed(x));
    let kind = if shared {
        quote!(shared)
    } else {
        quote!(distributed)
    };
    Ok(quote!(#text [#(#shape),*] #kind #ident))
}

/// `convert!`: solve inline sides here, and hand named ones to their layouts' macros.
pub fn convert(input: TokenStream) -> TokenStream {
    let c: ConvertInput = match syn::parse2(input) {
        Ok(c) => c,
        Err(e) => return e.to_compile_error(),
    };
    let elem = &c.elem;
    let force = match &c.force {
        Some(f) => quote!(#f),
        None => quote!(auto),
    };
    let (st, dt) = (c.src.tokens(), c.dst.tokens());
    let args = quote!(#elem #force #st => #dt);
    let side = |s: &SideInput, name: &str| match s {
        SideInput::Inline(t) => inline_side(t, name).map(Some),
        SideInput::Named(_) => Ok(None),
    };
    let (a, b) = match (side(&c.src, "Source"), side(&c.dst, "Destination")) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(mut e), Err(f)) => {
            e.combine(f);
            return e.to_compile_error();
        }
        (Err(e), _) | (_, Err(e)) => return e.to_compile_error(),
    };
    match (&c.src, &c.dst, a, b) {
        (_, _, Some(a), Some(b)) => solve(quote!((#a) (#b) (#args))),
        (_, SideInput::Named(dst), Some(a), None) => {
            quote!(#dst ! { @convert_dst (#a) (#args) })
        }
        (SideInput::Named(src), _, None, Some(b)) => {
            quote!(#src ! { @convert_src_to (#b) (#args) })
        }
        (SideInput::Named(src), SideInput::Named(dst), _, _) => {
            quote!(#src ! { @convert_src (#dst) (#args) })
        }
        _ => syn::Error::new(Span::call_site(), "convert!: unexpected input").to_compile_error(),
    }
}

/// One side as the layouts' macros pass it: `("#ttg.linear<...>" [64, 16] distributed Name)`.
struct Side {
    text: LitStr,
    shape: Vec<i64>,
    shared: bool,
    name: Ident,
}

impl Parse for Side {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let text: LitStr = input.parse()?;
        let content;
        syn::bracketed!(content in input);
        let dims = content.parse_terminated(LitInt::parse, Token![,])?;
        let shape = dims
            .iter()
            .map(|d| d.base10_parse::<i64>())
            .collect::<syn::Result<Vec<_>>>()?;
        let kind: Ident = input.parse()?;
        let name: Ident = input.parse()?;
        Ok(Side {
            text,
            shape,
            shared: kind == "shared",
            name,
        })
    }
}

struct SolveInput {
    src: Side,
    dst: Side,
    elem: Ident,
    force: Ident,
    /// The user's `A => B` tokens, for error spans.
    user: TokenStream,
}

impl Parse for SolveInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let a;
        syn::parenthesized!(a in input);
        let src: Side = a.parse()?;
        let b;
        syn::parenthesized!(b in input);
        let dst: Side = b.parse()?;
        let c;
        syn::parenthesized!(c in input);
        let elem: Ident = c.parse()?;
        let force: Ident = c.parse()?;
        let user: TokenStream = c.parse()?;
        Ok(SolveInput {
            src,
            dst,
            elem,
            force,
            user,
        })
    }
}

fn elem_bits(e: &Ident) -> Option<u32> {
    Some(match e.to_string().as_str() {
        "u8" | "i8" => 8,
        "u16" | "i16" => 16,
        "u32" | "i32" | "f32" => 32,
        "u64" | "i64" | "f64" => 64,
        _ => return None,
    })
}

fn solve_inner(s: &SolveInput) -> syn::Result<(ConversionPlan, u32)> {
    let err = |msg: String| syn::Error::new_spanned(&s.user, msg);
    if s.src.shared && s.dst.shared {
        return Err(err(format!(
            "`{}` and `{}` are both shared-memory layouts; convert! stores a distributed layout into shared memory, loads it back, or converts between distributed layouts",
            s.src.name, s.dst.name
        )));
    }
    if s.src.shape != s.dst.shape {
        return Err(err(format!(
            "`{}` is a layout of a {:?} tensor and `{}` of a {:?} tensor; a conversion keeps the tensor's shape",
            s.src.name, s.src.shape, s.dst.name, s.dst.shape
        )));
    }
    let bits = elem_bits(&s.elem).ok_or_else(|| {
        syn::Error::new(
            s.elem.span(),
            format!(
                "unsupported element type `{}`: use u8, i8, u16, i16, u32, i32, f32, u64, i64 or f64 (16-bit floats travel as u16)",
                s.elem
            ),
        )
    })?;
    let force = match s.force.to_string().as_str() {
        "auto" => Force::Auto,
        "shared" => Force::SharedMemory,
        "shuffles" => Force::Shuffles,
        other => {
            return Err(syn::Error::new(
                s.force.span(),
                format!(
                "unknown strategy `{}`: write `shared` or `shuffles` (or nothing for the cheapest)",
                other
            ),
            ))
        }
    };
    let solve = |side: &Side| {
        parse_encoding(&side.text.value(), &Aliases::new())
            .map_err(layout_core::LayoutError::from)
            .and_then(|e| e.to_linear_layout(&side.shape))
            .map_err(|e| err(format!("`{}`: {}", side.name, e)))
    };
    let (a, b) = (solve(&s.src)?, solve(&s.dst)?);
    if a.in_dim_size("lane") != b.in_dim_size("lane") {
        return Err(err(format!(
            "`{}` has {} lanes per warp and `{}` {}: both layouts must have the same warp size",
            s.src.name,
            a.in_dim_size("lane"),
            s.dst.name,
            b.in_dim_size("lane")
        )));
    }
    let plan = plan_conversion(&a, &b, bits, force).map_err(|e| err(e.message().to_string()))?;
    if force == Force::Shuffles && plan.cost.strategy == Strategy::SharedMemory {
        return Err(err(format!(
            "`{}` => `{}` cannot be done with shuffles: it moves data between warps or is not a permutation of bits; use shared memory",
            s.src.name, s.dst.name
        )));
    }
    Ok((plan, bits))
}

fn u16s(v: &[u16]) -> TokenStream {
    quote!(&[#(#v),*])
}

fn u32s(v: &[u32]) -> TokenStream {
    quote!(&[#(#v),*])
}

fn access(a: &SmemAccess) -> TokenStream {
    let (vec, regs, ro, lb, wb, bb, ls, ws, remote, mx) = (
        a.vec,
        u16s(&a.regs),
        u32s(&a.reg_offsets),
        u32s(&a.lane_bases),
        u32s(&a.warp_bases),
        u32s(&a.block_bases),
        a.lane_skip,
        a.warp_skip,
        a.remote,
        a.matrix,
    );
    quote! {
        ::linear_layouts::gpu_runtime::convert::SmemAccess {
            vec: #vec, regs: #regs, reg_offsets: #ro, lane_bases: #lb, warp_bases: #wb,
            block_bases: #bb, lane_skip: #ls, warp_skip: #ws, remote: #remote, matrix: #mx,
        }
    }
}

/// The base address of a side's accesses: its lane and warp terms, and the CTA-rank term when
/// there is one (`lane`, `warp`, `t` in scope).
fn base_expr(a: &SmemAccess) -> TokenStream {
    if a.block_bases.is_empty() {
        return linear_expr(&a.lane_bases, &a.warp_bases);
    }
    let e = linear_terms(&[
        (&a.lane_bases, quote!(lane)),
        (&a.warp_bases, quote!(warp)),
        (&a.block_bases, quote!(rank)),
    ]);
    quote!({
        let rank = ::linear_layouts::Thread::cta_rank(t);
        #e
    })
}

fn barrier_name(b: Barrier) -> Ident {
    let n = match b {
        Barrier::Warp => "Warp",
        Barrier::Block => "Block",
        Barrier::Cluster => "Cluster",
    };
    Ident::new(n, Span::call_site())
}

/// `__convert_solve!`: both layouts known; solve and emit the const converter.
pub fn solve(input: TokenStream) -> TokenStream {
    let s: SolveInput = match syn::parse2(input) {
        Ok(s) => s,
        Err(e) => return e.to_compile_error(),
    };
    if s.src.shared != s.dst.shared {
        return solve_access(&s).unwrap_or_else(|e| e.to_compile_error());
    }
    let (plan, _bits) = match solve_inner(&s) {
        Ok(p) => p,
        Err(e) => return e.to_compile_error(),
    };
    let rt = quote!(::linear_layouts::gpu_runtime::convert);
    let body = match &plan.body {
        PlanBody::Registers(p) => {
            let p = u16s(p);
            quote!(#rt::Plan::Registers(#p))
        }
        PlanBody::Shuffles(p) => {
            let (pack, gather, scatter, lane_map, ship) = (
                p.pack,
                u16s(&p.gather),
                u16s(&p.scatter),
                u32s(&p.lane_map),
                p.ship,
            );
            let swaps = p.swaps.iter().map(|(r, l)| quote!((#r, #l)));
            quote!(#rt::Plan::Shuffles(#rt::ShufflePlan {
                pack: #pack, gather: #gather, swaps: &[#(#swaps),*], lane_map: #lane_map,
                ship: #ship, scatter: #scatter,
            }))
        }
        PlanBody::Shared(p) => {
            let (st, ld, rounds) = (access(&p.store), access(&p.load), p.rounds);
            let bar = barrier_name(p.barrier);
            quote!(#rt::Plan::Shared(#rt::SharedPlan { store: #st, load: #ld, barrier: #rt::Barrier::#bar, rounds: #rounds }))
        }
    };
    let cost = cost_tokens(&plan.cost);
    let (ns, nd) = (plan.src_regs, plan.dst_regs);
    let elem = &s.elem;
    let _ = Span::call_site();
    let exec = emit_exec(&plan, elem);
    quote! {
        {
            /// The conversion as straight-line code.
            #[derive(Clone, Copy, Debug)]
            struct __Emitted;
            impl #rt::Execute<#elem, #ns, #nd> for __Emitted {
                #[inline(always)]
                #[allow(unused_variables, unused_mut, unused_parens, clippy::all)]
                fn execute<T: ::linear_layouts::Thread>(_plan: &#rt::Plan, t: &T, src: &[#elem; #ns]) -> [#elem; #nd] {
                    #exec
                }
            }
            const __CONVERTER: ::linear_layouts::Converter<#elem, #ns, #nd, __Emitted> =
                ::linear_layouts::Converter::new(#body, #cost);
            __CONVERTER
        }
    }
}

/// A linear map of lane and warp bits to a 32-bit value (a byte offset or a lane id), as
/// straight-line shift/mask terms over `lane` and `warp` (layout-core's apply plan).
fn linear_expr(lane_bases: &[u32], warp_bases: &[u32]) -> TokenStream {
    linear_terms(&[(lane_bases, quote!(lane)), (warp_bases, quote!(warp))])
}

/// The XOR of `bases[b]` over the set bits `b` of each variable, as shift/mask code (Triton's
/// matrixVectorProd, through `LinearLayout::apply_plan`).
fn linear_terms(terms: &[(&[u32], TokenStream)]) -> TokenStream {
    use layout_core::LinearLayout;
    let col = |b: &[u32]| -> Vec<Vec<i32>> { b.iter().map(|&x| vec![x as i32]).collect() };
    let max = terms
        .iter()
        .flat_map(|(b, _)| b.iter())
        .fold(0u32, |a, &b| a | b);
    let size = (max as u64 + 1).next_power_of_two().max(1) as i32;
    let l = LinearLayout::from_parts(
        terms
            .iter()
            .enumerate()
            .map(|(i, (b, _))| (format!("in{}", i), col(b)))
            .collect(),
        vec![("x".to_string(), size)],
        false,
    );
    match l {
        Ok(l) => {
            let vars: Vec<TokenStream> = terms.iter().map(|(_, v)| v.clone()).collect();
            let exprs = crate::emit::plan_exprs(&l.apply_plan(), &vars);
            let e = &exprs[0];
            quote!((#e))
        }
        Err(_) => quote!(0u32),
    }
}

/// The straight-line body of a converter: `t`, `src` in scope, evaluates to `[E; ND]`.
fn emit_exec(plan: &ConversionPlan, elem: &Ident) -> TokenStream {
    let rt = quote!(::linear_layouts::gpu_runtime::convert);
    let sel = quote!(::linear_layouts::gpu_runtime::thread::select);
    match &plan.body {
        PlanBody::Registers(perm) => {
            let idx = perm.iter().map(|&p| p as usize);
            quote!([#(src[#idx]),*])
        }
        PlanBody::Shuffles(p) => {
            let ne = p.gather.len();
            let (per, nw) = if p.pack < 0 {
                (1usize, ne * 2)
            } else {
                (1usize << p.pack, ne >> p.pack)
            };
            let mut st = Vec::new();
            st.push(quote!(let lane = ::linear_layouts::Thread::lane(t);));
            st.push(quote!(let mut w = [0u32; #nw];));
            for x in 0..(if p.pack < 0 { ne } else { nw }) {
                if p.pack < 0 {
                    let g = p.gather[x] as usize;
                    let (w0, w1) = (2 * x, 2 * x + 1);
                    st.push(quote! {
                        let b = ::linear_layouts::Element::to_bits(src[#g]);
                        w[#w0] = b as u32;
                        w[#w1] = (b >> 32) as u32;
                    });
                } else {
                    let gs = (0..per).map(|k| p.gather[x * per + k] as usize);
                    st.push(quote!(w[#x] = #rt::pack::<#elem>(&[#(src[#gs]),*])[0];));
                }
            }
            let wb = |r: u8| r as usize;
            let pairs = |r: usize| {
                (0..nw)
                    .filter(move |x| (x >> r) & 1 == 0)
                    .map(move |x| (x, x | (1 << r)))
            };
            if p.ship {
                let (r, l) = (wb(p.swaps[0].0), p.swaps[0].1 as u32);
                let m = 1u32 << l;
                st.push(quote!(let c = (lane >> #l) & 1 != 0;));
                for (x0, x1) in pairs(r) {
                    st.push(quote! {
                        let send = #sel(c, w[#x0], w[#x1]);
                        let recv = ::linear_layouts::Thread::shfl_xor(t, send, #m);
                        let (a, b) = (w[#x0], w[#x1]);
                        w[#x0] = #sel(c, recv, a);
                        w[#x1] = #sel(c, b, recv);
                    });
                }
            } else {
                let stage = |lane_var: TokenStream, st: &mut Vec<TokenStream>| {
                    for &(r, l) in &p.swaps {
                        let l = l as u32;
                        st.push(quote!(let c = (#lane_var >> #l) & 1 != 0;));
                        for (x0, x1) in pairs(wb(r)) {
                            st.push(quote! {
                                let (a, b) = (w[#x0], w[#x1]);
                                w[#x0] = #sel(c, b, a);
                                w[#x1] = #sel(c, a, b);
                            });
                        }
                    }
                };
                stage(quote!(lane), &mut st);
                let identity = p.lane_map.is_empty();
                if !identity {
                    let e = linear_expr(&p.lane_map, &[]);
                    st.push(quote!(let warp = 0u32; let src_lane: u32 = #e; let _ = warp;));
                }
                for x in 0..nw {
                    let mask = p
                        .swaps
                        .iter()
                        .filter(|(r, _)| (x >> wb(*r)) & 1 == 1)
                        .fold(0u32, |a, (_, l)| a | (1 << l));
                    if !identity {
                        st.push(quote!(w[#x] = ::linear_layouts::Thread::shfl_idx(t, w[#x], src_lane ^ #mask);));
                    } else if mask != 0 {
                        st.push(
                            quote!(w[#x] = ::linear_layouts::Thread::shfl_xor(t, w[#x], #mask);),
                        );
                    }
                }
                stage(
                    if identity {
                        quote!(lane)
                    } else {
                        quote!(src_lane)
                    },
                    &mut st,
                );
            }
            let outs = p.scatter.iter().map(|&e| {
                let e = e as usize;
                if p.pack < 0 {
                    let (w0, w1) = (2 * e, 2 * e + 1);
                    quote!(<#elem as ::linear_layouts::Element>::from_bits((w[#w0] as u64) | ((w[#w1] as u64) << 32)))
                } else {
                    let (x, k) = (e / per, e % per);
                    quote!(#rt::unpack::<#elem>(&[w[#x], 0, 0, 0], #k))
                }
            });
            quote!({ #(#st)* [#(#outs),*] })
        }
        PlanBody::Shared(p) => {
            let (s, l) = (&p.store, &p.load);
            let sbase = base_expr(s);
            let lbase = base_expr(l);
            let barrier = match p.barrier {
                Barrier::Warp => quote!(::linear_layouts::Thread::sync_warp(t);),
                Barrier::Block => quote!(::linear_layouts::Thread::sync_block(t);),
                Barrier::Cluster => quote!(::linear_layouts::Thread::sync_cluster(t);),
            };
            let rounds = p.rounds.max(1) as usize;
            let (sper, lper) = (s.reg_offsets.len() / rounds, l.reg_offsets.len() / rounds);
            let (lskip, wskip) = (s.lane_skip, s.warp_skip);
            let nd = plan.dst_regs;
            let mut st = Vec::new();
            st.push(quote! {
                let lane = ::linear_layouts::Thread::lane(t);
                let warp = ::linear_layouts::Thread::warp(t);
                let sbase: u32 = #sbase;
                let lbase: u32 = #lbase;
                let store_here = lane & #lskip == 0 && warp & #wskip == 0;
                let mut out = [<#elem as Default>::default(); #nd];
            });
            for r in 0..rounds {
                if r > 0 {
                    st.push(barrier.clone());
                }
                let stores: Vec<TokenStream> = (r * sper..(r + 1) * sper)
                    .map(|v| emit_store(s, v, elem, quote!(sbase)))
                    .collect();
                st.push(quote!(if store_here { #(#stores)* }));
                st.push(barrier.clone());
                st.extend((r * lper..(r + 1) * lper).map(|v| emit_load(l, v, elem, quote!(lbase))));
            }
            if p.barrier == Barrier::Cluster {
                // No CTA moves on while others still read its buffer.
                st.push(barrier);
            }
            quote!({ #(#st)* out })
        }
    }
}

/// One store access `v` of `s` (plain vector or stmatrix), `src` and `t` in scope.
fn emit_store(s: &SmemAccess, v: usize, elem: &Ident, base: TokenStream) -> TokenStream {
    let rt = quote!(::linear_layouts::gpu_runtime::convert);
    let (off, vec) = (s.reg_offsets[v], s.vec as usize);
    if s.matrix != 0 {
        let trans = s.matrix == 2;
        let per = vec / 4;
        let words = (0..4).map(|q| {
            let rs = (0..per).map(|k| s.regs[vec * v + per * q + k] as usize);
            quote!(#rt::pack::<#elem>(&[#(src[#rs]),*])[0])
        });
        return quote! {
            ::linear_layouts::Thread::stmatrix_x4(t, #base ^ #off, #trans, [#(#words),*]);
        };
    }
    let regs = (0..vec).map(|k| s.regs[v * vec + k] as usize);
    let bytes = s.vec;
    let remote = s.remote;
    quote! {
        #rt::st_at(t, #remote, #base ^ #off, #bytes * (<#elem as ::linear_layouts::Element>::BITS / 8), #rt::pack::<#elem>(&[#(src[#regs]),*]));
    }
}

/// One load access `v` of `l` (plain vector or ldmatrix) into `out`, `t` in scope.
fn emit_load(l: &SmemAccess, v: usize, elem: &Ident, base: TokenStream) -> TokenStream {
    let rt = quote!(::linear_layouts::gpu_runtime::convert);
    let (off, vec) = (l.reg_offsets[v], l.vec as usize);
    if l.matrix != 0 {
        let trans = l.matrix == 2;
        let per = vec / 4;
        let sets = (0..vec).map(|e| {
            let reg = l.regs[vec * v + e] as usize;
            let (q, k) = (e / per, e % per);
            quote!(out[#reg] = #rt::unpack::<#elem>(&[x[#q], 0, 0, 0], #k);)
        });
        return quote! {
            let x = ::linear_layouts::Thread::ldmatrix_x4(t, #base ^ #off, #trans);
            #(#sets)*
        };
    }
    let sets = (0..vec).map(|k| {
        let reg = l.regs[v * vec + k] as usize;
        quote!(out[#reg] = #rt::unpack::<#elem>(&x, #k);)
    });
    let bytes = l.vec;
    let remote = l.remote;
    quote! {
        let x = #rt::ld_at(t, #remote, #base ^ #off, #bytes * (<#elem as ::linear_layouts::Element>::BITS / 8));
        #(#sets)*
    }
}

fn cost_tokens(c: &layout_core::convert::Cost) -> TokenStream {
    let rt = quote!(::linear_layouts::gpu_runtime::convert);
    let strategy = match c.strategy {
        Strategy::Nothing => quote!(Nothing),
        Strategy::Registers => quote!(Registers),
        Strategy::Shuffles => quote!(Shuffles),
        Strategy::SharedMemory => quote!(SharedMemory),
    };
    let (sh, se, sb, st, ld, ve, wc, rc, ba) = (
        c.shuffles,
        c.selects,
        c.shared_bytes,
        c.stores,
        c.loads,
        c.vector,
        c.write_conflicts,
        c.read_conflicts,
        c.barriers,
    );
    quote! {
        #rt::Cost {
            strategy: #rt::Strategy::#strategy,
            shuffles: #sh, selects: #se, shared_bytes: #sb, stores: #st, loads: #ld,
            vector: #ve, write_conflicts: #wc, read_conflicts: #rc, barriers: #ba,
        }
    }
}

/// `convert!(Distributed => Shared, T)` (a store) or `convert!(Shared => Distributed, T)` (a
/// load): the accesses of the shared layout's own offsets.
fn solve_access(s: &SolveInput) -> syn::Result<TokenStream> {
    let err = |msg: String| syn::Error::new_spanned(&s.user, msg);
    let store = s.dst.shared;
    let (dist, shared) = if store {
        (&s.src, &s.dst)
    } else {
        (&s.dst, &s.src)
    };
    if s.src.shape != s.dst.shape {
        return Err(err(format!(
            "`{}` is a layout of a {:?} tensor and `{}` of a {:?} tensor; a conversion keeps the tensor's shape",
            s.src.name, s.src.shape, s.dst.name, s.dst.shape
        )));
    }
    let bits = elem_bits(&s.elem).ok_or_else(|| {
        syn::Error::new(s.elem.span(), format!("unsupported element type `{}`: use u8, i8, u16, i16, u32, i32, f32, u64, i64 or f64 (16-bit floats travel as u16)", s.elem))
    })?;
    let solve = |side: &Side| {
        parse_encoding(&side.text.value(), &Aliases::new())
            .map_err(layout_core::LayoutError::from)
            .and_then(|e| e.to_linear_layout(&side.shape))
            .map_err(|e| err(format!("`{}`: {}", side.name, e)))
    };
    let (d, sm) = (solve(dist)?, solve(shared)?);
    let (a, cost) = layout_core::convert::plan_shared_access(&d, &sm, bits, store)
        .map_err(|e| err(e.message().to_string()))?;
    let n = d.in_dim_size("register").max(1) as usize;
    let elem = &s.elem;
    let rt = quote!(::linear_layouts::gpu_runtime::convert);
    let base = base_expr(&a);
    let acc = access(&a);
    let cost = cost_tokens(&cost);
    let (ls, ws) = (a.lane_skip, a.warp_skip);
    let body = if store {
        let stores = (0..a.reg_offsets.len()).map(|v| emit_store(&a, v, elem, quote!(base)));
        quote! {
            fn store<T: ::linear_layouts::Thread>(_a: &#rt::SmemAccess, t: &T, src: &[#elem; #n]) {
                let lane = ::linear_layouts::Thread::lane(t);
                let warp = ::linear_layouts::Thread::warp(t);
                let base: u32 = #base;
                if lane & #ls == 0 && warp & #ws == 0 { #(#stores)* }
            }
            fn load<T: ::linear_layouts::Thread>(a: &#rt::SmemAccess, t: &T) -> [#elem; #n] {
                <#rt::Interpret as #rt::ExecuteAccess<#elem, #n>>::load(a, t)
            }
        }
    } else {
        let loads = (0..a.reg_offsets.len()).map(|v| emit_load(&a, v, elem, quote!(base)));
        quote! {
            fn store<T: ::linear_layouts::Thread>(a: &#rt::SmemAccess, t: &T, src: &[#elem; #n]) {
                <#rt::Interpret as #rt::ExecuteAccess<#elem, #n>>::store(a, t, src)
            }
            fn load<T: ::linear_layouts::Thread>(_a: &#rt::SmemAccess, t: &T) -> [#elem; #n] {
                let lane = ::linear_layouts::Thread::lane(t);
                let warp = ::linear_layouts::Thread::warp(t);
                let base: u32 = #base;
                let mut out = [<#elem as Default>::default(); #n];
                #(#loads)*
                out
            }
        }
    };
    let ty = if store {
        quote!(SharedStore)
    } else {
        quote!(SharedLoad)
    };
    Ok(quote! {
        {
            /// The accesses as straight-line code.
            #[derive(Clone, Copy, Debug)]
            struct __Emitted;
            #[allow(unused_variables, unused_mut, unused_parens, clippy::all)]
            impl #rt::ExecuteAccess<#elem, #n> for __Emitted {
                #body
            }
            const __ACCESS: #rt::#ty<#elem, #n, __Emitted> = #rt::#ty::new(#acc, #cost);
            __ACCESS
        }
    })
}
