//! `layout!`: render each item's spec to TTGIR text, let layout-core parse and solve it, map any
//! error back onto the user's tokens, and hand the solved layout to [`crate::emit`].

use layout_core::encodings::cute_swizzle;
use layout_core::parse::{parse_attribute, parse_tensor_type, Aliases, ParseError};
use layout_core::spec::{solve_attr, Solved};
use layout_core::{Encoding, ErrorKind};
use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};

use crate::emit::SolvedItem;
use crate::input::{Block, Item, Shape};
use crate::render::{error_between, Rendered};

/// Expand a whole `layout! { ... }`. Items that fail become compile errors (all of them,
/// combined); the others still expand, so one typo does not cascade into unknown-type errors.
pub fn layout(input: TokenStream) -> TokenStream {
    let (k, input) = match crate::paths::Krate::split(input) {
        Ok(x) => x,
        Err(e) => return e.to_compile_error(),
    };
    let block: Block = match syn::parse2(input) {
        Ok(b) => b,
        Err(e) => return e.to_compile_error(),
    };
    let mut aliases = Aliases::new();
    let mut defined: Vec<String> = Vec::new();
    // Each solved layout as an error shows it: name, text, shape, Triton's toString.
    let mut shown: Vec<(String, String)> = Vec::new();
    let mut out = TokenStream::new();
    let mut errors: Option<syn::Error> = None;
    // Each distributed layout's registers per thread, for its slices' broadcasts.
    let mut registers: Vec<(String, usize)> = Vec::new();
    // The (parent, dim) pairs that have a slice, for `SliceAlong`.
    let mut sliced: Vec<(String, usize)> = Vec::new();
    // Each solved layout's shape, for its slices'.
    let mut shapes: Vec<(String, Vec<i64>)> = Vec::new();
    for item in &block.items {
        let name = item.name.to_string();
        if defined.contains(&name) {
            push_err(
                &mut errors,
                syn::Error::new(
                    item.name.span(),
                    format!("the layout `{}` is defined twice in this block", name),
                ),
            );
            continue;
        }
        defined.push(name.clone());
        let ws = item.warp_size.or(block.warp_size).map(|w| w.0);
        let note = parents_note(item, &shown);
        let derived = match slice_shape(item, &shapes, &aliases, &defined) {
            Ok(d) => d,
            Err(e) => {
                push_err(&mut errors, e);
                continue;
            }
        };
        let item = derived.as_ref().unwrap_or(item);
        match solve_item(item, &aliases, &defined, ws, &note) {
            Ok(s) => {
                let dims = s.solved.layout.out_dims().iter().map(|d| d.1 as i64);
                shapes.push((name.clone(), dims.collect()));
                shown.push((
                    name.clone(),
                    format!(
                        "`{}` = {} for {:?}:{}",
                        name,
                        s.source,
                        s.solved
                            .layout
                            .out_dims()
                            .iter()
                            .map(|d| d.1)
                            .collect::<Vec<_>>(),
                        s.solved.layout
                    ),
                ));
                // A slice whose parent this block declared (distributed, as the slice).
                let sliced_parent = slice_of(item)
                    .filter(|_| !s.solved.encoding.is_shared())
                    .and_then(|(dim, parent)| {
                        let np = registers.iter().find(|(p, _)| parent == *p)?.1;
                        Some((dim, parent, np))
                    });
                let parent = sliced_parent
                    .as_ref()
                    .map(|(dim, parent, _)| (parent, *dim));
                out.extend(crate::emit::emit(&k, item, &s, parent));
                if let Some(parent) = dot_parent(item).filter(|p| {
                    registers.iter().any(|(r, _)| p == r) && !s.solved.encoding.is_shared()
                }) {
                    out.extend(crate::emit::dot_operand_impl(&k, &item.name, &parent));
                }
                if !s.solved.encoding.is_shared() {
                    let n = s.solved.layout.in_dim_size("register") as usize;
                    if let Some((dim, parent, np)) = sliced_parent {
                        // The first slice along a dim is the one reductions infer.
                        let along = !sliced.contains(&(parent.to_string(), dim));
                        sliced.push((parent.to_string(), dim));
                        out.extend(crate::emit::broadcast_impl(
                            &k,
                            &item.name,
                            &parent,
                            (dim, np, n),
                            along,
                        ));
                    }
                    registers.push((name.clone(), n));
                }
                if let Some(a) = s.attr {
                    aliases.insert(name, a, s.source.clone());
                }
            }
            Err(e) => push_err(&mut errors, e),
        }
    }
    if let Some(e) = errors {
        out.extend(e.to_compile_error());
    }
    out
}

