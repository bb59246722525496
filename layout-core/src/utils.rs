//! Triton's `LayoutUtils`: the helpers every encoding is built from (standard dim names,
//! identityStandardND, ensureLayoutNotLargerThan / NotSmallerThan, reshapeLayout, ...).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::error::bail;
use crate::layout::is_pow2;
pub use crate::product::supremum;
use crate::{ColumnAction, LinearLayout, Result};

/// `["dim0", "dim1", ...]`.
pub fn standard_out_dim_names(rank: usize) -> Vec<String> {
    (0..rank).map(|i| format!("dim{}", i)).collect()
}

/// `[("dim0", shape[0]), ...]`.
pub fn standard_out_dim_pairs(shape: &[i32]) -> Vec<(String, i32)> {
    shape
        .iter()
        .enumerate()
        .map(|(i, &s)| (format!("dim{}", i), s))
        .collect()
}

/// `identityStandardND`: `∏_i identity1D(shape[order[i]], in_dim, dim{order[i]})`, out-dims in
/// `order` (minor first).
pub fn identity_standard_nd(in_dim: &str, shape: &[u32], order: &[u32]) -> Result<LinearLayout> {
    if shape.len() != order.len() {
        bail!(
            "identityStandardND: shape {:?} and order {:?} have different ranks",
            shape,
            order
        );
    }
    let names = standard_out_dim_names(shape.len());
    let mut ret = LinearLayout::empty();
    for &d in order {
        let d = d as usize;
        if d >= shape.len() {
            bail!(
                "order {:?} names dim {} of a rank-{} layout",
                order,
                d,
                shape.len()
            );
        }
        ret = ret.checked_mul(&LinearLayout::identity_1d(
            to_i32(shape[d])?,
            in_dim,
            &names[d],
        )?)?;
    }
    Ok(ret)
}

pub(crate) fn to_i32(x: u32) -> Result<i32> {
    if x > 1 << 30 {
        bail!("size {} is too large", x);
    }
    Ok(x as i32)
}

/// `squareSublayoutIsIdentity`: the sublayout `dims -> dims` is square and the identity.
pub fn square_sublayout_is_identity<S: AsRef<str>>(ll: &LinearLayout, dims: &[S]) -> Result<bool> {
    if dims.is_empty() {
        return Ok(true);
    }
    for d in dims {
        if ll.in_dim_size(d.as_ref()) != ll.out_dim_size(d.as_ref()) {
            return Ok(false);
        }
    }
    let sl = ll.sublayout(dims, dims)?.flatten_ins().flatten_outs();
    let Some((_, vs)) = sl.bases().first() else {
        return Ok(true);
    };
    Ok(vs.iter().enumerate().all(|(i, b)| b[0] == 1 << i))
}

/// `zerosLike`: same dims, every basis zero.
pub fn zeros_like(ll: &LinearLayout) -> LinearLayout {
    let bases = ll
        .bases()
        .iter()
        .map(|(n, vs)| {
            (
                n.clone(),
                vs.iter().map(|b| alloc::vec![0; b.len()]).collect(),
            )
        })
        .collect();
    LinearLayout::new_unchecked(bases, ll.out_dims().to_vec())
}

/// `ensureLayoutNotLargerThan`: clamp each out-dim to `min(size, shape[d])`, zeroing basis
/// components that overflow. With `broadcast_registers == false`, register bases that *became*
/// zero are dropped.
pub fn ensure_layout_not_larger_than(
    ll: &LinearLayout,
    shape: &[(String, i32)],
    broadcast_registers: bool,
) -> Result<LinearLayout> {
    if shape.is_empty() {
        return Ok(ll.clone());
    }
    let mut out_dims = ll.out_dims().to_vec();
    for (d, size) in out_dims.iter_mut() {
        let Some((_, s)) = shape.iter().find(|(n, _)| n == d) else {
            bail!(
                "ensureLayoutNotLargerThan: no size given for out-dim '{}'",
                d
            );
        };
        if !is_pow2(*s as i64) {
            bail!("shape size {} of '{}' must be a non-zero power of 2", s, d);
        }
        *size = (*size).min(*s);
    }
    let bases = ll
        .bases()
        .iter()
        .map(|(n, vs)| {
            let drop = !broadcast_registers && n == "register";
            let mut nv = Vec::new();
            for b in vs {
                let was_zero = b.iter().all(|&v| v == 0);
                let nb: Vec<i32> = b
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| if v >= out_dims[i].1 { 0 } else { v })
                    .collect();
                let is_zero = nb.iter().all(|&v| v == 0);
                if !drop || was_zero || !is_zero {
                    nv.push(nb);
                }
            }
            (n.clone(), nv)
        })
        .collect();
    Ok(LinearLayout::new_unchecked(bases, out_dims))
}

