//! Shared-memory layouts: swizzled (and AMD's rotating variant), NVMMA (the TMA/wgmma swizzles),
//! padded, and shared_linear. In-dims are `offset` (elements) and `block`.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::cga::{check_permutation, combine_cta_cga_with_shape, parse_cga, shape_per_cta};
use super::{Cga, Encoding, NvmmaShared, SwizzledShared};
use crate::error::{bail, bail_at};
use crate::layout::is_pow2;
use crate::parse::attr::{Attr, AttrKind};
use crate::parse::error::ParseError;
use crate::parse::params::{as_uint, body_dict, linear_from_dict, Params, R};
use crate::utils::{
    ensure_not_smaller_named, reshape_layout, standard_out_dim_names, transpose_linear_layout,
};
use crate::{LinearLayout, Result};

fn check_shape(shape: &[i64]) -> Result<()> {
    for &s in shape {
        if !is_pow2(s) || s > 1 << 30 {
            bail!("shared layouts need a power-of-two shape, got {:?}", shape);
        }
    }
    Ok(())
}

pub(crate) fn swizzled(s: &SwizzledShared, shape: &[i64], rotating: bool) -> Result<LinearLayout> {
    let rank = s.order.len();
    check_permutation("order", &s.order)?;
    if shape.len() != rank || s.cga.rank() != rank || rank == 0 {
        bail!(
            "the shared layout has rank {} (order {:?}), the tensor shape {:?}",
            rank,
            s.order,
            shape
        );
    }
    check_shape(shape)?;
    if s.per_phase == 0 || s.max_phase == 0 {
        bail_at!(if s.per_phase == 0 { "perPhase" } else { "maxPhase" };
            "perPhase and maxPhase must be at least 1, got perPhase = {} and maxPhase = {}",
            s.per_phase,
            s.max_phase
        );
    }
    let spc = shape_per_cta(&s.cga.cta_split_num(), shape);
    if rank == 1 {
        return combine_cta_cga_with_shape(
            LinearLayout::identity_1d(spc[0] as i32, "offset", "dim0")?,
            &s.cga,
            shape,
        );
    }
    // Triton's rotating layout sizes its swizzled dims by the full shape, not the per-CTA
    // shape (rank 1 above uses the per-CTA shape for both, as Triton does).
    let sz = if rotating { shape.to_vec() } else { spc };
    let names = standard_out_dim_names(rank);
    let (col, row) = (s.order[0] as usize, s.order[1] as usize);
    let (ncols, nrows) = (sz[col], sz[row]);
    let mut b: Vec<Vec<i32>> = Vec::new();
    let mut c = 1;
    while c < ncols {
        b.push(alloc::vec![0, c as i32]);
        c *= 2;
    }
    let (vec, pp, mp) = (s.vec as i64, s.per_phase as i64, s.max_phase as i64);
    let mut r = 1;
    while r < nrows {
        let phase = (r / pp) % mp;
        let p = if rotating {
            phase ^ ((r / mp / pp) % mp)
        } else {
            phase
        };
        b.push(alloc::vec![
            r as i32,
            (((vec % ncols) * (p % ncols)) % ncols) as i32
        ]);
        r *= 2;
    }
    let mut cta = LinearLayout::from_bases(
        alloc::vec![("offset".into(), b)],
        &[&names[row], &names[col]],
    )?;
    for &d in &s.order[2..] {
        cta = cta.checked_mul(&LinearLayout::identity_1d(
            sz[d as usize] as i32,
            "offset",
            &names[d as usize],
        )?)?;
    }
    combine_cta_cga_with_shape(cta, &s.cga, shape)
}

impl NvmmaShared {
    fn vec(&self) -> i64 {
        if self.swizzling_byte_width == 0 {
            1
        } else {
            128 / self.element_bit_width as i64
        }
    }
    fn per_phase(&self) -> i64 {
        if self.swizzling_byte_width == 0 {
            1
        } else {
            128 / self.swizzling_byte_width as i64
        }
    }
    fn max_phase(&self) -> i64 {
        if self.swizzling_byte_width == 0 {
            1
        } else {
            self.swizzling_byte_width as i64 / 16
        }
    }
}

