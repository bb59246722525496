//! What a front end (the `layout!` macro, the CLI) solves: an encoding applied to a tensor shape,
//! checked against the warp size, with every error pointing at the parameter that caused it.
//! Also CuTe's `Swizzle<B, M, S>` as a shared-memory linear layout.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::error::bail;
use crate::parse::{encoding_from_attr, Attr, ParseError};
use crate::utils::standard_out_dim_names;
use crate::{Encoding, ErrorKind, LayoutError, LinearLayout, Result};

/// An encoding solved for one tensor shape.
#[derive(Clone, Debug)]
pub struct Solved {
    /// The encoding as parsed.
    pub encoding: Encoding,
    /// Triton's `toLinearLayout(shape, encoding)` (lanes padded to the warp size for `linear`).
    pub layout: LinearLayout,
    /// Lanes per warp the layout was checked against (distributed layouts only).
    pub warp_size: Option<u32>,
}

/// The warp size a layout runs on unless told otherwise: 64 lanes for AMD's MFMA layouts (CDNA
/// wavefronts), 32 for everything else (NVIDIA warps, and RDNA's wave32 WMMA).
pub fn default_warp_size(enc: &Encoding) -> u32 {
    match enc {
        Encoding::AmdMfma(_) => 64,
        Encoding::Slice { parent, .. } | Encoding::DotOperand { parent, .. } => {
            default_warp_size(parent)
        }
        _ => 32,
    }
}

/// Where an error from [`Encoding::to_linear_layout`] points: the key it names, else the whole
/// attribute.
pub fn locate_error(attr: &Attr, e: &LayoutError) -> ParseError {
    let span = e.key().and_then(|k| attr.key_span(k)).unwrap_or(attr.span);
    ParseError {
        message: String::from(e.message()),
        span,
        kind: e.kind(),
    }
}

/// Parse an attribute into an encoding, solve it for `shape`, and check its lanes against
/// `warp_size` (the encoding's [`default_warp_size`] when `None`).
pub fn solve_attr(
    attr: &Attr,
    shape: &[i64],
    warp_size: Option<u32>,
) -> core::result::Result<Solved, ParseError> {
    let encoding = encoding_from_attr(attr)?;
    let layout = encoding
        .to_linear_layout(shape)
        .map_err(|e| locate_error(attr, &e))?;
    if encoding.is_shared() {
        return Ok(Solved {
            encoding,
            layout,
            warp_size: None,
        });
    }
    let ws = warp_size.unwrap_or_else(|| default_warp_size(&encoding));
    let layout = check_warp_size(&encoding, layout, ws).map_err(|e| locate_error(attr, &e))?;
    Ok(Solved {
        encoding,
        layout,
        warp_size: Some(ws),
    })
}

/// A distributed layout's lanes must be exactly one warp. A `linear` layout with fewer lane bases
/// is padded with zero bases (the extra lanes hold copies), as Triton treats the missing lanes.
pub fn check_warp_size(enc: &Encoding, l: LinearLayout, warp_size: u32) -> Result<LinearLayout> {
    if !warp_size.is_power_of_two() || warp_size > 1024 {
        bail!(
            "the warp size must be a power of two (32 or 64), got {}",
            warp_size
        );
    }
    let lanes = l.in_dim_size("lane") as u32;
    if lanes == warp_size {
        return Ok(l);
    }
    let root = blocked_root(enc);
    match enc {
        Encoding::Linear(_) if lanes < warp_size => {
            let mut bases = l.bases().clone();
            let zero = alloc::vec![0; l.num_out_dims()];
            match bases.iter_mut().find(|(n, _)| n == "lane") {
                Some((_, b)) => {
                    while (1u32 << b.len()) < warp_size {
                        b.push(zero.clone());
                    }
                }
                None => bases.push((
                    String::from("lane"),
                    (0..warp_size.trailing_zeros())
                        .map(|_| zero.clone())
                        .collect(),
                )),
            }
            LinearLayout::from_parts(bases, l.out_dims().to_vec(), false)
        }
        Encoding::Linear(_) => Err(LayoutError::at(
            "lane",
            format!(
                "the lane bases give {} lanes, but a warp has {}; give {} lane bases",
                lanes,
                warp_size,
                warp_size.trailing_zeros()
            ),
        )),
        _ if root.is_some() => Err(LayoutError::at(
            "threadsPerWarp",
            format!(
                "threadsPerWarp multiplies to {}, but a warp has {} lanes; make the product {}",
                lanes, warp_size, warp_size
            ),
        )
        .with_kind(ErrorKind::WarpSize {
            lanes,
            alternative: true,
        })),
        _ => Err(LayoutError::of(
            ErrorKind::WarpSize {
                lanes,
                alternative: false,
            },
            format!(
                "#ttg.{} layouts use {} lanes per warp, but the warp size is {}",
                enc.name(),
                lanes,
                warp_size
            ),
        )),
    }
}

