//! Blocked, slice, linear and the blocked-parent (FMA) dot operand.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::cga::{check_permutation, combine_cta_cga_with_shape, parse_cga};
use super::{Blocked, Cga, Encoding};
use crate::error::{bail, bail_at};
use crate::layout::is_pow2;
use crate::parse::attr::Attr;
use crate::parse::error::ParseError;
use crate::parse::params::{body_dict, linear_from_dict, Params, R};
use crate::utils::{
    ensure_layout_not_larger_than, ensure_layout_not_smaller_than, identity_standard_nd,
    remove_standard_dim, standard_out_dim_names, to_i32,
};
use crate::{LinearLayout, Result};

fn check_pow2(what: &str, v: &[u32]) -> Result<()> {
    if let Some(x) = v.iter().find(|&&x| !is_pow2(x as i64)) {
        bail_at!(what;
            "every element of {} must be a power of two, but {:?} has {}",
            what,
            v,
            x
        );
    }
    Ok(())
}

pub(crate) fn check_blocked(b: &Blocked) -> Result<()> {
    let r = b.order.len();
    if b.size_per_thread.len() != r || b.threads_per_warp.len() != r || b.warps_per_cta.len() != r {
        bail_at!("order"; "sizePerThread, threadsPerWarp, warpsPerCTA and order must all have the same rank, got {}, {}, {} and {}",
            b.size_per_thread.len(), b.threads_per_warp.len(), b.warps_per_cta.len(), r);
    }
    check_pow2("sizePerThread", &b.size_per_thread)?;
    check_pow2("threadsPerWarp", &b.threads_per_warp)?;
    check_pow2("warpsPerCTA", &b.warps_per_cta)?;
    check_permutation("order", &b.order)?;
    if b.cga.rank() != r {
        bail!(
            "the CGA layout has rank {}, the blocked layout {}",
            b.cga.rank(),
            r
        );
    }
    Ok(())
}

pub(crate) fn blocked(b: &Blocked, shape: &[i64]) -> Result<LinearLayout> {
    check_blocked(b)?;
    let cta = identity_standard_nd("register", &b.size_per_thread, &b.order)?
        .checked_mul(&identity_standard_nd(
            "lane",
            &b.threads_per_warp,
            &b.order,
        )?)?
        .checked_mul(&identity_standard_nd("warp", &b.warps_per_cta, &b.order)?)?;
    // Triton 3.9 drops the register bases that broadcast once the tile is clamped to the shape
    // (a blocked layout never holds one element twice in a thread); checked against Triton.
    Ok(combine_cta_cga_with_shape(cta, &b.cga, shape)?.remove_zero_bases_along_dim("register"))
}

pub(crate) fn slice(dim: u32, parent: &Encoding, shape: &[i64]) -> Result<LinearLayout> {
    if parent.is_shared() {
        bail!(
            "slice: the parent must be a distributed layout, not {}",
            parent.name()
        );
    }
    if dim as usize > shape.len() {
        bail!(
            "slice: dim {} is out of range for a rank-{} parent",
            dim,
            shape.len() + 1
        );
    }
    let mut pshape = shape.to_vec();
    pshape.insert(dim as usize, 1);
    let pl = parent.to_linear_layout(&pshape)?;
    // Triton rebuilds the layout from the bases, so out-dim sizes are inferred from them.
    let sl = remove_standard_dim(&pl, dim as usize)?.remove_zero_bases_along_dim("register");
    let bases = sl.bases().to_vec();
    let names: Vec<String> = sl.out_dim_names().map(String::from).collect();
    LinearLayout::from_bases(bases, &names)
}

/// `LinearEncodingAttr::getOrder`: dims in the order register bases first move along them.
fn linear_order(l: &LinearLayout) -> Vec<usize> {
    let rank = l.num_out_dims();
    let mut order: Vec<usize> = Vec::new();
    for b in l.in_dim_bases("register").unwrap_or(&[]) {
        if let Some(i) = b.iter().position(|&v| v != 0) {
            if !order.contains(&i) {
                order.push(i);
            }
        }
    }
    for i in (0..rank).rev() {
        if !order.contains(&i) {
            order.push(i);
        }
    }
    order
}

