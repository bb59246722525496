//! `#[kernel]`: a kernel body becomes a GPU entry point and a launch description.
//!
//! The user writes `fn name(t: &impl Thread, params...) { body }`. Built for nvptx, the item
//! becomes `#[unsafe(no_mangle)] pub unsafe extern "ptx-kernel" fn name(params...)` whose body
//! binds the launch's dynamic shared memory (16-byte aligned), makes the `GpuThread` and calls
//! the original function, kept inline; on every other target the function stays as written, so
//! tests run it on the simulator. Beside it, on every target, `NAME` (the function's name in
//! capitals) is a `KernelSpec` for host launchers: the entry's name, its parameter types, and
//! the block, shared memory and cluster the attribute declares (consts of the kernel crate, so
//! the host cannot launch with others).
//!
//! With `min_blocks`, the entry carries launch bounds (`.maxntid` and `.minnctapersm`, CUDA's
//! `__launch_bounds__`): rustc cannot write them, so the attribute leaves a marker static,
//! `__launch_bounds__<name>` = `[x, y, z, min_blocks]`, that layout-builder turns into the
//! entry's directives (and removes). SPIR-V has no such directive; it is ignored there.
//!
//! An attribute macro has no `$crate`: the facade's path is `crate = path` if given, else the
//! name the calling crate gives `linear-layouts` in its Cargo.toml (renamed or not).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Expr, FnArg, ItemFn, Pat};

use crate::kernel_args::{dim3, parse_args, Args};
use crate::kernel_views::{buffer_written, last_segment, shape_params, views, ViewParam};

pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    match expand(attr, item.clone()) {
        Ok(t) => t,
        // Keep the item so that one mistake does not bury the crate under unresolved names.
        // (Its parameters that only the extent used would each warn as unused.)
        Err(e) => {
            let e = e.to_compile_error();
            quote!(#e #[allow(unused_variables)] #item)
        }
    }
}

fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let f: ItemFn = syn::parse2(item)?;
    // Both the attribute's and the signature's mistakes are reported at once.
    let (args, split) = match (parse_args(attr), split_params(&f)) {
        (Ok(a), Ok(s)) => (a, s),
        (Err(mut a), Err(s)) => {
            a.combine(s);
            return Err(a);
        }
        (Err(e), _) | (_, Err(e)) => return Err(e),
    };
    let (thread, params) = split;
    let krate = match &args.krate {
        Some(p) => p.to_token_stream(),
        None => facade()?,
    };
    let name = &f.sig.ident;
    let vis = &f.vis;
    let docs: Vec<_> = f
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .collect();
    let names: Vec<_> = params.iter().map(|(n, _)| n).collect();
    let views = views(&krate, &args, &params)?;
    // The entry's and the spec's parameter types: a view's buffer stands for the view.
    let entry_tys: Vec<syn::Type> = params
        .iter()
        .map(|(n, t)| {
            views
                .iter()
                .find(|v| &v.name == n)
                .map_or(t.clone(), |v| v.buffer.clone())
        })
        .collect();
    let tys: Vec<_> = entry_tys.iter().collect();
    let make_views: Vec<_> = views.iter().map(|v| &v.make).collect();
    let (dims, grid_dims) = (args.block_dims, args.grid_dims);
    let mut body_fn = f.clone();
    // A scalar that sets a view's shape is used by the view, whether or not the body reads it.
    let shape_params = shape_params(&views, &params);
    if !shape_params.is_empty() {
        body_fn
            .block
            .stmts
            .insert(0, syn::parse_quote!(let _ = (#(&#shape_params,)*);));
    }
    body_fn.sig.ident = format_ident!("__body");
    body_fn.vis = syn::Visibility::Inherited;
    body_fn.attrs.retain(|a| !a.path().is_ident("doc"));
    let rt = quote!(#krate::runtime);
    let shared = shared_bytes(&args);
    let bounds = launch_bounds(&args, name);
    // The block's threads along x, which the entry's `%tid.x` is below (0: not declared).
    let block_x = dim3(&args.block, quote!([0, 0, 0]));
    // A warp of other than 32 lanes has no PTX entry: NVIDIA's warps have 32.
    let ptx = (args.warp_size == 32).then(|| {
        quote! {
            #(#docs)*
            #[cfg(target_arch = "nvptx64")]
            #[unsafe(no_mangle)]
            // The entry's contract is the spec's, which launches check: a kernel crate that
            // denies `unsafe_code` writes none itself.
            #[allow(unsafe_code)]
            #vis unsafe extern "ptx-kernel" fn #name(#(#names: #tys),*) {
                #[inline(always)]
                #body_fn
                // SAFETY: the launch's dynamic shared memory, aligned to 16 bytes by its element
                // type, of `shared` bytes (the spec's, which the launcher gives every launch);
                // the block has at most `block_dims` dimensions (the attribute's contract) and
                // is the declared one (the launcher's), the grid at most `grid_dims` (the
                // launcher checks it).
                let #thread = unsafe {
                    #rt::nvptx::GpuThread::<#dims, { #shared }, #grid_dims, { (#block_x)[0] }>::new(
                        ::core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<#rt::global::A16<[u32; 4]>>()
                            as *mut u8,
                    )
                };
                #(#make_views)*
                __body(&#thread, #(#names),*)
            }
            #bounds
        }
    });
    let spirv = crate::kernel_spirv::entry(&krate, &f, &body_fn, &thread, &params, &args, &views);
    // Elsewhere (the simulator) the body runs on a thread that knows the declared shared
    // memory, so its collective operations check their scratch against it there too.
    let mut host = f.clone();
    let checks = host_checks(&krate, (name, &thread), &params, &views);
    host.block = syn::parse_quote!({
        #[inline(always)]
        #body_fn
        #checks
        // SAFETY: off the GPU the body runs on the simulator, which checks every shared
        // access against the launch's bytes whatever the thread claims.
        #[allow(unsafe_code)]
        let __thread = unsafe { #rt::kernel::KernelThread::<_, { #shared }>::new(#thread) };
        __body(&__thread, #(#names),*)
    });
    let entry = quote! {
        #ptx
        #krate::__private::if_spirv! { #spirv }
        #[cfg(not(target_arch = "nvptx64"))]
        #krate::__private::unless_spirv! { #host }
    };
    let extents = extents(&krate, &args, &params, &views)?;
    let threads = partition_threads(&krate, &args, &views)?;
    let spec = spec(&krate, &f, &args, &tys, extents);
    Ok(quote!(#entry #spec #threads))
}

/// What the body checks off the GPU before it runs (`host_entry`): the launch against the spec,
/// as the GPU launcher checks it (block, shared memory, grid, and each buffer's elements
/// against `extent(..)` over the integer arguments), and each view or partition the caller made
/// against what the GPU entry makes of its buffer and the extent.
fn host_checks(
    krate: &TokenStream,
    (name, thread): (&syn::Ident, &syn::Ident),
    params: &[(syn::Ident, syn::Type)],
    views: &[ViewParam],
) -> TokenStream {
    let rt = quote!(#krate::runtime);
    let spec = spec_name(name);
    let args = params.iter().map(|(n, t)| {
        let last = last_segment(t)
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if buffer_written(&last).is_some() {
            quote!(#rt::host_entry::buffer_arg(&#n))
        } else if INTS.contains(&last.as_str()) {
            quote!(#rt::kernel::Arg::Int(#n as i128))
        } else {
            quote!(#rt::kernel::Arg::Other)
        }
    });
    let kernel = name.to_string();
    let made = views.iter().filter_map(|v| {
        let (sizes, (_, extent)) = (v.sizes.as_ref()?, v.partition.as_ref()?);
        let (n, param) = (&v.name, v.name.to_string());
        let ty = params.iter().find(|(p, _)| p == n).map(|(_, t)| t);
        let what = sizes_are(&ty.and_then(last_segment)?.ident.to_string());
        Some(quote!(#rt::host_entry::check_made(&#n, #sizes, [#kernel, #param, #what, #extent]);))
    });
    quote! {
        #[allow(clippy::unnecessary_cast)]
        {
            #rt::host_entry::check_launch(#thread, &#spec, &[#(#args),*]);
            #(#made)*
        }
    }
}

/// The `KernelSpec` const `#[kernel]` writes beside function `name`: its name in capitals.
fn spec_name(name: &syn::Ident) -> syn::Ident {
    format_ident!("{}", name.to_string().to_uppercase(), span = name.span())
}

/// What the sizes a view or partition type is made with are (after its buffer), by its name.
fn sizes_are(kind: &str) -> &'static str {
    match kind {
        "Tiled" | "TiledMut" => "a count of tiles",
        "Vectors" | "VectorsMut" => "a count of vectors",
        "Blocks" | "BlocksMut" | "BlockRows" => "columns",
        "Batch" | "BatchChunksMut" => "each matrix's [rows, cols]",
        _ => "the shape",
    }
}

/// The integer types a kernel parameter may have, by name: what `extent(..)` computes over.
const INTS: [&str; 10] = [
    "u8", "u16", "u32", "u64", "usize", "i8", "i16", "i32", "i64", "isize",
];

/// A partition's layout spreads over exactly the kernel's block: with more threads, two would
/// hold (and store) one element; with fewer, elements would go unstored. A compile error naming
/// both otherwise; a partition needs `block = ..` to check it against.
fn partition_threads(
    krate: &TokenStream,
    a: &Args,
    views: &[ViewParam],
) -> syn::Result<TokenStream> {
    let mut out = TokenStream::new();
    for v in views {
        if v.per_thread {
            out.extend(one_d_block(a, v)?);
            continue;
        }
        let Some(layout) = &v.layout else { continue };
        let block = declared_block(
            a,
            v,
            "a partitioned parameter's layout spreads over the kernel's block: give `block = <threads>` (its layout's `THREADS`)",
        )?;
        let (param, fewer) = (v.name.to_string(), v.fewer_threads);
        // At the block the kernel declares, which the error is about.
        let at = a.block.as_ref().map_or(v.name.span(), |b| b.span());
        let name = quote!(<#layout as #krate::runtime::Layout>::NAME);
        // The block's local keeps the call site's hygiene (the kernel may come from a macro).
        let b = format_ident!("b");
        let spread =
            quote_spanned!(at=> partition_block(#param, #name, <#layout>::THREADS, #b, #fewer););
        let warp = a.warp_size;
        let lanes = format!(
            "`{}`'s layout was written for warps of another size than the kernel's ({} lanes): its lanes would not be the hardware's",
            v.name, warp
        );
        let cluster = dim3(&a.cluster, quote!([1, 1, 1]));
        let ctas = format!(
            "`{}`'s layout spreads over the CTAs of a cluster of another size than the kernel's: its CTAs' parts would not be their `cta_rank`s' (write `cluster = <the layout's CTAs>`)",
            v.name
        );
        out.extend(quote! {
            const _: () = {
                use #krate::runtime::kernel::partition_block;
                let b: [u32; 3] = #block;
                #spread
                ::core::assert!(<#layout>::WARP_SIZE == #warp, #lanes);
                let c: [u32; 3] = #cluster;
                let n = #krate::runtime::layout::cta_count::<#layout>();
                ::core::assert!(n == 1 || n == c[0] * c[1] * c[2], #ctas);
            };
        });
    }
    Ok(out)
}

/// The kernel's block as `[x, y, z]`, which `v`'s check needs: an error at `v` saying `why`
/// where the kernel declares none.
fn declared_block(a: &Args, v: &ViewParam, why: &str) -> syn::Result<TokenStream> {
    match &a.block {
        Some(block) => Ok(dim3(&Some(block.clone()), TokenStream::new())),
        None => Err(syn::Error::new_spanned(&v.name, why)),
    }
}

/// A thread partition numbers the grid's threads along x alone: the kernel's block must be 1-D
/// (a compile error naming the fix otherwise).
fn one_d_block(a: &Args, v: &ViewParam) -> syn::Result<TokenStream> {
    let block = declared_block(
        a,
        v,
        "a thread partition's vectors are numbered by the grid's threads: give `block = <threads>`",
    )?;
    let msg = format!(
        "`{}` numbers the grid's threads along x: with a 2-D or 3-D block two threads would take one vector (write `block = <threads>`)",
        v.name
    );
    Ok(quote! {
        const _: () = {
            let b: [u32; 3] = #block;
            ::core::assert!(b[1] == 1 && b[2] == 1, #msg);
        };
    })
}

/// The dynamic shared memory the attribute declares, as a `u32` expression (0 if none).
fn shared_bytes(a: &Args) -> TokenStream {
    a.shared.as_ref().map_or(quote!(0), |e| quote!((#e) as u32))
}

/// The thread parameter's name and the kernel parameters (ident patterns only: they become the
/// entry point's parameters).
fn split_params(f: &ItemFn) -> syn::Result<(syn::Ident, Vec<(syn::Ident, syn::Type)>)> {
    let mut it = f.sig.inputs.iter();
    let thread = match it.next() {
        Some(FnArg::Typed(p)) if matches!(*p.ty, syn::Type::Reference(_)) => ident_of(&p.pat)?,
        _ => {
            return Err(syn::Error::new_spanned(
                &f.sig,
                "a #[kernel] function's first parameter is its thread: `t: &impl Thread`",
            ))
        }
    };
    let params = it
        .map(|a| match a {
            FnArg::Typed(p) => Ok((ident_of(&p.pat)?, (*p.ty).clone())),
            FnArg::Receiver(r) => Err(syn::Error::new_spanned(r, "a kernel has no `self`")),
        })
        .collect::<syn::Result<_>>()?;
    if let Some(a) = &f.sig.asyncness {
        return Err(syn::Error::new_spanned(a, "a kernel cannot be async"));
    }
    if !matches!(f.sig.output, syn::ReturnType::Default) {
        return Err(syn::Error::new_spanned(
            &f.sig.output,
            "a kernel returns nothing: it writes its results to `GlobalMut` tensors",
        ));
    }
    Ok((thread, params))
}

fn ident_of(p: &Pat) -> syn::Result<syn::Ident> {
    match p {
        Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => Ok(i.ident.clone()),
        other => Err(syn::Error::new_spanned(
            other,
            "a kernel parameter is a plain name (`n: u32`): it becomes a parameter of the GPU entry point",
        )),
    }
}

/// The marker static layout-builder turns into the entry's launch bounds (nothing without
/// `min_blocks`; `parse_args` made sure `block` is there with it).
fn launch_bounds(a: &Args, name: &syn::Ident) -> TokenStream {
    let (Some(m), Some(block)) = (&a.min_blocks, &a.block) else {
        return TokenStream::new();
    };
    let block = dim3(&Some(block.clone()), TokenStream::new());
    let symbol = format!("__launch_bounds__{}", name);
    let item = format_ident!("__LAUNCH_BOUNDS_{}", name.to_string().to_uppercase());
    quote! {
        #[cfg(target_arch = "nvptx64")]
        #[used]
        #[doc(hidden)]
        #[unsafe(export_name = #symbol)]
        static #item: [u32; 4] = {
            let b: [u32; 3] = #block;
            [b[0], b[1], b[2], (#m) as u32]
        };
    }
}

/// `pub const NAME: KernelSpec<(params...)>`, the parameters' types as written: in a const's
/// type an elided or `'_` lifetime is `'static`, so nothing is rewritten by its name.
fn spec(
    krate: &TokenStream,
    f: &ItemFn,
    a: &Args,
    tys: &[&syn::Type],
    extents: TokenStream,
) -> TokenStream {
    let name = &f.sig.ident;
    let konst = spec_name(name);
    let vis = &f.vis;
    let block = dim3(&a.block, quote!([0, 0, 0]));
    let cluster = dim3(&a.cluster, quote!([1, 1, 1]));
    let shared = shared_bytes(a);
    let warp = a.warp_size;
    let entry = name.to_string();
    let doc = format!(
        "How to launch [`{}`]: its entry point's name, parameter types, block, dynamic shared memory and cluster (written by `#[kernel]`).",
        entry
    );
    quote! {
        #[doc = #doc]
        #[allow(dead_code)]
        #vis const #konst: #krate::runtime::kernel::KernelSpec<(#(#tys,)*)> = {
            let shared: u32 = #shared;
            // SAFETY: the entry is this function and its parameters these types; the block,
            // cluster and warp size are the attribute's, which the body's layouts were checked
            // against; the shared bytes are the attribute's too, which the body's conversions,
            // reductions and scans were checked against when it was compiled.
            #[allow(unsafe_code)]
            let spec = unsafe {
                #krate::runtime::kernel::KernelSpec::new(#entry, #block, shared, #cluster, #warp)
            };
            #extents
        };
    }
}

/// `spec` with its parameters' names and the check of `extent(..)`: each named buffer against
/// its expression, evaluated in `i128` over the integer parameters and `grid`.
fn extents(
    krate: &TokenStream,
    a: &Args,
    params: &[(syn::Ident, syn::Type)],
    views: &[ViewParam],
) -> syn::Result<TokenStream> {
    let kernel = quote!(#krate::runtime::kernel);
    let names: Vec<String> = params.iter().map(|(n, _)| n.to_string()).collect();
    let last = |t: &syn::Type| last_segment(t).map(|s| s.ident.to_string());
    let ints = params.iter().enumerate().filter_map(|(i, (n, t))| {
        let int = last(t).is_some_and(|l| INTS.contains(&l.as_str()));
        int.then(|| quote!(let #n: i128 = #kernel::Arg::at(__args, #i).int();))
    });
    if let Some((n, _)) = params.iter().find(|(n, _)| n == "grid") {
        if !a.extents.is_empty() || !views.is_empty() {
            return Err(syn::Error::new_spanned(
                n,
                "`grid` is the launch's grid in `extent(..)`: a parameter of that name would hide it; rename the parameter",
            ));
        }
    }
    let mut checks = Vec::new();
    for v in views {
        let Some((need, expr)) = &v.partition else {
            continue;
        };
        let i = params.iter().position(|(n, _)| n == &v.name).unwrap_or(0);
        let pname = v.name.to_string();
        checks.push((i, quote! {
            let __need: i128 = #need;
            let __len = #kernel::Arg::at(__args, #i).elements();
            if __need < 0 || (__len as i128) < __need || __need > #kernel::MAX_VIEW_ELEMENTS {
                return Err(#kernel::ExtentError { index: #i, param: #pname, expr: #expr, need: __need, len: __len });
            }
        }));
    }
    for (name, expr) in &a.extents {
        let at = params.iter().position(|(n, _)| n == name);
        if views.iter().any(|v| &v.name == name) {
            // A view's or partition's shape or count: checked above.
            continue;
        }
        const BUFFERS: [&str; 4] = ["Global", "GlobalMut", "View", "ViewMut"];
        let buffer =
            at.is_some_and(|i| last(&params[i].1).is_some_and(|l| BUFFERS.contains(&l.as_str())));
        let (Some(i), true) = (at, buffer) else {
            return Err(syn::Error::new_spanned(
                name,
                format!(
                    "extent(..) names a `View`, `ViewMut`, `Global` or `GlobalMut` parameter of this kernel; its buffer parameters are: {}",
                    params
                        .iter()
                        .filter(|(_, t)| last(t).is_some_and(|l| BUFFERS.contains(&l.as_str())))
                        .map(|(n, _)| n.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        };
        if let Expr::Array(arr) = expr {
            return Err(syn::Error::new_spanned(
                arr,
                format!("`{name}` is a `Global`: its extent is the number of elements it must hold (`extent({name} = n_rows * n_cols)`); for a shape, make it a `View<E, R>` (or `ViewMut`)"),
            ));
        }
        let (pname, text) = (name.to_string(), expr.to_token_stream().to_string());
        checks.push((i, quote! {
            let __need = (#expr) as i128;
            let __len = #kernel::Arg::at(__args, #i).elements();
            if (__len as i128) < __need {
                return Err(#kernel::ExtentError { index: #i, param: #pname, expr: #text, need: __need, len: __len });
            }
        }));
    }
    // In the parameters' order: the first short buffer is the one reported.
    checks.sort_by_key(|(i, _)| *i);
    let mut checks: Vec<TokenStream> = checks.into_iter().map(|(_, c)| c).collect();
    // A grid of more dims than the attribute's: its CTAs past them would read index 0.
    let gd = a.grid_dims as i128;
    if gd < 3 {
        checks.insert(0, quote! {
            if (#gd < 2 && grid[1] != 1) || grid[2] != 1 {
                return Err(#kernel::ExtentError { index: 0, param: "grid", expr: #kernel::GRID_DIMS_EXTENT, need: #gd, len: 0 });
            }
        });
    }
    if checks.is_empty() {
        return Ok(quote!(spec.with_names(&[#(#names),*])));
    }
    Ok(quote! {
        #[allow(unused_variables, clippy::unnecessary_cast)]
        fn extents(
            __args: &[#kernel::Arg],
            grid: [u32; 3],
        ) -> Result<(), #kernel::ExtentError> {
            let grid = [grid[0] as i128, grid[1] as i128, grid[2] as i128];
            #(#ints)*
            #({ #checks })*
            Ok(())
        }
        spec.with_names(&[#(#names),*]).with_extents(extents)
    })
}

/// The facade's path in the calling crate, from its Cargo.toml.
fn facade() -> syn::Result<TokenStream> {
    use proc_macro_crate::{crate_name, FoundCrate};
    match crate_name("linear-layouts") {
        // The facade itself, its doctests and examples: `extern crate self as linear_layouts`
        // there makes the plain name resolve.
        Ok(FoundCrate::Itself) => Ok(quote!(::linear_layouts)),
        Ok(FoundCrate::Name(n)) => {
            let i = format_ident!("{}", n);
            Ok(quote!(::#i))
        }
        Err(_) => Err(syn::Error::new(
            Span::call_site(),
            "#[kernel] cannot find `linear-layouts` among this crate's dependencies: name the path it is reachable by, e.g. #[kernel(crate = my_reexport::linear_layouts)]",
        )),
    }
}
