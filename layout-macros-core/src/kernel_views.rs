//! `#[kernel]`'s view and partition parameters (`View`, `Tiles`, `Tiled`, `Blocks` and their
//! `Mut` forms): the buffer the launcher passes for each (the entry's and the spec's parameter
//! type), the statement by which both entry points (nvptx in `kernel`, SPIR-V in
//! `kernel_spirv`) make the view of it from what `extent(..)` gives (its sizes, which the
//! simulator's entry compares with the view a test made), and what the launcher checks the
//! buffer and the grid against.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::Expr;

use crate::kernel_args::Args;

/// A `View`/`ViewMut` parameter: the launcher passes its buffer (`buffer`, the entry's and the
/// spec's type) and the entry makes the view (`make`) of the shape its `extent(..)` gives, over
/// the integer parameters, which the launcher checks against the buffer.
pub(crate) struct ViewParam {
    pub(crate) name: syn::Ident,
    pub(crate) buffer: syn::Type,
    pub(crate) make: TokenStream,
    /// What `make` passes `new_unchecked` after the buffer (none for a partition of the grid
    /// alone): the simulator's entry compares it with what the caller made.
    pub(crate) sizes: Option<TokenStream>,
    /// The shape's dims (a partition: its count or shape), as written.
    pub(crate) dims: Vec<Expr>,
    /// The check on the host: the elements the buffer needs for the launch's arguments and
    /// `grid` (`i128`; more than any buffer where the grid or the promise does not hold), and
    /// the extent to name in the error.
    pub(crate) partition: Option<(TokenStream, TokenStream)>,
    /// A partition's layout, whose threads must be the kernel's block (or two threads would
    /// store one element).
    pub(crate) layout: Option<syn::Type>,
    /// A thread partition, whose threads are numbered along x alone: the kernel's block must be
    /// 1-D (or two threads would take one vector).
    pub(crate) per_thread: bool,
    /// A partition whose stores skip the block's threads past its layout's (a 1-D block of at
    /// least the layout's threads: a warp-specialised kernel's roles that do not store).
    pub(crate) fewer_threads: bool,
}

/// The kinds of view parameter, by the type's name.
#[derive(Clone, Copy)]
enum Kind {
    View,
    /// One tile per CTA.
    Tiles,
    /// A count of tiles, grid-stride.
    Tiled,
    /// One 2-D block per CTA of a 2-D grid.
    Blocks,
    /// A tensor of the `extent`'s shape in chunks of rows, one per CTA of a 1-D grid.
    Chunks,
    /// A count of short vectors, grid-stride over the grid's threads (or one per thread).
    Vectors,
    /// A matrix in blocks numbered in grouped order, one CTA per block or grid-stride.
    Grouped,
    /// A batch of matrices in chunks of rows, one row of CTAs per matrix.
    BatchChunks,
    /// A batch of matrices, one row of CTAs per matrix, read.
    Batch,
    /// A GEMM operand read by the CTA's block row (0) or column (1), or by any block (2),
    /// whole blocks.
    Panel(usize),
}

/// A view or partition type's kind, by its name, and whether the kernel writes it.
fn kind_of(name: &str) -> Option<(bool, Kind)> {
    Some(match name {
        "View" => (false, Kind::View),
        "ViewMut" => (true, Kind::View),
        "Tiles" => (false, Kind::Tiles),
        "TilesMut" => (true, Kind::Tiles),
        "Tiled" => (false, Kind::Tiled),
        "TiledMut" => (true, Kind::Tiled),
        "Blocks" => (false, Kind::Blocks),
        "BlocksMut" => (true, Kind::Blocks),
        "ChunksMut" => (true, Kind::Chunks),
        "BatchChunksMut" => (true, Kind::BatchChunks),
        "Batch" => (false, Kind::Batch),
        "BlockRows" => (false, Kind::Panel(0)),
        "BlockCols" => (false, Kind::Panel(1)),
        "Blocked" => (false, Kind::Panel(2)),
        "GroupedMut" => (true, Kind::Grouped),
        "Vectors" => (false, Kind::Vectors),
        "VectorsMut" | "PerThreadMut" => (true, Kind::Vectors),
        _ => return None,
    })
}