/// `getCoreMatrixLinearLayout`: one 8-row core matrix of the NVMMA swizzle.
fn core_matrix(s: &NvmmaShared) -> Result<LinearLayout> {
    let bits = s.element_bit_width as i64;
    let tile_cols = 8 * (s.swizzling_byte_width as i64).max(16) / bits;
    let mut b: Vec<Vec<i32>> = Vec::new();
    let mut col = 1;
    while col < tile_cols {
        let c = if s.fp4_padded {
            col / 16 * 8 + col % 8
        } else {
            col
        };
        b.push(alloc::vec![0, c as i32]);
        col *= 2;
    }
    let mut row = 1;
    while row < 8 {
        let c = s.vec() * ((row / s.per_phase()) % s.max_phase());
        let c = if s.fp4_padded { c / 16 * 8 + c % 8 } else { c };
        b.push(alloc::vec![row as i32, c as i32]);
        row *= 2;
    }
    LinearLayout::from_bases(
        alloc::vec![("offset".into(), b)],
        &standard_out_dim_names(2),
    )
}

/// `getTMABlockShape` in tiled mode, packed sizes.
fn tma_block_shape(s: &NvmmaShared, spc: &[i64]) -> Result<Vec<i64>> {
    let mut bs = spc.to_vec();
    let contig = if s.transposed { 0 } else { bs.len() - 1 };
    if s.fp4_padded {
        bs[contig] *= 2;
    }
    for x in bs.iter_mut() {
        *x = (*x).min(256);
    }
    if s.swizzling_byte_width != 0 {
        let want = 8 * s.swizzling_byte_width as i64 / s.element_bit_width as i64;
        if bs[contig] < want {
            bail!("nvmma_shared: the block shape along the contiguous dimension {} is {}, too small for a {}-byte swizzle of {}-bit elements (at least {})",
                contig, bs[contig], s.swizzling_byte_width, s.element_bit_width, want);
        }
        bs[contig] = want;
    }
    if s.fp4_padded {
        bs[contig] /= 2;
    }
    Ok(bs)
}

/// `#ttg.nvmma_shared`'s layout for `shape`: the unswizzled identity over the TMA block, or the
/// core-matrix swizzle grown over it, then fitted to the tensor and the CGA.
pub(crate) fn nvmma(s: &NvmmaShared, shape: &[i64]) -> Result<LinearLayout> {
    let rank = shape.len();
    check_nvmma_params(s)?;
    // A single-CTA nvmma_shared without an explicit rank fits any tensor rank.
    let single;
    let s = if s.rank != rank && s.cga.num_ctas() == 1 && rank > 0 {
        single = NvmmaShared {
            rank,
            cga: Cga::single(rank),
            ..s.clone()
        };
        &single
    } else {
        s
    };
    if rank == 0 || s.rank != rank || s.cga.rank() != rank {
        bail!(
            "nvmma_shared: the layout has rank {}, the tensor shape {:?}",
            s.rank,
            shape
        );
    }
    check_shape(shape)?;
    let spc = shape_per_cta(&s.cga.cta_split_num(), shape);
    let tma = tma_block_shape(s, &spc)?;
    let names = standard_out_dim_names(rank);
    let l = if s.swizzling_byte_width == 0 {
        nvmma_unswizzled(s, &tma)?
    } else {
        nvmma_swizzled(s, &tma, shape)?
    };
    let l = ensure_not_smaller_named(&l, &names, &spc)?;
    combine_cta_cga_with_shape(l, &s.cga, shape)
}

/// The swizzle width and element size must be ones NVMMA has.
fn check_nvmma_params(s: &NvmmaShared) -> Result<()> {
    if !matches!(s.swizzling_byte_width, 0 | 32 | 64 | 128) {
        bail_at!("swizzlingByteWidth";
            "nvmma_shared: swizzlingByteWidth must be 0, 32, 64 or 128, got {}",
            s.swizzling_byte_width
        );
    }
    if !matches!(s.element_bit_width, 4 | 8 | 16 | 32 | 64) {
        bail_at!("elementBitWidth";
            "nvmma_shared: elementBitWidth must be 4, 8, 16, 32 or 64, got {}",
            s.element_bit_width
        );
    }
    Ok(())
}

/// The TMA block as the layout is built over it: rotated left by one when transposed.
fn built_block(s: &NvmmaShared, tma: &[i64]) -> Vec<i64> {
    let mut mt = tma.to_vec();
    if s.transposed {
        mt.rotate_left(1);
    }
    mt
}

/// Undo [`built_block`]'s rotation: permute the basis components by `[r-1, 0, .., r-2]`.
fn unrotate(s: &NvmmaShared, l: LinearLayout, rank: usize) -> Result<LinearLayout> {
    if !s.transposed {
        return Ok(l);
    }
    let mut order = alloc::vec![rank - 1];
    order.extend(0..rank - 1);
    transpose_linear_layout(&l, &order)
}