/// `item`'s spec as one run of tokens, each group's contents where the group is, then the group.
fn spec_tokens(item: &Item) -> Vec<TokenTree> {
    fn flat(ts: TokenStream, out: &mut Vec<TokenTree>) {
        for t in ts {
            if let TokenTree::Group(g) = &t {
                flat(g.stream(), out);
            }
            out.push(t);
        }
    }
    let mut all = Vec::new();
    flat(item.spec.clone(), &mut all);
    all
}

/// The name a `parent` key at `all[at]` gives: `parent = Acc` or `parent = #Acc`.
fn parent_at(all: &[TokenTree], at: usize) -> Option<proc_macro2::Ident> {
    all[at + 1..].iter().take(3).find_map(|t| match t {
        TokenTree::Ident(p) => Some(p.clone()),
        _ => None,
    })
}

/// Whether `t` is the word `word`.
fn is_word(t: &TokenTree, word: &str) -> bool {
    matches!(t, TokenTree::Ident(i) if i == word)
}

/// The layouts of the parents `item` names (`parent = Acc`, anywhere in its brackets), for its
/// error messages.
fn parents_note(item: &Item, shown: &[(String, String)]) -> String {
    let all = spec_tokens(item);
    let mut note = String::new();
    for (i, t) in all.iter().enumerate() {
        if !is_word(t, "parent") {
            continue;
        }
        let name = parent_at(&all, i).map(|n| n.to_string());
        if let Some((_, text)) = shown.iter().find(|(n, _)| Some(n) == name.as_ref()) {
            note.push_str("\n\nthe parent ");
            note.push_str(text);
        }
    }
    note
}

/// A slice of a parent this block solved takes the parent's shape without its dim: the item
/// with that shape where it gives none, or an error at its shape where it gives another.
/// `None`: not such a slice, or its shape is right.
fn slice_shape(
    item: &Item,
    shapes: &[(String, Vec<i64>)],
    aliases: &Aliases,
    defined: &[String],
) -> syn::Result<Option<Item>> {
    let Some((dim, parent)) = slice_of(item) else {
        return Ok(None);
    };
    let Some((_, of)) = shapes.iter().find(|(n, _)| parent == *n) else {
        return Ok(None);
    };
    if dim >= of.len() || of.len() < 2 {
        // The solver says what is wrong with the dim.
        return Ok(None);
    }
    let mut want = of.clone();
    want.remove(dim);
    if let Shape::Missing(at) = &item.shape {
        let dims = want.iter().map(|&x| (x, *at)).collect();
        return Ok(Some(Item {
            shape: Shape::Dims(dims, *at),
            ..item.clone()
        }));
    }
    if shape_of(item, aliases, defined)?.0 == want {
        return Ok(None);
    }
    let msg = format!(
        "`{}` is the slice of `{parent}` along dim {dim}: its shape is the parent's {of:?} without dim {dim}, {want:?}; write `for {want:?}`, or leave the shape out",
        item.name
    );
    Err(match &item.shape {
        Shape::Dims(_, at) => syn::Error::new(*at, msg),
        Shape::Tensor(ts) => syn::Error::new_spanned(ts, msg),
        Shape::Missing(at) => syn::Error::new(*at, msg),
    })
}

/// The parent of an item written `dot_op(.., parent = P, ..)` or `#ttg.dot_op<{.., parent = #P,
/// ..}>`: the accumulator layout its operand tiles multiply into.
fn dot_parent(item: &Item) -> Option<proc_macro2::Ident> {
    let all = spec_tokens(item);
    if !all.iter().take(4).any(|t| is_word(t, "dot_op")) {
        return None;
    }
    parent_at(&all, all.iter().position(|t| is_word(t, "parent"))?)
}

