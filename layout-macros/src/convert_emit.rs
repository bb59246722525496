//! A solved conversion plan as Rust: its tables as consts of the runtime's plan types (the IR in
//! `layout-plan`, `Static` storage) and the same plan as straight-line code, constant register
//! indices, constant shared-memory offsets, selects, shuffles and barriers, which is what runs.

use layout_core::convert::{
    Barrier, ConversionPlan, Cost, Instr, PlanBody, ShufflePlan, SmemAccess, Strategy,
};
use layout_core::LinearLayout;
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

use crate::paths::Krate;

/// A `&'static [T]` (cast: a plan's lists are projections of `Storage`, which do not coerce).
fn list<T: ToTokens>(v: &[T]) -> TokenStream {
    quote!((&[#(#v),*] as &[_]))
}

/// The plan's tables as a `Plan` const expression.
pub fn plan_tokens(k: &Krate, body: &PlanBody) -> TokenStream {
    let rt = k.rt();
    let cv = quote!(#rt::convert);
    match body {
        PlanBody::Registers(p) => {
            let p = list(p);
            quote!(#cv::Plan::Registers(#p))
        }
        PlanBody::Shuffles(p) => {
            let (pack, ship) = (p.pack, p.ship);
            let (gather, scatter, lane_map) =
                (list(&p.gather), list(&p.scatter), list(&p.lane_map));
            let swaps = p.swaps.iter().map(|(r, l)| quote!((#r, #l)));
            quote!(#cv::Plan::Shuffles(#cv::ShufflePlan {
                pack: #pack, gather: #gather, swaps: (&[#(#swaps),*] as &[_]), lane_map: #lane_map,
                ship: #ship, scatter: #scatter,
            }))
        }
        PlanBody::Shared(p) => {
            let (st, ld, rounds) = (
                access_tokens(k, &p.store),
                access_tokens(k, &p.load),
                p.rounds,
            );
            let bar = barrier_tokens(k, p.barrier);
            quote!(#cv::Plan::Shared(#cv::SharedPlan { store: #st, load: #ld, barrier: #bar, rounds: #rounds }))
        }
    }
}

/// One side's tables as an `SmemAccess` const expression.
pub fn access_tokens(k: &Krate, a: &SmemAccess) -> TokenStream {
    let cv = {
        let rt = k.rt();
        quote!(#rt::convert)
    };
    let (vec, ls, ws, remote) = (a.vec, a.lane_skip, a.warp_skip, a.remote);
    let (regs, ro) = (list(&a.regs), list(&a.reg_offsets));
    let (lb, wb, bb) = (
        list(&a.lane_bases),
        list(&a.warp_bases),
        list(&a.block_bases),
    );
    let instr = match a.instr {
        Instr::Vector => quote!(#cv::Instr::Vector),
        Instr::Matrix { count, trans } => {
            quote!(#cv::Instr::Matrix { count: #count, trans: #trans })
        }
    };
    quote! {
        #cv::SmemAccess {
            vec: #vec, regs: #regs, reg_offsets: #ro, lane_bases: #lb, warp_bases: #wb,
            block_bases: #bb, lane_skip: #ls, warp_skip: #ws, remote: #remote, instr: #instr,
        }
    }
}

fn barrier_tokens(k: &Krate, b: Barrier) -> TokenStream {
    let rt = k.rt();
    match b {
        Barrier::Warp => quote!(#rt::convert::Barrier::Warp),
        Barrier::Block => quote!(#rt::convert::Barrier::Block),
        Barrier::Cluster => quote!(#rt::convert::Barrier::Cluster),
    }
}

/// A plan's cost as a `Cost` const expression.
pub fn cost_tokens(k: &Krate, c: &Cost) -> TokenStream {
    let rt = k.rt();
    let strategy = match c.strategy {
        Strategy::Nothing => quote!(Nothing),
        Strategy::Registers => quote!(Registers),
        Strategy::Shuffles => quote!(Shuffles),
        Strategy::SharedMemory => quote!(SharedMemory),
    };
    let (sh, se, sb, st, ld) = (c.shuffles, c.selects, c.shared_bytes, c.stores, c.loads);
    let (ve, wc, rc, ba) = (c.vector, c.write_conflicts, c.read_conflicts, c.barriers);
    quote! {
        #rt::convert::Cost {
            strategy: #rt::convert::Strategy::#strategy,
            shuffles: #sh, selects: #se, shared_bytes: #sb, stores: #st, loads: #ld,
            vector: #ve, write_conflicts: #wc, read_conflicts: #rc, barriers: #ba,
        }
    }
}

/// The XOR of `bases[b]` over the set bits `b` of each variable, as straight-line shift/mask
/// code (Triton's matrixVectorProd, through `LinearLayout::apply_plan`).
pub fn linear_terms(terms: &[(&[u32], TokenStream)]) -> syn::Result<TokenStream> {
    let col = |b: &[u32]| -> Vec<Vec<i32>> { b.iter().map(|&x| vec![x as i32]).collect() };
    let max = terms
        .iter()
        .flat_map(|(b, _)| b.iter())
        .fold(0u32, |a, &b| a | b);
    let size = (max as u64 + 1).next_power_of_two().max(1) as i32;
    let ins = terms
        .iter()
        .enumerate()
        .map(|(i, (b, _))| (format!("in{}", i), col(b)));
    let l = LinearLayout::from_parts(ins.collect(), vec![("x".to_string(), size)], false).map_err(
        |e| {
            syn::Error::new(
                proc_macro2::Span::call_site(),
                format!(
                    "internal error in convert!: an address table is not linear: {}",
                    e
                ),
            )
        },
    )?;
    let vars: Vec<TokenStream> = terms.iter().map(|(_, v)| v.clone()).collect();
    let exprs = crate::emit::plan_exprs(&l.apply_plan(), &vars);
    let e = &exprs[0];
    Ok(quote!((#e)))
}

/// The base address of a side's accesses: its lane and warp terms, and the CTA-rank term when
/// there is one (`lane`, `warp`, `t` in scope).
pub fn base_expr(k: &Krate, a: &SmemAccess) -> syn::Result<TokenStream> {
    let mut terms = vec![
        (&a.lane_bases[..], quote!(lane)),
        (&a.warp_bases[..], quote!(warp)),
    ];
    if a.block_bases.is_empty() {
        return linear_terms(&terms);
    }
    terms.push((&a.block_bases[..], quote!(rank)));
    let e = linear_terms(&terms)?;
    let rt = k.rt();
    Ok(quote!({
        let rank = #rt::Thread::cta_rank(t);
        #e
    }))
}

/// The straight-line body of a converter: `t`, `src` in scope, evaluates to `[E; ND]`.
pub fn exec(k: &Krate, plan: &ConversionPlan, elem: &syn::Ident) -> syn::Result<TokenStream> {
    match &plan.body {
        PlanBody::Registers(perm) => {
            let idx = perm.iter().map(|&p| p as usize);
            Ok(quote!([#(src[#idx]),*]))
        }
        PlanBody::Shuffles(p) => shuffles(k, p, elem),
        PlanBody::Shared(p) => {
            let (s, l) = (&p.store, &p.load);
            let rt = k.rt();
            let barrier = match p.barrier {
                Barrier::Warp => quote!(#rt::Thread::sync_warp(t);),
                Barrier::Block => quote!(#rt::Thread::sync_block(t);),
                Barrier::Cluster => quote!(#rt::Thread::sync_cluster(t);),
            };
            let (sbase, lbase) = (base_expr(k, s)?, base_expr(k, l)?);
            let rounds = p.rounds.max(1) as usize;
            let (sper, lper) = (s.reg_offsets.len() / rounds, l.reg_offsets.len() / rounds);
            let (lskip, wskip, nd) = (s.lane_skip, s.warp_skip, plan.dst_regs);
            let mut st = vec![quote! {
                let lane = #rt::Thread::lane(t);
                let warp = #rt::Thread::warp(t);
                let sbase: u32 = #sbase;
                let lbase: u32 = #lbase;
                let store_here = lane & #lskip == 0 && warp & #wskip == 0;
                let mut out = [<#elem as Default>::default(); #nd];
            }];
            for r in 0..rounds {
                if r > 0 {
                    st.push(barrier.clone());
                }
                let stores =
                    (r * sper..(r + 1) * sper).map(|v| store(k, s, v, elem, quote!(sbase)));
                st.push(quote!(if store_here { #(#stores)* }));
                st.push(barrier.clone());
                st.extend((r * lper..(r + 1) * lper).map(|v| load(k, l, v, elem, quote!(lbase))));
            }
            if p.barrier == Barrier::Cluster {
                // No CTA moves on while others still read its buffer.
                st.push(barrier);
            }
            Ok(quote!({ #(#st)* out }))
        }
    }
}

/// The shuffle plan as straight-line code (the interpreter's `shuffles`, unrolled).
fn shuffles(k: &Krate, p: &ShufflePlan, elem: &syn::Ident) -> syn::Result<TokenStream> {
    let rt = k.rt();
    let (cv, sel) = (quote!(#rt::convert), quote!(#rt::thread::select));
    let ne = p.gather.len();
    let (per, nw) = if p.pack < 0 {
        (1usize, ne * 2)
    } else {
        (1usize << p.pack, ne >> p.pack)
    };
    let mut st = vec![quote!(let lane = #rt::Thread::lane(t); let mut w = [0u32; #nw];)];
    st.extend(pack_words(k, p, elem, per, nw));
    let pairs = |r: u8| {
        (0..nw)
            .filter(move |x| (x >> r) & 1 == 0)
            .map(move |x| (x, x | (1 << r)))
    };
    if p.ship {
        let (r, l) = p.swaps[0];
        let (l, m) = (l as u32, 1u32 << p.swaps[0].1);
        st.push(quote!(let c = (lane >> #l) & 1 != 0;));
        for (x0, x1) in pairs(r) {
            st.push(quote! {
                let send = #sel(c, w[#x0], w[#x1]);
                let recv = #rt::Thread::shfl_xor(t, send, #m);
                let (a, b) = (w[#x0], w[#x1]);
                w[#x0] = #sel(c, recv, a);
                w[#x1] = #sel(c, b, recv);
            });
        }
    } else {
        let stage = |lane_var: TokenStream, st: &mut Vec<TokenStream>| {
            for &(r, l) in p.swaps.iter() {
                let l = l as u32;
                st.push(quote!(let c = (#lane_var >> #l) & 1 != 0;));
                for (x0, x1) in pairs(r) {
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
            let e = linear_terms(&[(&p.lane_map[..], quote!(lane))])?;
            st.push(quote!(let src_lane: u32 = #e;));
        }
        for x in 0..nw {
            let mask = p
                .swaps
                .iter()
                .filter(|(r, _)| (x >> r) & 1 == 1)
                .fold(0u32, |a, (_, l)| a | (1 << l));
            if !identity {
                st.push(quote!(w[#x] = #rt::Thread::shfl_idx(t, w[#x], src_lane ^ #mask);));
            } else if mask != 0 {
                st.push(quote!(w[#x] = #rt::Thread::shfl_xor(t, w[#x], #mask);));
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
            quote!(<#elem as #rt::Element>::from_bits((w[#w0] as u64) | ((w[#w1] as u64) << 32)))
        } else {
            let (x, k) = (e / per, e % per);
            quote!(#cv::unpack::<#elem>(&[w[#x], 0, 0, 0], #k))
        }
    });
    Ok(quote!({ #(#st)* [#(#outs),*] }))
}

/// Work words from the source registers: `per` elements each, or two words per 64-bit element.
fn pack_words(
    k: &Krate,
    p: &ShufflePlan,
    elem: &syn::Ident,
    per: usize,
    nw: usize,
) -> Vec<TokenStream> {
    let rt = k.rt();
    if p.pack < 0 {
        return (0..p.gather.len())
            .map(|x| {
                let (g, w0, w1) = (p.gather[x] as usize, 2 * x, 2 * x + 1);
                quote! {
                    let b = #rt::Element::to_bits(src[#g]);
                    w[#w0] = b as u32;
                    w[#w1] = (b >> 32) as u32;
                }
            })
            .collect();
    }
    (0..nw)
        .map(|x| {
            let gs = (0..per).map(|k| p.gather[x * per + k] as usize);
            quote!(w[#x] = #rt::convert::pack::<#elem>(&[#(src[#gs]),*])[0];)
        })
        .collect()
}

/// One store access `v` of `s` (plain vector or stmatrix), `src` and `t` in scope.
pub fn store(
    k: &Krate,
    s: &SmemAccess,
    v: usize,
    elem: &syn::Ident,
    base: TokenStream,
) -> TokenStream {
    let rt = k.rt();
    let (off, vec) = (s.reg_offsets[v], s.vec as usize);
    if let Instr::Matrix { trans, .. } = s.instr {
        let per = vec / 4;
        let words = (0..4).map(|q| {
            let rs = (0..per).map(|e| s.regs[vec * v + per * q + e] as usize);
            quote!(#rt::convert::pack::<#elem>(&[#(src[#rs]),*])[0])
        });
        return quote!(#rt::Thread::stmatrix_x4(t, #base ^ #off, #trans, [#(#words),*]););
    }
    let regs = (0..vec).map(|e| s.regs[v * vec + e] as usize);
    let (bytes, remote) = (s.vec, s.remote);
    quote! {
        #rt::convert::st_at(t, #remote, #base ^ #off, #bytes * (<#elem as #rt::Element>::BITS / 8), #rt::convert::pack::<#elem>(&[#(src[#regs]),*]));
    }
}

/// One load access `v` of `l` (plain vector or ldmatrix) into `out`, `t` in scope.
pub fn load(
    k: &Krate,
    l: &SmemAccess,
    v: usize,
    elem: &syn::Ident,
    base: TokenStream,
) -> TokenStream {
    let rt = k.rt();
    let (off, vec) = (l.reg_offsets[v], l.vec as usize);
    if let Instr::Matrix { trans, .. } = l.instr {
        let per = vec / 4;
        let sets = (0..vec).map(|e| {
            let (reg, q, i) = (l.regs[vec * v + e] as usize, e / per, e % per);
            quote!(out[#reg] = #rt::convert::unpack::<#elem>(&[x[#q], 0, 0, 0], #i);)
        });
        return quote! {
            let x = #rt::Thread::ldmatrix_x4(t, #base ^ #off, #trans);
            #(#sets)*
        };
    }
    let sets = (0..vec).map(|e| {
        let reg = l.regs[v * vec + e] as usize;
        quote!(out[#reg] = #rt::convert::unpack::<#elem>(&x, #e);)
    });
    let (bytes, remote) = (l.vec, l.remote);
    quote! {
        let x = #rt::convert::ld_at(t, #remote, #base ^ #off, #bytes * (<#elem as #rt::Element>::BITS / 8));
        #(#sets)*
    }
}
