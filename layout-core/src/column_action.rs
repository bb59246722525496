//! `ColumnAction`: a permutation or selection of the bases of one in-dim (Triton's
//! `ColumnAction`, used to reorder registers).

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use crate::error::bail;
use crate::{LinearLayout, Result};

/// Keeps basis `action[k]` of `in_dim` as the new basis `k`; bases not listed are dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnAction {
    action: Vec<usize>,
    in_dim: String,
    in_size_log2: usize,
    is_identity: bool,
}

impl ColumnAction {
    /// A new action; every entry must be below `in_size_log2`.
    pub fn new(action: Vec<usize>, in_dim: &str, in_size_log2: usize) -> Result<Self> {
        if let Some(&m) = action.iter().max() {
            if m >= in_size_log2 {
                bail!(
                    "ColumnAction: index {} out of range for {} bases",
                    m,
                    in_size_log2
                );
            }
        }
        let is_identity =
            action.len() == in_size_log2 && action.iter().enumerate().all(|(i, &a)| i == a);
        Ok(ColumnAction {
            action,
            in_dim: in_dim.to_string(),
            in_size_log2,
            is_identity,
        })
    }
    /// The identity on `n` bases.
    pub fn identity(in_dim: &str, n: usize) -> Self {
        ColumnAction {
            action: (0..n).collect(),
            in_dim: in_dim.to_string(),
            in_size_log2: n,
            is_identity: true,
        }
    }
    /// The action's indices.
    pub fn action(&self) -> &[usize] {
        &self.action
    }
    /// Whether it keeps every basis in place.
    pub fn is_identity(&self) -> bool {
        self.is_identity
    }
    /// Apply to a layout's bases of `in_dim`.
    pub fn apply(&self, layout: &LinearLayout) -> Result<LinearLayout> {
        let Some(vs) = layout.in_dim_bases(&self.in_dim) else {
            bail!("ColumnAction: the layout has no in-dim '{}'", self.in_dim);
        };
        if vs.len() != self.in_size_log2 {
            bail!(
                "ColumnAction: the layout has {} bases in '{}', the action expects {}",
                vs.len(),
                self.in_dim,
                self.in_size_log2
            );
        }
        if self.is_identity {
            return Ok(layout.clone());
        }
        let nb: Vec<Vec<i32>> = self.action.iter().map(|&a| vs[a].clone()).collect();
        let bases = layout
            .bases()
            .iter()
            .map(|(n, v)| {
                if *n == self.in_dim {
                    (n.clone(), nb.clone())
                } else {
                    (n.clone(), v.clone())
                }
            })
            .collect();
        LinearLayout::from_parts(bases, layout.out_dims().to_vec(), false)
    }
    /// Apply to register values: `ret[i] = values[perm(i)]`, `2^action.len()` results.
    pub fn apply_values<T: Clone>(&self, values: &[T]) -> Result<Vec<T>> {
        if values.len() != 1 << self.in_size_log2 {
            bail!(
                "ColumnAction: {} values, expected {}",
                values.len(),
                1usize << self.in_size_log2
            );
        }
        if self.is_identity {
            return Ok(values.to_vec());
        }
        Ok((0..1usize << self.action.len())
            .map(|i| {
                let mut src = 0usize;
                for (k, &a) in self.action.iter().enumerate() {
                    if (i >> k) & 1 == 1 {
                        src ^= 1 << a;
                    }
                }
                values[src].clone()
            })
            .collect())
    }
    /// The inverse permutation.
    pub fn inverse(&self) -> Self {
        let mut inv = alloc::vec![0; self.action.len()];
        for (i, &a) in self.action.iter().enumerate() {
            if a < inv.len() {
                inv[a] = i;
            }
        }
        ColumnAction {
            is_identity: self.is_identity,
            action: inv,
            in_dim: self.in_dim.clone(),
            in_size_log2: self.in_size_log2,
        }
    }
    /// `leftCompose`: `new[i] = action[other.action[i]]`.
    pub fn left_compose(&self, other: &ColumnAction) -> Result<Self> {
        if self.in_dim != other.in_dim || self.action.len() != other.action.len() {
            bail!("ColumnAction::leftCompose: actions on different dims or sizes");
        }
        ColumnAction::new(
            other.action.iter().map(|&o| self.action[o]).collect(),
            &self.in_dim,
            self.in_size_log2,
        )
    }
}

impl fmt::Display for ColumnAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ColumnAction([")?;
        for (i, a) in self.action.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{}", a)?;
        }
        write!(f, "], {}, {})", self.in_dim, self.in_size_log2)
    }
}