/// Whether a parameter type of this name is a buffer the launcher passes, and the kernel
/// writes it: `Global`, `GlobalMut` and every view and partition.
pub(crate) fn buffer_written(name: &str) -> Option<bool> {
    match name {
        "Global" => Some(false),
        "GlobalMut" => Some(true),
        _ => kind_of(name).map(|(write, _)| write),
    }
}

/// The last path segment of a parameter type (`View`, `Global`, `u32`), with its generics.
pub(crate) fn last_segment(t: &syn::Type) -> Option<&syn::PathSegment> {
    match t {
        syn::Type::Path(p) => p.path.segments.last(),
        _ => None,
    }
}

/// A segment's first type argument (a tensor's element type).
pub(crate) fn element_type(seg: &syn::PathSegment) -> Option<&syn::Type> {
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    }
}

/// The kernel's view parameters, each with its shape from `extent(..)`.
pub(crate) fn views(
    krate: &TokenStream,
    a: &Args,
    params: &[(syn::Ident, syn::Type)],
) -> syn::Result<Vec<ViewParam>> {
    let rt = quote!(#krate::runtime);
    // Integer parameters narrower than 32 bits, which no device size may use.
    let narrow: Vec<String> = params
        .iter()
        .filter(|(_, t)| {
            last_segment(t)
                .is_some_and(|s| ["u8", "u16", "i8", "i16"].contains(&s.ident.to_string().as_str()))
        })
        .map(|(n, _)| n.to_string())
        .collect();
    let mut out = Vec::new();
    for (name, ty) in params {
        let Some(seg) = last_segment(ty) else {
            continue;
        };
        let Some((write, kind)) = kind_of(&seg.ident.to_string()) else {
            continue;
        };
        if matches!(kind, Kind::Batch) {
            out.push(batch_param(&rt, a, (name, ty), &narrow)?);
            continue;
        }
        let elem = element_type(seg).ok_or_else(|| {
            syn::Error::new_spanned(ty, "a view parameter names its element type and rank: `View<f32, 2>`, `Tiles<f32, MyLayout>`")
        })?;
        if matches!(kind, Kind::Vectors) {
            out.push(vectors_param(&rt, a, (name, ty), elem, write, &narrow)?);
            continue;
        }
        if !matches!(kind, Kind::View) {
            out.push(partition_param(
                &rt,
                a,
                (name, ty),
                elem,
                write,
                kind,
                &narrow,
            )?);
            continue;
        }
        let shape = a.extents.iter().find(|(n, _)| n == name).map(|(_, e)| e);
        let dims: Vec<Expr> = match shape {
            Some(Expr::Array(arr)) => arr.elems.iter().cloned().collect(),
            Some(other) => {
                return Err(syn::Error::new_spanned(
                    other,
                    format!("`{name}` is a view: its extent is its shape, one size per dim: `extent({name} = [n_rows, n_cols])`"),
                ))
            }
            None => {
                let example = match literal_arg(ty, 1) {
                    Some(1) => "[n]",
                    Some(3) => "[batch, n_rows, n_cols]",
                    _ => "[n_rows, n_cols]",
                };
                return Err(syn::Error::new_spanned(
                    name,
                    format!("the launcher sets a view's shape and checks it against the buffer: give it in the attribute, `#[kernel(extent({name} = {example}))]`, over the kernel's integer parameters"),
                ))
            }
        };
        rank_matches((name, ty), 1, &shape, dims.len())?;
        let sizes = sizes_of(&dims, &narrow)?;
        let need = quote!(#rt::kernel::shape_elements(&[#((#dims) as i128),*]));
        let need = aligned_need(&rt, need, &dims, elem, flag(ty, 2, "ALIGNED")?);
        let text = shape.to_token_stream().to_string();
        out.push(partition(
            (name, ty, Some(sizes)),
            (write, elem, None),
            &rt,
            dims,
            (need, quote!(#text)),
        ));
    }
    Ok(out)
}

/// A partition parameter: `Tiles` (one tile of its layout per CTA, checked against the grid,
/// so it takes no `extent`), `Tiled` (as many tiles as its `extent` says, taken grid-stride) or
/// `Blocks` (a matrix of the `extent`'s shape, one block per CTA of a 2-D grid).
fn partition_param(
    rt: &TokenStream,
    a: &Args,
    (name, ty): (&syn::Ident, &syn::Type),
    elem: &syn::Type,
    write: bool,
    kind: Kind,
    narrow: &[String],
) -> syn::Result<ViewParam> {
    let extent = a.extents.iter().find(|(n, _)| n == name).map(|(_, e)| e);
    let generics: Vec<&syn::GenericArgument> = match last_segment(ty).map(|s| &s.arguments) {
        Some(syn::PathArguments::AngleBracketed(g)) => g.args.iter().collect(),
        _ => Vec::new(),
    };
    let layout = generics
        .iter()
        .filter_map(|g| match g {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .nth(1)
        .ok_or_else(|| syn::Error::new_spanned(ty, "a partitioned tensor names its element type and its tile's layout: `Tiles<f32, MyLayout>`"))?;
    let kernel = quote!(#rt::kernel);
    let tile = quote!(#rt::tiles::tile_elements::<#layout>());
    let (dims, need, expr) = match (kind, extent) {
        (Kind::Tiles, None) => (Vec::new(), quote!(#kernel::tiles_elements(grid, #tile)), quote!(#kernel::TILES_EXTENT)),
        (Kind::Tiles, Some(e)) => return Err(syn::Error::new_spanned(e, format!("`{name}` is partitioned by the grid (one tile per CTA): the launcher checks it holds a tile for every CTA, so it takes no extent; remove `{name} = ..`"))),
        (Kind::Tiled, Some(Expr::Array(arr))) => return Err(syn::Error::new_spanned(arr, format!("`{name}` is a number of tiles: its extent is how many (`extent({name} = tiles)`), not a shape"))),
        (Kind::Tiled, Some(count)) => {
            device_size(count, narrow)?;
            let text = count.to_token_stream().to_string();
            (vec![count.clone()], quote!(#kernel::tiled_elements(grid, (#count) as i128, #tile)), quote!(#text))
        }
        (Kind::Blocks, Some(Expr::Array(arr))) if arr.elems.len() == 2 => {
            let (rows, cols) = (&arr.elems[0], &arr.elems[1]);
            device_size(cols, narrow)?;
            // The host checks the transpose's shape exactly when the type says `true`.
            let transposed = flag(ty, 2, "TRANSPOSED")?;
            let text = arr.to_token_stream().to_string();
            (vec![cols.clone()], quote!(#kernel::blocks_elements::<#layout>(grid, [(#rows) as i128, (#cols) as i128], #transposed)), quote!(#text))
        }
        (Kind::Chunks, Some(Expr::Array(arr))) => {
            let dims: Vec<Expr> = arr.elems.iter().cloned().collect();
            rank_matches((name, ty), 2, arr, dims.len())?;
            let sizes = sizes_of(&dims, narrow)?;
            let text = arr.to_token_stream().to_string();
            let need = quote!(#kernel::chunks_elements(grid, &[#((#dims) as i128),*], <#layout as #rt::Layout>::SHAPE));
            let need = aligned_need(rt, need, &dims, elem, flag(ty, 3, "ALIGNED")?);
            return Ok(partition((name, ty, Some(sizes)), (write, elem, Some(layout)), rt, dims, (need, quote!(#text))));
        }
        (Kind::Grouped, Some(Expr::Array(arr))) if arr.elems.len() == 2 => {
            let dims: Vec<Expr> = arr.elems.iter().cloned().collect();
            let sizes = sizes_of(&dims, narrow)?;
            let text = arr.to_token_stream().to_string();
            let need = quote!(#kernel::grouped_elements::<#layout>(grid, [#((#dims) as i128),*]));
            let mut p = partition((name, ty, Some(sizes)), (write, elem, Some(layout)), rt, dims, (need, quote!(#text)));
            p.fewer_threads = true;
            return Ok(p);
        }
        (Kind::BatchChunks, Some(Expr::Array(arr))) if arr.elems.len() == 3 => {
            let dims: Vec<Expr> = arr.elems.iter().cloned().collect();
            let (batch, device) = (&dims[0], dims[1..].to_vec());
            let sizes = sizes_of(&device, narrow)?;
            let text = arr.to_token_stream().to_string();
            let need = quote!(#kernel::batch_chunks_elements(grid, [(#batch) as i128, #((#device) as i128),*], <#layout as #rt::Layout>::SHAPE[0]));
            let need = aligned_need(rt, need, &dims, elem, flag(ty, 2, "ALIGNED")?);
            return Ok(partition((name, ty, Some(sizes)), (write, elem, Some(layout)), rt, device, (need, quote!(#text))));
        }
        (Kind::Panel(dim), Some(Expr::Array(arr))) if arr.elems.len() == 2 => {
            let dims: Vec<Expr> = arr.elems.iter().cloned().collect();
            // A's panel keeps only its width: its rows may use `grid`.
            let device = if dim == 0 { vec![dims[1].clone()] } else { dims.clone() };
            let sizes = match dim {
                0 => {
                    device_size(&device[0], narrow)?;
                    quote!((#(#device)*) as u32)
                }
                _ => sizes_of(&device, narrow)?,
            };
            flag(ty, 2, "COLUMN_MAJOR")?;
            let text = arr.to_token_stream().to_string();
            let need = match dim {
                2 => quote!(#kernel::blocked_elements::<#layout>([#((#dims) as i128),*])),
                _ => quote!(#kernel::panel_elements::<#layout>(grid, [#((#dims) as i128),*], #dim)),
            };
            return Ok(partition((name, ty, Some(sizes)), (write, elem, Some(layout)), rt, device, (need, quote!(#text))));
        }
        (Kind::Tiled | Kind::Blocks | Kind::Chunks | Kind::Grouped | Kind::BatchChunks | Kind::Panel(_), other) => {
            let want = match kind {
                Kind::Tiled => format!("how many tiles, `extent({name} = tiles)`"),
                Kind::Grouped | Kind::Panel(_) => format!("the matrix's shape, `extent({name} = [rows, cols])`"),
                Kind::BatchChunks => format!("the batch's shape, `extent({name} = [batch, rows, cols])` (the batch may use `grid`)"),
                Kind::Chunks => format!("its shape, `extent({name} = [n_rows, n_cols])`"),
                _ => format!("the matrix's shape, `extent({name} = [rows, cols])` (rows may use `grid`)"),
            };
            let msg = format!("the launcher checks `{name}` against its buffer: give {want}");
            return Err(match other {
                Some(e) => syn::Error::new_spanned(e, msg),
                None => syn::Error::new_spanned(name, msg),
            });
        }
        (Kind::View | Kind::Vectors | Kind::Batch, _) => unreachable!("views, vectors and batches are made in `views`"),
    };
    let sizes = dims.first().map(|d| quote!((#d) as u32));
    Ok(partition(
        (name, ty, sizes),
        (write, elem, Some(layout)),
        rt,
        dims,
        (need, expr),
    ))
}

/// A batch parameter (`Batch<E, ALIGNED>`): the `[batch, rows, cols]` of its `extent`, one
/// matrix per row of CTAs; the device keeps `rows` and `cols` (the batch may use `grid`).
fn batch_param(
    rt: &TokenStream,
    a: &Args,
    (name, ty): (&syn::Ident, &syn::Type),
    narrow: &[String],
) -> syn::Result<ViewParam> {
    let seg = last_segment(ty).ok_or_else(|| {
        syn::Error::new_spanned(ty, "a batch names its element type: `Batch<f16, true>`")
    })?;
    let elem = element_type(seg).ok_or_else(|| {
        syn::Error::new_spanned(ty, "a batch names its element type: `Batch<f16, true>`")
    })?;
    let extent = a.extents.iter().find(|(n, _)| n == name).map(|(_, e)| e);
    let Some(Expr::Array(arr)) =
        extent.filter(|e| matches!(e, Expr::Array(arr) if arr.elems.len() == 3))
    else {
        let msg = format!("the launcher checks `{name}` against its buffer: give the batch's shape, `extent({name} = [batch, rows, cols])` (the batch may use `grid`)");
        return Err(match extent {
            Some(e) => syn::Error::new_spanned(e, msg),
            None => syn::Error::new_spanned(name, msg),
        });
    };
    let dims: Vec<Expr> = arr.elems.iter().cloned().collect();
    let (batch, device) = (&dims[0], dims[1..].to_vec());
    let sizes = sizes_of(&device, narrow)?;
    let text = arr.to_token_stream().to_string();
    let need =
        quote!(#rt::kernel::batch_elements(grid, [(#batch) as i128, #((#device) as i128),*]));
    let need = aligned_need(rt, need, &dims, elem, flag(ty, 1, "ALIGNED")?);
    Ok(partition(
        (name, ty, Some(sizes)),
        (false, elem, None),
        rt,
        device,
        (need, quote!(#text)),
    ))
}

/// The sizes the entry makes a parameter of, after its buffer: the `device` sizes as a `u32`
/// array (each checked to be one the device computes as the launcher does).
fn sizes_of(device: &[Expr], narrow: &[String]) -> syn::Result<TokenStream> {
    for d in device {
        device_size(d, narrow)?;
    }
    Ok(quote!([#((#device) as u32),*]))
}

/// Generic argument `position` of `ty`'s last segment, lifetimes not counted.
fn generic_arg(ty: &syn::Type, position: usize) -> Option<&syn::GenericArgument> {
    let Some(syn::PathArguments::AngleBracketed(g)) = last_segment(ty).map(|s| &s.arguments) else {
        return None;
    };
    g.args
        .iter()
        .filter(|a| !matches!(a, syn::GenericArgument::Lifetime(_)))
        .nth(position)
}

/// Generic argument `position` of `ty` (lifetimes not counted), where it is an integer literal.
fn literal_arg(ty: &syn::Type, position: usize) -> Option<usize> {
    match generic_arg(ty, position)? {
        syn::GenericArgument::Const(Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        })) => i.base10_parse().ok(),
        _ => None,
    }
}

/// A view's rank, generic argument `position` of `ty` (lifetimes not counted), against its
/// extent's sizes: an error at the extent where the rank is a literal and they differ (a
/// name's is compared where the entry is compiled).
fn rank_matches(
    (name, ty): (&syn::Ident, &syn::Type),
    position: usize,
    extent: &impl ToTokens,
    sizes: usize,
) -> syn::Result<()> {
    match literal_arg(ty, position) {
        Some(r) if r != sizes => Err(syn::Error::new_spanned(
            extent,
            format!(
                "`{name}` has rank {r}, but this extent gives {sizes} size{}: a view's extent is its shape, one size per dim ({r} here), which the GPU's entry makes the view of",
                if sizes == 1 { "" } else { "s" }
            ),
        )),
        _ => Ok(()),
    }
}

/// A view or partition parameter made by `make` from its buffer, checked by `check` on the
/// host; `layout` a partition's, whose threads `#[kernel]` checks against its block.
fn partition(
    (name, ty, sizes): (&syn::Ident, &syn::Type, Option<TokenStream>),
    (write, elem, layout): (bool, &syn::Type, Option<&syn::Type>),
    rt: &TokenStream,
    dims: Vec<Expr>,
    check: (TokenStream, TokenStream),
) -> ViewParam {
    let make = match &sizes {
        Some(s) => quote!(<#ty>::new_unchecked(#name, #s)),
        None => quote!(<#ty>::new_unchecked(#name)),
    };
    let buffer: syn::Type = match write {
        false => syn::parse_quote!(#rt::Global<'static, #elem>),
        true => syn::parse_quote!(#rt::GlobalMut<'static, #elem>),
    };
    let make = quote! {
        // SAFETY: the launcher checked the buffer holds the view's shape or the partition's
        // tiles, blocks or shape (at most 2^32 elements), the grid against them, and that a
        // grid-stride loop cannot wrap.
        #[allow(unsafe_code, clippy::unnecessary_cast)]
        let #name = unsafe { #make };
    };
    ViewParam {
        name: name.clone(),
        buffer,
        make,
        sizes,
        dims,
        partition: Some(check),
        layout: layout.cloned(),
        per_thread: false,
        fewer_threads: false,
    }
}

/// A thread partition parameter: `Vectors<E, V>` or `VectorsMut<E, V>`, `count` vectors of `V`
/// elements (its `extent`) taken grid-stride by the grid's threads, the launcher checking the
/// buffer holds them, the grid is 1-D and the loop cannot wrap; or `PerThreadMut<E, V>`, one
/// vector per thread, checked against the grid. The block's threads come from the attribute,
/// which `partition_threads` checks is 1-D.
fn vectors_param(
    rt: &TokenStream,
    a: &Args,
    (name, ty): (&syn::Ident, &syn::Type),
    elem: &syn::Type,
    write: bool,
    narrow: &[String],
) -> syn::Result<ViewParam> {
    let extent = a.extents.iter().find(|(n, _)| n == name).map(|(_, e)| e);
    let block = crate::kernel_args::dim3(&a.block, quote!([0, 0, 0]));
    let threads = quote!({ let b: [u32; 3] = #block; b[0] as i128 });
    let per_thread = last_segment(ty).is_some_and(|s| s.ident == "PerThreadMut");
    let (need, sizes, dims, text) = match extent {
        None if per_thread => (
            quote!(#rt::kernel::per_thread_elements(grid, #threads, <#ty>::WIDTH as u64)),
            None,
            Vec::new(),
            quote!("a vector per thread"),
        ),
        Some(e) if per_thread => return Err(syn::Error::new_spanned(e, format!("`{name}` holds one vector per thread of the grid: the launcher checks it against the grid, so it takes no extent; remove `{name} = ..`"))),
        Some(Expr::Array(arr)) => return Err(syn::Error::new_spanned(arr, format!("`{name}` is a number of vectors: its extent is how many (`extent({name} = count)`), not a shape"))),
        Some(count) => {
            device_size(count, narrow)?;
            let text = count.to_token_stream().to_string();
            (
                quote!(#rt::kernel::vectors_elements(grid, #threads, (#count) as i128, <#ty>::WIDTH as u64)),
                Some(quote!((#count) as u32)),
                vec![count.clone()],
                quote!(#text),
            )
        }
        None => return Err(syn::Error::new_spanned(name, format!("the launcher checks `{name}` against its buffer: give how many vectors it holds, `extent({name} = count)`"))),
    };
    let mut p = partition(
        (name, ty, sizes),
        (write, elem, None),
        rt,
        dims,
        (need, text),
    );
    p.per_thread = true;
    Ok(p)
}

/// A size the entry computes on the device (a view's dim, a partition's count or row stride):
/// sums, differences and products of integer literals, constants and the kernel's parameters.
/// The launcher computes it in `i128` and checks it is a u32; the device computes it in the
/// parameters' own types, which agree with that modulo 2^32 for `+ - *` and for nothing else
/// (a division, a remainder, a cast or a branch could give the device a larger size than the
/// launcher checked). `grid` is not known on the device.
fn device_size(e: &Expr, narrow: &[String]) -> syn::Result<()> {
    const MSG: &str = "a size the device computes (a view's dim, a partition's count) is a sum, difference or product of integer literals, constants and the kernel's integer parameters: the launcher checks its value, and only `+ - *` give the device the same value modulo 2^32";
    match e {
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(_), .. }) => Ok(()),
        Expr::Path(p) if p.path.is_ident("grid") => Err(syn::Error::new_spanned(
            e,
            "`grid` is not known where the device computes this size: pass it as a parameter (a block partition's rows, which the device does not use, may use `grid`)",
        )),
        Expr::Path(p) if p.path.get_ident().is_some_and(|i| narrow.contains(&i.to_string())) => Err(syn::Error::new_spanned(
            e,
            "a size the device computes uses integer parameters of 32 bits or more: arithmetic in a narrower type wraps before the launcher's u32 check could see it",
        )),
        Expr::Path(_) => Ok(()),
        Expr::Paren(p) => device_size(&p.expr, narrow),
        Expr::Group(g) => device_size(&g.expr, narrow),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => device_size(&u.expr, narrow),
        Expr::Binary(b) if matches!(b.op, syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_)) => {
            device_size(&b.left, narrow).and(device_size(&b.right, narrow))
        }
        _ => Err(syn::Error::new_spanned(e, MSG)),
    }
}

/// A bool flag of a view's or partition's type at `position` among its generic arguments
/// (lifetimes not counted): `ALIGNED` of `View<E, R, ALIGNED>` (2) and `ChunksMut<E, L, R,
/// ALIGNED>` (3), `TRANSPOSED` of `Blocks<E, L, TRANSPOSED>` (2). Absent, it is `false`; it
/// must be a literal for the launcher to check what it names (a name or a block is refused,
/// not read as `false`).
fn flag(ty: &syn::Type, position: usize, what: &str) -> syn::Result<bool> {
    match generic_arg(ty, position) {
        None => Ok(false),
        Some(syn::GenericArgument::Const(Expr::Lit(syn::ExprLit { lit: syn::Lit::Bool(b), .. }))) => Ok(b.value),
        Some(other) => Err(syn::Error::new_spanned(
            other,
            format!("the {what} flag is written `true` or `false` here: the launcher checks what it names"),
        )),
    }
}

/// The host's check of a view's `need` elements (the shape's, `dims`) against the `_aligned`
/// promise: the last dim a multiple of 16 bytes of `elem`.
fn aligned_need(
    rt: &TokenStream,
    need: TokenStream,
    dims: &[Expr],
    elem: &syn::Type,
    aligned: bool,
) -> TokenStream {
    match (aligned, dims.last()) {
        (true, Some(last)) => {
            quote!(#rt::kernel::aligned_elements(#need, (#last) as i128, ::core::mem::size_of::<#elem>()))
        }
        _ => need,
    }
}

/// The parameters the views' shapes name.
pub(crate) fn shape_params<'a>(
    views: &[ViewParam],
    params: &'a [(syn::Ident, syn::Type)],
) -> Vec<&'a syn::Ident> {
    fn idents(ts: TokenStream, out: &mut Vec<String>) {
        for t in ts {
            match t {
                proc_macro2::TokenTree::Ident(i) => out.push(i.to_string()),
                proc_macro2::TokenTree::Group(g) => idents(g.stream(), out),
                _ => {}
            }
        }
    }
    let mut named = Vec::new();
    for d in views.iter().flat_map(|v| v.dims.iter()) {
        idents(d.to_token_stream(), &mut named);
    }
    params
        .iter()
        .map(|(n, _)| n)
        .filter(|n| named.contains(&n.to_string()))
        .collect()
}
