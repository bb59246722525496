//! The CGA layout (how a tensor is split across the blocks of a cluster) and
//! `combineCtaCgaWithShape`, which every encoding ends with.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::error::{bail, bail_at};
use crate::layout::is_pow2;
use crate::parse::error::ParseError;
use crate::parse::params::{as_bases, check_rank, Params, R};
use crate::utils::{
    ensure_layout_not_larger_than, ensure_layout_not_smaller_than, standard_out_dim_names,
    standard_out_dim_pairs, to_i32,
};
use crate::{LinearLayout, Result};

/// Triton's `CGAEncodingAttr`: a linear layout from `block` to the tensor dims, in units of
/// per-CTA tiles.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cga {
    /// `block -> dim0..` layout.
    pub layout: LinearLayout,
}

impl Cga {
    /// One CTA: `block = []`.
    pub fn single(rank: usize) -> Cga {
        let names = standard_out_dim_names(rank);
        Cga {
            layout: LinearLayout::new_unchecked(
                alloc::vec![("block".into(), Vec::new())],
                names.into_iter().map(|n| (n, 1)).collect(),
            ),
        }
    }

    /// `CGAEncodingAttr::fromSplitParams(CTAsPerCGA, CTASplitNum, CTAOrder)`.
    pub fn from_split_params(
        ctas_per_cga: &[u32],
        cta_split_num: &[u32],
        cta_order: &[u32],
    ) -> Result<Cga> {
        let rank = cta_order.len();
        if ctas_per_cga.len() != rank || cta_split_num.len() != rank {
            bail!(
                "CTAsPerCGA {:?}, CTASplitNum {:?} and CTAOrder {:?} must have the same rank",
                ctas_per_cga,
                cta_split_num,
                cta_order
            );
        }
        check_permutation("CTAOrder", cta_order)?;
        let names = standard_out_dim_names(rank);
        let mut l = LinearLayout::empty();
        for &d in cta_order {
            let d = d as usize;
            let (split, total) = (cta_split_num[d], ctas_per_cga[d]);
            if !is_pow2(split as i64) || !is_pow2(total as i64) || total % split != 0 {
                bail!(
                    "CTAsPerCGA[{}] = {} must be a power-of-two multiple of CTASplitNum[{}] = {}",
                    d,
                    total,
                    d,
                    split
                );
            }
            l = l
                .checked_mul(&LinearLayout::identity_1d(
                    to_i32(split)?,
                    "block",
                    &names[d],
                )?)?
                .checked_mul(&LinearLayout::zeros_1d(
                    to_i32(total / split)?,
                    "block",
                    &names[d],
                    1,
                )?)?;
        }
        if rank == 0 {
            return Ok(Cga::single(0));
        }
        let l = l.transpose_outs(&names)?;
        Ok(Cga { layout: l })
    }

    /// The `CGALayout = [[...]]` form: block bases, sizes inferred, not required surjective.
    pub fn from_bases(bases: Vec<Vec<i32>>, rank: usize) -> Result<Cga> {
        let mut sizes = alloc::vec![1i32; rank];
        for b in &bases {
            if b.len() != rank {
                bail!(
                    "CGALayout entry {:?} has {} components, but the layout has rank {}",
                    b,
                    b.len(),
                    rank
                );
            }
            for (i, &v) in b.iter().enumerate() {
                if !(0..1 << 20).contains(&v) {
                    bail!("CGALayout entry {:?} is out of range", b);
                }
                sizes[i] = sizes[i].max(crate::layout::next_power_of_2(v) as i32);
            }
        }
        let outs = standard_out_dim_pairs(&sizes);
        let l = LinearLayout::from_parts(alloc::vec![("block".into(), bases)], outs, false)?;
        Ok(Cga { layout: l })
    }

    /// Rank (number of tensor dims).
    pub fn rank(&self) -> usize {
        self.layout.num_out_dims()
    }

    /// `getCTASplitNum` (skipBroadcast) or `getCTAsPerCGA` (!skipBroadcast): per dim, how many
    /// block bases point along it.
    pub fn bases_per_dim(&self, skip_broadcast: bool) -> Vec<u32> {
        let mut ret = alloc::vec![1u32; self.rank()];
        let mut last = 0usize;
        for b in self.layout.in_dim_bases("block").unwrap_or(&[]) {
            if let Some(i) = b.iter().position(|&v| v != 0) {
                last = i;
                ret[i] *= 2;
            } else if !skip_broadcast && !ret.is_empty() {
                ret[last] *= 2;
            }
        }
        ret
    }

    /// `getCTASplitNum`.
    pub fn cta_split_num(&self) -> Vec<u32> {
        self.bases_per_dim(true)
    }

    /// Number of CTAs.
    pub fn num_ctas(&self) -> u64 {
        self.layout.total_in_dim_size()
    }
}