/// `(dim, parent)` of an item written `slice(dim = D, parent = P)` (or `#P`).
fn slice_of(item: &Item) -> Option<(usize, proc_macro2::Ident)> {
    let mut top = item.spec.clone().into_iter();
    match (top.next(), top.next()) {
        (Some(TokenTree::Ident(k)), Some(TokenTree::Group(g)))
            if k == "slice" && g.delimiter() == Delimiter::Parenthesis =>
        {
            let ts: Vec<TokenTree> = g.stream().into_iter().collect();
            let value_of = |key: &str| {
                let at = ts
                    .iter()
                    .position(|t| matches!(t, TokenTree::Ident(i) if i == key))?;
                ts[at + 1..]
                    .iter()
                    .find(|t| !matches!(t, TokenTree::Punct(_)))
                    .cloned()
            };
            let dim = match value_of("dim")? {
                TokenTree::Literal(l) => l.to_string().parse().ok()?,
                _ => return None,
            };
            match value_of("parent")? {
                TokenTree::Ident(p) => Some((dim, p)),
                _ => None,
            }
        }
        _ => None,
    }
}

fn push_err(acc: &mut Option<syn::Error>, e: syn::Error) {
    match acc {
        Some(a) => a.combine(e),
        None => *acc = Some(e),
    }
}

/// A parse or solve error at the user's tokens, its fix said in the macro's terms, followed by
/// `note` (the parents' layouts, or nothing).
fn map_err(r: &Rendered, e: &ParseError, defined: &[String], note: &str) -> syn::Error {
    let msg = match e.kind {
        ErrorKind::UnknownName => {
            let name = r.text[e.span.offset..(e.span.offset + e.span.len).min(r.text.len())]
                .trim_start_matches('#');
            format!(
                "no layout named `{}` is defined before this one in this layout! block; {}",
                name,
                if defined.len() > 1 {
                    format!(
                        "defined so far: {}",
                        defined[..defined.len() - 1].join(", ")
                    )
                } else {
                    "define the parent first, in the same block".to_string()
                }
            )
        }
        ErrorKind::WarpSize {
            lanes,
            alternative: true,
        } => {
            format!(
                "{} (or put #[warp_size = {}] on the layout)",
                e.message, lanes
            )
        }
        ErrorKind::WarpSize {
            lanes,
            alternative: false,
        } => {
            format!("{}; put #[warp_size = {}] on the layout", e.message, lanes)
        }
        _ => e.message.clone(),
    };
    let msg = format!("{}{}", msg, note);
    match r.spans(e.span.offset, e.span.len) {
        Some((a, b)) => error_between(a, b, msg),
        None => syn::Error::new(Span::call_site(), msg),
    }
}