pub(crate) fn linear(l: &LinearLayout, shape: &[i64]) -> Result<LinearLayout> {
    if l.num_out_dims() == 0 {
        // `#ttg.linear<{register = [], lane = [], warp = [], block = []}>` has no rank of its own.
        let names = standard_out_dim_names(shape.len());
        let mut outs = Vec::new();
        for n in names {
            outs.push((n, 1));
        }
        let empty = LinearLayout::from_parts(l.bases().clone(), outs, true)?;
        return linear(&empty, shape);
    }
    let canon: Vec<String> = l.out_dim_names().map(String::from).collect();
    if shape.len() != canon.len() {
        bail!(
            "the linear layout has rank {}, the tensor shape {:?}",
            canon.len(),
            shape
        );
    }
    for &s in shape {
        if !is_pow2(s) || s > 1 << 30 {
            bail!(
                "tensor shape {:?}: every dimension must be a power of 2",
                shape
            );
        }
    }
    let order = linear_order(l);
    let permuted: Vec<String> = order.iter().map(|&d| canon[d].clone()).collect();
    let named: Vec<(String, i32)> = order
        .iter()
        .map(|&d| (canon[d].clone(), shape[d] as i32))
        .collect();
    let ll = l.transpose_outs(&permuted)?;
    let ll = ensure_layout_not_smaller_than(&ll, &named)?;
    let ll = ensure_layout_not_larger_than(&ll, &named, false)?;
    ll.transpose_outs(&canon)
}

/// `broadcastedDotOperandLayout`: identity along every dim of `order` except K, zeros along K.
pub(crate) fn broadcasted_dot_operand_layout(
    shape: &[u32],
    order: &[u32],
    k_dim: usize,
    in_dim: &str,
) -> Result<LinearLayout> {
    let names = standard_out_dim_names(shape.len());
    let mut l = LinearLayout::empty();
    for &d in order {
        let d = d as usize;
        let f = if d == k_dim {
            LinearLayout::zeros_1d(to_i32(shape[d])?, in_dim, &names[d], 1)?
        } else {
            LinearLayout::identity_1d(to_i32(shape[d])?, in_dim, &names[d])?
        };
        l = l.checked_mul(&f)?;
    }
    Ok(l)
}

/// `DotOperandEncodingAttr::getCGALayout`: the parent's, with the K component zeroed.
pub(crate) fn dot_cga(op_idx: u32, parent: &Cga) -> Result<Cga> {
    let rank = parent.rank();
    if rank < 2 {
        bail!("dot_op needs a parent of rank 2 or 3, got rank {}", rank);
    }
    let k = if op_idx == 0 { rank - 1 } else { rank - 2 };
    let bases: Vec<Vec<i32>> = parent
        .layout
        .in_dim_bases("block")
        .unwrap_or(&[])
        .iter()
        .map(|b| {
            let mut b = b.clone();
            b[k] = 0;
            b
        })
        .collect();
    let mut outs = parent.layout.out_dims().to_vec();
    outs[k].1 = 1;
    Ok(Cga {
        layout: LinearLayout::from_parts(alloc::vec![("block".into(), bases)], outs, true)?,
    })
}

pub(crate) fn check_dot(op_idx: u32, rank: usize, shape: &[i64]) -> Result<usize> {
    if op_idx > 1 {
        bail!("dot_op opIdx must be 0 or 1, got {}", op_idx);
    }
    if !(2..=3).contains(&rank) || shape.len() != rank {
        bail!(
            "dot_op: the parent has rank {} and the tensor shape {:?}; both must be rank 2 or 3",
            rank,
            shape
        );
    }
    Ok(if op_idx == 0 { rank - 1 } else { rank - 2 })
}

pub(crate) fn fma_dot(op_idx: u32, b: &Blocked, shape: &[i64]) -> Result<LinearLayout> {
    check_blocked(b)?;
    let rank = shape.len();
    let k = check_dot(op_idx, b.order.len(), shape)?;
    let mut thread_size = b.size_per_thread.clone();
    if shape[k] > 1 << 30 || !is_pow2(shape[k]) {
        bail!("dot_op: the K dimension {} must be a power of 2", shape[k]);
    }
    thread_size[k] = shape[k] as u32;
    let names = standard_out_dim_names(rank);
    let rep: Vec<String> = b.order.iter().map(|&d| names[d as usize].clone()).collect();
    let regs = identity_standard_nd("register", &thread_size, &b.order)?;
    let lanes = broadcasted_dot_operand_layout(&b.threads_per_warp, &b.order, k, "lane")?;
    let warps = broadcasted_dot_operand_layout(&b.warps_per_cta, &b.order, k, "warp")?;
    let cta = regs
        .transpose_outs(&rep)?
        .checked_mul(&lanes.transpose_outs(&rep)?)?
        .checked_mul(&warps.transpose_outs(&rep)?)?;
    combine_cta_cga_with_shape(cta, &dot_cga(op_idx, &b.cga)?, shape)
}

