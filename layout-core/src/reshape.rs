//! Operations that rearrange a layout's dims without solving anything: transpose, reshape,
//! flatten, resize, rename, squeeze, concat, sublayout, and `apply`.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::error::bail;
use crate::layout::{is_pow2, log2};
use crate::{LinearLayout, Result};

fn same_set<A: AsRef<str>>(a: &[A], b: &[&str]) -> bool {
    a.len() == b.len()
        && a.iter().all(|x| b.contains(&x.as_ref()))
        && b.iter().all(|x| a.iter().any(|y| y.as_ref() == *x))
}

impl LinearLayout {
    /// `transposeIns`: reorder the in-dims (the same set of names is required).
    pub fn transpose_ins<S: AsRef<str>>(&self, new_in_dims: &[S]) -> Result<LinearLayout> {
        let cur: Vec<&str> = self.in_dim_names().collect();
        if !same_set(new_in_dims, &cur) {
            bail!(
                "transposeIns: dims must match ignoring order, got {:?} for in-dims {:?}",
                new_in_dims.iter().map(|s| s.as_ref()).collect::<Vec<_>>(),
                cur
            );
        }
        let bases = new_in_dims
            .iter()
            .map(|d| {
                let i = self.in_dim_pos(d.as_ref()).unwrap_or(0);
                self.bases[i].clone()
            })
            .collect();
        Ok(LinearLayout {
            bases,
            out_dims: self.out_dims.clone(),
            rank: self.rank,
        })
    }

    /// `transposeOuts`: reorder the out-dims, permuting every basis vector.
    pub fn transpose_outs<S: AsRef<str>>(&self, new_out_dims: &[S]) -> Result<LinearLayout> {
        let cur: Vec<&str> = self.out_dim_names().collect();
        if !same_set(new_out_dims, &cur) {
            bail!(
                "transposeOuts: dims must match ignoring order, got {:?} for out-dims {:?}",
                new_out_dims.iter().map(|s| s.as_ref()).collect::<Vec<_>>(),
                cur
            );
        }
        let perm: Vec<usize> = new_out_dims
            .iter()
            .map(|d| self.out_dim_index(d.as_ref()).unwrap_or(0))
            .collect();
        let bases = self
            .bases
            .iter()
            .map(|(n, vs)| {
                (
                    n.clone(),
                    vs.iter()
                        .map(|b| perm.iter().map(|&p| b[p]).collect())
                        .collect(),
                )
            })
            .collect();
        let out_dims = perm.iter().map(|&p| self.out_dims[p].clone()).collect();
        Ok(LinearLayout {
            bases,
            out_dims,
            rank: self.rank,
        })
    }

    /// `reshapeIns`: flatten the in-bits in order and split them into the given dims.
    pub fn reshape_ins<S: AsRef<str>>(&self, new_in_dims: &[(S, i32)]) -> Result<LinearLayout> {
        let mut total = 0i32;
        for (n, s) in new_in_dims {
            if !is_pow2(*s as i64) {
                bail!(
                    "reshapeIns: size {} of '{}' is not a power of 2",
                    s,
                    n.as_ref()
                );
            }
            total += log2(*s);
        }
        if total != self.total_in_dim_size_log2() {
            bail!(
                "reshapeIns: the new in-dims hold 2^{} elements, the layout 2^{}",
                total,
                self.total_in_dim_size_log2()
            );
        }
        let mut flat = self.bases.iter().flat_map(|(_, vs)| vs.iter().cloned());
        let bases = new_in_dims
            .iter()
            .map(|(n, s)| {
                (
                    n.as_ref().to_string(),
                    (0..log2(*s)).filter_map(|_| flat.next()).collect(),
                )
            })
            .collect();
        Ok(LinearLayout {
            bases,
            out_dims: self.out_dims.clone(),
            rank: self.rank,
        })
    }

