//! Blackwell's tensor memory: `#ttng.tensor_memory_encoding` (an accumulator or operand held in
//! TMEM's 128 rows and its columns, in blocks of `blockM x blockN`) and
//! `#ttng.tensor_memory_scales_encoding` (the scale factors of a block-scaled `tcgen05.mma`),
//! as Triton 3.9's `tensorMemoryToLinearLayout` / `tensorMemoryScalesToLinearLayout` map them:
//! in-dims `row`, `col` (32-bit columns) and `block`.

use alloc::format;
use alloc::vec::Vec;

use super::cga::{parse_cga, shape_per_cta, Cga};
use super::Encoding;
use crate::error::bail;
use crate::parse::attr::Attr;
use crate::parse::error::ParseError;
use crate::parse::params::{keyword_dict, Params, R};
use crate::utils::{ensure_layout_not_larger_than, standard_out_dim_names, to_i32};
use crate::{LinearLayout, Result};

/// `#ttng.tensor_memory_encoding`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorMemory {
    /// Rows of a block: 64 or 128.
    pub block_m: u32,
    /// Columns of a block.
    pub block_n: u32,
    /// Columns between consecutive elements of a row (2 for 16-bit elements packed one per
    /// 32-bit column).
    pub col_stride: u32,
    /// The CTAs of a cluster.
    pub cga: Cga,
    /// A two-CTA `tcgen05.mma` operand or accumulator.
    pub two_ctas: bool,
    /// fp4 operands padded to 8 bits: each takes twice the columns (one more zero column bit).
    pub fp4_padded: bool,
}

/// `#ttng.tensor_memory_scales_encoding`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorMemoryScales {
    /// The CTAs of a cluster.
    pub cga: Cga,
    /// `blockRepOrder = kThenMn`: repeated scale blocks go along K (dim 1) within each 128
    /// rows, then along M/N; `mnThenK` (the default) along M/N first.
    pub k_then_mn: bool,
}

pub(crate) fn parse_tensor_memory(name: &str, a: &Attr, body: &[Attr]) -> R<Encoding> {
    let keys = [
        "blockM",
        "blockN",
        "colStride",
        "CGALayout",
        "twoCTAs",
        "fp4Padded",
    ];
    let dict = keyword_dict(name, body)?;
    let mut p = Params::new(name, a.span, &dict, &keys)?;
    let (block_m, block_n) = (p.uint("blockM")?, p.uint("blockN")?);
    let col_stride = p.uint_or("colStride", 1)?;
    let cga = parse_cga(&mut p, 2)?;
    let two_ctas = p.bool_or("twoCTAs", false)?;
    let fp4_padded = p.bool_or("fp4Padded", false)?;
    Ok(Encoding::TensorMemory(TensorMemory {
        block_m,
        block_n,
        col_stride,
        cga,
        two_ctas,
        fp4_padded,
    }))
}

pub(crate) fn parse_tensor_memory_scales(name: &str, a: &Attr, body: &[Attr]) -> R<Encoding> {
    let dict = keyword_dict(name, body)?;
    let mut p = Params::new(name, a.span, &dict, &["CGALayout", "blockRepOrder"])?;
    let cga = parse_cga(&mut p, 2)?;
    let k_then_mn = match p.ident_opt("blockRepOrder")? {
        None => false,
        Some(o) if o == "mnThenK" => false,
        Some(o) if o == "kThenMn" => true,
        Some(o) => {
            return Err(ParseError::new(
                p.key_span("blockRepOrder"),
                format!("blockRepOrder is mnThenK or kThenMn, not {}", o),
            ))
        }
    };
    Ok(Encoding::TensorMemoryScales(TensorMemoryScales {
        cga,
        k_then_mn,
    }))
}

fn check_shape(what: &str, shape: &[i64]) -> Result<()> {
    if shape.len() != 2 || shape.iter().any(|&d| d < 1 || d & (d - 1) != 0) {
        bail!(
            "{}: tensor memory holds 2-D tensors of power-of-two shape, not {:?}",
            what,
            shape
        );
    }
    Ok(())
}