/// Solve one item; `note` (the layouts of the parents it names) ends the message of an error
/// in solving it.
pub fn solve_item(
    item: &Item,
    aliases: &Aliases,
    defined: &[String],
    warp_size: Option<u32>,
    note: &str,
) -> syn::Result<SolvedItem> {
    if item.spec.is_empty() {
        return Err(syn::Error::new(
            item.eq_span,
            "expected a layout after `=`: `#ttg.blocked<{...}>`, `blocked(...)`, `linear(...)`, `Swizzle<B, M, S>` or CuTe's `(shape):(stride)`",
        ));
    }
    let (shape, element) = shape_of(item, aliases, defined)?;
    let trees: Vec<TokenTree> = item.spec.clone().into_iter().collect();
    if crate::tmem::is_tmem_reg(&trees) {
        return crate::tmem::solve_tmem_reg(item, &trees, &shape, element, warp_size);
    }
    if crate::cute::is_cute(&trees) {
        return crate::cute::solve_cute(item, &trees, &shape, element, warp_size);
    }
    if let Some(TokenTree::Ident(id)) = trees.first() {
        if id == "Swizzle" {
            return swizzle(item, &shape, element);
        }
    }
    let r = render_spec(&trees, item)?;
    let attr = parse_attribute(&r.text, aliases).map_err(|e| map_err(&r, &e, defined, ""))?;
    let enc = layout_core::parse::encoding_from_attr(&attr)
        .map_err(|e| map_err(&r, &e, defined, note))?;
    if enc.is_tensor_memory() {
        return Err(syn::Error::new(
            item.eq_span,
            format!(
                "#ttng.{} is a tensor-memory layout (in-dims row, col, block): layout! defines register and shared-memory layouts; name what tcgen05.ld gives the registers with `tmem_reg(atom = \"32x32b\", warps = 4, blockM = .., blockN = .., colStride = ..)`, or print it with `layout -l '...' -t '...' --json`",
                enc.name()
            ),
        ));
    }
    if let (Some(dims), false) = (enc.unusual_in_dims(), enc.is_tensor_memory()) {
        return Err(syn::Error::new(
            item.eq_span,
            format!(
                "#ttg.{} has in-dims {}: layout! defines register layouts and single shared buffers; print it with `layout -l '...' -t '...' --json`",
                enc.name(),
                dims
            ),
        ));
    }
    check_rank(item, &enc, &shape, note)?;
    let solved =
        solve_attr(&attr, &shape, warp_size).map_err(|e| map_err(&r, &e, defined, note))?;
    Ok(SolvedItem {
        solved,
        source: r.text,
        attr: Some(attr),
        element,
    })
}

/// The spec's rank must match the shape's, except for layouts whose rank follows the shape.
fn check_rank(item: &Item, enc: &Encoding, shape: &[i64], note: &str) -> syn::Result<()> {
    let flexible = match enc {
        Encoding::NvmmaShared(s) => s.cga.num_ctas() == 1,
        Encoding::Linear(l) => l.num_out_dims() == 0,
        _ => false,
    };
    if flexible || enc.rank() == shape.len() {
        return Ok(());
    }
    let msg = format!(
        "the layout has rank {} but the tensor shape {:?} has rank {}; give a shape of rank {}{}",
        enc.rank(),
        shape,
        shape.len(),
        enc.rank(),
        note
    );
    Err(match &item.shape {
        Shape::Dims(_, s) => syn::Error::new(*s, msg),
        Shape::Tensor(ts) => syn::Error::new_spanned(ts, msg),
        Shape::Missing(s) => syn::Error::new(*s, msg),
    })
}

fn shape_of(
    item: &Item,
    aliases: &Aliases,
    defined: &[String],
) -> syn::Result<(Vec<i64>, Option<String>)> {
    match &item.shape {
        Shape::Dims(d, _) => Ok((d.iter().map(|x| x.0).collect(), None)),
        Shape::Missing(s) => Err(syn::Error::new(
            *s,
            format!(
                "`{}` needs a tensor shape: `: tensor<64x16xf16>` or `for [64, 16]` before the `;`",
                item.name
            ),
        )),
        Shape::Tensor(ts) => {
            let mut r = Rendered::default();
            r.push_tokens(ts.clone(), &mut |_, _, _| false);
            let t =
                parse_tensor_type(&r.text, aliases).map_err(|e| map_err(&r, &e, defined, ""))?;
            Ok((t.shape, Some(t.element)))
        }
    }
}

/// `#ttg...` as written, or the Rust form `name(key = value, ...)` rewritten to
/// `#ttg.name<{key = value, ...}>` with bare names as parent references (`parent = Acc`).
fn render_spec(trees: &[TokenTree], item: &Item) -> syn::Result<Rendered> {
    let mut r = Rendered::default();
    match (trees.first(), trees.get(1), trees.len()) {
        (Some(TokenTree::Punct(p)), _, _) if p.as_char() == '#' => {
            r.push_tokens(trees.iter().cloned().collect(), &mut |_, _, _| false);
        }
        (Some(TokenTree::Ident(name)), Some(TokenTree::Group(g)), 2)
            if g.delimiter() == Delimiter::Parenthesis =>
        {
            render_rust_form(&mut r, name, g);
        }
        (Some(TokenTree::Ident(name)), None, 1) => {
            // Another layout of this block, at a new shape.
            r.push(&format!("#{}", name), name.span());
        }
        _ => {
            return Err(syn::Error::new_spanned(
                &item.spec,
                "expected a layout: Triton's `#ttg.blocked<{...}>`, the Rust form `blocked(size_per_thread = [..], ...)`, `linear(register = [[..]], ...)`, `Swizzle<B, M, S>`, CuTe's `(shape):(stride)` or `tv(...)`, or the name of a layout defined above",
            ))
        }
    }
    Ok(r)
}