/// `#ttg.blocked<{...}>`'s parameters.
pub(crate) fn parse_blocked(name: &str, a: &Attr, body: &[Attr]) -> R<Encoding> {
    let mut p = Params::of(
        name,
        a,
        body,
        &[
            "sizePerThread",
            "threadsPerWarp",
            "warpsPerCTA",
            "order",
            "CGALayout",
            "CTAsPerCGA",
            "CTASplitNum",
            "CTAOrder",
        ],
    )?;
    let spt = p.uints("sizePerThread")?;
    let tpw = p.uints("threadsPerWarp")?;
    let wpc = p.uints("warpsPerCTA")?;
    let order = p.uints("order")?;
    let cga = parse_cga(&mut p, order.len())?;
    Ok(Encoding::Blocked(Blocked {
        size_per_thread: spt,
        threads_per_warp: tpw,
        warps_per_cta: wpc,
        order,
        cga,
    }))
}

/// `#ttg.slice<{...}>`'s parameters (its parent read by `encoding_from_attr`).
pub(crate) fn parse_slice(
    name: &str,
    a: &Attr,
    body: &[Attr],
    encoding_from_attr: fn(&Attr) -> R<Encoding>,
) -> R<Encoding> {
    let mut p = Params::of(name, a, body, &["dim", "parent"])?;
    let dim = p.uint("dim")?;
    let parent = encoding_from_attr(p.required("parent")?)?;
    if parent.is_shared() {
        return Err(ParseError::new(
            p.key_span("parent"),
            format!(
                "the parent of a slice must be a distributed layout, not #ttg.{}",
                parent.name()
            ),
        ));
    }
    if dim as usize >= parent.rank() {
        return Err(ParseError::new(
            p.key_span("dim"),
            format!(
                "slice dim {} is out of range for a rank-{} parent",
                dim,
                parent.rank()
            ),
        ));
    }
    Ok(Encoding::Slice {
        dim,
        parent: Box::new(parent),
    })
}

/// `#ttg.dot_op<{...}>`'s parameters (its parent read by `encoding_from_attr`).
pub(crate) fn parse_dot_op(
    name: &str,
    a: &Attr,
    body: &[Attr],
    encoding_from_attr: fn(&Attr) -> R<Encoding>,
) -> R<Encoding> {
    let mut p = Params::of(name, a, body, &["opIdx", "parent", "kWidth"])?;
    let op_idx = p.uint("opIdx")?;
    if op_idx > 1 {
        return Err(ParseError::new(
            p.key_span("opIdx"),
            format!("dot_op opIdx must be 0 or 1, got {}", op_idx),
        ));
    }
    let parent = encoding_from_attr(p.required("parent")?)?;
    let k_width = p.uint_or("kWidth", 0)?;
    if !matches!(
        parent,
        Encoding::Blocked(_) | Encoding::NvidiaMma(_) | Encoding::AmdMfma(_) | Encoding::AmdWmma(_)
    ) {
        return Err(ParseError::new(p.key_span("parent"), format!("the parent of a dot_op must be blocked, nvidia_mma, amd_mfma or amd_wmma, not #ttg.{}", parent.name())));
    }
    if !matches!(parent, Encoding::Blocked(_)) && k_width == 0 {
        return Err(ParseError::new(
            p.span(),
            "dot_op: kWidth is mandatory for an MMA parent (e.g. kWidth = 2 for 16-bit elements)",
        ));
    }
    Ok(Encoding::DotOperand {
        op_idx,
        parent: Box::new(parent),
        k_width,
    })
}

/// `#ttg.linear<{...}>`'s parameters.
pub(crate) fn parse_linear(name: &str, a: &Attr, body: &[Attr]) -> R<Encoding> {
    let d = body_dict(name, a, body)?;
    Ok(Encoding::Linear(linear_from_dict(
        a.span,
        d,
        &["register", "lane", "warp", "block"],
        &[],
        0,
    )?))
}