/// `swizzlingByteWidth = 0`: a row-major identity over the TMA block.
fn nvmma_unswizzled(s: &NvmmaShared, tma: &[i64]) -> Result<LinearLayout> {
    // Row-major identity over the TMA block, built last dim first, so the out-dims run
    // [dim{r-1}, ..., dim0]. Transposed: Triton 3.9 (PR 10453) builds it over the block
    // rotated left by one and permutes the basis components by [r-1, 0, .., r-2] *by
    // position*. The out-dims being in reverse order, for rank 3 and up that assigns sizes
    // to other dims than the rotation would (checked against the 3.9 wheel); the growing and
    // zeroing in `nvmma` then fits it to the tensor. Kept exactly, since Triton is the reference.
    let rank = tma.len();
    let names = standard_out_dim_names(rank);
    let mt = built_block(s, tma);
    let mut l = LinearLayout::empty();
    for i in (0..rank).rev() {
        l = l.checked_mul(&LinearLayout::identity_1d(
            mt[i] as i32,
            "offset",
            &names[i],
        )?)?;
    }
    unrotate(s, l, rank)
}

/// A swizzle: the core matrix grown over the TMA block collapsed to 2D, reshaped back to it.
fn nvmma_swizzled(s: &NvmmaShared, tma: &[i64], shape: &[i64]) -> Result<LinearLayout> {
    let rank = tma.len();
    if rank < 2 {
        bail!(
            "nvmma_shared with a swizzle needs a rank-2 or higher tensor, got shape {:?}",
            shape
        );
    }
    let mut collapsed = [1i64, tma[rank - 1]];
    for &t in &tma[..rank - 1] {
        collapsed[0] *= t;
    }
    if s.transposed {
        collapsed.swap(0, 1);
    }
    let tile = core_matrix(s)?;
    let (tr, tc) = (
        tile.out_dim_size("dim0") as i64,
        tile.out_dim_size("dim1") as i64,
    );
    let pack = if s.fp4_padded { 2 } else { 1 };
    if collapsed[1] * pack < tc || collapsed[0] < tr {
        bail!(
            "nvmma_shared: the collapsed shape per CTA must be at least [{}, {}], got {:?}",
            tr,
            tc / pack,
            collapsed
        );
    }
    let two = standard_out_dim_names(2);
    let l = ensure_not_smaller_named(&tile, &two, &collapsed)?;
    let r = reshape_layout(&l, &built_block(s, tma))?;
    unrotate(s, r, rank)
}

/// `#ttg.padded_shared<[interval:+padding, ...] {...}>`: a linear component plus padding applied
/// to offsets when computing addresses.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PaddedShared {
    /// Intervals (elements), powers of two.
    pub intervals: Vec<u32>,
    /// Paddings (elements), powers of two.
    pub paddings: Vec<u32>,
    /// `offset, block -> dims`.
    pub linear: LinearLayout,
}

impl PaddedShared {
    /// Check the intervals and paddings.
    pub fn validate(&self) -> Result<()> {
        if self.intervals.len() != self.paddings.len() || self.intervals.is_empty() {
            bail!("padded_shared: give one or more interval:+padding pairs");
        }
        for (&i, &p) in self.intervals.iter().zip(&self.paddings) {
            if !is_pow2(i as i64) || !is_pow2(p as i64) {
                bail!(
                    "padded_shared: interval {} and padding {} must be powers of two",
                    i,
                    p
                );
            }
        }
        Ok(())
    }

    /// The padded offset of an element offset: `off + sum_k (off >> log2(interval_k)) <<
    /// log2(pad_k)` ([`layout_plan::pad_address`] in element units).
    pub fn apply_padding(&self, offset: u32) -> u32 {
        layout_plan::pad_address(offset, &layout_plan::padding_of(&self.pairs(), 0))
    }

    /// The `(interval, pad)` pairs, in elements.
    pub fn pairs(&self) -> Vec<(u32, u32)> {
        self.intervals
            .iter()
            .copied()
            .zip(self.paddings.iter().copied())
            .collect()
    }

    /// The builder form `{order = [...], shape = [...]}`: an identity over `shape` in `order`.
    pub fn identity_component(shape: &[u32], order: &[u32]) -> Result<LinearLayout> {
        check_permutation("order", order)?;
        let l = crate::utils::identity_standard_nd("offset", shape, order)?;
        let s: Vec<i64> = shape.iter().map(|&x| x as i64).collect();
        combine_cta_cga_with_shape(l, &Cga::single(shape.len()), &s)
    }
}