    /// `reshapeOuts`: flatten each basis into one integer (first out-dim lowest) and split it
    /// into the given dims.
    pub fn reshape_outs<S: AsRef<str>>(&self, new_out_dims: &[(S, i32)]) -> Result<LinearLayout> {
        let mut total = 0i32;
        for (n, s) in new_out_dims {
            if !is_pow2(*s as i64) {
                bail!(
                    "reshapeOuts: size {} of '{}' is not a power of 2",
                    s,
                    n.as_ref()
                );
            }
            total += log2(*s);
        }
        if total != self.total_out_dim_size_log2() {
            bail!(
                "reshapeOuts: the new out-dims hold 2^{} elements, the layout 2^{}",
                total,
                self.total_out_dim_size_log2()
            );
        }
        let mut shifts = Vec::with_capacity(self.out_dims.len());
        let mut acc = 0;
        for (_, s) in &self.out_dims {
            shifts.push(acc);
            acc += log2(*s);
        }
        let bases = self
            .bases
            .iter()
            .map(|(n, vs)| {
                let nb = vs
                    .iter()
                    .map(|b| {
                        let mut flat: u64 = 0;
                        for (i, &v) in b.iter().enumerate() {
                            flat |= (v as u64) << shifts[i];
                        }
                        new_out_dims
                            .iter()
                            .map(|(_, s)| {
                                let v = (flat % *s as u64) as i32;
                                flat /= *s as u64;
                                v
                            })
                            .collect()
                    })
                    .collect();
                (n.clone(), nb)
            })
            .collect();
        let out_dims = new_out_dims
            .iter()
            .map(|(n, s)| (n.as_ref().to_string(), *s))
            .collect();
        Ok(LinearLayout {
            bases,
            out_dims,
            rank: self.rank,
        })
    }

    /// `flattenIns`: one in-dim, named after the first, of the total size.
    pub fn flatten_ins(&self) -> LinearLayout {
        if self.bases.is_empty() {
            return self.clone();
        }
        let name = self.bases[0].0.clone();
        let flat = self
            .bases
            .iter()
            .flat_map(|(_, vs)| vs.iter().cloned())
            .collect();
        LinearLayout {
            bases: alloc::vec![(name, flat)],
            out_dims: self.out_dims.clone(),
            rank: self.rank,
        }
    }

    /// `flattenOuts`: one out-dim, named after the first, of the total size.
    pub fn flatten_outs(&self) -> LinearLayout {
        if self.out_dims.is_empty() {
            return self.clone();
        }
        let name = self.out_dims[0].0.clone();
        let size = 1i64 << self.total_out_dim_size_log2();
        if size > i32::MAX as i64 {
            // Cannot be represented with i32 components; Triton overflows here. Keep as is.
            return self.clone();
        }
        self.reshape_outs(&[(name, size as i32)])
            .unwrap_or_else(|_| self.clone())
    }

    /// `resizeInDim`: keep the first `log2(new_size)` bases of `in_dim`.
    pub fn resize_in_dim(&self, in_dim: &str, new_size: i32) -> Result<LinearLayout> {
        let Some(p) = self.in_dim_pos(in_dim) else {
            bail!("resizeInDim: no in-dim '{}'", in_dim)
        };
        if !is_pow2(new_size as i64) || new_size > self.in_dim_size(in_dim) {
            bail!(
                "resizeInDim: new size {} must be a power of 2 no larger than {}",
                new_size,
                self.in_dim_size(in_dim)
            );
        }
        let mut bases = self.bases.clone();
        bases[p].1.truncate(log2(new_size) as usize);
        Ok(LinearLayout::new_unchecked(bases, self.out_dims.clone()))
    }