/// `ensureLayoutNotSmallerThan`: grow each out-dim (in the layout's out-dim order) up to
/// `shape[d]` by repeating along the first in-dim (`register` or `offset`).
pub fn ensure_layout_not_smaller_than(
    ll: &LinearLayout,
    shape: &[(String, i32)],
) -> Result<LinearLayout> {
    if shape.is_empty() {
        return Ok(ll.clone());
    }
    let Some(k) = ll.in_dim_names().next().map(String::from) else {
        bail!("ensureLayoutNotSmallerThan: the layout has no in-dims");
    };
    let mut ret = ll.clone();
    for (d, actual) in ll.out_dims() {
        let Some((_, desired)) = shape.iter().find(|(n, _)| n == d) else {
            bail!(
                "ensureLayoutNotSmallerThan: no size given for out-dim '{}'",
                d
            );
        };
        if *desired > *actual {
            if desired % actual != 0 {
                bail!(
                    "size {} of '{}' is not a multiple of the layout's {}",
                    desired,
                    d,
                    actual
                );
            }
            ret = ret.checked_mul(&LinearLayout::identity_1d(desired / actual, &k, d)?)?;
        }
    }
    Ok(ret)
}

/// Like [`ensure_layout_not_smaller_than`] with the sizes given positionally for `names`.
pub fn ensure_not_smaller_named(
    ll: &LinearLayout,
    names: &[String],
    shape: &[i64],
) -> Result<LinearLayout> {
    let pairs: Vec<(String, i32)> = names
        .iter()
        .cloned()
        .zip(shape.iter().map(|&s| s as i32))
        .collect();
    ensure_layout_not_smaller_than(ll, &pairs)
}

/// `reshapeLayout`: a row-major reshape of the out-dims to `shape` (standard names).
pub fn reshape_layout(ll: &LinearLayout, shape: &[i64]) -> Result<LinearLayout> {
    let mut src: Vec<String> = ll.out_dim_names().map(String::from).collect();
    src.reverse();
    let mut new_outs: Vec<(String, i32)> = shape
        .iter()
        .enumerate()
        .map(|(i, &s)| (format!("dim{}", i), s as i32))
        .collect();
    new_outs.reverse();
    ll.transpose_outs(&src)?
        .reshape_outs(&new_outs)?
        .transpose_outs(&standard_out_dim_names(shape.len()))
}

/// `transposeLinearLayout`: permute each basis' components by `order`, keeping the out names.
pub fn transpose_linear_layout(ll: &LinearLayout, order: &[usize]) -> Result<LinearLayout> {
    let bases = ll
        .bases()
        .iter()
        .map(|(n, vs)| {
            (
                n.clone(),
                vs.iter()
                    .map(|b| order.iter().map(|&i| b[i]).collect())
                    .collect(),
            )
        })
        .collect();
    let names: Vec<String> = ll.out_dim_names().map(String::from).collect();
    LinearLayout::from_bases(bases, &names)
}

/// `removeStandardDim`: drop out-dim `dim` and rename the rest `dim0..`.
pub fn remove_standard_dim(ll: &LinearLayout, dim: usize) -> Result<LinearLayout> {
    let rank = ll.num_out_dims();
    if dim >= rank {
        bail!(
            "removeStandardDim: dim {} out of range for rank {}",
            dim,
            rank
        );
    }
    let mut dims: Vec<String> = ll.out_dim_names().map(String::from).collect();
    dims.remove(dim);
    let ins: Vec<String> = ll.in_dim_names().map(String::from).collect();
    let sub = ll.sublayout(&ins, &dims)?;
    let outs = sub
        .out_dims()
        .iter()
        .enumerate()
        .map(|(i, (_, s))| (format!("dim{}", i), *s))
        .collect();
    Ok(LinearLayout::new_unchecked(sub.bases().clone(), outs))
}

/// `actionRemoveBroadcastedRegs`: keep only the nonzero register bases.
pub fn action_remove_broadcasted_regs(ll: &LinearLayout) -> Result<ColumnAction> {
    let vs = ll.in_dim_bases("register").unwrap_or(&[]);
    let keep = (0..vs.len())
        .filter(|&i| vs[i].iter().any(|&v| v != 0))
        .collect();
    ColumnAction::new(keep, "register", vs.len())
}

/// Zero the components of out-dim `dim` (Triton's `projectAwayOutDim`), re-inferring sizes.
pub fn project_away_out_dim(ll: &LinearLayout, dim: &str) -> Result<LinearLayout> {
    let Some(idx) = ll.out_dim_index(dim) else {
        bail!("no out-dim '{}'", dim)
    };
    let bases = ll
        .bases()
        .iter()
        .map(|(n, vs)| {
            (
                n.clone(),
                vs.iter()
                    .map(|b| {
                        let mut b = b.clone();
                        b[idx] = 0;
                        b
                    })
                    .collect(),
            )
        })
        .collect();
    LinearLayout::from_bases(bases, &standard_out_dim_names(ll.num_out_dims()))
}

/// Names as owned strings.
pub fn to_names<S: ToString>(v: &[S]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}