/// `tensorMemoryToLinearLayout`.
pub fn tensor_memory(t: &TensorMemory, shape: &[i64]) -> Result<LinearLayout> {
    check_shape("tensor_memory_encoding", shape)?;
    if !(t.block_m == 64 || t.block_m == 128) {
        bail!(
            "tensor_memory_encoding: blockM is {}; tensor memory blocks have 64 or 128 rows",
            t.block_m
        );
    }
    if t.block_n == 0 || !t.block_n.is_power_of_two() || !t.col_stride.is_power_of_two() {
        bail!(
            "tensor_memory_encoding: blockN ({}) and colStride ({}) must be powers of two",
            t.block_n,
            t.col_stride
        );
    }
    let dims = standard_out_dim_names(2);
    let per_cta = shape_per_cta(&t.cga.cta_split_num(), shape);
    let block_m = to_i32(t.block_m)?;
    let block_n = (to_i32(t.block_n)? as i64).min(per_cta[1]) as i32;
    // A 32-bit column holds one element at most (Triton: bitwidth * colStride <= 32).
    let stride = t.col_stride.saturating_mul(1 + t.fp4_padded as u32);
    if stride > 32 {
        bail!(
            "tensor_memory_encoding: colStride {}{} spreads an element over more than 32 columns; a column is 32 bits",
            t.col_stride,
            if t.fp4_padded { " with fp4Padded" } else { "" }
        );
    }
    let mut tile = LinearLayout::zeros_1d(to_i32(stride)?, "col", &dims[1], 1)?;
    if block_m == 64 && !t.two_ctas {
        // Bases below are written (dim0, dim1).
        tile = tile
            .checked_mul(&LinearLayout::identity_1d(16, "row", &dims[0])?)?
            .checked_mul(&LinearLayout::identity_1d(block_n, "col", &dims[1])?)?
            .transpose_outs(&dims)?;
        let mut bases = tile.bases().clone();
        let row = bases.iter_mut().find(|(n, _)| n == "row").map(|(_, b)| b);
        let Some(row) = row else {
            bail!("tensor_memory_encoding: no rows")
        };
        row.push(if per_cta[0] > 64 {
            alloc::vec![64, 0]
        } else if per_cta[1] > block_n as i64 {
            alloc::vec![0, block_n]
        } else {
            // No element: the rows past the tile hold nothing.
            alloc::vec![0, 0]
        });
        row.push(alloc::vec![16, 0]);
        row.push(alloc::vec![32, 0]);
        tile = LinearLayout::from_bases(bases, &dims)?;
    } else {
        tile = tile
            .checked_mul(&LinearLayout::identity_1d(block_m, "row", &dims[0])?)?
            .checked_mul(&LinearLayout::identity_1d(block_n, "col", &dims[1])?)?
            .transpose_outs(&dims)?;
        if block_m == 64 {
            // Two CTAs of 64 rows: laid out as the transpose of 128 x blockN (the last column
            // bit becomes the top row bit).
            let mut bases = tile.bases().clone();
            let col = bases
                .iter_mut()
                .find(|(n, _)| n == "col")
                .and_then(|(_, b)| b.pop());
            let Some(last) = col else {
                bail!("tensor_memory_encoding: two CTAs of 64 rows need at least two columns")
            };
            if let Some((_, row)) = bases.iter_mut().find(|(n, _)| n == "row") {
                row.push(last);
            }
            let surjective = tile.is_surjective();
            tile = LinearLayout::from_parts(bases, tile.out_dims().to_vec(), surjective)?;
        }
    }
    let reps_m = per_cta[0] / tile.out_dim_size(&dims[0]) as i64;
    let reps_n = per_cta[1] / tile.out_dim_size(&dims[1]) as i64;
    if reps_m < 1 || reps_n < 1 {
        bail!(
            "tensor_memory_encoding: a {} x {} block is larger than the {:?} the CTA holds",
            t.block_m,
            t.block_n,
            per_cta
        );
    }
    let ll = tile
        .checked_mul(&LinearLayout::identity_1d(reps_m as i32, "col", &dims[0])?)?
        .checked_mul(&LinearLayout::identity_1d(reps_n as i32, "col", &dims[1])?)?
        .checked_mul(&t.cga.layout)?;
    standard_order(&ll)
}

/// `row, col, block -> dim0, dim1`, whatever order the products built them in.
fn standard_order(ll: &LinearLayout) -> Result<LinearLayout> {
    ll.transpose_ins(&["row", "col", "block"])?
        .transpose_outs(&standard_out_dim_names(2))
}

/// `tensorMemoryScalesToLinearLayout`.
pub fn tensor_memory_scales(t: &TensorMemoryScales, shape: &[i64]) -> Result<LinearLayout> {
    check_shape("tensor_memory_scales_encoding", shape)?;
    let dims = standard_out_dim_names(2);
    let per_cta = shape_per_cta(&t.cga.cta_split_num(), shape);
    // The PTX ISA's scale-factor layout: 32 rows, broadcast over the 4 warps' row groups, 4
    // columns, then 2 more along dim 0.
    let tile = LinearLayout::identity_1d(32, "row", &dims[0])?
        .checked_mul(&LinearLayout::zeros_1d(4, "row", &dims[0], 1)?)?
        .checked_mul(&LinearLayout::identity_1d(4, "col", &dims[1])?)?
        .checked_mul(&LinearLayout::identity_1d(2, "col", &dims[0])?)?;
    let reps = |d: usize| {
        let size = tile.out_dim_size(&dims[d]) as i64;
        ((per_cta[d] + size - 1) / size) as i32
    };
    // Repeated blocks: along M/N then K, or (kThenMn) K within each 128 rows, then M/N.
    let (m_inner, m_outer) = match t.k_then_mn {
        true => (reps(0).min(2), reps(0) / reps(0).min(2)),
        false => (reps(0), 1),
    };
    let tile = tile
        .checked_mul(&LinearLayout::identity_1d(m_inner, "col", &dims[0])?)?
        .checked_mul(&LinearLayout::identity_1d(reps(1), "col", &dims[1])?)?
        .checked_mul(&LinearLayout::identity_1d(m_outer, "col", &dims[0])?)?
        .checked_mul(&LinearLayout::identity_1d(1, "block", &dims[0])?)?;
    let clamp: Vec<_> = dims
        .iter()
        .zip(&per_cta)
        .map(|(d, &s)| (d.clone(), s as i32))
        .collect();
    standard_order(&ensure_layout_not_larger_than(&tile, &clamp, true)?.checked_mul(&t.cga.layout)?)
}
