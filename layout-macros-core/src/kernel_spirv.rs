//! `#[kernel]`'s SPIR-V entry point, for rust-gpu: a `#[spirv(compute(threads(..)))]` function
//! whose parameters are the compute built-ins the runtime's `SpirvThread` needs, one storage
//! buffer per `Global`/`GlobalMut` parameter and per view's buffer (descriptor set 0, bindings in
//! parameter order),
//! the other parameters as one push-constant block (a `#[repr(C)]` struct, fields in parameter
//! order), and the workgroup array that backs shared memory. The host side of this contract is
//! `KernelSpec` and the Vulkan runner.
//!
//! rust-gpu reads the workgroup size from integer literals only, so `block` must be written as
//! literals here; anything else is an error, reported only when building for SPIR-V.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Expr, ItemFn};

use crate::kernel_args::Args;

/// How a kernel parameter reaches a SPIR-V entry point.
enum Param<'a> {
    /// A storage buffer of `elem`; `write` for `GlobalMut` (and the views and partitions made
    /// of a buffer by the entry: `ViewMut`, `TilesMut`, ...).
    Buffer { write: bool, elem: &'a syn::Type },
    /// A field of the push-constant block.
    Push,
}

fn classify(ty: &syn::Type) -> Param<'_> {
    let syn::Type::Path(p) = ty else {
        return Param::Push;
    };
    let Some(seg) = p.path.segments.last() else {
        return Param::Push;
    };
    let Some(write) = crate::kernel_views::buffer_written(&seg.ident.to_string()) else {
        return Param::Push;
    };
    match crate::kernel_views::element_type(seg) {
        Some(elem) => Param::Buffer { write, elem },
        None => Param::Push,
    }
}

/// The workgroup size as literals, or the error to report on SPIR-V.
fn local_size(block: &Option<Expr>) -> Result<[u32; 3], TokenStream> {
    const MSG: &str = "on SPIR-V, #[kernel] needs `block` as integer literals (rust-gpu reads the workgroup size from literals only): write e.g. `block = 64` or `block = [16, 4, 1]`, with `const _: () = assert!(MyLayout::THREADS == 64);` beside it to keep it tied to the layout";
    let lit = |e: &Expr| crate::kernel_args::int_lit(e).ok_or_else(|| err(e, MSG));
    match block {
        Some(Expr::Array(a)) if (1..=3).contains(&a.elems.len()) => {
            let mut d = [1u32; 3];
            for (i, e) in a.elems.iter().enumerate() {
                d[i] = lit(e)?;
            }
            Ok(d)
        }
        Some(e) => Ok([lit(e)?, 1, 1]),
        None => Err(quote!(::core::compile_error!(
            "on SPIR-V, #[kernel] needs `block = <threads>`: the workgroup size is part of the entry point"
        );)),
    }
}

fn err(e: &Expr, msg: &str) -> TokenStream {
    syn::Error::new_spanned(e, msg).to_compile_error()
}

/// The SPIR-V entry point for kernel `f`, whose body is `body_fn` (named `__body`).
pub fn entry(
    krate: &TokenStream,
    f: &ItemFn,
    body_fn: &ItemFn,
    thread: &syn::Ident,
    params: &[(syn::Ident, syn::Type)],
    args: &Args,
    views: &[crate::kernel_views::ViewParam],
) -> TokenStream {
    let [x, y, z] = match local_size(&args.block) {
        Ok(d) => d,
        Err(e) => return e,
    };
    let rt = quote!(#krate::runtime);
    let name = &f.sig.ident;
    let vis = &f.vis;
    let spirv = quote!(spirv);
    let push_ty = format_ident!("__{}_push_constants", name);
    let (mut inputs, mut locals, mut fields) = (Vec::new(), Vec::new(), Vec::new());
    let mut binding = 0u32;
    for (n, ty) in params {
        match classify(ty) {
            Param::Buffer { write, elem } => {
                let b = binding;
                binding += 1;
                let (slice, wrap) = if write {
                    (quote!(&mut [#elem]), quote!(#rt::GlobalMut::from_slice(#n)))
                } else {
                    (quote!(&[#elem]), quote!(#rt::Global::from_slice(#n)))
                };
                inputs.push(
                    quote!(#[#spirv(storage_buffer, descriptor_set = 0, binding = #b)] #n: #slice),
                );
                locals.push(quote!(let #n = #wrap;));
            }
            Param::Push => {
                fields.push(quote!(pub #n: #ty));
                locals.push(quote!(let #n = __push.#n;));
            }
        }
    }
    let names = params.iter().map(|(n, _)| n);
    let make_views = views.iter().map(|v| &v.make);
    let push_struct = (!fields.is_empty()).then(|| {
        inputs.push(quote!(#[#spirv(push_constant)] __push: &#push_ty));
        quote! {
            #[doc(hidden)]
            #[allow(non_camel_case_types)]
            #[derive(Clone, Copy)]
            #[repr(C)]
            pub struct #push_ty { #(#fields),* }
        }
    });
    let shared = args
        .shared
        .as_ref()
        .map_or(quote!(0u32), |e| quote!((#e) as u32));
    let words = quote!({ let w = ((#shared) as usize).div_ceil(4); if w == 0 { 1 } else { w } });
    quote! {
        #push_struct
        #[#rt::spirv::spirv(compute(threads(#x, #y, #z)))]
        #vis fn #name(
            #[#spirv(local_invocation_id)] __tid: #rt::spirv::UVec3,
            #[#spirv(workgroup_id)] __ctaid: #rt::spirv::UVec3,
            #[#spirv(num_workgroups)] __nctaid: #rt::spirv::UVec3,
            #[#spirv(subgroup_local_invocation_id)] __lane: u32,
            #[#spirv(subgroup_id)] __warp: u32,
            #[#spirv(subgroup_size)] __lanes: u32,
            #(#inputs,)*
            #[#spirv(workgroup)] __smem: &mut [u32; #words],
        ) {
            #[inline(always)]
            #body_fn
            let #thread = #rt::spirv::SpirvThread::new(__smem, #rt::spirv::Ids {
                thread: [__tid.x, __tid.y, __tid.z],
                block: [__ctaid.x, __ctaid.y, __ctaid.z],
                grid: [__nctaid.x, __nctaid.y, __nctaid.z],
                block_dim: [#x, #y, #z],
                lane: __lane,
                warp: __warp,
                lanes: __lanes,
            });
            #(#locals)*
            #(#make_views)*
            __body(&#thread, #(#names),*)
        }
    }
}