fn render_rust_form(r: &mut Rendered, name: &proc_macro2::Ident, g: &proc_macro2::Group) {
    r.push("#ttg.", name.span());
    r.push(&name.to_string(), name.span());
    r.push("<", g.span_open());
    let args = crate::render::top_level_args(g);
    let is_kw =
        |a: &Vec<TokenTree>, k: &str| matches!(a.first(), Some(TokenTree::Ident(i)) if i == k);
    // padded_shared's intervals come first and outside the dictionary; shared_linear's alignment
    // after it.
    let mut rest: Vec<&Vec<TokenTree>> = Vec::new();
    let mut trailing: Vec<&Vec<TokenTree>> = Vec::new();
    for a in &args {
        match a.first() {
            Some(TokenTree::Group(x)) if x.delimiter() == Delimiter::Bracket && a.len() == 1 => {
                r.push_tokens(a.iter().cloned().collect(), &mut |_, _, _| false);
            }
            _ if is_kw(a, "alignment") => trailing.push(a),
            _ => rest.push(a),
        }
    }
    r.push("{", g.span_open());
    for (i, a) in rest.iter().enumerate() {
        if i > 0 {
            r.push(",", g.span_open());
        }
        let mut after_eq = false;
        r.push_tokens(a.iter().cloned().collect(), &mut |r, tt, _| {
            let was = after_eq;
            after_eq = matches!(tt, TokenTree::Punct(p) if p.as_char() == '=');
            match tt {
                TokenTree::Ident(id) if was && id != "true" && id != "false" => {
                    r.push(&format!("#{}", id), id.span());
                    true
                }
                _ => false,
            }
        });
    }
    r.push("}", g.span_close());
    for a in trailing {
        r.push(",", g.span_close());
        r.push_tokens(a.iter().cloned().collect(), &mut |_, _, _| false);
    }
    r.push(">", g.span_close());
}

/// `Swizzle<B, M, S>`: CuTe's swizzle over a row-major tensor.
fn swizzle(item: &Item, shape: &[i64], element: Option<String>) -> syn::Result<SolvedItem> {
    let parsed = syn::parse::Parser::parse2(
        |input: syn::parse::ParseStream| {
            input.parse::<syn::Ident>()?;
            input.parse::<syn::Token![<]>()?;
            let mut v = Vec::new();
            for i in 0..3 {
                let neg = input.parse::<Option<syn::Token![-]>>()?.is_some();
                let lit: syn::LitInt = input.parse()?;
                let x: i32 = lit.base10_parse()?;
                v.push(if neg { -x } else { x });
                if i < 2 {
                    input.parse::<syn::Token![,]>()?;
                }
            }
            input.parse::<syn::Token![>]>()?;
            Ok(v)
        },
        item.spec.clone(),
    )
    .map_err(|e| {
        syn::Error::new(
            e.span(),
            format!(
                "{}: write CuTe's swizzle as Swizzle<B, M, S>, e.g. Swizzle<3, 3, 3>",
                e
            ),
        )
    })?;
    let (b, m, s) = (parsed[0], parsed[1], parsed[2]);
    let layout = cute_swizzle(b, m, s, shape)
        .map_err(|e| syn::Error::new_spanned(&item.spec, e.message()))?;
    let source = format!("Swizzle<{}, {}, {}>", b, m, s);
    Ok(SolvedItem {
        solved: Solved {
            encoding: Encoding::SharedLinear {
                layout: layout.clone(),
                alignment: 16,
            },
            layout,
            warp_size: None,
        },
        source,
        attr: None,
        element,
    })
}