    /// `resizeOutDim`: zero every component of `out_dim` that is `>= new_size`, then shrink it.
    pub fn resize_out_dim(&self, out_dim: &str, new_size: i32) -> Result<LinearLayout> {
        let Some(o) = self.out_dim_index(out_dim) else {
            bail!("resizeOutDim: no out-dim '{}'", out_dim)
        };
        if !is_pow2(new_size as i64) || new_size > self.out_dims[o].1 {
            bail!(
                "resizeOutDim: new size {} must be a power of 2 no larger than {}",
                new_size,
                self.out_dims[o].1
            );
        }
        let mut bases = self.bases.clone();
        for (_, vs) in &mut bases {
            for b in vs {
                if b[o] >= new_size {
                    b[o] = 0;
                }
            }
        }
        let mut out_dims = self.out_dims.clone();
        out_dims[o].1 = new_size;
        Ok(LinearLayout::new_unchecked(bases, out_dims))
    }

    /// `renameInDim`. As in Triton (a MapVector erase + insert), the renamed dim moves last.
    pub fn rename_in_dim(&self, old: &str, new: &str) -> Result<LinearLayout> {
        let Some(p) = self.in_dim_pos(old) else {
            bail!("renameInDim: no in-dim '{}'", old)
        };
        if old != new && self.has_in_dim(new) {
            bail!("renameInDim: in-dim '{}' already exists", new);
        }
        let mut bases = self.bases.clone();
        let (_, vs) = bases.remove(p);
        bases.push((new.to_string(), vs));
        Ok(LinearLayout {
            bases,
            out_dims: self.out_dims.clone(),
            rank: self.rank,
        })
    }

    /// `squeezeIns`: drop a size-1 in-dim.
    pub fn squeeze_ins(&self, dim: &str) -> Result<LinearLayout> {
        if self.in_dim_bases(dim).is_none_or(|b| !b.is_empty()) {
            bail!("squeezeIns: in-dim '{}' must exist and have size 1", dim);
        }
        let dims: Vec<(String, i32)> = self
            .in_dims()
            .into_iter()
            .filter(|(n, _)| n != dim)
            .collect();
        self.reshape_ins(&dims)
    }

    /// `squeezeOuts`: drop a size-1 out-dim.
    pub fn squeeze_outs(&self, dim: &str) -> Result<LinearLayout> {
        if self.out_dim_index(dim).is_none() || self.out_dim_size(dim) != 1 {
            bail!("squeezeOuts: out-dim '{}' must exist and have size 1", dim);
        }
        let dims: Vec<(String, i32)> = self
            .out_dims
            .iter()
            .filter(|(n, _)| n != dim)
            .cloned()
            .collect();
        self.reshape_outs(&dims)
    }

    /// `concatIns`: append `other`'s in-dims (same out-dims and sizes required).
    pub fn concat_ins(&self, other: &LinearLayout) -> Result<LinearLayout> {
        if self.out_dims != other.out_dims {
            bail!("concatIns: layouts must have the same out-dims and sizes");
        }
        let mut bases = self.bases.clone();
        for (n, vs) in &other.bases {
            // MapVector::insert keeps an existing key: a dim already present is not replaced.
            if !bases.iter().any(|(m, _)| m == n) {
                bases.push((n.clone(), vs.clone()));
            }
        }
        LinearLayout::from_parts(bases, self.out_dims.clone(), false)
    }

    /// `concatOuts`: append `other`'s out-dims (same in-dims and sizes required).
    pub fn concat_outs(&self, other: &LinearLayout) -> Result<LinearLayout> {
        if self.in_dims() != other.in_dims() {
            bail!("concatOuts: layouts must have the same in-dims and sizes");
        }
        let bases = self
            .bases
            .iter()
            .zip(&other.bases)
            .map(|((n, a), (_, b))| {
                (
                    n.clone(),
                    a.iter()
                        .zip(b)
                        .map(|(x, y)| x.iter().chain(y).copied().collect())
                        .collect(),
                )
            })
            .collect();
        let mut out_dims = self.out_dims.clone();
        out_dims.extend(other.out_dims.iter().cloned());
        LinearLayout::from_parts(bases, out_dims, false)
    }

