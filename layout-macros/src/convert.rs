//! `convert!(A => B, f32)`: start the callback chain through the layouts' macros, then solve
//! the conversion in layout-core and write the plan as a const `Converter`.

use layout_core::convert::{
    plan_conversion, ConversionPlan, Force, PlanBody, SmemAccess, Strategy,
};
use layout_core::parse::{parse_encoding, Aliases};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitInt, LitStr, Path, Token};

/// `A => B, Elem [, shared | shuffles]`.
struct ConvertInput {
    src: Path,
    dst: Path,
    elem: Ident,
    force: Option<Ident>,
}

impl Parse for ConvertInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let src: Path = input.parse()?;
        input.parse::<Token![=>]>().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected `=>`: convert!(Source => Destination, f32)",
            )
        })?;
        let dst: Path = input.parse()?;
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

/// `convert!`: hand over to the source layout's macro.
pub fn convert(input: TokenStream) -> TokenStream {
    let c: ConvertInput = match syn::parse2(input) {
        Ok(c) => c,
        Err(e) => return e.to_compile_error(),
    };
    let (src, dst, elem) = (&c.src, &c.dst, &c.elem);
    let force = match &c.force {
        Some(f) => quote!(#f),
        None => quote!(auto),
    };
    quote! {
        #src ! { @convert_src (#dst) (#elem #force #src => #dst) }
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
    for side in [&s.src, &s.dst] {
        if side.shared {
            return Err(err(format!(
                "`{}` is a shared-memory layout; convert! converts between distributed layouts (register, lane, warp, block)",
                side.name
            )));
        }
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
    let (vec, regs, ro, lb, wb, ls, ws) = (
        a.vec,
        u16s(&a.regs),
        u32s(&a.reg_offsets),
        u32s(&a.lane_bases),
        u32s(&a.warp_bases),
        a.lane_skip,
        a.warp_skip,
    );
    quote! {
        ::linear_layouts::gpu_runtime::convert::SmemAccess {
            vec: #vec, regs: #regs, reg_offsets: #ro, lane_bases: #lb, warp_bases: #wb,
            lane_skip: #ls, warp_skip: #ws,
        }
    }
}

/// `__convert_solve!`: both layouts known; solve and emit the const converter.
pub fn solve(input: TokenStream) -> TokenStream {
    let s: SolveInput = match syn::parse2(input) {
        Ok(s) => s,
        Err(e) => return e.to_compile_error(),
    };
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
            let (st, ld, bb, rounds) =
                (access(&p.store), access(&p.load), p.block_barrier, p.rounds);
            quote!(#rt::Plan::Shared(#rt::SharedPlan { store: #st, load: #ld, block_barrier: #bb, rounds: #rounds }))
        }
    };
    let c = plan.cost;
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
    let (ns, nd) = (plan.src_regs, plan.dst_regs);
    let elem = &s.elem;
    let _ = Span::call_site();
    quote! {
        {
            const __CONVERTER: ::linear_layouts::Converter<#elem, #ns, #nd> = ::linear_layouts::Converter::new(
                #body,
                #rt::Cost {
                    strategy: #rt::Strategy::#strategy,
                    shuffles: #sh, selects: #se, shared_bytes: #sb, stores: #st, loads: #ld,
                    vector: #ve, write_conflicts: #wc, read_conflicts: #rc, barriers: #ba,
                },
            );
            __CONVERTER
        }
    }
}
