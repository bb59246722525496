//! What a front end (the `layout!` macro, the CLI) solves: an encoding applied to a tensor shape,
//! checked against the warp size, with every error pointing at the parameter that caused it.

use alloc::format;
use alloc::string::String;

use crate::error::bail;
use crate::parse::{encoding_from_attr, Attr, ParseError};
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
/// `warp_size` (the encoding's [`Encoding::default_warp_size`] when `None`).
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
    let ws = warp_size.unwrap_or_else(|| encoding.default_warp_size());
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
