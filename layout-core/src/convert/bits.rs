//! Layouts as flat bit vectors for planning: layout-plan's [`Flat`] (each basis one `u64` of
//! tensor-coordinate bits, dim 0's bits lowest) built from a [`LinearLayout`]. The const
//! planner reads the same tables from a `layout!` type's consts.

use alloc::vec::Vec;

pub use layout_plan::flat::{combine, Flat as FlatLayout};

use crate::error::bail;
use crate::{LinearLayout, Result};

/// Flatten `l` (out-dims must be powers of two, 63 bits in all at most; in-dims other than
/// `register, lane, warp, block` are left out).
pub fn flatten(l: &LinearLayout) -> Result<FlatLayout> {
    let shape: Vec<u32> = l.out_dims().iter().map(|(_, s)| *s as u32).collect();
    let mut f = match FlatLayout::new(&shape) {
        Ok(f) => f,
        Err(e) => bail!("{}", flat_error(e)),
    };
    for (name, bases) in l.bases() {
        let coords: Vec<u32> = bases.iter().flatten().map(|&x| x as u32).collect();
        if let Err(e) = f.add_in_dim(name, &coords) {
            bail!("{}", flat_error(e));
        }
    }
    Ok(f)
}

/// The message for a layout the planner's tables cannot hold.
fn flat_error(e: layout_plan::flat::FlatError) -> alloc::string::String {
    use layout_plan::flat::{FlatError, MAX_BASES, MAX_RANK};
    match e {
        FlatError::TooManyBits(n) => {
            alloc::format!(
                "the tensor has {} coordinate bits; at most 63 are supported",
                n
            )
        }
        FlatError::TooManyBases => alloc::format!(
            "an in-dim has more than {} bases; the planner handles at most 2^{} values of each",
            MAX_BASES,
            MAX_BASES
        ),
        FlatError::TooManyDims(n) => {
            alloc::format!(
                "the tensor has {} dims; the planner handles at most {}",
                n,
                MAX_RANK
            )
        }
    }
}

/// The bases of in-dim `d`, flattened with each out-dim's bits at `dim_shift`.
pub fn flat_in_dim(l: &LinearLayout, d: &str, dim_shift: &[u32]) -> Vec<u64> {
    l.in_dim_bases(d)
        .unwrap_or(&[])
        .iter()
        .map(|b| {
            b.iter()
                .zip(dim_shift)
                .fold(0u64, |acc, (&x, &sh)| acc | ((x as u64) << sh))
        })
        .collect()
}
