//! `#ttg.partitioned_shared` (AMD gfx1250): a tensor cut along `partitionDim` into
//! `numPartitions * numGroups` pieces, piece `k` in physical partition `k % numPartitions`, each
//! partition's pieces contiguous, each piece laid out by `partitionLayout`. Triton 3.9's
//! `partitionedSharedToLinearLayout`: in-dims `offset, block, partition`.

use alloc::boxed::Box;
use alloc::format;

use super::Encoding;
use crate::error::bail;
use crate::parse::attr::Attr;
use crate::parse::error::ParseError;
use crate::parse::params::{Params, R};
use crate::utils::standard_out_dim_names;
use crate::{LinearLayout, Result};

/// `#ttg.partitioned_shared`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PartitionedShared {
    /// Physical partitions (a power of two).
    pub num_partitions: u32,
    /// Pieces per partition (a power of two).
    pub num_groups: u32,
    /// The dim the tensor is cut along.
    pub partition_dim: u32,
    /// Each piece's shared layout.
    pub partition_layout: Box<Encoding>,
}

/// `partitionedSharedToLinearLayout`: the piece's layout, then the partition bit(s), then the
/// groups as more offset bits, all along `partitionDim`.
pub fn partitioned(p: &PartitionedShared, shape: &[i64]) -> Result<LinearLayout> {
    let d = p.partition_dim as usize;
    let pieces = p.num_partitions as i64 * p.num_groups as i64;
    if d >= shape.len() || shape[d] % pieces != 0 || shape[d] < pieces {
        bail!(
            "partitioned_shared: dim {} of shape {:?} must split into numPartitions x numGroups = {} pieces",
            p.partition_dim, shape, pieces
        );
    }
    let mut piece = shape.to_vec();
    piece[d] /= pieces;
    let base = match &*p.partition_layout {
        Encoding::PaddedShared(padded) => padded.linear.clone(),
        inner => inner.to_linear_layout(&piece)?,
    };
    let names = standard_out_dim_names(base.num_out_dims());
    let part = LinearLayout::identity_1d(p.num_partitions as i32, "partition", &names[d])?;
    let groups = LinearLayout::identity_1d(p.num_groups as i32, "offset", &names[d])?;
    base.checked_mul(&part)?.checked_mul(&groups)
}

/// `#ttg.partitioned_shared<{numPartitions, numGroups, partitionDim, partitionLayout}>`.
pub(crate) fn parse_partitioned_shared(
    name: &str,
    a: &Attr,
    body: &[Attr],
    parse_inner: fn(&Attr) -> R<Encoding>,
) -> R<Encoding> {
    let mut p = Params::of(
        name,
        a,
        body,
        &[
            "numPartitions",
            "numGroups",
            "partitionDim",
            "partitionLayout",
        ],
    )?;
    let num_partitions = p.uint("numPartitions")?;
    let num_groups = p.uint("numGroups")?;
    let partition_dim = p.uint("partitionDim")?;
    for (key, v, least) in [
        ("numPartitions", num_partitions, 2),
        ("numGroups", num_groups, 1),
    ] {
        if v < least || !v.is_power_of_two() || v > 1 << 16 {
            return Err(ParseError::new(
                p.key_span(key),
                format!(
                    "{} must be a power of two, at least {}, got {}",
                    key, least, v
                ),
            ));
        }
    }
    let inner = parse_inner(p.required("partitionLayout")?)?;
    if !inner.is_shared() || matches!(inner, Encoding::PartitionedShared(_)) {
        return Err(ParseError::new(
            p.key_span("partitionLayout"),
            format!(
                "partitionLayout must be a shared layout of one partition, not #ttg.{}",
                inner.name()
            ),
        ));
    }
    if partition_dim as usize >= inner.rank() {
        return Err(ParseError::new(
            p.key_span("partitionDim"),
            format!(
                "partitionDim {} is out of range for a rank-{} partitionLayout",
                partition_dim,
                inner.rank()
            ),
        ));
    }
    Ok(Encoding::PartitionedShared(PartitionedShared {
        num_partitions,
        num_groups,
        partition_dim,
        partition_layout: Box::new(inner),
    }))
}
