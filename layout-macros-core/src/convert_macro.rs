//! `convert!(A => B, f32)`: start the callback chain through the layouts' macros, then solve
//! the conversion in layout-core and hand the plan to [`crate::convert_emit`], which writes it as
//! a const `Converter` (or `SharedStore` / `SharedLoad`).

use layout_core::convert::{
    plan_conversion_for, plan_padded_access, ConversionPlan, Force, Target,
};
use layout_core::parse::Aliases;
use layout_core::Bases;
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitInt, Path, Token};

use crate::convert_emit as emit;
use crate::paths::Krate;

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

/// `A => B, Elem [, shared | shuffles] [, target = NAME]`.
struct ConvertInput {
    src: SideInput,
    dst: SideInput,
    elem: Ident,
    force: Option<Ident>,
    target: Option<Ident>,
}

const USAGE: &str = "convert!(Source => Destination, f32[, shared | shuffles][, target = sm_90])";

impl Parse for ConvertInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let src = SideInput::parse_until(input, false)?;
        input
            .parse::<Token![=>]>()
            .map_err(|e| syn::Error::new(e.span(), format!("expected `=>`: {}", USAGE)))?;
        let dst = SideInput::parse_until(input, true)?;
        input.parse::<Token![,]>().map_err(|e| {
            syn::Error::new(
                e.span(),
                format!("expected `,` and the element type: {}", USAGE),
            )
        })?;
        let elem: Ident = input.parse()?;
        let (mut force, mut target) = (None, None);
        while input.parse::<Option<Token![,]>>()?.is_some() && !input.is_empty() {
            let word: Ident = input.parse()?;
            if word == "target" {
                input.parse::<Token![=]>()?;
                target = Some(input.parse()?);
            } else {
                force = Some(word);
            }
        }
        if !input.is_empty() {
            return Err(input.error(format!("unexpected tokens after {}", USAGE)));
        }
        Ok(ConvertInput {
            src,
            dst,
            elem,
            force,
            target,
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
    let solved = crate::expand::solve_item(&item, &Aliases::new(), &[name.to_string()], ws, "")?;
    Ok(crate::emit::side_tokens(&solved, &ident))
}

/// `convert!`: solve inline sides here, and hand named ones to their layouts' macros.
pub fn convert(input: TokenStream) -> TokenStream {
    let (k, input) = match Krate::split(input) {
        Ok(x) => x,
        Err(e) => return e.to_compile_error(),
    };
    let c: ConvertInput = match syn::parse2(input) {
        Ok(c) => c,
        Err(e) => return e.to_compile_error(),
    };
    if let (SideInput::Named(a), SideInput::Named(b), None, None) =
        (&c.src, &c.dst, &c.force, &c.target)
    {
        return planned(&k, a, b, &c.elem);
    }
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
    let (elem, kt) = (&c.elem, k.tokens());
    let force = c.force.as_ref().map_or(quote!(auto), |f| quote!(#f));
    let target = c.target.as_ref().map_or(quote!(auto), |t| quote!(#t));
    let (st, dt) = (c.src.tokens(), c.dst.tokens());
    let args = quote!(#elem #force #target #st => #dt);
    let private = k.private();
    let chain = match (&c.src, &c.dst, a, b) {
        (_, _, Some(a), Some(b)) => return solve(quote!([#kt] (#a) (#b) (#args))),
        (_, SideInput::Named(dst), Some(a), None) => {
            quote!(#dst ! { @convert_dst (#a) ([#kt] #args) })
        }
        (SideInput::Named(src), _, None, Some(b)) => {
            quote!(#src ! { @convert_src_to (#b) ([#kt] #args) })
        }
        (SideInput::Named(src), SideInput::Named(dst), _, _) => {
            quote!(#src ! { @convert_src (#dst) ([#kt] #args) })
        }
        _ => {
            return syn::Error::new(Span::call_site(), "convert!: unexpected input")
                .to_compile_error()
        }
    };
    // Each named side must be a layout! type: a clear error for anything else (the macro call
    // beside it fails too, with rustc's own note on what the name is).
    let checks = [&c.src, &c.dst].into_iter().filter_map(|s| match s {
        SideInput::Named(p) => Some(quote!(const _: () = #private::assert_layout::<#p>();)),
        SideInput::Inline(_) => None,
    });
    quote!({ #(#checks)* #chain })
}

/// `convert!(A => B, E)` of two named layouts, as the layouts' const tables plan it: a
/// [`Planned`] value, whose methods replay the const planner's tape (the code this proc macro
/// writes for the same plan, operation for operation). The sides are types, not macros, so they
/// may be generic parameters or aliases. Each expansion names its own call site, so that its
/// stores and loads are functions of their own, as the written-out ones are.
///
/// [`Planned`]: https://docs.rs/linear-layouts/latest/linear_layouts/planned/struct.Planned.html
fn planned(k: &Krate, a: &Path, b: &Path, elem: &Ident) -> TokenStream {
    let private = k.private();
    quote!({
        /// This `convert!`'s call site.
        #[derive(Clone, Copy)]
        struct __Site;
        #private::planned::<#a, #b, #elem, __Site>()
    })
}

/// One side as the layouts' macros pass it, the solved layout as data:
/// `({ register = [[0, 1], ...], lane = [...], ... } [64, 16] distributed Name)`.
struct Side {
    bases: Bases,
    shape: Vec<i64>,
    shared: bool,
    /// A padded shared layout's `(interval, pad)` pairs in elements.
    padding: Vec<(u32, u32)>,
    name: Ident,
}

impl Parse for Side {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let dims;
        syn::braced!(dims in input);
        let bases = dims
            .parse_terminated(parse_in_dim, Token![,])?
            .into_iter()
            .collect();
        let content;
        syn::bracketed!(content in input);
        let sizes = content.parse_terminated(LitInt::parse, Token![,])?;
        let shape = sizes
            .iter()
            .map(|d| d.base10_parse::<i64>())
            .collect::<syn::Result<Vec<_>>>()?;
        let kind: Ident = input.parse()?;
        let mut padding = Vec::new();
        if input.peek(syn::token::Bracket) {
            let list;
            syn::bracketed!(list in input);
            while !list.is_empty() {
                let pair;
                syn::bracketed!(pair in list);
                let xs = pair.parse_terminated(LitInt::parse, Token![,])?;
                let v: Vec<u32> = xs
                    .iter()
                    .map(|x| x.base10_parse())
                    .collect::<syn::Result<_>>()?;
                padding.push((v[0], v[1]));
                if !list.is_empty() {
                    list.parse::<Token![,]>()?;
                }
            }
        }
        let name: Ident = input.parse()?;
        Ok(Side {
            bases,
            shape,
            shared: kind == "shared",
            padding,
            name,
        })
    }
}

/// `name = [[b0, b1], ...]`: one in-dim's bases.
fn parse_in_dim(input: ParseStream) -> syn::Result<(String, Vec<Vec<i32>>)> {
    let name: Ident = input.parse()?;
    input.parse::<Token![=]>()?;
    let list;
    syn::bracketed!(list in input);
    let mut bases = Vec::new();
    while !list.is_empty() {
        let basis;
        syn::bracketed!(basis in list);
        let xs = basis.parse_terminated(LitInt::parse, Token![,])?;
        bases.push(
            xs.iter()
                .map(|x| x.base10_parse::<i32>())
                .collect::<syn::Result<Vec<_>>>()?,
        );
        if !list.is_empty() {
            list.parse::<Token![,]>()?;
        }
    }
    Ok((name.to_string(), bases))
}

impl Side {
    /// The layout's attribute text, for messages.
    fn text(&self) -> String {
        crate::emit::linear_ttgir(&self.bases, self.shared)
    }

    /// The layout, from its bases and shape.
    fn layout(&self) -> layout_core::Result<layout_core::LinearLayout> {
        let names = layout_core::utils::standard_out_dim_names(self.shape.len());
        let out_dims = names
            .into_iter()
            .zip(&self.shape)
            .map(|(n, &s)| (n, s as i32))
            .collect();
        layout_core::LinearLayout::from_parts(self.bases.clone(), out_dims, true)
    }
}

struct SolveInput {
    krate: Krate,
    src: Side,
    dst: Side,
    elem: Ident,
    force: Ident,
    target: Ident,
    /// The user's `A => B` tokens, for error spans.
    user: TokenStream,
}

impl SolveInput {
    fn parse(input: TokenStream) -> syn::Result<Self> {
        let (krate, rest) = Krate::split(input)?;
        syn::parse::Parser::parse2(
            |input: ParseStream| {
                let (a, b, c);
                syn::parenthesized!(a in input);
                syn::parenthesized!(b in input);
                syn::parenthesized!(c in input);
                Ok(SolveInput {
                    krate: krate.clone(),
                    src: a.parse()?,
                    dst: b.parse()?,
                    elem: c.parse()?,
                    force: c.parse()?,
                    target: c.parse()?,
                    user: c.parse()?,
                })
            },
            rest,
        )
    }

    fn err(&self, msg: String) -> syn::Error {
        syn::Error::new_spanned(&self.user, msg)
    }

    /// An error whose message goes on with both layouts, each under its name and attribute text
    /// as Triton's `LinearLayout::toString` prints it: what does not fit is in front of the user.
    fn err_showing_layouts(&self, msg: String) -> syn::Error {
        let mut out = msg;
        for side in [&self.src, &self.dst] {
            out.push_str(&format!(
                "\n\n`{}` = {} for {:?}:",
                side.name,
                side.text(),
                side.shape
            ));
            match side.layout() {
                Ok(ll) => out.push_str(&ll.to_string()),
                Err(e) => out.push_str(&format!(" (does not solve: {})", e)),
            }
        }
        self.err(out)
    }

    /// Both layouts, from the bases their macros passed.
    fn layouts(&self) -> syn::Result<(layout_core::LinearLayout, layout_core::LinearLayout)> {
        if self.src.shape != self.dst.shape {
            return Err(self.err_showing_layouts(format!(
                "`{}` is a layout of a {:?} tensor and `{}` of a {:?} tensor; a conversion keeps the tensor's shape",
                self.src.name, self.src.shape, self.dst.name, self.dst.shape
            )));
        }
        let solve = |side: &Side| {
            side.layout()
                .map_err(|e| self.err(format!("`{}`: {}", side.name, e)))
        };
        Ok((solve(&self.src)?, solve(&self.dst)?))
    }

    fn elem_bits(&self) -> syn::Result<u32> {
        Ok(match self.elem.to_string().as_str() {
            "u8" | "i8" => 8,
            "u16" | "i16" | "F16" | "Bf16" => 16,
            "u32" | "i32" | "f32" => 32,
            "u64" | "i64" | "f64" => 64,
            _ => {
                return Err(syn::Error::new(
                    self.elem.span(),
                    format!(
                        "unsupported element type `{}`: use u8, i8, u16, i16, F16, Bf16, u32, i32, f32, u64, i64 or f64 (the element's size decides the plan, so it is named here; in scope as written)",
                        self.elem
                    ),
                ))
            }
        })
    }

    /// The named target, or without one sm_90's model with the layouts' warp size.
    fn target(&self, lanes: u32) -> syn::Result<Target> {
        let name = self.target.to_string();
        if name == "auto" {
            return Ok(Target::unspecified(lanes));
        }
        Target::by_name(&name).ok_or_else(|| {
            let names: Vec<&str> = Target::ALL.iter().map(|t| t.name).collect();
            syn::Error::new(
                self.target.span(),
                format!(
                    "unknown target `{}`: write one of {}",
                    name,
                    names.join(", ")
                ),
            )
        })
    }

    fn force(&self) -> syn::Result<Force> {
        Ok(match self.force.to_string().as_str() {
            "auto" => Force::Auto,
            "shared" => Force::SharedMemory,
            "shuffles" => Force::Shuffles,
            other => {
                return Err(syn::Error::new(
                    self.force.span(),
                    format!(
                        "unknown option `{}`: write `shared` or `shuffles` to force a strategy (or nothing for the cheapest), or `target = NAME`",
                        other
                    ),
                ))
            }
        })
    }
}

/// `__convert_solve!`: both layouts known; solve and emit the const converter.
pub fn solve(input: TokenStream) -> TokenStream {
    let r = SolveInput::parse(input).and_then(|s| {
        if s.src.shared != s.dst.shared {
            solve_access(&s)
        } else {
            solve_converter(&s)
        }
    });
    r.unwrap_or_else(|e| e.to_compile_error())
}

fn plan(s: &SolveInput) -> syn::Result<ConversionPlan> {
    if s.src.shared && s.dst.shared {
        return Err(s.err_showing_layouts(format!(
            "`{}` and `{}` are both shared-memory layouts; convert! stores a distributed layout into shared memory, loads it back, or converts between distributed layouts",
            s.src.name, s.dst.name
        )));
    }
    let (bits, force) = (s.elem_bits()?, s.force()?);
    let (a, b) = s.layouts()?;
    let target = s.target(a.in_dim_size("lane").max(1) as u32)?;
    plan_conversion_for(&target, &a, &b, bits, force)
        .map_err(|e| s.err_showing_layouts(format!("`{}` => `{}`: {}", s.src.name, s.dst.name, e)))
}

fn solve_converter(s: &SolveInput) -> syn::Result<TokenStream> {
    let plan = plan(s)?;
    let k = &s.krate;
    let rt = k.rt();
    let body = emit::plan_tokens(k, &plan.body);
    let cost = emit::cost_tokens(k, &plan.cost);
    let (ns, nd, elem) = (plan.src_regs, plan.dst_regs, &s.elem);
    let exec = emit::exec(k, &plan, elem, s.elem_bits()?);
    Ok(quote! {
        {
            /// The conversion as straight-line code.
            #[derive(Clone, Copy, Debug)]
            struct __Emitted;
            impl #rt::convert::Execute<#elem, #ns, #nd> for __Emitted {
                #[inline(always)]
                #[allow(unused_variables, unused_mut, unused_parens, clippy::all)]
                fn execute<T: #rt::Thread>(_c: &#rt::Converter<#elem, #ns, #nd, Self>, t: &T, src: &[#elem; #ns]) -> [#elem; #nd] {
                    #exec
                }
                fn plan(_c: &#rt::Converter<#elem, #ns, #nd, Self>) -> #rt::convert::Plan {
                    #body
                }
            }
            const __CONVERTER: #rt::Converter<#elem, #ns, #nd, __Emitted> =
                #rt::Converter::new(__Emitted, #cost);
            __CONVERTER
        }
    })
}

/// `convert!(Distributed => Shared, T)` (a store) or `convert!(Shared => Distributed, T)` (a
/// load): the accesses of the shared layout's own offsets.
fn solve_access(s: &SolveInput) -> syn::Result<TokenStream> {
    let store = s.dst.shared;
    let bits = s.elem_bits()?;
    let (a, b) = s.layouts()?;
    let (d, sm) = if store { (a, b) } else { (b, a) };
    let target = s.target(d.in_dim_size("lane").max(1) as u32)?;
    let padding = if store {
        &s.dst.padding
    } else {
        &s.src.padding
    };
    let (acc, cost) = plan_padded_access(&d, &sm, padding, bits, store, &target).map_err(|e| {
        s.err_showing_layouts(format!("`{}` => `{}`: {}", s.src.name, s.dst.name, e))
    })?;
    let n = d.in_dim_size("register").max(1) as usize;
    let (k, elem) = (&s.krate, &s.elem);
    let rt = k.rt();
    let cv = quote!(#rt::convert);
    let body = if store {
        let stores = emit::store_body(k, &acc, elem, bits);
        quote! {
            fn store<T: #rt::Thread>(_a: &#cv::SmemAccess, t: &T, src: &[#elem; #n]) {
                #stores
            }
            fn load<T: #rt::Thread>(a: &#cv::SmemAccess, t: &T) -> [#elem; #n] {
                <#cv::Interpret as #cv::ExecuteAccess<#elem, #n>>::load(a, t)
            }
        }
    } else {
        let loads = emit::load_body(k, &acc, elem, bits, n);
        quote! {
            fn store<T: #rt::Thread>(a: &#cv::SmemAccess, t: &T, src: &[#elem; #n]) {
                <#cv::Interpret as #cv::ExecuteAccess<#elem, #n>>::store(a, t, src)
            }
            fn load<T: #rt::Thread>(_a: &#cv::SmemAccess, t: &T) -> [#elem; #n] {
                #loads
            }
        }
    };
    let ty = if store {
        quote!(SharedStore)
    } else {
        quote!(SharedLoad)
    };
    let (acc, cost) = (emit::access_tokens(k, &acc), emit::cost_tokens(k, &cost));
    Ok(quote! {
        {
            /// The accesses as straight-line code.
            #[derive(Clone, Copy, Debug)]
            struct __Emitted;
            #[allow(unused_variables, unused_mut, unused_parens, clippy::all)]
            impl #cv::ExecuteAccess<#elem, #n> for __Emitted {
                #body
            }
            const __ACCESS: #cv::#ty<#elem, #n, __Emitted> = #cv::#ty::new(#acc, #cost);
            __ACCESS
        }
    })
}
