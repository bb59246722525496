//! A solved conversion plan as Rust: its tables as consts of the runtime's plan types (the IR in
//! `layout-plan`, `Static` storage) and the same plan as straight-line code, constant register
//! indices, constant shared-memory offsets, selects, shuffles and barriers, which is what runs.
//! The code is what `layout_plan::exec` does with the plan, each operation written as a
//! statement by the [`Emit`] machine, so the interpreter and the emitted code cannot diverge.

use layout_core::codegen::{column_terms, ApplyPlan};
use layout_core::convert::linear::Map;
use layout_core::convert::{
    exec, Barrier, ConversionPlan, Cost, Instr, PlanBody, SmemAccess, Strategy,
};
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
        PlanBody::Gather(p) => {
            let (pack, choices) = (p.pack, p.choices);
            let (words, lane_map, warp_map) =
                (list(&p.words), list(&p.lane_map), list(&p.warp_map));
            let (sel_lane, sel_warp, pick, pos) = (
                list(&p.sel_lane),
                list(&p.sel_warp),
                list(&p.pick),
                list(&p.pos),
            );
            let rounds = p.rounds.iter().map(|(w, o)| quote!((#w, #o)));
            quote!(#cv::Plan::Gather(#cv::GatherPlan {
                pack: #pack, words: #words, lane_map: #lane_map, warp_map: #warp_map,
                rounds: (&[#(#rounds),*] as &[_]), sel_lane: #sel_lane, sel_warp: #sel_warp,
                choices: #choices, pick: #pick, pos: #pos,
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
    let (vec, rs, ls, ws, remote) = (a.vec, a.reg_skip, a.lane_skip, a.warp_skip, a.remote);
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
        Instr::TransRead { lane_src, reg_src } => {
            quote!(#cv::Instr::TransRead { lane_src: [#(#lane_src),*], reg_src: [#(#reg_src),*] })
        }
    };
    let pads = a.padding.iter().map(|&(li, lp)| quote!((#li, #lp)));
    quote! {
        #cv::SmemAccess {
            vec: #vec, regs: #regs, reg_offsets: #ro, lane_bases: #lb, warp_bases: #wb,
            block_bases: #bb, reg_skip: #rs, lane_skip: #ls, warp_skip: #ws, remote: #remote,
            instr: #instr, padding: [#(#pads),*],
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

/// The XOR of each map on its variable, as straight-line shift/mask code: each map's terms
/// (layout-plan's `terms_of`, the grouping the runtime reads from a const plan), in map order,
/// joined by `|` where no two bases set the same bit (Triton's matrixVectorProd).
fn linear_terms(maps: &[(&[u32], TokenStream)]) -> TokenStream {
    let columns: Vec<&[u32]> = maps.iter().map(|(b, _)| *b).collect();
    let (terms, disjoint) = column_terms(&columns);
    let plan = ApplyPlan {
        terms: vec![terms],
        disjoint: vec![disjoint],
    };
    let vars: Vec<TokenStream> = maps.iter().map(|(_, v)| v.clone()).collect();
    let exprs = crate::emit::plan_exprs(&plan, &vars);
    let e = &exprs[0];
    quote!((#e))
}

/// A handle of [`Emit`]: the index of an expression.
type H = usize;

/// A plan's operations written as statements: the [`exec::Machine`] that turns the executor
/// (the same code the runtime interprets with) into straight-line code. `t` and `src` are in
/// scope of the statements and they fill `out`.
struct Emit<'a> {
    rt: TokenStream,
    elem: &'a syn::Ident,
    bits: u32,
    /// Expression of each handle; handle 0 is the zero word.
    exprs: Vec<TokenStream>,
    stmts: Vec<TokenStream>,
    /// `lane`, `warp`, `rank`, bound once where first asked for.
    ids: [Option<H>; 3],
    /// The open `if` block: its condition, the statements before it and the ids bound then.
    open: Option<(H, Vec<TokenStream>, [Option<H>; 3])>,
}

impl<'a> Emit<'a> {
    fn new(k: &Krate, elem: &'a syn::Ident, bits: u32) -> Self {
        Emit {
            rt: k.rt(),
            elem,
            bits,
            exprs: vec![quote!(0u32)],
            stmts: Vec::new(),
            ids: [None; 3],
            open: None,
        }
    }

    /// A handle for an expression that needs no statement.
    fn expr(&mut self, e: TokenStream) -> H {
        self.exprs.push(e);
        self.exprs.len() - 1
    }

    /// `let vN = e;`, as a handle.
    fn bind(&mut self, e: TokenStream) -> H {
        let v = quote::format_ident!("v{}", self.exprs.len());
        self.stmts.push(quote!(let #v = #e;));
        self.expr(quote!(#v))
    }

    fn e(&self, h: H) -> &TokenStream {
        &self.exprs[h]
    }

    /// `lane`, `warp` or `rank` (`which` 0, 1, 2), bound by its `Thread` method once.
    fn id(&mut self, which: usize) -> H {
        if let Some(h) = self.ids[which] {
            return h;
        }
        let rt = &self.rt;
        let (name, call) = match which {
            0 => (quote!(lane), quote!(#rt::Thread::lane(t))),
            1 => (quote!(warp), quote!(#rt::Thread::warp(t))),
            _ => (quote!(rank), quote!(#rt::Thread::cta_rank(t))),
        };
        self.stmts.push(quote!(let #name: u32 = #call;));
        let h = self.expr(name);
        self.ids[which] = Some(h);
        h
    }

    /// The statements.
    fn finish(self) -> Vec<TokenStream> {
        self.stmts
    }
}

impl exec::Machine for Emit<'_> {
    type Word = H;
    type Int = H;
    type Bool = H;

    fn elem_bits(&self) -> u32 {
        self.bits
    }
    fn mov(&mut self, dst: u16, src: u16) {
        let (d, s) = (dst as usize, src as usize);
        self.stmts.push(quote!(out[#d] = src[#s];));
    }
    fn copy(&mut self, dst: u16, from: u16) {
        let (d, s) = (dst as usize, from as usize);
        self.stmts.push(quote!(out[#d] = out[#s];));
    }
    fn pack(&mut self, regs: &[u16], part: u32) -> H {
        let (rt, elem) = (&self.rt, self.elem);
        let n = regs.len();
        let regs = regs.iter().map(|&r| r as usize);
        self.bind(quote!(#rt::convert::word::<#elem, #n>(&[#(src[#regs]),*], #n, #part)))
    }
    fn shift_down(&mut self, w: H, k: u32) -> H {
        let (w, by) = (self.e(w).clone(), k * self.bits);
        self.bind(quote!(#w >> #by))
    }
    fn unpack(&mut self, dst: u16, w: H, k: u32) {
        let (rt, elem, w, d) = (&self.rt, self.elem, self.e(w), dst as usize);
        let s = quote!(out[#d] = #rt::convert::field::<#elem>(#w, #k););
        self.stmts.push(s);
    }
    fn unpack_pair(&mut self, dst: u16, lo: H, hi: H) {
        let (rt, elem, d) = (&self.rt, self.elem, dst as usize);
        let (lo, hi) = (self.e(lo), self.e(hi));
        let s = quote!(out[#d] = #rt::convert::join::<#elem>(#lo, #hi););
        self.stmts.push(s);
    }
    fn lane(&mut self) -> H {
        self.id(0)
    }
    fn warp(&mut self) -> H {
        self.id(1)
    }
    fn bit(&mut self, x: H, bit: u32) -> H {
        let x = self.e(x).clone();
        self.bind(quote!((#x >> #bit) & 1 != 0))
    }
    fn xor(&mut self, x: H, mask: u32) -> H {
        if mask == 0 {
            return x;
        }
        let x = self.e(x).clone();
        self.expr(quote!((#x ^ #mask)))
    }
    fn linear(&mut self, maps: &[(Map<'_>, H)]) -> H {
        let maps: Vec<(&[u32], TokenStream)> = maps
            .iter()
            .map(|(m, h)| (m.bases, self.e(*h).clone()))
            .collect();
        let e = linear_terms(&maps);
        self.bind(quote!(#e as u32))
    }
    fn select(&mut self, c: H, a: H, b: H) -> H {
        let rt = &self.rt;
        let (c, a, b) = (self.e(c), self.e(a), self.e(b));
        let e = quote!(#rt::thread::select(#c, #a, #b));
        self.bind(e)
    }
    fn shfl_xor(&mut self, w: H, mask: u32) -> H {
        let (rt, w) = (&self.rt, self.e(w));
        let e = quote!(#rt::Thread::shfl_xor(t, #w, #mask));
        self.bind(e)
    }
    fn shfl_idx(&mut self, w: H, src: H) -> H {
        let (rt, w, s) = (&self.rt, self.e(w), self.e(src));
        let e = quote!(#rt::Thread::shfl_idx(t, #w, #s));
        self.bind(e)
    }
}

impl exec::SharedMachine for Emit<'_> {
    fn cta_rank(&mut self) -> H {
        self.id(2)
    }
    fn owner(&mut self, lane: H, warp: H, lane_skip: u32, warp_skip: u32) -> H {
        let (l, w) = (self.e(lane), self.e(warp));
        let e = quote!(#l & #lane_skip == 0 && #w & #warp_skip == 0);
        self.bind(e)
    }
    fn begin_if(&mut self, c: H) {
        let outer = core::mem::take(&mut self.stmts);
        self.open = Some((c, outer, self.ids));
    }
    fn end_if(&mut self) {
        let Some((c, outer, ids)) = self.open.take() else {
            return;
        };
        let inner = core::mem::replace(&mut self.stmts, outer);
        // Names bound inside the block are not visible after it.
        self.ids = ids;
        let c = self.e(c);
        let s = quote!(if #c { #(#inner)* });
        self.stmts.push(s);
    }
    fn pad(&mut self, addr: H, padding: [(u8, u8); 4]) -> H {
        let a = self.e(addr).clone();
        let terms = padding
            .iter()
            .filter(|&&p| p != (0, 0))
            .map(|&(li, lp)| quote!(((#a >> #li) << #lp)));
        self.bind(quote!(#a #(+ #terms)*))
    }
    fn st_shared(&mut self, remote: bool, addr: H, bytes: u32, words: [H; 4]) {
        let (rt, a) = (&self.rt, self.e(addr));
        let ws = words.map(|w| self.e(w).clone());
        // The plan's addresses keep `st_at`'s contract (inside its scratch, ordered by its
        // barriers).
        let s = quote!(unsafe { #rt::convert::st_at(t, #remote, #a, #bytes, [#(#ws),*]) };);
        self.stmts.push(s);
    }
    fn ld_shared(&mut self, remote: bool, addr: H, bytes: u32) -> [H; 4] {
        let (rt, a) = (&self.rt, self.e(addr));
        let e = quote!(unsafe { #rt::convert::ld_at(t, #remote, #a, #bytes) });
        self.words(e)
    }
    fn stmatrix(&mut self, count: u8, addr: H, trans: bool, words: [H; 4]) {
        let (rt, a, n) = (&self.rt, self.e(addr), count as u32);
        let ws = words.map(|w| self.e(w).clone());
        let s = quote!(unsafe { #rt::Thread::stmatrix(t, #n, #a, #trans, [#(#ws),*]) };);
        self.stmts.push(s);
    }
    fn ldmatrix(&mut self, count: u8, addr: H, trans: bool) -> [H; 4] {
        let (rt, a, n) = (&self.rt, self.e(addr), count as u32);
        let e = quote!(unsafe { #rt::Thread::ldmatrix(t, #n, #a, #trans) });
        self.words(e)
    }
    fn barrier(&mut self, b: Barrier) {
        let rt = &self.rt;
        let s = match b {
            Barrier::Warp => quote!(#rt::Thread::sync_warp(t);),
            Barrier::Block => quote!(#rt::Thread::sync_block(t);),
            Barrier::Cluster => quote!(#rt::Thread::sync_cluster(t);),
        };
        self.stmts.push(s);
    }
    fn scratch_write_begin(&mut self) {
        let rt = &self.rt;
        self.stmts
            .push(quote!(#rt::Thread::scratch_write_begin(t);));
    }
    fn scratch_reads_pending(&mut self) {
        let rt = &self.rt;
        self.stmts
            .push(quote!(#rt::Thread::scratch_reads_pending(t);));
    }
}

impl Emit<'_> {
    /// The four words of a load, bound once.
    fn words(&mut self, load: TokenStream) -> [H; 4] {
        let x = self.bind(load);
        let x = self.e(x).clone();
        [0usize, 1, 2, 3].map(|i| self.expr(quote!(#x[#i])))
    }
}

/// The straight-line body of a converter: `t`, `src` in scope, evaluates to `[E; ND]`.
pub fn exec(k: &Krate, plan: &ConversionPlan, elem: &syn::Ident, bits: u32) -> TokenStream {
    let mut m = Emit::new(k, elem, bits);
    exec::run(&mut m, &plan.body);
    let (stmts, nd) = (m.finish(), plan.dst_regs);
    quote!({
        let mut out = [<#elem as Default>::default(); #nd];
        #(#stmts)*
        out
    })
}

/// The straight-line body of a store to a shared layout (`t`, `src` in scope).
pub fn store_body(k: &Krate, a: &SmemAccess, elem: &syn::Ident, bits: u32) -> TokenStream {
    let mut m = Emit::new(k, elem, bits);
    exec::store(&mut m, a);
    let stmts = m.finish();
    quote!(#(#stmts)*)
}

/// The straight-line body of a load from a shared layout (`t` in scope), evaluating to `[E; n]`.
pub fn load_body(k: &Krate, a: &SmemAccess, elem: &syn::Ident, bits: u32, n: usize) -> TokenStream {
    let mut m = Emit::new(k, elem, bits);
    exec::load(&mut m, a);
    let stmts = m.finish();
    quote!({
        let mut out = [<#elem as Default>::default(); #n];
        #(#stmts)*
        out
    })
}