pub(crate) fn padded(p: &PaddedShared, shape: &[i64]) -> Result<LinearLayout> {
    p.validate()?;
    shared_linear(&p.linear, shape)
}

pub(crate) fn shared_linear(l: &LinearLayout, shape: &[i64]) -> Result<LinearLayout> {
    let sizes: Vec<i64> = l.out_dims().iter().map(|(_, s)| *s as i64).collect();
    if sizes != shape {
        let names: Vec<String> = l.out_dim_names().map(String::from).collect();
        bail!("this shared layout covers {:?} ({:?}), but the tensor shape is {:?}; shared linear layouts do not broadcast", sizes, names, shape);
    }
    Ok(l.clone())
}

/// `#ttg.swizzled_shared<{...}>`'s parameters.
pub(crate) fn parse_swizzled_shared(name: &str, a: &Attr, body: &[Attr]) -> R<Encoding> {
    let mut p = Params::of(
        name,
        a,
        body,
        &[
            "vec",
            "perPhase",
            "maxPhase",
            "order",
            "CGALayout",
            "CTAsPerCGA",
            "CTASplitNum",
            "CTAOrder",
        ],
    )?;
    let s = SwizzledShared {
        vec: p.uint("vec")?,
        per_phase: p.uint("perPhase")?,
        max_phase: p.uint("maxPhase")?,
        order: p.uints("order")?,
        cga: Cga::single(0),
    };
    let cga = parse_cga(&mut p, s.order.len())?;
    let s = SwizzledShared { cga, ..s };
    Ok(if name == "amd_rotating_shared" {
        Encoding::AmdRotatingShared(s)
    } else {
        Encoding::SwizzledShared(s)
    })
}

/// `#ttg.nvmma_shared<{...}>`'s parameters.
pub(crate) fn parse_nvmma_shared(name: &str, a: &Attr, body: &[Attr]) -> R<Encoding> {
    let mut p = Params::of(
        name,
        a,
        body,
        &[
            "swizzlingByteWidth",
            "transposed",
            "elementBitWidth",
            "fp4Padded",
            "rank",
            "CGALayout",
            "CTAsPerCGA",
            "CTASplitNum",
            "CTAOrder",
        ],
    )?;
    let sw = p.uint("swizzlingByteWidth")?;
    let tr = p.bool_or("transposed", false)?;
    let ebw = p.uint("elementBitWidth")?;
    let fp4 = p.bool_or("fp4Padded", false)?;
    let rank_key = p.uint_or("rank", 0)? as usize;
    // Without `rank`, the CGALayout entries tell it; failing both, rank 2.
    let cga_rank = p.peek("CGALayout").and_then(|a| match &a.kind {
        AttrKind::Array(v) => match v.first().map(|f| &f.kind) {
            Some(AttrKind::Array(b)) => Some(b.len()),
            _ => None,
        },
        _ => None,
    });
    let rank = if rank_key != 0 {
        rank_key
    } else {
        cga_rank.unwrap_or(2)
    };
    let cga = parse_cga(&mut p, rank)?;
    Ok(Encoding::NvmmaShared(NvmmaShared {
        swizzling_byte_width: sw,
        transposed: tr,
        element_bit_width: ebw,
        fp4_padded: fp4,
        rank,
        cga,
    }))
}

/// `#ttg.padded_shared<{...}>`'s parameters.
pub(crate) fn parse_padded_shared(name: &str, a: &Attr, body: &[Attr]) -> R<Encoding> {
    let Some(Attr {
        kind: AttrKind::Paddings(pads),
        span: ps,
    }) = body.first()
    else {
        return Err(ParseError::new(a.span, "#ttg.padded_shared needs intervals: #ttg.padded_shared<[32:+4] {order = [1, 0], shape = [64, 64]}>"));
    };
    let Some(Attr {
        kind: AttrKind::Dict(d),
        span: ds,
    }) = body.get(1)
    else {
        return Err(ParseError::new(*ps, "expected {offset = [...], block = [...]} or {order = [...], shape = [...]} after the intervals"));
    };
    let linear = if d.iter().any(|(k, _, _)| k == "offset" || k == "block") {
        linear_from_dict(*ds, d, &["offset", "block"], &["block"], 0)?
    } else {
        let mut p = Params::new(name, *ds, d, &["order", "shape"])?;
        let order = p.uints("order")?;
        let shape = p.uints("shape")?;
        if order.len() != shape.len() {
            return Err(ParseError::new(
                *ds,
                "mismatch of shape and order ranks in padded layout",
            ));
        }
        PaddedShared::identity_component(&shape, &order)
            .map_err(|e| ParseError::new(*ds, e.message().to_string()))?
    };
    let mut intervals = Vec::new();
    let mut paddings = Vec::new();
    for &(i, p) in pads {
        if !(1..=1 << 30).contains(&i) || !(1..=1 << 30).contains(&p) {
            return Err(ParseError::new(
                *ps,
                format!(
                    "interval {} and padding {} must be positive powers of two",
                    i, p
                ),
            ));
        }
        intervals.push(i as u32);
        paddings.push(p as u32);
    }
    let pl = PaddedShared {
        intervals,
        paddings,
        linear,
    };
    pl.validate()
        .map_err(|e| ParseError::new(*ps, e.message().to_string()))?;
    Ok(Encoding::PaddedShared(pl))
}