    /// `sublayout`: keep the listed in-dims and out-dim components, in the layout's own order.
    /// Out-dim sizes are unchanged.
    pub fn sublayout<A: AsRef<str>, B: AsRef<str>>(
        &self,
        in_dims: &[A],
        out_dims: &[B],
    ) -> Result<LinearLayout> {
        for d in in_dims {
            if !self.has_in_dim(d.as_ref()) {
                bail!("sublayout: '{}' is not an in-dim of the layout", d.as_ref());
            }
        }
        for d in out_dims {
            if !self.has_out_dim(d.as_ref()) {
                bail!(
                    "sublayout: '{}' is not an out-dim of the layout",
                    d.as_ref()
                );
            }
        }
        let keep: Vec<usize> = (0..self.out_dims.len())
            .filter(|&o| out_dims.iter().any(|d| d.as_ref() == self.out_dims[o].0))
            .collect();
        let bases = self
            .bases
            .iter()
            .filter(|(n, _)| in_dims.iter().any(|d| d.as_ref() == n))
            .map(|(n, vs)| {
                (
                    n.clone(),
                    vs.iter()
                        .map(|b| keep.iter().map(|&o| b[o]).collect())
                        .collect(),
                )
            })
            .collect();
        let outs = keep.iter().map(|&o| self.out_dims[o].clone()).collect();
        Ok(LinearLayout::new_unchecked(bases, outs))
    }

    /// `sublayoutIsZero`: every basis of the sublayout is zero.
    pub fn sublayout_is_zero<A: AsRef<str>, B: AsRef<str>>(
        &self,
        in_dims: &[A],
        out_dims: &[B],
    ) -> Result<bool> {
        let s = self.sublayout(in_dims, out_dims)?;
        Ok(s.bases
            .iter()
            .all(|(_, vs)| vs.iter().all(|b| b.iter().all(|&v| v == 0))))
    }

    /// `removeZeroBasesAlongDim`: drop the all-zero bases of one in-dim.
    pub fn remove_zero_bases_along_dim(&self, dim: &str) -> LinearLayout {
        let bases = self
            .bases
            .iter()
            .map(|(n, vs)| {
                if n == dim {
                    (
                        n.clone(),
                        vs.iter()
                            .filter(|b| b.iter().any(|&v| v != 0))
                            .cloned()
                            .collect(),
                    )
                } else {
                    (n.clone(), vs.clone())
                }
            })
            .collect();
        LinearLayout::new_unchecked(bases, self.out_dims.clone())
    }

    /// `apply`: the image of the given in coordinates, one value per out-dim in order. Every
    /// in-dim must be given once (in any order); bits above an in-dim's size are ignored.
    pub fn apply<S: AsRef<str>>(&self, ins: &[(S, i32)]) -> Result<Vec<(String, i32)>> {
        let names: Vec<&str> = self.in_dim_names().collect();
        if !same_set(
            &ins.iter().map(|(n, _)| n.as_ref()).collect::<Vec<_>>(),
            &names,
        ) {
            bail!("apply: expected a value for each in-dim {:?}", names);
        }
        let mut out: Vec<(String, i32)> =
            self.out_dims.iter().map(|(n, _)| (n.clone(), 0)).collect();
        for (n, v) in ins {
            let vs = self.in_dim_bases(n.as_ref()).unwrap_or(&[]);
            for (i, b) in vs.iter().enumerate() {
                if (*v >> i) & 1 == 1 {
                    for (o, x) in b.iter().enumerate() {
                        out[o].1 ^= x;
                    }
                }
            }
        }
        Ok(out)
    }

    /// `apply` with values given positionally, one per in-dim in order; returns one value per
    /// out-dim. Missing trailing values count as 0.
    pub fn apply_flat(&self, ins: &[u32]) -> Vec<u32> {
        let mut out = alloc::vec![0u32; self.out_dims.len()];
        for ((_, vs), &v) in self.bases.iter().zip(ins) {
            for (i, b) in vs.iter().enumerate() {
                if (v >> i) & 1 == 1 {
                    for (o, x) in b.iter().enumerate() {
                        out[o] ^= *x as u32;
                    }
                }
            }
        }
        out
    }
}