fn blocked_root(enc: &Encoding) -> Option<&crate::encodings::Blocked> {
    match enc {
        Encoding::Blocked(b) => Some(b),
        Encoding::Slice { parent, .. } | Encoding::DotOperand { parent, .. } => {
            blocked_root(parent)
        }
        _ => None,
    }
}

/// CuTe's `Swizzle<B, M, S>` over a row-major tensor (the last dim contiguous), as a shared layout
/// `offset, block -> dims`.
///
/// In CuTe, the swizzle maps an element's linear index `i` to the offset
/// `i ^ ((i & yyy) >> S)` where `yyy` is `B` bits starting at bit `M + S` (for `S >= 0`;
/// `S < 0` shifts left). That map is an involution over GF(2), so the offset -> coordinates layout
/// is the same map followed by the row-major unravelling of the index.
pub fn cute_swizzle(b: i32, m: i32, s: i32, shape: &[i64]) -> Result<LinearLayout> {
    if b < 0 || m < 0 {
        bail!("Swizzle<{}, {}, {}>: B and M must be non-negative", b, m, s);
    }
    if s.abs() < b {
        bail!(
            "Swizzle<{}, {}, {}>: |S| must be at least B, or the XORed bits overlap the bits they \
             are read from (CuTe's static_assert(abs(SShift) >= BBits))",
            b,
            m,
            s
        );
    }
    if shape.is_empty() || shape.len() > crate::parse::MAX_RANK {
        bail!("Swizzle needs a tensor shape of rank 1 to 16");
    }
    let mut bits = Vec::new();
    for &d in shape {
        if d <= 0 || d & (d - 1) != 0 || d > 1 << 30 {
            bail!("Swizzle needs a power-of-two shape, got {:?}", shape);
        }
        bits.push(d.trailing_zeros());
    }
    let total: u32 = bits.iter().sum();
    let top = (m + s.max(0) + b) as u32;
    if top > total || total > 31 {
        bail!(
            "Swizzle<{}, {}, {}> reads offset bits up to {}, but a tensor of shape {:?} has only \
             {} offset bits; use a larger tensor or smaller M / S",
            b,
            m,
            s,
            top,
            shape,
            total
        );
    }
    let yyy: u64 = ((1u64 << b) - 1) << (m + s.max(0));
    let swz = |i: u64| -> u64 {
        let y = i & yyy;
        i ^ if s >= 0 { y >> s } else { y << -s }
    };
    let rank = shape.len();
    let names = standard_out_dim_names(rank);
    let unravel = |mut i: u64| -> Vec<i32> {
        let mut c = alloc::vec![0i32; rank];
        for d in (0..rank).rev() {
            c[d] = (i & ((1 << bits[d]) - 1)) as i32;
            i >>= bits[d];
        }
        c
    };
    let offset: Vec<Vec<i32>> = (0..total).map(|k| unravel(swz(1 << k))).collect();
    let outs = names
        .iter()
        .zip(shape)
        .map(|(n, &d)| (n.clone(), d as i32))
        .collect();
    LinearLayout::from_parts(
        alloc::vec![
            (String::from("offset"), offset),
            (String::from("block"), Vec::new())
        ],
        outs,
        true,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swizzle_3_3_3_is_cute_swizzle() -> Result<()> {
        // 64x64 halves: CuTe's classic Swizzle<3, 3, 3> over rows of 64 elements.
        let l = cute_swizzle(3, 3, 3, &[64, 64])?;
        for i in 0..4096u64 {
            let o = i ^ ((i & (0b111 << 6)) >> 3);
            let c = l.apply_flat(&[o as u32, 0]);
            assert_eq!((c[0] * 64 + c[1]) as u64, i);
        }
        assert!(cute_swizzle(3, 3, 2, &[64, 64]).is_err());
        assert!(cute_swizzle(3, 4, 3, &[8, 64]).is_err());
        Ok(())
    }
}