/// `#ttg.shared_linear<{...}>`'s parameters.
pub(crate) fn parse_shared_linear(name: &str, a: &Attr, body: &[Attr]) -> R<Encoding> {
    let d = body_dict(name, a, body)?;
    let l = linear_from_dict(a.span, d, &["offset", "block"], &["block"], 0)?;
    let alignment = body
        .iter()
        .find_map(|x| match &x.kind {
            AttrKind::Keyword(k, v) if k == "alignment" => Some(as_uint(v, "alignment")),
            _ => None,
        })
        .transpose()?
        .ok_or_else(|| {
            ParseError::new(
                a.span,
                "#ttg.shared_linear needs ', alignment = N' after the bases",
            )
        })?;
    Ok(Encoding::SharedLinear {
        layout: l,
        alignment,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_adds_pad_elements_after_every_interval() {
        // Triton's applyPadding: off + Σ (off >> log2(interval)) << log2(pad).
        let p = PaddedShared {
            intervals: alloc::vec![32, 64],
            paddings: alloc::vec![4, 8],
            linear: LinearLayout::empty(),
        };
        assert_eq!(p.apply_padding(0), 0);
        assert_eq!(p.apply_padding(31), 31);
        assert_eq!(p.apply_padding(32), 32 + 4);
        assert_eq!(p.apply_padding(64), 64 + 8 + 8);
        assert_eq!(p.apply_padding(100), 100 + 3 * 4 + 8);
    }

    /// Unswizzled, transposed, rank 3 and 4: the answers of the Triton 3.9 wheel
    /// (`to_linear_layout`), whose sizes land on other dims than a rotation would, then are grown
    /// and zeroed to fit the tensor.
    #[test]
    fn unswizzled_transposed_high_rank_matches_triton_3_9() {
        let at = |shape: &[i64]| {
            let s = NvmmaShared {
                swizzling_byte_width: 0,
                transposed: true,
                element_bit_width: 16,
                fp4_padded: false,
                rank: shape.len(),
                cga: Cga::single(shape.len()),
            };
            nvmma(&s, shape)
                .unwrap()
                .in_dim_bases("offset")
                .unwrap()
                .to_vec()
        };
        let v = |b: &[&[i32]]| -> Vec<Vec<i32>> { b.iter().map(|x| x.to_vec()).collect() };
        assert_eq!(
            at(&[2, 8, 8]),
            v(&[
                &[0, 1, 0],
                &[1, 0, 0],
                &[0, 0, 0],
                &[0, 0, 0],
                &[0, 0, 1],
                &[0, 0, 2],
                &[0, 0, 4],
                &[0, 2, 0],
                &[0, 4, 0]
            ])
        );
        assert_eq!(
            at(&[8, 2, 2]),
            v(&[
                &[0, 1, 0],
                &[0, 0, 0],
                &[0, 0, 0],
                &[1, 0, 0],
                &[0, 0, 1],
                &[2, 0, 0],
                &[4, 0, 0]
            ])
        );
        let z = &[0, 0, 0, 0][..];
        assert_eq!(
            at(&[2, 4, 8, 16]),
            v(&[
                &[0, 0, 1, 0],
                &[0, 1, 0, 0],
                &[0, 2, 0, 0],
                z,
                z,
                &[1, 0, 0, 0],
                z,
                z,
                &[0, 0, 0, 1],
                &[0, 0, 0, 2],
                &[0, 0, 0, 4],
                &[0, 0, 0, 8],
                &[0, 0, 2, 0],
                &[0, 0, 4, 0]
            ])
        );
    }
}