/// An encoding's CGA from its parameters: `CGALayout = [[...]]`, or the legacy
/// `CTAsPerCGA / CTASplitNum / CTAOrder` (one CTA when none is given).
pub(crate) fn parse_cga(p: &mut Params, rank: usize) -> R<Cga> {
    let span = p.span();
    check_rank(span, rank)?;
    if let Some(a) = p.get("CGALayout") {
        let bases = as_bases(a, "CGALayout")?;
        return Cga::from_bases(bases, rank)
            .map_err(|e| ParseError::new(a.span, e.message().to_string()));
    }
    let ctas = p.uints_opt("CTAsPerCGA")?;
    let split = p.uints_opt("CTASplitNum")?;
    let order = p.uints_opt("CTAOrder")?;
    if ctas.is_none() && split.is_none() && order.is_none() {
        return Ok(Cga::single(rank));
    }
    let ctas = ctas.unwrap_or_else(|| alloc::vec![1; rank]);
    let split = split.unwrap_or_else(|| ctas.clone());
    let order = order.unwrap_or_else(|| (0..rank as u32).rev().collect());
    if ctas.len() != rank || split.len() != rank || order.len() != rank {
        return Err(ParseError::new(
            p.key_span("CTAsPerCGA"),
            format!(
                "CTAsPerCGA, CTASplitNum and CTAOrder must have rank {}",
                rank
            ),
        ));
    }
    Cga::from_split_params(&ctas, &split, &order)
        .map_err(|e| ParseError::new(span, e.message().to_string()))
}

pub(crate) fn check_permutation(what: &str, order: &[u32]) -> Result<()> {
    let mut seen = alloc::vec![false; order.len()];
    for &o in order {
        if o as usize >= order.len() || seen[o as usize] {
            bail_at!(what;
                "{} {:?} is not a permutation of 0..{}",
                what,
                order,
                order.len()
            );
        }
        seen[o as usize] = true;
    }
    Ok(())
}

/// `getShapePerCTA(CTASplitNum, shape)`.
pub fn shape_per_cta(split: &[u32], shape: &[i64]) -> Vec<i64> {
    let rank = shape.len();
    let mut s: Vec<u32> = split.to_vec();
    if s.len() <= rank {
        let mut pre = alloc::vec![1u32; rank - s.len()];
        pre.extend(s);
        s = pre;
    } else {
        s = s[s.len() - rank..].to_vec();
    }
    shape
        .iter()
        .zip(&s)
        .map(|(&d, &k)| d / (d.min(k as i64)).max(1))
        .collect()
}

/// `combineCtaCgaWithShape(ctaLayout, cga, shape)`: broadcast or repeat the CTA layout to the
/// per-CTA shape, multiply by the CGA layout, and return out-dims `dim0..` of exactly `shape`.
pub fn combine_cta_cga_with_shape(
    cta: LinearLayout,
    cga: &Cga,
    shape: &[i64],
) -> Result<LinearLayout> {
    let rank = shape.len();
    if cta.num_out_dims() != rank || cga.rank() != rank {
        bail!(
            "rank mismatch: the layout has rank {} (CGA rank {}), the tensor shape {:?} rank {}",
            cta.num_out_dims(),
            cga.rank(),
            shape,
            rank
        );
    }
    for &s in shape {
        if !is_pow2(s) || s > 1 << 30 {
            bail!(
                "tensor shape {:?}: every dimension must be a power of 2 (and at most 2^30)",
                shape
            );
        }
    }
    let names = standard_out_dim_names(rank);
    let labeled: Vec<(String, i32)> = names
        .iter()
        .cloned()
        .zip(shape.iter().map(|&s| s as i32))
        .collect();
    let cta_names: Vec<String> = cta.out_dim_names().map(String::from).collect();
    let cga_l =
        ensure_layout_not_larger_than(&cga.layout, &labeled, true)?.transpose_outs(&cta_names)?;
    let cta_shape: Vec<(String, i32)> = cta_names
        .iter()
        .map(|d| {
            let full = labeled.iter().find(|(n, _)| n == d).map_or(1, |x| x.1);
            (d.clone(), (full / cga_l.out_dim_size(d)).max(1))
        })
        .collect();
    let cta = ensure_layout_not_smaller_than(&cta, &cta_shape)?;
    let cta = ensure_layout_not_larger_than(&cta, &cta_shape, true)?;
    let ret = cta.checked_mul(&cga_l)?.transpose_outs(&names)?;
    for (d, s) in &labeled {
        if ret.out_dim_size(d) != *s {
            bail!(
                "the layout covers {} elements along {}, but the tensor has {}",
                ret.out_dim_size(d),
                d,
                s
            );
        }
    }
    Ok(ret)
}
